// The scenario's `materials`, `material_pairs` and `bodies` sections (docs/scenario-format.md): mass properties,
// geometry and prescribed motion of each body.
#include "engine/io/section_readers.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/io/contact_params_reader.h"
#include "engine/io/csg_reader.h"
#include "engine/io/profile_reader.h"
#include "engine/prescribed.h"

namespace vcsim::io {
namespace {

// Plausible densities, for the warning that catches a value in other units (a density of 7.8: g/cm^3).
constexpr double kMinDensity = 10, kMaxDensity = 23000;
const char* const kDensityRange = "10 to 23 000 kg/m^3, from foams to osmium; steel is 7800";

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

}  // namespace

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

// material_pairs: [{materials: [a, b], model, <parameters>}], complete parameter sets.
MaterialPairParams read_material_pairs(const YamlReader& L, const YAML::Node& root, const Materials& materials,
                                       Scenario& sc) {
  MaterialPairParams pair_params;
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

}  // namespace vcsim::io
