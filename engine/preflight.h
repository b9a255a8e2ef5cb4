// The checks between building a world and running it (docs/reliability.md, "Warnings"): setups that load but are
// likely to give a wrong answer get a warning that names where in the scenario they come from; a setup that cannot
// work at all is an InputError.
#pragma once
#include <vector>

#include "engine/input_error.h"
#include "engine/simulation.h"
#include "engine/step_guard.h"

namespace vcsim {

struct PreflightReport {
  StepGuardReport guard;
  std::vector<InputWarning> warnings;  // the loader's (Scenario::warnings), then these checks'
};

// Warns about: bodies that start overlapping with a contact force above 10 x the lighter one's weight; a step past
// the stability limit of a contact mode (with or without gravity); a contact placed at rest whose damping, latched at
// v_small, is near the step's stability limit. Throws InputError when a contact pairs two unbounded cells that
// overlap (their interference is infinite).
PreflightReport preflight(const Scenario& scenario, const BuiltWorld& built);

// Ratio of the contact force to the weight above which a start in overlap is reported.
constexpr double kOverlapForceRatio = 10;
// A step beyond this fraction of the latched-damping mode's stability limit makes the force chatter.
constexpr double kDampingStepFraction = 0.5;

}  // namespace vcsim
