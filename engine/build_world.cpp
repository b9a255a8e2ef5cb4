// From a validated Scenario to a World: bodies with mass properties (given, or computed from the
// geometry and a density), geometry re-expressed about the centre of mass, and contact pairs.
#include <filesystem>

#include "contact/make_contact.h"
#include "engine/input_error.h"
#include "engine/simulation.h"

namespace vcsim {

BuiltWorld build_world(const Scenario& scenario) {
  BuiltWorld built;
  World& world = built.world;
  world.gravity = scenario.gravity;
  const std::string base_dir = std::filesystem::path(scenario.source_file).parent_path().string();

  std::vector<Pose> poses, com_offsets;
  std::vector<Vec3> velocities, angular_velocities;
  for (const BodySpec& spec : scenario.bodies) {
    RigidBody body;
    body.name = spec.name;
    body.fixed = spec.fixed;
    body.external_force = spec.external_force;
    body.external_torque = spec.external_torque;
    geo::BodyGeometry geometry;
    if (spec.geometry) geometry = geo::make_body_geometry(*spec.geometry, base_dir);

    Vec3 com = spec.center_of_mass;
    if (spec.density && !spec.fixed) {
      const geo::MassProperties mp = geo::mass_properties(geometry, *spec.density, scenario.geometry_tolerance);
      body.mass = mp.mass;
      body.inertia_body = mp.inertia;
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
    slot.pair = contact::make_contact(spec.model, spec.params, sides, spec.where);
    world.contacts.push_back(std::move(slot));
  }
  world.finalize_layout();
  built.initial_state = world.initial_state(poses, velocities, angular_velocities);
  return built;
}

}  // namespace vcsim
