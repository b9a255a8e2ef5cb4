// Closed triangle meshes (OBJ, ASCII or binary STL): triangles, hierarchy and topology for the exact queries, and a
// signed-distance grid for the column engine, built on first use.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <openvdb/openvdb.h>

#include "geometry/csg.h"
#include "geometry/pose.h"

namespace vcsim::geo {

struct TriangleMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;
};

// Reads OBJ (v/f records, polygons fanned) or STL (ASCII or binary, vertices welded exactly).
// Throws GeometryError at `where` if the file is missing, unreadable or empty.
TriangleMesh read_mesh(const std::string& path, const SourceLocation& where);

// A closed, consistently oriented 2-manifold of non-degenerate triangles; else GeometryError naming the file, the
// defect and where (triangle and vertex indices): a zero-area triangle, an open edge (used by one triangle), a
// non-manifold edge (three or more) or vertex (separate fans), an edge run twice in one direction.
void check_closed(const TriangleMesh& mesh, const std::string& path, const SourceLocation& where);

// Half-edge 3k + e runs from triangles[k][e] to triangles[k][(e + 1) % 3]. Sorted by their undirected edge (key:
// min vertex * vertex count + max vertex), then by id, so an edge's uses sit side by side in triangle order; in a
// mesh that passed check_closed they come in twin pairs.
struct HalfEdge {
  std::uint64_t key;
  int id;
};
std::vector<HalfEdge> half_edges_by_edge(const TriangleMesh& mesh);

// Volume of the closed polyhedron (divergence theorem), for tests and diagnostics.
double polyhedron_volume(const TriangleMesh& mesh);

// A bounding-volume hierarchy over a mesh's triangles (primitive frame): a flat array of nodes, children of node k
// at k + 1 and `right`; leaves hold `count` triangles from `first` in MeshLevelSet::bvh_order.
struct MeshBvhNode {
  Vec3 lo, hi;
  int first = 0, count = 0;  // count > 0: a leaf
  int right = 0;
  // Σ over the node's triangles of the signed tetrahedra from the frame's origin: ∫dV, ∫x dV, ∫x xᵀ dV. A node
  // wholly inside a half-space adds these at once (geometry/mesh_clip.cpp).
  double m0 = 0;
  Vec3 m1 = Vec3::Zero();
  Mat3 m2 = Mat3::Zero();
};

// Which triangles meet at each vertex, and the mesh's connected pieces (geometry/mesh_intersection.cpp walks the
// surface through them). Built once at load.
struct MeshTopology {
  std::vector<int> vertex_triangle_offsets;  // triangles around vertex v: vertex_triangles[offsets[v], offsets[v+1])
  std::vector<int> vertex_triangles;
  std::vector<int> component;                // per vertex: its connected piece
  std::vector<int> component_seed;           // per piece: one of its vertices
  std::vector<Vec3> component_lo, component_hi;  // per piece: bounds, primitive frame
};

// Neighbouring triangles whose third vertex lies within 1e-12 of the mesh's size from the face's plane, merged while
// the face stays convex and has at most kMaxVertices corners (a tessellated surface of revolution: its quads; a CAD
// part's flat faces: fans). geometry/mesh_prisms.h clips a solid by one prism a face. Face f's corners are
// vertices[offsets[f], offsets[f+1]), counter-clockwise about its outward unit normal normals[f]; triangle t lies in
// face face_of[t].
struct MeshFaces {
  static constexpr int kMaxVertices = 16;
  std::vector<int> face_of, offsets, vertices;
  std::vector<Vec3> normals;
};

// A loaded mesh: its triangles, hierarchy and topology (every exact query reads these), and a narrow-band (outside)
// / filled (inside) signed-distance grid in its own frame, built on first use: only the column engine reads it (a
// mesh against a curved solid), so meshes that meet only planes and meshes never pay for it (docs/geometry.md,
// "Loading meshes"). Outside the band the stored value is the background (the band half-width): the true distance
// is at least that, so the clamped value is still a valid conservative lower bound for culling.
struct MeshLevelSet {
  std::string path;       // the file, for messages
  double voxel = 0;       // m, the grid's
  double background = 0;  // m, exterior band half-width
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();  // bounds of the (scaled) mesh in the primitive frame
  double volume = 0;      // polyhedron volume of the scaled mesh
  std::vector<Vec3> vertices;  // the scaled mesh's vertices, primitive frame (the per-vertex point model's points)
  std::vector<std::array<int, 3>> triangles;  // outward-oriented (flipped at load if the file's face inward)
  std::vector<MeshBvhNode> bvh;               // over the triangles (geometry/mesh_clip.h uses it)
  std::vector<int> bvh_order;                 // triangle indices in leaf order
  MeshTopology topology;
  bool convex = false;  // the solid is convex: the intersection of its triangles' half-spaces (geometry/convex_mesh.h)

  // The signed-distance grid, built by the first caller (thread-safe; the same grid whoever builds it).
  const openvdb::FloatGrid& level_set() const;
  bool level_set_built() const { return level_set_ready_.load(); }

  // The merged faces, built by the first caller like the grid: only a solid against a non-convex mesh reads them
  // (~44 bytes a triangle where nothing merges).
  const MeshFaces& faces() const;

 private:
  mutable std::once_flag faces_once_;
  mutable MeshFaces faces_;
  mutable std::once_flag level_set_once_;
  mutable openvdb::FloatGrid::Ptr level_set_;
  mutable std::atomic<bool> level_set_ready_{false};
};

// Reads, checks and indexes a mesh file. Meshes of 200 000 triangles or more report each stage's time on stderr as
// it ends (a million triangles take seconds).
std::shared_ptr<const MeshLevelSet> load_mesh_level_set(const std::string& path, double scale,
                                                        const SourceLocation& where);

// The triangles whose bounds meet the box [lo, hi] (given in the frame that mesh_pose maps the mesh into), found
// through the hierarchy, tested against the box's bounds in the mesh's frame: a superset of those that meet the box.
std::vector<int> mesh_triangles_near_box(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo,
                                         const Vec3& hi);

// Trilinear (BoxSampler) sample of the distance at a point of the primitive frame. Thread-safe:
// uses a non-registered accessor local to the call.
double mesh_distance(const MeshLevelSet& mesh, const Vec3& x);

}  // namespace vcsim::geo
