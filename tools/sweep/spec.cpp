// Reading a sweep file: see tools/sweep/spec.h.
#include "tools/sweep/spec.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <set>

#include "engine/input_error.h"
#include "engine/io/scenario_loader.h"

namespace vcsim::sweep {

[[noreturn]] void fail(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& expected) {
  int line = 0, col = 0;
  if (n.IsDefined()) {
    const YAML::Mark m = n.Mark();
    if (!m.is_null()) line = m.line + 1, col = m.column + 1;
  }
  throw InputError(s.file, line, col, path, expected);
}

void check_keys(const Spec& s, const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
                const std::string& what) {
  if (!map.IsMap()) fail(s, map, path, "expected " + what + " (a map); got " + describe(map));
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    const std::string kp = path.empty() ? key : path + "." + key;
    if (!seen.insert(key).second) fail(s, it->first, kp, "expected each key once; got a second '" + key + "'");
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      fail(s, it->first, kp,
           "expected a key of " + what + " (" + join(allowed) + "); got unknown key '" + key + "'" +
               did_you_mean(key, allowed));
  }
}

void expect_one_of(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& value,
                   const std::vector<std::string>& options, const std::string& what) {
  if (std::find(options.begin(), options.end(), value) == options.end())
    fail(s, n, path, "expected " + what + " (" + join(options) + "); got '" + value + "'" + did_you_mean(value, options));
}

double number(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& what) {
  if (!n.IsScalar() || n.Tag() == "!") fail(s, n, path, "expected " + what + "; got " + describe(n));
  double v;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    fail(s, n, path, "expected " + what + "; got " + describe(n));
  }
  if (!std::isfinite(v)) fail(s, n, path, "expected " + what + " (finite); got " + describe(n));
  return v;
}

std::string string_of(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& what) {
  if (!n.IsScalar() || n.Scalar().empty()) fail(s, n, path, "expected " + what + "; got " + describe(n));
  return n.Scalar();
}

YAML::Node find(const YAML::Node& map, const std::string& key) {
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.Scalar() == key) return it->second;
  return YAML::Node(YAML::NodeType::Undefined);
}

bool valid_column(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::shared_ptr<const Expr> parse_checked(const Spec& s, const YAML::Node& n, const std::string& key,
                                          const std::string& what, const std::set<std::string>& columns) {
  const std::string text = string_of(s, n, key, what);
  std::string error;
  std::unique_ptr<Expr> e = parse_expression(text, error);
  if (!e) fail(s, n, key, "expected " + error + " in '" + text + "'");
  std::vector<std::string> vars;
  collect_vars(*e, vars);
  for (const auto& v : vars)
    if (!columns.count(v))
      fail(s, n, key, "expected a parameter or outcome column defined above (" + join({columns.begin(), columns.end()}) +
                          "); got '" + v + "'" + did_you_mean(v, {columns.begin(), columns.end()}));
  return e;
}

namespace {

const std::vector<std::string> kDistributions = {"grid", "list", "uniform", "normal", "lhs"};

std::string default_column_name(const std::string& path) {
  std::string c;
  for (char ch : path) c += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  while (c.find("__") != std::string::npos) c.replace(c.find("__"), 2, "_");
  while (!c.empty() && c.back() == '_') c.pop_back();
  return c;
}

// The base scenario, relative to the sweep file, and its text.
void parse_base(Spec& s, const YAML::Node& root) {
  const YAML::Node base = find(root, "base");
  if (!base.IsDefined()) fail(s, root, "", "expected required key 'base' (the scenario file, relative to this file); it is missing");
  const std::string base_rel = string_of(s, base, "base", "a scenario file path");
  s.base = fs::path(base_rel).is_absolute() ? base_rel : (fs::path(s.dir.empty() ? "." : s.dir) / base_rel).lexically_normal().string();
  bool ok = false;
  s.base_text = read_text(s.base, ok);
  if (!ok) fail(s, base, "base", "expected a readable scenario file; got '" + s.base + "' (" + std::strerror(errno) + ")");
}

// `fixed`: overrides of every run, kept as the path and the value's YAML text (as --set takes them).
void parse_fixed(Spec& s, const YAML::Node& root) {
  const YAML::Node n = find(root, "fixed");
  if (!n.IsDefined() || n.IsNull()) return;
  if (!n.IsMap()) fail(s, n, "fixed", "expected a map of override paths to values (as --set); got " + describe(n));
  for (auto it = n.begin(); it != n.end(); ++it) {
    YAML::Emitter e;
    e << YAML::Flow << it->second;
    s.fixed.emplace_back(it->first.Scalar(), e.c_str());
    s.fixed_nodes.push_back(it->first);
  }
}

void require_keys(const Spec& s, const YAML::Node& d, const std::string& dk, std::initializer_list<const char*> keys,
                  const std::string& hint) {
  for (const char* k : keys)
    if (!find(d, k).IsDefined()) fail(s, d, dk, std::string("expected required key '") + k + "'" + hint + "; it is missing");
}

// A parameter's distribution: its values (list, grid) or its range (uniform, lhs, normal).
void parse_distribution(const Spec& s, Parameter& P) {
  const std::string dk = P.key_path + "." + P.kind;
  const YAML::Node d = P.dist_node;
  if (P.kind == "list") {
    if (!d.IsSequence()) fail(s, d, dk, "expected a list of numbers; got " + describe(d));
    if (d.size() == 0) fail(s, d, dk, "expected a non-empty list of values; got an empty range []");
    for (size_t k = 0; k < d.size(); ++k) {
      P.values.push_back(number(s, d[k], dk + "[" + std::to_string(k) + "]"));
      P.value_nodes.push_back(d[k]);
    }
  } else if (P.kind == "grid") {
    check_keys(s, d, dk, {"from", "to", "count"}, "a grid");
    require_keys(s, d, dk, {"from", "to", "count"}, " (grid: from, to, count)");
    const double from = number(s, find(d, "from"), dk + ".from"), to = number(s, find(d, "to"), dk + ".to");
    const double count = number(s, find(d, "count"), dk + ".count", "a count (an integer >= 1)");
    if (count < 1 || count != std::floor(count) || count > 1e7)
      fail(s, find(d, "count"), dk + ".count", "expected a count (an integer >= 1); got " + describe(find(d, "count")));
    if (count == 1 && from != to)
      fail(s, d, dk, "expected from = to for a 1-point grid (or count >= 2); got from " + fmt_short(from) + ", to " + fmt_short(to));
    if (count > 1 && !(to > from))
      fail(s, d, dk, "expected a non-empty range, to > from; got from " + fmt_short(from) + ", to " + fmt_short(to));
    const long c = long(count);
    for (long k = 0; k < c; ++k) P.values.push_back(c == 1 ? from : k + 1 == c ? to : from + (to - from) * double(k) / double(c - 1));
    for (long k = 0; k < c; ++k) P.value_nodes.push_back(d);
  } else if (P.kind == "uniform" || P.kind == "lhs") {
    check_keys(s, d, dk, {"min", "max"}, P.kind == "lhs" ? "a Latin hypercube range" : "a uniform distribution");
    require_keys(s, d, dk, {"min", "max"}, "");
    P.a = number(s, find(d, "min"), dk + ".min");
    P.b = number(s, find(d, "max"), dk + ".max");
    if (!(P.b > P.a))
      fail(s, d, dk, "expected a non-empty range, max > min; got min " + fmt_short(P.a) + ", max " + fmt_short(P.b));
  } else {  // normal
    check_keys(s, d, dk, {"mean", "std"}, "a normal distribution");
    require_keys(s, d, dk, {"mean", "std"}, "");
    P.a = number(s, find(d, "mean"), dk + ".mean");
    P.b = number(s, find(d, "std"), dk + ".std", "a standard deviation > 0");
    if (!(P.b > 0)) fail(s, find(d, "std"), dk + ".std", "expected a standard deviation > 0; got " + describe(find(d, "std")));
  }
}

// parameters[i]: its path, its column name (unique among `names`) and its one distribution.
Parameter parse_parameter(const Spec& s, const YAML::Node& p, size_t i, std::set<std::string>& names) {
  Parameter P;
  P.key_path = "parameters[" + std::to_string(i) + "]";
  const std::string dists = join(kDistributions);
  if (!p.IsMap()) fail(s, p, P.key_path, "expected a map with path and one of " + dists + "; got " + describe(p));
  std::vector<std::string> allowed = {"path", "name"};
  allowed.insert(allowed.end(), kDistributions.begin(), kDistributions.end());
  // unknown keys here are most likely a distribution name
  for (auto it = p.begin(); it != p.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      fail(s, it->first, P.key_path + "." + k,
           "expected path, name or a distribution (" + dists + "); got unknown distribution or key '" + k + "'" +
               did_you_mean(k, allowed));
  }
  check_keys(s, p, P.key_path, allowed, "a parameter");
  P.path_node = find(p, "path");
  if (!P.path_node.IsDefined()) fail(s, p, P.key_path, "expected required key 'path' (an override path as for --set); it is missing");
  P.path = string_of(s, P.path_node, P.key_path + ".path", "an override path such as contacts[0].e_eff");
  P.name = default_column_name(P.path);
  if (auto n = find(p, "name"); n.IsDefined()) {
    P.name = string_of(s, n, P.key_path + ".name", "a column name");
    if (!valid_column(P.name))
      fail(s, n, P.key_path + ".name", "expected a column name of letters, digits and '_'; got '" + P.name + "'");
  }
  if (!names.insert(P.name).second)
    fail(s, P.path_node, P.key_path, "expected each parameter once (column names are unique); got '" + P.name + "' again");
  for (const auto& d : kDistributions)
    if (auto n = find(p, d); n.IsDefined()) {
      if (!P.kind.empty())
        fail(s, n, P.key_path + "." + d, "expected one distribution per parameter; got " + P.kind + " and " + d);
      P.kind = d;
      P.dist_node = n;
    }
  if (P.kind.empty()) fail(s, p, P.key_path, "expected a distribution: one of " + dists + "; got none");
  parse_distribution(s, P);
  return P;
}

// `samples` and `seed` go with random parameters (uniform, normal, lhs), and only with them.
void parse_samples(Spec& s, const YAML::Node& root) {
  const bool any_random = std::any_of(s.params.begin(), s.params.end(), [](const Parameter& p) { return p.random(); });
  if (auto n = find(root, "samples"); n.IsDefined()) {
    const double v = number(s, n, "samples", "a number of samples (an integer >= 1)");
    if (v < 1 || v != std::floor(v) || v > 1e7) fail(s, n, "samples", "expected a number of samples (an integer >= 1); got " + describe(n));
    if (!any_random) fail(s, n, "samples", "expected samples only with uniform, normal or lhs parameters; got no random parameter");
    s.samples = long(v);
  } else if (any_random) {
    fail(s, root, "", "expected required key 'samples' (draws of the uniform/normal/lhs parameters); it is missing");
  }
  if (auto n = find(root, "seed"); !n.IsDefined() && any_random)
    fail(s, root, "", "expected required key 'seed' (random parameters need a seed, for reproducible runs); it is missing");
}

}  // namespace

Spec parse_spec(const std::string& file) {
  Spec s;
  s.file = file;
  bool ok = false;
  s.text = read_text(file, ok);
  if (!ok) throw InputError(file, 0, 0, "", std::string("expected a readable sweep file; got ") + std::strerror(errno));
  s.dir = fs::path(file).parent_path().string();
  YAML::Node root;
  try {
    root = YAML::Load(s.text);
  } catch (const YAML::ParserException& e) {
    throw InputError(file, e.mark.line + 1, e.mark.column + 1, "", "expected valid YAML; got a syntax error: " + e.msg);
  }
  if (!root.IsMap()) fail(s, root, "", "expected a map of sweep keys (base, parameters, outcomes, ...); got " + describe(root));
  check_keys(s, root, "",
             {"name", "description", "base", "seed", "samples", "fixed", "parameters", "outcomes", "pass", "keep_series",
              "output"},
             "a sweep");
  s.name = fs::path(file).stem().string();
  if (auto n = find(root, "name"); n.IsDefined()) s.name = string_of(s, n, "name", "a sweep name");
  parse_base(s, root);
  if (auto n = find(root, "seed"); n.IsDefined()) {
    const double v = number(s, n, "seed", "a seed (an integer >= 0)");
    if (v < 0 || v != std::floor(v) || v > 9.007199254740992e15)
      fail(s, n, "seed", "expected a seed (an integer >= 0); got " + describe(n));
    s.seed = uint64_t(v);
  }
  if (auto n = find(root, "keep_series"); n.IsDefined()) {
    if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false"))
      fail(s, n, "keep_series", "expected true or false; got " + describe(n));
    s.keep_series = n.Scalar() == "true";
  }
  if (auto n = find(root, "output"); n.IsDefined()) s.output = string_of(s, n, "output", "an output file path");
  parse_fixed(s, root);

  const YAML::Node params = find(root, "parameters");
  if (!params.IsDefined()) fail(s, root, "", "expected required key 'parameters' (a list of swept values); it is missing");
  if (!params.IsSequence() || params.size() == 0)
    fail(s, params, "parameters", "expected a non-empty list of parameters; got " + describe(params));
  std::set<std::string> names;
  for (size_t i = 0; i < params.size(); ++i) s.params.push_back(parse_parameter(s, params[i], i, names));
  parse_samples(s, root);
  return s;
}

}  // namespace vcsim::sweep
