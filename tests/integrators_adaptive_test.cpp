// The error-controlled pairs (integrators/adaptive_rk.h) against closed-form solutions: the propagated solution's
// order, the embedded estimate's order, the continuous extension's order, and tolerance proportionality of the
// global error on a known solution.
#include <catch2/catch.hpp>

#include <cmath>

#include "integrators/adaptive_rk.h"
#include "tests/kepler_problem.h"

using namespace vcsim::integ;

namespace {

OdeSystem kepler() { return kepler_orbit::system(); }
VecX kepler_exact(double t) { return kepler_orbit::exact(t); }
Tolerances uniform(double tol) { return {tol, VecX::Constant(4, tol)}; }

// Least-squares slope of log(y) against log(h).
double slope(const std::vector<double>& h, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(h.size());
  for (size_t k = 0; k < h.size(); ++k) {
    const double lx = std::log(h[k]), ly = std::log(y[k]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

struct Run {
  double error = 0;  // |x(T) − exact| (max norm)
  long accepted = 0, rejected = 0;
};

// The caller's loop (as engine/simulation.cpp runs it): f at the start, trial, accept or retry.
Run integrate(AdaptiveMethod m, double tol, double T) {
  const OdeSystem sys = kepler();
  const Tolerances tl = uniform(tol);
  AdaptiveStepper stepper(m, 4);
  StepController controller(m);
  VecX x = kepler_exact(0), f(4);
  double t = 0;
  sys.derivative(t, x, f);
  double h = initial_step(sys, m, t, x, f, tl, T);
  Run r;
  while (t < T) {
    h = std::min(h, T - t);
    const double err = stepper.attempt(sys, t, x, f, h, tl);
    const bool ok = err <= 1;
    if (ok) {
      x = stepper.candidate();
      t = (T - t - h <= 0) ? T : t + h;
      sys.derivative(t, x, f);
      ++r.accepted;
    } else {
      ++r.rejected;
    }
    h = controller.propose(h, err, ok);
  }
  r.error = (x - kepler_exact(T)).cwiseAbs().maxCoeff();
  return r;
}

}  // namespace

TEST_CASE("dopri5, bs23, rosenbrock23: propagated solution, error estimate and dense output converge at their orders") {
  const OdeSystem sys = kepler();
  for (const AdaptiveMethod m : {AdaptiveMethod::Dopri5, AdaptiveMethod::Bs23, AdaptiveMethod::Rosenbrock23}) {
    const bool rosenbrock = m == AdaptiveMethod::Rosenbrock23;
    const int p = adaptive_method_order(m);  // 5, 3, 2
    // The explicit pairs' estimate is the embedded order-(p − 1) solution's error, O(h^p); ode23s's is O(h^(p+1)).
    const int estimate_order = rosenbrock ? p + 1 : p;
    // The local error of the continuous extension: dopri5's 4th-order one O(h^5); cubic Hermite O(h^4), except that
    // rosenbrock23's end point is itself only O(h^3) off.
    const int dense_order = m == AdaptiveMethod::Dopri5 ? 5 : rosenbrock ? 3 : 4;
    std::vector<double> hs, global, estimate, middle;
    for (int k = 0; k < 4; ++k) {
      const double h = (m == AdaptiveMethod::Dopri5 ? 0.1 : 0.05) / std::pow(2.0, k);
      AdaptiveStepper stepper(m, 4);
      // Huge tolerances: the scaled error is then the raw estimate / 1.
      const Tolerances raw{0, VecX::Ones(4)};
      VecX x = kepler_exact(0), f(4), mid(4);
      const int n = static_cast<int>(std::lround(2.0 / h));
      double worst_estimate = 0, worst_middle = 0;
      for (int i = 0; i < n; ++i) {
        sys.derivative(i * h, x, f);
        const double err = stepper.attempt(sys, i * h, x, f, h, raw);
        worst_estimate = std::max(worst_estimate, err);
        stepper.dense(sys, 0.5, mid);
        // The interpolant's error at mid-step, beyond the step's own start error (local: the trial starts off the
        // exact curve by the global error, which moves the interpolant by as much).
        const VecX local_exact = [&] {
          // Exact flow from the step's start x over h/2: the orbit with the same start (a circle of the same
          // phase) is not available in closed form off the circle, so compare with a 64-substep dopri5 run.
          AdaptiveStepper fine(AdaptiveMethod::Dopri5, 4);
          VecX y = x, fy(4);
          const double hs2 = 0.5 * h / 64;
          for (int j = 0; j < 64; ++j) {
            sys.derivative(i * h + j * hs2, y, fy);
            fine.attempt(sys, i * h + j * hs2, y, fy, hs2, raw);
            y = fine.candidate();
          }
          return y;
        }();
        worst_middle = std::max(worst_middle, (mid - local_exact).cwiseAbs().maxCoeff());
        x = stepper.candidate();
      }
      hs.push_back(h);
      global.push_back((x - kepler_exact(n * h)).cwiseAbs().maxCoeff());
      estimate.push_back(worst_estimate);
      middle.push_back(worst_middle);
    }
    INFO(adaptive_method_name(m) << ": global " << slope(hs, global) << ", estimate " << slope(hs, estimate)
                                 << ", dense output (local) " << slope(hs, middle));
    // Tolerance ±0.35 on an observed order over three halvings (the asymptotic range starts late for bs23).
    CHECK(std::abs(slope(hs, global) - p) < 0.35);
    CHECK(std::abs(slope(hs, estimate) - estimate_order) < 0.35);
    CHECK(std::abs(slope(hs, middle) - dense_order) < 0.4);
  }
}

TEST_CASE("dopri5, bs23, rosenbrock23: the global error on a known solution follows the tolerance") {
  for (const AdaptiveMethod m : {AdaptiveMethod::Dopri5, AdaptiveMethod::Bs23, AdaptiveMethod::Rosenbrock23}) {
    const double T = 4 * M_PI;  // two orbits
    std::vector<double> tols = {1e-6, 1e-8, 1e-10}, errors;
    for (double tol : tols) {
      const Run r = integrate(m, tol, T);
      INFO(adaptive_method_name(m) << " at " << tol << ": error " << r.error << ", " << r.accepted << " accepted, "
                                   << r.rejected << " rejected");
      // Each accepted step's local error is about tol (|x| ~ 1). On the orbit a local error becomes a phase error that
      // grows linearly: an error δ in the radius changes the period by 3δ/2 of it, so over the remaining time
      // (≤ T = 4π) it grows at most 1 + 3/2 T ≈ 20 times. Bound: accepted steps × tol × 20.
      CHECK(r.error < r.accepted * tol * (1 + 1.5 * T));
      CHECK(r.accepted > 0);
      errors.push_back(r.error);
    }
    // Tightening by 1e4 gains at least 1e3 (a controller that ignored the tolerance would not). rosenbrock23
    // controls an O(h³) estimate but propagates the 2nd-order solution: its error goes as tol^(2/3), 1e4 → 464.
    CHECK(errors[2] < (m == AdaptiveMethod::Rosenbrock23 ? 5e-3 : 1e-3) * errors[0]);
  }
}

TEST_CASE("The controller rejects a step whose estimate exceeds the tolerance and retries smaller") {
  const OdeSystem sys = kepler();
  AdaptiveStepper stepper(AdaptiveMethod::Dopri5, 4);
  StepController controller(AdaptiveMethod::Dopri5);
  const Tolerances tl = uniform(1e-10);
  VecX x = kepler_exact(0), f(4);
  sys.derivative(0, x, f);
  double h = 1.0;  // far too large for 1e-10
  const double err = stepper.attempt(sys, 0, x, f, h, tl);
  CHECK(err > 1);
  const double h2 = controller.propose(h, err, false);
  CHECK(h2 < h);
  CHECK(h2 >= 0.2 * h);  // the controller never shrinks by more than 5x per rejection
  // x is the caller's: a rejected trial cannot have touched it.
  CHECK(x == kepler_exact(0));
  // After a rejection the next accepted step may not grow.
  double hh = h2, e2 = 2;
  while ((e2 = stepper.attempt(sys, 0, x, f, hh, tl)) > 1) hh = controller.propose(hh, e2, false);
  CHECK(controller.propose(hh, e2, true) <= hh);
}

TEST_CASE("Adaptive integrator names and aliases") {
  CHECK(adaptive_method_from_name("dopri5") == AdaptiveMethod::Dopri5);
  CHECK(adaptive_method_from_name("ode45") == AdaptiveMethod::Dopri5);
  CHECK(adaptive_method_from_name("bs23") == AdaptiveMethod::Bs23);
  CHECK(adaptive_method_from_name("ode23") == AdaptiveMethod::Bs23);
  CHECK(adaptive_method_from_name("rosenbrock23") == AdaptiveMethod::Rosenbrock23);
  CHECK(adaptive_method_from_name("ode23s") == AdaptiveMethod::Rosenbrock23);
  CHECK_FALSE(adaptive_method_from_name("rk4"));
  CHECK(propagating_method(AdaptiveMethod::Dopri5) == Method::DormandPrince5);
  CHECK(propagating_method(AdaptiveMethod::Bs23) == Method::BogackiShampine3);
}

TEST_CASE("rosenbrock23 takes accuracy-sized steps on a stiff problem where the explicit pairs sit at their stability bound") {
  // Prothero–Robinson: x' = −λ (x − cos t) − sin t, x(0) = 1, solution cos t for any λ. With λ = 1e4 an explicit
  // method needs h λ below ~3 (dopri5: 3.3) whatever the tolerance; an L-stable one follows cos t.
  OdeSystem sys;
  const double lambda = 1e4;
  sys.derivative = [&](double t, const VecX& x, VecX& dx) {
    dx.resize(1);
    dx[0] = -lambda * (x[0] - std::cos(t)) - std::sin(t);
  };
  auto run = [&](AdaptiveMethod m, long& steps) {
    const Tolerances tl{1e-4, VecX::Constant(1, 1e-4)};
    AdaptiveStepper stepper(m, 1);
    StepController controller(m);
    VecX x = VecX::Ones(1), f(1);
    double t = 0;
    const double T = 10;
    sys.derivative(t, x, f);
    double h = initial_step(sys, m, t, x, f, tl, 1.0);
    steps = 0;
    while (t < T) {
      h = std::min(h, T - t);
      const double err = stepper.attempt(sys, t, x, f, h, tl);
      if (err <= 1) {
        x = stepper.candidate();
        t = (T - t - h <= 0) ? T : t + h;
        sys.derivative(t, x, f);
        ++steps;
      }
      h = controller.propose(h, err, err <= 1);
    }
    return std::abs(x[0] - std::cos(T));
  };
  long explicit_steps = 0, stiff_steps = 0;
  const double explicit_error = run(AdaptiveMethod::Dopri5, explicit_steps);
  const double stiff_error = run(AdaptiveMethod::Rosenbrock23, stiff_steps);
  INFO("dopri5: " << explicit_steps << " steps, error " << explicit_error << "; rosenbrock23: " << stiff_steps
                  << " steps, error " << stiff_error);
  // dopri5's stability bound h λ < 3.3 means at least 10 λ / 3.3 = 3e4 steps over 10 s.
  CHECK(explicit_steps > 25000);
  // cos t at 1e-4 needs only tens to hundreds of second-order steps.
  CHECK(stiff_steps < 1000);
  CHECK(stiff_error < 1e-3);  // 10 × tol: the global error of a 2nd-order method over 10 s
  CHECK(explicit_error < 1e-3);
}
