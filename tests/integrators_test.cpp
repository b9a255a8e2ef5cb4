// Integrator orders and exactness, measured against closed-form solutions.
#include <catch2/catch.hpp>

#include <cmath>

#include "integrators/explicit_rk.h"
#include "tests/kepler_problem.h"

using namespace vcsim::integ;

namespace {

OdeSystem kepler() { return kepler_orbit::system(); }

double kepler_error(Method m, double h, double T) {
  Stepper stepper(m, 4);
  VecX x(4);
  x << 1, 0, 0, 1;
  const int n = static_cast<int>(std::lround(T / h));
  for (int i = 0; i < n; ++i) stepper.step(kepler(), i * h, h, x);
  return std::hypot(x[0] - std::cos(T), x[1] - std::sin(T));
}

}  // namespace

TEST_CASE("Each integrator converges at its theoretical order on a smooth nonlinear problem") {
  struct Case {
    Method method;
    double h0;  // largest step: errors stay in the asymptotic range and above round-off
  };
  const Case cases[] = {{Method::Euler, 2e-3},           {Method::SemiImplicitEuler, 2e-3},
                        {Method::Heun, 1e-2},            {Method::BogackiShampine3, 2e-2},
                        {Method::RK4, 5e-2},             {Method::DormandPrince5, 5e-2}};
  for (const auto& c : cases) {
    // Least-squares slope of log(error) against log(h) over four halvings.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const int n = 4;
    for (int k = 0; k < n; ++k) {
      const double h = c.h0 / std::pow(2.0, k);
      const double lx = std::log(h), ly = std::log(kepler_error(c.method, h, 2.0));
      sx += lx; sy += ly; sxx += lx * lx; sxy += lx * ly;
    }
    const double order = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    INFO(method_name(c.method) << ": observed order " << order);
    // Tolerance from the acceptance criterion: within ±0.3 of the theoretical order.
    CHECK(std::abs(order - method_order(c.method)) < 0.3);
  }
}

TEST_CASE("Free fall: closed-form error of each integrator") {
  // x'' = g. Explicit Euler lags the exact parabola by g h t / 2, semi-implicit Euler leads it by
  // the same amount; every method of order >= 2 integrates a quadratic exactly.
  const double g = -9.81, h = 1e-3, T = 1.0;
  OdeSystem s;
  s.derivative = [g](double, const VecX& x, VecX& dx) {
    dx.resize(2);
    dx << x[1], g;
  };
  s.kinematic = {true, false};
  for (const auto& name : method_names()) {
    const Method m = *method_from_name(name);
    Stepper stepper(m, 2);
    VecX x(2);
    x << 10, 2;
    const int n = static_cast<int>(std::lround(T / h));
    for (int i = 0; i < n; ++i) stepper.step(s, i * h, h, x);
    const double exact = 10 + 2 * T + 0.5 * g * T * T;
    double expected_error = 0;
    if (m == Method::Euler) expected_error = -0.5 * g * h * T;
    if (m == Method::SemiImplicitEuler) expected_error = 0.5 * g * h * T;
    INFO(name);
    // 1e-11: round-off of 1000 steps of O(10) numbers.
    CHECK(x[0] - exact == Approx(expected_error).margin(1e-11));
    CHECK(x[1] == Approx(2 + g * T).margin(1e-11));
  }
}

TEST_CASE("Method names round-trip and unknown names are rejected") {
  for (const auto& name : method_names()) CHECK(method_name(*method_from_name(name)) == name);
  CHECK(method_from_name("ode3") == Method::BogackiShampine3);
  CHECK(method_from_name("ode5") == Method::DormandPrince5);
  CHECK_FALSE(method_from_name("rk45").has_value());
}
