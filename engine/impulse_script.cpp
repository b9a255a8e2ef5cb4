#include "engine/impulse_script.h"

#include <algorithm>
#include <limits>

namespace vcsim {

ImpulseScript::ImpulseScript(const Scenario& scenario, World& world) : world_(world), specs_(scenario.impulses) {
  for (const auto& s : specs_) {
    body_.push_back(crossing(s.body, "position.x", 0, 0).body);
    crossing_.push_back(s.at ? Crossing{} : crossing(s.signal_body, s.signal, s.level, s.direction));
  }
  done_.assign(specs_.size(), false);
  tallies_.assign(specs_.size(), ImpulseTally{});
  for (size_t k = 0; k < scenario.loads.size(); ++k) {
    const LoadSpec& l = scenario.loads[k];
    if (l.signal.empty()) continue;
    switch_.push_back(crossing(l.signal_body, l.signal, l.level, l.direction));
    switch_load_.push_back(static_cast<int>(k));
    world_.loads[k].start = std::numeric_limits<double>::infinity();  // off until the switch
  }
}

ImpulseScript::Crossing ImpulseScript::crossing(const std::string& body, const std::string& signal, double level,
                                                int direction) const {
  static const char* kSignals[] = {"position.x", "position.y", "position.z", "velocity.x", "velocity.y",
                                   "velocity.z", "angular_velocity.x", "angular_velocity.y", "angular_velocity.z"};
  Crossing c{-1, -1, level, direction, 0};
  for (size_t i = 0; i < world_.bodies.size(); ++i)
    if (world_.bodies[i].name == body) c.body = static_cast<int>(i);
  for (int k = 0; k < 9; ++k)
    if (signal == kSignals[k]) c.component = k;
  if (c.body < 0 || c.component < 0)  // the loader checked both
    throw std::runtime_error("trigger: no body '" + body + "' or signal '" + signal + "'");
  return c;
}

double ImpulseScript::signal(const Crossing& c, const VecX& x) const {
  const auto k = world_.kinematics(x, c.body);
  const int i = c.component;
  return i < 3 ? k.pose.position[i] : i < 6 ? k.velocity[i - 3] : k.angular_velocity[i - 6];
}

// Δv = P/m, Δω = I_world⁻¹ L with I_world = R I_body Rᵀ (the impulse-momentum relations of a rigid body).
int ImpulseScript::fire(size_t i, double t, VecX& x) {
  const RigidBody& b = world_.bodies[body_[i]];
  const int off = b.state_offset;
  const Mat3 R = body_attitude(x, off).normalized().toRotationMatrix();
  body_velocity(x, off) += specs_[i].linear / b.mass;
  body_angular_velocity(x, off) += R * b.inertia_body_inverse * R.transpose() * specs_[i].angular;
  ImpulseTally& tally = tallies_[i];
  ++tally.count;
  tally.last_time = t;
  tally.linear += specs_[i].linear;
  tally.angular += specs_[i].angular;
  return 1;
}

double ImpulseScript::next_time_trigger(double t) const {
  double next = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].at && !done_[i] && *specs_[i].at > t) next = std::min(next, *specs_[i].at);
  return next;
}

bool ImpulseScript::crosses(const Crossing& c, const VecX& x) const {
  const double now = signal(c, x) - c.level, before = c.previous - c.level;
  const bool falls = before > 0 && now <= 0, rises = before < 0 && now >= 0;
  return (c.direction <= 0 && falls) || (c.direction >= 0 && rises);
}

bool ImpulseScript::crossing_due(double t_new, const VecX& x_new) const {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (!specs_[i].at && (!specs_[i].until || t_new <= *specs_[i].until) && crosses(crossing_[i], x_new)) return true;
  for (size_t k = 0; k < switch_.size(); ++k)
    if (!std::isfinite(world_.loads[switch_load_[k]].start) && crosses(switch_[k], x_new)) return true;
  return false;
}

int ImpulseScript::apply(double t, double h, VecX& x) {
  int fired = 0;
  std::vector<size_t> due;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const ImpulseSpec& s = specs_[i];
    if (s.at) {
      if (!done_[i] && t >= *s.at - 0.5 * h) due.push_back(i), done_[i] = true;
    } else if (t > 0 && (!s.until || t <= *s.until) && crosses(crossing_[i], x)) {  // a crossing needs a previous state
      due.push_back(i);
    }
  }
  // Load switches judged on the same state as the impulses, before any of them.
  for (size_t k = 0; k < switch_.size(); ++k) {
    AppliedLoad& load = world_.loads[switch_load_[k]];
    if (t > 0 && !std::isfinite(load.start) && crosses(switch_[k], x)) load.start = t, ++loads_switched_;
  }
  for (size_t i : due) fired += fire(i, t, x);  // all triggers judged on the state before any of them
  for (size_t i = 0; i < specs_.size(); ++i)
    if (!specs_[i].at) crossing_[i].previous = signal(crossing_[i], x);
  for (auto& c : switch_) c.previous = signal(c, x);
  return fired;
}

}  // namespace vcsim
