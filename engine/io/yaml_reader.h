// Reading YAML with errors that point back into the file: every failure names file:line:column (or the --set
// override that produced the value), the key path and what was expected, because a user fixing a scenario should
// never need a debugger. The scenario loader's section readers (engine/io/*_reader.cpp) are built on it.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "engine/input_error.h"
#include "geometry/csg.h"
#include "geometry/pose.h"

namespace vcsim {

int levenshtein_distance(const std::string& a, const std::string& b);

namespace io {

// The closest candidate within edit distance 2 (case-insensitive), or "".
std::string did_you_mean(const std::string& got, const std::vector<std::string>& candidates);
// `message` + "; did you mean 'X'?" when a candidate is close to `got`.
std::string with_hint(std::string message, const std::string& got, const std::vector<std::string>& candidates);
std::string join_list(const std::vector<std::string>& items);
std::string fmt_number(double x);  // 12 significant digits
std::string child_path(const std::string& parent, const std::string& key);
std::string index_path(const std::string& parent, size_t i);
// A list index written as decimal digits. Indices too long to be real (more than 9 digits, which std::stoul
// would throw on or wrap) come back as kNotAnIndex, so callers report them like any index out of range.
constexpr size_t kNotAnIndex = static_cast<size_t>(-1);
size_t parse_index(const std::string& digits);
// What a node holds, for the "; got ..." part of a message.
std::string describe(const YAML::Node& n);
// Letters, digits, '_' and '-': names that become HDF5 group names and key-path segments.
bool valid_name(const std::string& s);

// A quaternion is silently normalised only when it is already unit to this tolerance; anything
// farther away is more likely a typo than rounding.
constexpr double kQuaternionNormTolerance = 1e-6;

// A --set override: its canonical key path (e.g. "contacts[0].k_v") and its text on the command line.
struct Override {
  std::string path;
  std::string text;
};

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  std::vector<Override> overrides;
  // Setups that load but are likely wrong (InputWarning), collected while reading.
  mutable std::vector<InputWarning> warnings;

  // Where a node came from: the file position, or the override that produced it.
  geo::SourceLocation locate(const YAML::Node& node, const std::string& path) const;

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, const std::string& expected) const;
  [[noreturn]] void fail_got(const YAML::Node& node, const std::string& path, const std::string& expected) const;

  // Checks that `map` is a map whose keys are all in `allowed` and not repeated.
  void check_map(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
                 const std::string& what) const;

  // A user-named map (bodies, materials): keys are names, each once, usable in --set paths.
  std::vector<std::tuple<std::string, YAML::Node, YAML::Node>> named_map(const YAML::Node& map, const std::string& path,
                                                                         const std::string& what,
                                                                         const std::string& entry) const;

  // A map whose keys are checked elsewhere (open parameter sets): only type and uniqueness here.
  void check_unique_keys(const YAML::Node& map, const std::string& path, const std::string& what) const;

  std::string key_string(const YAML::Node& key, const std::string& parent) const;

  // The value under `key`, or an undefined node. Duplicate keys are reported by check_map.
  static YAML::Node find(const YAML::Node& map, const std::string& key);

  YAML::Node require(const YAML::Node& map, const std::string& key, const std::string& path,
                     const std::string& expected) const;

  double number(const YAML::Node& n, const std::string& path, const std::string& what = "a number",
                bool allow_inf = false) const;

  double positive(const YAML::Node& n, const std::string& path, const std::string& what) const;

  std::string string(const YAML::Node& n, const std::string& path, const std::string& what) const;

  bool boolean(const YAML::Node& n, const std::string& path) const;

  std::vector<double> numbers(const YAML::Node& n, const std::string& path, size_t count,
                              const std::string& what) const;

  Vec3 vec3(const YAML::Node& n, const std::string& path, const std::string& what) const;

  // {quaternion: [w, x, y, z]} or {rpy_deg: [roll, pitch, yaw]}.
  Quat orientation(const YAML::Node& n, const std::string& path) const;

  // Full 3x3 inertia from [Ixx, Iyy, Izz], [[..],[..],[..]] or {moments: [..], products: [Ixy, Ixz, Iyz]}.
  Mat3 inertia(const YAML::Node& n, const std::string& path) const;

  void warn(const YAML::Node& node, const std::string& path, const std::string& message) const;
  // A value far outside the range its unit allows for real materials: usually a value in other units.
  void check_range(const YAML::Node& node, const std::string& path, double x, double low, double high,
                   const std::string& unit, const std::string& typical) const;

 private:
  std::string file_;
};

}  // namespace io
}  // namespace vcsim
