// The world: rigid bodies, contact pairs, and the one state vector they share.
//
// State layout (docs/conventions.md): for each free body, 13 numbers
//   [ p (3) | q = (w, x, y, z) (4) | v (3) | omega (3) ]
// with p, v those of the centre of mass and omega the angular velocity, all in the world frame, and q
// the attitude of the body (centre-of-mass) frame. Then, for each contact pair, its own internal states
// (bristle deflections, dwell, relaxation...) followed by one engine-owned state: the elastic energy
// stored in that contact (the integral of the stiffness part's power).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "contact/contact_pair.h"
#include "engine/prescribed.h"
#include "geometry/interference.h"
#include "geometry/pose.h"
#include "integrators/explicit_rk.h"

namespace vcsim {

using integ::VecX;
constexpr int kBodyStateSize = 13;

// The parts of a free body's 13 states at offset o of a state vector (layout above): writable views of a VecX,
// read-only ones of a const VecX (also of derivatives and tolerance vectors, which share the layout).
template <class V>
auto body_position(V& x, int o) { return x.template segment<3>(o); }
template <class V>
auto body_quaternion(V& x, int o) { return x.template segment<4>(o + 3); }  // (w, x, y, z)
template <class V>
auto body_velocity(V& x, int o) { return x.template segment<3>(o + 7); }
template <class V>
auto body_angular_velocity(V& x, int o) { return x.template segment<3>(o + 10); }
inline Quat body_attitude(const VecX& x, int o) { return Quat(x[o + 3], x[o + 4], x[o + 5], x[o + 6]); }

struct RigidBody {
  std::string name;
  bool fixed = false;
  double mass = 0;
  Mat3 inertia_body = Mat3::Identity();  // about the centre of mass, body axes
  Mat3 inertia_body_inverse = Mat3::Identity();
  Vec3 external_force = Vec3::Zero();    // world frame, at the centre of mass
  Vec3 external_torque = Vec3::Zero();   // world frame
  Pose fixed_pose;                       // used when fixed (the centre-of-mass frame)
  // A fixed body's prescribed path (engine/prescribed.h): its body frame starts at initial_pose and the
  // centre-of-mass frame sits at com_offset in it.
  std::optional<MotionSpec> motion;
  Pose initial_pose, com_offset;
  int state_offset = -1;                 // into the world state; -1 for fixed bodies
  geo::BodyGeometry geometry;            // in the centre-of-mass frame
};

struct ContactSlot {
  std::string name;  // "<body_i>__<body_j>"
  std::string model;
  int body_i = -1, body_j = -1;
  int state_offset = -1;  // model states, then 1 energy state
  int num_model_states = 0;
  std::unique_ptr<contact::ContactPair> pair;
};

// A load (LoadSpec) on body `body`; `point` in the centre-of-mass frame.
struct AppliedLoad {
  int body = -1;
  double start = 0;  // s: the load acts from here, its profiles' time counted from it (+inf: waiting for its switch)
  bool body_frame = false;
  std::optional<Vec3> point;
  Vec3Profile force, torque;
};

struct Energies {
  double kinetic = 0, potential = 0, contact = 0;
  double total() const { return kinetic + potential + contact; }
};

class World {
 public:
  std::vector<RigidBody> bodies;
  std::vector<ContactSlot> contacts;
  Vec3 gravity = Vec3(0, 0, -9.81);
  std::optional<GravitySpec> gravity_profile;  // when gravity varies in time
  std::vector<AppliedLoad> loads;

  // Assigns state offsets; call after bodies and contacts are in place.
  void finalize_layout();
  int state_size() const { return state_size_; }
  VecX initial_state(const std::vector<Pose>& poses, const std::vector<Vec3>& velocities,
                     const std::vector<Vec3>& angular_velocities) const;

  // Pose and twist of a body's centre-of-mass frame at time t (t matters only for a fixed body with a motion).
  contact::BodyKinematics kinematics(const VecX& x, int body, double t = 0) const;
  Vec3 gravity_at(double t) const { return gravity_profile ? vcsim::gravity_at(*gravity_profile, t) : gravity; }
  // Times where a load, a motion or the gravity has a kink or a jump, sorted: an adaptive run steps onto them.
  std::vector<double> breakpoints() const;

  // dx/dt = f(t, x). Pure: safe to call at every integrator stage. If results is non-null it
  // receives each contact's result (for output).
  void derivative(double t, const VecX& x, VecX& dxdt,
                  std::vector<contact::ContactResult>* results = nullptr) const;
  // Quaternion renormalisation, applied after every step (docs/conventions.md, "drift policy").
  void project(VecX& x) const;
  // Components whose derivative is a velocity (positions, quaternions): for semi-implicit Euler.
  std::vector<bool> kinematic_mask() const;
  integ::OdeSystem ode_system() const;
  // Per-contact memory update after an accepted step.
  void accept_step(double t, VecX& x);

  Energies energies(const VecX& x, double t = 0) const;
  // Is every force in the scene conservative or dissipative (no constant torques, loads, motions or varying gravity)?
  bool is_passive() const;

 private:
  int state_size_ = 0;
};

}  // namespace vcsim
