// From a validated Scenario to a World: bodies with mass properties (given, or computed from the
// geometry and a density), geometry re-expressed about the centre of mass, and contact pairs.
#include <filesystem>
#include <limits>

#include "contact/make_contact.h"
#include "contact/model_params.h"
#include "engine/build_world.h"
#include "engine/input_error.h"

namespace vcsim {
namespace {

// A pair in contact at t = 0 is a placement: its contact episode opens at t = 0 with no relaxation of the overlap.
// If its bodies do not move relative to each other (slip at the contact point and the relative turn, over the
// bodies' reach, below the model's velocity tolerance v_e) and the scenario does not set s_dw0, it starts in full
// stiction, with the bristles holding the static friction the placement needs when that is determinate (one free
// body with this one contact) (docs/contact-models.md, "Initial contact state").
void start_placed_contacts(const Scenario& scenario, BuiltWorld& built) {
  World& world = built.world;
  VecX& x = built.initial_state;
  std::vector<contact::ContactResult> results;
  VecX dxdt(x.size());
  world.derivative(0, x, dxdt, &results);
  std::vector<size_t> resting;
  std::vector<contact::FrictionParams> friction;
  for (size_t k = 0; k < world.contacts.size(); ++k) {
    const ContactSpec& spec = scenario.contacts[k];
    const contact::ContactResult& r = results[k];
    if (!r.in_contact) continue;
    ContactSlot& c = world.contacts[k];
    const auto ki = world.kinematics(x, c.body_i, 0), kj = world.kinematics(x, c.body_j, 0);
    c.pair->accept_step(0, ki, kj, x.data() + c.state_offset);  // opens the episode (latches v_in)
    c.pair->start_placed(x.data() + c.state_offset, false, Vec3::Zero());
    if (spec.params.count("s_dw0")) continue;
    const Vec3 slip = contact::point_velocity(ki, r.point) - contact::point_velocity(kj, r.point);
    double reach = 0;
    for (const int b : {c.body_i, c.body_j})
      for (const auto& cell : world.bodies[b].geometry.cells) {
        const geo::Aabb box = geo::world_bounds(cell, Pose{});
        const double extent = std::max(box.max.cwiseAbs().maxCoeff(), box.min.cwiseAbs().maxCoeff());
        if (extent < 1e100) reach = std::max(reach, extent);
      }
    const contact::FrictionParams& fp = spec.resolved.friction;
    if (slip.norm() > fp.v_e || (ki.angular_velocity - kj.angular_velocity).norm() * reach > fp.v_e) continue;
    c.pair->start_placed(x.data() + c.state_offset, true, Vec3::Zero());
    resting.push_back(k);
    friction.push_back(fp);
  }
  if (resting.empty()) return;
  // The forces of the opened episodes: at rest with no bristle deflection a contact force is all normal, f_n n.
  world.derivative(0, x, dxdt, &results);
  std::vector<int> touching(world.bodies.size(), 0);
  for (size_t k = 0; k < world.contacts.size(); ++k)
    if (results[k].in_contact) ++touching[world.contacts[k].body_i], ++touching[world.contacts[k].body_j];
  for (size_t m = 0; m < resting.size(); ++m) {
    const ContactSlot& c = world.contacts[resting[m]];
    const contact::ContactResult& r = results[resting[m]];
    const contact::FrictionParams& fp = friction[m];
    const double f_n = r.force.norm();
    const bool free_i = !world.bodies[c.body_i].fixed, free_j = !world.bodies[c.body_j].fixed;
    const int free = free_i && !free_j ? c.body_i : free_j && !free_i ? c.body_j : -1;
    if (free < 0 || touching[free] != 1 || !(f_n > 0)) continue;  // statically indeterminate: bristles start at 0
    // The friction on the free body balances the tangential part of its other forces: on body i it is
    // -f_n sigma0 z (eq 3.42 with z' = 0), so z = F_t / (sigma0 f_n); the opposite for body j. Past mu_s the body
    // slides from the start, with the bristle at its limit.
    const Vec3 n = r.force / f_n;
    const double sign = free == c.body_i ? 1.0 : -1.0;
    const Vec3 other = world.bodies[free].mass * body_velocity(dxdt, world.bodies[free].state_offset) - sign * r.force;
    Vec3 bristle = sign * (other - other.dot(n) * n) / (fp.sigma0 * f_n);
    if (fp.sigma0 * bristle.norm() > fp.mu_s) bristle *= fp.mu_s / (fp.sigma0 * bristle.norm());
    c.pair->start_placed(x.data() + c.state_offset, true, bristle);
  }
}

}  // namespace

BuiltWorld build_world(const Scenario& scenario) {
  BuiltWorld built;
  World& world = built.world;
  world.gravity = scenario.gravity;
  world.gravity_profile = scenario.gravity_profile;
  const std::string base_dir = std::filesystem::path(scenario.source_file).parent_path().string();

  std::vector<Pose> poses, com_offsets;
  std::vector<Vec3> velocities, angular_velocities;
  geo::MeshCache meshes;
  for (const BodySpec& spec : scenario.bodies) {
    RigidBody body;
    body.name = spec.name;
    body.fixed = spec.fixed;
    body.external_force = spec.external_force;
    body.external_torque = spec.external_torque;
    geo::BodyGeometry geometry;
    if (spec.geometry) geometry = geo::make_body_geometry(*spec.geometry, base_dir, &meshes);

    Vec3 com = spec.center_of_mass;
    if ((spec.density || (spec.mass && !spec.inertia)) && !spec.fixed) {
      // A density, or a mass alone: a uniform body of that shape (the inertia scales with the mass).
      const geo::MassProperties mp = geo::mass_properties(geometry, spec.density.value_or(1.0), scenario.geometry_tolerance);
      body.mass = mp.mass;
      body.inertia_body = spec.density ? mp.inertia : mp.inertia * (*spec.mass / mp.mass);
      if (!spec.center_of_mass_given) com = mp.center_of_mass;
    }
    if (spec.mass) body.mass = *spec.mass;
    if (spec.inertia) body.inertia_body = *spec.inertia;
    if (!body.fixed) body.inertia_body_inverse = body.inertia_body.inverse();

    // The state tracks the centre-of-mass frame: geometry is shifted so that the CoM is its origin.
    const Pose com_offset{com, Quat::Identity()};
    body.geometry = geo::transformed(geometry, com_offset);
    const Pose com_pose = spec.pose.compose(com_offset);
    body.fixed_pose = com_pose;
    body.motion = spec.motion;
    body.initial_pose = spec.pose;
    body.com_offset = com_offset;
    com_offsets.push_back(com_offset);
    poses.push_back(com_pose);
    velocities.push_back(spec.velocity);
    angular_velocities.push_back(spec.angular_velocity);
    world.bodies.push_back(std::move(body));
  }

  auto body_index = [&](const std::string& name) {
    for (size_t i = 0; i < world.bodies.size(); ++i)
      if (world.bodies[i].name == name) return static_cast<int>(i);
    return -1;
  };
  for (const LoadSpec& spec : scenario.loads) {
    AppliedLoad load;
    load.body = body_index(spec.body);
    if (!spec.signal.empty()) load.start = std::numeric_limits<double>::infinity();  // switched on by ImpulseScript
    load.body_frame = spec.body_frame;
    if (spec.point) load.point = *spec.point - com_offsets[load.body].position;
    load.force = spec.force;
    load.torque = spec.torque;
    world.loads.push_back(std::move(load));
  }
  for (const ContactSpec& spec : scenario.contacts) {
    ContactSlot slot;
    slot.body_i = body_index(spec.body_i);
    slot.body_j = body_index(spec.body_j);
    slot.model = spec.model;
    slot.name = spec.body_i + "__" + spec.body_j;
    const RigidBody& bi = world.bodies[slot.body_i];
    const RigidBody& bj = world.bodies[slot.body_j];
    contact::ContactSides sides{bi.geometry, bj.geometry, bi.mass, bj.mass,
                                scenario.bodies[slot.body_i].geometry, scenario.bodies[slot.body_j].geometry,
                                scenario.geometry_tolerance, com_offsets[slot.body_i],
                                com_offsets[slot.body_j]};
    slot.pair = contact::make_contact(spec.model, spec.resolved, sides, spec.where);
    world.contacts.push_back(std::move(slot));
  }
  world.finalize_layout();
  built.initial_state = world.initial_state(poses, velocities, angular_velocities);
  start_placed_contacts(scenario, built);
  return built;
}

}  // namespace vcsim
