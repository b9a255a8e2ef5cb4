// Surface meshes of cells: sampled signed distance -> OpenVDB narrow-band level set -> volumeToMesh.
#include "geometry/surface_mesh.h"

#include <openvdb/openvdb.h>
#include <openvdb/tools/SignedFloodFill.h>
#include <openvdb/tools/VolumeToMesh.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "geometry/cell_impl.h"

namespace vcsim::geo {
namespace {

constexpr int kBlock = 8;           // = an OpenVDB leaf, so a skipped block is a whole missing leaf
constexpr double kBandVoxels = 3;   // half-width of the narrow band

bool finite(const Aabb& b) { return !b.empty() && b.min.allFinite() && b.max.allFinite(); }

Aabb intersect(const Aabb& a, const Aabb& b) {
  Aabb r;
  r.min = a.min.cwiseMax(b.min);
  r.max = a.max.cwiseMin(b.max);
  return r;
}

// Exact signed distance to an axis-aligned box.
double box_distance(const Aabb& box, const Vec3& x) {
  const Vec3 c = 0.5 * (box.min + box.max), h = 0.5 * (box.max - box.min);
  const Vec3 q = (x - c).cwiseAbs() - h;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

// The region meshed for a cell: its bounds, clipped when needed. Empty when there is nothing to mesh.
struct CellRegion {
  Aabb box;
  bool clipped = false;
};

CellRegion cell_region(const Cell& cell, const SurfaceMeshOptions& options) {
  CellRegion r;
  r.box = world_bounds(cell, Pose{});
  const bool unbounded = !r.box.min.allFinite() || !r.box.max.allFinite();
  if (unbounded || options.clip_all) {
    if (unbounded && !finite(options.clip))
      throw std::invalid_argument("surface mesh: cell '" + cell.name + "' is unbounded and no clip box was given");
    if (finite(options.clip)) {
      Aabb clip = options.clip;
      if (unbounded) {
        // Make sure the clip box reaches the cell (a ground below the scene box, say): walk from the
        // box centre to the cell's surface (sphere tracing on the 1-Lipschitz distance, along its
        // gradient) and take in a margin around the point reached.
        const double margin = 0.25 * (clip.max - clip.min).maxCoeff();
        const double eps = 1e-4 * std::max(margin, 1e-12);
        const CellPrimitives& prims = cell.impl->prims;
        auto d = [&](const Vec3& x) { return cell_distance(prims, Pose{}, x); };
        Vec3 x = 0.5 * (clip.min + clip.max);
        for (int it = 0; it < 32; ++it) {
          const double dx = d(x);
          if (dx <= eps) break;
          Vec3 g;
          for (int a = 0; a < 3; ++a) {
            Vec3 e = Vec3::Zero();
            e[a] = eps;
            g[a] = d(x + e) - d(x - e);
          }
          if (!(g.norm() > 0)) break;
          x -= dx * g.normalized();
        }
        if (d(x) <= 2 * eps) {
          clip.min = clip.min.cwiseMin(x - Vec3::Constant(margin));
          clip.max = clip.max.cwiseMax(x + Vec3::Constant(margin));
        }
      }
      r.box = intersect(r.box, clip);
      r.clipped = true;
    }
  }
  return r;
}

void once_initialize() {
  static std::once_flag init;
  std::call_once(init, [] { openvdb::initialize(); });
}

}  // namespace

double surface_mesh_voxel(const BodyGeometry& body, const SurfaceMeshOptions& options) {
  Aabb all;
  double thinnest = std::numeric_limits<double>::infinity();
  for (const Cell& c : body.cells) {
    const CellRegion r = cell_region(c, options);
    if (r.box.empty()) continue;
    all.min = all.min.cwiseMin(r.box.min);
    all.max = all.max.cwiseMax(r.box.max);
    thinnest = std::min(thinnest, (r.box.max - r.box.min).minCoeff());
  }
  if (all.empty()) return 0;
  const double largest = (all.max - all.min).maxCoeff();
  const int res = std::max(options.resolution, 4);
  double voxel = std::min(largest / res, thinnest / 4);
  voxel = std::max(voxel, largest / (4.0 * res));
  return voxel > 0 ? voxel : 0;
}

SurfaceMesh cell_surface_mesh(const Cell& cell, double h, const SurfaceMeshOptions& options) {
  SurfaceMesh mesh;
  const CellRegion region = cell_region(cell, options);
  if (region.box.empty() || !(h > 0)) return mesh;
  once_initialize();

  const CellPrimitives& prims = cell.impl->prims;
  const Aabb clip = region.box;
  const bool clipped = region.clipped;
  auto distance = [&](const Vec3& x) {
    const double d = cell_distance(prims, Pose{}, x);
    return clipped ? std::max(d, box_distance(clip, x)) : d;
  };

  const double band = kBandVoxels * h;
  // Index range of the lattice (world x = i * h), two voxels beyond the region.
  openvdb::Coord lo, hi;
  for (int a = 0; a < 3; ++a) {
    lo[a] = static_cast<int>(std::floor(region.box.min[a] / h)) - 2;
    hi[a] = static_cast<int>(std::ceil(region.box.max[a] / h)) + 2;
  }
  auto block_floor = [](int i) { return static_cast<int>(std::floor(double(i) / kBlock)) * kBlock; };
  std::vector<openvdb::Coord> blocks;
  for (int i = block_floor(lo[0]); i <= hi[0]; i += kBlock)
    for (int j = block_floor(lo[1]); j <= hi[1]; j += kBlock)
      for (int k = block_floor(lo[2]); k <= hi[2]; k += kBlock) blocks.emplace_back(i, j, k);

  struct Voxel {
    openvdb::Coord ijk;
    float value;
    bool active;
  };
  std::vector<std::vector<Voxel>> values(blocks.size());
  const double half_diagonal = std::sqrt(3.0) * 0.5 * (kBlock - 1) * h;
  tbb::parallel_for(size_t(0), blocks.size(), [&](size_t b) {
    const openvdb::Coord& o = blocks[b];
    const Vec3 centre = (Vec3(o[0], o[1], o[2]) + Vec3::Constant(0.5 * (kBlock - 1))) * h;
    const double dc = distance(centre);
    if (std::abs(dc) >= half_diagonal + band) return;  // 1-Lipschitz: no voxel of the block is in the band
    auto& out = values[b];
    for (int i = 0; i < kBlock; ++i)
      for (int j = 0; j < kBlock; ++j)
        for (int k = 0; k < kBlock; ++k) {
          const openvdb::Coord ijk(o[0] + i, o[1] + j, o[2] + k);
          const double d = distance(Vec3(ijk[0], ijk[1], ijk[2]) * h);
          if (std::abs(d) < band) out.push_back({ijk, static_cast<float>(d), true});
          else if (d < 0) out.push_back({ijk, static_cast<float>(-band), false});  // inside, off the band
        }
  });

  auto grid = openvdb::FloatGrid::create(static_cast<float>(band));
  grid->setTransform(openvdb::math::Transform::createLinearTransform(h));
  grid->setGridClass(openvdb::GRID_LEVEL_SET);
  {
    auto acc = grid->getAccessor();
    for (const auto& block : values)
      for (const Voxel& v : block) {
        if (v.active) acc.setValue(v.ijk, v.value);
        else acc.setValueOff(v.ijk, v.value);
      }
  }
  openvdb::tools::signedFloodFill(grid->tree());

  std::vector<openvdb::Vec3s> points;
  std::vector<openvdb::Vec3I> triangles;
  std::vector<openvdb::Vec4I> quads;
  openvdb::tools::volumeToMesh(*grid, points, triangles, quads, 0.0, std::clamp(options.adaptivity, 0.0, 1.0));

  mesh.points.reserve(points.size());
  for (const auto& p : points) mesh.points.emplace_back(p[0], p[1], p[2]);
  mesh.triangles.reserve(triangles.size() + 2 * quads.size());
  auto idx = [](openvdb::Index i) { return static_cast<int>(i); };
  for (const auto& t : triangles) mesh.triangles.push_back({idx(t[0]), idx(t[1]), idx(t[2])});
  for (const auto& q : quads) {
    mesh.triangles.push_back({idx(q[0]), idx(q[1]), idx(q[2])});
    mesh.triangles.push_back({idx(q[0]), idx(q[2]), idx(q[3])});
  }
  // Outward orientation, whatever the mesher's convention.
  if (enclosed_volume(mesh) < 0)
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
  mesh.triangle_cell.assign(mesh.triangles.size(), 0);
  return mesh;
}

SurfaceMesh body_surface_mesh(const BodyGeometry& body, const SurfaceMeshOptions& options) {
  SurfaceMesh all;
  const double h = surface_mesh_voxel(body, options);
  if (!(h > 0)) return all;
  for (size_t c = 0; c < body.cells.size(); ++c) {
    const SurfaceMesh m = cell_surface_mesh(body.cells[c], h, options);
    const int base = static_cast<int>(all.points.size());
    all.points.insert(all.points.end(), m.points.begin(), m.points.end());
    for (const auto& t : m.triangles) all.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
    all.triangle_cell.insert(all.triangle_cell.end(), m.triangles.size(), static_cast<int>(c));
  }
  return all;
}

double enclosed_volume(const SurfaceMesh& mesh) {
  double v = 0;
  for (const auto& t : mesh.triangles)
    v += mesh.points[t[0]].dot(mesh.points[t[1]].cross(mesh.points[t[2]]));
  return v / 6;
}

}  // namespace vcsim::geo
