// Bristle friction kernels: the Bowden–Leben stick-slip apparatus of thesis §5.1.2, Table 5.1 (docs/sources.md,
// "Bowden–Leben stick-slip"), integrated here as a 1-D mass-spring on a moving plate with RK4, the helper functions'
// continuity, and the Contensou coupling of the volumetric model (eqs 4.209–4.243).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "contact/friction.h"

using namespace vcsim;
using namespace vcsim::contact;

namespace {

// Table 5.1 (load-scaled m g σ given; f_n = m g = 10 N): σ0 = 1e4 1/m, σ1 = √1e5/10 s/m, σ2 = 0.01 s/m.
FrictionParams bowden_leben_params(double tau_dw) {
  FrictionParams p;
  p.mu_s = 0.15;
  p.mu_c = 0.1;
  p.sigma0 = 1e5 / 10;
  p.sigma1 = std::sqrt(1e5) / 10;
  p.sigma2 = 0.1 / 10;
  p.v_s = 1e-3;
  p.tau_dw = tau_dw;
  p.v_e = p.v_s / 100;
  return p;
}

struct Peak {
  double t, f;
};

struct BowdenLebenRun {
  std::vector<Peak> peaks;       // breakaway peaks of |f_t|: local maxima above (μ_C + μ_S) f_n / 2
  std::vector<double> samples;   // |f_t| and |r| every 0.1 s, for the vector-form comparison
  double max_lateral = 0;        // largest component of r across the plate direction
};

// Block of mass m on a plate moving at v_p along direction (cos θ, sin θ), tied to the origin by a
// spring k_s: m r̈ = −k_s r + f_t, v_t = ṙ − v_p (reconstructed EOM, docs/sources.md). Starts sticking:
// r = 0, ṙ = v_p, z = 0, s_dw = 1. State: r (2), ṙ (2), z (2), s_dw — in 3-D vectors with z = 0.
BowdenLebenRun bowden_leben(double speed, double angle, double tau_dw, double duration, double h = 2e-5) {
  const FrictionParams p = bowden_leben_params(tau_dw);
  const double m = 1, k_s = 2, f_n = 10;
  const Vec3 dir(std::cos(angle), std::sin(angle), 0);
  const Vec3 vp = speed * dir;
  using State = Eigen::Matrix<double, 10, 1>;  // r(3) v(3) z(3) s_dw
  auto rhs = [&](const State& x, Vec3* force) {
    const Vec3 r = x.segment<3>(0), v = x.segment<3>(3), z = x.segment<3>(6);
    const PointFriction fr = point_friction(p, f_n, v - vp, z, x[9]);
    if (force) *force = fr.force;
    State d;
    d.segment<3>(0) = v;
    d.segment<3>(3) = (-k_s * r + fr.force) / m;
    d.segment<3>(6) = fr.z_dot;
    d[9] = fr.s_dw_dot;
    return d;
  };
  State x = State::Zero();
  x.segment<3>(3) = vp;
  x[9] = 1;
  BowdenLebenRun run;
  const long n = std::lround(duration / h);
  const long every = std::lround(0.1 / h);
  double f_prev2 = 0, f_prev = 0;
  for (long i = 0; i <= n; ++i) {
    Vec3 ft;
    const State k1 = rhs(x, &ft);
    const double f = ft.norm();
    // Local maximum at the previous sample.
    // Breakaway peaks lie between μ_C f_n and μ_S f_n; the threshold at their midpoint excludes the
    // slip bump (≈ 1.05 N) and the spikes at velocity reversals (≈ 1.17 N at 0.15 m/s).
    if (i >= 2 && f_prev > f_prev2 && f_prev >= f && f_prev > 0.5 * (p.mu_c + p.mu_s) * f_n)
      run.peaks.push_back({(i - 1) * h, f_prev});
    f_prev2 = f_prev;
    f_prev = f;
    if (i % every == 0) {
      run.samples.push_back(f);
      run.samples.push_back(x.segment<3>(0).norm());
    }
    const Vec3 r = x.segment<3>(0);
    run.max_lateral = std::max(run.max_lateral, std::abs(r.dot(Vec3(-dir.y(), dir.x(), 0))));
    if (i == n) break;
    const State k2 = rhs(x + 0.5 * h * k1, nullptr);
    const State k3 = rhs(x + 0.5 * h * k2, nullptr);
    const State k4 = rhs(x + h * k3, nullptr);
    x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return run;
}

}  // namespace

TEST_CASE("Bowden-Leben stick-slip: first and steady peaks (thesis §5.1.2)", "[contact][friction]") {
  // Steady peaks from docs/sources.md, "Bowden–Leben stick-slip" (independent RK4 re-simulation, converged in Δt).
  const double speeds[] = {0.05, 0.10, 0.15};
  const double steady[] = {1.4954, 1.4362, 1.2999};
  const double durations[] = {75, 50, 45};  // ≥ 5 cycles after the first peak
  for (int k = 0; k < 3; ++k) {
    const BowdenLebenRun run = bowden_leben(speeds[k], M_PI / 4, 2.0, durations[k]);
    INFO("plate speed " << speeds[k] << " m/s, " << run.peaks.size() << " peaks");
    REQUIRE(run.peaks.size() >= 3);
    // BL-1: the first peak is the full stiction limit μ_S f_n = 1.5 N (s_dw(0) = 1), reached when the
    // spring force k_s v_p t equals it: t = 0.75/|v_p|. ±0.5 % and ±1 % (acceptance tolerances).
    CHECK(run.peaks.front().f == Approx(1.5).epsilon(0.005));
    CHECK(run.peaks.front().t == Approx(0.75 / speeds[k]).epsilon(0.01));
    // BL-2: the steady peak (the last one) within ±1 %.
    CHECK(run.peaks.back().f == Approx(steady[k]).epsilon(0.01));
    WARN("v_p=" << speeds[k] << " first " << run.peaks.front().f << " N at " << run.peaks.front().t
                         << " s, last " << run.peaks.back().f << " N");
  }
}

TEST_CASE("Bowden-Leben: the vector form is direction independent", "[contact][friction]") {
  // BL-3: the same run at 0° and 45° agrees to 1e-9 (relative to the 1.5 N / 0.75 m scales), and r
  // stays collinear with the plate motion.
  const BowdenLebenRun a = bowden_leben(0.10, 0.0, 2.0, 20);
  const BowdenLebenRun b = bowden_leben(0.10, M_PI / 4, 2.0, 20);
  REQUIRE(a.samples.size() == b.samples.size());
  double worst = 0;
  for (size_t i = 0; i < a.samples.size(); ++i) worst = std::max(worst, std::abs(a.samples[i] - b.samples[i]));
  CHECK(worst < 1e-9);
  CHECK(a.max_lateral == 0.0);
  CHECK(b.max_lateral < 1e-12);
}

TEST_CASE("Bowden-Leben with the dwell effect disabled: every peak equals the first", "[contact][friction]") {
  // BL-5: τ_dw = 0 makes s_dw ≡ s, so stiction recovers at once and every breakaway is at μ_S f_n.
  const BowdenLebenRun run = bowden_leben(0.15, M_PI / 4, 0.0, 30);
  REQUIRE(run.peaks.size() >= 3);
  for (const Peak& pk : run.peaks) CHECK(pk.f == Approx(run.peaks.front().f).epsilon(0.01));
  CHECK(run.peaks.front().f == Approx(1.5).epsilon(0.005));
}

TEST_CASE("dir_e is C1 at |u| = u_e and vanishes at 0 (eq 3.33)", "[contact][friction]") {
  const double ue = 1e-3;
  const Vec3 dir = Vec3(1, 2, -2).normalized();
  // Magnitude 1 on both sides of u_e, and zero slope: finite differences of |dir_e| along u.
  const double eps = 1e-9;
  const double below = dir_e(Vec3((ue - eps) * dir), ue).norm();
  const double above = dir_e(Vec3((ue + eps) * dir), ue).norm();
  CHECK(below == Approx(1.0).margin(1e-12));  // 1 − O(ε²/u_e²)
  CHECK(above == 1.0);
  const double slope_below = (dir_e(ue - eps, ue) - dir_e(ue - 2 * eps, ue)) / eps;
  // The cubic's slope just below u_e is 3δ/u_e² at u = u_e − δ (δ ≈ 1.5ε here): dimensionless 4.5e-6 → 0.
  CHECK(std::abs(slope_below * ue) < 1e-5);
  CHECK(dir_e(Vec3::Zero(), ue).norm() == 0.0);
  CHECK(dir_e(0.0, ue) == 0.0);
  // Slope 3/(2 u_e) at 0.
  CHECK(dir_e(1e-9, ue) / 1e-9 == Approx(1.5 / ue).epsilon(1e-6));
  // Direction preserved.
  CHECK((dir_e(Vec3(0.3 * ue * dir), ue).normalized() - dir).norm() < 1e-15);
  CHECK(sat(Vec3(3, 4, 0), 1.0).norm() == Approx(1.0));
  CHECK(sat(Vec3(0.3, 0.4, 0), 1.0) == Vec3(0.3, 0.4, 0));
  CHECK(sat(-5.0, 2.0) == -2.0);
}

TEST_CASE("Contensou factors (eqs 4.211-4.214, 4.224, 4.236)", "[contact][friction]") {
  for (double v : {0.0, 1e-3, 0.1, 2.0})
    for (double w : {0.0, 0.5, 10.0, -30.0})
      for (double r : {1e-3, 0.05}) {
        const Contensou c = contensou(v, r, w, 1e-5);
        const double vavg = std::sqrt(v * v + r * r * w * w);
        if (vavg < 1e-5) continue;
        CHECK(c.c_v == Approx(v / vavg).margin(1e-15));
        CHECK(c.c_v * c.c_v + c.c_w * c.c_w == Approx(1.0).epsilon(1e-14));
      }
  // Below v_e the second branch keeps the factors continuous and small.
  const Contensou low = contensou(1e-7, 0.01, 0, 1e-5);
  CHECK(low.c_v == Approx(1e-2));
}

TEST_CASE("volumetric friction at steady sliding and spinning obeys Coulomb-Contensou", "[contact][friction]") {
  // Hold v_sct and ω_n fixed, integrate the bristle states to their steady state, and compare with the
  // Coulomb-Contensou values μ_C f_n C_v (eq 4.205) and μ_C r_gyr f_n C_ω (eq 4.208), σ2 = 0.
  FrictionParams p;
  p.mu_s = 0.4;
  p.mu_c = 0.3;
  p.sigma0 = 1e4;
  p.sigma1 = 60;
  p.sigma2 = 0;
  p.v_s = 1e-3;
  p.tau_dw = 0.01;
  p.v_e = 1e-5;
  const double f_n = 50, r_gyr = 0.05 / std::sqrt(2.0);  // flat cylinder end, R = 5 cm (T3)
  for (double w_n : {0.0, 2.0, 10.0}) {
    const Vec3 v(0.1, -0.05, 0);
    Vec3 z = Vec3::Zero();
    double th = 0, sdw = 0;
    VolumetricFriction fr;
    const double h = 1e-4;  // τ_br = σ1/σ0 = 6 ms: 0.1 s is > 15 time constants
    for (int i = 0; i < 2000; ++i) {
      fr = volumetric_friction(p, f_n, v, w_n, r_gyr, z, th, sdw);
      z += h * fr.z_dot;
      th += h * fr.theta_dot;
      sdw += h * fr.s_dw_dot;
    }
    const double vavg = std::hypot(v.norm(), r_gyr * w_n);
    INFO("omega_n = " << w_n);
    CHECK(fr.force.norm() == Approx(p.mu_c * f_n * v.norm() / vavg).epsilon(1e-6));
    CHECK(fr.force.normalized().dot(-v.normalized()) == Approx(1.0).epsilon(1e-12));  // opposes sliding
    CHECK(std::abs(fr.torque) == Approx(p.mu_c * r_gyr * f_n * r_gyr * std::abs(w_n) / vavg).margin(1e-9));
    if (w_n > 0) CHECK(fr.torque < 0);  // opposes the spin
  }
}

TEST_CASE("rolling resistance opposes the rolling rate (eq 4.67)", "[contact][friction]") {
  const Mat3 J = Vec3(2e-9, 3e-9, 5e-9).asDiagonal();
  const Vec3 w_t(1.0, -2.0, 0.0);
  const Vec3 tau = rolling_resistance(1e9, -100.0, J, w_t);
  CHECK(tau.dot(w_t) < 0);
  CHECK(tau.x() == Approx(1e9 * -100.0 * 2e-9));
}
