// A contact's (or a material pair's) model and parameters from YAML, by their thesis names, validated by
// contact::check_parameters with each problem located at its value.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/io/yaml_reader.h"

namespace vcsim::io {

struct ParamSet {
  std::string model;
  std::map<std::string, double> params;
  std::map<std::string, std::pair<YAML::Node, std::string>> where;  // parameter -> value node, key path
};

std::string read_model_name(const YamlReader& L, const YAML::Node& n, const std::string& path);
// Reads every key of `map` except `skip` as a parameter of `model`, with did-you-mean on unknown names.
void read_params(const YamlReader& L, const YAML::Node& map, const std::string& path, const std::string& model,
                 const std::vector<std::string>& skip, ParamSet& out);
// The first problem contact::check_parameters finds, as a located error at its value (or at the section).
void check_param_set(const YamlReader& L, const ParamSet& set, const YAML::Node& section, const std::string& path);
// Values that no real material has (usually given in other units): warnings, never errors. Only the values written
// in `section` (a contact's own, not those it inherits from a material pair, which were checked with the pair).
void check_param_ranges(const YamlReader& L, const ParamSet& set, const std::string& section);
// "key.path (file:line)" of each given parameter: where `vcsim check` says it came from.
std::map<std::string, std::string> origins(const YamlReader& L, const ParamSet& set);

}  // namespace vcsim::io
