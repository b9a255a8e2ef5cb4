// `vcsim sweep`: see tools/sweep.h and docs/sweeps.md.
#include "tools/sweep.h"

#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#ifdef VCSIM_HAVE_MPI
#include <mpi.h>
#endif

#include "engine/input_error.h"
#include "engine/io/scenario_loader.h"

namespace vcsim::sweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// Small helpers

std::string fmt17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string fmt_short(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string read_text(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = bool(in);
  std::ostringstream b;
  if (ok) b << in.rdbuf();
  return b.str();
}

// FNV-1a, for the campaign fingerprint (not security).
uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// splitmix64: a counter-based generator. Every random number of a run is a pure function of
// (seed, run index, parameter, draw), so the values do not depend on who runs the run or when.
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
double unit_uniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  const uint64_t h = splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b) ^ c);
  return (double(h >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1): never 0, so log() below is finite
}

std::string did_you_mean(const std::string& got, const std::vector<std::string>& options) {
  std::string best;
  int best_d = 3;
  for (const auto& o : options) {
    const int d = levenshtein_distance(got, o);
    if (d < best_d) best_d = d, best = o;
  }
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return n.Tag() == "!" ? "the quoted string \"" + n.Scalar() + "\"" : "'" + n.Scalar() + "'";
}

std::string sanitize(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  return s;
}

// ---------------------------------------------------------------------------------------------
// The sweep file

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

struct Expr;

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

// Predicate: a tiny expression language over the table's columns.
struct Expr {
  enum Kind { Num, Var, Neg, Not, Bin } kind = Num;
  double value = 0;
  std::string op, var;
  std::unique_ptr<Expr> l, r;
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
};

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

double number(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& what = "a number") {
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

// ---- expressions
struct ExprParser {
  const std::string& t;
  size_t i = 0;
  std::string error;
  void ws() {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  }
  bool eat(const std::string& tok) {
    ws();
    if (t.compare(i, tok.size(), tok) == 0) {
      // words must end at a word boundary
      if (std::isalpha(static_cast<unsigned char>(tok[0])) && i + tok.size() < t.size() &&
          (std::isalnum(static_cast<unsigned char>(t[i + tok.size()])) || t[i + tok.size()] == '_'))
        return false;
      i += tok.size();
      return true;
    }
    return false;
  }
  std::unique_ptr<Expr> bin(std::string op, std::unique_ptr<Expr> l, std::unique_ptr<Expr> r) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Bin;
    e->op = std::move(op);
    e->l = std::move(l);
    e->r = std::move(r);
    return e;
  }
  std::unique_ptr<Expr> parse_or() {
    auto l = parse_and();
    while (l && (eat("||") || eat("or"))) {
      auto r = parse_and();
      if (!r) return nullptr;
      l = bin("||", std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<Expr> parse_and() {
    auto l = parse_not();
    while (l && (eat("&&") || eat("and"))) {
      auto r = parse_not();
      if (!r) return nullptr;
      l = bin("&&", std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<Expr> parse_not() {
    ws();
    if ((t.compare(i, 1, "!") == 0 && t.compare(i, 2, "!=") != 0 && eat("!")) || eat("not")) {
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Not;
      e->l = parse_not();
      return e->l ? std::move(e) : nullptr;
    }
    return parse_cmp();
  }
  std::unique_ptr<Expr> parse_cmp() {
    auto l = parse_sum();
    if (!l) return nullptr;
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (eat(op)) {
        auto r = parse_sum();
        if (!r) return nullptr;
        return bin(op, std::move(l), std::move(r));
      }
    return l;
  }
  // A left-associative chain of `next` terms joined by the one-character operators in `ops`.
  std::unique_ptr<Expr> parse_chain(const char* ops, std::unique_ptr<Expr> (ExprParser::*next)()) {
    auto l = (this->*next)();
    while (l) {
      ws();
      if (i >= t.size() || !std::strchr(ops, t[i]) || t[i] == '\0') break;
      const std::string op(1, t[i++]);
      auto r = (this->*next)();
      if (!r) return nullptr;
      l = bin(op, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<Expr> parse_sum() { return parse_chain("+-", &ExprParser::parse_prod); }
  std::unique_ptr<Expr> parse_prod() { return parse_chain("*/", &ExprParser::parse_unary); }
  std::unique_ptr<Expr> parse_unary() {
    ws();
    if (i < t.size() && t[i] == '-') {
      ++i;
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Neg;
      e->l = parse_unary();
      return e->l ? std::move(e) : nullptr;
    }
    return parse_primary();
  }
  std::unique_ptr<Expr> parse_primary() {
    ws();
    if (i >= t.size()) {
      error = "a number, a column name or '(' at the end";
      return nullptr;
    }
    if (t[i] == '(') {
      ++i;
      auto e = parse_or();
      if (!e) return nullptr;
      if (!eat(")")) {
        error = "')' at character " + std::to_string(i + 1);
        return nullptr;
      }
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.') {
      const char* start = t.c_str() + i;
      char* end = nullptr;
      const double v = std::strtod(start, &end);
      if (end == start) {
        error = "a number at character " + std::to_string(i + 1);
        return nullptr;
      }
      i += size_t(end - start);
      auto e = std::make_unique<Expr>();
      e->value = v;
      return e;
    }
    if (std::isalpha(static_cast<unsigned char>(t[i])) || t[i] == '_') {
      const size_t s = i;
      while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Var;
      e->var = t.substr(s, i - s);
      return e;
    }
    error = "a number, a column name or '(' at character " + std::to_string(i + 1) + " ('" + t.substr(i, 1) + "')";
    return nullptr;
  }
};

void collect_vars(const Expr& e, std::vector<std::string>& out) {
  if (e.kind == Expr::Var) out.push_back(e.var);
  if (e.l) collect_vars(*e.l, out);
  if (e.r) collect_vars(*e.r, out);
}

double eval(const Expr& e, const std::map<std::string, double>& vars) {
  switch (e.kind) {
    case Expr::Num: return e.value;
    case Expr::Var: return vars.at(e.var);
    case Expr::Neg: return -eval(*e.l, vars);
    case Expr::Not: return eval(*e.l, vars) != 0 ? 0 : 1;  // NaN != 0 is true: not(NaN) = 0
    case Expr::Bin: break;
  }
  const double a = eval(*e.l, vars);
  if (e.op == "&&") return (a != 0 && !std::isnan(a) && eval(*e.r, vars) != 0) ? 1 : 0;
  if (e.op == "||") {
    if (a != 0 && !std::isnan(a)) return 1;
    const double b = eval(*e.r, vars);
    return (b != 0 && !std::isnan(b)) ? 1 : 0;
  }
  const double b = eval(*e.r, vars);
  if (e.op == "+") return a + b;
  if (e.op == "-") return a - b;
  if (e.op == "*") return a * b;
  if (e.op == "/") return a / b;
  if (e.op == "<") return a < b;
  if (e.op == "<=") return a <= b;
  if (e.op == ">") return a > b;
  if (e.op == ">=") return a >= b;
  if (e.op == "==") return a == b;
  if (e.op == "!=") return a != b && !std::isnan(a) && !std::isnan(b);
  return kNaN;
}

// ---- series references: bodies.B.position.z, contacts.P.force.norm, energy.total, contacts.P.v_in[0]
SeriesRef parse_series(const Spec& s, const YAML::Node& n, const std::string& kp,
                       const std::vector<std::string>& bodies, const std::vector<std::string>& pairs) {
  const std::string text = string_of(s, n, kp, "a series such as bodies.NAME.position.z");
  SeriesRef r;
  r.text = text;
  std::vector<std::string> segs;
  std::string cur;
  std::string t = text;
  // trailing [i]
  if (!t.empty() && t.back() == ']') {
    const size_t open = t.rfind('[');
    const std::string idx = open == std::string::npos ? "" : t.substr(open + 1, t.size() - open - 2);
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos)
      fail(s, n, kp, "expected a component index [N]; got '" + text + "'");
    r.component = std::stoi(idx);
    t = t.substr(0, open);
  }
  std::stringstream ss(t);
  while (std::getline(ss, cur, '.')) segs.push_back(cur);
  const std::string usage =
      "a series: bodies.BODY.{position,velocity,angular_velocity}.{x,y,z,norm}, bodies.BODY.orientation.{w,x,y,z}, "
      "contacts.PAIR.FIELD[.x|.y|.z|.norm|[i]], energy.{kinetic,potential,contact,total} or time";
  auto component_of = [&](const std::string& c, bool quaternion) -> int {
    if (c == "norm") return -2;
    if (quaternion) {
      const std::string q = "wxyz";
      if (c.size() == 1 && q.find(c) != std::string::npos) return int(q.find(c));
    } else {
      const std::string v = "xyz";
      if (c.size() == 1 && v.find(c) != std::string::npos) return int(v.find(c));
    }
    fail(s, n, kp, "expected a component (" + std::string(quaternion ? "w, x, y, z" : "x, y, z") +
                       " or norm); got '" + c + "' in '" + text + "'");
  };
  if (segs.size() == 1 && segs[0] == "time" && r.component == -1) {
    r.dataset = "/time";
    return r;
  }
  if (segs.size() == 2 && segs[0] == "energy") {
    const std::vector<std::string> e = {"kinetic", "potential", "contact", "total"};
    if (std::find(e.begin(), e.end(), segs[1]) == e.end())
      fail(s, n, kp, "expected an energy (" + join(e) + "); got '" + segs[1] + "'" + did_you_mean(segs[1], e));
    r.dataset = "/energy/" + segs[1];
    return r;
  }
  if (segs.size() >= 3 && segs[0] == "bodies") {
    if (std::find(bodies.begin(), bodies.end(), segs[1]) == bodies.end())
      fail(s, n, kp, "expected a body of the scenario (" + join(bodies) + "); got '" + segs[1] + "'" +
                         did_you_mean(segs[1], bodies));
    const std::vector<std::string> f = {"position", "orientation", "velocity", "angular_velocity"};
    if (std::find(f.begin(), f.end(), segs[2]) == f.end())
      fail(s, n, kp, "expected a body series (" + join(f) + "); got '" + segs[2] + "'" + did_you_mean(segs[2], f));
    r.dataset = "/bodies/" + segs[1] + "/" + segs[2];
    if (segs.size() == 4 && r.component == -1) r.component = component_of(segs[3], segs[2] == "orientation");
    else if (segs.size() != 3 || r.component == -1) fail(s, n, kp, "expected " + usage + "; got '" + text + "'");
    return r;
  }
  if (segs.size() >= 3 && segs[0] == "contacts") {
    if (std::find(pairs.begin(), pairs.end(), segs[1]) == pairs.end())
      fail(s, n, kp, "expected a contact pair of the scenario (" + join(pairs) + "); got '" + segs[1] + "'" +
                         did_you_mean(segs[1], pairs));
    r.dataset = "/contacts/" + segs[1] + "/" + segs[2];
    if (segs.size() == 4 && r.component == -1) r.component = component_of(segs[3], false);
    else if (segs.size() != 3) fail(s, n, kp, "expected " + usage + "; got '" + text + "'");
    return r;
  }
  fail(s, n, kp, "expected " + usage + "; got '" + text + "'");
}

std::string canonical_path(const std::string& p) {
  // contacts.0.k_v -> contacts[0].k_v (the loader's key-path spelling)
  std::string out, seg;
  std::vector<std::string> segs;
  for (size_t i = 0; i <= p.size(); ++i) {
    const char c = i < p.size() ? p[i] : '.';
    if (c == '.' || c == '[' || c == ']') {
      if (!seg.empty()) segs.push_back(seg);
      seg.clear();
    } else {
      seg += c;
    }
  }
  for (const auto& s : segs) {
    if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) out += "[" + s + "]";
    else out += (out.empty() ? "" : ".") + s;
  }
  return out;
}

// Segments of an override path: "contacts[0].k_v" and "contacts.0.k_v" -> {contacts, 0, k_v}.
std::vector<std::string> path_segments(const std::string& p) {
  std::vector<std::string> segs;
  std::string seg;
  for (size_t i = 0; i <= p.size(); ++i) {
    const char c = i < p.size() ? p[i] : '.';
    if (c == '.' || c == '[' || c == ']') {
      if (!seg.empty()) segs.push_back(seg);
      seg.clear();
    } else {
      seg += c;
    }
  }
  return segs;
}

// Is the value at `path` written in the document?
bool path_in_document(const YAML::Node& doc, const std::string& path) {
  YAML::Node cur;
  cur.reset(doc);
  for (const auto& seg : path_segments(path)) {
    YAML::Node next;
    if (cur.IsSequence()) {
      if (seg.find_first_not_of("0123456789") != std::string::npos || std::stoul(seg) >= cur.size()) return false;
      next.reset(cur[std::stoul(seg)]);
    } else if (cur.IsMap()) {
      bool found = false;
      for (auto it = cur.begin(); it != cur.end(); ++it)
        if (it->first.Scalar() == seg) next.reset(it->second), found = true;
      if (!found) return false;
    } else {
      return false;
    }
    cur.reset(next);
  }
  return true;
}

// Marks `path` as present (a `fixed` override writes it): creates it with a null value when missing.
void set_in_document(YAML::Node& doc, const std::string& path) {
  if (path_in_document(doc, path)) return;
  YAML::Node cur;
  cur.reset(doc);
  for (const auto& seg : path_segments(path)) {
    if (cur.IsSequence()) return;  // an index past the end: leave it to the loader
    if (!cur.IsMap() && !cur.IsNull()) return;
    YAML::Node next = cur[seg];
    if (!next.IsDefined() || next.IsNull()) cur[seg] = YAML::Node(YAML::NodeType::Map);
    YAML::Node n2 = cur[seg];
    cur.reset(n2);
  }
}

std::string default_column_name(const std::string& path) {
  std::string c;
  for (char ch : path) c += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  while (c.find("__") != std::string::npos) c.replace(c.find("__"), 2, "_");
  while (!c.empty() && c.back() == '_') c.pop_back();
  return c;
}

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

  // base scenario
  const YAML::Node base = find(root, "base");
  if (!base.IsDefined()) fail(s, root, "", "expected required key 'base' (the scenario file, relative to this file); it is missing");
  const std::string base_rel = string_of(s, base, "base", "a scenario file path");
  s.base = fs::path(base_rel).is_absolute() ? base_rel : (fs::path(s.dir.empty() ? "." : s.dir) / base_rel).lexically_normal().string();
  s.base_text = read_text(s.base, ok);
  if (!ok) fail(s, base, "base", "expected a readable scenario file; got '" + s.base + "' (" + std::strerror(errno) + ")");

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

  // fixed overrides
  if (auto n = find(root, "fixed"); n.IsDefined() && !n.IsNull()) {
    if (!n.IsMap()) fail(s, n, "fixed", "expected a map of override paths to values (as --set); got " + describe(n));
    for (auto it = n.begin(); it != n.end(); ++it) {
      YAML::Emitter e;
      e << YAML::Flow << it->second;
      s.fixed.emplace_back(it->first.Scalar(), e.c_str());
      s.fixed_nodes.push_back(it->first);
    }
  }

  // parameters
  const YAML::Node params = find(root, "parameters");
  if (!params.IsDefined()) fail(s, root, "", "expected required key 'parameters' (a list of swept values); it is missing");
  if (!params.IsSequence() || params.size() == 0)
    fail(s, params, "parameters", "expected a non-empty list of parameters; got " + describe(params));
  const std::vector<std::string> dists = {"grid", "list", "uniform", "normal", "lhs"};
  std::set<std::string> names;
  for (size_t i = 0; i < params.size(); ++i) {
    const YAML::Node p = params[i];
    Parameter P;
    P.key_path = "parameters[" + std::to_string(i) + "]";
    if (!p.IsMap()) fail(s, p, P.key_path, "expected a map with path and one of " + join(dists) + "; got " + describe(p));
    std::vector<std::string> allowed = {"path", "name"};
    allowed.insert(allowed.end(), dists.begin(), dists.end());
    // unknown keys here are most likely a distribution name
    for (auto it = p.begin(); it != p.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(s, it->first, P.key_path + "." + k,
             "expected path, name or a distribution (" + join(dists) + "); got unknown distribution or key '" + k + "'" +
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
    for (const auto& d : dists)
      if (auto n = find(p, d); n.IsDefined()) {
        if (!P.kind.empty())
          fail(s, n, P.key_path + "." + d, "expected one distribution per parameter; got " + P.kind + " and " + d);
        P.kind = d;
        P.dist_node = n;
      }
    if (P.kind.empty())
      fail(s, p, P.key_path, "expected a distribution: one of " + join(dists) + "; got none");
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
      for (const char* k : {"from", "to", "count"})
        if (!find(d, k).IsDefined())
          fail(s, d, dk, std::string("expected required key '") + k + "' (grid: from, to, count); it is missing");
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
      for (const char* k : {"min", "max"})
        if (!find(d, k).IsDefined()) fail(s, d, dk, std::string("expected required key '") + k + "'; it is missing");
      P.a = number(s, find(d, "min"), dk + ".min");
      P.b = number(s, find(d, "max"), dk + ".max");
      if (!(P.b > P.a))
        fail(s, d, dk, "expected a non-empty range, max > min; got min " + fmt_short(P.a) + ", max " + fmt_short(P.b));
    } else {  // normal
      check_keys(s, d, dk, {"mean", "std"}, "a normal distribution");
      for (const char* k : {"mean", "std"})
        if (!find(d, k).IsDefined()) fail(s, d, dk, std::string("expected required key '") + k + "'; it is missing");
      P.a = number(s, find(d, "mean"), dk + ".mean");
      P.b = number(s, find(d, "std"), dk + ".std", "a standard deviation > 0");
      if (!(P.b > 0)) fail(s, find(d, "std"), dk + ".std", "expected a standard deviation > 0; got " + describe(find(d, "std")));
    }
    s.params.push_back(std::move(P));
  }
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

  return s;
}

// An expression over the columns known so far (the pass predicate, an expression outcome).
std::shared_ptr<const Expr> parse_checked(const Spec& s, const YAML::Node& n, const std::string& key,
                                          const std::string& what, const std::set<std::string>& columns) {
  const std::string text = string_of(s, n, key, what);
  ExprParser ep{text, 0, {}};
  std::unique_ptr<Expr> e = ep.parse_or();
  ep.ws();
  if (e && ep.i != text.size()) {
    ep.error = "an operator or the end at character " + std::to_string(ep.i + 1) + " ('" + text.substr(ep.i) + "')";
    e.reset();
  }
  if (!e) fail(s, n, key, "expected " + ep.error + " in '" + text + "'");
  std::vector<std::string> vars;
  collect_vars(*e, vars);
  for (const auto& v : vars)
    if (!columns.count(v))
      fail(s, n, key, "expected a parameter or outcome column defined above (" + join({columns.begin(), columns.end()}) +
                          "); got '" + v + "'" + did_you_mean(v, {columns.begin(), columns.end()}));
  return e;
}

// Outcomes are parsed after the base scenario is known (body and pair names).
void parse_outcomes(Spec& s, const std::vector<std::string>& bodies, const std::vector<std::string>& pairs) {
  YAML::Node root = YAML::Load(s.text);
  const YAML::Node outs = find(root, "outcomes");
  if (!outs.IsDefined()) fail(s, root, "", "expected required key 'outcomes' (what to measure in each run); it is missing");
  if (!outs.IsMap() || outs.size() == 0)
    fail(s, outs, "outcomes", "expected a non-empty map of outcome names to outcome specs; got " + describe(outs));
  const std::vector<std::string> kinds = {"final", "initial", "max", "min", "final_pose", "max_force", "event",
                                          "energy_dissipated", "expression"};
  const std::vector<std::string> events = {"first_contact", "last_contact", "inverted", "at_rest", "starts_moving"};
  std::set<std::string> columns;
  for (const auto& p : s.params) columns.insert(p.name);
  std::set<std::string> event_names;
  for (auto it = outs.begin(); it != outs.end(); ++it) {
    Outcome o;
    o.name = it->first.Scalar();
    o.key_path = "outcomes." + o.name;
    const std::string& kp = o.key_path;
    if (!valid_column(o.name)) fail(s, it->first, kp, "expected an outcome name of letters, digits and '_'; got '" + o.name + "'");
    const YAML::Node d = it->second;
    if (!d.IsMap()) fail(s, d, kp, "expected a map with one of " + join(kinds) + "; got " + describe(d));
    for (auto k = d.begin(); k != d.end(); ++k)
      if (std::find(kinds.begin(), kinds.end(), k->first.Scalar()) != kinds.end()) {
        if (!o.kind.empty()) fail(s, k->first, kp, "expected one outcome kind; got " + o.kind + " and " + k->first.Scalar());
        o.kind = k->first.Scalar();
      }
    if (o.kind.empty()) {
      std::string first = d.begin() != d.end() ? d.begin()->first.Scalar() : "";
      fail(s, d, kp, "expected an outcome kind (" + join(kinds) + "); got " + (first.empty() ? "none" : "'" + first + "'" + did_you_mean(first, kinds)));
    }
    const YAML::Node v = find(d, o.kind);
    const std::string vk = kp + "." + o.kind;
    if (o.kind == "final" || o.kind == "initial" || o.kind == "max" || o.kind == "min") {
      check_keys(s, d, kp, o.kind == "max" || o.kind == "min" ? std::vector<std::string>{o.kind, "from"}
                                                                 : std::vector<std::string>{o.kind},
                 "a " + o.kind + " outcome");
      o.series = parse_series(s, v, vk, bodies, pairs);
      if (auto f = find(d, "from"); f.IsDefined()) {
        o.from = string_of(s, f, kp + ".from", "the name of an event outcome defined above");
        if (!event_names.count(o.from))
          fail(s, f, kp + ".from",
               "expected the name of an event outcome defined above (" + join({event_names.begin(), event_names.end()}) +
                   "); got '" + o.from + "'");
      }
      o.columns = {o.name};
    } else if (o.kind == "final_pose") {
      check_keys(s, d, kp, {"final_pose"}, "a final_pose outcome");
      o.body = string_of(s, v, vk, "a body name");
      if (std::find(bodies.begin(), bodies.end(), o.body) == bodies.end())
        fail(s, v, vk, "expected a body of the scenario (" + join(bodies) + "); got '" + o.body + "'" + did_you_mean(o.body, bodies));
      for (const char* c : {"x", "y", "z", "qw", "qx", "qy", "qz"}) o.columns.push_back(o.name + "_" + c);
    } else if (o.kind == "max_force") {
      check_keys(s, d, kp, {"max_force", "from"}, "a max_force outcome");
      o.pair = string_of(s, v, vk, "a contact pair name");
      if (std::find(pairs.begin(), pairs.end(), o.pair) == pairs.end())
        fail(s, v, vk, "expected a contact pair of the scenario (" + join(pairs) + "); got '" + o.pair + "'" + did_you_mean(o.pair, pairs));
      o.series.dataset = "/contacts/" + o.pair + "/force";
      o.series.component = -2;
      o.series.text = "contacts." + o.pair + ".force.norm";
      o.kind = "max";
      if (auto f = find(d, "from"); f.IsDefined()) {
        o.from = string_of(s, f, kp + ".from", "the name of an event outcome defined above");
        if (!event_names.count(o.from)) fail(s, f, kp + ".from", "expected the name of an event outcome defined above; got '" + o.from + "'");
      }
      o.columns = {o.name};
    } else if (o.kind == "energy_dissipated") {
      check_keys(s, d, kp, {"energy_dissipated"}, "an energy_dissipated outcome");
      o.columns = {o.name};
    } else if (o.kind == "expression") {
      check_keys(s, d, kp, {"expression"}, "an expression outcome");
      o.expression = parse_checked(s, v, vk, "an arithmetic expression over the parameters and the outcomes above, e.g. "
                                             "\"5 + 2 * slip_time\"", columns);
      o.columns = {o.name};
    } else {  // event
      check_keys(s, d, kp, {"event", "pair", "body", "axis", "up", "speed", "angular_speed"}, "an event outcome");
      o.event = string_of(s, v, vk, "an event (" + join(events) + ")");
      if (std::find(events.begin(), events.end(), o.event) == events.end())
        fail(s, v, vk, "expected an event (" + join(events) + "); got '" + o.event + "'" + did_you_mean(o.event, events));
      const bool contact_event = o.event == "first_contact" || o.event == "last_contact";
      std::vector<std::string> allowed = contact_event ? std::vector<std::string>{"event", "pair"}
                                         : o.event == "inverted" ? std::vector<std::string>{"event", "body", "axis", "up"}
                                                                 : std::vector<std::string>{"event", "body", "speed", "angular_speed"};
      check_keys(s, d, kp, allowed, "a " + o.event + " event");
      if (auto n = find(d, "pair"); n.IsDefined()) {
        o.pair = string_of(s, n, kp + ".pair", "a contact pair name");
        if (std::find(pairs.begin(), pairs.end(), o.pair) == pairs.end())
          fail(s, n, kp + ".pair", "expected a contact pair of the scenario (" + join(pairs) + "); got '" + o.pair + "'" + did_you_mean(o.pair, pairs));
      } else if (contact_event && pairs.empty()) {
        fail(s, d, kp, "expected a scenario with contacts for a contact event; got none");
      }
      if (!contact_event) {
        const YAML::Node b = find(d, "body");
        if (!b.IsDefined()) fail(s, d, kp, "expected required key 'body' for the " + o.event + " event; it is missing");
        o.body = string_of(s, b, kp + ".body", "a body name");
        if (std::find(bodies.begin(), bodies.end(), o.body) == bodies.end())
          fail(s, b, kp + ".body", "expected a body of the scenario (" + join(bodies) + "); got '" + o.body + "'" + did_you_mean(o.body, bodies));
      }
      auto vec3 = [&](const char* key, double* out) {
        const YAML::Node n = find(d, key);
        if (!n.IsDefined()) return;
        if (!n.IsSequence() || n.size() != 3) fail(s, n, kp + "." + key, "expected [x, y, z]; got " + describe(n));
        for (int k = 0; k < 3; ++k) out[k] = number(s, n[k], kp + "." + key + "[" + std::to_string(k) + "]");
        if (std::hypot(out[0], out[1], out[2]) == 0) fail(s, n, kp + "." + key, "expected a non-zero vector; got [0, 0, 0]");
      };
      vec3("axis", o.axis);
      vec3("up", o.up);
      if (auto n = find(d, "speed"); n.IsDefined()) {
        o.speed = number(s, n, kp + ".speed", "a speed > 0 in m/s");
        if (!(o.speed > 0)) fail(s, n, kp + ".speed", "expected a speed > 0 in m/s; got " + describe(n));
      }
      if (auto n = find(d, "angular_speed"); n.IsDefined()) {
        o.angular_speed = number(s, n, kp + ".angular_speed", "an angular speed > 0 in rad/s");
        if (!(o.angular_speed > 0)) fail(s, n, kp + ".angular_speed", "expected an angular speed > 0 in rad/s; got " + describe(n));
      }
      event_names.insert(o.name);
      o.columns = {o.name};
    }
    for (const auto& c : o.columns) {
      if (c == "run_index" || c == "status" || c == "pass")
        fail(s, it->first, kp, "expected a name other than run_index, status and pass (table columns); got '" + c + "'");
      if (!columns.insert(c).second) fail(s, it->first, kp, "expected unique column names; got '" + c + "' twice");
      s.outcome_columns.push_back(c);
    }
    s.outcomes.push_back(std::move(o));
  }
  if (auto n = find(root, "pass"); n.IsDefined()) {
    s.pass_node = n;
    s.pass_text = string_of(s, n, "pass", "a predicate over the outcomes, e.g. \"max_force < 200\"");
    s.pass = parse_checked(s, n, "pass", "a predicate over the outcomes, e.g. \"max_force < 200\"", columns);
    s.outcome_columns.push_back("pass");
  }
}

// ---------------------------------------------------------------------------------------------
// The run table

struct Campaign {
  Spec spec;
  long runs = 0, grid_points = 1, samples = 1;
  std::vector<std::vector<double>> values;  // [run][parameter]
  std::vector<std::string> body_names, pair_names;
  uint64_t fingerprint = 0;

  std::vector<std::string> overrides(long run) const {
    std::vector<std::string> o;
    for (const auto& f : spec.fixed) o.push_back(f.first + "=" + f.second);
    for (size_t k = 0; k < spec.params.size(); ++k) o.push_back(spec.params[k].path + "=" + fmt17(values[run][k]));
    return o;
  }
};

void generate_values(Campaign& c) {
  const Spec& s = c.spec;
  c.grid_points = 1;
  for (const auto& p : s.params)
    if (!p.random()) {
      if (c.grid_points > 10000000 / long(p.values.size()))
        throw InputError(s.file, p.dist_node.Mark().line + 1, p.dist_node.Mark().column + 1, p.key_path,
                         "expected at most 1e7 runs; got more");
      c.grid_points *= long(p.values.size());
    }
  c.samples = s.samples > 0 ? s.samples : 1;
  c.runs = c.grid_points * c.samples;
  c.values.assign(c.runs, std::vector<double>(s.params.size()));
  // Latin hypercube: per grid point and parameter, a permutation of the `samples` strata.
  std::map<std::pair<long, size_t>, std::vector<long>> perms;
  for (long r = 0; r < c.runs; ++r) {
    const long g = r / c.samples, smp = r % c.samples;
    long rest = g;
    // grid index: the first grid parameter varies slowest
    std::vector<long> idx(s.params.size(), 0);
    for (size_t k = s.params.size(); k-- > 0;)
      if (!s.params[k].random()) {
        const long n = long(s.params[k].values.size());
        idx[k] = rest % n;
        rest /= n;
      }
    for (size_t k = 0; k < s.params.size(); ++k) {
      const Parameter& p = s.params[k];
      double v = 0;
      if (!p.random()) {
        v = p.values[idx[k]];
      } else if (p.kind == "uniform") {
        v = p.a + (p.b - p.a) * unit_uniform(s.seed, uint64_t(r), k, 0);
      } else if (p.kind == "normal") {
        const double u1 = unit_uniform(s.seed, uint64_t(r), k, 0), u2 = unit_uniform(s.seed, uint64_t(r), k, 1);
        v = p.a + p.b * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);  // Box-Muller
      } else {  // lhs
        auto& perm = perms[{g, k}];
        if (perm.empty()) {
          perm.resize(c.samples);
          for (long j = 0; j < c.samples; ++j) perm[j] = j;
          for (long j = c.samples - 1; j > 0; --j) {  // Fisher-Yates, counter-based draws
            const long m = long(unit_uniform(s.seed ^ 0x4c48535eull, uint64_t(g), k, uint64_t(j)) * double(j + 1));
            std::swap(perm[j], perm[std::min(m, j)]);
          }
        }
        v = p.a + (p.b - p.a) * (double(perm[smp]) + unit_uniform(s.seed, uint64_t(r), k, 2)) / double(c.samples);
      }
      c.values[r][k] = v;
    }
  }
}

// Validates every run's scenario with the loader; errors point into the sweep file.
void validate_runs(Campaign& c) {
  const Spec& s = c.spec;
  auto wrap = [&](const InputError& e, const YAML::Node& at, const std::string& kp, const std::string& what,
                  const std::string& got) -> InputError {
    std::string detail = e.key_path.empty() ? e.expected : e.key_path + ": " + e.expected;
    const YAML::Mark m = at.Mark();
    return InputError(s.file, m.line + 1, m.column + 1, kp, "expected " + what + "; got " + got + " (" + detail + ")");
  };
  // 1. fixed overrides alone
  std::vector<std::string> fixed;
  for (const auto& f : s.fixed) fixed.push_back(f.first + "=" + f.second);
  Scenario base;
  try {
    base = load_scenario(s.base, fixed);
  } catch (const InputError& e) {
    for (size_t i = 0; i < s.fixed.size(); ++i)
      if (e.file.find("--set " + fixed[i]) != std::string::npos)
        throw wrap(e, s.fixed_nodes[i], "fixed." + s.fixed[i].first,
                   "an override of " + s.base + " (as --set)", "'" + fixed[i] + "'");
    const YAML::Node root = YAML::Load(s.text);
    throw wrap(e, find(root, "base"), "base", "a valid scenario file", "'" + s.base + "'");
  }
  for (const auto& b : base.bodies) c.body_names.push_back(b.name);
  for (const auto& ct : base.contacts) c.pair_names.push_back(ct.body_i + "__" + ct.body_j);
  // 2. each parameter's path, with its first value
  YAML::Node base_doc = YAML::Load(s.base_text);
  for (const auto& f : s.fixed) set_in_document(base_doc, f.first);
  for (size_t k = 0; k < s.params.size(); ++k) {
    const Parameter& p = s.params[k];
    auto o = fixed;
    o.push_back(p.path + "=" + fmt17(c.values[0][k]));
    try {
      load_scenario(s.base, o);
    } catch (const InputError& e) {
      // A path written in the base file (or by `fixed`) is a value problem; a path the file does not have is
      // a path problem (a typo, or a key the scenario format does not know).
      const std::string canon = canonical_path(p.path);
      const bool value_error = path_in_document(base_doc, p.path) &&
                               (e.key_path == canon ||
                                (e.key_path.size() > canon.size() && e.key_path.compare(0, canon.size(), canon) == 0 &&
                                 (e.key_path[canon.size()] == '.' || e.key_path[canon.size()] == '[')));
      if (!value_error || e.file.find("--set " + o.back()) == std::string::npos)
        throw wrap(e, p.path_node, p.key_path + ".path", "a path of a value in " + s.base + " (as for --set)",
                   "'" + p.path + "'");
    }
  }
  // 3. every run
  for (long r = 0; r < c.runs; ++r) {
    const auto o = c.overrides(r);
    try {
      load_scenario(s.base, o);
    } catch (const InputError& e) {
      for (size_t k = 0; k < s.params.size(); ++k) {
        const Parameter& p = s.params[k];
        if (e.file.find("--set " + o[s.fixed.size() + k]) == std::string::npos) continue;
        if (p.kind == "list") {
          const auto it = std::find(p.values.begin(), p.values.end(), c.values[r][k]);
          const size_t j = size_t(it - p.values.begin());
          throw wrap(e, p.value_nodes[j], p.key_path + ".list[" + std::to_string(j) + "]",
                     "a value that " + p.path + " accepts", fmt_short(c.values[r][k]));
        }
        throw wrap(e, p.dist_node, p.key_path + "." + p.kind, "values that " + p.path + " accepts",
                   fmt_short(c.values[r][k]) + " in run " + std::to_string(r));
      }
      const YAML::Mark m = s.params[0].path_node.Mark();
      throw InputError(s.file, m.line + 1, m.column + 1, "parameters",
                       "expected parameters that give a valid scenario; got run " + std::to_string(r) + " (" + e.what() + ")");
    }
  }
  parse_outcomes(c.spec, c.body_names, c.pair_names);
  std::string fp = s.text + "\x1f" + s.base_text;
  for (long r = 0; r < c.runs; ++r) fp += "\x1f" + join(c.overrides(r), "\x1e");
  c.fingerprint = fnv1a(fp);
}

// ---------------------------------------------------------------------------------------------
// HDF5 reading (a run's output) and the outcomes

struct H5Series {
  std::vector<double> data;
  size_t rows = 0, cols = 1;
  bool ok = false;
};

H5Series read_dataset(hid_t file, const std::string& path) {
  H5Series s;
  if (H5Lexists(file, path.c_str(), H5P_DEFAULT) <= 0) return s;
  const hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  if (d < 0) return s;
  const hid_t sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 1};
  const int rank = H5Sget_simple_extent_ndims(sp);
  if (rank >= 1 && rank <= 2) {
    H5Sget_simple_extent_dims(sp, dims, nullptr);
    s.rows = dims[0];
    s.cols = rank == 2 ? dims[1] : 1;
    s.data.resize(s.rows * s.cols);
    s.ok = s.data.empty() || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data.data()) >= 0;
  }
  H5Sclose(sp);
  H5Dclose(d);
  return s;
}

struct RunResult {
  long index = -1;
  std::string status;            // "completed" or "failed: ..."
  double wall = 0;
  int rank = 0;
  std::vector<double> values;    // one per outcome column (incl. pass)
};

std::string encode(const RunResult& r) {
  std::string s = std::to_string(r.index) + "\t" + fmt17(r.wall) + "\t" + std::to_string(r.rank);
  for (double v : r.values) s += "\t" + fmt17(v);
  return s + "\t" + sanitize(r.status) + "\n";
}

std::optional<RunResult> decode(const std::string& line, size_t ncols) {
  std::vector<std::string> f;
  std::string cur;
  std::stringstream ss(line);
  while (std::getline(ss, cur, '\t')) f.push_back(cur);
  if (f.size() != ncols + 4) return std::nullopt;
  RunResult r;
  try {
    r.index = std::stol(f[0]);
    r.wall = std::stod(f[1]);
    r.rank = std::stoi(f[2]);
    for (size_t i = 0; i < ncols; ++i) r.values.push_back(f[3 + i] == "nan" || f[3 + i] == "-nan" ? kNaN : std::stod(f[3 + i]));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  r.status = f.back();
  if (!r.status.empty() && r.status.back() == '\n') r.status.pop_back();
  return r;
}

double component(const H5Series& s, size_t row, int comp) {
  const double* p = &s.data[row * s.cols];
  if (comp == -2) {
    double n = 0;
    for (size_t k = 0; k < s.cols; ++k) n += p[k] * p[k];
    return std::sqrt(n);
  }
  if (comp < 0) return p[0];
  return size_t(comp) < s.cols ? p[comp] : kNaN;
}

// Computes the outcome columns of a completed run from its output file. Throws std::runtime_error.
std::vector<double> compute_outcomes(const Campaign& c, long run, const std::string& h5) {
  const Spec& s = c.spec;
  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open " + h5);
  std::map<std::string, H5Series> cache;
  auto get = [&](const std::string& path) -> const H5Series& {
    auto it = cache.find(path);
    if (it == cache.end()) it = cache.emplace(path, read_dataset(f, path)).first;
    if (!it->second.ok) {
      H5Fclose(f);
      throw std::runtime_error("the run's output has no dataset " + path);
    }
    return it->second;
  };
  const H5Series& time = get("/time");
  const size_t n = time.rows;
  if (n == 0) {
    H5Fclose(f);
    throw std::runtime_error("the run's output has no samples");
  }
  std::map<std::string, double> vars;  // columns by name, for `from` and `pass`
  std::map<std::string, size_t> event_row;
  std::vector<double> out;
  for (const auto& o : s.outcomes) {
    if (o.kind == "final" || o.kind == "initial") {
      const H5Series& d = get(o.series.dataset);
      const double v = component(d, o.kind == "final" ? n - 1 : 0, o.series.component);
      out.push_back(v);
    } else if (o.kind == "max" || o.kind == "min") {
      const H5Series& d = get(o.series.dataset);
      size_t from = 0;
      if (!o.from.empty()) from = event_row.count(o.from) ? event_row[o.from] : n;
      double v = kNaN;
      for (size_t i = from; i < n; ++i) {
        const double x = component(d, i, o.series.component);
        if (std::isnan(v) || (o.kind == "max" ? x > v : x < v)) v = x;
      }
      out.push_back(v);
    } else if (o.kind == "final_pose") {
      const H5Series& p = get("/bodies/" + o.body + "/position");
      const H5Series& q = get("/bodies/" + o.body + "/orientation");
      for (int k = 0; k < 3; ++k) out.push_back(p.data[(n - 1) * 3 + k]);
      for (int k = 0; k < 4; ++k) out.push_back(q.data[(n - 1) * 4 + k]);
    } else if (o.kind == "energy_dissipated") {
      const H5Series& e = get("/energy/total");
      out.push_back(e.data[0] - e.data[n - 1]);
    } else if (o.kind == "expression") {
      for (size_t k = 0; k < s.params.size(); ++k) vars[s.params[k].name] = c.values[run][k];
      for (size_t k = 0; k < out.size(); ++k) vars[s.outcome_columns[k]] = out[k];
      out.push_back(eval(*o.expression, vars));
    } else {  // event
      size_t row = n;
      if (o.event == "first_contact" || o.event == "last_contact") {
        std::vector<const H5Series*> cs;
        for (const auto& p : c.pair_names)
          if (o.pair.empty() || o.pair == p) cs.push_back(&get("/contacts/" + p + "/in_contact"));
        auto touching = [&](size_t i) {
          for (auto* d : cs)
            if (d->data[i] != 0) return true;
          return false;
        };
        if (o.event == "first_contact") {
          for (size_t i = 0; i < n && row == n; ++i)
            if (touching(i)) row = i;
        } else {  // the first sample without contact after the last one with contact
          for (size_t i = n; i-- > 0;)
            if (touching(i)) {
              row = i + 1 < n ? i + 1 : n;
              break;
            }
        }
      } else if (o.event == "inverted") {
        const H5Series& q = get("/bodies/" + o.body + "/orientation");
        auto up_component = [&](size_t i) {
          const double* w = &q.data[i * 4];
          const Eigen::Quaterniond rq(w[0], w[1], w[2], w[3]);
          const Eigen::Vector3d a = rq.normalized() * Eigen::Vector3d(o.axis[0], o.axis[1], o.axis[2]);
          return a.dot(Eigen::Vector3d(o.up[0], o.up[1], o.up[2]));
        };
        const double s0 = up_component(0);
        for (size_t i = 1; i < n && row == n; ++i)
          if (s0 != 0 && up_component(i) * s0 < 0) row = i;
      } else if (o.event == "starts_moving") {  // the first sample with |v| > speed or |w| > angular_speed
        const H5Series& v = get("/bodies/" + o.body + "/velocity");
        const H5Series& w = get("/bodies/" + o.body + "/angular_velocity");
        for (size_t i = 0; i < n && row == n; ++i)
          if (component(v, i, -2) > o.speed || component(w, i, -2) > o.angular_speed) row = i;
      } else {  // at_rest: from this sample to the end, |v| <= speed and |w| <= angular_speed
        const H5Series& v = get("/bodies/" + o.body + "/velocity");
        const H5Series& w = get("/bodies/" + o.body + "/angular_velocity");
        for (size_t i = n; i-- > 0;) {
          if (component(v, i, -2) > o.speed || component(w, i, -2) > o.angular_speed) break;
          row = i;
        }
      }
      if (row < n) event_row[o.name] = row;
      out.push_back(row < n ? time.data[row] : kNaN);
    }
  }
  H5Fclose(f);
  if (s.pass) {
    for (size_t k = 0; k < s.params.size(); ++k) vars[s.params[k].name] = c.values[run][k];
    for (size_t k = 0; k < out.size(); ++k) vars[s.outcome_columns[k]] = out[k];
    const double p = eval(*s.pass, vars);
    out.push_back(p != 0 && !std::isnan(p) ? 1 : 0);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running one run as a child process

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

struct Child {
  pid_t pid = -1;
  long run = -1;
  Clock::time_point start;
};

pid_t spawn_run(const Campaign& c, const Paths& P, const std::string& exe, long run, int threads) {
  std::vector<std::string> args = {exe, "run", c.spec.base, "-o", P.series(run), "--threads", std::to_string(threads), "-q"};
  for (const auto& o : c.overrides(run)) args.insert(args.end(), {"--set", o});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = P.log(run);
  const pid_t parent = getpid();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The run dies with its driver (a killed campaign leaves no orphan writing into the work dir).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    signal(SIGINT, SIG_DFL);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    const int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) dup2(nul, 0), close(nul);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  return pid;
}

std::string last_error_line(const std::string& log) {
  bool ok = false;
  const std::string text = read_text(log, ok);
  std::string last, line;
  std::stringstream ss(text);
  while (std::getline(ss, line))
    if (line.find("error") != std::string::npos) last = line;
  return last;
}

RunResult finish_run(const Campaign& c, const Paths& P, long run, int wait_status, double wall, int rank) {
  RunResult r;
  r.index = run;
  r.wall = wall;
  r.rank = rank;
  const size_t ncols = c.spec.outcome_columns.size();
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
    try {
      r.values = compute_outcomes(c, run, P.series(run));
      r.status = "completed";
    } catch (const std::exception& e) {
      r.status = std::string("failed: outcomes: ") + e.what();
    }
  } else if (WIFEXITED(wait_status)) {
    const std::string e = last_error_line(P.log(run));
    r.status = "failed: exit status " + std::to_string(WEXITSTATUS(wait_status)) + (e.empty() ? "" : ": " + e);
  } else {
    r.status = "failed: killed by signal " + std::to_string(WTERMSIG(wait_status));
  }
  if (r.status != "completed") {
    r.values.assign(ncols, kNaN);
    if (c.spec.pass) r.values.back() = 0;
  } else {
    std::error_code ec;
    fs::remove(P.log(run), ec);
    if (!c.spec.keep_series) fs::remove(P.series(run), ec);
  }
  return r;
}

// Runs up to `jobs` children at once. next() gives a run index (-1: none now); done(result) takes results.
struct LocalPool {
  const Campaign& c;
  const Paths& P;
  std::string exe;
  int jobs = 1, rank = 0, threads = 1;
  std::vector<Child> running;

  bool start(long run) {
    Child ch;
    ch.run = run;
    ch.start = Clock::now();
    ch.pid = spawn_run(c, P, exe, run, threads);
    running.push_back(ch);
    return true;
  }
  // Reaps finished children; returns their results.
  std::vector<RunResult> reap() {
    std::vector<RunResult> out;
    for (size_t i = 0; i < running.size();) {
      int st = 0;
      const pid_t w = waitpid(running[i].pid, &st, WNOHANG);
      if (w == running[i].pid) {
        const double wall = std::chrono::duration<double>(Clock::now() - running[i].start).count();
        out.push_back(finish_run(c, P, running[i].run, st, wall, rank));
        running.erase(running.begin() + long(i));
      } else {
        ++i;
      }
    }
    return out;
  }
  bool full() const { return int(running.size()) >= jobs; }
};

// ---------------------------------------------------------------------------------------------
// Writing the table

void write_attr_str(hid_t obj, const char* name, const std::string& v) {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  const hid_t sp = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  const char* p = v.c_str();
  H5Awrite(a, t, &p);
  H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
}

void write_attr_num(hid_t obj, const char* name, double v) {
  const hid_t sp = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a);
  H5Sclose(sp);
}

hid_t write_column(hid_t group, const std::string& name, hid_t file_type, hid_t mem_type, const void* data, size_t n) {
  const hsize_t dims[1] = {hsize_t(n)};
  const hid_t sp = H5Screate_simple(1, dims, nullptr);
  const hid_t d = H5Dcreate2(group, name.c_str(), file_type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error("cannot create dataset " + name);
  if (n > 0 && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    throw std::runtime_error("cannot write dataset " + name);
  H5Sclose(sp);
  return d;
}

std::string outcome_description(const Outcome& o, const std::string& col) {
  if (o.kind == "final_pose") return "final pose of body " + o.body + " (" + col.substr(o.name.size() + 1) + ")";
  if (o.kind == "energy_dissipated") return "total energy at t = 0 minus total energy at the end (J)";
  if (o.kind == "event") return "time of the first sample at which " + o.event + " holds (s); NaN if never";
  if (o.kind == "expression") return "an expression of the parameters and outcomes";
  std::string d = o.kind + " of " + o.series.text + " over the output samples";
  if (!o.from.empty()) d += " from the time of " + o.from;
  return d;
}

std::string outcome_units(const Outcome& o, const std::string& col) {
  if (o.kind == "event") return "s";
  if (o.kind == "energy_dissipated") return "J";
  if (o.kind == "final_pose") return col.size() >= 2 && col[col.size() - 2] == 'q' ? "1" : "m";
  const std::string& d = o.series.dataset;
  if (d == "/time") return "s";
  if (d.rfind("/energy/", 0) == 0) return "J";
  if (d.find("/position") != std::string::npos || d.find("/point") != std::string::npos) return "m";
  if (d.find("/angular_velocity") != std::string::npos) return "rad/s";
  if (d.find("/velocity") != std::string::npos) return "m/s";
  if (d.find("/orientation") != std::string::npos) return "1";
  if (d.find("/force") != std::string::npos) return "N";
  if (d.find("/torque") != std::string::npos) return "N*m";
  return "";
}

void write_table(const Campaign& c, const Paths& P, const std::vector<RunResult>& results, double wall) {
  const Spec& s = c.spec;
  const std::string tmp = P.output + ".tmp-" + std::to_string(getpid());
  const hid_t f = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot create " + tmp);
  long completed = 0, passed = 0;
  for (const auto& r : results) completed += r.status == "completed";
  write_attr_str(f, "format", "vcsim-sweep");
  write_attr_num(f, "format_version", 1);
  write_attr_str(f, "sweep_name", s.name);
  write_attr_str(f, "sweep_file", s.file);
  write_attr_str(f, "sweep", s.text);
  write_attr_str(f, "base_scenario_file", s.base);
  write_attr_str(f, "base_scenario", s.base_text);
  write_attr_str(f, "vcsim_version", VCSIM_VERSION);
  write_attr_str(f, "git_revision", VCSIM_GIT_REVISION);
  write_attr_num(f, "seed", double(s.seed));
  write_attr_num(f, "runs", double(c.runs));
  write_attr_num(f, "completed", double(completed));
  write_attr_str(f, "pass_expression", s.pass_text);
  std::vector<std::string> pnames, fixed;
  for (const auto& p : s.params) pnames.push_back(p.name);
  for (const auto& x : s.fixed) fixed.push_back(x.first + "=" + x.second);
  write_attr_str(f, "parameters", join(pnames, ","));
  write_attr_str(f, "outcomes", join(s.outcome_columns, ","));
  write_attr_str(f, "fixed_overrides", join(fixed, "\n"));
  write_attr_num(f, "wall_time_s", wall);
  if (s.keep_series) write_attr_str(f, "series_dir", fs::path(P.work).filename().string());

  const size_t n = results.size();
  const hid_t g = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  std::vector<std::string> columns = {"run_index"};
  {
    std::vector<int64_t> idx(n);
    for (size_t i = 0; i < n; ++i) idx[i] = results[i].index;
    const hid_t d = write_column(g, "run_index", H5T_STD_I64LE, H5T_NATIVE_INT64, idx.data(), n);
    write_attr_str(d, "description", "run number: row i is run i");
    H5Dclose(d);
  }
  for (size_t k = 0; k < s.params.size(); ++k) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = c.values[results[i].index][k];
    const hid_t d = write_column(g, s.params[k].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), n);
    write_attr_str(d, "kind", "parameter");
    write_attr_str(d, "path", s.params[k].path);
    write_attr_str(d, "distribution", s.params[k].kind);
    write_attr_str(d, "description", "scenario value " + s.params[k].path + " (" + s.params[k].kind + ")");
    H5Dclose(d);
    columns.push_back(s.params[k].name);
  }
  size_t col = 0;
  for (const auto& o : s.outcomes)
    for (const auto& name : o.columns) {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = results[i].values[col];
      const hid_t d = write_column(g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), n);
      write_attr_str(d, "kind", "outcome");
      write_attr_str(d, "description", outcome_description(o, name));
      write_attr_str(d, "units", outcome_units(o, name));
      H5Dclose(d);
      columns.push_back(name);
      ++col;
    }
  if (s.pass) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) passed += v[i] = results[i].values[col] != 0;
    const hid_t d = write_column(g, "pass", H5T_STD_U8LE, H5T_NATIVE_UINT8, v.data(), n);
    write_attr_str(d, "kind", "outcome");
    write_attr_str(d, "description", "1 if the predicate '" + s.pass_text + "' holds");
    H5Dclose(d);
    columns.push_back("pass");
  }
  {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    std::vector<const char*> p(n);
    for (size_t i = 0; i < n; ++i) p[i] = results[i].status.c_str();
    const hid_t d = write_column(g, "status", t, t, p.data(), n);
    write_attr_str(d, "description", "\"completed\" or \"failed: ...\" (then the outcomes are NaN)");
    H5Dclose(d);
    H5Tclose(t);
    columns.push_back("status");
  }
  write_attr_str(g, "columns", join(columns, ","));
  H5Gclose(g);
  write_attr_num(f, "passed", double(passed));

  // Not part of the table: how the campaign ran (differs between runs of the same sweep).
  const hid_t lg = H5Gcreate2(f, "log", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  {
    std::vector<double> w(n);
    std::vector<int64_t> rk(n);
    for (size_t i = 0; i < n; ++i) w[i] = results[i].wall, rk[i] = results[i].rank;
    H5Dclose(write_column(lg, "wall_time_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w.data(), n));
    H5Dclose(write_column(lg, "rank", H5T_STD_I64LE, H5T_NATIVE_INT64, rk.data(), n));
  }
  H5Gclose(lg);
  if (s.keep_series) {
    const hid_t sg = H5Gcreate2(f, "series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const std::string rel_dir = fs::path(P.work).filename().string();
    for (const auto& r : results) {
      if (!fs::exists(P.series(r.index))) continue;
      const std::string name = fs::path(P.series(r.index)).stem().string();
      const std::string target = rel_dir + "/" + name + ".h5";
      H5Lcreate_external(target.c_str(), "/", sg, name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    }
    H5Gclose(sg);
  }
  if (H5Fclose(f) < 0) throw std::runtime_error("cannot close " + tmp);
  if (std::rename(tmp.c_str(), P.output.c_str()) != 0)
    throw std::runtime_error("cannot rename " + tmp + " to " + P.output + ": " + std::strerror(errno));
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o << text;
    o.flush();
    if (!o) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp);
}

// ---------------------------------------------------------------------------------------------
// MPI (optional)

struct Mpi {
  int rank = 0, size = 1, local_size = 1;
  bool active = false;
};

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

enum Tag { kRequest = 1, kAssign = 2, kBye = 3, kAbort = 4 };

void mpi_init(Mpi& m) {
#ifdef VCSIM_HAVE_MPI
  if (!launched_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m.size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m.rank, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &m.local_size);
  MPI_Comm_free(&local);
  m.active = true;
#else
  (void)m;
#endif
}

void mpi_finalize(Mpi& m) {
#ifdef VCSIM_HAVE_MPI
  if (m.active) MPI_Finalize();
#endif
  m.active = false;
}

// All ranks agree on a status (rank 0's); workers follow rank 0's decision to stop early.
int mpi_broadcast_int(const Mpi& m, int v) {
#ifdef VCSIM_HAVE_MPI
  if (m.active && m.size > 1) MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  return v;
}

#ifdef VCSIM_HAVE_MPI
void send_text(int dest, int tag, const std::string& s) {
  MPI_Send(s.data(), int(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}
std::string recv_text(const MPI_Status& st) {
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string s(size_t(count), '\0');
  MPI_Recv(s.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return s;
}

// A worker rank: asks rank 0 for a run per free slot, runs it, sends the result with the next request.
void worker_loop(const Campaign& c, const Paths& P, LocalPool& pool) {
  int outstanding = 0, stopped = 0;
  for (int j = 0; j < pool.jobs; ++j) send_text(0, kRequest, ""), ++outstanding;
  while (true) {
    bool idle = true;
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(0, kAssign, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      idle = false;
      long run = -1;
      MPI_Recv(&run, 1, MPI_LONG, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      --outstanding;
      if (run < 0) ++stopped;
      else pool.start(run);
    }
    for (const auto& r : pool.reap()) {
      idle = false;
      send_text(0, kRequest, encode(r));
      ++outstanding;
    }
    if (stopped == pool.jobs && pool.running.empty() && outstanding == 0) break;
    if (idle) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  send_text(0, kBye, "");
  (void)c;
  (void)P;
}
#endif

volatile sig_atomic_t g_interrupted = 0;
extern "C" void vcsim_sweep_on_sigint(int) { g_interrupted = 1; }

}  // namespace

// ---------------------------------------------------------------------------------------------

int run_sweep(const Options& opt) {
  Mpi mpi;
  mpi_init(mpi);
  const bool root = mpi.rank == 0;
  auto finish = [&](int status) {
    mpi_finalize(mpi);
    return status;
  };
  // Workers see the same sweep file; only rank 0 reports errors.
  Campaign c;
  Paths P;
  int status = 0;
  try {
    c.spec = parse_spec(opt.file);
    generate_values(c);
    validate_runs(c);
    P.output = !opt.output.empty() ? opt.output
               : !c.spec.output.empty() ? c.spec.output
                                        : c.spec.name + ".h5";
    if (fs::path(P.output).extension() == ".yaml" || fs::path(P.output).extension() == ".yml")
      throw InputError(opt.file, 0, 0, "output", "expected an HDF5 output path; got '" + P.output + "'");
    P.work = (fs::path(P.output).parent_path() / (fs::path(P.output).stem().string() + ".runs")).string();
    if (fs::path(P.output).parent_path().empty()) P.work = fs::path(P.output).stem().string() + ".runs";
  } catch (const InputError& e) {
    if (root) std::cerr << e.what() << "\n";
    status = 2;
  } catch (const std::exception& e) {
    if (root) std::cerr << opt.file << ": error: " << e.what() << "\n";
    status = 2;
  }
  if (status != 0) return finish(status);
  if (opt.check_only) {
    if (root)
      std::cout << opt.file << ": ok (" << c.runs << " runs of " << c.spec.base << ", " << c.spec.params.size()
                << " parameters, " << c.spec.outcome_columns.size() << " outcome columns)\n";
    return finish(0);
  }

  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::max(1, opt.threads_per_run);
  const int jobs = opt.jobs > 0 ? opt.jobs : std::max(1, cores / (std::max(1, mpi.local_size) * threads));
  const std::string exe = opt.self_exe.empty() ? fs::read_symlink("/proc/self/exe").string() : opt.self_exe;
  LocalPool pool{c, P, exe, jobs, mpi.rank, threads, {}};
  const size_t ncols = c.spec.outcome_columns.size();
  std::vector<std::optional<RunResult>> results(size_t(c.runs));
  std::deque<long> pending;
  const auto t0 = Clock::now();
  long already = 0;

  // Rank 0 prepares the work directory (resume or fresh start).
  if (root) {
    try {
      std::error_code ec;
      fs::create_directories(P.work, ec);
      if (ec) throw std::runtime_error("cannot create the work directory " + P.work + ": " + ec.message());
      const std::string key_file = (fs::path(P.work) / "campaign.key").string();
      char key[32];
      std::snprintf(key, sizeof key, "%016llx\n", (unsigned long long)c.fingerprint);
      bool have_key = false;
      const std::string old_key = read_text(key_file, have_key);
      if (opt.resume && have_key && old_key != key)
        throw InputError(opt.file, 0, 0, "",
                         "expected --resume of the same campaign; got a work directory " + P.work +
                             " from a different sweep file, base scenario or parameter values (remove it or drop --resume)");
      if (!opt.resume || !have_key) {
        for (const auto& e : fs::directory_iterator(P.work)) {
          const std::string n = e.path().filename().string();
          if (n.rfind("run_", 0) == 0 || n == "campaign.key") fs::remove(e.path(), ec);
        }
        write_file_atomic(key_file, key);
      }
      for (long r = 0; r < c.runs; ++r) {
        if (opt.resume) {
          bool ok = false;
          const std::string line = read_text(P.result(r), ok);
          if (ok)
            if (auto rr = decode(line, ncols); rr && rr->index == r) {
              results[size_t(r)] = *rr;
              ++already;
              continue;
            }
        }
        pending.push_back(r);
      }
    } catch (const InputError& e) {
      std::cerr << e.what() << "\n";
      status = 2;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      status = 1;
    }
  }
  status = mpi_broadcast_int(mpi, status);
  if (status != 0) return finish(status);

#ifdef VCSIM_HAVE_MPI
  if (mpi.active && !root) {
    worker_loop(c, P, pool);
    return finish(mpi_broadcast_int(mpi, 0));  // rank 0's final status
  }
#endif

  std::signal(SIGINT, vcsim_sweep_on_sigint);
  std::signal(SIGTERM, vcsim_sweep_on_sigint);
  {
    std::cout << "sweep      " << c.spec.name << " (" << opt.file << "): " << c.runs << " runs of " << c.spec.base
              << "\n"
              << "parallel   " << jobs << " concurrent run(s)" << (mpi.size > 1 ? " per rank, " + std::to_string(mpi.size) + " MPI ranks" : "")
              << ", " << threads << (threads == 1 ? " thread" : " threads") << " each\n";
    if (opt.resume) std::cout << "resume     " << already << " of " << c.runs << " runs already finished; running " << pending.size() << "\n";
    std::cout.flush();
  }
  long done = already;
  int workers_alive = mpi.size - 1;
  auto record = [&](const RunResult& r) {
    // After a Ctrl-C the runs were interrupted too (same process group): not a result, redo them on --resume.
    if (g_interrupted && r.status != "completed") {
      if (!opt.quiet) std::cout << "run " << r.index << " interrupted (not recorded)\n" << std::flush;
      return;
    }
    write_file_atomic(P.result(r.index), encode(r));
    results[size_t(r.index)] = r;
    ++done;
    if (!opt.quiet) {
      std::ostringstream line;
      line << "run " << r.index << " done [" << done << "/" << c.runs << "] " << r.status << " in " << fmt_short(r.wall)
           << " s" << (mpi.size > 1 ? " (rank " + std::to_string(r.rank) + ")" : "");
      if (r.status == "completed")
        for (size_t k = 0; k < ncols; ++k) line << (k ? ", " : ": ") << c.spec.outcome_columns[k] << " = " << fmt_short(r.values[k]);
      std::cout << line.str() << "\n";
      std::cout.flush();
    }
  };
  int exit_status = 0;
  try {
    while (done < c.runs || workers_alive > 0 || !pool.running.empty()) {
      bool idle = true;
      while (!g_interrupted && !pool.full() && !pending.empty()) {
        const long r = pending.front();
        pending.pop_front();
        if (!opt.quiet) std::cout << "run " << r << " start\n" << std::flush;
        pool.start(r);
        idle = false;
      }
      for (const auto& r : pool.reap()) record(r), idle = false;
#ifdef VCSIM_HAVE_MPI
      if (mpi.active) {
        int flag = 0;
        MPI_Status st;
        while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), flag) {
          idle = false;
          const std::string msg = recv_text(st);
          if (st.MPI_TAG == kBye) {
            --workers_alive;
            continue;
          }
          if (!msg.empty()) {
            if (auto rr = decode(msg, ncols)) record(*rr);
          }
          long next = -1;
          if (!g_interrupted && !pending.empty()) {
            next = pending.front();
            pending.pop_front();
            if (!opt.quiet) std::cout << "run " << next << " start (rank " << st.MPI_SOURCE << ")\n" << std::flush;
          }
          MPI_Send(&next, 1, MPI_LONG, st.MPI_SOURCE, kAssign, MPI_COMM_WORLD);
        }
      }
#endif
      if (g_interrupted && pool.running.empty() && workers_alive == 0) break;
      if (g_interrupted && pool.running.empty() && !mpi.active) break;
      if (idle) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
#ifdef VCSIM_HAVE_MPI
    // The other ranks are waiting for run indices: stop the whole job (finished runs stay recorded).
    if (mpi.active && mpi.size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    exit_status = 1;
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  if (g_interrupted || exit_status != 0) {
    std::cerr << "interrupted: " << done << " of " << c.runs << " runs finished (recorded in " << P.work
              << "); continue with --resume\n";
    return finish(mpi_broadcast_int(mpi, 1));
  }
  std::vector<RunResult> table;
  for (auto& r : results) table.push_back(*r);
  try {
    write_table(c, P, table, wall);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return finish(mpi_broadcast_int(mpi, 1));
  }
  if (!c.spec.keep_series) {
    std::error_code ec;
    fs::remove_all(P.work, ec);
  }

  // Summary
  long completed = 0, failed = 0, passed = 0;
  for (const auto& r : table) (r.status == "completed" ? completed : failed)++;
  if (c.spec.pass)
    for (const auto& r : table) passed += r.values.back() != 0;
  std::cout << "summary    " << c.runs << " runs: " << completed << " completed, " << failed << " failed";
  if (c.spec.pass) std::cout << "; pass (" << c.spec.pass_text << "): " << passed << " of " << c.runs;
  std::cout << "\nwall time  " << fmt_short(wall) << " s\n";
  for (size_t k = 0; k < ncols; ++k) {
    if (c.spec.pass && k + 1 == ncols) break;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    long cnt = 0;
    for (const auto& r : table)
      if (r.status == "completed" && !std::isnan(r.values[k])) {
        lo = std::min(lo, r.values[k]), hi = std::max(hi, r.values[k]), sum += r.values[k], ++cnt;
      }
    std::printf("  %-22s min %-12s mean %-12s max %-12s (%ld of %ld runs)\n", c.spec.outcome_columns[k].c_str(),
                cnt ? fmt_short(lo).c_str() : "-", cnt ? fmt_short(sum / double(cnt)).c_str() : "-",
                cnt ? fmt_short(hi).c_str() : "-", cnt, completed);
  }
  std::cout << "output     " << P.output << (c.spec.keep_series ? " (series in " + P.work + "/)" : "") << "\n";
  for (const auto& r : table)
    if (r.status != "completed") std::cerr << "run " << r.index << ": " << r.status << "\n";
  return finish(mpi_broadcast_int(mpi, failed > 0 ? 1 : 0));
}

}  // namespace vcsim::sweep
