#include "integrators/explicit_rk.h"

#include <stdexcept>

namespace vcsim::integ {
namespace {

// Butcher tableau of an explicit method: c, lower-triangular a, and weights b.
struct Tableau {
  std::vector<double> c;
  std::vector<std::vector<double>> a;
  std::vector<double> b;
};

const Tableau& tableau(Method method) {
  static const Tableau euler{{0}, {{}}, {1}};
  static const Tableau heun{{0, 1}, {{}, {1}}, {0.5, 0.5}};
  // Bogacki & Shampine (1989), the third-order solution MATLAB/Simulink's fixed-step ode3 uses.
  static const Tableau bs3{{0, 0.5, 0.75}, {{}, {0.5}, {0, 0.75}}, {2.0 / 9, 1.0 / 3, 4.0 / 9}};
  static const Tableau rk4{{0, 0.5, 0.5, 1}, {{}, {0.5}, {0, 0.5}, {0, 0, 1}}, {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}};
  // Dormand & Prince (1980) fifth-order solution, used at a fixed step like Simulink's ode5.
  static const Tableau dp5{
      {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1},
      {{},
       {1.0 / 5},
       {3.0 / 40, 9.0 / 40},
       {44.0 / 45, -56.0 / 15, 32.0 / 9},
       {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
       {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656}},
      {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
  switch (method) {
    case Method::Euler: return euler;
    case Method::Heun: return heun;
    case Method::BogackiShampine3: return bs3;
    case Method::RK4: return rk4;
    case Method::DormandPrince5: return dp5;
    case Method::SemiImplicitEuler: return euler;
  }
  throw std::logic_error("unknown integration method");
}

struct NamedMethod {
  const char* name;
  Method method;
  int order;
};
const NamedMethod kMethods[] = {
    {"euler", Method::Euler, 1},
    {"semi_implicit_euler", Method::SemiImplicitEuler, 1},
    {"heun", Method::Heun, 2},
    {"rk3", Method::BogackiShampine3, 3},
    {"rk4", Method::RK4, 4},
    {"rk5", Method::DormandPrince5, 5},
};

}  // namespace

std::optional<Method> method_from_name(const std::string& name) {
  for (const auto& m : kMethods)
    if (name == m.name) return m.method;
  if (name == "ode3") return Method::BogackiShampine3;
  if (name == "ode5") return Method::DormandPrince5;
  return std::nullopt;
}

std::string method_name(Method method) {
  for (const auto& m : kMethods)
    if (m.method == method) return m.name;
  return "?";
}

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const auto& m : kMethods) names.push_back(m.name);
  return names;
}

int method_order(Method method) {
  for (const auto& m : kMethods)
    if (m.method == method) return m.order;
  return 0;
}

int method_stages(Method method) {
  return method == Method::SemiImplicitEuler ? 2 : static_cast<int>(tableau(method).b.size());
}

Stepper::Stepper(Method method, int size) : method_(method), stage_(size) {
  k_.assign(method == Method::SemiImplicitEuler ? 2 : tableau(method).b.size(), VecX(size));
}

void Stepper::step(const OdeSystem& system, double t, double h, VecX& x) {
  if (method_ == Method::SemiImplicitEuler) {
    // Velocities (and every non-kinematic state) first, from f(t, x_n); then the kinematic
    // components from f evaluated with the updated velocities: symplectic for mechanical systems.
    system.derivative(t, x, k_[0]);
    stage_ = x;
    const auto& kin = system.kinematic;
    for (Eigen::Index i = 0; i < x.size(); ++i)
      if (kin.empty() || !kin[i]) stage_[i] += h * k_[0][i];
    system.derivative(t, stage_, k_[1]);
    for (Eigen::Index i = 0; i < x.size(); ++i)
      if (!kin.empty() && kin[i]) stage_[i] += h * k_[1][i];
    x = stage_;
  } else {
    const Tableau& tab = tableau(method_);
    const size_t s = tab.b.size();
    for (size_t i = 0; i < s; ++i) {
      stage_ = x;
      for (size_t j = 0; j < i; ++j)
        if (tab.a[i][j] != 0) stage_.noalias() += (h * tab.a[i][j]) * k_[j];
      system.derivative(t + tab.c[i] * h, stage_, k_[i]);
    }
    for (size_t i = 0; i < s; ++i)
      if (tab.b[i] != 0) x.noalias() += (h * tab.b[i]) * k_[i];
  }
  if (system.project) system.project(x);
}

}  // namespace vcsim::integ
