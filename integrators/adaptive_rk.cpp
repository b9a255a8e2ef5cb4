#include "integrators/adaptive_rk.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vcsim::integ {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Dormand & Prince (1980), RK5(4)7FM: c, a, the 5th-order weights b (b7 = 0: FSAL) and e = b − b̂ (Hairer's dopri5.f).
constexpr double kDpC[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
constexpr double kDpA[7][6] = {{},
                               {1.0 / 5},
                               {3.0 / 40, 9.0 / 40},
                               {44.0 / 45, -56.0 / 15, 32.0 / 9},
                               {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
                               {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
                               {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
constexpr double kDpE[7] = {71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40};
// Its continuous extension of order 4 (Hairer's contd5 coefficients d).
constexpr double kDpD[7] = {-12715105075.0 / 11282082432, 0, 87487479700.0 / 32700410799,
                            -10690763975.0 / 1880347072, 701980252875.0 / 199316789632,
                            -1453857185.0 / 822651844, 69997945.0 / 29380423};

// Bogacki & Shampine (1989): third order, FSAL 4th stage; e = b − b̂ with b̂ = (7/24, 1/4, 1/3, 1/8).
constexpr double kBsC[4] = {0, 0.5, 0.75, 1};
constexpr double kBsA[4][3] = {{}, {0.5}, {0, 0.75}, {2.0 / 9, 1.0 / 3, 4.0 / 9}};
constexpr double kBsE[4] = {2.0 / 9 - 7.0 / 24, 1.0 / 3 - 1.0 / 4, 4.0 / 9 - 1.0 / 3, -1.0 / 8};

struct NamedAdaptive {
  const char* name;
  const char* alias;
  AdaptiveMethod method;
  int order;
};
const NamedAdaptive kAdaptive[] = {{"dopri5", "ode45", AdaptiveMethod::Dopri5, 5},
                                   {"bs23", "ode23", AdaptiveMethod::Bs23, 3},
                                   {"rosenbrock23", "ode23s", AdaptiveMethod::Rosenbrock23, 2}};

int stages(AdaptiveMethod m) { return m == AdaptiveMethod::Dopri5 ? 7 : m == AdaptiveMethod::Bs23 ? 4 : 3; }

// RMS of err_i / (abs_tol_i + rel_tol max(|x0_i|, |x1_i|)) over the controlled components (Hairer's norm).
double scaled_norm(const VecX& err, const VecX& x0, const VecX& x1, const Tolerances& tol) {
  double sum = 0;
  long n = 0;
  for (Eigen::Index i = 0; i < err.size(); ++i) {
    if (std::isinf(tol.abs_tol[i])) continue;
    const double sc = tol.abs_tol[i] + tol.rel_tol * std::max(std::abs(x0[i]), std::abs(x1[i]));
    const double r = err[i] / sc;
    sum += r * r;
    ++n;
  }
  return n ? std::sqrt(sum / n) : 0.0;
}

}  // namespace

std::optional<AdaptiveMethod> adaptive_method_from_name(const std::string& name) {
  for (const auto& m : kAdaptive)
    if (name == m.name || name == m.alias) return m.method;
  return std::nullopt;
}

std::string adaptive_method_name(AdaptiveMethod method) {
  for (const auto& m : kAdaptive)
    if (m.method == method) return m.name;
  return "?";
}

std::vector<std::string> adaptive_method_names() {
  std::vector<std::string> names;
  for (const auto& m : kAdaptive) names.push_back(m.name);
  return names;
}

int adaptive_method_order(AdaptiveMethod method) {
  for (const auto& m : kAdaptive)
    if (m.method == method) return m.order;
  return 0;
}

Method propagating_method(AdaptiveMethod method) {
  return method == AdaptiveMethod::Dopri5 ? Method::DormandPrince5 : Method::BogackiShampine3;  // rosenbrock23: bs3
}

StepController::StepController(AdaptiveMethod method) {
  // The error estimate is of order q + 1 in h with q the embedded order (4, 2; rosenbrock23's estimate is O(h³)).
  const int q = method == AdaptiveMethod::Dopri5 ? 4 : 2;
  beta_ = method == AdaptiveMethod::Dopri5 ? 0.04 : 0.0;
  alpha_ = 1.0 / (q + 1) - 0.75 * beta_;
}

double StepController::propose(double h, double err, bool accepted) {
  constexpr double kSafety = 0.9, kMinFactor = 0.2, kMaxFactor = 10;
  if (!std::isfinite(err)) {  // a trial that produced no number: shrink hard
    rejected_last_ = true;
    return kMinFactor * h;
  }
  double factor = kSafety * std::pow(std::max(err, 1e-10), -alpha_);
  if (accepted) {
    factor *= std::pow(err_prev_, beta_);
    err_prev_ = std::max(err, 1e-4);
    factor = std::clamp(factor, kMinFactor, rejected_last_ ? 1.0 : kMaxFactor);
    rejected_last_ = false;
  } else {
    factor = std::clamp(factor, kMinFactor, 1.0);
    rejected_last_ = true;
  }
  return h * factor;
}

AdaptiveStepper::AdaptiveStepper(AdaptiveMethod method, int size)
    : method_(method), stage_(size), x0_(size), x_new_(size), err_(size) {
  k_.assign(stages(method), VecX(size));
  dense_.assign(method == AdaptiveMethod::Dopri5 ? 5 : 4, VecX(size));
  if (method == AdaptiveMethod::Rosenbrock23) jacobian_.resize(size, size);
}

int AdaptiveStepper::evaluations_per_attempt() const {
  return method_ == AdaptiveMethod::Rosenbrock23 ? jacobian_evaluations_ + 2 : stages(method_) - 1;
}

double AdaptiveStepper::attempt(const OdeSystem& system, double t, const VecX& x, const VecX& f0, double h,
                                const Tolerances& tol) {
  if (method_ == AdaptiveMethod::Rosenbrock23) return attempt_rosenbrock(system, t, x, f0, h, tol);
  const bool dp = method_ == AdaptiveMethod::Dopri5;
  const int s = stages(method_);
  const double* c = dp ? kDpC : kBsC;
  const double* e = dp ? kDpE : kBsE;
  auto a = [&](int i, int j) { return dp ? kDpA[i][j] : kBsA[i][j]; };
  h_ = h;
  x0_ = x;
  k_[0] = f0;
  // The last stage is evaluated at the propagated solution (FSAL): its a-row is b.
  for (int i = 1; i < s; ++i) {
    stage_ = x;
    for (int j = 0; j < i; ++j)
      if (a(i, j) != 0) stage_.noalias() += (h * a(i, j)) * k_[j];
    if (i == s - 1) x_new_ = stage_;
    system.derivative(t + c[i] * h, stage_, k_[i]);
  }
  err_.setZero();
  for (int i = 0; i < s; ++i)
    if (e[i] != 0) err_.noalias() += (h * e[i]) * k_[i];
  if (dp) {
    dense_[0] = x0_;
    dense_[1] = x_new_ - x0_;
    dense_[2] = h * k_[0] - dense_[1];
    dense_[3] = dense_[1] - h * k_[6] - dense_[2];
    dense_[4].setZero();
    for (int i = 0; i < 7; ++i)
      if (kDpD[i] != 0) dense_[4].noalias() += (h * kDpD[i]) * k_[i];
  } else {
    dense_[0] = x0_, dense_[1] = x_new_, dense_[2] = h * k_[0], dense_[3] = h * k_[3];
  }
  if (system.project) system.project(x_new_);
  if (!x_new_.allFinite() || !err_.allFinite()) return kInf;
  return scaled_norm(err_, x0_, x_new_, tol);
}

double AdaptiveStepper::attempt_rosenbrock(const OdeSystem& system, double t, const VecX& x, const VecX& f0, double h,
                                           const Tolerances& tol) {
  // Shampine & Reichelt (1997), ode23s: d = 1/(2 + √2), W = I − h d J,
  //   k1 = W⁻¹ (f0 + h d T),  f1 = f(t + h/2, x + h/2 k1),  k2 = W⁻¹ (f1 − k1) + k1,  x_new = x + h k2,
  //   f2 = f(t + h, x_new),   k3 = W⁻¹ (f2 − e32 (k2 − f1) − 2 (k1 − f0) + h d T),  e32 = 6 + √2,
  //   error = h/6 (k1 − 2 k2 + k3),
  // with T = ∂f/∂t. The Jacobian is recomputed at every attempt: the contact stiffness changes with the overlap.
  const Eigen::Index n = x.size();
  const double d = 1 / (2 + std::sqrt(2.0)), e32 = 6 + std::sqrt(2.0);
  h_ = h;
  x0_ = x;
  // Forward differences: column j from a step δ_j = √ε max(|x_j|, the component's scale), so that a bristle deflection
  // of 1e-5 m and a position of 10 m are both perturbed in their significant digits.
  const double root_eps = std::sqrt(std::numeric_limits<double>::epsilon());
  VecX& xp = stage_;
  VecX& fp = k_[2];
  jacobian_evaluations_ = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    double scale = std::abs(x[j]);
    if (std::isfinite(tol.abs_tol[j]) && tol.rel_tol > 0) scale = std::max(scale, tol.abs_tol[j] / tol.rel_tol);
    const double delta = root_eps * std::max(scale, 1e-12);
    xp = x;
    xp[j] += delta;
    system.derivative(t, xp, fp);
    ++jacobian_evaluations_;
    jacobian_.col(j) = (fp - f0) / (xp[j] - x[j]);
  }
  const double dt = root_eps * std::max(std::abs(t), h);
  system.derivative(t + dt, x, fp);
  ++jacobian_evaluations_;
  const VecX T = (fp - f0) / dt;
  Eigen::MatrixXd W = -(h * d) * jacobian_;
  W.diagonal().array() += 1.0;
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(W);
  VecX& k1 = k_[0];
  VecX& k2 = k_[1];
  k1 = lu.solve(f0 + (h * d) * T);
  VecX& f1 = err_;
  stage_ = x + (0.5 * h) * k1;
  system.derivative(t + 0.5 * h, stage_, f1);
  k2 = lu.solve(f1 - k1) + k1;
  x_new_ = x + h * k2;
  VecX f2(n);
  system.derivative(t + h, x_new_, f2);
  const VecX k3 = lu.solve(f2 - e32 * (k2 - f1) - 2 * (k1 - f0) + (h * d) * T);
  err_ = (h / 6) * (k1 - 2 * k2 + k3);
  // Continuous extension: the cubic Hermite interpolant on the ends and f there (third order, where the method's own
  // extension x + h [θ(1 − θ)/(1 − 2d) k1 + θ(θ − 2d)/(1 − 2d) k2] is second order: its sampled energy of
  // ball_on_table rose by 4 rel_tol E at one sample).
  dense_[0] = x0_, dense_[1] = x_new_, dense_[2] = h * f0, dense_[3] = h * f2;
  if (system.project) system.project(x_new_);
  if (!x_new_.allFinite() || !err_.allFinite()) return kInf;
  return scaled_norm(err_, x0_, x_new_, tol);
}

void AdaptiveStepper::dense(const OdeSystem& system, double theta, VecX& out) const {
  if (method_ == AdaptiveMethod::Dopri5) {
    // y(θ) = r1 + θ (r2 + (1 − θ) (r3 + θ (r4 + (1 − θ) r5)))
    const double t1 = 1 - theta;
    out = dense_[0] + theta * (dense_[1] + t1 * (dense_[2] + theta * (dense_[3] + t1 * dense_[4])));
  } else {
    // Cubic Hermite on the ends and their slopes (third order).
    const double t2 = theta * theta, t3 = t2 * theta;
    out = (2 * t3 - 3 * t2 + 1) * dense_[0] + (t3 - 2 * t2 + theta) * dense_[2] + (-2 * t3 + 3 * t2) * dense_[1] +
          (t3 - t2) * dense_[3];
  }
  if (system.project) system.project(out);
}

double initial_step(const OdeSystem& system, AdaptiveMethod method, double t0, const VecX& x0, const VecX& f0,
                    const Tolerances& tol, double max_step) {
  // Hairer, Nørsett & Wanner I, §II.4 "Starting step size": h0 from |x|/|f|, then h1 from a second-derivative
  // estimate, h = min(100 h0, h1).
  const double d0 = scaled_norm(x0, x0, x0, tol), d1 = scaled_norm(f0, x0, x0, tol);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, max_step);
  VecX x1 = x0 + h0 * f0, f1(x0.size());
  system.derivative(t0 + h0, x1, f1);
  const double d2 = scaled_norm(f1 - f0, x0, x0, tol) / h0;
  const double order = adaptive_method_order(method);
  const double h1 = std::max(d1, d2) <= 1e-15 ? std::max(1e-6, h0 * 1e-3)
                                               : std::pow(0.01 / std::max(d1, d2), 1.0 / order);
  return std::min({100 * h0, h1, max_step});
}

}  // namespace vcsim::integ
