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
#include "engine/scenario.h"
#include "engine/world.h"
#include "integrators/adaptive_rk.h"

namespace vcsim {

// m x'' + c x' + k x = 0 with m > 0, c >= 0, k >= 0.
struct LinearMode {
  double mass = 1, damping = 0, stiffness = 0;
};

// Spectral radius of the one-step amplification matrix of `method` with step h on the mode.
double step_amplification(integ::Method method, const LinearMode& mode, double h);
// Largest h with step_amplification <= 1 (+1e-9 for round-off), to 1e-6 relative; +inf for a mode with
// no rate (c = k = 0); 0 when no step is stable (explicit Euler on an undamped oscillator).
double max_stable_step(integ::Method method, const LinearMode& mode);

// What the estimate needs of one contact pair, as plain numbers (so it can be tested on closed forms).
struct ContactGuardInput {
  std::string name;   // "<body_i>__<body_j>"
  std::string model;  // point, volumetric, cellular
  contact::ModelParams params;
  double mass_i = 0, mass_j = 0;          // kg; +inf for a fixed body
  double inertia_i = 0, inertia_j = 0;    // smallest principal moment, kg m^2; +inf for a fixed body
  double lever_i = 0, lever_j = 0;        // m, centre of mass to a contact point (lower bound)
  double load = 0;                        // N, static normal load
  double approach_speed = 0;              // m/s, the fastest the two can meet at t = 0 (for the impact load)
  double radius = 0;                      // m, curvature radius for a curved contact (0: flat)
  double flat_area = 0;                   // m^2, face area for a flat contact
};

struct ModeEstimate {
  std::string contact;
  std::string mode;     // "normal", "bristle (stiction)"
  LinearMode linear;
  double max_step = std::numeric_limits<double>::infinity();  // for the integrator asked
  std::string formula;  // how the numbers were obtained, with the thesis equations
  // Present only in some histories: the hysteretic damping at its largest, when a contact episode starts
  // slower than v_small (bodies placed in contact, the last micro-bounces). Reported, never warned about.
  bool conditional = false;
};

std::vector<ModeEstimate> estimate_contact_modes(const ContactGuardInput& input, integ::Method method);
// The peak normal force of an impact at the approach speed, from energy: 1/2 m v^2 = the work of the normal law to
// the deepest point (point: k x^n; volumetric: k_v pi R x^2 on a cap of radius R, k_v A x on a face of area A).
double impact_load(const ContactGuardInput& input);

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
