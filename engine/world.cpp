#include "engine/world.h"

#include <algorithm>
#include <cmath>

namespace vcsim {
namespace {


}  // namespace

void World::finalize_layout() {
  int offset = 0;
  for (auto& b : bodies) {
    b.state_offset = b.fixed ? -1 : offset;
    if (!b.fixed) offset += kBodyStateSize;
  }
  for (auto& c : contacts) {
    c.num_model_states = c.pair->num_states();
    c.state_offset = offset;
    offset += c.num_model_states + 1;
  }
  state_size_ = offset;
}

VecX World::initial_state(const std::vector<Pose>& poses, const std::vector<Vec3>& velocities,
                          const std::vector<Vec3>& angular_velocities) const {
  VecX x = VecX::Zero(state_size_);
  for (size_t i = 0; i < bodies.size(); ++i) {
    const int o = bodies[i].state_offset;
    if (o < 0) continue;
    const Quat q = poses[i].rotation.normalized();
    body_position(x, o) = poses[i].position;
    body_quaternion(x, o) << q.w(), q.x(), q.y(), q.z();
    body_velocity(x, o) = velocities[i];
    body_angular_velocity(x, o) = angular_velocities[i];
  }
  for (const auto& c : contacts) c.pair->initial_states(x.data() + c.state_offset);
  return x;
}

contact::BodyKinematics World::kinematics(const VecX& x, int body, double t) const {
  const RigidBody& b = bodies[body];
  contact::BodyKinematics k;
  if (b.state_offset < 0) {
    if (!b.motion) {
      k.pose = b.fixed_pose;
      return k;
    }
    // The body frame's path, carried to the centre of mass: v_c = v_o + w x (R r_c).
    const PoseTwist m = motion_at(*b.motion, b.initial_pose, t);
    k.pose = m.pose.compose(b.com_offset);
    k.velocity = m.velocity + m.angular_velocity.cross(k.pose.position - m.pose.position);
    k.angular_velocity = m.angular_velocity;
    return k;
  }
  const int o = b.state_offset;
  k.pose.position = body_position(x, o);
  k.pose.rotation = body_attitude(x, o);
  k.velocity = body_velocity(x, o);
  k.angular_velocity = body_angular_velocity(x, o);
  return k;
}

void World::derivative(double t, const VecX& x, VecX& dxdt,
                       std::vector<contact::ContactResult>* results) const {
  dxdt.setZero(x.size());
  // Net force and torque (about the centre of mass) per body, world frame.
  std::vector<Vec3> force(bodies.size()), torque(bodies.size());
  const Vec3 g = gravity_at(t);
  for (size_t i = 0; i < bodies.size(); ++i) {
    force[i] = bodies[i].mass * g + bodies[i].external_force;
    torque[i] = bodies[i].external_torque;
  }
  for (const AppliedLoad& load : loads) {
    if (!(t >= load.start)) continue;
    const auto k = kinematics(x, load.body, t);
    const Mat3 R = k.pose.rotation.toRotationMatrix();
    Vec3 f = profile_value(load.force, t - load.start), tau = profile_value(load.torque, t - load.start);
    if (load.body_frame) f = R * f, tau = R * tau;
    force[load.body] += f;
    torque[load.body] += tau;
    if (load.point) torque[load.body] += (R * *load.point).cross(f);  // off the centre of mass
  }
  if (results) results->resize(contacts.size());
  for (size_t c = 0; c < contacts.size(); ++c) {
    const ContactSlot& slot = contacts[c];
    const auto ki = kinematics(x, slot.body_i, t);
    const auto kj = kinematics(x, slot.body_j, t);
    contact::ContactResult r;
    slot.pair->evaluate(t, ki, kj, x.data() + slot.state_offset, dxdt.data() + slot.state_offset, r);
    dxdt[slot.state_offset + slot.num_model_states] = r.elastic_power;
    // Thesis eq 3.4: the wrench acts on body i at the point of action; body j gets the opposite.
    force[slot.body_i] += r.force;
    torque[slot.body_i] += (r.point - ki.pose.position).cross(r.force) + r.couple;
    force[slot.body_j] -= r.force;
    torque[slot.body_j] -= (r.point - kj.pose.position).cross(r.force) + r.couple;
    if (results) (*results)[c] = std::move(r);
  }
  for (size_t i = 0; i < bodies.size(); ++i) {
    const RigidBody& b = bodies[i];
    const int o = b.state_offset;
    if (o < 0) continue;
    const Quat q = body_attitude(x, o);
    const Vec3 v = body_velocity(x, o);
    const Vec3 w = body_angular_velocity(x, o);
    const Mat3 R = q.toRotationMatrix();
    // Newton-Euler in the world frame: I_w w' = tau - w x (I_w w), with I_w = R I_b R^T.
    const Vec3 h = R * (b.inertia_body * (R.transpose() * w));
    const Vec3 w_dot = R * (b.inertia_body_inverse * (R.transpose() * (torque[i] - w.cross(h))));
    // q' = 1/2 (0, w) ⊗ q for a world-frame angular velocity.
    const Quat wq(0, w.x(), w.y(), w.z());
    const Quat q_dot = wq * q;
    body_position(dxdt, o) = v;
    body_quaternion(dxdt, o) << 0.5 * q_dot.w(), 0.5 * q_dot.x(), 0.5 * q_dot.y(), 0.5 * q_dot.z();
    body_velocity(dxdt, o) = force[i] / b.mass;
    body_angular_velocity(dxdt, o) = w_dot;
  }
}

void World::project(VecX& x) const {
  for (const auto& b : bodies) {
    if (b.state_offset < 0) continue;
    body_quaternion(x, b.state_offset).normalize();
  }
}

std::vector<bool> World::kinematic_mask() const {
  std::vector<bool> mask(state_size_, false);
  for (const auto& b : bodies) {
    if (b.state_offset < 0) continue;
    for (int k = 0; k < 7; ++k) mask[b.state_offset + k] = true;
  }
  return mask;
}

integ::OdeSystem World::ode_system() const {
  integ::OdeSystem sys;
  sys.derivative = [this](double t, const VecX& x, VecX& dx) { derivative(t, x, dx); };
  sys.project = [this](VecX& x) { project(x); };
  sys.kinematic = kinematic_mask();
  return sys;
}

void World::accept_step(double t, VecX& x) {
  for (auto& c : contacts)
    c.pair->accept_step(t, kinematics(x, c.body_i, t), kinematics(x, c.body_j, t), x.data() + c.state_offset);
}

std::vector<double> World::breakpoints() const {
  std::vector<double> out;
  for (const auto& load : loads) {
    if (!std::isfinite(load.start)) continue;  // waiting for its switch
    std::vector<double> own = {0};             // a switched load starts with a jump
    append_breakpoints(load.force, own), append_breakpoints(load.torque, own);
    for (double b : own) out.push_back(load.start + b);
  }
  for (const auto& b : bodies)
    if (b.motion) append_breakpoints(*b.motion, out);
  if (gravity_profile) append_breakpoints(*gravity_profile, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Energies World::energies(const VecX& x, double t) const {
  const Vec3 g = gravity_at(t);
  Energies e;
  for (const auto& b : bodies) {
    const int o = b.state_offset;
    if (o < 0) continue;
    const Vec3 p = body_position(x, o);
    const Vec3 v = body_velocity(x, o);
    const Vec3 w = body_angular_velocity(x, o);
    const Mat3 R = body_attitude(x, o).toRotationMatrix();
    e.kinetic += 0.5 * b.mass * v.squaredNorm() + 0.5 * w.dot(R * (b.inertia_body * (R.transpose() * w)));
    // Gravity and constant external forces are conservative: U = -F . p.
    e.potential -= (b.mass * g + b.external_force).dot(p);
  }
  for (const auto& c : contacts) e.contact += x[c.state_offset + c.num_model_states];
  return e;
}

bool World::is_passive() const {
  if (!loads.empty() || gravity_profile) return false;
  for (const auto& b : bodies)
    if ((!b.fixed && b.external_torque.squaredNorm() > 0) || b.motion) return false;
  return true;
}

}  // namespace vcsim
