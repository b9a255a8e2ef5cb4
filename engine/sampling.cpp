#include "engine/sampling.h"

#include <sstream>

namespace vcsim {

OutputLayout make_layout(const Scenario& scenario, const World& world) {
  OutputLayout layout;
  layout.scenario_name = scenario.name;
  for (const auto& b : world.bodies) layout.body_names.push_back(b.name);
  for (const auto& c : world.contacts)
    layout.pairs.push_back({c.name, world.bodies[c.body_i].name, world.bodies[c.body_j].name, c.pair->channels()});
  for (const auto& imp : scenario.impulses) {
    std::ostringstream trigger;
    trigger.precision(17);
    if (imp.at)
      trigger << "at " << *imp.at << " s";
    else
      trigger << "when " << imp.signal_body << " " << imp.signal << " crosses " << imp.level << " ("
              << (imp.direction < 0 ? "falling" : imp.direction > 0 ? "rising" : "either way") << ")";
    layout.impulses.push_back({imp.name, imp.body, trigger.str()});
  }
  layout.text_attributes = {{"scenario", scenario.source_text},
                            {"scenario_file", scenario.source_file},
                            {"vcsim_version", VCSIM_VERSION},
                            {"git_revision", VCSIM_GIT_REVISION},
                            {"integrator", scenario.integrator}};
  if (scenario.adaptive) {
    const AdaptiveSettings& a = scenario.adaptive_settings;
    layout.number_attributes = {{"rel_tol", a.rel_tol},
                                {"abs_tol_position", a.abs_position},
                                {"abs_tol_quaternion", a.abs_quaternion},
                                {"abs_tol_velocity", a.abs_velocity},
                                {"abs_tol_angular_velocity", a.abs_angular_velocity},
                                {"abs_tol_friction", a.abs_friction},
                                {"step_limit", a.max_step > 0 ? a.max_step : scenario.duration / 50}};
  }
  layout.number_attributes.insert({{"step", scenario.step},
                                   {"duration", scenario.duration},
                                   {"output_interval", scenario.output_interval},
                                   {"geometry_tolerance", scenario.geometry_tolerance}});
  return layout;
}

OutputSample make_sample(double t, const World& world, const VecX& x, const Energies& e,
                         const std::vector<contact::ContactResult>& results, const ImpulseScript& script) {
  OutputSample s;
  s.time = t;
  for (const auto& tally : script.tallies())
    s.impulses.push_back({static_cast<double>(tally.count), tally.last_time, tally.linear, tally.angular});
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const auto k = world.kinematics(x, static_cast<int>(i), t);
    s.bodies.push_back({k.pose.position, k.pose.rotation, k.velocity, k.angular_velocity});
  }
  s.energy = {e.kinetic, e.potential, e.contact, e.total()};
  for (size_t c = 0; c < world.contacts.size(); ++c) {
    const auto& r = results[c];
    const auto ki = world.kinematics(x, world.contacts[c].body_i, t);
    PairSample p;
    p.in_contact = r.in_contact;
    p.force = r.force;
    p.point = r.point;
    p.torque_about_point = r.couple;
    p.torque_about_body_i = (r.point - ki.pose.position).cross(r.force) + r.couple;
    p.channels = r.channels;
    s.pairs.push_back(std::move(p));
  }
  return s;
}

}  // namespace vcsim
