// The one-dimensional tools of the convex lens quadrature (geometry/convex_lens.cpp): nested Clenshaw–Curtis rules
// under a sine map, a bracketed edge search (false position), Brent's search for a maximum. Header-only, pure.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace vcsim::geo::lens {

// Clenshaw–Curtis rule with n intervals on [−1, 1]: nodes −cos(kπ/n), ascending. Rule n/2's node j is rule n's
// node 2j, so halving the rule reuses every other evaluation (the difference is the error estimate).
struct CcRule {
  int n = 0;
  std::array<double, 33> t{}, w{};
  // Under the sine map below, on [−1, 1]: the nodes −cos θ_k and the weights w_k (π/2) sin θ_k (computed once).
  std::array<double, 33> mapped_t{}, mapped_w{};
};
inline CcRule make_cc_rule(int n) {
  constexpr double kPi = 3.14159265358979323846;
  CcRule r;
  r.n = n;
  for (int k = 0; k <= n; ++k) {
    double s = 0;
    for (int j = 1; j <= n / 2; ++j) s += (2 * j == n ? 1.0 : 2.0) / (4.0 * j * j - 1) * std::cos(2.0 * j * k * kPi / n);
    r.w[k] = (k == 0 || k == n ? 1.0 : 2.0) / n * (1 - s);
    r.t[k] = -std::cos(k * kPi / n);
  }
  for (int k = 0; k <= n; ++k) {
    const double theta = 0.5 * kPi * (1 + r.t[k]);
    r.mapped_t[k] = k == 0 ? -1.0 : k == n ? 1.0 : -std::cos(theta);
    r.mapped_w[k] = r.w[k] * 0.5 * kPi * std::sin(theta);
  }
  return r;
}
inline const CcRule& cc_rule(int n) {
  static const CcRule r4 = make_cc_rule(4), r8 = make_cc_rule(8), r16 = make_cc_rule(16), r32 = make_cc_rule(32);
  return n <= 4 ? r4 : n <= 8 ? r8 : n <= 16 ? r16 : r32;
}

// A rule's nodes and weights on [a, b] under the sine map x = m − h cos θ, θ = π (1 + t) / 2 (m, h: the interval's
// middle and half-width): ∫ f dx = ∫ f(x(t)) h (π/2) sin θ dt. The factor sin θ vanishes like the distance from
// either end to the power ½, so an integrand with square-root ends (a row across a disc, a footprint's rounded tip)
// becomes smooth in t and the rule converges geometrically instead of like n⁻³. The ends get weight 0.
struct Mapped {
  std::array<double, 33> x{}, w{};
  Mapped(const CcRule& r, double a, double b) {
    const double m = 0.5 * (a + b), h = 0.5 * (b - a);
    for (int k = 0; k <= r.n; ++k) x[k] = m + h * r.mapped_t[k], w[k] = h * r.mapped_w[k];
    x[0] = a, x[r.n] = b;
  }
};

// The edge of a set {f > 0} between `in` (f > 0) and `out` (f <= 0): false position with the Illinois step,
// bisection where f is not finite, to within `tol`. f returns (value, signature); both sides are returned with their
// signatures (which faces bound the set just inside and just outside).
// Four false-position steps that do not halve the bracket between them are followed by a bisection, so the bracket at
// least halves every five steps and `tol` is always reached (≤ 5 log2(width / tol) steps; the cap of 300 is 2^-60).
// Without it, false position could crawl towards a point where f touches 0 from outside the set, away from the edge:
// a square peg flat on a round hole's floor took 40–100 steps in 11 000 of its searches, 650 of them ending
// unconverged at the old cap of 100, and one such run search returned its first sample as the run's end, dropping
// 8 % of V (bench_holes 20 1, countersink/box pose 12). After two steps instead of four, the convex lens's searches
// lost more to the bisections than they gained (an ellipsoid on a ball: 36 → 55 µs a query; 39 after four).
struct Edge {
  double in = 0, out = 0;
  long sig_in = 0, sig_out = 0;
};
template <class F>
Edge find_edge(const F& f, double in, double f_in, long s_in, double out, double f_out, long s_out,
               double tol) {
  int side = 0, slow = 0;
  double halved = std::abs(out - in);  // the bracket's width when it last halved
  for (int it = 0; it < 300 && std::abs(out - in) > tol; ++it) {
    double x = 0.5 * (in + out);
    if (slow < 4 && std::isfinite(f_out) && std::isfinite(f_in) && f_in != f_out)
      x = in - f_in * (out - in) / (f_out - f_in);
    if (!(x > std::min(in, out) && x < std::max(in, out))) x = 0.5 * (in + out);
    const auto [fx, sx] = f(x);
    if (fx > 0) {
      in = x, f_in = fx, s_in = sx;
      if (side == 1) f_out *= 0.5;
      side = 1;
    } else {
      out = x, f_out = fx, s_out = sx;
      if (side == -1) f_in *= 0.5;
      side = -1;
    }
    if (std::abs(out - in) <= 0.5 * halved) halved = std::abs(out - in), slow = 0;  // a bisection always gets here
    else ++slow;
  }
  return Edge{in, out, s_in, s_out};
}

// Brent's search for the maximum of f on [a, b] (f quasi-concave there): parabolic steps through the three best
// points where they behave, golden sections otherwise; stops when the bracket is within `tol` (plus a relative
// 1e-8) of the best point. About 10 evaluations for a smooth maximum where golden sections need 25.
template <class F>
double brent_max(const F& f, double a, double b, double tol, double& best) {
  const double golden = 0.5 * (3 - std::sqrt(5.0));
  double x = a + golden * (b - a), w = x, v = x;
  double fx = f(x), fw = fx, fv = fx;
  double d = 0, e = 0;
  for (int it = 0; it < 60; ++it) {
    const double m = 0.5 * (a + b), tol1 = tol + 1e-8 * std::abs(x), tol2 = 2 * tol1;
    if (std::abs(x - m) <= tol2 - 0.5 * (b - a)) break;
    // A plateau (a flat end): three distinct points whose values agree to 1e-12 hold the maximum's value to that.
    const double flat = 1e-12 * std::abs(fx);
    if (std::abs(fx - fw) <= flat && std::abs(fx - fv) <= flat && x != w && w != v && x != v) break;
    bool parabolic = false;
    if (std::abs(e) > tol1 && std::isfinite(fx) && std::isfinite(fw) && std::isfinite(fv)) {
      // The parabola through (x, fx), (w, fw), (v, fv): its vertex, if inside and a step smaller than half the
      // one before.
      double r = (x - w) * (fv - fx), q = (x - v) * (fw - fx), p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      q = std::abs(q);
      const double e_old = e;
      if (std::abs(p) < std::abs(0.5 * q * e_old) && p > q * (a - x) && p < q * (b - x)) {
        e = d, d = p / q, parabolic = true;
        const double u = x + d;
        if (u - a < tol2 || b - u < tol2) d = x < m ? tol1 : -tol1;
      }
    }
    if (!parabolic) e = (x < m ? b : a) - x, d = golden * e;
    const double u = x + (std::abs(d) >= tol1 ? d : (d > 0 ? tol1 : -tol1));
    const double fu = f(u);
    if (fu >= fx) {
      (u < x ? b : a) = x;
      v = w, fv = fw, w = x, fw = fx, x = u, fx = fu;
    } else {
      (u < x ? a : b) = u;
      if (fu >= fw || w == x) v = w, fv = fw, w = u, fw = fu;
      else if (fu >= fv || v == x || v == w) v = u, fv = fu;
    }
  }
  best = fx;
  return x;
}

// The maximum of f on [a, b] where f is positive only on a stretch that may be short (a footprint's row, f concave
// there) and of any shape elsewhere: Brent first; where it finds nothing positive, `samples` equal steps look for a
// positive value and Brent refines around the best. Brent alone settles on a side maximum outside the stretch.
template <class F>
double positive_max(const F& f, double a, double b, double tol, double& best, int samples = 16) {
  double x = brent_max(f, a, b, tol, best);
  if (best > 0) return x;
  const double step = (b - a) / samples;
  double x_best = x, f_best = best;
  for (int k = 0; k <= samples; ++k) {
    const double y = a + k * step, fy = f(y);
    if (fy > f_best) f_best = fy, x_best = y;
  }
  if (f_best > 0) {
    x = brent_max(f, std::max(a, x_best - step), std::min(b, x_best + step), tol, best);
    if (best >= f_best) return x;
  }
  best = f_best;
  return x_best;
}

}  // namespace vcsim::geo::lens
