// Resolution of a contact section's parameter map (thesis names) into the typed values the models
// use: defaults filled from contact/parameters.h, derived constants (d(e_eff), v_e = v_s/100, the
// equivalent stiffness of eq 4.132) computed once.
#pragma once
#include <map>
#include <stdexcept>
#include <string>

#include "contact/friction.h"
#include "geometry/csg.h"
#include "geometry/located_error.h"

namespace vcsim::contact {


struct NormalParams {
  double k = 0;          // Hertz k [N/m^n] (point) or k_v [N/m^3] (volumetric, already the equivalent one)
  double n = 1.5;        // Hertz exponent (point only)
  double e_eff = 1;
  double d = 0;          // d(e_eff), eq 3.23
  double v_small = 1e-3;
  double tau_r = 1;      // 0: no relaxation
  double s_dw0 = 0;      // dwell state of a new contact episode
  double r_n = 0.95;     // normal-seed smoothing (eq A.31)
  double hyper_n = 1;    // volumetric: hypervolume exponent (Petersen); k then in N/m^(2+n)
  double alpha = 0;      // point only: Sandia damping, a = -1.5 alpha (LaFarge & Lewis 1998); 0: Gonthier's law
};

struct ModelParams {
  NormalParams normal;
  FrictionParams friction;
};

// Validates with check_parameters (throwing ContactError at `where` listing every issue) and resolves.
ModelParams resolve_parameters(const std::string& model, const std::map<std::string, double>& params,
                               const geo::SourceLocation& where = {});

}  // namespace vcsim::contact
