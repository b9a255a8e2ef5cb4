#include "geometry/convex_lens.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "geometry/line_sets.h"

namespace vcsim::geo {
namespace {

using lines::kInf;
using lines::Placed;
using lines::Span;

constexpr double kPi = 3.14159265358979323846;
// Clenshaw–Curtis rules of order N (N + 1 nodes −cos(kπ/N) on [−1, 1], ascending) with the order-N/2 rule on every
// other node: its error bounds the finer rule's and is the estimate.
struct CcRule {
  int n = 0;
  std::vector<double> x, w, w_half;
};
std::vector<double> cc_weights(int n) {
  std::vector<double> w(n + 1);
  for (int k = 0; k <= n; ++k) {
    double s = 0;
    for (int j = 1; j <= n / 2; ++j) s += (2 * j == n ? 1.0 : 2.0) / (4.0 * j * j - 1) * std::cos(2.0 * j * k * kPi / n);
    w[k] = (k == 0 || k == n ? 1.0 : 2.0) / n * (1 - s);
  }
  return w;
}
CcRule make_rule(int n) {
  CcRule r;
  r.n = n;
  r.w = cc_weights(n), r.w_half = cc_weights(n / 2);
  for (int k = 0; k <= n; ++k) r.x.push_back(-std::cos(k * kPi / n));
  return r;
}
// 16 at tolerances down to 1e-4 (measured: V within 1e-6 on crossed cylinders), 32 below.
const CcRule& cc_rule(double tolerance) {
  static const CcRule r16 = make_rule(16), r32 = make_rule(32);
  return tolerance >= 1e-4 ? r16 : r32;
}

// A column of the lens: the signed gap G = min(hi) − max(lo) over every primitive's chord (negative outside the
// footprint, continuous across its rim for quadrics), and which faces bound it.
struct Column {
  double G = -kInf, lo = 0, hi = 0;
  long sig = 0;
};

// Moments of columns: ∫G, ∫G u, ∫G v, ∫G m (m the column's mid z), ∫G u², ∫G uv, ∫G u m, ∫G v², ∫G v m, ∫∫z².
struct Sums {
  std::array<double, 10> s{};
  void add(double w, double u, double v, const Column& c) {
    if (!(c.G > 0)) return;
    const double g = w * c.G, m = 0.5 * (c.lo + c.hi), q = (c.lo * c.lo + c.lo * c.hi + c.hi * c.hi) / 3;
    const double t[10] = {g, g * u, g * v, g * m, g * u * u, g * u * v, g * u * m, g * v * v, g * v * m, g * q};
    for (int k = 0; k < 10; ++k) s[k] += t[k];
  }
  void add(double w, const Sums& o) {
    for (int k = 0; k < 10; ++k) s[k] += w * o.s[k];
  }
};

struct Lens {
  std::vector<Placed> prims;
  long evaluations = 0;

  Column at(double u, double v) {
    ++evaluations;
    Column c;
    double lo = -kInf, hi = kInf;
    long slo = 0, shi = 0;
    for (size_t k = 0; k < prims.size(); ++k) {
      const Placed& p = prims[k];
      const Span s = lines::line_span(p, p.A.col(0) * u + p.A.col(1) * v + p.b, p.A.col(2));
      if (s.lo > lo) lo = s.lo, slo = static_cast<long>(k) * 8 + s.face_lo;
      if (s.hi < hi) hi = s.hi, shi = static_cast<long>(k) * 8 + s.face_hi;
    }
    c.lo = lo, c.hi = hi, c.sig = slo * 4096 + shi;
    c.G = std::isfinite(hi - lo) ? hi - lo : -kInf;
    return c;
  }
};

// Golden-section search for the maximum of f on [a, b] (f quasi-concave there).
template <class F>
double argmax(const F& f, double a, double b, int iterations, double& best) {
  const double g = 0.5 * (std::sqrt(5.0) - 1);
  double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = f(x1), f2 = f(x2);
  for (int it = 0; it < iterations; ++it) {
    if (f1 >= f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = f(x1);
    else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = f(x2);
  }
  best = std::max(f1, f2);
  return f1 >= f2 ? x1 : x2;
}

// The zero of f between `in` (f > 0) and `out` (f <= 0): false position with the Illinois step, bisection where f is
// not finite. Returns a point on the inside within `tol`.
template <class F>
double rim(const F& f, double in, double f_in, double out, double f_out, double tol) {
  int side = 0;
  for (int it = 0; it < 100 && std::abs(out - in) > tol; ++it) {
    double x = 0.5 * (in + out);
    if (std::isfinite(f_out) && std::isfinite(f_in) && f_in != f_out) x = in - f_in * (out - in) / (f_out - f_in);
    if (!(x > std::min(in, out) && x < std::max(in, out))) x = 0.5 * (in + out);
    const double fx = f(x);
    if (fx > 0) {
      in = x, f_in = fx;
      if (side == 1) f_out *= 0.5;
      side = 1;
    } else {
      out = x, f_out = fx;
      if (side == -1) f_in *= 0.5;
      side = -1;
    }
  }
  return in;
}

}  // namespace

bool convex_lens_pair(const CellPrimitives& a, const CellPrimitives& b) {
  for (const CellPrimitives* cell : {&a, &b})
    for (const CellPrimitive& p : *cell)
      if (p.complement || p.primitive.kind == PrimitiveKind::Torus || p.primitive.kind == PrimitiveKind::Mesh)
        return false;
  return true;
}

std::optional<RawMoments> convex_lens_moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& columns) {
  if (!convex_lens_pair(a, b)) return std::nullopt;
  Lens lens;
  for (const CellPrimitive& p : a) lens.prims.push_back(lines::place(p, pose_a, frame));
  const size_t na = lens.prims.size();
  for (const CellPrimitive& p : b) lens.prims.push_back(lines::place(p, pose_b, frame));
  Vec3 lo_a, hi_a, lo_b, hi_b;
  lines::placed_cell_bounds(lens.prims, 0, na, lo_a, hi_a);
  lines::placed_cell_bounds(lens.prims, na, lens.prims.size(), lo_b, hi_b);
  const Vec3 lo = lo_a.cwiseMax(lo_b), hi = hi_a.cwiseMin(hi_b);
  if ((lo.array() >= hi.array()).any() || !lo.allFinite() || !hi.allFinite()) return std::nullopt;
  const double size = std::max(hi.x() - lo.x(), hi.y() - lo.y());
  const CcRule& cc = cc_rule(tolerance);
  const int kN = cc.n;
  auto finish = [&](std::optional<RawMoments> m) {
    columns += lens.evaluations;
    return m;
  };

  // The deepest column, by alternating golden sections (G is concave on the footprint and falls off outside it).
  constexpr int kGolden = 25;  // 0.618^25 = 6e-6 of the range: the maximum is flat, its value good to ~1e-11
  double u = 0.5 * (lo.x() + hi.x()), v = 0.5 * (lo.y() + hi.y()), g_best = -kInf;
  for (int round = 0; round < 3; ++round) {
    v = argmax([&](double y) { return lens.at(u, y).G; }, lo.y(), hi.y(), kGolden, g_best);
    u = argmax([&](double x) { return lens.at(x, v).G; }, lo.x(), hi.x(), kGolden, g_best);
  }
  if (!(g_best > 0)) return finish(std::nullopt);  // not found: the column engine decides

  // The footprint's extent in u: where the row's highest column reaches zero.
  auto row_max = [&](double x) {
    double best;
    argmax([&](double y) { return lens.at(x, y).G; }, lo.y(), hi.y(), kGolden, best);
    return best;
  };
  const double tol_u = 1e-10 * size;
  const double g_lo = row_max(lo.x()), g_hi = row_max(hi.x());
  const double u0 = g_lo > 0 ? lo.x() : rim(row_max, u, g_best, lo.x(), g_lo, tol_u);
  const double u1 = g_hi > 0 ? hi.x() : rim(row_max, u, g_best, hi.x(), g_hi, tol_u);

  // One row: its ends (false position on G from its highest column), split where the bounding faces change,
  // each piece by the 17- and 9-node rules.
  bool ok = true;
  double y_guess = v;  // a column inside the previous row (the footprint is convex: its rows' middles are close)
  auto row = [&](double x, Sums& fine, Sums& coarse) {
    double y_in = y_guess, g_in = lens.at(x, y_in).G;
    if (!(g_in > 0)) y_in = argmax([&](double y) { return lens.at(x, y).G; }, lo.y(), hi.y(), kGolden, g_in);
    if (!(g_in > 0)) return;  // a row at the footprint's tip
    auto G = [&](double y) { return lens.at(x, y).G; };
    const double tol_v = 1e-10 * size;
    const double gl = G(lo.y()), gh = G(hi.y());
    const double v0 = gl > 0 ? lo.y() : rim(G, y_in, g_in, lo.y(), gl, tol_v);
    const double v1 = gh > 0 ? hi.y() : rim(G, y_in, g_in, hi.y(), gh, tol_v);
    y_guess = 0.5 * (v0 + v1);
    auto piece = [&](double a0, double a1, std::vector<Column>& col) {
      const double mid = 0.5 * (a0 + a1), half = 0.5 * (a1 - a0);
      for (int k = 0; k <= kN; ++k) col[k] = lens.at(x, mid + half * cc.x[k]);
      for (int k = 0; k <= kN; ++k) fine.add(half * cc.w[k], x, mid + half * cc.x[k], col[k]);
      for (int k = 0; k <= kN / 2; ++k) coarse.add(half * cc.w_half[k], x, mid + half * cc.x[2 * k], col[2 * k]);
    };
    std::vector<Column> col(kN + 1);
    Sums f0 = fine, c0 = coarse;
    piece(v0, v1, col);
    // The faces bounding the interior nodes: one signature, or split at each change.
    std::vector<double> cuts;
    const double mid = 0.5 * (v0 + v1), half = 0.5 * (v1 - v0);
    for (int k = 1; k + 1 < kN; ++k) {
      if (col[k].sig == col[k + 1].sig) continue;
      double ya = mid + half * cc.x[k], yb = mid + half * cc.x[k + 1];
      const long s = col[k].sig;
      while (yb - ya > tol_v) {
        const double ym = 0.5 * (ya + yb);
        (lens.at(x, ym).sig == s ? ya : yb) = ym;
      }
      cuts.push_back(0.5 * (ya + yb));
    }
    if (cuts.empty()) return;
    fine = f0, coarse = c0;  // redo by pieces
    double start = v0;
    cuts.push_back(v1);
    for (double end : cuts) {
      piece(start, end, col);
      for (int k = 1; k + 1 < kN; ++k)
        if (col[k].G > 0 && col[k + 1].G > 0 && col[k].sig != col[k + 1].sig) ok = false;  // still a kink inside
      start = end;
    }
  };

  // Rows at the 17 Clenshaw–Curtis nodes across [u0, u1]; the outer 9-node rule reuses every other row.
  const double um = 0.5 * (u0 + u1), uh = 0.5 * (u1 - u0);
  Sums total, total_coarse_outer, inner_error;
  for (int k = 1; k < kN; ++k) {  // (the end rows are the footprint's tips: empty)
    Sums fine, coarse;
    row(um + uh * cc.x[k], fine, coarse);
    total.add(uh * cc.w[k], fine);
    if (k % 2 == 0) total_coarse_outer.add(uh * cc.w_half[k / 2], fine);
    for (int j = 0; j < 10; ++j) inner_error.s[j] += uh * cc.w[k] * std::abs(fine.s[j] - coarse.s[j]);
  }
  const double V = total.s[0];
  if (!ok || !(V > 0)) return finish(std::nullopt);
  // Both estimates within the tolerance. Each is the half-order rule's error; the full rule's is smaller by 2^p with
  // p ≥ 5 at the footprint's ends (the rows' integral vanishes like (u − u0)^(3/2)) and more inside; 2^3 is taken.
  const double outer_v = std::abs(V - total_coarse_outer.s[0]) / 8, inner_v = inner_error.s[0] / 8;
  if (outer_v > 0.5 * tolerance * V || inner_v > 0.5 * tolerance * V) return finish(std::nullopt);

  RawMoments m;
  const auto& s = total.s;
  m.m0 = s[0];
  m.m1 = Vec3(s[1], s[2], s[3]);
  m.m2 << s[4], s[5], s[6], s[5], s[7], s[8], s[6], s[8], s[9];
  return finish(m);
}

}  // namespace vcsim::geo
