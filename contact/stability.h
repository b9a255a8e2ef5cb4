// The linear modes a contact adds to the dynamics, linearised at a load (docs/reliability.md, "Step-size guard"):
// each one a damped oscillator m x'' + c x' + k x = 0 of the pair's relative motion, from the contact laws (normal:
// Hertz or k_v V; its hysteretic damping latched at v_small; the bristle in stiction). The engine's step guard
// (engine/step_guard.h) finds the integrators' stability limits for them.
#pragma once
#include <string>
#include <vector>

#include "contact/model_params.h"

namespace vcsim::contact {

// m x'' + c x' + k x = 0 with m > 0, c >= 0, k >= 0.
struct LinearMode {
  double mass = 1, damping = 0, stiffness = 0;
};

// What the linearisation needs of one contact pair, as plain numbers (so it can be tested on closed forms).
struct ContactLoading {
  std::string name;   // "<body_i>__<body_j>"
  std::string model;  // point, point_vertices, volumetric, cellular
  ModelParams params;
  double mass_i = 0, mass_j = 0;          // kg; +inf for a fixed body
  double inertia_i = 0, inertia_j = 0;    // smallest principal moment, kg m^2; +inf for a fixed body
  double lever_i = 0, lever_j = 0;        // m, centre of mass to a contact point (lower bound)
  double load = 0;                        // N, static normal load
  double approach_speed = 0;              // m/s, the fastest the two can meet at t = 0 (for the impact load)
  double radius = 0;                      // m, curvature radius for a curved contact (0: flat)
  double flat_area = 0;                   // m^2, face area for a flat contact
};

struct ContactMode {
  std::string mode;     // "normal", "normal, damping latched at v_small", "bristle (stiction)"
  LinearMode linear;
  std::string formula;  // how the numbers were obtained, with the thesis equations
  // Present only in some histories: the hysteretic damping at its largest, when a contact episode starts
  // slower than v_small (bodies placed in contact, the last micro-bounces).
  bool conditional = false;
};

// At the static load, or without one (no gravity, no load) at the peak of an impact at the approach speed.
std::vector<ContactMode> linear_modes(const ContactLoading& in);
// The peak normal force of an impact at the approach speed, from energy: 1/2 m v^2 = the work of the normal law to
// the deepest point (point: k x^n; volumetric: k_v pi R x^2 on a cap of radius R, k_v A x on a face of area A).
double impact_load(const ContactLoading& in);

}  // namespace vcsim::contact
