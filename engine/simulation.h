// Runs a world through time with a fixed-step or an error-controlled integrator, writing samples to HDF5 as it goes.
#pragma once
#include <cmath>
#include <csignal>
#include <functional>
#include <string>

#include "engine/build_world.h"
#include "engine/scenario.h"
#include "engine/world.h"

namespace vcsim {

struct StepGuardReport;  // engine/step_guard.h

struct Progress {
  double sim_time = 0, duration = 0, wall_time = 0;
  double step = 0;  // s, the step in use (adaptive integrators: the latest accepted)
};

struct RunOptions {
  std::string output_path;
  std::function<void(const Progress&)> on_progress;  // called about 10 times a second
  const volatile std::sig_atomic_t* stop_requested = nullptr;  // set by a SIGINT handler
  double dump_vdb_time = -1;  // < 0: off; else write .vdb files of overlaps at that time
  std::string dump_vdb_prefix;
  std::vector<std::string> warnings;  // the preflight's (engine/preflight.h): stored, and the status says so
  const StepGuardReport* guard = nullptr;  // the preflight's step guard; computed by the run when null
};

struct RunSummary {
  std::string status;  // "completed", "completed with warnings", "interrupted", or "failed: ..."
  bool failed = false;
  double sim_time = 0, wall_time = 0;
  long steps = 0, rhs_evaluations = 0, samples = 0;
  long interference_queries = 0;  // narrow-phase geometry queries during the run
  Energies initial_energy, final_energy;
  double max_energy_increase = 0;  // J, largest rise of the total energy above its running minimum
  double max_bristle_energy = 0;   // J, the most the friction bristles held at an output sample (not in the total)
  bool passive = true;
  std::string failure_message;
  int vdb_files = 0;  // written by --dump-vdb
  long impulses_applied = 0;  // scripted impulses fired (Scenario::impulses)
  // Adaptive integrators (steps counts the accepted ones): rejected trials, of which cut at a contact onset or loss
  // or an impulse's crossing; the accepted steps' smallest, median and largest size.
  long rejected_steps = 0, event_cuts = 0;
  double min_step = 0, median_step = 0, max_step = 0;
};


// The scenario's scripted impulses (ImpulseSpec, docs/scenario-format.md "Impulses") and load switches (LoadSpec's
// `when`) as a run applies them: call start() on the initial state, then apply() after every accepted step (after
// World::accept_step, never inside integrator stages). A time trigger fires once, at the first accepted time
// t >= at − h/2; a crossing trigger fires each time its signal passes the level between two accepted states (up to
// `until`, if given); a load switch turns its load on (World's AppliedLoad::start) at its first crossing.
struct ImpulseTally {
  long count = 0;                          // firings so far
  double last_time = std::nan("");         // s, time of the latest firing
  Vec3 linear = Vec3::Zero(), angular = Vec3::Zero();  // cumulative impulse applied, world frame
};
class ImpulseScript {
 public:
  ImpulseScript(const Scenario& scenario, World& world);
  void start(VecX& x) { apply(0, 0, x); }  // on the initial state: applies impulses with at = 0
  // Applies every impulse due at the accepted state x at time t (fixed step h; 0 for an adaptive run, whose steps
  // end on each time trigger); returns how many fired.
  int apply(double t, double h, VecX& x);
  // For an adaptive run: the next time trigger after t (+inf if none), and whether a crossing trigger would fire at
  // the candidate state x_new at t_new (so that the step is cut before it).
  double next_time_trigger(double t) const;
  bool crossing_due(double t_new, const VecX& x_new) const;
  const std::vector<ImpulseTally>& tallies() const { return tallies_; }
  bool empty() const { return specs_.empty(); }
  long loads_switched() const { return loads_switched_; }  // so far: the run then refreshes the breakpoints

 private:
  // A signal of a body crossing a level (impulses' `when`, loads' `when`).
  struct Crossing {
    int body = -1, component = -1;  // component: 0-2 position, 3-5 velocity, 6-8 angular velocity
    double level = 0;
    int direction = 0;
    double previous = 0;  // the signal at the previous accepted state
  };
  Crossing crossing(const std::string& body, const std::string& signal, double level, int direction) const;
  int fire(size_t i, double t, VecX& x);
  bool crosses(const Crossing& c, const VecX& x) const;  // fires between the previous accepted state and x
  double signal(const Crossing& c, const VecX& x) const;
  World& world_;
  std::vector<ImpulseSpec> specs_;
  std::vector<int> body_;
  std::vector<Crossing> crossing_;  // per impulse (unused by time triggers)
  std::vector<bool> done_;          // time triggers already fired
  std::vector<ImpulseTally> tallies_;
  std::vector<Crossing> switch_;    // load switches, for world_.loads[switch_load_[k]]
  std::vector<int> switch_load_;
  long loads_switched_ = 0;
};

RunSummary run_simulation(const Scenario& scenario, BuiltWorld& built, const RunOptions& options);

}  // namespace vcsim
