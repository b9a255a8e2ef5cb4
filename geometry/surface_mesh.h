// Surface meshes of cells and bodies, for visualisation only (`vcsim export`, `vcsim animate`).
//
// Each cell is turned into a narrow-band level set by sampling its signed distance
// (geo::cell_distance) on a voxel lattice, then meshed with openvdb::tools::volumeToMesh. The
// result is a closed, outward-oriented triangle mesh whose vertices lie on the zero set of the
// sampled distance (edges and corners are rounded at the voxel scale). Unbounded cells (half-spaces,
// slabs, infinite cylinders) are intersected with a clip box first, so they become finite blocks.
#pragma once
#include <array>
#include <vector>

#include "geometry/interference.h"

namespace vcsim::geo {

struct SurfaceMesh {
  std::vector<Vec3> points;                   // in the frame the geometry is defined in (body frame)
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from outside
  std::vector<int> triangle_cell;             // per triangle: index of its cell in the body
  size_t size() const { return triangles.size(); }
};

struct SurfaceMeshOptions {
  // Voxels along the largest (clipped) extent of the body. The voxel is also kept at or below a
  // quarter of the thinnest cell's extent, but never below largest extent / (4 * resolution).
  int resolution = 96;
  // openvdb volumeToMesh adaptivity in [0, 1]: 0 keeps every voxel-sized polygon; larger values
  // merge polygons on flat parts (fewer triangles, same silhouette).
  double adaptivity = 0.0;
  // Body-frame box that bounds unbounded cells. Required when a cell is unbounded (an unbounded
  // cell with an empty clip throws std::invalid_argument). If the cell lies outside the box (a
  // ground plane below the scene), the box is grown to take in the nearest part of the cell plus a
  // margin of a quarter of the box's size, so the result is a block under the scene. Also applied
  // to bounded cells (unchanged) when clip_all is set.
  Aabb clip;
  bool clip_all = false;
};

// Mesh of one cell.
SurfaceMesh cell_surface_mesh(const Cell& cell, double voxel, const SurfaceMeshOptions& options);

// Mesh of every cell of a body, concatenated (one shared voxel size).
SurfaceMesh body_surface_mesh(const BodyGeometry& body, const SurfaceMeshOptions& options);

// The voxel size body_surface_mesh uses (0 when the body has no finite extent after clipping).
double surface_mesh_voxel(const BodyGeometry& body, const SurfaceMeshOptions& options);

// Signed volume enclosed by a closed mesh (positive for outward-oriented triangles).
double enclosed_volume(const SurfaceMesh& mesh);

}  // namespace vcsim::geo
