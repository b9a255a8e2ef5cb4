// The end of a campaign: the HDF5 table (docs/sweeps.md, "Output") and the summary on stdout.
#pragma once
#include <vector>

#include "tools/sweep/sweep_internal.h"

namespace vcsim::sweep {

// Writes the table of `results` (row i: run i) to OUT.tmp-PID, then renames it to P.output: a reader
// never sees half a table. Throws std::runtime_error.
void write_table(const Campaign& c, const Paths& P, const std::vector<RunResult>& results, double wall);

// Runs completed and failed, how many pass, the wall time, min / mean / max of every outcome column, the
// output file; then each failed run on stderr.
void print_summary(const Campaign& c, const Paths& P, const std::vector<RunResult>& results, double wall);

}  // namespace vcsim::sweep
