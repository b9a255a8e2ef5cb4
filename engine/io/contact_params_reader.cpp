#include "engine/io/contact_params_reader.h"

#include <algorithm>
#include <cmath>

#include "contact/parameters.h"

namespace vcsim::io {
namespace {

// Plausible ranges of contact values, for the warnings that catch values in other units.
constexpr double kMinVolumetricStiffness = 1e5, kMaxVolumetricStiffness = 1e16;
const char* const kVolumetricStiffnessRange = "1e5 to 1e16 N/m^3: soft foam on a 10 cm scale to steel on a 10 um scale";
constexpr double kMinHertzStiffness = 1e3, kMaxHertzStiffness = 1e13;
const char* const kHertzStiffnessRange = "1e3 to 1e13 N/m^1.5: k = 4/3 E* sqrt(R), rubber on 1 mm to steel on 1 m";
constexpr double kMaxFriction = 2;

}  // namespace

std::string read_model_name(const YamlReader& L, const YAML::Node& n, const std::string& path) {
  const std::string m = L.string(n, path, "a contact model (" + join_list(contact::model_names()) + ")");
  const auto names = contact::model_names();
  if (std::find(names.begin(), names.end(), m) == names.end()) {
    const std::string msg = with_hint("expected a contact model (" + join_list(names) + "); got '" + m + "'", m, names);
    L.fail(n, path, msg);
  }
  return m;
}

// Reads every key of `map` except `skip` as a parameter of `model`, with did-you-mean on unknown names.
void read_params(const YamlReader& L, const YAML::Node& map, const std::string& path, const std::string& model,
                 const std::vector<std::string>& skip, ParamSet& out) {
  std::vector<std::string> names;
  for (const auto& info : contact::model_parameters(model)) names.push_back(info.name);
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (std::find(skip.begin(), skip.end(), k) != skip.end()) continue;
    const std::string kp = child_path(path, k);
    if (std::find(names.begin(), names.end(), k) == names.end()) {
      std::vector<std::string> all = skip;
      all.insert(all.end(), names.begin(), names.end());
      const std::string msg = with_hint("expected " + join_list(skip) + " or a parameter of the '" + model +
                                            "' model (" + join_list(names) + "); got unknown key '" + k + "'",
                                        k, all);
      L.fail(it->first, kp, msg);
    }
    // Body stiffnesses may be .inf (rigid, eq 4.128); check_parameters decides what is allowed.
    out.params[k] = L.number(it->second, kp, "a number (parameter " + k + ")", true);
    out.where[k] = {it->second, kp};
  }
}

void check_param_set(const YamlReader& L, const ParamSet& set, const YAML::Node& section, const std::string& path) {
  const auto issues = contact::check_parameters(set.model, set.params);
  if (issues.empty()) return;
  const auto& issue = issues.front();
  // contact::check_parameters ends value errors with " (got X)"; say it as "; got X" like every other message.
  std::string expected = "expected " + issue.expected;
  if (const size_t at = expected.rfind(" (got "); at != std::string::npos && expected.back() == ')')
    expected = expected.substr(0, at) + "; got " + expected.substr(at + 6, expected.size() - at - 7);
  auto w = set.where.find(issue.key);
  if (w != set.where.end()) L.fail(w->second.first, w->second.second, expected);
  L.fail(section, path, expected);
}

// Values that no real material has (usually given in other units): warnings, never errors.
void check_param_ranges(const YamlReader& L, const ParamSet& set, const std::string& section) {
  const auto given = [&](const std::string& k) { return set.params.count(k) ? set.params.at(k) : std::nan(""); };
  for (const auto& [key, where] : set.where) {
    if (where.second.compare(0, section.size() + 1, section + ".") != 0) continue;  // checked with its own section
    const double x = set.params.at(key);
    if (key == "mu" || key == "mu_s" || key == "mu_c")
      L.check_range(where.first, where.second, x, 0, kMaxFriction, "(a friction coefficient)",
                    "dry friction is 0.05 to 1.5");
    const bool linear = !set.params.count("hyper_n") || given("hyper_n") == 1;
    if (!contact::is_point_model(set.model) && linear && (key == "k_v" || key == "k_v_i" || key == "k_v_j") &&
        std::isfinite(x))
      L.check_range(where.first, where.second, x, kMinVolumetricStiffness, kMaxVolumetricStiffness, "N/m^3",
                    kVolumetricStiffnessRange);
    if (contact::is_point_model(set.model) && key == "k" && (!set.params.count("n") || given("n") == 1.5))
      L.check_range(where.first, where.second, x, kMinHertzStiffness, kMaxHertzStiffness, "N/m^1.5",
                    kHertzStiffnessRange);
  }
}

// "file:line:column" of a parameter's value, and through which section it came ("material_pairs[0].mu").
std::map<std::string, std::string> origins(const YamlReader& L, const ParamSet& set) {
  std::map<std::string, std::string> out;
  for (const auto& [key, where] : set.where) {
    const geo::SourceLocation w = L.locate(where.first, where.second);
    out[key] = where.second + " (" + w.file + (w.line > 0 ? ":" + std::to_string(w.line) : "") + ")";
  }
  return out;
}

}  // namespace vcsim::io
