// The parameter tables of the contact models (thesis Table 3.1 and §3.3, §4.5 for the volumetric set)
// and their validity checks.
#include "contact/parameters.h"

#include "contact/normal_force.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace vcsim::contact {
namespace {

constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();
constexpr double kDerived = std::numeric_limits<double>::quiet_NaN();  // with a rule
// Eq 3.46's pre-sliding distance when it is unknown: "dz << object size, e.g. 0.1 mm for a robotic payload".
constexpr double kPreSlidingDistance = 1e-4;
// The load the critical-damping rule (eq 3.51) assumes: the weight under standard gravity.
constexpr double kStandardGravity = 9.81;

// Normal-damping and relaxation parameters shared by both models (§3.2.1, §3.3.1, §4.2.2).
std::vector<ParameterInfo> damping_parameters() {
  return {
      {"e_eff", "1", 0.5,
       "effective coefficient of restitution, in (0, 1] (eq 3.14); d(e_eff) from eq 3.23. The default 0.5 is a "
       "moderately dissipative impact: measure it (section 3.3.1)"},
      {"v_small", "m/s", 1e-3,
       "impact speed below which the damping factor a is frozen at -d/(e_eff v_small) (eq 3.43)"},
      {"tau_r", "s", 1.0,
       "numerical relaxation time constant of the initial penetration (eqs 3.44-3.45); 0 disables relaxation"},
  };
}

// The seven friction parameters of Table 3.1 plus the numerical tolerance v_e and project extras.
std::vector<ParameterInfo> friction_parameters() {
  return {
      {"mu", "1", kDerived, "friction coefficient: mu_s = mu_c = mu (no stick-slip); or give mu_s and mu_c", ""},
      {"mu_s", "1", kDerived, "stiction coefficient mu_S (eq 3.37)", "= mu_c when only mu_c is given"},
      {"mu_c", "1", kDerived, "Coulomb coefficient mu_C (eq 3.32)", "= mu_s when only mu_s is given"},
      {"sigma0", "1/m", kDerived, "load-relative bristle stiffness sigma_0 (eq 3.28)",
       "mu_s / 1e-4 m (eq 3.46, pre-sliding distance 0.1 mm)"},
      {"sigma1", "s/m", kDerived, "load-relative bristle damping sigma_1 (eq 3.28)",
       "2 sqrt(sigma0 / 9.81 m/s^2) (eq 3.51, critical damping)"},
      {"sigma2", "s/m", 0.0, "load-relative viscous coefficient sigma_2 (eq 3.42)"},
      {"v_s", "m/s", 1e-3, "Stribeck velocity v_s of the stick weight s = exp(-v^2/v_s^2) (eq 3.30)"},
      {"tau_dw", "s", 0.0, "dwell-time constant (eq 3.36); 0 disables the dwell effect (s_dw follows s)"},
      {"v_e", "m/s", kDerived, "numerical velocity tolerance of dir_e (eq 3.33)", "v_s / 100 (section 3.3.2)"},
      {"s_dw0", "1", 0.0,
       "dwell state given to a new contact episode, in [0, 1]; 1 starts in full stiction (Bowden-Leben runs)"},
  };
}

std::vector<ParameterInfo> build_point() {
  std::vector<ParameterInfo> p = {
      {"k", "N/m^n", kRequired, "Hertz stiffness k of f_n = k |x|^n (eqs 2.1-2.4, 3.19)"},
      {"n", "1", 1.5, "Hertz exponent (3/2 for elastic spheres, eq 2.1)"},
      {"alpha", "s/m", 0.0,
       "Sandia nonlinear damping (LaFarge & Lewis 1998, Hunt-Crossley/Marhefka-Orin): when > 0, f_n = k d^n + "
       "lambda d^n dd/dt with lambda = 1.5 alpha k replaces the e_eff law (e ~ 1 - alpha v_i); e_eff is then not used"},
  };
  for (auto& x : damping_parameters()) p.push_back(x);
  for (auto& x : friction_parameters()) p.push_back(x);
  return p;
}

std::vector<ParameterInfo> build_volumetric() {
  std::vector<ParameterInfo> p = {
      {"k_v", "N/m^3", kRequired,
       "volumetric (equivalent) stiffness of f_n = k_v V (1 + a v_cn) (eq 4.62); may instead be given as k_v_i and "
       "k_v_j"},
      {"k_v_i", "N/m^3", 0.0,
       "stiffness of body i alone; with k_v_j gives k_v = 1/(1/k_v_i + 1/k_v_j) (eq 4.132); inf = rigid"},
      {"k_v_j", "N/m^3", 0.0, "stiffness of body j alone (see k_v_i); inf = rigid"},
  };
  for (auto& x : damping_parameters()) p.push_back(x);
  for (auto& x : friction_parameters()) p.push_back(x);
  p.push_back({"spin_scale", "1", 1.0,
               "scale of the spinning friction torque (eq 4.243); the thesis's modified Tippe-Top run uses 0.65"});
  p.push_back({"r_n", "1", 0.95,
               "weight of the previous normal in the eigenvector seed n_guess = (1-r_n) n_geo + r_n n_prev (eq A.31)"});
  p.push_back({"hyper_n", "1", 1.0,
               "Petersen's hyperelastic foundation: f_n = k_v V_h (1 + a v_cn) with the hypervolume V_h = ∫ L^n dA "
               "(L: immersed column length along the normal); k_v then has units N/m^(2+n). 1: the linear law k_v V"});
  return p;
}

const std::vector<ParameterInfo>& empty_table() {
  static const std::vector<ParameterInfo> e;
  return e;
}

std::string fmt(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

std::vector<std::string> model_names() { return {"point", "point_vertices", "volumetric", "cellular"}; }

bool is_point_model(const std::string& model) { return model == "point" || model == "point_vertices"; }

const std::vector<ParameterInfo>& model_parameters(const std::string& model) {
  static const std::vector<ParameterInfo> point = build_point();
  static const std::vector<ParameterInfo> volumetric = build_volumetric();
  if (is_point_model(model)) return point;  // point_vertices: the same law at every vertex
  if (model == "volumetric" || model == "cellular") return volumetric;  // cellular = volumetric per cell pair
  return empty_table();
}

std::vector<ParameterIssue> check_parameters(const std::string& model,
                                             const std::map<std::string, double>& params) {
  std::vector<ParameterIssue> issues;
  const auto& table = model_parameters(model);
  if (table.empty()) {
    issues.push_back({"", "model one of point, point_vertices, volumetric, cellular (got '" + model + "')"});
    return issues;
  }
  std::set<std::string> known;
  for (const auto& info : table) known.insert(info.name);
  for (const auto& [name, value] : params) {
    if (!known.count(name)) {
      std::string list;
      for (const auto& info : table) list += (list.empty() ? "" : ", ") + info.name;
      issues.push_back({name, "a parameter of the '" + model + "' model (" + list + ")"});
    } else if (std::isnan(value)) {
      issues.push_back({name, "a number"});
    }
  }
  auto has = [&](const std::string& k) { return params.count(k) && !std::isnan(params.at(k)); };
  auto get = [&](const std::string& k) {
    if (has(k)) return params.at(k);
    for (const auto& info : table)
      if (info.name == k) return info.default_value;
    return kRequired;
  };
  const bool volumetric = !is_point_model(model);
  // Required parameters. k_v may be replaced by the pair (k_v_i, k_v_j); mu by mu_s and/or mu_c.
  for (const auto& info : table) {
    if (!std::isnan(info.default_value) || !info.rule.empty() || info.name == "mu" || has(info.name)) continue;
    if (volumetric && info.name == "k_v" && has("k_v_i") && has("k_v_j")) continue;
    if (!volumetric && info.name == "e_eff" && has("alpha") && get("alpha") > 0) continue;  // Sandia law
    std::string what = "required parameter " + info.name + " [" + info.units + "]: " + info.description;
    issues.push_back({info.name, what});
  }
  if (!has("mu") && !has("mu_s") && !has("mu_c"))
    issues.push_back({"mu", "required parameter mu [1] (or mu_s and mu_c): the friction coefficient; 0 for none"});
  if (has("mu") && (has("mu_s") || has("mu_c")))
    issues.push_back({"mu", "either mu (mu_s = mu_c = mu) or mu_s and mu_c, not both"});
  auto check = [&](const std::string& key, bool ok, const std::string& expected) {
    if (has(key) && !ok) issues.push_back({key, expected + " (got " + fmt(get(key)) + ")"});
  };
  auto finite_pos = [](double x) { return std::isfinite(x) && x > 0; };
  auto nonneg = [](double x) { return std::isfinite(x) && x >= 0; };

  const double e = get("e_eff");
  check("e_eff", e > 0 && e <= 1, "e_eff in (0, 1] (e_eff = 0 is impossible, eq 3.24; use 0.01 for plastic)");
  if (!volumetric) {
    check("k", finite_pos(get("k")), "k > 0 and finite");
    check("n", std::isfinite(get("n")) && get("n") >= 1, "n >= 1");
    check("alpha", std::isfinite(get("alpha")) && get("alpha") >= 0, "alpha >= 0 (0: the e_eff law)");
    if (has("alpha") && get("alpha") > 0 && has("e_eff"))
      issues.push_back({"alpha", "either e_eff (Gonthier's law) or alpha (Sandia's law), not both"});
  } else {
    check("k_v", finite_pos(get("k_v")), "k_v > 0 and finite");
    // Rigid bodies are the limit k -> inf (eq 4.128); both rigid gives no compliance at all.
    check("k_v_i", get("k_v_i") > 0, "k_v_i > 0 (inf for a rigid body)");
    check("k_v_j", get("k_v_j") > 0, "k_v_j > 0 (inf for a rigid body)");
    if (has("k_v_i") != has("k_v_j"))
      issues.push_back({has("k_v_i") ? "k_v_j" : "k_v_i", "k_v_i and k_v_j given together"});
    if (has("k_v") && has("k_v_i") && has("k_v_j"))
      issues.push_back({"k_v", "either k_v or the pair k_v_i, k_v_j, not both"});
    if (has("k_v_i") && has("k_v_j") && std::isinf(get("k_v_i")) && std::isinf(get("k_v_j")))
      issues.push_back({"k_v_i", "at least one compliant body (k_v_i and k_v_j are both inf)"});
    check("spin_scale", nonneg(get("spin_scale")), "spin_scale >= 0");
    check("r_n", get("r_n") >= 0 && get("r_n") < 1, "r_n in [0, 1)");
    check("hyper_n", finite_pos(get("hyper_n")), "hyper_n > 0 and finite (1: the linear foundation)");
    // The series rule (eq 4.132) is the linear foundation's; two power-law foundations do not combine that way.
    if (has("hyper_n") && get("hyper_n") != 1 && has("k_v_i") && has("k_v_j") && !std::isinf(get("k_v_i")) &&
        !std::isinf(get("k_v_j")))
      issues.push_back({"hyper_n", "hyper_n != 1 with k_v, or with k_v_i/k_v_j only when one side is rigid (inf): "
                                   "the series stiffness (eq 4.132) holds for the linear law only"});
  }
  check("v_small", finite_pos(get("v_small")), "v_small > 0");
  check("tau_r", nonneg(get("tau_r")), "tau_r >= 0 (0 disables relaxation)");
  check("mu", nonneg(get("mu")), "mu >= 0");
  check("mu_c", nonneg(get("mu_c")), "mu_c >= 0");
  check("mu_s", nonneg(get("mu_s")), "mu_s >= 0");
  if (has("mu_s") && has("mu_c") && get("mu_c") > get("mu_s"))
    issues.push_back({"mu_c", "mu_c <= mu_s (got mu_c = " + fmt(get("mu_c")) + " > mu_s = " + fmt(get("mu_s")) + ")"});
  check("sigma0", finite_pos(get("sigma0")), "sigma0 > 0");
  check("sigma1", finite_pos(get("sigma1")), "sigma1 > 0 (the bristle time constant is sigma1/sigma0)");
  check("sigma2", nonneg(get("sigma2")), "sigma2 >= 0");
  check("v_s", finite_pos(get("v_s")), "v_s > 0");
  check("tau_dw", nonneg(get("tau_dw")), "tau_dw >= 0 (0 disables the dwell effect)");
  check("v_e", nonneg(get("v_e")), "v_e >= 0 (0 means v_s/100)");
  if (has("sigma1") && !has("sigma0"))
    issues.push_back({"sigma1", "sigma1 together with sigma0 (the default sigma0 comes with its own critical damping)"});
  check("s_dw0", get("s_dw0") >= 0 && get("s_dw0") <= 1, "s_dw0 in [0, 1]");
  const double v_e = get("v_e") > 0 ? get("v_e") : get("v_s") / 100;
  if (has("v_e") && get("v_e") > 0 && finite_pos(get("v_s")) && !(v_e < get("v_s")))
    issues.push_back({"v_e", "v_e < v_s (thesis rule v_e <= v_s/10; got v_e = " + fmt(v_e) +
                                 ", v_s = " + fmt(get("v_s")) + ")"});
  return issues;
}

std::vector<ResolvedValue> resolve_values(const std::string& model, const std::map<std::string, double>& params) {
  std::map<std::string, ResolvedValue> v;
  for (const auto& info : model_parameters(model)) {
    if (info.name == "mu") continue;
    ResolvedValue r{info.name, info.units, info.default_value, "default"};
    if (auto it = params.find(info.name); it != params.end()) r.value = it->second, r.origin = "given";
    v[info.name] = r;
  }
  // Each missing value is derived once, by the first rule that applies.
  const auto derive = [&](const std::string& name, double value, const std::string& origin) {
    if (v[name].origin != "default" || !std::isnan(v[name].value)) return;
    v[name].value = value;
    v[name].origin = origin;
  };
  if (auto mu = params.find("mu"); mu != params.end()) {
    derive("mu_s", mu->second, "= mu");
    derive("mu_c", mu->second, "= mu");
  }
  derive("mu_s", v["mu_c"].value, "= mu_c (only mu_c given)");
  derive("mu_c", v["mu_s"].value, "= mu_s (only mu_s given)");
  // Frictionless (mu_s = 0): any positive bristle; it carries no force.
  derive("sigma0", std::max(v["mu_s"].value, 1e-2) / kPreSlidingDistance, "mu_s / 1e-4 m (eq 3.46)");
  derive("sigma1", 2 * std::sqrt(v["sigma0"].value / kStandardGravity), "2 sqrt(sigma0 / 9.81 m/s^2) (eq 3.51)");
  if (v["v_e"].value == 0) v["v_e"].value = kDerived, v["v_e"].origin = "default";  // a given 0 means the rule
  derive("v_e", v["v_s"].value / 100, "v_s / 100");
  if (v.count("k_v") && params.count("k_v_i"))
    derive("k_v", equivalent_stiffness(params.at("k_v_i"), params.at("k_v_j")), "1/(1/k_v_i + 1/k_v_j) (eq 4.132)");
  std::vector<ResolvedValue> out;
  for (const auto& info : model_parameters(model))
    if (v.count(info.name)) out.push_back(v[info.name]);
  return out;
}

}  // namespace vcsim::contact
