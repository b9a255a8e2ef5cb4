// Error-controlled integrators for dx/dt = f(t, x). Two explicit Runge–Kutta pairs (Hairer, Nørsett & Wanner, Solving
// ODEs I, §II.4–6): Dormand–Prince 5(4) (`dopri5`, MATLAB's ode45) and Bogacki–Shampine 3(2) (`bs23`, ode23). Both
// propagate the higher-order solution (local extrapolation), estimate the local error with the embedded lower-order
// one, and give a continuous extension between the step's ends (dense output): 4th order for dopri5, cubic Hermite
// for bs23. And one linearly implicit method for stiff scenes, `rosenbrock23` (MATLAB's ode23s: Shampine & Reichelt,
// "The MATLAB ODE Suite", 1997): second order, L-stable, a third-order error estimate and a second-order continuous
// extension, with the Jacobian ∂f/∂x by forward differences at every step (n + 1 evaluations of f).
//
// Like the fixed-step Stepper they know nothing of bodies or contacts. The caller owns the loop: it supplies f at the
// step's start (so that anything it commits between steps, such as contact memories, is seen), asks for a trial
// step, reads the scaled error, and accepts or retries with the controller's proposal. A rejected trial leaves
// nothing behind but the stepper's own buffers.
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "integrators/explicit_rk.h"

namespace vcsim::integ {

enum class AdaptiveMethod { Dopri5, Bs23, Rosenbrock23 };

// dopri5/ode45, bs23/ode23, rosenbrock23/ode23s
std::optional<AdaptiveMethod> adaptive_method_from_name(const std::string& name);
std::string adaptive_method_name(AdaptiveMethod method);
std::vector<std::string> adaptive_method_names();
int adaptive_method_order(AdaptiveMethod method);  // of the propagated solution
// The fixed-step method with the same propagated solution: same stability region (engine/step_guard). Rosenbrock23
// has no explicit twin; it maps to the explicit method of its order class (bs3), whose stability limits then only
// describe the contacts' time scales.
Method propagating_method(AdaptiveMethod method);

// Error weights: component i's error is measured against abs_tol[i] + rel_tol max(|x_i|, |x_new_i|). An infinite
// abs_tol leaves a component out of the control (an accumulated diagnostic).
struct Tolerances {
  double rel_tol = 1e-6;
  VecX abs_tol;
};

// The PI step-size controller of Hairer & Wanner (dopri5.f): h_new = h err^(-α) err_prev^β with α = 1/(q+1) − 0.75β,
// β = 0.04 (dopri5) or 0 (bs23), safety 0.9, growth in [0.2, 10] per step, no growth right after a rejection.
class StepController {
 public:
  explicit StepController(AdaptiveMethod method);
  // The next step after a trial of size h with scaled error err (accepted when err <= 1).
  double propose(double h, double err, bool accepted);

 private:
  double alpha_, beta_, err_prev_ = 1e-4;
  bool rejected_last_ = false;
};

class AdaptiveStepper {
 public:
  AdaptiveStepper(AdaptiveMethod method, int size);
  // A trial step of size h from (t, x) with f0 = f(t, x). Returns the scaled RMS error (accept when <= 1; +inf when
  // the trial is not finite). candidate() is x(t + h), projected.
  double attempt(const OdeSystem& system, double t, const VecX& x, const VecX& f0, double h, const Tolerances& tol);
  const VecX& candidate() const { return x_new_; }
  // x(t + θ h), 0 <= θ <= 1, on the last trial's continuous extension (projected).
  void dense(const OdeSystem& system, double theta, VecX& out) const;
  AdaptiveMethod method() const { return method_; }
  int evaluations_per_attempt() const;  // right-hand-side evaluations after f0 (rosenbrock23: with the Jacobian's)

 private:
  AdaptiveMethod method_;
  std::vector<VecX> k_;
  VecX stage_, x0_, x_new_, err_;
  double attempt_rosenbrock(const OdeSystem& system, double t, const VecX& x, const VecX& f0, double h,
                            const Tolerances& tol);

  std::vector<VecX> dense_;  // dopri5: rcont1..5; otherwise the cubic Hermite data x0, x1, h f0, h f1
  Eigen::MatrixXd jacobian_;
  int jacobian_evaluations_ = 0;
  double h_ = 0;
};

// A first step for (t0, x0) with f0 = f(t0, x0) (Hairer's hinit: one extra evaluation of f), at most max_step.
double initial_step(const OdeSystem& system, AdaptiveMethod method, double t0, const VecX& x0, const VecX& f0,
                    const Tolerances& tol, double max_step);

}  // namespace vcsim::integ
