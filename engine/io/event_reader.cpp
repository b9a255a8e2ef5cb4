// The scenario's `impulses` and `loads` sections (docs/scenario-format.md, "Impulses" and "Loads"): what acts on a
// body at a time or when a signal crosses a level.
#include "engine/io/section_readers.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/io/profile_reader.h"
#include "engine/prescribed.h"

namespace vcsim::io {
namespace {

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

}  // namespace

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

}  // namespace vcsim::io
