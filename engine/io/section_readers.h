// The scenario loader's section readers (engine/io/scenario_loader.cpp calls them in order), split by section:
// bodies and materials (body_reader.cpp), impulses and loads (event_reader.cpp). Each reads one part of the document
// into the Scenario, reporting errors and warnings through the YamlReader.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/io/contact_params_reader.h"
#include "engine/io/yaml_reader.h"
#include "engine/scenario.h"

namespace vcsim::io {

// materials: name -> {density, description}; bodies and material pairs name them.
struct Materials {
  std::map<std::string, std::optional<double>> density;
  std::vector<std::string> names;
};
using MaterialPairParams = std::map<std::pair<std::string, std::string>, ParamSet>;

// A body name at `n` that is defined under 'bodies'.
std::string body_ref(const YamlReader& L, const YAML::Node& n, const std::string& path,
                     const std::vector<std::string>& body_names);

Materials read_materials(const YamlReader& L, const YAML::Node& root);
MaterialPairParams read_material_pairs(const YamlReader& L, const YAML::Node& root, const Materials& materials,
                                       Scenario& sc);
// Fills sc.bodies; returns the body names in file order.
std::vector<std::string> read_bodies(const YamlReader& L, const YAML::Node& root, const Materials& materials,
                                     Scenario& sc);
void read_impulses(const YamlReader& L, const YAML::Node& root, const std::vector<std::string>& body_names,
                   Scenario& sc);
void read_loads(const YamlReader& L, const YAML::Node& root, const std::vector<std::string>& body_names, Scenario& sc);

}  // namespace vcsim::io
