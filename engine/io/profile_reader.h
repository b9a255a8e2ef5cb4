// Time profiles from YAML (docs/scenario-format.md, "Time profiles"): a number, or {ramp|sine|step|table: ...};
// vectors of them, and turns about an axis.
#pragma once
#include <utility>
#include <vector>

#include "engine/io/yaml_reader.h"
#include "engine/prescribed.h"

namespace vcsim::io {

// `unit` names the value's unit in messages; `continuous`: a position, which may not jump (no step).
TimeProfile read_profile(const YamlReader& L, const YAML::Node& n, const std::string& path, const std::string& unit,
                         bool continuous = false);
// [x, y, z], each a number or a time profile.
Vec3Profile read_vec3_profile(const YamlReader& L, const YAML::Node& n, const std::string& path,
                              const std::string& unit, bool continuous = false);
// At least 2 times, strictly increasing (never sorted silently: an out-of-order time is a typo).
std::vector<double> read_table_times(const YamlReader& L, const YAML::Node& n, const std::string& path);
// A table's `interpolation` (linear or cubic) and `after` (hold or extrapolate).
void read_table_options(const YamlReader& L, const YAML::Node& b, const std::string& bp, TimeProfile& p,
                        bool cubic_default);
// {axis: [x, y, z], angle: PROFILE (rad) | angle_deg: PROFILE}: a turn about a fixed axis (unit axis, angle in rad).
std::pair<Vec3, TimeProfile> read_turn(const YamlReader& L, const YAML::Node& n, const std::string& path);

}  // namespace vcsim::io
