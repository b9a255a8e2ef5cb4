// Runs a world through time with a fixed-step or an error-controlled integrator, writing samples to HDF5 as it goes.
#pragma once
#include <chrono>
#include <cmath>
#include <csignal>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/build_world.h"
#include "engine/impulse_script.h"
#include "engine/scenario.h"
#include "engine/step_guard.h"
#include "engine/world.h"
#include "integrators/adaptive_rk.h"

namespace vcsim {

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
  long coarsened_queries = 0;     // of those, answered on a lattice coarser than the tolerance asks
  std::vector<std::string> run_warnings;  // found during the run (coarsened queries): stored with the preflight's
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


class OutputWriter;  // engine/output_hdf5.h

// What the adaptive travel bound needs of a body, in its centre-of-mass frame: its bounds (over its cells), its
// thinnest bounded extent (a plate's thickness; +inf when unbounded) and its reach from the centre of mass (0 when
// unbounded).
struct BodyExtent {
  geo::Aabb box;
  double thinnest = std::numeric_limits<double>::infinity(), reach = 0;
};

// A run, one accepted step at a time: run_simulation drives it to the scenario's duration, the Python module
// (docs/python.md) from a script. `scenario` and `built` must outlive it; it steps built.world from
// built.initial_state. The constructor opens options.output_path (if not empty) and writes the sample at t = 0.
class Simulation {
 public:
  Simulation(const Scenario& scenario, BuiltWorld& built, const RunOptions& options);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // One accepted step (an adaptive run may try several): fixed-step runs advance by the scenario's step, adaptive
  // ones land exactly on `end` (and write their last sample there). False when the run was interrupted
  // (RunOptions::stop_requested, the state unchanged) or has failed (the state is the failed step's; failure_message()
  // says why); every later call then returns false at once.
  bool step(double end);
  // Fixed-step runs: steps taken so far (step k ends at t = k h).
  long steps_taken() const { return fixed_steps_; }

  // Opens an output (the CLI's writer and layout) and writes the sample at the current time; closes one open.
  void open_output(const std::string& path);
  // The summary so far; with an output open, writes it into the file's attributes and closes it. `interrupted`: the
  // caller stopped early (a front end's Ctrl-C), and the status says so.
  RunSummary finish(bool interrupted = false);

  double time() const { return t_; }
  const VecX& state() const { return x_; }
  // For a front end that edits the state (a body's pose or velocity) or a body's external force: after the edit,
  // call state_changed(). The energy guard restarts from the new state (outside work, like an impulse) and an
  // adaptive run re-evaluates f at it.
  VecX& mutable_state() { return x_; }
  void state_changed();
  // Sets a body's external force (at its centre of mass) and torque, world frame, held until set again. Turns the
  // energy guard off: a controller's work is not an energy error.
  void set_external_load(int body, const Vec3& force, const Vec3& torque);
  // Every contact's result at the current state (force, point, couple, the model's channels).
  const std::vector<contact::ContactResult>& contact_results();
  const World& world() const { return world_; }
  bool failed() const { return summary_.failed; }
  const std::string& failure_message() const { return summary_.failure_message; }

 private:
  void write_sample(double t, const VecX& state, const Energies& e, double step_size);
  double guard_total(const Energies& en) const;
  bool commit(double h, double impulse_h);
  void blow_up(double h);
  void housekeeping(double h);
  bool step_fixed(double end);
  bool step_adaptive(double end);

  const Scenario& scenario_;
  World& world_;
  RunOptions options_;
  VecX x_, x_before_, scratch_;
  integ::OdeSystem system_;
  StepGuardReport guard_;
  std::unique_ptr<OutputWriter> writer_;
  RunSummary summary_;
  std::chrono::steady_clock::time_point wall_start_, last_flush_, last_progress_;
  long queries_at_start_ = 0;
  long coarsened_at_start_ = 0;
  std::unique_ptr<ImpulseScript> script_;
  std::vector<contact::ContactResult> results_;
  double lift_energy_ = 0;
  Energies e_;
  double min_total_ = 0, min_guard_ = 0, max_kinetic_ = 0;
  double t_ = 0;
  bool interrupted_ = false;
  // Fixed step.
  std::optional<integ::Stepper> fixed_;
  long fixed_steps_ = 0, sample_every_ = 1;
  // Error-controlled steps (docs/integration.md).
  std::optional<integ::AdaptiveStepper> adaptive_;
  std::optional<integ::StepController> controller_;
  integ::Tolerances tol_;
  double max_step_ = 0, event_step_ = 0, h_ = 0, step_end_ = 0;
  std::vector<BodyExtent> extents_;
  std::vector<double> breakpoints_;
  long switches_seen_ = 0, evaluations_ = 0, next_sample_ = 1;
  integ::OdeSystem before_end_;
  VecX f0_, sample_state_;
  std::vector<char> touching_;
  std::vector<double> accepted_steps_;
};

RunSummary run_simulation(const Scenario& scenario, BuiltWorld& built, const RunOptions& options);

}  // namespace vcsim
