// What a scenario prescribes as functions of time (docs/scenario-format.md, "Loads", "Prescribed motion",
// "Gravity"): forces and torques on bodies, the path of a fixed body, and a gravity that varies. Plain data and
// pure functions of t; the world (engine/world.cpp) applies them inside the right-hand side, so every integrator
// stage sees them.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/time_profile.h"
#include "geometry/csg.h"
#include "geometry/pose.h"

namespace vcsim {

using Vec3Profile = std::array<TimeProfile, 3>;  // x, y, z components
Vec3 profile_value(const Vec3Profile& p, double t);
Vec3 profile_rate(const Vec3Profile& p, double t);
Vec3Profile constant_profile(const Vec3& v);

// A force and a torque on one body.
struct LoadSpec {
  std::string name;   // "load_<index>" unless given
  std::string body;
  bool body_frame = false;            // components turn with the body; else world axes
  std::optional<Vec3> point;          // body frame (where the geometry is defined); none: the centre of mass
  Vec3Profile force = constant_profile(Vec3::Zero());   // N
  Vec3Profile torque = constant_profile(Vec3::Zero());  // N m
  // Optional switch, as an impulse's crossing trigger: off until `signal` of `signal_body` first crosses `level`
  // between two accepted states; the profiles' time then starts at the switch.
  std::string signal_body, signal;       // signal empty: on from t = 0
  double level = 0;
  int direction = 0;                     // -1 falling, +1 rising, 0 either
  geo::SourceLocation where;
};

// The path of a fixed body: its body frame (where the geometry is defined) at time t.
struct MotionSpec {
  enum class Kind { Velocity, Profiles, Table };
  Kind kind = Kind::Velocity;
  // Velocity: the frame's origin moves at `velocity` and the frame turns at `angular_velocity` about it (world).
  Vec3 velocity = Vec3::Zero(), angular_velocity = Vec3::Zero();
  // Profiles: the origin displaced by `displacement(t)` (world axes, from the initial position), the frame turned by
  // `angle(t)` (rad) about the world `axis` through the origin.
  Vec3Profile displacement = constant_profile(Vec3::Zero());
  Vec3 axis = Vec3::UnitZ();
  TimeProfile angle = constant_profile(0);
  // Table: positions and quaternion components as cubic splines through the knots; the quaternion is normalised.
  Vec3Profile table_position;
  std::array<TimeProfile, 4> table_quaternion;  // w, x, y, z
};

struct PoseTwist {
  Pose pose;
  Vec3 velocity = Vec3::Zero();          // of the frame's origin, world
  Vec3 angular_velocity = Vec3::Zero();  // world
};
// The body frame at t, starting from `initial` (Velocity and Profiles kinds; a Table gives its own poses).
PoseTwist motion_at(const MotionSpec& m, const Pose& initial, double t);

// A gravity that varies: per-axis profiles, or a tilting world, (0, 0, -magnitude) turned by tilt(t) (rad) about
// `tilt_axis`.
struct GravitySpec {
  bool tilting = false;
  Vec3Profile components = constant_profile(Vec3(0, 0, -9.81));  // m/s^2
  double magnitude = 9.81;
  Vec3 tilt_axis = Vec3::UnitY();
  TimeProfile tilt = constant_profile(0);
};
Vec3 gravity_at(const GravitySpec& g, double t);

// Kinks and jumps of every profile, sorted and unique: an adaptive run lands on them.
void append_breakpoints(const Vec3Profile& p, std::vector<double>& out);
void append_breakpoints(const MotionSpec& m, std::vector<double>& out);
void append_breakpoints(const GravitySpec& g, std::vector<double>& out);

}  // namespace vcsim
