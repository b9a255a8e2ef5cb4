// Runs a world through time with a fixed-step integrator, writing samples to HDF5 as it goes.
#pragma once
#include <csignal>
#include <functional>
#include <string>

#include "engine/scenario.h"
#include "engine/world.h"

namespace vcsim {

struct Progress {
  double sim_time = 0, duration = 0, wall_time = 0;
};

struct RunOptions {
  std::string output_path;
  std::function<void(const Progress&)> on_progress;  // called about 10 times a second
  const volatile std::sig_atomic_t* stop_requested = nullptr;  // set by a SIGINT handler
  double dump_vdb_time = -1;  // < 0: off; else write .vdb files of overlaps at that time
  std::string dump_vdb_prefix;
};

struct RunSummary {
  std::string status;  // "completed", "interrupted", or "failed: ..."
  bool failed = false;
  double sim_time = 0, wall_time = 0;
  long steps = 0, rhs_evaluations = 0, samples = 0;
  long interference_queries = 0;  // narrow-phase geometry queries during the run
  Energies initial_energy, final_energy;
  double max_energy_increase = 0;  // J, largest rise of the total energy above its running minimum
  bool passive = true;
  std::string failure_message;
  int vdb_files = 0;  // written by --dump-vdb
};

// Builds the world from a validated scenario (mass properties from geometry where asked,
// centre-of-mass frames, contact pairs). Throws InputError or geo::GeometryError on bad input.
struct BuiltWorld {
  World world;
  VecX initial_state;
};
BuiltWorld build_world(const Scenario& scenario);

RunSummary run_simulation(const Scenario& scenario, BuiltWorld& built, const RunOptions& options);

}  // namespace vcsim
