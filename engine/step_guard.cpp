#include "engine/step_guard.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include "contact/parameters.h"
#include "geometry/interference.h"

namespace vcsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A step is stable while the amplification's spectral radius is at most 1; 1e-9 absorbs the round-off
// of forming the matrix (its entries are O(1) sums of O(1) stage terms).
constexpr double kRadiusSlack = 1e-9;

// Walks a CSG tree: true when every primitive is smooth and curved (no flat faces).
bool all_curved(const geo::CsgNode& n) {
  if (n.op != geo::CsgNode::Op::Primitive) {
    for (const auto& c : n.children)
      if (!all_curved(c)) return false;
    return true;
  }
  using K = geo::PrimitiveKind;
  const K k = n.primitive.kind;
  return k == K::Sphere || k == K::Ellipsoid || k == K::Capsule || k == K::Torus;
}

// Bounds of a body's geometry in its centre-of-mass frame; empty() or huge when unbounded.
geo::Aabb body_bounds(const geo::BodyGeometry& g) {
  geo::Aabb box;
  for (const auto& c : g.cells) {
    const geo::Aabb b = geo::world_bounds(c, Pose{});
    box.min = box.min.cwiseMin(b.min);
    box.max = box.max.cwiseMax(b.max);
  }
  return box;
}

bool bounded(const geo::Aabb& b) { return !b.empty() && b.min.cwiseAbs().maxCoeff() < 1e100 && b.max.cwiseAbs().maxCoeff() < 1e100; }

}  // namespace

double step_amplification(integ::Method method, const LinearMode& mode, double h) {
  integ::OdeSystem sys;
  sys.derivative = [&](double, const integ::VecX& y, integ::VecX& dy) {
    dy.resize(2);
    dy(0) = y(1);
    dy(1) = -(mode.stiffness * y(0) + mode.damping * y(1)) / mode.mass;
  };
  sys.kinematic = {true, false};  // x is updated from the new velocity by semi-implicit Euler
  integ::Stepper stepper(method, 2);
  Eigen::Matrix2d A;
  for (int col = 0; col < 2; ++col) {
    integ::VecX y = integ::VecX::Zero(2);
    y(col) = 1;
    stepper.step(sys, 0, h, y);
    A.col(col) = y;
  }
  return Eigen::EigenSolver<Eigen::Matrix2d>(A, false).eigenvalues().cwiseAbs().maxCoeff();
}

double max_stable_step(integ::Method method, const LinearMode& mode) {
  const double rate = std::max(std::sqrt(mode.stiffness / mode.mass), mode.damping / mode.mass);
  if (!(rate > 0)) return kInf;
  const auto stable = [&](double h) { return step_amplification(method, mode, h) <= 1 + kRadiusSlack; };
  double lo = 1e-3 / rate;
  if (!stable(lo)) return 0;  // e.g. explicit Euler on an undamped oscillator: unstable at every step
  double hi = lo;
  for (int i = 0; i < 80 && stable(hi); ++i) lo = hi, hi *= 2;
  if (stable(hi)) return kInf;
  while (hi - lo > 1e-7 * lo) {
    const double mid = 0.5 * (lo + hi);
    (stable(mid) ? lo : hi) = mid;
  }
  return lo;
}

std::vector<ModeEstimate> estimate_contact_modes(const ContactGuardInput& in, integ::Method method) {
  std::vector<ModeEstimate> out;
  for (const contact::ContactMode& m : contact::linear_modes(in))
    out.push_back({in.name, m.mode, m.linear, max_stable_step(method, m.linear), m.formula, m.conditional});
  return out;
}

std::vector<ContactGuardInput> contact_guard_inputs(const Scenario& scenario, const World& world) {
  std::vector<ContactGuardInput> out;
  for (size_t k = 0; k < world.contacts.size() && k < scenario.contacts.size(); ++k) {
    const ContactSlot& c = world.contacts[k];
    const ContactSpec& spec = scenario.contacts[k];
    ContactGuardInput in;
    in.name = c.name;
    in.model = c.model;
    in.params = spec.resolved;
    const RigidBody* side[2] = {&world.bodies[c.body_i], &world.bodies[c.body_j]};
    double* mass[2] = {&in.mass_i, &in.mass_j};
    double* inertia[2] = {&in.inertia_i, &in.inertia_j};
    double* lever[2] = {&in.lever_i, &in.lever_j};
    double load[2] = {kInf, kInf};
    geo::Aabb box[2];
    const int index[2] = {c.body_i, c.body_j};
    for (int s = 0; s < 2; ++s) {
      const RigidBody& b = *side[s];
      box[s] = body_bounds(b.geometry);
      const double reach = bounded(box[s]) ? box[s].max.cwiseAbs().cwiseMax(box[s].min.cwiseAbs()).norm() : 0;
      if (b.fixed) {
        const auto kin = world.kinematics(VecX(), index[s], 0);  // a fixed body's state is its motion
        in.approach_speed += kin.velocity.norm() + kin.angular_velocity.norm() * reach;
        *mass[s] = *inertia[s] = kInf;
        continue;
      }
      const BodySpec& bs = scenario.bodies[index[s]];
      in.approach_speed += bs.velocity.norm() + bs.angular_velocity.norm() * reach;
      *mass[s] = b.mass;
      *inertia[s] = Eigen::SelfAdjointEigenSolver<Mat3>(b.inertia_body).eigenvalues()(0);
      // A lower bound of the distance from the centre of mass to the surface of a convex body.
      if (bounded(box[s])) *lever[s] = std::max(0.0, std::min((-box[s].min).minCoeff(), box[s].max.minCoeff()));
      load[s] = (b.mass * world.gravity + b.external_force).norm();
      // A gravity that varies: its largest magnitude over the run.
      if (const auto& gp = world.gravity_profile)
        load[s] = b.mass * (gp->tilting ? gp->magnitude
                                        : Vec3(profile_max_abs(gp->components[0]), profile_max_abs(gp->components[1]),
                                               profile_max_abs(gp->components[2])).norm()) +
                  b.external_force.norm();
      for (const AppliedLoad& l : world.loads)
        if (l.body == index[s])
          load[s] += Vec3(profile_max_abs(l.force[0]), profile_max_abs(l.force[1]), profile_max_abs(l.force[2])).norm();
    }
    // The static load is the weight of the free body (the lighter one when both are free).
    in.load = std::min(load[0], load[1]);
    if (std::isinf(in.load)) in.load = 0;
    // The contact's shape is that of the smaller bounded body.
    int small = -1;
    for (int s = 0; s < 2; ++s)
      if (bounded(box[s]) && (small < 0 || (box[s].max - box[s].min).prod() < (box[small].max - box[small].min).prod()))
        small = s;
    if (small >= 0) {
      Vec3 ext = box[small].max - box[small].min;
      std::sort(ext.data(), ext.data() + 3);
      // Curved when any cell of the body is (it may rest on that cell): the softer estimate, so no false alarm.
      const auto& geom = scenario.bodies[small == 0 ? c.body_i : c.body_j].geometry;
      bool curved = geom && all_curved(*geom);
      if (geom && geom->op == geo::CsgNode::Op::Union)
        for (const auto& cell : geom->children) curved = curved || all_curved(cell);
      if (curved) in.radius = 0.5 * ext(0);
      else in.flat_area = ext(0) * ext(1);  // the smallest face of its box: a lower bound of a resting face
    }
    out.push_back(in);
  }
  return out;
}

StepGuardReport check_step(const Scenario& scenario, const World& world) {
  StepGuardReport r;
  // An adaptive pair propagates the same solution as its fixed-step method: the same stability limits. Its error
  // control keeps the step stable by itself, so only the modes are reported (the run uses them to bound the step
  // across a contact onset), never a warning.
  const auto adaptive = integ::adaptive_method_from_name(scenario.integrator);
  const auto method = adaptive ? integ::propagating_method(*adaptive) : integ::method_from_name(scenario.integrator);
  if (!method) return r;
  for (const auto& in : contact_guard_inputs(scenario, world))
    for (auto& m : estimate_contact_modes(in, *method)) r.modes.push_back(std::move(m));
  for (size_t i = 0; i < r.modes.size(); ++i) {
    r.max_step_all = std::min(r.max_step_all, r.modes[i].max_step);
    if (!r.modes[i].conditional && r.modes[i].max_step < r.max_step)
      r.max_step = r.modes[i].max_step, r.limiting = static_cast<int>(i);
  }
  r.too_large = !adaptive && r.limiting >= 0 && scenario.step > r.max_step;
  if (r.too_large) {
    const ModeEstimate& m = r.modes[r.limiting];
    std::ostringstream w;
    w << "step " << scenario.step << " s is beyond " << scenario.integrator << "'s stability limit "
      << brief_number(m.max_step) << " s for the " << m.mode << " mode of contact '" << m.contact << "' (" << m.formula
      << "); try <= " << brief_number(0.9 * m.max_step) << " s, or the error-controlled integrator: dopri5 "
      << "(docs/reliability.md, docs/integration.md)";
    r.warning = w.str();
  }
  return r;
}

}  // namespace vcsim
