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
#include "engine/io/csg_reader.h"
#include "engine/io/overrides.h"
#include "engine/io/profile_reader.h"
#include "engine/io/yaml_reader.h"
#include "engine/prescribed.h"
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
// Plausible densities, for the warning that catches a value in other units (a density of 7.8: g/cm^3).
constexpr double kMinDensity = 10, kMaxDensity = 23000;
const char* const kDensityRange = "10 to 23 000 kg/m^3, from foams to osmium; steel is 7800";

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

// A body name at `n` that is defined under 'bodies'.
std::string body_ref(const YamlReader& L, const YAML::Node& n, const std::string& path,
                     const std::vector<std::string>& body_names) {
  const std::string name = L.string(n, path, "a body name");
  if (std::find(body_names.begin(), body_names.end(), name) == body_names.end()) {
    const std::string msg = with_hint(
        "expected a body defined under 'bodies' (" + join_list(body_names) + "); got '" + name + "'", name, body_names);
    L.fail(n, path, msg);
  }
  return name;
}

// The `name` of entry i of a list section ("<kind>_<i>" unless given), unique among `taken`.
std::string entry_name(const YamlReader& L, const YAML::Node& n, const std::string& path, const std::string& kind,
                       size_t i, std::set<std::string>& taken) {
  const std::string what = (kind == "impulse" ? "an " : "a ") + kind + " name";
  std::string name = kind + "_" + std::to_string(i);
  if (YAML::Node nm = YamlReader::find(n, "name"); nm.IsDefined()) {
    name = L.string(nm, child_path(path, "name"), what);
    if (!valid_name(name))
      L.fail(nm, child_path(path, "name"), "expected " + what + " of letters, digits, '_' and '-'; got '" + name + "'");
  }
  if (!taken.insert(name).second) L.fail(n, path, "expected unique " + kind + " names; got '" + name + "' again");
  return name;
}

// when: {signal, crosses, direction, body[, until]}: a signal of a body crossing a level (impulses, load switches;
// docs/scenario-format.md, "Impulses"). `until` is read only where it is allowed (non-null).
void read_crossing(const YamlReader& L, const YAML::Node& when, const std::string& wp,
                   const std::vector<std::string>& body_names, const std::string& default_body,
                   std::string& signal_body, std::string& signal, double& level, int& direction,
                   std::optional<double>* until) {
  static const std::vector<std::string> signals = {"position.x",         "position.y",         "position.z",
                                                   "velocity.x",         "velocity.y",         "velocity.z",
                                                   "angular_velocity.x", "angular_velocity.y", "angular_velocity.z"};
  std::vector<std::string> keys = {"signal", "crosses", "direction", "body"};
  if (until) keys.push_back("until");
  L.check_map(when, wp, keys, "a crossing trigger");
  const std::string sp = child_path(wp, "signal");
  const YAML::Node sn = L.require(when, "signal", wp, "a state signal: " + join_list(signals));
  signal = L.string(sn, sp, "a state signal");
  if (std::find(signals.begin(), signals.end(), signal) == signals.end()) {
    const std::string msg =
        with_hint("expected a state signal (" + join_list(signals) + "); got '" + signal + "'", signal, signals);
    L.fail(sn, sp, msg);
  }
  level = L.number(L.require(when, "crosses", wp, "the level in SI units"), child_path(wp, "crosses"),
                   "a level (number, SI units)");
  signal_body = default_body;
  if (YAML::Node b = YamlReader::find(when, "body"); b.IsDefined())
    signal_body = body_ref(L, b, child_path(wp, "body"), body_names);
  direction = 0;
  if (YAML::Node d = YamlReader::find(when, "direction"); d.IsDefined()) {
    const std::string dp = child_path(wp, "direction");
    const std::string dir = L.string(d, dp, "falling, rising or either");
    if (dir == "falling")
      direction = -1;
    else if (dir == "rising")
      direction = 1;
    else if (dir != "either")
      L.fail(d, dp, "expected falling, rising or either; got '" + dir + "'");
  }
  if (YAML::Node u = until ? YamlReader::find(when, "until") : YAML::Node(YAML::NodeType::Undefined); u.IsDefined()) {
    // Ends a series of crossing impulses (S2's stop phase: the kicks end and the spin decays to rest).
    const std::string up = child_path(wp, "until");
    const double t = L.number(u, up, "a time in s");
    if (!(t >= 0)) L.fail(u, up, "expected a time >= 0 s; got " + fmt_number(t) + " s");
    *until = t;
  }
}

// motion: {velocity, angular_velocity} | {displacement, rotation} | {table: {times, positions, orientations}}
// (docs/scenario-format.md, "Prescribed motion").
MotionSpec load_motion(const YamlReader& L, const YAML::Node& n, const std::string& path, const YAML::Node& body,
                       BodySpec& b) {
  L.check_map(n, path, {"velocity", "angular_velocity", "displacement", "rotation", "table"}, "a prescribed motion");
  const auto has = [&](const char* k) { return YamlReader::find(n, k).IsDefined(); };
  const bool constant = has("velocity") || has("angular_velocity"), profiles = has("displacement") || has("rotation"),
             table = has("table");
  const std::string kinds = "velocity and angular_velocity (constant), displacement and rotation (profiles), or table";
  if (constant + profiles + table != 1)
    L.fail(n, path,
           "expected one kind of motion: " + kinds + "; got " + (constant + profiles + table ? "two" : "none"));
  MotionSpec m;
  const auto kp = [&](const char* k) { return child_path(path, k); };
  if (constant) {
    m.kind = MotionSpec::Kind::Velocity;
    if (has("velocity")) m.velocity = L.vec3(YamlReader::find(n, "velocity"), kp("velocity"), "a velocity in m/s");
    if (has("angular_velocity"))
      m.angular_velocity =
          L.vec3(YamlReader::find(n, "angular_velocity"), kp("angular_velocity"), "an angular velocity in rad/s");
    return m;
  }
  if (profiles) {
    m.kind = MotionSpec::Kind::Profiles;
    if (has("displacement"))
      m.displacement = read_vec3_profile(L, YamlReader::find(n, "displacement"), kp("displacement"), "m", true);
    if (has("rotation")) std::tie(m.axis, m.angle) = read_turn(L, YamlReader::find(n, "rotation"), kp("rotation"));
    return m;
  }
  m.kind = MotionSpec::Kind::Table;
  const YAML::Node t = YamlReader::find(n, "table");
  const std::string tp = kp("table");
  L.check_map(t, tp, {"times", "positions", "orientations", "interpolation"}, "a pose table");
  for (const char* k : {"position", "orientation"})
    if (YAML::Node x = YamlReader::find(body, k); x.IsDefined())
      L.fail(x, child_path(b.where.key_path, k),
             "expected no initial " + std::string(k) + " beside motion.table (the table gives the pose); got one");
  const std::vector<double> times =
      read_table_times(L, L.require(t, "times", tp, "increasing times in s"), child_path(tp, "times"));
  const YAML::Node pn = YamlReader::find(t, "positions"), qn = YamlReader::find(t, "orientations");
  if (!pn.IsDefined() && !qn.IsDefined())
    L.fail(t, tp,
           "expected 'positions' ([x, y, z] per time, m) and/or 'orientations' ([w, x, y, z] per time); got neither");
  const auto rows = [&](const YAML::Node& list, const char* key, size_t width, const std::string& what) {
    const std::string lp = child_path(tp, key);
    if (!list.IsSequence() || list.size() != times.size())
      L.fail_got(list, lp, std::to_string(times.size()) + " " + what + " (one per time)");
    std::vector<std::vector<double>> out;
    for (size_t i = 0; i < list.size(); ++i) out.push_back(L.numbers(list[i], index_path(lp, i), width, what));
    return out;
  };
  TimeProfile base;
  base.kind = TimeProfile::Kind::Table;
  base.times = times;
  read_table_options(L, t, tp, base, true);
  for (int k = 0; k < 3; ++k)
    m.table_position[k] = base, m.table_position[k].values.assign(times.size(), b.pose.position[k]);
  const Quat q0 = b.pose.rotation;
  const double q0c[4] = {q0.w(), q0.x(), q0.y(), q0.z()};
  for (int k = 0; k < 4; ++k) m.table_quaternion[k] = base, m.table_quaternion[k].values.assign(times.size(), q0c[k]);
  if (pn.IsDefined()) {
    const auto p = rows(pn, "positions", 3, "a position [x, y, z] in m");
    for (size_t i = 0; i < p.size(); ++i)
      for (int k = 0; k < 3; ++k) m.table_position[k].values[i] = p[i][k];
  }
  if (qn.IsDefined()) {
    const auto q = rows(qn, "orientations", 4, "a unit quaternion [w, x, y, z]");
    Eigen::Vector4d previous = Eigen::Vector4d::Zero();
    for (size_t i = 0; i < q.size(); ++i) {
      Eigen::Vector4d v(q[i][0], q[i][1], q[i][2], q[i][3]);
      if (!(std::abs(v.norm() - 1) <= kQuaternionNormTolerance))
        L.fail(qn[i], index_path(child_path(tp, "orientations"), i),
               "expected a unit quaternion [w, x, y, z] (norm within 1e-6 of 1); got norm " + fmt_number(v.norm()));
      // q and -q are the same turn: keep neighbours in one hemisphere so the spline takes the short way.
      if (v.dot(previous) < 0) v = -v;
      previous = v;
      for (int k = 0; k < 4; ++k) m.table_quaternion[k].values[i] = v[k];
    }
  }
  for (auto& c : m.table_position) prepare_profile(c);
  for (auto& c : m.table_quaternion) prepare_profile(c);
  b.pose = motion_at(m, b.pose, 0).pose;
  return m;
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

// materials: name -> {density, description}; bodies and material pairs name them.
struct Materials {
  std::map<std::string, std::optional<double>> density;
  std::vector<std::string> names;
};

Materials read_materials(const YamlReader& L, const YAML::Node& root) {
  Materials m;
  if (YAML::Node ms = YamlReader::find(root, "materials"); ms.IsDefined() && !ms.IsNull()) {
    for (const auto& [name, key, val] :
         L.named_map(ms, "materials", "a map of material names to {density, description}", "material")) {
      const std::string mp = child_path("materials", name);
      m.names.push_back(name);
      m.density[name];
      if (val.IsNull()) continue;
      L.check_map(val, mp, {"density", "description"}, "a material");
      if (YAML::Node d = YamlReader::find(val, "density"); d.IsDefined())
        m.density[name] = L.positive(d, child_path(mp, "density"), "a density in kg/m^3");
      if (YAML::Node d = YamlReader::find(val, "description"); d.IsDefined() && !d.IsNull())
        L.string(d, child_path(mp, "description"), "a text");
    }
  }
  return m;
}

std::string material_ref(const YamlReader& L, const Materials& materials, const YAML::Node& n, const std::string& kp) {
  const std::string m = L.string(n, kp, "a material name");
  if (!materials.density.count(m)) {
    const std::string msg = with_hint(
        materials.names.empty()
            ? "expected a material defined under 'materials' (there are none); got '" + m + "'"
            : "expected a material defined under 'materials' (" + join_list(materials.names) + "); got '" + m + "'",
        m, materials.names);
    L.fail(n, kp, msg);
  }
  return m;
}

// material_pairs: [{materials: [a, b], model, <parameters>}], complete parameter sets.
std::map<std::pair<std::string, std::string>, ParamSet> read_material_pairs(const YamlReader& L, const YAML::Node& root,
                                                                            const Materials& materials, Scenario& sc) {
  std::map<std::pair<std::string, std::string>, ParamSet> pair_params;
  if (YAML::Node ps = YamlReader::find(root, "material_pairs"); ps.IsDefined() && !ps.IsNull()) {
    if (!ps.IsSequence()) L.fail_got(ps, "material_pairs", "a list of {materials: [a, b], model, parameters...}");
    for (size_t i = 0; i < ps.size(); ++i) {
      const YAML::Node n = ps[i];
      const std::string mp = index_path("material_pairs", i);
      L.check_unique_keys(n, mp, "a material pair {materials: [a, b], model, parameters...}");
      const YAML::Node mn = L.require(n, "materials", mp, "the two material names [a, b]");
      const std::string mk = child_path(mp, "materials");
      if (!mn.IsSequence() || mn.size() != 2) L.fail_got(mn, mk, "two material names [a, b]");
      const std::string a = material_ref(L, materials, mn[0], index_path(mk, 0));
      const std::string b = material_ref(L, materials, mn[1], index_path(mk, 1));
      ParamSet set;
      set.model =
          read_model_name(L, L.require(n, "model", mp, "point, volumetric or cellular"), child_path(mp, "model"));
      read_params(L, n, mp, set.model, {"materials", "model"}, set);
      check_param_set(L, set, n, mp);
      check_param_ranges(L, set, mp);
      const auto key = std::minmax(a, b);
      if (pair_params.count(key)) L.fail(mn, mk, "expected each material pair once; got " + a + "/" + b + " again");
      pair_params[key] = set;
      sc.material_pairs.push_back(MaterialPairSpec{a, b, set.model, set.params, L.locate(n, mp)});
    }
  }
  return pair_params;
}

// bodies: name -> body
std::vector<std::string> read_bodies(const YamlReader& L, const YAML::Node& root, const Materials& materials,
                                     Scenario& sc) {
  const YAML::Node bs = L.require(root, "bodies", "", "a map of body names to body definitions");
  const auto bodies = L.named_map(bs, "bodies", "a map of body names to body definitions", "body");
  if (bodies.empty()) L.fail_got(bs, "bodies", "at least one body");
  std::vector<std::string> body_names;
  for (const auto& [name, key, val] : bodies) {
    const std::string bp = child_path("bodies", name);
    body_names.push_back(name);
    L.check_map(val, bp,
                {"mass", "inertia", "density", "center_of_mass", "position", "orientation", "velocity",
                 "angular_velocity", "fixed", "force", "torque", "geometry", "material", "motion"},
                "a body");
    BodySpec b;
    b.name = name;
    b.where = L.locate(val, bp);
    const YAML::Node& body_node = val;  // lambdas may not capture structured bindings (C++17; clang rejects it)
    const auto get = [&](const char* k) { return YamlReader::find(body_node, k); };
    const auto kp = [&](const char* k) { return child_path(bp, k); };
    if (YAML::Node n = get("fixed"); n.IsDefined()) b.fixed = L.boolean(n, kp("fixed"));
    if (YAML::Node n = get("mass"); n.IsDefined()) b.mass = L.positive(n, kp("mass"), "a mass in kg");
    if (YAML::Node n = get("inertia"); n.IsDefined()) b.inertia = L.inertia(n, kp("inertia"));
    if (YAML::Node n = get("density"); n.IsDefined()) {
      b.density = L.positive(n, kp("density"), "a density in kg/m^3");
      L.check_range(n, kp("density"), *b.density, kMinDensity, kMaxDensity, "kg/m^3", kDensityRange);
    }
    if (YAML::Node n = get("center_of_mass"); n.IsDefined()) {
      b.center_of_mass = L.vec3(n, kp("center_of_mass"), "a body-frame point [x, y, z] in m");
      b.center_of_mass_given = true;
    }
    if (YAML::Node n = get("position"); n.IsDefined()) b.pose.position = L.vec3(n, kp("position"), "a position in m");
    if (YAML::Node n = get("orientation"); n.IsDefined()) b.pose.rotation = L.orientation(n, kp("orientation"));
    if (YAML::Node n = get("velocity"); n.IsDefined()) b.velocity = L.vec3(n, kp("velocity"), "a velocity in m/s");
    if (YAML::Node n = get("angular_velocity"); n.IsDefined())
      b.angular_velocity = L.vec3(n, kp("angular_velocity"), "an angular velocity in rad/s");
    if (YAML::Node n = get("force"); n.IsDefined()) b.external_force = L.vec3(n, kp("force"), "a force in N");
    if (YAML::Node n = get("torque"); n.IsDefined()) b.external_torque = L.vec3(n, kp("torque"), "a torque in N m");
    if (YAML::Node n = get("material"); n.IsDefined()) b.material = material_ref(L, materials, n, kp("material"));
    if (YAML::Node g = get("geometry"); g.IsDefined()) {
      const std::string gp = kp("geometry");
      if (g.IsSequence()) {  // a list of cells = their union
        if (g.size() == 0) L.fail_got(g, gp, "at least one geometry node");
        geo::CsgNode u;
        u.op = geo::CsgNode::Op::Union;
        u.where = L.locate(g, gp);
        for (size_t i = 0; i < g.size(); ++i) u.children.push_back(read_csg(L, g[i], index_path(gp, i)));
        b.geometry = std::move(u);
      } else {
        b.geometry = read_csg(L, g, gp);
      }
    }
    // Mass properties: mass + inertia, mass alone (a uniform body: the inertia from the geometry), or a density
    // (own, or the material's) to integrate over the geometry.
    if (b.density && b.inertia && !b.mass)
      L.fail(get("inertia"), kp("inertia"),
             "expected inertia together with mass (a density gives both mass and inertia from the geometry; with a "
             "given inertia, give the mass instead of the density); got inertia and density");
    if (b.density && (b.mass || b.inertia))
      L.fail(get("density"), kp("density"), "expected either mass and inertia, or density; got both");
    if (YAML::Node m = get("motion"); m.IsDefined()) {
      if (!b.fixed)
        L.fail(m, kp("motion"),
               "expected motion only on a fixed body (fixed: true; a free body moves by its dynamics)");
      b.motion = load_motion(L, m, kp("motion"), body_node, b);
    }
    if (!b.fixed) {
      if (b.mass && !b.inertia && !b.geometry)
        L.fail(val, bp,
               "expected a geometry (the inertia of a uniform body of the given mass comes from its shape) or "
               "'inertia' in kg m^2 beside mass; got neither");
      if (b.inertia && !b.mass) L.fail(val, bp, "expected required key 'mass' (in kg) beside inertia; it is missing");
      if (!b.mass && !b.density && !b.material.empty() && materials.density.at(b.material))
        b.density = materials.density.at(b.material);
      if (!b.mass && !b.density)
        L.fail(val, bp,
               "expected mass and inertia, or density (or a material with a density), for a body that is not "
               "fixed; got none");
      if (b.density && !b.geometry)
        L.fail(val, bp, "expected a geometry to compute the mass properties from the density; it is missing");
    }
    sc.bodies.push_back(std::move(b));
  }
  return body_names;
}

// The body under `body` of a list entry that acts on a body (impulses, loads): defined and not fixed.
std::string moving_body(const YamlReader& L, const Scenario& sc, const std::vector<std::string>& body_names,
                        const YAML::Node& entry, const std::string& path, const std::string& role,
                        const std::string& why) {
  const std::string bk = child_path(path, "body");
  const YAML::Node bn = L.require(entry, "body", path, "the name of the body " + role);
  const std::string name = body_ref(L, bn, bk, body_names);
  if (std::find_if(sc.bodies.begin(), sc.bodies.end(), [&](const BodySpec& b) { return b.name == name; })->fixed)
    L.fail(bn, bk, "expected a body that is not fixed (" + why + "); got '" + name + "'");
  return name;
}

// contacts: [{bodies: [i, j], model, <parameters>}]
void read_contacts(const YamlReader& L, const YAML::Node& root, const std::vector<std::string>& body_names,
                   const std::map<std::pair<std::string, std::string>, ParamSet>& pair_params, Scenario& sc) {
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

// impulses: [{body, at | when: {signal, crosses, direction, body, until}, linear, angular, name}]
// (docs/scenario-format.md, "Impulses").
void read_impulses(const YamlReader& L, const YAML::Node& root, const std::vector<std::string>& body_names,
                   Scenario& sc) {
  if (YAML::Node is = YamlReader::find(root, "impulses"); is.IsDefined() && !is.IsNull()) {
    const std::string form = "a list of {body, at or when, linear and/or angular}";
    if (!is.IsSequence()) L.fail_got(is, "impulses", form);
    std::set<std::string> names;
    for (size_t i = 0; i < is.size(); ++i) {
      const YAML::Node n = is[i];
      const std::string ip = index_path("impulses", i);
      L.check_map(n, ip, {"name", "body", "at", "when", "linear", "angular"}, "an impulse");
      ImpulseSpec imp;
      imp.where = L.locate(n, ip);
      imp.name = entry_name(L, n, ip, "impulse", i, names);
      imp.body =
          moving_body(L, sc, body_names, n, ip, "that receives the impulse", "a fixed body cannot take an impulse");
      const YAML::Node ln = YamlReader::find(n, "linear"), an = YamlReader::find(n, "angular");
      if (!ln.IsDefined() && !an.IsDefined())
        L.fail(n, ip, "expected 'linear' (N s) and/or 'angular' (N m s), world frame; got neither");
      if (ln.IsDefined()) imp.linear = L.vec3(ln, child_path(ip, "linear"), "a linear impulse in N s, world frame");
      if (an.IsDefined())
        imp.angular = L.vec3(an, child_path(ip, "angular"), "an angular impulse in N m s, world frame");
      const YAML::Node at = YamlReader::find(n, "at"), when = YamlReader::find(n, "when");
      if (at.IsDefined() == when.IsDefined())
        L.fail(n, ip,
               std::string(
                   "expected exactly one trigger, 'at' (a time in s) or 'when' ({signal, crosses, direction}); got ") +
                   (at.IsDefined() ? "both" : "neither"));
      if (at.IsDefined()) {
        const std::string kp = child_path(ip, "at");
        // Later than the duration is allowed (it never fires): a run shortened with --set must still load.
        const double t = L.number(at, kp, "a time in s");
        if (!(t >= 0)) L.fail(at, kp, "expected a time >= 0 s; got " + fmt_number(t) + " s");
        imp.at = t;
      } else {
        imp.until.reset();
        read_crossing(L, when, child_path(ip, "when"), body_names, imp.body, imp.signal_body, imp.signal, imp.level,
                      imp.direction, &imp.until);
      }
      sc.impulses.push_back(std::move(imp));
    }
  }
}

// loads: [{body, force, torque, frame, point, name}] (docs/scenario-format.md, "Loads").
void read_loads(const YamlReader& L, const YAML::Node& root, const std::vector<std::string>& body_names, Scenario& sc) {
  if (YAML::Node ls = YamlReader::find(root, "loads"); ls.IsDefined() && !ls.IsNull()) {
    if (!ls.IsSequence()) L.fail_got(ls, "loads", "a list of {body, force and/or torque, frame, point}");
    std::set<std::string> names;
    for (size_t i = 0; i < ls.size(); ++i) {
      const YAML::Node n = ls[i];
      const std::string lp = index_path("loads", i);
      L.check_map(n, lp, {"name", "body", "force", "torque", "frame", "point", "when"}, "a load");
      LoadSpec load;
      load.where = L.locate(n, lp);
      load.name = entry_name(L, n, lp, "load", i, names);
      load.body = moving_body(L, sc, body_names, n, lp, "the load acts on", "a load on a fixed body does nothing");
      const YAML::Node fn = YamlReader::find(n, "force"), tn = YamlReader::find(n, "torque");
      if (!fn.IsDefined() && !tn.IsDefined()) L.fail(n, lp, "expected 'force' (N) and/or 'torque' (N m); got neither");
      if (fn.IsDefined()) load.force = read_vec3_profile(L, fn, child_path(lp, "force"), "N");
      if (tn.IsDefined()) load.torque = read_vec3_profile(L, tn, child_path(lp, "torque"), "N m");
      if (YAML::Node f = YamlReader::find(n, "frame"); f.IsDefined()) {
        const std::string fp = child_path(lp, "frame");
        const std::string frame = L.string(f, fp, "world or body");
        if (frame != "world" && frame != "body") L.fail(f, fp, "expected world or body; got '" + frame + "'");
        load.body_frame = frame == "body";
      }
      if (YAML::Node pt = YamlReader::find(n, "point"); pt.IsDefined())
        load.point = L.vec3(pt, child_path(lp, "point"), "a body-frame point [x, y, z] in m");
      if (YAML::Node w = YamlReader::find(n, "when"); w.IsDefined())
        read_crossing(L, w, child_path(lp, "when"), body_names, load.body, load.signal_body, load.signal, load.level,
                      load.direction, nullptr);
      sc.loads.push_back(std::move(load));
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
