// The runs of a campaign (docs/sweeps.md, "Distributions"): every run's parameter values, then every
// run's scenario checked with the loader before anything runs.
#pragma once
#include "tools/sweep/sweep_internal.h"

namespace vcsim::sweep {

// Fills c.grid_points, c.samples, c.runs and c.values from c.spec. Throws InputError past 1e7 runs.
void generate_values(Campaign& c);

// Loads every run's scenario, with errors that point into the sweep file; then reads the outcomes against
// the base scenario's bodies and pairs (c.body_names, c.pair_names) and sets c.fingerprint. Throws InputError.
void validate_runs(Campaign& c);

}  // namespace vcsim::sweep
