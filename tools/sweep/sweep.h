// `vcsim sweep`: parameter sweeps and Monte Carlo campaigns (issue 9; docs/sweeps.md).
//
// A sweep file names a base scenario, parameters by their --set paths (grid, list, uniform, normal,
// Latin hypercube) and scalar outcomes. Every run is a `vcsim run` child process with --threads 1
// (crash isolation, no oversubscription); --jobs of them run at once. Under mpirun the ranks share the
// runs: rank 0 hands out run indices on request and gathers the results. Finished runs are recorded
// one file each in the work directory OUT.runs/, which is what --resume reads. The table is written to
// OUT (HDF5) at the end, atomically.
#pragma once
#include <string>

namespace vcsim::sweep {

struct Options {
  std::string file;      // the sweep file (YAML)
  std::string output;    // HDF5 table; default: the sweep's `output`, else <sweep stem>.h5
  int jobs = 0;          // concurrent runs on this process (rank); 0 = cores / (ranks on this node x threads_per_run)
  int threads_per_run = 1;  // TBB threads of each run (bit-identical tables are guaranteed only with 1)
  bool resume = false;   // keep the finished runs of an interrupted campaign
  bool quiet = false;    // no per-run lines
  bool check_only = false;  // validate the sweep file and every run's scenario, run nothing
  std::string self_exe;  // the vcsim binary that runs each simulation (default /proc/self/exe)
};

// Runs the campaign; returns the process exit status (0 all runs completed, 1 a run failed or a
// runtime error, 2 bad input: nothing written). Initialises and finalises MPI when launched by mpirun.
int run_sweep(const Options& options);

}  // namespace vcsim::sweep
