#include "geometry/column_integration.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "geometry/column_internal.h"
#include "geometry/mesh_closest.h"

namespace vcsim::geo {

using column::Accum;
using column::Block;
using column::FieldVertex;
using column::Lattice;
using column::Pair;
using column::kB;
using column::kMask;
using column::build_lattice;
using column::evaluate_corners;
using column::for_rows;
using column::grown_lattice;
using column::integrate_tri;
using column::make_pair;
using column::missed_lobes;
using lines::kInf;
using lines::Placed;
using lines::cell_sdf;
using lines::place;
using lines::placed_cell_bounds;
using lines::sdf_local;

void centroid_and_inertia(const RawMoments& m, Vec3& centroid, Mat3& inertia) {
  centroid = m.m1 / m.m0;
  const Mat3 C = m.m2 - m.m0 * centroid * centroid.transpose();  // second moments about the centroid
  inertia = C.trace() * Mat3::Identity() - C;                     // J = ∫(|r|² I − r rᵀ) dV
}

double cell_distance(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world) {
  double phi = -kInf;
  for (const auto& cp : cell) {
    const Placed p = place(cp, body_pose, Pose{});
    const double d = sdf_local(p, p.A * x_world + p.b);
    phi = std::max(phi, cp.complement ? -d : d);
  }
  return phi;
}

Vec3 cell_gradient(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world, double h) {
  std::vector<Placed> prims;  // placed once for the six evaluations
  for (const auto& cp : cell) prims.push_back(place(cp, body_pose, Pose{}));
  const bool has_mesh =
      std::any_of(prims.begin(), prims.end(), [](const Placed& p) { return p.kind == PrimitiveKind::Mesh; });
  if (has_mesh) {
    // The gradient of the active primitive (the largest signed distance): a mesh's exact, from its closest surface
    // point (geometry/mesh_closest.h), so that no closed-form query builds the mesh's distance grid; any other's by
    // central differences.
    double phi = -kInf;
    Vec3 g = Vec3::Zero();
    for (const Placed& p : prims) {
      const Vec3 x = p.A * x_world + p.b;
      const double sign = p.complement ? -1 : 1;
      double d;
      Vec3 grad;
      if (p.kind == PrimitiveKind::Mesh) {
        const MeshClosest c = mesh_closest(*p.mesh, x);
        d = c.distance;
        grad = p.A.transpose() * c.gradient;  // A: a rotation for meshes (scaled at load)
      } else {
        d = sdf_local(p, x);
        for (int k = 0; k < 3; ++k) {
          const Vec3 e = Vec3::Unit(k) * h;
          grad[k] = (sdf_local(p, p.A * (x_world + e) + p.b) - sdf_local(p, p.A * (x_world - e) + p.b)) / (2 * h);
        }
      }
      if (sign * d > phi) phi = sign * d, g = sign * grad;
    }
    return g;
  }
  Vec3 g;
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = Vec3::Unit(k) * h;
    g[k] = (cell_sdf(prims, 0, prims.size(), x_world + e) - cell_sdf(prims, 0, prims.size(), x_world - e)) / (2 * h);
  }
  return g;
}

void cell_bounds_in_frame(const CellPrimitives& cell, const Pose& body_pose, const Pose& frame, Vec3& lo, Vec3& hi) {
  std::vector<Placed> prims;
  for (const auto& cp : cell) prims.push_back(place(cp, body_pose, frame));
  placed_cell_bounds(prims, 0, prims.size(), lo, hi);
}

ColumnResult column_moments(const CellPrimitives& cell_i, const Pose& pose_i, const CellPrimitives& cell_j,
                            const Pose& pose_j, const Pose& frame, double s, const double* clip,
                            const std::vector<std::array<double, 2>>* seeds, double hyper_n) {
  ColumnResult result;
  Pair pr = make_pair(cell_i, pose_i, cell_j, pose_j, frame);
  Vec3 lo_i, hi_i, lo_j, hi_j;
  placed_cell_bounds(pr.prims, 0, pr.n_i, lo_i, hi_i);
  placed_cell_bounds(pr.prims, pr.n_i, pr.prims.size(), lo_j, hi_j);
  Vec3 lo = lo_i.cwiseMax(lo_j), hi = hi_i.cwiseMin(hi_j);
  if (clip && !seeds) {  // (a grown lattice is bounded by the patch itself: the clip is ignored)
    lo.x() = std::max(lo.x(), clip[0]), hi.x() = std::min(hi.x(), clip[1]);
    lo.y() = std::max(lo.y(), clip[2]), hi.y() = std::min(hi.y(), clip[3]);
  }
  if ((lo.array() >= hi.array()).any()) return result;
  if (!lo.allFinite() || !hi.allFinite()) {
    result.bounded = false;
    return result;
  }
  std::vector<long> block_columns;
  Lattice lat;
  if (seeds) {
    lat = grown_lattice(pr, lo, hi, s, *seeds, result.columns);
  } else {
    lat = build_lattice(pr, lo, hi, s);
    if (lat.candidates > 0 && !lat.too_large) evaluate_corners(pr, lat, block_columns);
  }
  result.candidates = lat.candidates;
  result.too_large = lat.too_large;
  if (lat.candidates == 0 || lat.too_large) return result;
  const long nb = static_cast<long>(lat.blocks.size());

  double ub[4] = {kInf, -kInf, kInf, -kInf};
  for (const auto& b : lat.blocks)
    for (int k = 0; k < kB * kB; ++k)
      if (b->needed[k] && b->corner[k].c.in) {
        const FieldVertex& fv = b->corner[k];
        ub[0] = std::min(ub[0], fv.u), ub[1] = std::max(ub[1], fv.u);
        ub[2] = std::min(ub[2], fv.v), ub[3] = std::max(ub[3], fv.v);
        result.inside.push_back({fv.u, fv.v});
      }
  // Seeds for the finer passes in lobes this lattice's columns missed (octree lattice: found below its spacing;
  // grown lattice: seeds it could not resolve), so that every lobe is grown (docs/geometry.md, "A second lobe").
  if (!seeds) {
    const auto lobes = missed_lobes(pr, lat, result.columns);
    result.inside.insert(result.inside.end(), lobes.begin(), lobes.end());
  }
  result.inside.insert(result.inside.end(), lat.orphans.begin(), lat.orphans.end());
  result.u_min = ub[0], result.u_max = ub[1], result.v_min = ub[2], result.v_max = ub[3];
  // Each block's right, top and top-right neighbours hold the corners of its edge squares.
  std::vector<std::array<const Block*, 3>> nbr(nb);
  for (long kb = 0; kb < nb; ++kb) {
    const Block& b = *lat.blocks[kb];
    nbr[kb] = {lat.find(b.bi + 1, b.bj), lat.find(b.bi, b.bj + 1), lat.find(b.bi + 1, b.bj + 1)};
  }
  std::vector<Accum> rows(nb);
  for (Accum& a : rows) a.hyper_n = hyper_n;
  std::vector<long> diag_columns(nb, 0);
  for_rows(nb, lat.candidates, [&](long kb) {
    Accum& acc = rows[kb];
    const Block& b = *lat.blocks[kb];
    auto at = [&](int i, int j) -> const FieldVertex& {
      const Block* o = i < kB ? (j < kB ? &b : nbr[kb][1]) : (j < kB ? nbr[kb][0] : nbr[kb][2]);
      return o->corner[(j & kMask) * kB + (i & kMask)];
    };
    for (int j = 0; j < kB; ++j)
      for (int i = 0; i < kB; ++i) {
        if (!b.square[j * kB + i]) continue;
        const FieldVertex &p00 = at(i, j), &p10 = at(i + 1, j), &p11 = at(i + 1, j + 1), &p01 = at(i, j + 1);
        if (!(p00.c.in || p10.c.in || p11.c.in || p01.c.in)) continue;
        integrate_tri(pr, p00, p10, p11, 0, acc, diag_columns[kb]);
        integrate_tri(pr, p00, p11, p01, 0, acc, diag_columns[kb]);
      }
  });
  // Ordered reduction: bitwise identical for any number of threads.
  Accum tot;
  for (long k = 0; k < nb; ++k) {
    const Accum& a = rows[k];
    tot.g += a.g, tot.gu += a.gu, tot.gv += a.gv, tot.gm += a.gm, tot.guu += a.guu, tot.gvv += a.gvv;
    tot.guv += a.guv, tot.gum += a.gum, tot.gvm += a.gvm, tot.gq += a.gq, tot.area += a.area, tot.rim += a.rim;
    tot.h += a.h, tot.hu += a.hu, tot.hv += a.hv, tot.hm += a.hm;
    result.columns += diag_columns[k];
  }
  for (long c : block_columns) result.columns += c;
  RawMoments& m = result.moments;
  m.m0 = tot.g;
  m.m1 = Vec3(tot.gu, tot.gv, tot.gm);
  m.m2 << tot.guu, tot.guv, tot.gum, tot.guv, tot.gvv, tot.gvm, tot.gum, tot.gvm, tot.gq;
  if (hyper_n != 1) m.h0 = tot.h, m.h1 = Vec3(tot.hu, tot.hv, tot.hm);
  result.area = tot.area;
  result.rim = tot.rim;
  return result;
}

std::vector<ColumnSample> column_samples(const CellPrimitives& cell_i, const Pose& pose_i,
                                         const CellPrimitives& cell_j, const Pose& pose_j, const Pose& frame,
                                         double s) {
  std::vector<ColumnSample> out;
  Pair pr = make_pair(cell_i, pose_i, cell_j, pose_j, frame);
  Vec3 lo_i, hi_i, lo_j, hi_j;
  placed_cell_bounds(pr.prims, 0, pr.n_i, lo_i, hi_i);
  placed_cell_bounds(pr.prims, pr.n_i, pr.prims.size(), lo_j, hi_j);
  const Vec3 lo = lo_i.cwiseMax(lo_j), hi = hi_i.cwiseMin(hi_j);
  if ((lo.array() >= hi.array()).any() || !lo.allFinite() || !hi.allFinite()) return out;
  Lattice lat = build_lattice(pr, lo, hi, s);
  if (lat.candidates == 0 || lat.too_large) return out;
  std::vector<long> block_columns;
  evaluate_corners(pr, lat, block_columns);
  for (const auto& b : lat.blocks)
    for (int k = 0; k < kB * kB; ++k)
      if (b->needed[k] && b->corner[k].c.in) {
        const FieldVertex& fv = b->corner[k];
        out.push_back({fv.u, fv.v, fv.c.lo, fv.c.hi, fv.c.G});
      }
  return out;
}

}  // namespace vcsim::geo
