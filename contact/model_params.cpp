#include "contact/model_params.h"

#include <cmath>

#include "contact/normal_force.h"
#include "contact/parameters.h"

namespace vcsim::contact {

ModelParams resolve_parameters(const std::string& model, const std::map<std::string, double>& params,
                               const geo::SourceLocation& where) {
  const auto issues = check_parameters(model, params);
  if (!issues.empty()) {
    std::string msg;
    for (const auto& is : issues) msg += (msg.empty() ? "" : "; ") + (is.key.empty() ? "" : is.key + ": ") + is.expected;
    throw ContactError(where, msg);
  }
  std::map<std::string, double> value;
  for (const auto& r : resolve_values(model, params)) value[r.name] = r.value;
  auto get = [&](const std::string& name) { return value.at(name); };
  ModelParams m;
  NormalParams& n = m.normal;
  if (is_point_model(model)) {
    n.k = get("k");
    n.n = get("n");
    n.alpha = get("alpha");
  } else {
    n.k = get("k_v");
    n.r_n = get("r_n");
    n.hyper_n = get("hyper_n");
    m.friction.spin_scale = get("spin_scale");
  }
  n.e_eff = n.alpha > 0 ? 1.0 : get("e_eff");  // the Sandia law does not use e_eff
  n.d = damping_constant(n.e_eff);
  n.v_small = get("v_small");
  n.tau_r = get("tau_r");
  n.s_dw0 = get("s_dw0");
  FrictionParams& f = m.friction;
  f.mu_s = get("mu_s");
  f.mu_c = get("mu_c");
  f.sigma0 = get("sigma0");
  f.sigma1 = get("sigma1");
  f.sigma2 = get("sigma2");
  f.v_s = get("v_s");
  f.tau_dw = get("tau_dw");
  f.v_e = get("v_e");
  return m;
}

}  // namespace vcsim::contact
