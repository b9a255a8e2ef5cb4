// The outcomes of a sweep (docs/sweeps.md, "Outcomes"): what the sweep file asks for, read against the
// base scenario's bodies and pairs, and their values from a finished run's output file. Both sides of an
// outcome kind live in outcomes.cpp, so that a new kind is added in one place.
#pragma once
#include <string>
#include <vector>

#include "tools/sweep/sweep_internal.h"

namespace vcsim::sweep {

// Reads `outcomes` and `pass` into s.outcomes, s.pass and s.outcome_columns. Throws InputError.
void parse_outcomes(Spec& s, const std::vector<std::string>& bodies, const std::vector<std::string>& pairs);

// The outcome columns (s.outcome_columns) of a completed run from its output file. Throws std::runtime_error.
std::vector<double> compute_outcomes(const Campaign& c, long run, const std::string& h5);

}  // namespace vcsim::sweep
