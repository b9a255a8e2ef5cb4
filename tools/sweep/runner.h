// Running a campaign. Every run is a `vcsim run` child process with its output in the work directory;
// a LocalPool keeps --jobs of them going. Under mpirun the ranks share the runs: rank 0 hands out run
// indices on request and gathers the results. Each finished run is recorded in its own file in the work
// directory (encode; --resume reads it back with decode).
#pragma once
#include <sys/types.h>

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "tools/sweep/sweep.h"
#include "tools/sweep/sweep_internal.h"

namespace vcsim::sweep {

// ---- MPI (optional: without it, or without mpirun, one rank of size 1)

struct Mpi {
  int rank = 0, size = 1, local_size = 1;  // local_size: ranks on this node
  bool active = false;
};

// Initialises MPI when launched by mpirun (and built with MPI).
void mpi_init(Mpi& m);
void mpi_finalize(Mpi& m);

// All ranks agree on a status (rank 0's); workers follow rank 0's decision to stop early.
int mpi_broadcast_int(const Mpi& m, int v);

// ---- the runs of this process

struct Child {
  pid_t pid = -1;
  long run = -1;
  Clock::time_point start;
};

// Runs up to `jobs` children at once.
struct LocalPool {
  const Campaign& c;
  const Paths& P;
  std::string exe;
  int jobs = 1, rank = 0, threads = 1;
  std::vector<Child> running;

  void start(long run);
  std::vector<RunResult> reap();  // the results of the children that have finished
  bool full() const { return int(running.size()) >= jobs; }
};

// Rank 0's account of the campaign: the runs to start, and the results so far by run index.
struct Schedule {
  std::deque<long> pending;
  std::vector<std::optional<RunResult>> results;
  long done = 0;  // results so far
};

// From now on a Ctrl-C (SIGINT, SIGTERM) stops starting runs instead of killing this process.
void catch_interrupts();

// Rank 0: runs the pending runs on its pool and hands them out to the worker ranks, records each result
// (its file in the work directory, its line on stdout) until all are done. Returns false after a Ctrl-C
// or an error (printed); the finished runs stay recorded.
bool run_pending(const Options& opt, const Mpi& mpi, LocalPool& pool, Schedule& sch);

// A worker rank: asks rank 0 for a run per free slot and sends back the results, until rank 0 says stop.
void worker_loop(LocalPool& pool);

// A finished run as one line of text (its result file, an MPI message), and back; nullopt if malformed.
std::string encode(const RunResult& r);
std::optional<RunResult> decode(const std::string& line, size_t ncols);

// Writes PATH.tmp, then renames it to `path`. Throws std::runtime_error.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace vcsim::sweep
