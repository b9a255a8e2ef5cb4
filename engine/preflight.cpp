#include "engine/preflight.h"

#include <cmath>
#include <sstream>

namespace vcsim {
namespace {


bool unbounded(const geo::Aabb& b) { return std::max(b.max.cwiseAbs().maxCoeff(), b.min.cwiseAbs().maxCoeff()) >= 1e100; }

bool overlap(const geo::Aabb& a, const geo::Aabb& b) {
  return (a.min.array() <= b.max.array()).all() && (b.min.array() <= a.max.array()).all();
}

// The value of a contact's channel `name` in a result (first component), or NaN.
double channel(const ContactSlot& slot, const contact::ContactResult& r, const std::string& name) {
  size_t at = 0;
  for (const auto& c : slot.pair->channels()) {
    if (c.name == name) return at < r.channels.size() ? r.channels[at] : std::nan("");
    at += c.width;
  }
  return std::nan("");
}

}  // namespace

PreflightReport preflight(const Scenario& scenario, const BuiltWorld& built) {
  PreflightReport report;
  report.warnings = scenario.warnings;
  const World& world = built.world;
  const VecX& x = built.initial_state;

  for (size_t k = 0; k < world.contacts.size(); ++k) {
    const ContactSlot& c = world.contacts[k];
    const auto pi = world.kinematics(x, c.body_i, 0).pose, pj = world.kinematics(x, c.body_j, 0).pose;
    for (const auto& a : world.bodies[c.body_i].geometry.cells)
      for (const auto& b : world.bodies[c.body_j].geometry.cells) {
        const geo::Aabb ba = geo::world_bounds(a, pi), bb = geo::world_bounds(b, pj);
        if (unbounded(ba) && unbounded(bb) && overlap(ba, bb)) {
          const auto& w = scenario.contacts[k].where;
          throw InputError(w,
                           "expected at most one unbounded body in a contact (halfspace, slab, infinite_cylinder, "
                           "complement); got '" + world.bodies[c.body_i].name + "' and '" + world.bodies[c.body_j].name +
                               "' both unbounded and overlapping at t = 0: their interference is infinite and the "
                               "pair never reports contact; bound one of them (intersect it with a box)");
        }
      }
  }

  // Bodies that start deep in each other: the first steps throw them apart.
  std::vector<contact::ContactResult> results;
  VecX dxdt(x.size());
  world.derivative(0, x, dxdt, &results);
  const double g = world.gravity_at(0).norm() > 0 ? world.gravity_at(0).norm() : 9.81;
  for (size_t k = 0; k < results.size(); ++k) {
    const ContactSlot& c = world.contacts[k];
    if (!results[k].in_contact) continue;
    double m = std::numeric_limits<double>::infinity();
    std::string lighter;
    for (const int b : {c.body_i, c.body_j})
      if (!world.bodies[b].fixed && world.bodies[b].mass < m) m = world.bodies[b].mass, lighter = world.bodies[b].name;
    const double force = results[k].force.norm(), weight = m * g;
    if (!(force > kOverlapForceRatio * weight)) continue;
    std::ostringstream msg;
    msg << "bodies '" << world.bodies[c.body_i].name << "' and '" << world.bodies[c.body_j].name
        << "' start overlapping";
    if (const double depth = channel(c, results[k], "penetration"); std::isfinite(depth))
      msg << " " << brief_number(-depth) << " m deep";
    if (const double volume = channel(c, results[k], "volume"); std::isfinite(volume))
      msg << " (interference volume " << brief_number(volume) << " m^3)";
    msg << " with a contact force of " << brief_number(force) << " N, " << brief_number(force / weight) << " x the weight of '"
        << lighter << "' (" << brief_number(weight) << " N" << (world.gravity_at(0).norm() > 0 ? "" : " under 9.81 m/s^2")
        << "): the first steps will throw them apart; place them touching";
    report.warnings.push_back(InputWarning{scenario.contacts[k].where, msg.str()});
  }

  // The step guard (with or without gravity), and the hysteretic damping of contacts placed at rest: it latches at
  // v_small (eq 3.43), its largest, and near the step's stability limit the sampled force chatters.
  report.guard = check_step(scenario, world);
  const auto where_of = [&](const std::string& contact) {
    for (size_t k = 0; k < world.contacts.size(); ++k)
      if (world.contacts[k].name == contact) return scenario.contacts[k].where;
    return geo::SourceLocation{scenario.source_file, 0, 0, ""};
  };
  if (report.guard.too_large)
    report.warnings.push_back(InputWarning{where_of(report.guard.modes[report.guard.limiting].contact), report.guard.warning});
  if (!scenario.adaptive)
    for (const ModeEstimate& mode : report.guard.modes) {
      if (!mode.conditional || !(scenario.step > kDampingStepFraction * mode.max_step)) continue;
      bool resting = false;
      for (size_t k = 0; k < world.contacts.size(); ++k)
        if (world.contacts[k].name == mode.contact && results[k].in_contact) resting = true;
      if (!resting) continue;
      std::ostringstream msg;
      msg << "contact '" << mode.contact << "' starts in contact, so its hysteretic damping latches at v_small (eq 3.43, "
          << mode.formula << "); step " << scenario.step << " s is " << brief_number(scenario.step / mode.max_step)
          << " of that mode's stability limit " << brief_number(mode.max_step) << " s for " << scenario.integrator
          << ": the sampled force will chatter; use a step <= " << brief_number(kDampingStepFraction * mode.max_step)
          << " s, a larger v_small, or dopri5";
      report.warnings.push_back(InputWarning{where_of(mode.contact), msg.str()});
    }
  return report;
}

}  // namespace vcsim
