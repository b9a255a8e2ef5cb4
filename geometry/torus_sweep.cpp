#include "geometry/torus_sweep.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "geometry/lens_rules.h"
#include "geometry/line_sets.h"

namespace vcsim::geo {
namespace {

using lines::IntervalList;
using lines::Placed;

constexpr double kPi = 3.14159265358979323846;

// Gauss–Legendre nodes and weights on [0, 1] (Newton on P_n from the Chebyshev guess; exact to rounding).
struct Rule {
  std::vector<double> x, w;
  std::vector<double> cos_pi_x, w_pi_sin;  // cos πx and π w sin πx: the cosine substitution's nodes, set once
};
Rule make_gauss_legendre(int n) {
  Rule r;
  for (int i = 0; i < n; ++i) {
    double z = std::cos(kPi * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = z;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = p2;
      }
      if (n == 1) p0 = 1, p1 = z;
      dp = n * (z * p1 - p0) / (z * z - 1);
      const double dz = p1 / dp;
      z -= dz;
      if (std::abs(dz) < 1e-16) break;
    }
    r.x.push_back(0.5 * (1 - z));
    r.w.push_back(1.0 / ((1 - z * z) * dp * dp));
  }
  for (size_t i = 0; i < r.x.size(); ++i) {
    r.cos_pi_x.push_back(std::cos(kPi * r.x[i]));
    r.w_pi_sin.push_back(kPi * r.w[i] * std::sin(kPi * r.x[i]));
  }
  return r;
}

// The rules of 1 … 24 points (nodes_for's range), made once: a query took 2 % of its time making its two.
const Rule& gauss_legendre(int n) {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> all(25);
    for (int k = 1; k <= 24; ++k) all[k] = make_gauss_legendre(k);
    return all;
  }();
  return rules.at(n);
}

// Node counts from the tolerance. Measured against Pappus's closed form for the doughnut on its cone and the
// closed-form torus–plane pairs (tests/geometry_torus_sweep_test.cpp): 10 nodes per panel reach 1e-6 in V and 2e-4 in J on the shallow
// lenses of resting contacts; each decade of tolerance adds 4; beyond 24 nodes the bisected breakpoints (1e-9) limit it.
// Across a section (the chords' offsets) two fewer down to a tolerance of 1e-4: at 1e-3 on bench_every_pair's two-tori
// and ellipsoid–torus poses (seeds 3, 7, 13, 29) V within 2.5e-6 and J within 3.4e-5 of the sweep at 1e-9, where 10
// nodes gave 1e-7 and 8e-7 (6 nodes: J 4e-3); a ball and the doughnut on its cone within 1e-5 and 2.4e-5. Not tighter:
// a torus 2 cm deep in a plane came out 2.9e-6 from its closed form at 1e-6 with 20 nodes (1.1e-7 with 22). Along φ,
// 8 nodes were not enough at 1e-3 (J 5e-4 … 9e-4 on the doughnut and a ball's unchecked bands).
int nodes_for(double tolerance) {
  const double digits = -std::log10(std::clamp(tolerance, 1e-12, 1e-1));
  return std::clamp(static_cast<int>(std::ceil(4 * digits - 2)), 6, 24);
}

// The root of a continuous f between a and b, where f changes sign, to `tol`: the lens's false position
// (geometry/lens_rules.h), which wants f > 0 on its first side.
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // find_edge bisects where f is not finite
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class F>
double sign_change(const F& f, double a, double b, double tol) {
  const double fa = f(a), sign = fa < 0 ? -1.0 : 1.0;
  auto g = [&](double x) { return std::pair<double, long>(sign * f(x), 0); };
  const lens::Edge e = lens::find_edge(g, a, sign * fa, 0, b, sign * f(b), 0, tol);
  return 0.5 * (e.in + e.out);
}

// A zero of f on [lo, hi], where f changes sign, to `tol`. Each step solves the parabola through the last point, with
// its slope (f(x, slope) gives both), and the bracket's end on the other side of the zero. The least level along a
// family of chords is near such a parabola about the chord of closest approach, where Newton's method alone, started
// near that chord, overshoots and then halves its way back (9 evaluations a zero). Kept in the bracket (false
// position, then bisection, where a step would leave it). A step within tol/2 becomes a probe tol/2 towards the far
// end, which closes the bracket (a step rounded to nothing had stalled it into bisections); past 12 steps it bisects.
// Returns the bracket: lo on the first end's side, hi on the second's.
struct Edge {
  double lo, hi;
};
template <class F>
Edge parabola_edge(const F& f, double lo, double flo, double slope_lo, double hi, double fhi, double slope_hi,
                   double tol) {
  const bool first = std::abs(flo) <= std::abs(fhi);
  double x = first ? lo : hi, fx = first ? flo : fhi, slope = first ? slope_lo : slope_hi;
  auto inside = [&](double t) { return t > std::min(lo, hi) && t < std::max(lo, hi); };
  auto take = [&](double t) {
    double st;
    const double ft = f(t, st);
    const bool low_side = (ft < 0) == (flo < 0);  // f = 0 is on the positive side: a tangent chord misses
    (low_side ? lo : hi) = t, (low_side ? flo : fhi) = ft;
    x = t, fx = ft, slope = st;
  };
  for (int it = 0; it < 100 && std::abs(hi - lo) > tol; ++it) {
    // The far end: the bracket's end on the other side of the zero from x.
    const bool x_low_side = (fx < 0) == (flo < 0);
    const double y = x_low_side ? hi : lo, fy = x_low_side ? fhi : flo, h = y - x;
    const double c = (fy - fx - slope * h) / (h * h);  // f ≈ fx + slope d + c d², through (y, fy)
    double d = kNaN;
    const double disc = slope * slope - 4 * c * fx;
    if (disc >= 0) {
      const double q = -0.5 * (slope + std::copysign(std::sqrt(disc), slope));
      for (const double root : {q != 0 ? fx / q : kNaN, c != 0 ? q / c : kNaN})
        if (std::abs(root) < std::abs(h) && root * h >= 0) d = root;
    }
    if (std::abs(d) <= 0.5 * tol) {  // x is within tol/2 of the zero: a probe tol/2 towards y closes the bracket
      const double probe = x + std::copysign(0.5 * tol, h);
      if (!inside(probe)) break;  // y itself is that close
      take(probe);
      continue;
    }
    double next = x + d;
    if (!inside(next)) next = lo - flo * (hi - lo) / (fhi - flo);
    if (!inside(next) || it >= 12) next = 0.5 * (lo + hi);  // bisection past 12 steps: a kink (a minimum's switch)
    take(next);
  }
  return {lo, hi};
}

// ---- an ellipsoid on one meridian disc ----
// In the disc's coordinates x (along e_r and e_z from its centre, |x| ≤ r) the ellipsoid {y : |D (A y + b)| ≤ 1}
// (D = diag(1/radii)) is f(x) = |M x + m|² ≤ 1, f = xᵀHx + 2gᵀx + |m|² with H = MᵀM (positive definite: M has
// rank 2). The sweep needs f's least value over the disc (does the section meet the ellipsoid?), its least and
// greatest over the circle (does the ellipse cross the circle? is the whole disc inside?) and where they are.
using Vec2 = Eigen::Vector2d;
using Mat32 = Eigen::Matrix<double, 3, 2>;

struct EllipseOnDisc {
  Mat32 M;
  Vec3 m;
  Vec2 g;             // Mᵀm
  double h[2];        // H's eigenvalues, h[0] ≤ h[1]
  Vec2 v[2];          // its unit eigenvectors
  Vec2 gv;            // g in that eigenbasis
  Vec2 x_min;         // where f is least on the disc
  double f_min = 0;   // ... its value
  double f_cmin = 0;  // f's least value on the circle |x| = r (when asked for: NaN otherwise)
  double f_cmax = 0;  // f's greatest value on the circle (= on the disc: f is convex; when asked for)
  double f(const Vec2& x) const { return (M * x + m).squaredNorm(); }
  Vec2 from_eigen(const Vec2& y) const { return y[0] * v[0] + y[1] * v[1]; }
};

// The t ≥ 0 where |x(t)| = r for x_i(t) = g_i / (d_i + t), d_i ≥ 0: |x| falls from |x(0⁺)| ≥ r to at most r at
// t = |g|/r, so the root is bracketed and unique (the trust-region secular equation, in H's eigenbasis). Newton on
// 1/|x| − 1/r, nearly linear in t (Moré & Sorensen 1983), bisecting where a step would leave the bracket.
double secular_root(const Vec2& g, const Vec2& d, double r) {
  double lo = 0, hi = g.norm() / r, t = hi;
  for (int it = 0; it < 100 && hi > lo; ++it) {
    const Vec2 x(g[0] / (d[0] + t), g[1] / (d[1] + t));
    const double n = x.norm(), psi = 1 / n - 1 / r;
    if (psi == 0) return t;
    (psi < 0 ? lo : hi) = t;
    const double dpsi = (x[0] * x[0] / (d[0] + t) + x[1] * x[1] / (d[1] + t)) / (n * n * n);
    double next = t - psi / dpsi;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - t) <= 1e-15 * t) return next;
    t = next;
  }
  return t;
}

// A point of the circle |y| = r (eigenbasis) where f is stationary, from the root t of the secular equation of the
// component j with d_j > 0; the other component i (d_i = 0) from |y| = r, which stays right where g_i ≈ 0 (the
// "hard case", e.g. an axis of the ellipse through the disc's centre), where g_i / t is 0/0.
Vec2 circle_point(const Vec2& gs, const Vec2& d, int j, double r) {
  const double t = secular_root(gs, d, r);
  const int i = 1 - j;
  Vec2 y;
  y[j] = d[j] + t > 0 ? std::clamp(gs[j] / (d[j] + t), -r, r) : 0.0;  // 0 / 0: g = 0 and H ∝ I, any point
  y[i] = std::copysign(std::sqrt(std::max(r * r - y[j] * y[j], 0.0)), gs[i]);
  return y;
}

// What ellipse_on_disc computes beyond the least value on the disc: each circle extreme is a secular equation of its
// own, the largest part of a section's cost (ellipsoid against torus: 28 % of the query in secular_root).
enum CircleExtremes { kNoCircle = 0, kCircleMin = 1, kCircleMax = 2 };

EllipseOnDisc ellipse_on_disc(const Mat3& DA, const Vec3& Db, double R, double r, double phi, int circle) {
  EllipseOnDisc e;
  const Vec3 er(std::cos(phi), std::sin(phi), 0);
  e.M.col(0) = DA * er, e.M.col(1) = DA.col(2);
  e.m = DA * (R * er) + Db;
  e.g = e.M.transpose() * e.m;
  const double a = e.M.col(0).squaredNorm(), b = e.M.col(0).dot(e.M.col(1)), d = e.M.col(1).squaredNorm();
  const double rad = std::hypot(0.5 * (a - d), b), theta = 0.5 * std::atan2(2 * b, a - d);
  e.h[1] = 0.5 * (a + d) + rad, e.h[0] = (a * d - b * b) / e.h[1];
  e.v[1] = Vec2(std::cos(theta), std::sin(theta)), e.v[0] = Vec2(-std::sin(theta), std::cos(theta));
  e.gv = Vec2(e.v[0].dot(e.g), e.v[1].dot(e.g));
  // Least on the disc: the unconstrained minimiser −H⁻¹g where it lies inside, else the boundary point with
  // (H + λI) y = −g, λ > 0 (the trust-region problem; H + λI positive, so no hard case).
  const Vec2 centre(-e.gv[0] / e.h[0], -e.gv[1] / e.h[1]);
  if (centre.norm() <= r) {
    e.x_min = e.from_eigen(centre);
  } else {
    const double t = secular_root(-e.gv, Vec2(e.h[0], e.h[1]), r);
    const Vec2 y(-e.gv[0] / (e.h[0] + t), -e.gv[1] / (e.h[1] + t));
    e.x_min = e.from_eigen(r / y.norm() * y);
  }
  e.f_min = e.f(e.x_min);
  // On the circle, stationary points solve (H − μI) y = −g: the least has μ ≤ h[0] (t = h[0] − μ), the greatest
  // μ ≥ h[1] (t = μ − h[1]); each secular equation then has one root (Lagrange, as for the trust region).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  e.f_cmin = circle & kCircleMin ? e.f(e.from_eigen(circle_point(-e.gv, Vec2(0, e.h[1] - e.h[0]), 1, r))) : nan;
  e.f_cmax = circle & kCircleMax ? e.f(e.from_eigen(circle_point(e.gv, Vec2(e.h[1] - e.h[0], 0), 0, r))) : nan;
  return e;
}

struct Sweep {
  std::vector<Placed> clip;   // every primitive but the torus, both cells: a chord's set is their intersection
  size_t other_begin = 0;     // clip[other_begin, end): the other cell (its distance gives q and the depth)
  double R = 0, r = 0;
  Vec3 ref = Vec3::Zero();  // the point the moments are taken about (Q): the deepest point found
  const Rule* rule = nullptr;        // along φ, over the panels of a ring or of a band that is not checked
  const Rule* chord_rule = nullptr;  // across a section, along the chords' offsets
  static constexpr int a_samples = 17;  // odd: a = 0, the chord through the disc's deepest point, is a sample
  std::array<double, a_samples> a_nodes;  // −cos(π (i + ½) / a_samples), set once (their cosines were 3 % of a query)

  Vec3 radial(double phi) const { return Vec3(std::cos(phi), std::sin(phi), 0); }

  double other_sdf(const Vec3& x) const { return lines::cell_sdf(clip, other_begin, clip.size(), x); }

  // The chord direction at ring angle φ: the other cell's outward gradient at the disc's centre, in the meridian
  // plane (the axis if it has no component there). Right for smooth surfaces and for edges that cross the plane;
  // not for a corner of the other cell off the plane (docs/geometry.md, "The torus sweep": limits).
  Vec3 chord_direction(double phi) const {
    if (ring_r > 0) {
      Vec3 q;
      double a0;
      return ring_chords(radial(phi), q, a0) ? q : radial(phi);
    }
    if (ellipsoid) {
      Vec3 q;
      double lo, a0, hi;
      return ellipsoid_chords(phi, q, lo, a0, hi) ? q : radial(phi);
    }
    const Vec3 er = radial(phi), c = R * er;
    const double h = 1e-7 * (R + r);
    Vec3 g;
    for (int k = 0; k < 3; ++k) {
      const Vec3 e = Vec3::Unit(k) * h;
      g[k] = other_sdf(c + e) - other_sdf(c - e);
    }
    const Vec3 q = g.dot(er) * er + g.z() * Vec3::UnitZ();
    if (q.norm() < 1e-9 * g.norm() || q.norm() == 0) return Vec3::UnitZ();
    return q.normalized();
  }

  // A ball as the other cell: its centre in Q and radius (radius 0: not a ball).
  Vec3 ball_centre = Vec3::Zero();
  double ball_radius = 0;
  // An ellipsoid as the other cell: D A and D b (its frame's coordinates over its radii), and its least radius.
  bool ellipsoid = false;
  Mat3 DA = Mat3::Identity();
  Vec3 Db = Vec3::Zero();
  double ellipsoid_scale = 0;

  EllipseOnDisc ellipse(double phi, int circle = kNoCircle) const { return ellipse_on_disc(DA, Db, R, r, phi, circle); }

  // Another ring torus as the other cell: its centre circle in Q (centre, in-plane axes e1, e2, radius) and its tube
  // radius (0: not a torus).
  Vec3 ring_centre = Vec3::Zero(), ring_e1 = Vec3::UnitX(), ring_e2 = Vec3::UnitY(), ring_axis = Vec3::UnitZ();
  double ring_R = 0, ring_r = 0;

  // The other torus's centre circle against the disc at φ. Its section is {x : dist(x, circle) ≤ ring_r}, so the
  // least distance from the circle to the disc, less ring_r, is the least level of the other torus over the disc (its
  // depth, exact: no point like c − r q stands for it, and a section lying inside the disc away from the rim is
  // found too); to the disc's rim circle, where the section starts to be cut by the rim (a breakpoint, as an
  // ellipsoid's circle depth). Each is a minimum over the circle's angle ψ: 32 samples, Brent around the best two.
  // nearest: the disc point nearest to the circle (the section's deepest point).
  struct RingOnDisc {
    double disc = kInf, rim = kInf;
    Vec3 nearest = Vec3::Zero();
    double disc_slope = 0, rim_slope = 0;  // d/dφ of disc and rim (at the least point: the envelope theorem)
  };
  enum RingWanted { kDisc = 1, kRim = 2 };
  static constexpr int kRingSamples = 32;
  std::array<Vec3, kRingSamples> ring_samples;  // the centre circle's points at ψ = 2πk/32 (Q), set with the torus
  std::array<Vec3, kRingSamples> ring_tangents;  // its unit tangents there
  Vec3 ring_point(double psi) const { return ring_centre + ring_R * (std::cos(psi) * ring_e1 + std::sin(psi) * ring_e2); }
  // cos δ and sin δ for |δ| ≤ 2π/32 (a sample step) by their Taylor series to δ¹⁴ and δ¹³ (the next terms below 1e-22
  // there) in Horner's form, where libm's sincos was a seventh of the query.
  static void cos_sin_near(double delta, double& c, double& s) {
    static constexpr double kCos[] = {1, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600,
                                      -1.0 / 87178291200};
    static constexpr double kSin[] = {1, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800,
                                      1.0 / 6227020800};
    const double d2 = delta * delta;
    c = kCos[7], s = kSin[6];
    for (int i = 6; i >= 0; --i) c = c * d2 + kCos[i];
    for (int i = 5; i >= 0; --i) s = s * d2 + kSin[i];
    s *= delta;
  }
  // The circle's point at ψ = 2πk/32 + δ, turned from the sample's.
  Vec3 ring_point_near(int k, double delta) const {
    double c, s;
    cos_sin_near(delta, c, s);
    return ring_centre + c * (ring_samples[k] - ring_centre) + (s * ring_R) * ring_tangents[k];
  }

  RingOnDisc ring_on_disc(double phi, int wanted = kDisc | kRim) const { return ring_on_disc(radial(phi), wanted); }
  RingOnDisc ring_on_disc(const Vec3& er, int wanted) const {  // er: the disc's radial direction (no sine or cosine again)
    const Vec3 ephi(-er.y(), er.x(), 0);
    const double step = 2 * kPi / kRingSamples;
    // The squared distance D from the circle's point at ψ = 2πk/32 + δ to the disc (rim = false) or to its rim
    // circle, with dD/dδ and d²D/dδ²: D = w² + e², w the point's offset from the disc's plane and e its in-plane
    // distance beyond the rim (beyond or within, for the rim). Lengths of the torus's scale: plain square roots.
    struct Squared {
      double D, D1, D2;
    };
    auto squared = [&](int k, double delta, bool rim) {
      double c, s;
      cos_sin_near(delta, c, s);
      const Vec3 U = ring_samples[k] - ring_centre, T = ring_R * ring_tangents[k];
      const Vec3 y = ring_centre + c * U + s * T, y1 = c * T - s * U, y2 = -(c * U + s * T);
      const double u = y.dot(er) - R, v = y.z(), w = y.dot(ephi), u1 = y1.dot(er), v1 = y1.z(), w1 = y1.dot(ephi),
                   u2 = y2.dot(er), v2 = y2.z(), w2 = y2.dot(ephi);
      const double rho = std::sqrt(u * u + v * v), e = rho - r;
      Squared q{w * w, 2 * w * w1, 2 * (w1 * w1 + w * w2)};
      if ((rim || e > 0) && rho > 0) {
        const double rho1 = (u * u1 + v * v1) / rho, rho2 = (u1 * u1 + v1 * v1 + u * u2 + v * v2 - rho1 * rho1) / rho;
        q.D += e * e, q.D1 += 2 * e * rho1, q.D2 += 2 * (rho1 * rho1 + e * rho2);
      }
      return q;
    };
    // The least D over [sample k − step, sample k + step]: Newton's method on dD/dδ from the vertex of the parabola
    // through the three samples, kept in the bracket its sign narrows (bisection where a step leaves it). 3-4
    // evaluations a minimum where Brent's search on the distance took 7, each with a libm sincos. Returns δ; D there
    // in `least`.
    auto least_near = [&](int k, bool rim, const std::array<double, kRingSamples>& d, double& least) {
      const double before = d[(k + kRingSamples - 1) % kRingSamples], after = d[(k + 1) % kRingSamples];
      const double bend = before - 2 * d[k] + after;
      double a = -step, b = step, x = bend > 0 ? std::clamp(0.5 * step * (before - after) / bend, -step, step) : 0.0;
      Squared q = squared(k, x, rim);
      for (int it = 0; it < 60; ++it) {
        (q.D1 > 0 ? b : a) = x;
        double next = q.D2 > 0 ? x - q.D1 / q.D2 : kNaN;
        if (!(next > a && next < b)) next = 0.5 * (a + b);
        const bool done = std::abs(next - x) <= 1e-12 || b - a <= 1e-12;
        x = next, q = squared(k, x, rim);
        if (done) break;
      }
      least = q.D;
      return x;
    };
    // The samples' squared distances to the disc and to its rim, from one projection each (the minima's order is the
    // distances').
    std::array<double, kRingSamples> to_disc, to_rim;
    for (int k = 0; k < kRingSamples; ++k) {
      const Vec3& y = ring_samples[k];
      const double u = y.dot(er) - R, v = y.z(), w = y.dot(ephi), in_plane = std::sqrt(u * u + v * v) - r;
      to_rim[k] = w * w + in_plane * in_plane;
      to_disc[k] = in_plane > 0 ? to_rim[k] : w * w;
    }
    RingOnDisc out;
    for (bool rim : {false, true}) {
      if (!(wanted & (rim ? kRim : kDisc))) continue;
      const std::array<double, kRingSamples>& d = rim ? to_rim : to_disc;
      // The two least local minima of the samples, each refined (a circle can pass near the disc twice). The value
      // at the minimum is good to the square of ψ's error.
      std::array<int, 2> best{-1, -1};
      for (int k = 0; k < kRingSamples; ++k) {
        if (d[k] > d[(k + 1) % kRingSamples] || d[k] > d[(k + kRingSamples - 1) % kRingSamples]) continue;
        if (best[0] < 0 || d[k] < d[best[0]]) best[1] = best[0], best[0] = k;
        else if (best[1] < 0 || d[k] < d[best[1]]) best[1] = k;
      }
      double least = kInf, delta_least = 0;
      int k_least = 0;
      for (int k : best) {
        if (k < 0) continue;
        double squared_least;
        const double delta = least_near(k, rim, d, squared_least), distance = std::sqrt(squared_least);
        if (distance < least) least = distance, delta_least = delta, k_least = k;
      }
      const Vec3 y = ring_point_near(k_least, delta_least);
      Vec3 x = (y.dot(er) - R) * er + y.z() * Vec3::UnitZ();  // y projected into the plane, from the disc's centre
      if ((rim || x.norm() > r) && x.norm() > 0) x *= r / x.norm();
      // Turning the disc by dφ moves y relative to it by −dφ e_z × y; the distance changes along its unit gradient.
      const Vec3 from = y - (R * er + x);
      const double n = from.norm(), slope = n > 0 ? (from.x() * y.y() - from.y() * y.x()) / n : 0.0;
      if (rim) {
        out.rim = least, out.rim_slope = slope;
        continue;
      }
      out.disc = least, out.disc_slope = slope;
      out.nearest = R * er + x;
    }
    return out;
  }
  // The other torus's level at a point: its distance from the centre circle less its tube radius.
  double ring_level(const Vec3& x) const {
    const Vec3 d = x - ring_centre;
    const double z = d.dot(ring_axis);
    const double across = (d - z * ring_axis).norm() - ring_R;
    return std::sqrt(across * across + z * z) - ring_r;  // lengths of the tori's scale: no hypot's overflow care
  }
  // The vector to x from its nearest point of that centre circle: the level's gradient times the distance.
  Vec3 from_ring(const Vec3& x) const {
    const Vec3 d = x - ring_centre, radial = d - d.dot(ring_axis) * ring_axis;
    const double rho = radial.norm();
    return rho > 0 ? Vec3(d - ring_R / rho * radial) : Vec3(d - ring_R * ring_e1);  // on the axis: any point is nearest
  }
  // A level of f as a length (≈ a distance into the ellipsoid, continuous in φ): √f − 1 times the least radius.
  double ellipsoid_level(double f) const { return (std::sqrt(f) - 1) * ellipsoid_scale; }

  // An ellipsoid's chords: q the ellipsoid's in-plane normal at the section's deepest point x_min where that lies on
  // the circle (there ∇f = −2λ x_min, λ > 0: the chord a = 0 ends at x_min, as for a ball), else f's gradient at the
  // disc's centre (g). The offsets a run over [lo, hi], the disc's and the ellipse's extents along p (the conic's
  // centre −H⁻¹g ± √((1 − f(centre)) pᵀH⁻¹p)), and a0 = p·x_min: a chord through the section, which is convex, so
  // every chord between its ends meets it and a section smaller than the samples' spacing is still found. False
  // where the section is empty.
  bool ellipsoid_chords(double phi, Vec3& q, double& lo, double& a0, double& hi) const {
    const EllipseOnDisc e = ellipse(phi);
    if (!(e.f_min < 1)) return false;
    const Vec3 er = radial(phi);
    Vec2 q2 = e.x_min.norm() > (1 - 1e-12) * r ? Vec2(-e.x_min) : e.g;
    q2 = q2.norm() > 0 ? Vec2(q2.normalized()) : Vec2(0, 1);
    q = q2[0] * er + q2[1] * Vec3::UnitZ();
    const Vec2 p2(q2[1], -q2[0]);  // p = e_φ × q in (e_r, e_z)
    const Vec2 centre = e.from_eigen(Vec2(-e.gv[0] / e.h[0], -e.gv[1] / e.h[1]));
    const double rho2 = std::max(1 - e.f(centre), 0.0);
    const double w2 = std::pow(e.v[0].dot(p2), 2) / e.h[0] + std::pow(e.v[1].dot(p2), 2) / e.h[1];
    const double mid = p2.dot(centre), half = std::sqrt(rho2 * w2);
    lo = std::max(-r, mid - half), hi = std::min(r, mid + half);
    a0 = std::clamp(p2.dot(e.x_min), lo, hi);
    return lo < hi;
  }

  // Signed distance into the other cell of the disc point deepest along −q: < 0 where the section is in contact
  // (a ball's and an ellipsoid's: over the whole disc, exactly).
  double depth(double phi) const {
    if (ellipsoid) return ellipsoid_level(ellipse(phi).f_min);
    if (ring_r > 0) return ring_on_disc(phi, kDisc).disc - ring_r;
    if (ball_radius > 0) {
      double d, h;
      depth_and_height(phi, d, h);
      return d;
    }
    return other_sdf(R * radial(phi) - r * chord_direction(phi));
  }

  // The same for the shallowest disc point (c + r q): < 0 where the whole section lies inside.
  double height(double phi) const {
    if (ellipsoid) return ellipsoid_level(ellipse(phi, kCircleMax).f_cmax);
    if (ring_r > 0) return kInf;  // never the whole disc: the sweep declines where the disc's centre is inside
    if (ball_radius > 0) {
      double d, h;
      depth_and_height(phi, d, h);
      return h;
    }
    return other_sdf(R * radial(phi) + r * chord_direction(phi));
  }

  // Both at once (one chord direction). For a ball, the least and greatest distance into it over the whole disc,
  // exactly: a ball's section that lies inside the disc without reaching c − r q (a ball deep in the tube, or the
  // ends of a band whose extreme section is a point inside the torus) is still in contact, where c − r q would miss
  // it (measured: balls of 3-20 mm against the 15 mm tube, 0.8-49 % low when about half or more immersed).
  void depth_and_height(double phi, double& d, double& h) const {
    const Vec3 er = radial(phi), c = R * er;
    if (ellipsoid) {  // exact too: f's least value over the disc and greatest over its circle (ellipse_on_disc)
      const EllipseOnDisc e = ellipse(phi, kCircleMax);
      d = ellipsoid_level(e.f_min), h = ellipsoid_level(e.f_cmax);
      return;
    }
    if (ring_r > 0) {
      d = depth(phi), h = kInf;
      return;
    }
    if (ball_radius > 0) {
      // The ball's centre projected into the meridian plane (s), and its distance from that plane (w).
      const Vec3 s = ball_centre.dot(er) * er + ball_centre.z() * Vec3::UnitZ();
      const double w = (ball_centre - s).norm(), delta = (s - c).norm();
      d = std::hypot(w, std::max(0.0, delta - r)) - ball_radius;
      h = std::hypot(w, delta + r) - ball_radius;
      return;
    }
    const Vec3 q = chord_direction(phi);
    d = other_sdf(c - r * q), h = other_sdf(c + r * q);
  }

  IntervalList chord_set(const Vec3& c, const Vec3& p, const Vec3& q, double a) const {
    const double half = std::sqrt(std::max(r * r - a * a, 0.0));
    return lines::cell_line_set(clip, 0, clip.size(), c + a * p, q, -half, half);
  }

  // The signature's three continuous functions of a against one convex primitive (not a torus): the other chord's
  // overlap with the disc's chord, and how far inside the disc's circle each of its ends lies (from the unclipped
  // chord, inverted where a quadric is missed, so continuous). False where they do not apply.
  bool signature_functions(const Vec3& c, const Vec3& p, const Vec3& q, double a, std::array<double, 3>& f) const {
    if (clip.size() != 1 || clip[0].kind == PrimitiveKind::Torus) return false;
    const Placed& pr = clip[0];
    const lines::Span sp = lines::line_span(pr, pr.A * (c + a * p) + pr.b, pr.A * q);
    if (!std::isfinite(sp.lo) || !std::isfinite(sp.hi)) return false;
    const double half = std::sqrt(std::max(r * r - a * a, 0.0));
    f = {std::min(sp.hi, half) - std::max(sp.lo, -half), sp.lo + half, half - sp.hi};
    return true;
  }

  // An ellipsoid's section can also lie inside the disc, clear of its circle: where f's least value on the circle
  // crosses 1 the section's shape changes (it starts to be cut by the circle), a third breakpoint in φ.
  double circle_depth(double phi) const {
    return ring_r > 0 ? ring_on_disc(phi, kRim).rim - ring_r : ellipsoid_level(ellipse(phi, kCircleMin).f_cmin);
  }

  // Another torus's chords: along its level's gradient at the section's deepest point (in the meridian plane), a0 the
  // offset of the chord through that point. False where the section is empty.
  bool ring_chords(const Vec3& er, Vec3& q, double& a0) const {
    const RingOnDisc o = ring_on_disc(er, kDisc);
    if (!(o.disc < ring_r)) return false;
    const Vec3 c = R * er, g = from_ring(o.nearest);
    q = g.dot(er) * er + g.z() * Vec3::UnitZ();
    q = q.norm() > 1e-9 * g.norm() && q.norm() > 0 ? Vec3(q.normalized()) : Vec3::UnitZ();
    const Vec3 p = Vec3(-er.y(), er.x(), 0).cross(q);
    a0 = std::clamp(p.dot(o.nearest - c), -r, r);
    return true;
  }

  // Moments of the meridian section at φ, weighted by ρ: its contribution per unit φ.
  RawMoments section(double phi) const {
    RawMoments m;
    const Vec3 er = radial(phi), c = R * er;
    Vec3 q;
    double a_lo = -r, a0 = 0, a_hi = r;  // the offsets' range and the middle sample
    if (ring_r > 0) {
      if (!ring_chords(er, q, a0)) return m;
    } else if (!ellipsoid) {
      q = chord_direction(phi);
    } else if (!ellipsoid_chords(phi, q, a_lo, a0, a_hi)) {
      return m;
    }
    const Vec3 p = Vec3(-er.y(), er.x(), 0).cross(q);  // e_φ × q: in the meridian plane, ⟂ q
    const double rho_p = p.dot(er), rho_q = q.dot(er);
    // Panels in a between the breakpoints of the chords' shape: a chord's signature is its number of intervals and
    // whether its ends lie on the disc's circle or inside it (on the other cell's surface). Sampled at
    // a = a0 − (a0 − a_lo or a_hi − a0) cos(π (j + ½) / n), which is −r cos(π (j + ½) / n) on the whole disc (a0, the
    // chord through the deepest point, among them); each change of signature between samples is located by
    // bisection. Within a panel the moments are smooth in a.
    // An ellipsoid's range [a_lo, a_hi] is the ellipse's extent, which can overhang the section (where a corner of
    // disc ∩ ellipse bounds it): its ends are samples too, so the section's first and last chords are located.
    const int inner = a_samples, ends = ellipsoid ? 1 : 0, n = inner + 2 * ends;
    auto signature = [&](double a) {
      const double half = std::sqrt(std::max(r * r - a * a, 0.0));
      if (ring_r > 0) {  // another torus alone: its chord's shape from its quartic's signs, no roots solved
        // Its level is 1-Lipschitz: above half the chord's length at its middle, the chord misses it (most samples).
        if (ring_level(c + a * p) > half) return 0;
        const lines::ChordShape sh = lines::torus_chord_shape(clip[0], c + a * p, q, -half, half);
        return sh.n == 0 ? 0 : 4 * sh.n + 2 * sh.starts_at_s0 + sh.ends_at_s1;
      }
      const IntervalList set = chord_set(c, p, q, a);
      if (set.n == 0) return 0;
      return 4 * set.n + 2 * (set.v[0][0] == -half) + (set.v[set.n - 1][1] == half);
    };
    std::array<double, a_samples + 2> a;  // on the stack: n ≤ a_samples + 2
    std::array<int, a_samples + 2> sig;
    for (int i = 0; i < inner; ++i) {
      const double t = a_nodes[i];
      a[i + ends] = i == (inner - 1) / 2 ? a0 : a0 + t * (i < (inner - 1) / 2 ? a0 - a_lo : a_hi - a0);
    }
    if (ends) a[0] = a_lo, a[n - 1] = a_hi;
    for (int j = 0; j < n; ++j) sig[j] = signature(a[j]);
    // Where the signature changes between two samples that differ. Against one convex primitive it is the signs of
    // three continuous functions of a: the other chord's overlap with the disc's chord, and how far inside the
    // disc's circle each of its ends lies. Each that changes sign is located by false position (a few chords where
    // bisection to 1e-9 r takes 30), all of them: two can change between the same samples (an ellipse's first
    // chord inside the circle, its lower end crossing the circle just after: a kink left inside a panel cost
    // 3e-5 of a section).
    // At most 3 breaks between two samples: a_lo, a_hi and 3 (n − 1) ≤ 56 in all.
    std::array<double, 3 * (a_samples + 1) + 2> breaks;
    int n_breaks = 0;
    breaks[n_breaks++] = a_lo;
    auto changes = [&](double x0, double x1, int s0, int s1) {
      std::array<double, 3> f0, f1;
      const int first = n_breaks;
      if (signature_functions(c, p, q, x0, f0) && signature_functions(c, p, q, x1, f1)) {
        for (int k = 0; k < 3; ++k) {
          if ((f0[k] > 0) == (f1[k] > 0)) continue;
          auto f = [&](double a) {
            std::array<double, 3> fa;
            return signature_functions(c, p, q, a, fa) ? fa[k] : kNaN;
          };
          breaks[n_breaks++] = sign_change(f, x0, x1, 1e-9 * r);
        }
        std::sort(breaks.begin() + first, breaks.begin() + n_breaks);
        if (n_breaks > first) return;
      }
      if (ring_r > 0 && (s0 == 0) != (s1 == 0)) {
        // Another torus, a chord that misses it on one side: where the chord starts to meet it, a zero of the torus's
        // least level along the chord (continuous, crossing zero at the tangency), a few chords where bisection on
        // the signature took 30. A second change between that point and the other side (the chord's interval
        // reaching the disc's rim as well) is bisected below.
        auto least = [&](double a, double& slope) {
          const double half = std::sqrt(std::max(r * r - a * a, 0.0));
          const lines::TorusLeast l = lines::torus_least_level(clip[0], c + a * p, q, -half, half);
          // The level's slope in a, d² − r² differentiated along the least point's path: p where that point is
          // inside the chord (the level is stationary along q there), plus the end's motion ∓a/half q at an end.
          const double ds = l.end == 0 || !(half > 0) ? 0.0 : -l.end * a / half;
          slope = 2 * from_ring(c + a * p + l.s * q).dot(p + ds * q);
          return l.level;
        };
        double slope0, slope1;
        const double l0 = least(x0, slope0), l1 = least(x1, slope1);
        if ((l0 > 0) != (l1 > 0)) {
          const Edge e = parabola_edge(least, x0, l0, slope0, x1, l1, slope1, 1e-9 * r);
          const double meets = s0 == 0 ? e.hi : e.lo;  // the first chord that meets it
          breaks[n_breaks++] = 0.5 * (e.lo + e.hi);
          const int s_meets = signature(meets), s_other = s0 == 0 ? s1 : s0;
          if (s_meets == s_other) return;
          (s0 == 0 ? x0 : x1) = meets;
          if (s0 == 0) s0 = s_meets;
        }
      }
      while (std::abs(x1 - x0) > 1e-9 * r) {  // otherwise bisection on the signature itself
        const double mid = 0.5 * (x0 + x1);
        (signature(mid) == s0 ? x0 : x1) = mid;
      }
      breaks[n_breaks++] = 0.5 * (x0 + x1);
      std::sort(breaks.begin() + first, breaks.begin() + n_breaks);
    };
    for (int j = 0; j + 1 < n; ++j)
      if (sig[j + 1] != sig[j]) changes(a[j], a[j + 1], sig[j], sig[j + 1]);
    breaks[n_breaks++] = a_hi;
    // Moments about `ref` (near the contact), each chord's measured from a point e of the section's first chord, with
    // its offset u = a − a_e along p and its s from its own first end: every term stays at the patch's scale, so the
    // central moments do not cancel the ring's (a thin lens 5 cm from the centre). A chord from o = e + u p + s₀ q adds
    // i0 o oᵀ + i1 (o qᵀ + q oᵀ) + i2 q qᵀ to m2: six sums over the chords, assembled once.
    Vec3 e = Vec3::Zero();
    double a_e = kNaN, s_e = 0;
    // Σ w × i0, i0 u, i0 s₀ + i1, i0 u², u (i0 s₀ + i1) and i0 s₀² + 2 i1 s₀ + i2.
    double k0 = 0, k_u = 0, k_q = 0, k_uu = 0, k_uq = 0, k_qq = 0;
    for (int b = 0; b + 1 < n_breaks; ++b) {
      const double lo = breaks[b], hi = breaks[b + 1];
      if (!(hi > lo) || signature(0.5 * (lo + hi)) == 0) continue;
      const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
      for (size_t i = 0; i < chord_rule->x.size(); ++i) {
        const double ai = mid - half * chord_rule->cos_pi_x[i], wi = half * chord_rule->w_pi_sin[i];
        const IntervalList set = chord_set(c, p, q, ai);
        if (set.n == 0) continue;
        const double s_first = set.v[0][0];
        if (std::isnan(a_e)) a_e = ai, s_e = s_first, e = c + ai * p + s_first * q - ref;
        const double rho0 = R + ai * rho_p + s_first * rho_q;  // ρ = rho0 + rho_q s along the chord
        double i0 = 0, i1 = 0, i2 = 0;                          // ∫ρ, ∫ρ s, ∫ρ s² over the chord's set
        for (int t = 0; t < set.n; ++t) {
          const double s0 = set.v[t][0] - s_first, s1 = set.v[t][1] - s_first;
          const double j0 = s1 - s0, j1 = (s1 * s1 - s0 * s0) / 2, j2 = (s1 * s1 * s1 - s0 * s0 * s0) / 3,
                       j3 = (s1 * s1 * s1 * s1 - s0 * s0 * s0 * s0) / 4;
          i0 += rho0 * j0 + rho_q * j1;
          i1 += rho0 * j1 + rho_q * j2;
          i2 += rho0 * j2 + rho_q * j3;
        }
        const double u = ai - a_e, s0 = s_first - s_e, along = i0 * s0 + i1;  // ∫ρ (s₀ + s) over the chord
        k0 += wi * i0, k_u += wi * i0 * u, k_q += wi * along;
        k_uu += wi * i0 * u * u, k_uq += wi * u * along, k_qq += wi * (along * s0 + i1 * s0 + i2);
      }
    }
    if (std::isnan(a_e)) return m;
    const Mat3 pq = p * q.transpose();
    m.m0 = k0;
    m.m1 = k0 * e + k_u * p + k_q * q;
    m.m2 = k0 * e * e.transpose() + k_u * (e * p.transpose() + p * e.transpose()) +
           k_q * (e * q.transpose() + q * e.transpose()) + k_uu * p * p.transpose() + k_uq * (pq + pq.transpose()) +
           k_qq * q * q.transpose();
    return m;
  }
};

// The sweep locates each section's contact from the deepest disc point along the other cell's gradient at the disc's
// centre, which is right for smooth surfaces but misses a section whose contact is at an edge or a corner (a cone's
// base rim on the tube: 2–12 % of V lost, benchmarks/bench_curved_pairs). So it takes only a lone torus against one
// smooth primitive: a ball, an ellipsoid, a capsule, an infinite cylinder, a half-space, a slab or another ring
// torus; or a cylinder or a cone whose end planes (and apex) the torus cannot reach (the doughnut on its cone).
// Nor one thinner than the tube (a rod, a capsule, a thin ring or a plate narrower than r): it can cross a disc
// without holding that deepest point. A 6 mm rod or capsule against a 15 mm tube came out 0.2–2 % low in shallow
// contact and up to 100 % where it runs through the tube (docs/geometry.md, "The torus sweep").
bool smooth_where_it_can_touch(const std::vector<Placed>& prims, size_t begin, double R, double r) {
  if (prims.size() != begin + 1) return false;
  const Placed& p = prims[begin];
  if (p.complement) return false;
  switch (p.kind) {
    case PrimitiveKind::Capsule: case PrimitiveKind::InfiniteCylinder: return p.r >= r;
    case PrimitiveKind::Slab: return p.half_thickness >= r;
    case PrimitiveKind::Sphere: case PrimitiveKind::HalfSpace: return true;
    // An ellipsoid: its deepest disc point is exact too (ellipse_on_disc), as a ball's.
    case PrimitiveKind::Ellipsoid: return true;
    // Another ring torus: its section can lie inside the disc away from c − r q, as a ball's and an ellipsoid's can
    // (c − r q alone: 8 of 16 random poses of two 12 mm tubes off by 0.3-41 %); its level over the disc is a minimum
    // over its centre circle instead (Sweep::ring_on_disc).
    case PrimitiveKind::Torus: return p.major > p.r;
    case PrimitiveKind::Cylinder: case PrimitiveKind::Cone: {
      if (std::max(p.r, p.r2) < r) return false;  // p.r2: a cone's top radius (0 for a cylinder)
      // The torus's extent along the primitive's axis: R √(1 − (a·z)²) + r about its centre (p.b in that frame).
      const double axis_z = std::clamp(p.A(2, 2), -1.0, 1.0);
      const double reach = R * std::sqrt(1 - axis_z * axis_z) + r;
      return std::abs(p.b.z()) + reach < p.half_length;
    }
    default: return false;
  }
}

}  // namespace

std::optional<RawMoments> torus_sweep_moments(const CellPrimitives& torus_cell, const Pose& torus_pose,
                                              const CellPrimitives& other, const Pose& other_pose,
                                              const Vec3& origin, double tolerance) {
  const CellPrimitive* torus = nullptr;
  for (const CellPrimitive& cp : torus_cell) {
    if (cp.primitive.kind != PrimitiveKind::Torus) continue;
    if (torus || cp.complement || !(cp.primitive.major_radius > cp.primitive.minor_radius)) return std::nullopt;
    torus = &cp;
  }
  if (!torus) return std::nullopt;
  // Q: the torus's own frame (axis z, centre at the origin).
  const Pose frame = torus_pose.compose(torus->primitive.pose);
  Sweep sw;
  sw.R = torus->primitive.major_radius, sw.r = torus->primitive.minor_radius;
  for (const CellPrimitive& cp : torus_cell)
    if (&cp != torus) sw.clip.push_back(lines::place(cp, torus_pose, frame));
  sw.other_begin = sw.clip.size();
  for (const CellPrimitive& cp : other) sw.clip.push_back(lines::place(cp, other_pose, frame));
  if (sw.other_begin != 0 || !smooth_where_it_can_touch(sw.clip, sw.other_begin, sw.R, sw.r)) return std::nullopt;
  if (sw.clip[sw.other_begin].kind == PrimitiveKind::Sphere) {
    const Placed& ball = sw.clip[sw.other_begin];
    sw.ball_centre = -ball.A.transpose() * ball.b;  // A x + b = 0 at the centre (A a rotation)
    sw.ball_radius = ball.r;
    // A ball whose centre is inside the torus (more than about half immersed): the quadrature converges there but
    // slower than its error estimate (a 12 mm ball 96 % immersed: 2.6e-3 at tolerance 1e-3), so the column engine
    // takes it.
    if (std::hypot(std::hypot(sw.ball_centre.x(), sw.ball_centre.y()) - sw.R, sw.ball_centre.z()) < sw.r)
      return std::nullopt;
  }
  if (sw.clip[sw.other_begin].kind == PrimitiveKind::Torus) {
    const Placed& t = sw.clip[sw.other_begin];  // local = A x + b, A a rotation
    sw.ring_centre = -t.A.transpose() * t.b;
    sw.ring_e1 = t.A.transpose() * Vec3::UnitX(), sw.ring_e2 = t.A.transpose() * Vec3::UnitY();
    sw.ring_axis = t.A.transpose() * Vec3::UnitZ();
    sw.ring_R = t.major, sw.ring_r = t.r;
    for (int k = 0; k < Sweep::kRingSamples; ++k) {
      const double psi = 2 * kPi * k / Sweep::kRingSamples;
      sw.ring_samples[k] = sw.ring_point(psi);
      sw.ring_tangents[k] = std::cos(psi) * sw.ring_e2 - std::sin(psi) * sw.ring_e1;
    }
  }
  if (sw.clip[sw.other_begin].kind == PrimitiveKind::Ellipsoid) {
    const Placed& e = sw.clip[sw.other_begin];
    sw.ellipsoid = true;
    sw.DA = e.inv_radii.asDiagonal() * e.A, sw.Db = e.inv_radii.cwiseProduct(e.b);
    sw.ellipsoid_scale = e.radii.minCoeff();
  }
  sw.rule = &gauss_legendre(nodes_for(tolerance));
  sw.chord_rule = &gauss_legendre(nodes_for(tolerance) - (tolerance >= 1e-4 ? 2 : 0));
  for (int i = 0; i < Sweep::a_samples; ++i) sw.a_nodes[i] = -std::cos(kPi * (i + 0.5) / Sweep::a_samples);

  // The overlap's angular extent about the axis: all of it, unless its bounding box keeps clear of the axis.
  Vec3 lo, hi;
  lines::placed_cell_bounds(sw.clip, 0, sw.clip.size(), lo, hi);
  const double reach = sw.R + sw.r;
  lo = lo.cwiseMax(Vec3(-reach, -reach, -sw.r)), hi = hi.cwiseMin(Vec3(reach, reach, sw.r));
  RawMoments total;
  if ((lo.array() >= hi.array()).any()) return total;
  double phi_lo = 0, phi_hi = 2 * kPi;
  bool whole = true;
  if (lo.x() > 0 || hi.x() < 0 || lo.y() > 0 || hi.y() < 0) {
    // The box lies in an open half-plane through the axis: its corners' angles bound it (span < π).
    const double mid = std::atan2(0.5 * (lo.y() + hi.y()), 0.5 * (lo.x() + hi.x()));
    double dmin = 0, dmax = 0;
    for (int k = 0; k < 4; ++k) {
      const double ang = std::atan2((k & 2) ? hi.y() : lo.y(), (k & 1) ? hi.x() : lo.x());
      const double d = std::remainder(ang - mid, 2 * kPi);
      dmin = std::min(dmin, d), dmax = std::max(dmax, d);
    }
    phi_lo = mid + dmin, phi_hi = mid + dmax, whole = false;
  }

  // Panels in φ between the breakpoints of the sections' shape: where the deepest disc point enters the other cell
  // (depth = 0: a band's ends) and where the shallowest one does (height = 0: the whole disc is inside). Both are
  // sampled and their sign changes bisected; a clear sample that is a local minimum of the depth is refined by
  // golden section, since a band narrower than the sampling still dips below zero there.
  constexpr int kSamples = 64;
  const int ns = whole ? kSamples : kSamples + 1;
  const double step = (phi_hi - phi_lo) / kSamples, phi_tol = 1e-10 * (phi_hi - phi_lo);
  auto depth = [&](double x) { return sw.depth(x); };
  auto height = [&](double x) { return sw.height(x); };
  auto circle_depth = [&](double x) { return sw.circle_depth(x); };
  const bool circle_breaks = sw.ellipsoid || sw.ring_r > 0;
  std::vector<double> d(ns), h(ns), cd(circle_breaks ? ns : 0), breaks;
  // Against an ellipsoid or another torus the depth is the least level over the disc, and both levels are
  // 1-Lipschitz in space, so the depth is Lipschitz in φ with constant R + r (a disc's points move that fast) and at
  // least the level at the disc's centre less r. A sample whose bound exceeds far is at least a step from any band,
  // with a factor 2 to spare: the bound stands in for the depth there (and for the circle's depth and the height,
  // which are no less), and the sample is not refined as a local minimum. That skips the searches over a disc at most
  // samples (for an ellipsoid three secular equations, 40 % of the query; for a torus its centre circle's, a third).
  // Against another torus without the factor 2: its level is a distance, so the bound is exact, and the searches left
  // at the samples were a seventh of the query's instructions.
  const double far = (sw.ring_r > 0 ? 1 : 2) * (sw.R + sw.r) * step;
  for (int k = 0; k < ns; ++k) {
    const double phi = phi_lo + k * step;
    if (sw.ellipsoid) {  // one ellipse for the three levels
      const double bound = sw.ellipsoid_level((sw.DA * (sw.R * sw.radial(phi)) + sw.Db).squaredNorm()) - sw.r;
      if (bound > far) {
        d[k] = cd[k] = h[k] = bound;
        continue;
      }
      const EllipseOnDisc e = sw.ellipse(phi, kCircleMin | kCircleMax);
      d[k] = sw.ellipsoid_level(e.f_min), h[k] = sw.ellipsoid_level(e.f_cmax), cd[k] = sw.ellipsoid_level(e.f_cmin);
    } else if (sw.ring_r > 0) {
      // Another torus reaching the tube's centre circle (more than half the tube immersed) is declined: a disc can
      // then lie wholly inside it, a breakpoint its level does not give (height is left infinite).
      const double centre_level = sw.ring_level(sw.R * sw.radial(phi));
      if (centre_level < 0) return std::nullopt;
      if (centre_level - sw.r > far) {
        d[k] = cd[k] = centre_level - sw.r, h[k] = kInf;
        continue;
      }
      const Sweep::RingOnDisc o = sw.ring_on_disc(phi);
      d[k] = o.disc - sw.ring_r, h[k] = kInf, cd[k] = o.rim - sw.ring_r;
    } else {
      sw.depth_and_height(phi, d[k], h[k]);
    }
  }
  const int last = whole ? ns : ns - 1;  // sample intervals [k, k + 1] (a whole ring wraps around)
  // Against another torus, a level's zero in φ from parabolas through its slopes (parabola_edge: 4-5 searches over
  // the disc where false position took 9).
  auto ring_zero = [&](bool rim, double a, double b) {
    auto f = [&](double phi, double& slope) {
      const Sweep::RingOnDisc o = sw.ring_on_disc(phi, rim ? Sweep::kRim : Sweep::kDisc);
      slope = rim ? o.rim_slope : o.disc_slope;
      return (rim ? o.rim : o.disc) - sw.ring_r;
    };
    double sa, sb;
    const double fa = f(a, sa), fb = f(b, sb);
    const Edge e = parabola_edge(f, a, fa, sa, b, fb, sb, phi_tol);
    return 0.5 * (e.lo + e.hi);
  };
  for (int k = 0; k < last; ++k) {
    const int k1 = (k + 1) % ns;
    const double a = phi_lo + k * step, b = a + step;
    if ((d[k] < 0) != (d[k1] < 0)) breaks.push_back(sw.ring_r > 0 ? ring_zero(false, a, b) : sign_change(depth, a, b, phi_tol));
    if ((h[k] < 0) != (h[k1] < 0)) breaks.push_back(sign_change(height, a, b, phi_tol));
    if (!cd.empty() && (cd[k] < 0) != (cd[k1] < 0))
      breaks.push_back(sw.ring_r > 0 ? ring_zero(true, a, b) : sign_change(circle_depth, a, b, phi_tol));
    const int km = (k + ns - 1) % ns;
    const bool near = !circle_breaks || d[k] <= far;
    if (d[k] >= 0 && near && (whole || (k > 0 && k < ns - 1)) && d[k] <= d[km] && d[k] <= d[k1]) {
      double lo_g = a - step, hi_g = b;  // golden section for the minimum
      const double g = 0.5 * (std::sqrt(5.0) - 1);
      double x1 = hi_g - g * (hi_g - lo_g), x2 = lo_g + g * (hi_g - lo_g), f1 = depth(x1), f2 = depth(x2);
      while (hi_g - lo_g > phi_tol && std::min(f1, f2) >= 0) {
        if (f1 < f2) hi_g = x2, x2 = x1, f2 = f1, x1 = hi_g - g * (hi_g - lo_g), f1 = depth(x1);
        else lo_g = x1, x1 = x2, f1 = f2, x2 = lo_g + g * (hi_g - lo_g), f2 = depth(x2);
      }
      if (std::min(f1, f2) < 0) {
        const double centre = f1 < f2 ? x1 : x2;
        breaks.push_back(sign_change(depth, centre, a - step, phi_tol));
        breaks.push_back(sign_change(depth, centre, b, phi_tol));
      }
    }
  }
  const int deepest = static_cast<int>(std::min_element(d.begin(), d.end()) - d.begin());
  sw.ref = sw.R * sw.radial(phi_lo + deepest * step) - sw.r * sw.chord_direction(phi_lo + deepest * step);
  std::vector<std::array<double, 2>> panels;
  bool ring = false;
  // Two breakpoints that agree to the roots' accuracy are one: where a band starts with its deepest point on the disc's
  // circle, depth and circle depth vanish at the same angle, and the sliver between their roots (1e-10 rad, 1e-33 of
  // V) cost a band's worth of sections, or 5 ms where halving it never met its own V's share of the tolerance.
  auto merge_close = [&](double period) {
    std::sort(breaks.begin(), breaks.end());
    const double gap = 100 * phi_tol;
    size_t kept = 0;
    for (size_t k = 0; k < breaks.size(); ++k)
      if (kept == 0 || breaks[k] - breaks[kept - 1] > gap) breaks[kept++] = breaks[k];
    if (period > 0 && kept > 1 && breaks[kept - 1] > breaks[0] + period - gap) --kept;
    breaks.resize(kept);
  };
  if (!whole) {
    breaks.push_back(phi_lo), breaks.push_back(phi_hi);
    merge_close(0);
    for (size_t k = 0; k + 1 < breaks.size(); ++k) panels.push_back({breaks[k], breaks[k + 1]});
  } else if (breaks.empty()) {
    ring = d[0] < 0;  // every section alike in shape: in contact all around, or nowhere
  } else {
    for (double& b : breaks) b = phi_lo + std::fmod(b - phi_lo + 4 * kPi, 2 * kPi);
    merge_close(2 * kPi);
    for (size_t k = 0; k < breaks.size(); ++k)
      panels.push_back({breaks[k], k + 1 < breaks.size() ? breaks[k + 1] : breaks[0] + 2 * kPi});
  }

  // Sections integrated over each panel in contact (cos substitution: the ends, where a section's moments behave
  // like a power of the distance, become smooth), or around the whole ring (periodic trapezoid).
  auto add = [&](double phi, double w) {
    const RawMoments m = sw.section(phi);
    total.m0 += w * m.m0, total.m1 += w * m.m1, total.m2 += w * m.m2;
  };
  const int n_ring = 2 * static_cast<int>(sw.rule->x.size());
  if (ring)
    for (int k = 0; k < n_ring; ++k) add(2 * kPi * k / n_ring, 2 * kPi / n_ring);
  auto panel = [&](double lo, double hi) {
    const RawMoments before = total;
    const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
    for (size_t i = 0; i < sw.rule->x.size(); ++i) add(mid - half * sw.rule->cos_pi_x[i], half * sw.rule->w_pi_sin[i]);
    RawMoments m;
    m.m0 = total.m0 - before.m0, m.m1 = total.m1 - before.m1, m.m2 = total.m2 - before.m2;
    total = before;
    return m;
  };
  // Another torus's sections can change shape inside a band where no level locates it (two pieces of its section
  // merging in a disc), and an ellipsoid's band can be wide while its sections rise steeply inside it, smoothly (a 3 ×
  // 10 × 20 mm ellipsoid pressed into the tube from the hole, one panel of 0.19 rad: 7.5e-4 off with 10 nodes, 6.8e-5
  // with 20, 3e-6 with 40). So their bands are integrated by Gauss–Kronrod 7–15 (in the cosine variable), halved
  // until |K15 − G7| in V is within 0.3 of the tolerance of the piece's V: that is G7's error, and K15's, exact to
  // degree 22 where G7 is to degree 13, is far smaller (15 sections a band where comparing 10 nodes with two halves of
  // 10 took 30). 0.1 halved deep two tori's bands whose K15 was already good to ~1e-6 (105 sections where 15 do); 1
  // let a thin ellipsoid's J drift 3.8e-4 (docs/geometry.md, "A band's error estimate").
  // At most 5 halvings (32 sub-panels), where the estimate must be within 1 % of the tolerance relative
  // to the whole band, or the pair is declined (the column engine takes it). A band under 1e-3 of the sweep's V is held
  // to 1e-3 of the sweep instead: a band 1e-8 rad wide between two breakpoints, 1e-29 of V, was declining a pose.
  // A capsule's too: where its cap/side junction crosses a disc the sections change shape with no break in φ (the
  // fixed rule left a deep pose's centroid 3.9e-3 of V^(1/3) off at 1e-3).
  const bool checked = sw.ellipsoid || sw.ring_r > 0 || sw.clip[sw.other_begin].kind == PrimitiveKind::Capsule;
  struct Piece {
    double lo, hi;
    RawMoments k;   // K15
    double error;   // |K15 − G7| in V
  };
  auto kronrod = [&](double lo, double hi) {
    static constexpr double xk[8] = {0.991455371120812639, 0.949107912342758525, 0.864864423359769073,
                                     0.741531185599394440, 0.586087235467691130, 0.405845151377397167,
                                     0.207784955007898468, 0.0};
    static constexpr double wk[8] = {0.022935322010529225, 0.063092092629978553, 0.104790010322250184,
                                     0.140653259715525919, 0.169004726639267903, 0.190350578064785410,
                                     0.204432940075298892, 0.209482141084727828};
    static constexpr double wg[8] = {0, 0.129484966168869693, 0, 0.279705391489276668, 0, 0.381830050505118945, 0,
                                     0.417959183673469388};
    constexpr int nh = 8, nn = 15;
    Piece pc{lo, hi, {}, 0};
    const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
    double g = 0;
    for (int i = 0; i < nn; ++i) {  // θ = π (1 + x) / 2 over [0, π], x the rule's node on [−1, 1]
      const int j = i < nh ? i : nn - 1 - i;
      const double x = i < nh ? -xk[j] : xk[j], theta = 0.5 * kPi * (1 + x), jac = 0.5 * kPi * half * std::sin(theta);
      const RawMoments m = sw.section(mid - half * std::cos(theta));
      pc.k.m0 += wk[j] * jac * m.m0, pc.k.m1 += wk[j] * jac * m.m1, pc.k.m2 += wk[j] * jac * m.m2;
      g += wg[j] * jac * m.m0;
    }
    pc.error = std::abs(pc.k.m0 - g);
    return pc;
  };
  // The panels in contact, each with its integral.
  std::vector<Piece> in_contact;
  double sweep_volume = 0;
  for (const auto& b : panels) {
    const double mid = 0.5 * (b[0] + b[1]), half = 0.5 * (b[1] - b[0]);
    if (!(half > 0) || !(depth(mid) < 0)) continue;
    in_contact.push_back(checked ? kronrod(b[0], b[1]) : Piece{b[0], b[1], panel(b[0], b[1]), 0});
    sweep_volume += std::abs(in_contact.back().k.m0);
  }
  for (const Piece& whole : in_contact) {
    const double band = std::max(std::abs(whole.k.m0), 1e-3 * sweep_volume);
    std::vector<std::pair<Piece, int>> jobs{{whole, 0}};
    while (!jobs.empty()) {
      const auto [pc, level] = jobs.back();
      jobs.pop_back();
      if (!checked || pc.error <= 0.3 * tolerance * std::max(std::abs(pc.k.m0), 1e-3 * sweep_volume) ||
          (level >= 5 && pc.error <= 0.01 * tolerance * band)) {
        total.m0 += pc.k.m0, total.m1 += pc.k.m1, total.m2 += pc.k.m2;
        continue;
      }
      if (level >= 5) return std::nullopt;
      const double split = 0.5 * (pc.lo + pc.hi);
      jobs.push_back({kronrod(split, pc.hi), level + 1});
      jobs.push_back({kronrod(pc.lo, split), level + 1});
    }
  }
  // From the torus frame to world axes about `origin`: x = Rq x_Q + t.
  const Mat3 Rq = frame.rotation.toRotationMatrix();
  const Vec3 t = frame.position + Rq * sw.ref - origin;
  RawMoments out;
  out.m0 = total.m0;
  const Vec3 m1 = Rq * total.m1;
  out.m1 = m1 + total.m0 * t;
  out.m2 = Rq * total.m2 * Rq.transpose() + m1 * t.transpose() + t * m1.transpose() + total.m0 * t * t.transpose();
  return out;
}

}  // namespace vcsim::geo
