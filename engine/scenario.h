// A scenario as plain data: what the YAML file says, validated, in SI units.
// engine/io/scenario_loader.cpp fills it; engine/build_world.cpp builds a World from it.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contact/model_params.h"
#include "engine/input_error.h"
#include "engine/prescribed.h"
#include "geometry/csg.h"
#include "geometry/pose.h"

namespace vcsim {

struct BodySpec {
  std::string name;
  bool fixed = false;
  // Mass properties: mass + inertia, mass alone (a uniform body of that mass: the inertia from the geometry), or
  // density (both from the geometry).
  std::optional<double> mass;
  std::optional<Mat3> inertia;       // about the centre of mass, body axes
  std::optional<double> density;
  Vec3 center_of_mass = Vec3::Zero();  // in the body frame (where the geometry is defined)
  bool center_of_mass_given = false;
  // Initial state. position/orientation place the body frame in the world.
  Pose pose;
  Vec3 velocity = Vec3::Zero();          // of the centre of mass, world frame
  Vec3 angular_velocity = Vec3::Zero();  // world frame
  Vec3 external_force = Vec3::Zero();    // constant, world frame, at the centre of mass
  Vec3 external_torque = Vec3::Zero();   // constant, world frame
  std::optional<geo::CsgNode> geometry;
  std::string material;
  std::optional<MotionSpec> motion;      // fixed bodies only: a prescribed path instead of a fixed pose
  geo::SourceLocation where;
};

// A contact: its parameters as written (thesis names; what `vcsim check` reports) and resolved once, with the
// defaults and rules applied, into what the model uses.
struct ContactSpec {
  std::string body_i, body_j;  // the wrench reported is the one acting on body_i
  std::string model;           // "point", "point_vertices", "volumetric", "cellular"
  std::map<std::string, double> params;
  std::map<std::string, std::string> origin;  // where each given parameter came from ("key.path (file:line)")
  geo::SourceLocation where;
  contact::ModelParams resolved;              // contact::resolve_parameters(model, params)
};

struct MaterialPairSpec {
  std::string material_i, material_j;
  std::string model;
  std::map<std::string, double> params;
  geo::SourceLocation where;
};

// A scripted impulse (docs/scenario-format.md, "Impulses"): a velocity jump of one body, applied between
// accepted steps (never inside integrator stages), at a time or whenever a signal of a body crosses a level.
// Δv = linear / m, Δω = I_world⁻¹ angular (Xie & Chakraborty's external impulses; docs/sources.md).
struct ImpulseSpec {
  std::string name;      // "impulse_<index>" unless given
  std::string body;      // receives the impulse
  Vec3 linear = Vec3::Zero();   // N s, world frame, through the centre of mass
  Vec3 angular = Vec3::Zero();  // N m s, world frame
  // Trigger: `at` (once), or a crossing of `signal` of `signal_body` through `level` (every time).
  std::optional<double> at;        // s
  std::string signal_body;         // defaults to `body`
  std::string signal;              // "velocity.x" ... "angular_velocity.z", "position.z"
  double level = 0;
  int direction = 0;               // -1 falling (from above to <= level), +1 rising, 0 either
  std::optional<double> until;     // s: a crossing trigger fires only at accepted times t <= until
  geo::SourceLocation where;
};

// Error control of the adaptive integrators (dopri5, bs23; docs/integration.md). A state component's local error
// is held below abs_tol of its kind + rel_tol |x|.
struct AdaptiveSettings {
  double rel_tol = 1e-6;
  double abs_position = 1e-8;          // m
  double abs_quaternion = 1e-8;        // 1 (unit quaternion components)
  double abs_velocity = 1e-6;          // m/s
  double abs_angular_velocity = 1e-6;  // rad/s
  double abs_friction = 1e-6;          // contact model states, relative to each one's scale (bristle: 1/σ0)
  double max_step = 0;                 // s; 0: duration / 50 (Simulink's default)
  double initial_step = 0;             // s; 0: chosen from the initial derivatives (Hairer's hinit)
};

struct Scenario {
  std::string name;
  std::string source_file;
  std::string source_text;  // the full YAML after overrides, stored in the output
  double duration = 0;
  double step = 0;                // the fixed step; for an adaptive integrator the first trial step (0: automatic)
  std::string integrator = "rk4";
  bool adaptive = false;           // integrator is dopri5 or bs23
  AdaptiveSettings adaptive_settings;
  double output_interval = 0;  // 0: every step
  std::string output_file;
  Vec3 gravity = Vec3(0, 0, -9.81);          // at t = 0 (and always, without gravity_profile)
  std::optional<GravitySpec> gravity_profile;  // a gravity that varies in time
  double geometry_tolerance = 1e-3;  // relative accuracy target for interference queries
  std::vector<BodySpec> bodies;
  std::vector<ContactSpec> contacts;
  std::vector<MaterialPairSpec> material_pairs;
  std::vector<ImpulseSpec> impulses;
  std::vector<LoadSpec> loads;
  std::vector<InputWarning> warnings;  // from the loader; the checks before a run add theirs (engine/preflight.h)
};

}  // namespace vcsim
