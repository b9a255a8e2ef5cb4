#include "engine/simulation.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <sstream>

#include "engine/output_hdf5.h"
#include "engine/sampling.h"
#include "engine/step_guard.h"
#include "integrators/adaptive_rk.h"

namespace vcsim {
namespace {

using Clock = std::chrono::steady_clock;

// "try <= X s" for a run that blew up at step h: the step guard's limit over every mode (conditional ones
// too) when h exceeds it, else a quarter of h (the guard's linear estimate was optimistic for this run).
std::string suggestion(const StepGuardReport& guard, double h) {
  std::ostringstream s;
  s.precision(2);
  if (guard.max_step_all < h) {
    const auto& modes = guard.modes;
    const auto m = std::min_element(modes.begin(), modes.end(), [](const auto& a, const auto& b) {
      return a.max_step < b.max_step;
    });
    s << "step " << h << " s too large for the " << m->mode << " mode of contact '" << m->contact
      << "' (stability limit " << m->max_step << " s, docs/reliability.md); try <= " << 0.9 * m->max_step << " s";
  } else {
    // Within the guard's limits the step is only a suspect: a patch that one normal cannot serve (a concave corner of
    // one cell) stops runs at any step.
    s << "step " << h << " s too large for the contact stiffness (k_v x contact area, or the bristle in stiction)"
      << "; try <= " << 0.25 * h << " s; if a smaller step stops too, a contact patch that one normal cannot serve"
      << " (docs/contact-models.md, \"A patch in a concave corner\")";
  }
  return s.str();
}

// The moving bodies by kinetic energy, largest first ("'ball' (12.5 J), 'top' (0.1 J)"), and the contacts
// in contact, for the failure messages.
std::string describe_state(const World& world, const VecX& x, double t) {
  std::vector<std::pair<double, std::string>> ke;
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const RigidBody& b = world.bodies[i];
    if (b.fixed) continue;
    const auto k = world.kinematics(x, static_cast<int>(i));
    const Mat3 R = k.pose.rotation.normalized().toRotationMatrix();
    const double e = 0.5 * b.mass * k.velocity.squaredNorm() +
                     0.5 * k.angular_velocity.dot(R * b.inertia_body * R.transpose() * k.angular_velocity);
    ke.emplace_back(e, b.name);
  }
  std::sort(ke.rbegin(), ke.rend());
  std::ostringstream msg;
  msg << "bodies by kinetic energy: ";
  for (size_t i = 0; i < ke.size() && i < 4; ++i) msg << (i ? ", " : "") << "'" << ke[i].second << "' (" << ke[i].first << " J)";
  if (ke.size() > 4) msg << ", ...";
  std::vector<contact::ContactResult> results;
  VecX dxdt(x.size());
  if (x.allFinite()) {
    world.derivative(t, x, dxdt, &results);
    std::string touching;
    for (size_t c = 0; c < results.size(); ++c)
      if (results[c].in_contact) touching += (touching.empty() ? "'" : ", '") + world.contacts[c].name + "'";
    msg << "; in contact: " << (touching.empty() ? "none" : touching);
  }
  return msg.str();
}

// Names what went non-finite, so the user knows where to look.
std::string describe_blow_up(const World& world, const VecX& x, double t) {
  std::ostringstream msg;
  msg << "numerical blow-up at t = " << t << " s: non-finite state in ";
  bool first = true;
  for (const auto& b : world.bodies) {
    if (b.state_offset < 0 || x.segment<kBodyStateSize>(b.state_offset).allFinite()) continue;
    msg << (first ? "" : ", ") << "body '" << b.name << "'";
    first = false;
  }
  for (const auto& c : world.contacts) {
    if (x.segment(c.state_offset, c.num_model_states + 1).allFinite()) continue;
    msg << (first ? "" : ", ") << "contact '" << c.name << "'";
    first = false;
  }
  return msg.str();
}

// Writes the interference region of every overlapping cell pair as <prefix>_<pair>_<i>_<j>.vdb.
int dump_overlaps(const World& world, const VecX& x, double t, double tolerance, const std::string& prefix) {
  int written = 0;
  for (const auto& c : world.contacts) {
    const auto& gi = world.bodies[c.body_i].geometry;
    const auto& gj = world.bodies[c.body_j].geometry;
    const Pose pi = world.kinematics(x, c.body_i, t).pose, pj = world.kinematics(x, c.body_j, t).pose;
    for (size_t a = 0; a < gi.cells.size(); ++a)
      for (size_t b = 0; b < gj.cells.size(); ++b) {
        const std::string path =
            prefix + "_" + c.name + "_" + std::to_string(a) + "_" + std::to_string(b) + ".vdb";
        written += geo::dump_interference_vdb(gi.cells[a], pi, gj.cells[b], pj, {tolerance}, path) ? 1 : 0;
      }
  }
  return written;
}

// The error weights of the adaptive integrators by state kind (AdaptiveSettings); each contact's integral of the
// elastic power is a diagnostic (energy bookkeeping), left out of the control.
integ::Tolerances error_weights(const World& world, const AdaptiveSettings& as) {
  integ::Tolerances tol{as.rel_tol, VecX::Constant(world.state_size(), 0.0)};
  for (const auto& b : world.bodies) {
    if (b.state_offset < 0) continue;
    body_position(tol.abs_tol, b.state_offset).setConstant(as.abs_position);
    body_quaternion(tol.abs_tol, b.state_offset).setConstant(as.abs_quaternion);
    body_velocity(tol.abs_tol, b.state_offset).setConstant(as.abs_velocity);
    body_angular_velocity(tol.abs_tol, b.state_offset).setConstant(as.abs_angular_velocity);
  }
  std::vector<double> scales;
  for (const auto& c : world.contacts) {
    scales.assign(c.num_model_states, 1.0);
    c.pair->state_scales(scales.data());
    for (int k = 0; k < c.num_model_states; ++k) tol.abs_tol[c.state_offset + k] = as.abs_friction * scales[k];
    tol.abs_tol[c.state_offset + c.num_model_states] = std::numeric_limits<double>::infinity();
  }
  return tol;
}

std::vector<BodyExtent> body_extents(const World& world) {
  std::vector<BodyExtent> out(world.bodies.size());
  for (size_t i = 0; i < world.bodies.size(); ++i)
    for (const auto& cell : world.bodies[i].geometry.cells) {
      const geo::Aabb b = geo::world_bounds(cell, Pose{});
      if (b.empty()) continue;
      out[i].box.min = out[i].box.min.cwiseMin(b.min), out[i].box.max = out[i].box.max.cwiseMax(b.max);
      if (std::max(b.max.cwiseAbs().maxCoeff(), b.min.cwiseAbs().maxCoeff()) < 1e100) {
        out[i].thinnest = std::min(out[i].thinnest, (b.max - b.min).minCoeff());
        out[i].reach = std::max(out[i].reach, b.max.cwiseAbs().cwiseMax(b.min.cwiseAbs()).norm());
      }
    }
  return out;
}

// The largest step over which no contact pair closes its bounding-box gap plus a quarter of its thinner body, so
// that error control, which sees only a step's stages, cannot carry a body through another (a fast ball through a
// thin plate) while bodies far apart keep their long free-flight steps.
double travel_step(const World& world, double t, const VecX& x, const std::vector<BodyExtent>& extents) {
  double h = std::numeric_limits<double>::infinity();
  for (const auto& c : world.contacts) {
    const double thin = 0.25 * std::min(extents[c.body_i].thinnest, extents[c.body_j].thinnest);
    if (!std::isfinite(thin)) continue;
    double speed = 0, gap = 0;
    geo::Aabb box[2];
    int k = 0;
    for (const int b : {c.body_i, c.body_j}) {
      const auto kin = world.kinematics(x, b, t);
      speed += kin.velocity.norm() + kin.angular_velocity.norm() * extents[b].reach;
      // World bounds of the body's box: centre ± |R| half-extent (unbounded stays unbounded).
      const geo::Aabb& e = extents[b].box;
      const Vec3 centre = 0.5 * (e.min + e.max), half = 0.5 * (e.max - e.min);
      const Mat3 R = kin.pose.rotation.normalized().toRotationMatrix();
      const Vec3 c_w = kin.pose.position + R * centre, h_w = R.cwiseAbs() * half;
      box[k].min = c_w - h_w, box[k].max = c_w + h_w;
      ++k;
    }
    for (int a = 0; a < 3; ++a)
      gap = std::max({gap, box[1].min[a] - box[0].max[a], box[0].min[a] - box[1].max[a]});
    if (speed > 0) h = std::min(h, (gap + thin) / speed);
  }
  return h;
}

std::vector<char> contact_flags(const std::vector<contact::ContactResult>& results) {
  std::vector<char> flags;
  for (const auto& r : results) flags.push_back(r.in_contact ? 1 : 0);
  return flags;
}

}  // namespace

Simulation::Simulation(const Scenario& scenario, BuiltWorld& built, const RunOptions& options)
    : scenario_(scenario),
      world_(built.world),
      options_(options),
      x_(built.initial_state),
      x_before_(built.world.state_size()),
      scratch_(built.world.state_size()),
      system_(built.world.ode_system()),
      // Contact modes: the onset step of adaptive runs and the "try <= X s" of a failure.
      guard_(options.guard ? *options.guard : check_step(scenario, built.world)) {
  if (!options_.output_path.empty()) {
    OutputLayout layout = make_layout(scenario_, world_);
    layout.step_size = scenario_.adaptive;
    writer_ = std::make_unique<OutputWriter>(options_.output_path, layout);
  }
  summary_.passive = world_.is_passive();
  wall_start_ = last_flush_ = last_progress_ = Clock::now();
  queries_at_start_ = geo::interference_query_count();
  coarsened_at_start_ = geo::coarsened_query_count();

  script_ = std::make_unique<ImpulseScript>(scenario_, world_);
  script_->start(x_);
  summary_.impulses_applied = 0;
  for (const auto& tally : script_->tallies()) summary_.impulses_applied += tally.count;

  // Energy guard for passive scenes (docs/reliability.md): the total may not rise by more than half
  // of the larger of the highest kinetic energy so far (of states whose energy had not risen) and the work
  // of lifting every body by 1 cm.
  for (const auto& b : world_.bodies)
    if (!b.fixed) lift_energy_ += b.mass * world_.gravity.norm() * 0.01;
  e_ = world_.energies(x_);
  summary_.initial_energy = e_;
  min_total_ = e_.total(), min_guard_ = guard_total(e_), max_kinetic_ = e_.kinetic;

  if (scenario_.adaptive) {
    // Error-controlled steps (docs/integration.md). Each step starts from f at the committed state, so a contact's
    // memories and an impulse are seen from the next step on; a rejected trial changes nothing but the step size.
    const auto method = *integ::adaptive_method_from_name(scenario_.integrator);
    const AdaptiveSettings& as = scenario_.adaptive_settings;
    tol_ = error_weights(world_, as);
    adaptive_.emplace(method, world_.state_size());
    controller_.emplace(method);
    max_step_ = as.max_step > 0 ? as.max_step : scenario_.duration / 50;
    // A step across a contact onset or loss (or an impulse's crossing) is at most 1/20 of the fastest contact mode's
    // stable step (~0.14/ω): the onset is resolved on the contact's own time scale, never smeared over a free-flight
    // step, and the approach speed the contact latches there (eq 3.23's v_in) is off by ~(ω h)²/2 ≈ 1 % at most
    // for a linear spring, much less for a volume that grows like a power of the depth.
    event_step_ = std::min(max_step_, 0.05 * guard_.max_step);
    extents_ = body_extents(world_);
    breakpoints_ = world_.breakpoints();  // kinks of loads, motions, gravity
    // A step that ends on a breakpoint sees the profiles' values before it, also at its last stages (c = 1): a jump
    // (a step profile) belongs to the next step, whose first stage starts on it.
    step_end_ = std::numeric_limits<double>::infinity();
    before_end_ = system_;
    before_end_.derivative = [this](double ts, const VecX& xs, VecX& dx) {
      world_.derivative(std::min(ts, step_end_), xs, dx);
    };
    f0_.resize(world_.state_size());
    sample_state_.resize(world_.state_size());
    world_.derivative(t_, x_, f0_, &results_);
    ++evaluations_;
    touching_ = contact_flags(results_);
    h_ = as.initial_step > 0 ? as.initial_step
                             : integ::initial_step(system_, method, t_, x_, f0_, tol_, max_step_);
    if (as.initial_step <= 0) ++evaluations_;
    if (writer_) write_sample(0, x_, e_, h_);
  } else {
    if (writer_) write_sample(0, x_, e_, scenario_.step);
    const auto method = integ::method_from_name(scenario_.integrator);
    fixed_.emplace(*method, world_.state_size());
    const double h = scenario_.step;
    const long total_steps = std::lround(scenario_.duration / h);
    // In double first: an interval far beyond the duration must not overflow the conversion.
    sample_every_ =
        scenario_.output_interval > 0
            ? std::max(1L, std::lround(std::min(scenario_.output_interval / h, static_cast<double>(total_steps) + 1)))
            : 1L;
  }
}

Simulation::~Simulation() = default;

void Simulation::write_sample(double t, const VecX& state, const Energies& e, double step_size) {
  world_.derivative(t, state, scratch_, &results_);
  double held = 0;
  for (const auto& r : results_) held += r.bristle_energy;
  summary_.max_bristle_energy = std::max(summary_.max_bristle_energy, held);
  OutputSample sample = make_sample(t, world_, state, e, results_, *script_);
  sample.step_size = step_size;
  writer_->append(sample);
  ++summary_.samples;
}

// The guard's total counts each contact's stored elastic energy at no less than zero: k delta^(n+1)/(n+1)
// (Hertz) and k_v times the integral of the volume (volumetric) are never negative, so a negative
// integral of the elastic power is quadrature error of a step that is too coarse for the contact. It
// must not offset the kinetic energy that the same step injected (a ball thrown from the table at 15 m/s
// by one step through the whole contact left -326 J in the integral and the total below its start).
double Simulation::guard_total(const Energies& en) const {
  double t = en.kinetic + en.potential;
  for (const auto& c : world_.contacts) t += std::max(0.0, x_[c.state_offset + c.num_model_states]);
  return t;
}

// After a step of size h has put the state at time t_ into x_: commits the contacts' memories, fires the
// impulses due, and runs the energy guard. False when the run must stop (summary_.failed).
bool Simulation::commit(double h, double impulse_h) {
  world_.accept_step(t_, x_);
  const int fired = script_->apply(t_, impulse_h, x_);  // scripted impulses: between accepted steps only
  e_ = world_.energies(x_, t_);
  const double total_guard = guard_total(e_);
  if (fired) {
    // An impulse is external work, not an energy error: the guard's baseline restarts from the new state.
    summary_.impulses_applied += fired;
    min_total_ = e_.total();
    min_guard_ = total_guard;
    max_kinetic_ = std::max(max_kinetic_, e_.kinetic);
  }
  const double rise = e_.total() - min_total_, rise_guard = total_guard - min_guard_;
  const double scale = std::max(max_kinetic_, lift_energy_);
  // The scale grows only with healthy states (rise within 1e-3 of it): the kinetic energy of an explosion
  // in progress must not raise its own bound.
  if (rise_guard <= 1e-3 * scale) max_kinetic_ = std::max(max_kinetic_, e_.kinetic);
  summary_.max_energy_increase = std::max(summary_.max_energy_increase, rise);
  min_total_ = std::min(min_total_, e_.total());
  min_guard_ = std::min(min_guard_, total_guard);
  const double bound = std::max(max_kinetic_, lift_energy_);
  if (summary_.passive && rise_guard > 0.5 * bound + 1e-12) {
    summary_.failed = true;
    summary_.max_energy_increase = std::max(summary_.max_energy_increase, rise_guard);
    std::ostringstream msg;
    msg << "energy explosion at t = " << t_ << " s: total energy rose by " << rise_guard
        << " J above its minimum in a passive scene (bound: half of max(peak kinetic energy, 1 cm lift work) = "
        << 0.5 * bound << " J, docs/reliability.md)";
    for (const auto& c : world_.contacts)
      if (const double stored = x_[c.state_offset + c.num_model_states]; stored < -1e-3 * bound)
        msg << "; contact '" << c.name << "' stored elastic energy " << stored
            << " J < 0 (the step skipped through the contact)";
    msg << "; at t = " << t_ - h << " s, " << describe_state(world_, x_before_, t_ - h)
        << "; likely cause: " << suggestion(guard_, h);
    summary_.failure_message = msg.str();
    return false;
  }
  return true;
}

void Simulation::blow_up(double h) {
  summary_.failed = true;
  std::ostringstream msg;
  msg << describe_blow_up(world_, x_, t_) << "; at t = " << t_ - h << " s, "
      << describe_state(world_, x_before_, t_ - h) << "; likely cause: " << suggestion(guard_, h);
  summary_.failure_message = msg.str();
}

// Flushing, progress and the --dump-vdb snapshot, after each accepted step.
void Simulation::housekeeping(double h) {
  if (options_.dump_vdb_time >= 0 && t_ >= options_.dump_vdb_time && t_ - h < options_.dump_vdb_time)
    summary_.vdb_files = dump_overlaps(world_, x_, t_, scenario_.geometry_tolerance, options_.dump_vdb_prefix);
  if (!writer_ && !options_.on_progress) return;  // a front end stepping without output: no clock to read
  const auto now = Clock::now();
  if (writer_ && now - last_flush_ > std::chrono::milliseconds(500)) {
    writer_->flush();
    last_flush_ = now;
  }
  if (options_.on_progress && now - last_progress_ > std::chrono::milliseconds(100)) {
    options_.on_progress({t_, scenario_.duration, std::chrono::duration<double>(now - wall_start_).count(), h});
    last_progress_ = now;
  }
}

bool Simulation::step(double end) {
  if (summary_.failed || interrupted_) return false;
  return scenario_.adaptive ? step_adaptive(end) : step_fixed(end);
}

bool Simulation::step_fixed(double end) {
  if (options_.stop_requested && *options_.stop_requested) {
    interrupted_ = true;
    return false;
  }
  const double h = scenario_.step;
  x_before_ = x_;  // the last healthy state, to name the bodies and contacts if this step blows up
  fixed_->step(system_, t_, h, x_);
  t_ = (fixed_steps_ + 1) * h;  // no accumulated round-off in the time vector
  if (!x_.allFinite()) {
    blow_up(h);
    return false;
  }
  if (!commit(h, h)) return false;
  ++fixed_steps_;
  if (writer_ && (fixed_steps_ % sample_every_ == 0 || (std::isfinite(end) && fixed_steps_ == std::lround(end / h))))
    write_sample(t_, x_, e_, h);
  housekeeping(h);
  return true;
}

bool Simulation::step_adaptive(double T) {
  const double interval = scenario_.output_interval;  // sample k at k * interval (every accepted step when 0)
  for (;;) {  // trials until one is accepted
    if (options_.stop_requested && *options_.stop_requested) {
      interrupted_ = true;
      return false;
    }
    double& h = h_;
    h = std::min({h, max_step_, travel_step(world_, t_, x_, extents_)});
    // Land exactly on the end, on each timed impulse and on each kink of a profile; avoid a sliver of a last step.
    double t_new = t_ + h;
    const auto kink = std::upper_bound(breakpoints_.begin(), breakpoints_.end(), t_);
    const double stop = std::min({T, script_->next_time_trigger(t_), kink == breakpoints_.end() ? T : *kink});
    if (t_new >= stop - 1e-3 * h) t_new = stop, h = stop - t_;
    const bool on_kink = kink != breakpoints_.end() && t_new == *kink;
    step_end_ = on_kink ? std::nextafter(t_new, -std::numeric_limits<double>::infinity())
                        : std::numeric_limits<double>::infinity();
    const double min_step = 64 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t_));
    if (!(h > min_step)) {
      summary_.failed = true;
      std::ostringstream msg;
      msg << "step size underflow at t = " << t_ << " s: the error control asked for a step of " << h << " s (below "
          << min_step << " s); " << describe_state(world_, x_, t_)
          << "; likely cause: a discontinuous force or a contact too stiff for the tolerance (docs/integration.md)";
      summary_.failure_message = msg.str();
      return false;
    }
    const integ::OdeSystem& system = on_kink ? before_end_ : system_;
    const double err = adaptive_->attempt(system, t_, x_, f0_, h, tol_);
    evaluations_ += adaptive_->evaluations_per_attempt();
    bool accepted = err <= 1;
    if (accepted && h > event_step_) {
      world_.derivative(t_new, adaptive_->candidate(), scratch_, &results_);
      ++evaluations_;
      if (contact_flags(results_) != touching_ || script_->crossing_due(t_new, adaptive_->candidate())) {
        ++summary_.event_cuts;
        accepted = false;
      }
    }
    if (!accepted) {
      ++summary_.rejected_steps;
      h = err <= 1 ? std::max(event_step_, 0.5 * h) : controller_->propose(h, err, false);
      continue;
    }
    // Samples inside the step from the continuous extension (before the contacts commit: the memories of the
    // step's start hold over it); a sample at the step's end after it, like a fixed step's.
    const double t_old = t_;
    while (interval > 0 && next_sample_ * interval < t_new - 1e-9 * interval) {
      const double ts = next_sample_ * interval;
      if (writer_) {
        adaptive_->dense(system, (ts - t_old) / h, sample_state_);
        write_sample(ts, sample_state_, world_.energies(sample_state_, ts), h);
      }
      ++next_sample_;
    }
    x_before_ = x_;
    x_ = adaptive_->candidate();
    t_ = t_new;
    if (!x_.allFinite()) {
      blow_up(h);
      return false;
    }
    accepted_steps_.push_back(h);
    if (!commit(h, 0)) return false;
    if (script_->loads_switched() != switches_seen_)
      breakpoints_ = world_.breakpoints(), switches_seen_ = script_->loads_switched();
    if (interval <= 0 || t_ >= T || std::abs(t_ - next_sample_ * interval) <= 1e-9 * interval) {
      if (writer_) write_sample(t_, x_, e_, h);
      if (interval > 0 && std::abs(t_ - next_sample_ * interval) <= 1e-9 * interval) ++next_sample_;
    }
    housekeeping(h);
    world_.derivative(t_, x_, f0_, &results_);
    ++evaluations_;
    touching_ = contact_flags(results_);
    h = controller_->propose(h, err, true);
    return true;
  }
}

void Simulation::open_output(const std::string& path) {
  if (writer_) finish();
  OutputLayout layout = make_layout(scenario_, world_);
  layout.step_size = scenario_.adaptive;
  writer_ = std::make_unique<OutputWriter>(path, layout);
  if (scenario_.output_interval > 0)  // the next sample on the interval's grid after the current time
    next_sample_ = static_cast<long>(std::floor(t_ / scenario_.output_interval + 1e-9)) + 1;
  write_sample(t_, x_, e_, scenario_.adaptive ? h_ : scenario_.step);
}

void Simulation::state_changed() {
  // Outside work, like an impulse: the energy guard's baseline restarts from the new state.
  e_ = world_.energies(x_, t_);
  min_total_ = e_.total();
  min_guard_ = guard_total(e_);
  max_kinetic_ = std::max(max_kinetic_, e_.kinetic);
  if (scenario_.adaptive) {  // each adaptive step starts from f at the committed state
    world_.derivative(t_, x_, f0_, &results_);
    ++evaluations_;
    touching_ = contact_flags(results_);
  }
}

void Simulation::set_external_load(int body, const Vec3& force, const Vec3& torque) {
  world_.bodies.at(body).external_force = force;
  world_.bodies.at(body).external_torque = torque;
  // A controller's work is not an energy error: the guard is for passive scenes only.
  summary_.passive = false;
  state_changed();
}

const std::vector<contact::ContactResult>& Simulation::contact_results() {
  world_.derivative(t_, x_, scratch_, &results_);
  return results_;
}

RunSummary Simulation::finish(bool interrupted) {
  RunSummary summary = summary_;
  if (scenario_.adaptive) {
    summary.steps = static_cast<long>(accepted_steps_.size());
    summary.rhs_evaluations = evaluations_ + summary.samples;
    if (!accepted_steps_.empty()) {
      std::vector<double> steps = accepted_steps_;
      std::sort(steps.begin(), steps.end());
      summary.min_step = steps.front(), summary.max_step = steps.back(), summary.median_step = steps[steps.size() / 2];
    }
  } else {
    summary.steps = fixed_steps_;
    summary.rhs_evaluations = fixed_steps_ * integ::method_stages(fixed_->method()) + summary.samples;
  }
  summary.sim_time = t_;
  summary.final_energy = world_.energies(x_, t_);
  summary.wall_time = std::chrono::duration<double>(Clock::now() - wall_start_).count();
  summary.interference_queries = geo::interference_query_count() - queries_at_start_;
  summary.coarsened_queries = geo::coarsened_query_count() - coarsened_at_start_;
  if (summary.coarsened_queries > 0)
    summary.run_warnings.push_back("warning: " + std::to_string(summary.coarsened_queries) + " of " +
                                   std::to_string(summary.interference_queries) +
                                   " interference queries could not meet simulation.geometry_tolerance within the "
                                   "column engine's lattice budget and were answered on a coarser lattice "
                                   "(docs/geometry.md)");
  std::vector<std::string> warnings = options_.warnings;
  warnings.insert(warnings.end(), summary.run_warnings.begin(), summary.run_warnings.end());
  if (summary.failed)
    summary.status = "failed: " + summary.failure_message;
  else if (interrupted_ || interrupted)
    summary.status = "interrupted";
  else
    summary.status = warnings.empty() ? "completed" : "completed with warnings";
  if (writer_) {
    OutputWriter& writer = *writer_;
    writer.set_text_attribute("status", summary.status);
    if (!warnings.empty()) {
      std::string all;
      for (const auto& w : warnings) all += (all.empty() ? "" : "\n") + w;
      writer.set_text_attribute("warnings", all);
    }
    writer.set_number_attribute("coarsened_queries", static_cast<double>(summary.coarsened_queries));
    writer.set_number_attribute("wall_time_s", summary.wall_time);
    writer.set_number_attribute("max_energy_increase_J", summary.max_energy_increase);
    writer.set_number_attribute("max_bristle_energy_J", summary.max_bristle_energy);
    writer.set_number_attribute("steps", static_cast<double>(summary.steps));
    writer.set_number_attribute("rhs_evaluations", static_cast<double>(summary.rhs_evaluations));
    writer.set_number_attribute("interference_queries", static_cast<double>(summary.interference_queries));
    if (scenario_.adaptive) {
      writer.set_number_attribute("accepted_steps", static_cast<double>(summary.steps));
      writer.set_number_attribute("rejected_steps", static_cast<double>(summary.rejected_steps));
      writer.set_number_attribute("event_cuts", static_cast<double>(summary.event_cuts));
      writer.set_number_attribute("min_step", summary.min_step);
      writer.set_number_attribute("median_step", summary.median_step);
      writer.set_number_attribute("max_step", summary.max_step);
    }
    if (!script_->empty())
      writer.set_number_attribute("impulses_applied", static_cast<double>(summary.impulses_applied));
    writer.close();
    writer_.reset();
  }
  if (options_.on_progress)
    options_.on_progress(
        {t_, scenario_.duration, summary.wall_time, scenario_.adaptive ? summary.max_step : scenario_.step});
  return summary;
}

RunSummary run_simulation(const Scenario& scenario, BuiltWorld& built, const RunOptions& options) {
  Simulation sim(scenario, built, options);
  if (scenario.adaptive) {
    while (sim.time() < scenario.duration && sim.step(scenario.duration)) {
    }
  } else {
    const long total_steps = std::lround(scenario.duration / scenario.step);
    while (sim.steps_taken() < total_steps && sim.step(scenario.duration)) {
    }
  }
  return sim.finish();
}

}  // namespace vcsim
