// The plain data that the stages of `vcsim sweep` pass on (tools/sweep/sweep.cpp runs them in order):
// the sweep file as read (Spec), the runs it asks for (Campaign), where a campaign's files go (Paths)
// and a finished run (RunResult); and the few text helpers every stage uses. Private to tools/sweep/.
#pragma once
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tools/sweep/expr.h"

namespace vcsim::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Exact (the runs' --set values, result files) and short (messages) number formats.
inline std::string fmt17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

inline std::string fmt_short(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

inline std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

inline std::string read_text(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = bool(in);
  std::ostringstream b;
  if (ok) b << in.rdbuf();
  return b.str();
}

// ---- the sweep file (spec.cpp; the outcomes in outcomes.cpp)

struct Parameter {
  std::string name, path, kind;  // kind: grid, list, uniform, normal, lhs
  std::vector<double> values;    // grid and list
  double a = 0, b = 0;           // uniform/lhs: min, max; normal: mean, std
  YAML::Node path_node, dist_node;
  std::vector<YAML::Node> value_nodes;  // list items (for errors)
  std::string key_path;                 // parameters[i]
  bool random() const { return kind == "uniform" || kind == "normal" || kind == "lhs"; }
};

// A reference to a per-sample dataset of a run's output, with a component.
struct SeriesRef {
  std::string text;     // as written
  std::string dataset;  // e.g. /bodies/ball/position
  int component = -1;   // -1: scalar dataset (or width 1), -2: Euclidean norm of the row
};

struct Outcome {
  std::string name, kind;  // final, initial, max, min, final_pose (7 columns), max_force, event, energy_dissipated
  SeriesRef series;
  std::string from;         // name of an event outcome: max/min only over samples at or after it
  std::string event;        // first_contact, last_contact, inverted, at_rest
  std::string pair, body;   // event arguments
  double axis[3] = {0, 0, 1}, up[3] = {0, 0, 1};
  double speed = 1e-3, angular_speed = 1e-2;
  std::vector<std::string> columns;  // table columns this outcome fills
  std::string key_path;
  std::shared_ptr<const Expr> expression;  // kind "expression": over the parameters and the outcomes above
};

struct Spec {
  std::string file, text, dir;
  std::string base, base_text;  // base scenario path (as resolved) and its text
  std::string name;
  uint64_t seed = 0;
  long samples = 0;             // draws per grid point (random/lhs parameters)
  bool keep_series = false;
  std::string output;
  std::vector<std::pair<std::string, std::string>> fixed;  // path, YAML value text
  std::vector<YAML::Node> fixed_nodes;
  std::vector<Parameter> params;
  std::vector<Outcome> outcomes;
  std::string pass_text;
  std::shared_ptr<const Expr> pass;
  YAML::Node pass_node;
  std::vector<std::string> outcome_columns;  // all outcome columns in order (+ "pass" if any)

  std::vector<std::string> fixed_overrides() const {  // as --set takes them
    std::vector<std::string> o;
    for (const auto& f : fixed) o.push_back(f.first + "=" + f.second);
    return o;
  }
};

// ---- the runs (campaign.cpp)

struct Campaign {
  Spec spec;
  long runs = 0, grid_points = 1, samples = 1;
  std::vector<std::vector<double>> values;  // [run][parameter]
  std::vector<std::string> body_names, pair_names;
  uint64_t fingerprint = 0;

  std::vector<std::string> overrides(long run) const {
    std::vector<std::string> o = spec.fixed_overrides();
    for (size_t k = 0; k < spec.params.size(); ++k) o.push_back(spec.params[k].path + "=" + fmt17(values[run][k]));
    return o;
  }
};

// ---- running them (runner.cpp) and the table (table.cpp)

// The table OUT and the work directory OUT.runs/ with each run's files.
struct Paths {
  std::string output, work;
  std::string series(long r) const {
    char b[32];
    std::snprintf(b, sizeof b, "run_%06ld", r);
    return (fs::path(work) / (std::string(b) + ".h5")).string();
  }
  std::string result(long r) const { return fs::path(series(r)).replace_extension(".result").string(); }
  std::string log(long r) const { return fs::path(series(r)).replace_extension(".log").string(); }
};

struct RunResult {
  long index = -1;
  std::string status;            // "completed" or "failed: ..."
  double wall = 0;
  int rank = 0;
  std::vector<double> values;    // one per outcome column (incl. pass)
};

}  // namespace vcsim::sweep
