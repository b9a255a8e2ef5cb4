// Free rigid-body dynamics of the engine against conservation laws and closed forms.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/world.h"

using namespace vcsim;

namespace {

World single_body(const Mat3& inertia, double mass = 1.0, Vec3 gravity = Vec3::Zero()) {
  World w;
  w.gravity = gravity;
  RigidBody b;
  b.name = "body";
  b.mass = mass;
  b.inertia_body = inertia;
  b.inertia_body_inverse = inertia.inverse();
  w.bodies.push_back(b);
  w.finalize_layout();
  return w;
}

// Complete elliptic integral of the first kind by the arithmetic-geometric mean.
double elliptic_K(double k2) {
  double a = 1, b = std::sqrt(1 - k2);
  for (int i = 0; i < 40; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return M_PI / (2 * a);
}

}  // namespace

TEST_CASE("Torque-free asymmetric body conserves energy and momentum and flips at the closed-form period") {
  const double I1 = 1, I2 = 2, I3 = 3;
  World world = single_body(Vec3(I1, I2, I3).asDiagonal());
  const Quat q0 = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()));
  const Vec3 w_body0(0.1, 3.0, 0.1);  // near the intermediate axis: the Dzhanibekov flip
  VecX x = world.initial_state({Pose{Vec3(1, 2, 3), q0}}, {Vec3(0.1, 0, 0)}, {q0 * w_body0});

  const double two_E = I1 * w_body0[0] * w_body0[0] + I2 * w_body0[1] * w_body0[1] + I3 * w_body0[2] * w_body0[2];
  const double M2 = std::pow(I1 * w_body0[0], 2) + std::pow(I2 * w_body0[1], 2) + std::pow(I3 * w_body0[2], 2);
  REQUIRE(M2 > two_E * I2);  // Landau & Lifshitz §37 case: axis 3 keeps its sign, axis 2 flips
  // Landau & Lifshitz eq 37.10: w2 ∝ sn(tau, k), tau = t sqrt((I3-I2)(M^2-2E I1)/(I1 I2 I3)).
  const double rate = std::sqrt((I3 - I2) * (M2 - two_E * I1) / (I1 * I2 * I3));
  const double k2 = (I2 - I1) * (I3 * two_E - M2) / ((I3 - I2) * (M2 - two_E * I1));
  const double flip_interval = 2 * elliptic_K(k2) / rate;  // sn changes sign every 2K

  const auto L0 = [&] {
    const Mat3 R = q0.toRotationMatrix();
    return Vec3(R * (Vec3(I1, I2, I3).asDiagonal() * w_body0));
  }();
  const double E0 = world.energies(x).kinetic;

  integ::Stepper stepper(integ::Method::RK4, world.state_size());
  const auto sys = world.ode_system();
  const double h = 1e-3;
  double max_dE = 0, max_dL = 0, prev_w2 = w_body0[1], prev_t = 0;
  std::vector<double> crossings;
  for (int i = 1; i <= 20000; ++i) {
    stepper.step(sys, (i - 1) * h, h, x);
    const double t = i * h;
    const auto k = world.kinematics(x, 0);
    const Mat3 R = k.pose.rotation.toRotationMatrix();
    const Vec3 wb = R.transpose() * k.angular_velocity;
    const Vec3 L = R * (Vec3(I1, I2, I3).asDiagonal() * wb);
    max_dE = std::max(max_dE, std::abs(world.energies(x).kinetic - E0) / E0);
    max_dL = std::max(max_dL, (L - L0).norm() / L0.norm());
    if ((wb[1] > 0) != (prev_w2 > 0)) crossings.push_back(prev_t + h * prev_w2 / (prev_w2 - wb[1]));
    prev_w2 = wb[1];
    prev_t = t;
  }
  INFO("relative energy drift " << max_dE << ", momentum drift " << max_dL);
  // Acceptance: conserved to 1e-8 relative with RK4 at 1 ms over 20 s (the kinetic energy includes the
  // translational part, which is exactly constant here).
  CHECK(max_dE < 1e-8);
  CHECK(max_dL < 1e-8);
  REQUIRE(crossings.size() >= 3);
  const double measured = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  INFO("flip interval measured " << measured << " s, closed form " << flip_interval << " s");
  CHECK(std::abs(measured - flip_interval) / flip_interval < 0.01);
}

TEST_CASE("Free fall of a body in the world matches the closed form") {
  const Vec3 g(0.5, -1.0, -9.81);
  World world = single_body(Mat3::Identity() * 0.1, 2.0, g);
  const Vec3 p0(0, 0, 10), v0(1, 2, 3);
  VecX x = world.initial_state({Pose{p0, Quat::Identity()}}, {v0}, {Vec3(0, 0, 1)});
  integ::Stepper stepper(integ::Method::BogackiShampine3, world.state_size());
  const auto sys = world.ode_system();
  const double h = 1e-3;
  const double E0 = world.energies(x).total();
  for (int i = 0; i < 1000; ++i) stepper.step(sys, i * h, h, x);
  const auto k = world.kinematics(x, 0);
  // A third-order method integrates the quadratic trajectory exactly, up to round-off.
  CHECK((k.pose.position - (p0 + v0 + 0.5 * g)).norm() < 1e-11);
  CHECK((k.velocity - (v0 + g)).norm() < 1e-12);
  // Spin about a principal axis is steady: the attitude is a rotation by 1 rad about z.
  CHECK(k.pose.rotation.angularDistance(Quat(Eigen::AngleAxisd(1.0, Vec3::UnitZ()))) < 1e-9);
  CHECK(world.energies(x).total() == Approx(E0).epsilon(1e-12));
}

TEST_CASE("Constant external force and torque") {
  // A torque about a principal axis from rest: w = tau t / I, angle = tau t^2 / (2 I).
  World world = single_body(Vec3(0.2, 0.3, 0.4).asDiagonal(), 3.0);
  world.bodies[0].external_force = Vec3(3, 0, 0);
  world.bodies[0].external_torque = Vec3(0, 0, 0.8);
  VecX x = world.initial_state({Pose{}}, {Vec3::Zero()}, {Vec3::Zero()});
  integ::Stepper stepper(integ::Method::RK4, world.state_size());
  const auto sys = world.ode_system();
  for (int i = 0; i < 500; ++i) stepper.step(sys, i * 1e-3, 1e-3, x);
  const auto k = world.kinematics(x, 0);
  CHECK(k.velocity.x() == Approx(0.5).epsilon(1e-12));        // F t / m
  CHECK(k.pose.position.x() == Approx(0.125).epsilon(1e-12)); // F t^2 / (2 m)
  CHECK(k.angular_velocity.z() == Approx(1.0).epsilon(1e-12));
  const double angle = 2 * std::atan2(k.pose.rotation.z(), k.pose.rotation.w());
  CHECK(angle == Approx(0.25).epsilon(1e-9));
  CHECK_FALSE(world.is_passive());
}

TEST_CASE("Quaternion drift policy: renormalised after every step") {
  // Without projection, explicit Euler inflates |q| by (1 + |w|^2 h^2 / 4) per step; the engine's
  // projection keeps it at 1 to round-off, whatever the integrator.
  World world = single_body(Vec3(1, 2, 3).asDiagonal());
  VecX x = world.initial_state({Pose{}}, {Vec3::Zero()}, {Vec3(5, 1, 2)});
  auto sys = world.ode_system();
  integ::Stepper stepper(integ::Method::Euler, world.state_size());
  VecX unprojected = x;
  auto raw = sys;
  raw.project = nullptr;
  integ::Stepper raw_stepper(integ::Method::Euler, world.state_size());
  for (int i = 0; i < 200; ++i) {
    stepper.step(sys, i * 1e-2, 1e-2, x);
    raw_stepper.step(raw, i * 1e-2, 1e-2, unprojected);
  }
  CHECK(std::abs(x.segment<4>(3).norm() - 1) < 1e-14);
  CHECK(unprojected.segment<4>(3).norm() > 1.01);  // the drift the policy removes is real
}
