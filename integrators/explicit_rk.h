// Fixed-step explicit integrators for dx/dt = f(t, x). They know nothing of bodies or contacts:
// the system gives f, an optional projection applied after each step (quaternion renormalisation),
// and, for semi-implicit Euler only, which components are "kinematic" (updated from the new velocities).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace vcsim::integ {

using VecX = Eigen::VectorXd;

struct OdeSystem {
  std::function<void(double t, const VecX& x, VecX& dxdt)> derivative;
  std::function<void(VecX& x)> project;  // may be empty
  std::vector<bool> kinematic;           // semi-implicit Euler only; empty = all false
};

enum class Method { Euler, SemiImplicitEuler, Heun, BogackiShampine3, RK4, DormandPrince5 };

std::optional<Method> method_from_name(const std::string& name);
std::string method_name(Method method);
std::vector<std::string> method_names();
int method_order(Method method);
int method_stages(Method method);  // right-hand-side evaluations per step

// Owns the stage buffers so that stepping allocates nothing.
class Stepper {
 public:
  Stepper(Method method, int size);
  // Advances x from t to t + h in place, then applies the projection.
  void step(const OdeSystem& system, double t, double h, VecX& x);
  Method method() const { return method_; }

 private:
  Method method_;
  std::vector<VecX> k_;
  VecX stage_;
};

}  // namespace vcsim::integ
