// The column engine's axis where the normal estimate grazes or folds a curved face. See transversal_axis.h.
#include "geometry/transversal_axis.h"

#include <algorithm>
#include <cmath>

#include "geometry/line_sets.h"

namespace vcsim::geo {
namespace {

using lines::Placed;

constexpr double kGrazing = 0.1;    // z grazes a face whose normals come within ~6° of perpendicular to it
constexpr double kMargin = 0.05;    // the least margin of a chosen axis (~3°; and twice z's)
constexpr size_t kMaxColumns = 64;  // columns sampled (evenly strided over the coarse pass's)

bool has_axis(PrimitiveKind k) {
  return k == PrimitiveKind::Cylinder || k == PrimitiveKind::Cone || k == PrimitiveKind::Capsule ||
         k == PrimitiveKind::Torus || k == PrimitiveKind::InfiniteCylinder;
}

// Whether p's face through x (primitive frame) is curved: planes and the caps of cylinders and cones have one normal
// each and never fold.
bool curved(const Placed& p, const Vec3& x, double tol) {
  switch (p.kind) {
    case PrimitiveKind::Box:
    case PrimitiveKind::HalfSpace:
    case PrimitiveKind::Slab:
    case PrimitiveKind::Mesh: return false;
    case PrimitiveKind::Cylinder:
    case PrimitiveKind::Cone: return std::abs(std::abs(x.z()) - p.half_length) > tol;
    default: return true;
  }
}

}  // namespace

std::optional<Vec3> transversal_axis(const CellPrimitives& a, const Pose& pa, const CellPrimitives& b, const Pose& pb,
                                     const Pose& frame, const std::vector<std::array<double, 2>>& columns,
                                     double spacing) {
  std::vector<Placed> prims;
  for (const auto& cp : a) prims.push_back(lines::place(cp, pa, frame));
  const size_t n_a = prims.size();
  for (const auto& cp : b) prims.push_back(lines::place(cp, pb, frame));
  // Candidates: the primitives' own axes in Q, along z, not z itself. A mesh's distance is not evaluated here (it
  // would build its grid); its facets are planar, but the question is not asked.
  std::vector<Vec3> axes;
  for (const Placed& p : prims) {
    if (p.kind == PrimitiveKind::Mesh) return std::nullopt;
    if (!has_axis(p.kind)) continue;
    Vec3 d = p.A.row(2).transpose();
    if (d.z() < 0) d = -d;
    if (d.z() > 0.9998) continue;  // within ~1° of the estimate
    if (std::none_of(axes.begin(), axes.end(), [&](const Vec3& e) { return e.dot(d) > 0.9998; })) axes.push_back(d);
  }
  if (axes.empty() || columns.empty()) return std::nullopt;
  Vec3 lo_a, hi_a, lo_b, hi_b;
  lines::placed_cell_bounds(prims, 0, n_a, lo_a, hi_a);
  lines::placed_cell_bounds(prims, n_a, prims.size(), lo_b, hi_b);
  const double s0 = std::max(lo_a.z(), lo_b.z()), s1 = std::min(hi_a.z(), hi_b.z());
  if (!std::isfinite(s0) || !std::isfinite(s1) || !(spacing > 0)) return std::nullopt;

  // The ends of each sampled column's set lie on a face of either cell: which primitive's, and its outward normal.
  struct Sample {
    size_t face;
    Vec3 n;
  };
  std::vector<Sample> samples;
  const double tol = 1e-3 * spacing, h = 1e-4 * spacing;
  const size_t stride = (columns.size() + kMaxColumns - 1) / kMaxColumns;
  for (size_t c = 0; c < columns.size(); c += stride) {
    const Vec3 o(columns[c][0], columns[c][1], 0), w = Vec3::UnitZ();
    const lines::IntervalList set = lines::intersect(lines::cell_line_set(prims, 0, n_a, o, w, s0, s1),
                                                     lines::cell_line_set(prims, n_a, prims.size(), o, w, s0, s1));
    for (int k = 0; k < set.n; ++k) {
      for (const double s : set.v[k]) {
        const Vec3 x = o + s * w;
        size_t face = prims.size();
        double nearest = tol;
        for (size_t i = 0; i < prims.size(); ++i) {
          const double d = std::abs(lines::sdf_local(prims[i], prims[i].A * x + prims[i].b));
          if (d < nearest) nearest = d, face = i;
        }
        if (face == prims.size()) continue;
        const Placed& p = prims[face];
        const Vec3 xl = p.A * x + p.b;
        if (!curved(p, xl, tol)) continue;
        Vec3 g;
        for (int j = 0; j < 3; ++j) {
          const Vec3 e = h * Vec3::Unit(j);
          g[j] = lines::sdf_local(p, xl + e) - lines::sdf_local(p, xl - e);
        }
        if (!(g.norm() > 0)) continue;
        const Vec3 n = p.A.transpose() * g.normalized();
        samples.push_back({face, p.complement ? Vec3(-n) : n});
      }
    }
  }
  // Per face, the range of n·d over its samples.
  auto ranges = [&](const Vec3& d) {
    std::vector<std::array<double, 2>> r(prims.size(), {lines::kInf, -lines::kInf});
    for (const Sample& sm : samples) {
      const double c = sm.n.dot(d);
      r[sm.face] = {std::min(r[sm.face][0], c), std::max(r[sm.face][1], c)};
    }
    return r;
  };
  // An axis's margin: the least |n·d| over the curved faces, negative where a face's normals change side.
  auto margin = [&](const Vec3& d) {
    double m = lines::kInf;
    for (const auto& r : ranges(d))
      if (r[0] <= r[1]) m = std::min(m, r[0] > 0 ? r[0] : -r[1]);
    return m;
  };
  const double along_z = margin(Vec3::UnitZ());
  if (along_z >= kGrazing) return std::nullopt;  // z crosses every face: keep it
  const Vec3* best = nullptr;
  double widest = std::max(kMargin, 2 * along_z);
  for (const Vec3& d : axes) {
    const double m = margin(d);
    if (m >= widest) widest = m, best = &d;
  }
  if (!best) return std::nullopt;
  return frame.rotation * *best;
}

}  // namespace vcsim::geo
