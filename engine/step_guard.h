// Step-size guard (issue 8; docs/reliability.md): before a run, estimate the fastest linear modes the
// contacts introduce and compare the fixed step with the integrator's stability limit for each.
//
// Each mode is a damped oscillator m x'' + c x' + k x = 0. Its stability limit is measured, not
// looked up: one step of the real integrator (integrators/explicit_rk) applied to the 2x2 linear
// system gives the amplification matrix, and the step is stable while its spectral radius is <= 1.
// So real-axis bounds (RK4: |lambda h| < 2.785), imaginary-axis bounds (RK4: omega h < 2 sqrt 2) and
// everything between (a damped bristle) come from the same code, for every method.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "contact/model_params.h"
#include "contact/stability.h"
#include "engine/scenario.h"
#include "engine/world.h"
#include "integrators/adaptive_rk.h"

namespace vcsim {

using contact::LinearMode;
// What the estimate needs of one contact pair (contact/stability.h).
using ContactGuardInput = contact::ContactLoading;
using contact::impact_load;

// Spectral radius of the one-step amplification matrix of `method` with step h on the mode.
double step_amplification(integ::Method method, const LinearMode& mode, double h);
// Largest h with step_amplification <= 1 (+1e-9 for round-off), to 1e-6 relative; +inf for a mode with
// no rate (c = k = 0); 0 when no step is stable (explicit Euler on an undamped oscillator).
double max_stable_step(integ::Method method, const LinearMode& mode);

struct ModeEstimate {
  std::string contact;
  std::string mode;     // "normal", "bristle (stiction)"
  LinearMode linear;
  double max_step = std::numeric_limits<double>::infinity();  // for the integrator asked
  std::string formula;  // how the numbers were obtained, with the thesis equations
  bool conditional = false;  // contact::ContactMode::conditional; warned about only for contacts placed at rest
};

// The contact's modes (contact::linear_modes) with their stability limits for `method`.
std::vector<ModeEstimate> estimate_contact_modes(const ContactGuardInput& input, integ::Method method);

struct StepGuardReport {
  std::vector<ModeEstimate> modes;
  double max_step = std::numeric_limits<double>::infinity();  // the smallest over the unconditional modes
  int limiting = -1;                                           // index into modes, -1 if none
  double max_step_all = std::numeric_limits<double>::infinity();  // over every mode, conditional ones too
  bool too_large = false;                                      // the scenario's step exceeds max_step
  std::string warning;                                         // one line when too_large
};

// The inputs of every contact of a built world (static load from gravity and the constant forces).
std::vector<ContactGuardInput> contact_guard_inputs(const Scenario& scenario, const World& world);
StepGuardReport check_step(const Scenario& scenario, const World& world);

}  // namespace vcsim
