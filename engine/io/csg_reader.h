// A body's CSG tree from YAML (docs/scenario-format.md, "Geometry (CSG)"): primitives with their placement, and
// union, intersection, difference and complement nodes.
#pragma once
#include "engine/io/yaml_reader.h"
#include "geometry/csg.h"

namespace vcsim::io {

geo::CsgNode read_csg(const YamlReader& L, const YAML::Node& n, const std::string& path);

}  // namespace vcsim::io
