// Step-size guard (engine/step_guard.h): stability limits against the closed forms of each method's
// stability function R(z), the contact modes against mass-spring closed forms, and the shipped
// scenarios against false warnings.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "contact/normal_force.h"
#include "engine/io/scenario_loader.h"
#include "engine/simulation.h"
#include "engine/step_guard.h"

using namespace vcsim;
using integ::Method;

namespace {

// The bisection stops at 1e-7 relative; 1e-6 leaves room for the spectral radius's round-off slack.
constexpr double kRel = 1e-6;

LinearMode spring(double m, double k) { return {m, 0, k}; }
LinearMode damper(double m, double c) { return {m, c, 0}; }

}  // namespace

TEST_CASE("max stable step: real and imaginary axis bounds of each method", "[step_guard]") {
  const double m = 2, omega = 1000, lambda = 5000;  // arbitrary: the bounds scale as 1/omega and 1/lambda
  const LinearMode osc = spring(m, m * omega * omega), decay = damper(m, m * lambda);
  // Pure decay x' = -lambda x (the velocity of a damper): R(-lambda h) must stay in [-1, 1].
  // Euler and Heun: |1 + z| <= 1 and |1 + z + z^2/2| <= 1 both end at z = -2.
  CHECK(max_stable_step(Method::Euler, decay) * lambda == Approx(2).epsilon(kRel));
  CHECK(max_stable_step(Method::Heun, decay) * lambda == Approx(2).epsilon(kRel));
  // RK3 (Bogacki-Shampine, R = 1 + z + z^2/2 + z^3/6): R = -1 at z = -2.5127453266 (root of z^3/6 + z^2/2 + z + 2).
  CHECK(max_stable_step(Method::BogackiShampine3, decay) * lambda == Approx(2.5127453266183255).epsilon(kRel));
  // RK4: R = 1 again at z = -2.7852935634 (real root of z^3/24 + z^2/6 + z/2 + 1): the classic 2.785.
  CHECK(max_stable_step(Method::RK4, decay) * lambda == Approx(2.785293563).epsilon(kRel));
  // Undamped oscillator, eigenvalues +-i omega. RK4: |R(iy)|^2 = 1 - y^6/72 + y^8/576 <= 1 iff y <= 2 sqrt 2.
  CHECK(max_stable_step(Method::RK4, osc) * omega == Approx(2 * std::sqrt(2.0)).epsilon(kRel));
  // RK3: |R(iy)|^2 = 1 - y^4/12 + y^6/36 <= 1 iff y <= sqrt 3.
  CHECK(max_stable_step(Method::BogackiShampine3, osc) * omega == Approx(std::sqrt(3.0)).epsilon(kRel));
  // Explicit Euler and Heun amplify an undamped oscillator at every step: |1 + iy| > 1, |1 + iy - y^2/2| > 1.
  // Euler's growth 1 + y^2/2 exceeds the 1e-9 round-off slack already at the first trial step (y = 1e-3): 0.
  CHECK(max_stable_step(Method::Euler, osc) == 0);
  // Heun's growth sqrt(1 + y^4/4) ~ 1 + y^4/8 stays inside the slack up to y = (8e-9)^(1/4): a step that small
  // is "stable" only in the sense that it loses nothing measurable per step.
  CHECK(max_stable_step(Method::Heun, osc) * omega == Approx(std::pow(8e-9, 0.25)).epsilon(1e-4));
  // Semi-implicit (symplectic) Euler: trace of the amplification matrix 2 - (omega h)^2, stable iff omega h <= 2.
  CHECK(max_stable_step(Method::SemiImplicitEuler, osc) * omega == Approx(2).epsilon(kRel));
  // No rate, no limit.
  CHECK(std::isinf(max_stable_step(Method::RK4, spring(1, 0))));
}

TEST_CASE("contact modes: mass-spring closed forms", "[step_guard]") {
  ContactGuardInput in;
  in.name = "ball__table";
  in.model = "point";
  in.params.normal.k = 4.0e4;
  in.params.normal.n = 1;  // a linear spring: k' = k whatever the load
  in.params.normal.e_eff = 1;  // no hysteretic damping
  in.mass_i = 2;
  in.mass_j = std::numeric_limits<double>::infinity();  // the table is fixed
  in.inertia_j = std::numeric_limits<double>::infinity();
  in.load = 2 * 9.81;
  auto modes = estimate_contact_modes(in, Method::RK4);
  REQUIRE(modes.size() == 1);  // no friction coefficients, no bristle mode
  // omega = sqrt(k/m) = sqrt(2e4) = 141.42 rad/s; RK4's limit on an undamped oscillator is 2 sqrt(2)/omega.
  CHECK(modes[0].linear.mass == 2);
  CHECK(modes[0].linear.stiffness == 4.0e4);
  CHECK(modes[0].max_step == Approx(2 * std::sqrt(2.0) / std::sqrt(2.0e4)).epsilon(kRel));

  // Hertz n = 1.5: the linearised stiffness is the slope of f = k x^n at the static depth, checked by a
  // central difference of contact::hertz_elastic_force (relative error O((dx/x)^2) = 1e-8).
  in.params.normal.n = 1.5;
  in.params.normal.k = 1e6;
  modes = estimate_contact_modes(in, Method::RK4);
  const double xs = std::pow(in.load / 1e6, 1 / 1.5), dx = 1e-4 * xs;
  const double slope =
      (contact::hertz_elastic_force(1e6, 1.5, xs + dx) - contact::hertz_elastic_force(1e6, 1.5, xs - dx)) / (2 * dx);
  CHECK(modes[0].linear.stiffness == Approx(slope).epsilon(1e-7));

  // Volumetric sphere cap: f = k_v V with the exact cap volume V = pi x^2 (R - x/3); the estimate uses
  // V ~ pi R x^2, whose slope differs from the exact one by O(x_s/R) (here 4e-5 relative).
  in.model = "volumetric";
  in.params.normal.k = 1e7;
  in.radius = 0.1;
  modes = estimate_contact_modes(in, Method::RK4);
  const double R = 0.1;
  auto cap = [&](double x) { return M_PI * x * x * (R - x / 3); };
  double lo = 0, hi = R;  // static depth: k_v cap(x) = f, by bisection
  for (int i = 0; i < 200; ++i) (1e7 * cap(0.5 * (lo + hi)) < in.load ? lo : hi) = 0.5 * (lo + hi);
  const double x = lo, h = 1e-6 * x;
  CHECK(modes[0].linear.stiffness == Approx(1e7 * (cap(x + h) - cap(x - h)) / (2 * h)).epsilon(4 * x / R));

  // Hysteretic damping latched at v_small (eqs 3.24, 3.43): c = f d(e)/(e v_small), a conditional mode.
  in.params.normal.e_eff = 0.5;
  in.params.normal.d = contact::damping_constant(0.5);
  in.params.normal.v_small = 1e-3;
  modes = estimate_contact_modes(in, Method::RK4);
  REQUIRE(modes.size() == 2);
  CHECK(modes[1].conditional);
  CHECK(modes[1].linear.damping == Approx(in.load * in.params.normal.d / (0.5 * 1e-3)).epsilon(1e-14));
  in.params.normal.e_eff = 1;
  in.params.normal.d = 0;

  // Bristle of a rolling solid sphere: lever R, I = 2/5 m R^2, so 1/m_t = 1/m + R^2/I = 3.5/m (the
  // effective mass of docs/contact-models.md); rate f sigma1 / m_t.
  in.params.friction.mu_s = in.params.friction.mu_c = 0.3;
  in.params.friction.sigma0 = 1e5;
  in.params.friction.sigma1 = 316.228;
  in.lever_i = R;
  in.inertia_i = 0.4 * 2 * R * R;
  modes = estimate_contact_modes(in, Method::RK4);
  REQUIRE(modes.size() == 2);  // e_eff = 1: no damping mode
  CHECK(modes[1].linear.mass == Approx(2 / 3.5).epsilon(1e-14));
  CHECK(modes[1].linear.damping / modes[1].linear.mass == Approx(in.load * 316.228 * 3.5 / 2).epsilon(1e-14));
}

TEST_CASE("shipped scenarios are inside the guard, a 20x step is not", "[step_guard]") {
  for (const auto& e : std::filesystem::directory_iterator(std::string(VCSIM_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    const Scenario sc = load_scenario(e.path().string());
    BuiltWorld built = build_world(sc);
    const StepGuardReport r = check_step(sc, built.world);
    INFO(e.path().filename() << ": " << r.warning);
    CHECK_FALSE(r.too_large);
    for (const auto& m : r.modes)
      std::printf("%-24s %-22s %-20s h = %-8g limit %-10.3g (%s)\n", e.path().filename().c_str(), m.contact.c_str(),
                  m.mode.c_str(), sc.step, m.max_step, m.formula.c_str());
  }
  // ball_on_table at 1e-3 s (20x its step): the bristle rate f sigma1/m_t = 1.09e4 1/s needs h < 2.51/1.09e4
  // = 2.3e-4 s with rk3 (overdamped: its fast eigenvalue is close to -f sigma1/m_t).
  const Scenario sc = load_scenario(std::string(VCSIM_SOURCE_DIR) + "/scenarios/ball_on_table.yaml",
                                    {"simulation.step=1e-3"});
  BuiltWorld built = build_world(sc);
  const StepGuardReport r = check_step(sc, built.world);
  CHECK(r.too_large);
  CHECK(r.max_step == Approx(2.3e-4).epsilon(0.1));  // 10%: the fast eigenvalue is -c/m_t shifted by k/c
  CHECK_THAT(r.warning, Catch::Matchers::Contains("contact 'ball__table'") &&
                            Catch::Matchers::Contains("bristle (stiction)") && Catch::Matchers::Contains("try <="));
}
