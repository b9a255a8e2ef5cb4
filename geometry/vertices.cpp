#include "geometry/vertices.h"

#include <cmath>
#include <limits>

#include "geometry/cell_impl.h"
#include "geometry/mesh.h"

namespace vcsim::geo {
namespace {

void primitive_vertices(const CellPrimitive& cp, std::vector<Vec3>& out) {
  const Primitive& p = cp.primitive;
  if (cp.complement) return;  // a hole's corners are not the body's
  if (p.kind == PrimitiveKind::Box) {
    for (int k = 0; k < 8; ++k) {
      const Vec3 s((k & 4) ? 0.5 : -0.5, (k & 2) ? 0.5 : -0.5, (k & 1) ? 0.5 : -0.5);
      out.push_back(p.pose.apply(s.cwiseProduct(p.size)));
    }
  } else if (p.kind == PrimitiveKind::Mesh && cp.mesh) {
    for (const Vec3& v : cp.mesh->vertices) out.push_back(p.pose.apply(v));
  }
}

}  // namespace

std::vector<BodyVertex> body_vertices(const BodyGeometry& geometry, double slack) {
  std::vector<BodyVertex> out;
  for (size_t c = 0; c < geometry.cells.size(); ++c) {
    const CellPrimitives& prims = geometry.cells[c].impl->prims;
    for (size_t k = 0; k < prims.size(); ++k) {
      std::vector<Vec3> verts;
      primitive_vertices(prims[k], verts);
      if (verts.empty()) continue;
      CellPrimitives others;  // the rest of the cell's intersection
      for (size_t m = 0; m < prims.size(); ++m)
        if (m != k) others.push_back(prims[m]);
      for (const Vec3& v : verts) {
        if (!others.empty() && cell_distance(others, Pose{}, v) > slack) continue;
        bool dup = false;
        for (const BodyVertex& b : out) dup = dup || b.position == v;
        if (!dup) out.push_back(BodyVertex{v, static_cast<int>(c)});
      }
    }
  }
  return out;
}

PointDepth point_depth(const BodyGeometry& geometry, const Pose& body_pose, const Vec3& x_world) {
  PointDepth d;
  d.distance = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < geometry.cells.size(); ++c) {
    const double phi = cell_distance(geometry.cells[c].impl->prims, body_pose, x_world);
    if (phi < d.distance) d.distance = phi, d.cell = static_cast<int>(c);
  }
  return d;
}

Vec3 cell_normal(const Cell& cell, const Pose& body_pose, const Vec3& x_world, double h) {
  const Vec3 g = cell_gradient(cell.impl->prims, body_pose, x_world, h);
  const double len = g.norm();
  return len > 0 && std::isfinite(len) ? Vec3(g / len) : Vec3(Vec3::UnitZ());
}

}  // namespace vcsim::geo
