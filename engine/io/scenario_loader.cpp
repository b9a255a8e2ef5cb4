// The scenario loader (docs/scenario-format.md): parse, apply --set overrides, then read the document one section
// at a time into a Scenario (engine/scenario.h), in SI units. Every error names file:line:column, the key path and
// what was expected (engine/io/yaml_reader.h); setups that load but are likely wrong are collected as warnings.
#include "engine/io/scenario_loader.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "contact/parameters.h"
#include "engine/io/contact_params_reader.h"
#include "engine/io/overrides.h"
#include "engine/io/profile_reader.h"
#include "engine/io/section_readers.h"
#include "integrators/adaptive_rk.h"

namespace vcsim {
namespace {

using namespace io;

// An interference query integrates ~0.49/tol lattice points (docs/geometry.md, N = 0.7/sqrt(tol) across the
// patch): 1e-6 is ~5e5 points, seconds per query; tighter would hang a run (found by fuzzing, issue 8).
constexpr double kMinGeometryTolerance = 1e-6;
// The column engine's coarsest lattice (geometry/interference.cpp): looser tolerances are run at this one.
constexpr double kMaxGeometryTolerance = 1e-2;
constexpr double kMaxSteps = 1e12;

bool fs_equivalent(const std::string& a, const std::string& b) {
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

// The document, or a syntax error at its line and column.
YAML::Node parse_yaml(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    // YAML forbids tabs in indentation, and yaml-cpp then reports a confusing structural error: name the tab.
    std::string hint;
    for (size_t at = 0, line = 0; at < text.size(); ++line) {
      const size_t end = std::min(text.find('\n', at), text.size());
      const size_t first = text.find_first_not_of(' ', at);
      if (first < end && text[first] == '\t' && static_cast<int>(line) <= e.mark.line) {
        hint = " (line " + std::to_string(line + 1) + " is indented with a tab; YAML allows only spaces)";
        break;
      }
      at = end + 1;
    }
    throw InputError(path, e.mark.line + 1, e.mark.column + 1, "",
                     "expected valid YAML; got a syntax error: " + e.msg + hint);
  }
}

// simulation.{rel_tol, abs_tol, max_step, initial_step, step} for an adaptive integrator (docs/integration.md).
void load_adaptive_settings(const YamlReader& L, const YAML::Node& s, Scenario& sc) {
  AdaptiveSettings& a = sc.adaptive_settings;
  if (YAML::Node n = YamlReader::find(s, "rel_tol"); n.IsDefined()) {
    a.rel_tol = L.positive(n, "simulation.rel_tol", "a relative tolerance");
    // Below 1e-13 the error estimate is round-off; at 1 nothing is controlled.
    if (!(a.rel_tol >= 1e-13 && a.rel_tol < 1))
      L.fail(n, "simulation.rel_tol", "expected a relative tolerance in [1e-13, 1); got " + fmt_number(a.rel_tol));
  }
  if (YAML::Node n = YamlReader::find(s, "abs_tol"); n.IsDefined()) {
    const std::vector<std::pair<std::string, double*>> kinds = {{"position", &a.abs_position},
                                                                {"quaternion", &a.abs_quaternion},
                                                                {"velocity", &a.abs_velocity},
                                                                {"angular_velocity", &a.abs_angular_velocity},
                                                                {"friction", &a.abs_friction}};
    std::vector<std::string> keys;
    for (const auto& k : kinds) keys.push_back(k.first);
    if (!n.IsMap())
      L.fail_got(n, "simulation.abs_tol", "a map of absolute tolerances by state kind (" + join_list(keys) + ")");
    L.check_map(n, "simulation.abs_tol", keys, "simulation.abs_tol");
    for (const auto& k : kinds)
      if (YAML::Node v = YamlReader::find(n, k.first); v.IsDefined())
        *k.second = L.positive(v, "simulation.abs_tol." + k.first, "an absolute tolerance");
  }
  if (YAML::Node n = YamlReader::find(s, "max_step"); n.IsDefined()) {
    a.max_step = L.positive(n, "simulation.max_step", "a largest step in s");
    if (a.max_step > sc.duration)
      L.fail(n, "simulation.max_step",
             "expected a largest step <= duration (" + fmt_number(sc.duration) + " s); got " + fmt_number(a.max_step));
  }
  const double max_step = a.max_step > 0 ? a.max_step : sc.duration / 50;
  for (const char* key : {"step", "initial_step"})
    if (YAML::Node n = YamlReader::find(s, key); n.IsDefined()) {
      const std::string path = std::string("simulation.") + key;
      const double h = L.positive(n, path, "a first step in s");
      if (h > max_step)
        L.fail(
            n, path,
            "expected a first step <= the largest step (" + fmt_number(max_step) + " s); got " + fmt_number(h) + " s");
      a.initial_step = h;  // initial_step, read last, wins over step
    }
  sc.step = a.initial_step;
}

// simulation: duration, integrator, the fixed step or the error control, geometry_tolerance.
void read_simulation(const YamlReader& L, const YAML::Node& root, Scenario& sc) {
  const YAML::Node s = L.require(root, "simulation", "", "a map with duration, step, integrator");
  L.check_map(
      s, "simulation",
      {"duration", "step", "integrator", "geometry_tolerance", "rel_tol", "abs_tol", "max_step", "initial_step"},
      "simulation");
  const YAML::Node dn = L.require(s, "duration", "simulation", "the simulated time in s");
  sc.duration = L.positive(dn, "simulation.duration", "a duration in s");
  if (YAML::Node in = YamlReader::find(s, "integrator"); in.IsDefined()) {
    const auto names = integ::method_names();
    const std::string name = L.string(in, "simulation.integrator", "an integrator name");
    const auto method = integ::method_from_name(name);
    const auto adaptive = integ::adaptive_method_from_name(name);
    if (!method && !adaptive) {
      std::vector<std::string> all = names;
      for (const auto& a : integ::adaptive_method_names()) all.push_back(a);
      all.insert(all.end(), {"ode3", "ode5", "ode23", "ode45", "ode23s"});
      const std::string msg = with_hint("expected an integrator (" + join_list(names) + ", the adaptive " +
                                            join_list(integ::adaptive_method_names()) +
                                            ", or the aliases ode3, ode5, ode23, ode45, ode23s); got '" + name + "'",
                                        name, all);
      L.fail(in, "simulation.integrator", msg);
    }
    sc.adaptive = adaptive.has_value();
    sc.integrator = adaptive ? integ::adaptive_method_name(*adaptive) : integ::method_name(*method);
  }
  if (sc.adaptive) {
    // With an adaptive integrator `step` is optional: the first trial step (a fixed-step scenario switched by
    // --set simulation.integrator=dopri5 keeps working).
    load_adaptive_settings(L, s, sc);
  } else {
    const YAML::Node hn = L.require(s, "step", "simulation", "the fixed time step in s");
    sc.step = L.positive(hn, "simulation.step", "a time step in s");
    if (sc.step > sc.duration)
      L.fail(hn, "simulation.step",
             "expected a time step <= duration (" + fmt_number(sc.duration) + " s); got " + fmt_number(sc.step) + " s");
    // A run must end: at 1 us per step (faster than any contact step), 1e12 steps are 11 days.
    if (sc.duration / sc.step > kMaxSteps)
      L.fail(hn, "simulation.step",
             "expected at most 1e12 steps (duration / step); got " + fmt_number(sc.duration / sc.step) + " steps");
    for (const char* key : {"rel_tol", "abs_tol", "max_step", "initial_step"})
      if (YAML::Node k = YamlReader::find(s, key); k.IsDefined())
        L.fail(
            k, std::string("simulation.") + key,
            "expected error-control settings only with an adaptive integrator (dopri5, bs23, rosenbrock23); got "
            "integrator " + sc.integrator);
  }
  if (YAML::Node g = YamlReader::find(s, "geometry_tolerance"); g.IsDefined()) {
    sc.geometry_tolerance = L.positive(g, "simulation.geometry_tolerance", "a relative tolerance");
    if (!(sc.geometry_tolerance >= kMinGeometryTolerance && sc.geometry_tolerance < 1))
      L.fail(g, "simulation.geometry_tolerance",
             "expected a relative tolerance in [1e-6, 1); got " + fmt_number(sc.geometry_tolerance));
    if (sc.geometry_tolerance > kMaxGeometryTolerance)
      L.warn(g, "simulation.geometry_tolerance",
             fmt_number(sc.geometry_tolerance) + " is looser than the interference engine supports; queries run at " +
                 fmt_number(kMaxGeometryTolerance) + " (docs/geometry.md)");
  }
}

// gravity: [gx, gy, gz] (each a number or a time profile), or a tilting world {magnitude, tilt: {axis, angle_deg}}.
void read_gravity(const YamlReader& L, const YAML::Node& root, Scenario& sc) {
  if (YAML::Node g = YamlReader::find(root, "gravity"); g.IsDefined()) {
    if (g.IsMap()) {
      L.check_map(g, "gravity", {"magnitude", "tilt"}, "a tilting gravity {magnitude, tilt: {axis, angle_deg}}");
      GravitySpec spec;
      spec.tilting = true;
      if (YAML::Node m = YamlReader::find(g, "magnitude"); m.IsDefined())
        spec.magnitude = L.positive(m, "gravity.magnitude", "a gravity magnitude in m/s^2");
      std::tie(spec.tilt_axis, spec.tilt) =
          read_turn(L, L.require(g, "tilt", "gravity", "{axis: [x, y, z], angle_deg: PROFILE}"), "gravity.tilt");
      sc.gravity = gravity_at(spec, 0);
      sc.gravity_profile = spec;
    } else {
      if (!g.IsSequence() || g.size() != 3)
        L.fail_got(g, "gravity", "a gravity vector [gx, gy, gz] in m/s^2 (a list of 3 numbers or time profiles)");
      GravitySpec spec;
      spec.components = read_vec3_profile(L, g, "gravity", "m/s^2");
      sc.gravity = gravity_at(spec, 0);
      if (!std::all_of(spec.components.begin(), spec.components.end(), profile_is_constant)) sc.gravity_profile = spec;
    }
  }
}

// output: file (never the scenario itself) and sampling interval.
void read_output(const YamlReader& L, const YAML::Node& root, const std::string& path, const std::string& stem,
                 Scenario& sc) {
  sc.output_file = stem + ".h5";
  if (YAML::Node o = YamlReader::find(root, "output"); o.IsDefined()) {
    L.check_map(o, "output", {"file", "interval"}, "output");
    if (YAML::Node f = YamlReader::find(o, "file"); f.IsDefined()) {
      sc.output_file = L.string(f, "output.file", "an output file path");
      // Writing the output over the scenario itself would destroy the input.
      if (fs_equivalent(sc.output_file, path))
        L.fail(f, "output.file", "expected an output file other than the scenario file; got '" + sc.output_file + "'");
    }
    if (YAML::Node iv = YamlReader::find(o, "interval"); iv.IsDefined()) {
      sc.output_interval = L.number(iv, "output.interval", "a sampling interval >= 0 in s");
      if (!(sc.output_interval >= 0))
        L.fail(iv, "output.interval",
               "expected a sampling interval >= 0 s (0 = every step); got " + fmt_number(sc.output_interval));
    }
  }
}

// contacts: [{bodies: [i, j], model, <parameters>}]
void read_contacts(const YamlReader& L, const YAML::Node& root, const std::vector<std::string>& body_names,
                   const MaterialPairParams& pair_params, Scenario& sc) {
  if (YAML::Node cs = YamlReader::find(root, "contacts"); cs.IsDefined() && !cs.IsNull()) {
    if (!cs.IsSequence()) L.fail_got(cs, "contacts", "a list of {bodies: [a, b], model, parameters...}");
    std::set<std::pair<std::string, std::string>> seen;
    for (size_t i = 0; i < cs.size(); ++i) {
      const YAML::Node n = cs[i];
      const std::string cp = index_path("contacts", i);
      L.check_unique_keys(n, cp, "a contact {bodies: [a, b], model, parameters...}");
      const YAML::Node bn = L.require(n, "bodies", cp, "the two body names [a, b]");
      const std::string bk = child_path(cp, "bodies");
      if (!bn.IsSequence() || bn.size() != 2) L.fail_got(bn, bk, "two body names [a, b]");
      std::string names[2];
      for (size_t k = 0; k < 2; ++k) {
        names[k] = body_ref(L, bn[k], index_path(bk, k), body_names);
      }
      if (names[0] == names[1]) L.fail(bn, bk, "expected two different bodies; got '" + names[0] + "' twice");
      if (!seen.insert(std::minmax(names[0], names[1])).second)
        L.fail(bn, bk, "expected each body pair in one contact only; got " + names[0] + "/" + names[1] + " again");
      const auto body_of = [&](const std::string& nm) -> const BodySpec& {
        return *std::find_if(sc.bodies.begin(), sc.bodies.end(), [&](const BodySpec& b) { return b.name == nm; });
      };
      // Defaults from the bodies' material pair, when both have materials and the pair is listed.
      const ParamSet* inherited = nullptr;
      const std::string& ma = body_of(names[0]).material;
      const std::string& mb = body_of(names[1]).material;
      if (!ma.empty() && !mb.empty()) {
        auto it = pair_params.find(std::minmax(ma, mb));
        if (it != pair_params.end()) inherited = &it->second;
      }
      ParamSet set;
      if (YAML::Node mn = YamlReader::find(n, "model"); mn.IsDefined()) {
        set.model = read_model_name(L, mn, child_path(cp, "model"));
      } else if (inherited) {
        set.model = inherited->model;
      } else {
        L.fail(n, cp,
               "expected required key 'model' (point, volumetric or cellular) since no material pair gives one; "
               "it is missing");
      }
      if (inherited && inherited->model == set.model) {
        set.params = inherited->params;
        set.where = inherited->where;
      }
      read_params(L, n, cp, set.model, {"bodies", "model"}, set);
      check_param_set(L, set, n, cp);
      check_param_ranges(L, set, cp);
      const geo::SourceLocation where = L.locate(n, cp);
      sc.contacts.push_back(ContactSpec{names[0], names[1], set.model, set.params, origins(L, set), where,
                                        contact::resolve_parameters(set.model, set.params, where)});
    }
  }
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw InputError(path, 0, 0, "", std::string("expected a readable scenario file; got ") + std::strerror(err));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, 0, "", std::string("expected a readable scenario file; got a read error"));
  return load_scenario_text(buf.str(), path, overrides);
}

Scenario load_scenario_text(const std::string& text, const std::string& path,
                            const std::vector<std::string>& overrides) {
  Scenario sc;
  sc.source_file = path;

  YAML::Node root = parse_yaml(text, path);
  YamlReader L(path);
  if (!root.IsMap() && !root.IsNull())
    throw InputError(path, 1, 1, "",
                     "expected a map of scenario sections (simulation, bodies, ...); got " + describe(root));
  if (root.IsNull() && overrides.empty())
    throw InputError(path, 1, 1, "",
                     "expected a map of scenario sections (simulation, bodies, ...); got an empty document");
  for (const auto& o : overrides) L.overrides.push_back(apply_override(root, o, path));
  sc.source_text = text;
  if (!overrides.empty()) {
    YAML::Emitter out;
    out << root;
    sc.source_text = std::string(out.c_str()) + "\n";
  }

  L.check_map(root, "",
              {"name", "description", "simulation", "gravity", "output", "bodies", "contacts", "materials",
               "material_pairs", "impulses", "loads"},
              "the scenario");
  const std::string stem = std::filesystem::path(path).stem().string();
  sc.name = stem;
  if (YAML::Node n = YamlReader::find(root, "name"); n.IsDefined()) sc.name = L.string(n, "name", "a scenario name");
  if (YAML::Node n = YamlReader::find(root, "description"); n.IsDefined() && !n.IsNull())
    L.string(n, "description", "a text");

  read_simulation(L, root, sc);
  read_gravity(L, root, sc);
  read_output(L, root, path, stem, sc);
  const Materials materials = read_materials(L, root);
  const auto pair_params = read_material_pairs(L, root, materials, sc);
  const std::vector<std::string> body_names = read_bodies(L, root, materials, sc);
  read_contacts(L, root, body_names, pair_params, sc);
  read_impulses(L, root, body_names, sc);
  read_loads(L, root, body_names, sc);
  sc.warnings = std::move(L.warnings);
  return sc;
}

}  // namespace vcsim
