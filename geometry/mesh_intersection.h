// Two closed triangle meshes, convex or not, exactly (issue 17): the moments of A ∩ B from its boundary, which is
// ∂A inside B plus ∂B inside A. Each triangle's part inside the other solid is a planar polygon whose boundary is
// made of its edges' parts inside the other solid and of its intersection segments with the other surface; the
// solid's moments are then sums of signed tetrahedra from the query frame's origin over a fan of each polygon
// (divergence theorem). Only triangle pairs whose bounds meet are examined, through both meshes' BVHs.
//
// The combinatorics (which edge crosses which face, in which direction, in which order along the edge) are decided
// by exact integer predicates on the vertices snapped to a grid of 2^-39 of the scene's extent, with ties broken by
// one symbolic perturbation (geometry/exact_predicates.h), so faces that lie exactly on each other (a box resting
// on a slab) and vertices on faces give a consistent answer. The only error is that snapping: each vertex moves by
// at most 2^-40 of the extent (1e-12 m for a 1 m scene), which changes V by at most that times the contact area.
// See docs/geometry.md, "Two meshes".
#pragma once
#include "geometry/column_integration.h"
#include "geometry/mesh.h"

#include <utility>
#include <vector>

namespace vcsim::geo {

struct MeshIntersectionStats {
  long triangle_pairs = 0;  // pairs of triangles whose bounds meet (the work of a query)
  long crossings = 0;       // edge-through-face crossings found
  long ray_tests = 0;       // pieces of surface whose inside/outside status needed a ray
  long inconsistent = 0;    // triangle pairs with other than 0 or 2 crossings (0 with exact predicates)
  long warm = 0;            // queries answered from a valid MeshPairCache (no node-pair walk)
  long rebuilt = 0;         // caches rebuilt (a walk with the enlarged pad that also answered the query)
  long cached_leaf_pairs = 0;  // leaf pairs listed in the cache used (warm or rebuilt)
};

// Coherence between queries of one pair of meshes (issue 17): the BVH leaf pairs that meet at one relative pose with
// the cull pad enlarged by a margin δ. While neither mesh's bounds have moved by δ relative to the other (the bound
// is in mesh_intersection.cpp, at `cache_valid`), every leaf pair that meets at the current pose is in the list, so
// a query that tests only the listed pairs examines every triangle pair that truly intersects, and the sums (in a
// canonical order) give the same bits as a cold query. Plain data: the owner (one per contact cell pair) keeps it
// between queries; a query only reads it, except the one given it to refresh.
struct MeshPairCache {
  const MeshLevelSet* mesh_a = nullptr;  // the meshes it was built for, in this order; any other pair: ignored
  const MeshLevelSet* mesh_b = nullptr;
  Mat3 b_to_a = Mat3::Identity();  // the relative pose at build, B's frame seen from A's: x_a = b_to_a x_b + t_b_to_a
  Vec3 t_b_to_a = Vec3::Zero();
  Vec3 t_a_to_b = Vec3::Zero();    // and A's seen from B's (its rotation is b_to_aᵀ)
  double pad = 0;                  // the cull pad of the build walk: that query's pad (2 grid quanta) + margin
  double margin = 0;               // δ (m)
  // δ for the next rebuild, in leaf sizes of the finer mesh (root diagonal / √(leaves)); chosen by measurement
  // (bench_mesh_coherence, benchmarks/README.md).
  double margin_in_leaves = 0.25;
  std::vector<std::pair<int, int>> leaf_pairs;  // (A's leaf node, B's leaf node), sorted
  bool built() const { return mesh_a != nullptr; }
};

// Raw moments (about the query frame's origin) of mesh_a ∩ mesh_b, each placed by its pose (primitive frame →
// query frame: the world orientation with the overlap's origin).
//  - warm: a cache, read only. Used when it was built for these two meshes (in this order) and is valid at this
//    pose; then the node-pair walk is skipped.
//  - refresh: when no valid warm cache answered, this cache is rebuilt at the current pose (it may be `warm`).
// Neither: a cold query. All three give the same bits.
RawMoments mesh_mesh_moments(const MeshLevelSet& mesh_a, const Pose& pose_a, const MeshLevelSet& mesh_b,
                             const Pose& pose_b, MeshIntersectionStats* stats = nullptr,
                             const MeshPairCache* warm = nullptr, MeshPairCache* refresh = nullptr);

}  // namespace vcsim::geo
