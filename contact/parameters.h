// Contact parameters by their thesis names, per model, with units, defaults and validity checks.
// The scenario loader validates contact sections through this table.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace vcsim::contact {

struct ParameterInfo {
  std::string name;         // thesis name, e.g. "k_v", "e_eff", "mu_s"
  std::string units;        // SI, e.g. "N/m^3"
  double default_value;     // NaN when the parameter is required or derived
  std::string description;
  std::string rule = "";    // how a missing value is derived from the others (docs/contact-models.md, "Defaults")
};

// Model names accepted in scenario files ("point", "point_vertices", "volumetric", "cellular").
std::vector<std::string> model_names();
// The point-law models (Hertz/Sandia k δ^n at points): "point" and the per-vertex "point_vertices"; they share
// one parameter table.
bool is_point_model(const std::string& model);
// Parameters a model accepts; empty when the model is unknown.
const std::vector<ParameterInfo>& model_parameters(const std::string& model);

// One parameter as a run uses it, and where its value came from.
struct ResolvedValue {
  std::string name, units;
  double value = 0;
  std::string origin;  // "given", "default", or the rule that derived it ("mu_s / 1e-4 m (eq 3.46)")
};
// Every parameter of the model: the given ones, the defaults, and those derived by the thesis's rules (mu expanded
// to mu_s = mu_c, sigma0 from mu_s, sigma1 for critical damping, v_e = v_s/100). `params` must pass check_parameters.
std::vector<ResolvedValue> resolve_values(const std::string& model, const std::map<std::string, double>& params);

struct ParameterIssue {
  std::string key;       // the offending parameter (or "" for the pair as a whole)
  std::string expected;  // what was expected, e.g. "e_eff in (0, 1]"
};
// Checks values and cross-constraints (e_eff in (0,1], stiffness > 0, v_e < v_s, tau_dw >= 0, ...)
// and that every required parameter is present. Unknown names are reported too.
std::vector<ParameterIssue> check_parameters(const std::string& model,
                                             const std::map<std::string, double>& params);

}  // namespace vcsim::contact
