// Normal-force kernels against the thesis's closed forms: the d(e_eff) table (docs/sources.md,
// an independent bisection of eq 3.22) and restitution of an isolated impact integrated here with a
// fine RK4 loop (an integration independent of the engine), for which −v_out/v_in = e_eff exactly
// (eq 3.14; the derivation 3.21–3.23 is independent of m, k and the spring law).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "contact/normal_force.h"

using namespace vcsim::contact;

TEST_CASE("d(e_eff) matches the thesis table (eq 3.23)", "[contact][normal]") {
  // docs/sources.md, d(e_eff) table: printed to 8 decimals, so 1e-8 absolute (plus rounding of the last digit).
  const double table[][2] = {{0.10, 0.99981594}, {0.20, 0.98383334}, {0.30, 0.92612459}, {0.40, 0.83299927},
                             {0.50, 0.71637527}, {0.60, 0.58492303}, {0.70, 0.44437980}, {0.80, 0.29851696},
                             {0.85, 0.22440800}, {0.90, 0.14983376}, {0.95, 0.07498028}, {0.975, 0.03749760},
                             {0.99, 0.01499985}, {0.05, 0.99999998}};
  for (auto& row : table) {
    INFO("e_eff = " << row[0]);
    CHECK(std::abs(damping_constant(row[0]) - row[1]) < 1.5e-8);
  }
  CHECK(damping_constant(1.0) == 0.0);
  CHECK(damping_constant(0.01) == Approx(1.0).margin(1e-15));  // 1 − d < 1e-16 (table)
  // Near e = 1 the root follows d ≈ (3/2) e (1 − e²)/(1 + e³) (second-order expansion of 3.23), to O((1−e)³).
  const double e = 0.999;
  CHECK(damping_constant(e) == Approx(1.5 * e * (1 - e * e) / (1 + e * e * e)).epsilon(1e-5));
  CHECK_THROWS(damping_constant(0.0));
  CHECK_THROWS(damping_constant(1.1));
}

TEST_CASE("damping factor sign and the v_small freeze (eqs 3.24, 3.43)", "[contact][normal]") {
  const double d = damping_constant(0.5);
  CHECK(damping_factor(d, 0.5, -2.0, 1e-3) == Approx(-d / (0.5 * 2.0)));
  // Below v_small the factor is frozen at −d/(e v_small): e = 0.5 gives −1432 s/m (eq 3.43; docs/sources.md).
  CHECK(damping_factor(d, 0.5, -1e-5, 1e-3) == Approx(-1432.75).epsilon(1e-4));
  // Never pulling: at separation speed beyond −e v_in the factor 1 + a v_n would be negative.
  CHECK(hertz_normal_force(1e6, 1.5, 1e-3, -1.0, 2.0) == 0.0);
  CHECK(volumetric_normal_force(1e9, 1e-6, -1.0, 2.0) == 0.0);
  CHECK(hertz_normal_force(1e6, 1.5, -1e-3, -1.0, 0.0) == 0.0);  // no overlap, no force
}

TEST_CASE("equivalent stiffness of two compliant bodies (eq 4.132)", "[contact][normal]") {
  CHECK(equivalent_stiffness(2e9, 2e9) == Approx(1e9));
  CHECK(equivalent_stiffness(INFINITY, 3e9) == 3e9);  // a rigid side leaves the other's stiffness (4.128)
  CHECK(equivalent_stiffness(3e9, INFINITY) == 3e9);
  CHECK(equivalent_stiffness(1e9, 3e9) == Approx(0.75e9));
  CHECK(relaxation_rate(-2e-4, 1.0) == Approx(2e-4));
  CHECK(relaxation_rate(-2e-4, 0.0) == 0.0);
}

namespace {

// Isolated two-body impact, relative coordinate: depth δ (> 0 in contact), m dv/dt = f(δ, v),
// v = v_n (negative approaching), dδ/dt = −v. Returns v_out at separation (δ back to 0).
// Fixed-step RK4 with steps of t_est/N, and the exit crossing located by linear interpolation.
double impact_exit_velocity(double m, double v_in, const std::function<double(double, double)>& force, double t_est,
                            int N) {
  double delta = 0, v = v_in;
  const double h = t_est / N;
  auto f = [&](double dl, double vv, double& ddl, double& dv) {
    ddl = -vv;
    dv = force(dl, vv) / m;
  };
  for (long step = 0; step < 100L * N; ++step) {
    double k1d, k1v, k2d, k2v, k3d, k3v, k4d, k4v;
    f(delta, v, k1d, k1v);
    f(delta + 0.5 * h * k1d, v + 0.5 * h * k1v, k2d, k2v);
    f(delta + 0.5 * h * k2d, v + 0.5 * h * k2v, k3d, k3v);
    f(delta + h * k3d, v + h * k3v, k4d, k4v);
    const double nd = delta + h / 6 * (k1d + 2 * k2d + 2 * k3d + k4d);
    const double nv = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    if (step > 0 && nd <= 0) {
      // Separation inside this step: interpolate v to δ = 0.
      const double w = delta / (delta - nd);
      return v + w * (nv - v);
    }
    delta = nd;
    v = nv;
  }
  return NAN;
}

}  // namespace

TEST_CASE("restitution of an isolated impact equals e_eff (Hertz and flat punch)", "[contact][normal]") {
  const double v_in = -1.0;
  for (double e : {0.3, 0.5, 0.8}) {
    const double d = damping_constant(e);
    const double a = damping_factor(d, e, v_in, 1e-3);
    for (double m : {0.5, 20.0}) {
      // Hertz sphere, f = k δ^1.5 (1 + a v): contact time ~ 3 (m²/(k² |v|))^(1/5) (Hertz).
      for (double k : {1e6, 1e9}) {
        const double tc = 3.2 * std::pow(m * m / (k * k * std::abs(v_in)), 0.2);
        const double v_out =
            impact_exit_velocity(m, v_in, [&](double dl, double v) { return hertz_normal_force(k, 1.5, dl, a, v); },
                                 tc, 4000);
        INFO("Hertz e=" << e << " m=" << m << " k=" << k);
        CHECK(std::abs(-v_out / v_in - e) < 1e-3);  // acceptance tolerance; the RK4 error is ~1e-8 here
      }
      // Flat punch of area A = π R², R = 0.05 m: V = A δ, f = k_v A δ (1 + a v); t_c ~ π sqrt(m/(k_v A)).
      const double A = M_PI * 0.05 * 0.05;
      for (double kv : {1e9, 1e11}) {
        const double tc = M_PI * std::sqrt(m / (kv * A));
        const double v_out = impact_exit_velocity(
            m, v_in, [&](double dl, double v) { return volumetric_normal_force(kv, A * dl, a, v); }, tc, 4000);
        INFO("flat punch e=" << e << " m=" << m << " k_v=" << kv);
        CHECK(std::abs(-v_out / v_in - e) < 1e-3);
      }
    }
  }
}
