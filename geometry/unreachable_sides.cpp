#include "geometry/unreachable_sides.h"

#include <algorithm>
#include <cmath>

#include "geometry/line_sets.h"
#include "geometry/mesh.h"

namespace vcsim::geo {
namespace {

using lines::kInf;
using lines::Placed;

using lines::support;

// An upper bound of max d·x over (the cell of prims) ∩ {|z| ≤ h}: min over t and P of h_P(d − t z) + |t| h. Each
// primitive's function of t is convex: golden section on [−T, T] (any t gives a valid bound; this only tightens it).
double slab_support(const std::vector<Placed>& prims, const Vec3& d, double h) {
  double best = kInf;
  for (const Placed& p : prims) {
    if (p.complement) continue;  // it only removes
    auto f = [&](double t) { return support(p, d - t * Vec3::UnitZ()) + std::abs(t) * h; };
    const double golden = 0.5 * (std::sqrt(5.0) - 1);
    // |t| beyond 16 means a part more than 16 slab-halves wide across the axis for each unit along it: no proof
    // would come of it. 36 steps leave the bracket at 3e-7: the bound within ~1e-7 of its minimum.
    double a = -16, b = 16, x1 = b - golden * (b - a), x2 = a + golden * (b - a), f1 = f(x1), f2 = f(x2);
    for (int it = 0; it < 36; ++it) {
      if (f1 < f2) b = x2, x2 = x1, f2 = f1, x1 = b - golden * (b - a), f1 = f(x1);
      else a = x1, x1 = x2, f1 = f2, x2 = a + golden * (b - a), f2 = f(x2);
    }
    best = std::min({best, f1, f2, f(0.0)});
  }
  return best;
}

}  // namespace

std::optional<CellPrimitives> without_unreachable_sides(const CellPrimitives& cell, const Pose& pose,
                                                        const CellPrimitives& other, const Pose& other_pose) {
  std::optional<CellPrimitives> out;
  for (size_t k = 0; k < cell.size(); ++k) {
    const Primitive& pr = cell[k].primitive;
    if (cell[k].complement || (pr.kind != PrimitiveKind::Cylinder && pr.kind != PrimitiveKind::Cone)) continue;
    const double side = pr.kind == PrimitiveKind::Cylinder ? pr.radius : std::min(pr.radius, pr.radius_top);
    if (!(side > 0)) continue;
    // The other cell in this primitive's frame (axis z, centred).
    const Pose frame = pose.compose(pr.pose);
    std::vector<Placed> prims;
    for (const CellPrimitive& cp : other) prims.push_back(lines::place(cp, other_pose, frame));
    constexpr int kDirections = 12;
    const double reach_limit = side * std::cos(3.14159265358979323846 / kDirections) * (1 - 1e-9);
    bool clear = true;
    for (int j = 0; j < kDirections && clear; ++j) {
      const double angle = 2 * 3.14159265358979323846 * j / kDirections;
      clear = slab_support(prims, Vec3(std::cos(angle), std::sin(angle), 0), 0.5 * pr.length) < reach_limit;
    }
    if (!clear) continue;
    if (!out) out = cell;
    Primitive& slab = (*out)[k].primitive;
    slab.kind = PrimitiveKind::Slab;
    slab.thickness = pr.length;
  }
  return out;
}

}  // namespace vcsim::geo
