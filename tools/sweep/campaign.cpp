// The runs of a campaign: see tools/sweep/campaign.h.
#include "tools/sweep/campaign.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/input_error.h"
#include "engine/io/scenario_loader.h"
#include "tools/sweep/outcomes.h"
#include "tools/sweep/spec.h"

namespace vcsim::sweep {
namespace {

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

// contacts.0.k_v -> contacts[0].k_v (the loader's key-path spelling)
std::string canonical_path(const std::string& p) {
  std::string out;
  for (const auto& s : path_segments(p)) {
    if (s.find_first_not_of("0123456789") == std::string::npos) out += "[" + s + "]";
    else out += (out.empty() ? "" : ".") + s;
  }
  return out;
}

// Is the value at `path` written in the document?
bool path_in_document(const YAML::Node& doc, const std::string& path) {
  YAML::Node cur;
  cur.reset(doc);
  for (const auto& seg : path_segments(path)) {
    YAML::Node next;
    if (cur.IsSequence()) {
      const size_t idx = io::parse_index(seg);
      if (idx == io::kNotAnIndex || idx >= cur.size()) return false;
      next.reset(cur[idx]);
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

// The loader's error `e` as an error in the sweep file at `at`: "expected WHAT; got GOT (the loader's words)".
InputError in_sweep_file(const Spec& s, const InputError& e, const YAML::Node& at, const std::string& kp,
                         const std::string& what, const std::string& got) {
  std::string detail = e.where.key_path.empty() ? e.expected : e.where.key_path + ": " + e.expected;
  const YAML::Mark m = at.Mark();
  return InputError(s.file, m.line + 1, m.column + 1, kp, "expected " + what + "; got " + got + " (" + detail + ")");
}

// 1. The base scenario with the fixed overrides alone; gives the bodies and the contact pairs.
void load_base(Campaign& c) {
  const Spec& s = c.spec;
  const std::vector<std::string> fixed = s.fixed_overrides();
  Scenario base;
  try {
    base = load_scenario(s.base, fixed);
  } catch (const InputError& e) {
    for (size_t i = 0; i < s.fixed.size(); ++i)
      if (e.where.file.find("--set " + fixed[i]) != std::string::npos)
        throw in_sweep_file(s, e, s.fixed_nodes[i], "fixed." + s.fixed[i].first,
                            "an override of " + s.base + " (as --set)", "'" + fixed[i] + "'");
    const YAML::Node root = YAML::Load(s.text);
    throw in_sweep_file(s, e, find(root, "base"), "base", "a valid scenario file", "'" + s.base + "'");
  }
  for (const auto& b : base.bodies) c.body_names.push_back(b.name);
  for (const auto& ct : base.contacts) c.pair_names.push_back(ct.body_i + "__" + ct.body_j);
}

// 2. Each parameter's path, with its first value.
void check_parameter_paths(const Campaign& c) {
  const Spec& s = c.spec;
  YAML::Node base_doc = YAML::Load(s.base_text);
  for (const auto& f : s.fixed) set_in_document(base_doc, f.first);
  for (size_t k = 0; k < s.params.size(); ++k) {
    const Parameter& p = s.params[k];
    auto o = s.fixed_overrides();
    o.push_back(p.path + "=" + fmt17(c.values[0][k]));
    try {
      load_scenario(s.base, o);
    } catch (const InputError& e) {
      // A path written in the base file (or by `fixed`) is a value problem; a path the file does not have is
      // a path problem (a typo, or a key the scenario format does not know).
      const std::string canon = canonical_path(p.path);
      const bool value_error = path_in_document(base_doc, p.path) &&
                               (e.where.key_path == canon ||
                                (e.where.key_path.size() > canon.size() && e.where.key_path.compare(0, canon.size(), canon) == 0 &&
                                 (e.where.key_path[canon.size()] == '.' || e.where.key_path[canon.size()] == '[')));
      if (!value_error || e.where.file.find("--set " + o.back()) == std::string::npos)
        throw in_sweep_file(s, e, p.path_node, p.key_path + ".path", "a path of a value in " + s.base + " (as for --set)",
                            "'" + p.path + "'");
    }
  }
}

// 3. Every run; a bad value points at the list item or the distribution that gave it.
void check_runs(const Campaign& c) {
  const Spec& s = c.spec;
  for (long r = 0; r < c.runs; ++r) {
    const auto o = c.overrides(r);
    try {
      load_scenario(s.base, o);
    } catch (const InputError& e) {
      for (size_t k = 0; k < s.params.size(); ++k) {
        const Parameter& p = s.params[k];
        if (e.where.file.find("--set " + o[s.fixed.size() + k]) == std::string::npos) continue;
        if (p.kind == "list") {
          const auto it = std::find(p.values.begin(), p.values.end(), c.values[r][k]);
          const size_t j = size_t(it - p.values.begin());
          throw in_sweep_file(s, e, p.value_nodes[j], p.key_path + ".list[" + std::to_string(j) + "]",
                              "a value that " + p.path + " accepts", fmt_short(c.values[r][k]));
        }
        throw in_sweep_file(s, e, p.dist_node, p.key_path + "." + p.kind, "values that " + p.path + " accepts",
                            fmt_short(c.values[r][k]) + " in run " + std::to_string(r));
      }
      const YAML::Mark m = s.params[0].path_node.Mark();
      throw InputError(s.file, m.line + 1, m.column + 1, "parameters",
                       "expected parameters that give a valid scenario; got run " + std::to_string(r) + " (" + e.what() + ")");
    }
  }
}

}  // namespace

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

void validate_runs(Campaign& c) {
  load_base(c);
  check_parameter_paths(c);
  check_runs(c);
  parse_outcomes(c.spec, c.body_names, c.pair_names);
  const Spec& s = c.spec;
  std::string fp = s.text + "\x1f" + s.base_text;
  for (long r = 0; r < c.runs; ++r) fp += "\x1f" + join(c.overrides(r), "\x1e");
  c.fingerprint = fnv1a(fp);
}

}  // namespace vcsim::sweep
