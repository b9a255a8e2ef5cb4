#include "contact/normal_force.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace vcsim::contact {

double damping_constant(double e) {
  if (!(e > 0 && e <= 1)) throw std::invalid_argument("damping_constant: e_eff must be in (0, 1], got " + std::to_string(e));
  if (e == 1) return 0;  // purely elastic: no dissipation
  // g(d) = ln(1 + d/e) − ln(1 − d) − d (1 + e)/e (eq 3.23). g(0) = 0 is the spurious root; near 0,
  // g ≈ (d²/2)(1 − 1/e²) < 0, and g → +∞ as d → 1, so the physical root is the unique sign change in
  // (0, 1): bisection never evaluates the spurious root and converges to the last representable bit.
  auto g = [e](double d) { return std::log1p(d / e) - std::log1p(-d) - d * (1 + e) / e; };
  double lo = 0, hi = 1;
  for (int it = 0; it < 2000; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (g(mid) < 0) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

double damping_factor(double d, double e_eff, double v_in, double v_small) {
  return -d / (e_eff * std::max(std::abs(v_in), v_small));
}

double hertz_elastic_force(double k, double n, double depth) {
  return depth > 0 ? k * std::pow(depth, n) : 0.0;
}

double hertz_normal_force(double k, double n, double depth, double a, double v_n) {
  if (depth <= 0) return 0.0;
  return std::max(0.0, hertz_elastic_force(k, n, depth) * (1 + a * v_n));
}

double volumetric_normal_force(double k_v, double volume, double a, double v_cn) {
  if (volume <= 0) return 0.0;
  return std::max(0.0, k_v * volume * (1 + a * v_cn));
}

double equivalent_stiffness(double k_i, double k_j) {
  if (std::isinf(k_i)) return k_j;
  if (std::isinf(k_j)) return k_i;
  return 1.0 / (1.0 / k_i + 1.0 / k_j);
}

double relaxation_rate(double reference, double tau_r) { return tau_r > 0 ? -reference / tau_r : 0.0; }

}  // namespace vcsim::contact
