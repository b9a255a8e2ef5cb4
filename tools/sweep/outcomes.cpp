// The outcomes: see tools/sweep/outcomes.h.
#include "tools/sweep/outcomes.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engine/output_format.h"
#include "engine/output_reader.h"
#include "tools/sweep/spec.h"

namespace vcsim::sweep {
namespace {

// ---------------------------------------------------------------------------------------------
// What the sweep file asks for

// What an outcome may refer to: the base scenario's bodies and pairs, the columns and the event outcomes
// defined above it.
struct Known {
  const std::vector<std::string>& bodies;
  const std::vector<std::string>& pairs;
  std::set<std::string> columns, events;
};

std::string body_of(const Spec& s, const YAML::Node& n, const std::string& kp, const Known& k) {
  const std::string body = string_of(s, n, kp, "a body name");
  expect_one_of(s, n, kp, body, k.bodies, "a body of the scenario");
  return body;
}

std::string pair_of(const Spec& s, const YAML::Node& n, const std::string& kp, const Known& k) {
  const std::string pair = string_of(s, n, kp, "a contact pair name");
  expect_one_of(s, n, kp, pair, k.pairs, "a contact pair of the scenario");
  return pair;
}

// Series references: bodies.B.position.z, contacts.P.force.norm, energy.total, contacts.P.v_in[0]
SeriesRef parse_series(const Spec& s, const YAML::Node& n, const std::string& kp, const Known& k) {
  const std::string text = string_of(s, n, kp, "a series such as bodies.NAME.position.z");
  SeriesRef r;
  r.text = text;
  std::string t = text;
  // trailing [i]
  if (!t.empty() && t.back() == ']') {
    const size_t open = t.rfind('[');
    const std::string idx = open == std::string::npos ? "" : t.substr(open + 1, t.size() - open - 2);
    const size_t component = io::parse_index(idx);
    if (component == io::kNotAnIndex) fail(s, n, kp, "expected a component index [N]; got '" + text + "'");
    r.component = static_cast<int>(component);
    t = t.substr(0, open);
  }
  std::vector<std::string> segs;
  std::string seg;
  std::stringstream ss(t);
  while (std::getline(ss, seg, '.')) segs.push_back(seg);
  const std::string usage =
      "a series: bodies.BODY.{position,velocity,angular_velocity}.{x,y,z,norm}, bodies.BODY.orientation.{w,x,y,z}, "
      "contacts.PAIR.FIELD[.x|.y|.z|.norm|[i]], energy.{kinetic,potential,contact,total} or time";
  auto component_of = [&](const std::string& c, bool quaternion) -> int {
    if (c == "norm") return -2;
    const std::string names = quaternion ? "wxyz" : "xyz";
    if (c.size() == 1 && names.find(c) != std::string::npos) return int(names.find(c));
    fail(s, n, kp, "expected a component (" + std::string(quaternion ? "w, x, y, z" : "x, y, z") +
                       " or norm); got '" + c + "' in '" + text + "'");
  };
  if (segs.size() == 1 && segs[0] == "time" && r.component == -1) {
    r.dataset = output_path::kTime;
    return r;
  }
  if (segs.size() == 2 && segs[0] == "energy") {
    expect_one_of(s, n, kp, segs[1], output_path::kEnergyFields, "an energy");
    r.dataset = output_path::energy(segs[1]);
    return r;
  }
  if (segs.size() >= 3 && segs[0] == "bodies") {
    expect_one_of(s, n, kp, segs[1], k.bodies, "a body of the scenario");
    expect_one_of(s, n, kp, segs[2], output_path::kBodyFields, "a body series");
    r.dataset = output_path::body(segs[1], segs[2]);
    if (segs.size() == 4 && r.component == -1) r.component = component_of(segs[3], segs[2] == "orientation");
    else if (segs.size() != 3 || r.component == -1) fail(s, n, kp, "expected " + usage + "; got '" + text + "'");
    return r;
  }
  if (segs.size() >= 3 && segs[0] == "contacts") {
    expect_one_of(s, n, kp, segs[1], k.pairs, "a contact pair of the scenario");
    r.dataset = output_path::contact(segs[1], segs[2]);
    if (segs.size() == 4 && r.component == -1) r.component = component_of(segs[3], false);
    else if (segs.size() != 3) fail(s, n, kp, "expected " + usage + "; got '" + text + "'");
    return r;
  }
  fail(s, n, kp, "expected " + usage + "; got '" + text + "'");
}

// `from: EVENT` (max, min, max_force): only the samples at or after an event outcome defined above.
// The message of max_force does not list the events.
void parse_from(const Spec& s, const YAML::Node& d, Outcome& o, const Known& k, bool list_events) {
  const YAML::Node f = find(d, "from");
  if (!f.IsDefined()) return;
  const std::string kp = o.key_path + ".from";
  o.from = string_of(s, f, kp, "the name of an event outcome defined above");
  if (!k.events.count(o.from))
    fail(s, f, kp,
         "expected the name of an event outcome defined above" +
             (list_events ? " (" + join({k.events.begin(), k.events.end()}) + ")" : std::string()) + "; got '" +
             o.from + "'");
}

void parse_event(const Spec& s, const YAML::Node& d, Outcome& o, const Known& k) {
  const std::vector<std::string> events = {"first_contact", "last_contact", "inverted", "at_rest", "starts_moving"};
  const std::string& kp = o.key_path;
  const YAML::Node v = find(d, "event");
  check_keys(s, d, kp, {"event", "pair", "body", "axis", "up", "speed", "angular_speed"}, "an event outcome");
  o.event = string_of(s, v, kp + ".event", "an event (" + join(events) + ")");
  expect_one_of(s, v, kp + ".event", o.event, events, "an event");
  const bool contact_event = o.event == "first_contact" || o.event == "last_contact";
  std::vector<std::string> allowed = contact_event ? std::vector<std::string>{"event", "pair"}
                                     : o.event == "inverted" ? std::vector<std::string>{"event", "body", "axis", "up"}
                                                             : std::vector<std::string>{"event", "body", "speed", "angular_speed"};
  check_keys(s, d, kp, allowed, "a " + o.event + " event");
  if (auto n = find(d, "pair"); n.IsDefined()) o.pair = pair_of(s, n, kp + ".pair", k);
  else if (contact_event && k.pairs.empty()) fail(s, d, kp, "expected a scenario with contacts for a contact event; got none");
  if (!contact_event) {
    const YAML::Node b = find(d, "body");
    if (!b.IsDefined()) fail(s, d, kp, "expected required key 'body' for the " + o.event + " event; it is missing");
    o.body = body_of(s, b, kp + ".body", k);
  }
  auto vec3 = [&](const char* key, double* out) {
    const YAML::Node n = find(d, key);
    if (!n.IsDefined()) return;
    if (!n.IsSequence() || n.size() != 3) fail(s, n, kp + "." + key, "expected [x, y, z]; got " + describe(n));
    for (int i = 0; i < 3; ++i) out[i] = number(s, n[i], kp + "." + key + "[" + std::to_string(i) + "]");
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
}

// outcomes.NAME: one kind, and what that kind takes.
Outcome parse_outcome(const Spec& s, const YAML::Node& name, const YAML::Node& d, const Known& k) {
  const std::vector<std::string> kinds = {"final", "initial", "max", "min", "final_pose", "max_force", "event",
                                          "energy_dissipated", "expression"};
  Outcome o;
  o.name = name.Scalar();
  o.key_path = "outcomes." + o.name;
  const std::string& kp = o.key_path;
  if (!valid_column(o.name)) fail(s, name, kp, "expected an outcome name of letters, digits and '_'; got '" + o.name + "'");
  if (!d.IsMap()) fail(s, d, kp, "expected a map with one of " + join(kinds) + "; got " + describe(d));
  for (auto it = d.begin(); it != d.end(); ++it)
    if (std::find(kinds.begin(), kinds.end(), it->first.Scalar()) != kinds.end()) {
      if (!o.kind.empty()) fail(s, it->first, kp, "expected one outcome kind; got " + o.kind + " and " + it->first.Scalar());
      o.kind = it->first.Scalar();
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
    o.series = parse_series(s, v, vk, k);
    parse_from(s, d, o, k, true);
  } else if (o.kind == "final_pose") {
    check_keys(s, d, kp, {"final_pose"}, "a final_pose outcome");
    o.body = body_of(s, v, vk, k);
    for (const char* c : {"x", "y", "z", "qw", "qx", "qy", "qz"}) o.columns.push_back(o.name + "_" + c);
  } else if (o.kind == "max_force") {  // max of contacts.PAIR.force.norm
    check_keys(s, d, kp, {"max_force", "from"}, "a max_force outcome");
    o.pair = pair_of(s, v, vk, k);
    o.series.dataset = output_path::contact(o.pair, "force");
    o.series.component = -2;
    o.series.text = "contacts." + o.pair + ".force.norm";
    o.kind = "max";
    parse_from(s, d, o, k, false);
  } else if (o.kind == "energy_dissipated") {
    check_keys(s, d, kp, {"energy_dissipated"}, "an energy_dissipated outcome");
  } else if (o.kind == "expression") {
    check_keys(s, d, kp, {"expression"}, "an expression outcome");
    o.expression = parse_checked(s, v, vk, "an arithmetic expression over the parameters and the outcomes above, e.g. "
                                           "\"5 + 2 * slip_time\"", k.columns);
  } else {
    parse_event(s, d, o, k);
  }
  if (o.columns.empty()) o.columns = {o.name};  // one column but for final_pose
  return o;
}

// ---------------------------------------------------------------------------------------------
// Their values in a run's output

double component(const Series& s, size_t row, int comp) {
  const double* p = s.row(row);
  if (comp == -2) {
    double n = 0;
    for (size_t k = 0; k < s.cols; ++k) n += p[k] * p[k];
    return std::sqrt(n);
  }
  if (comp < 0) return p[0];
  return size_t(comp) < s.cols ? p[comp] : kNaN;
}

// The first of the n samples at which the event outcome `o` holds; n if it never does.
size_t event_row(const Campaign& c, const Outcome& o, OutputReader& f, size_t n) {
  size_t row = n;
  if (o.event == "first_contact" || o.event == "last_contact") {
    std::vector<const Series*> cs;
    for (const auto& p : c.pair_names)
      if (o.pair.empty() || o.pair == p) cs.push_back(&f.get(output_path::contact(p, "in_contact")));
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
    const Series& q = f.get(output_path::body(o.body, "orientation"));
    auto up_component = [&](size_t i) {
      const double* w = &q.data[i * 4];
      const Eigen::Quaterniond rq(w[0], w[1], w[2], w[3]);
      const Eigen::Vector3d a = rq.normalized() * Eigen::Vector3d(o.axis[0], o.axis[1], o.axis[2]);
      return a.dot(Eigen::Vector3d(o.up[0], o.up[1], o.up[2]));
    };
    const double s0 = up_component(0);
    for (size_t i = 1; i < n && row == n; ++i)
      if (s0 != 0 && up_component(i) * s0 < 0) row = i;
  } else {
    const Series& v = f.get(output_path::body(o.body, "velocity"));
    const Series& w = f.get(output_path::body(o.body, "angular_velocity"));
    auto moving = [&](size_t i) { return component(v, i, -2) > o.speed || component(w, i, -2) > o.angular_speed; };
    if (o.event == "starts_moving") {  // the first sample with |v| > speed or |w| > angular_speed
      for (size_t i = 0; i < n && row == n; ++i)
        if (moving(i)) row = i;
    } else {  // at_rest: from this sample to the end, |v| <= speed and |w| <= angular_speed
      for (size_t i = n; i-- > 0;) {
        if (moving(i)) break;
        row = i;
      }
    }
  }
  return row;
}

}  // namespace

void parse_outcomes(Spec& s, const std::vector<std::string>& bodies, const std::vector<std::string>& pairs) {
  YAML::Node root = YAML::Load(s.text);
  const YAML::Node outs = find(root, "outcomes");
  if (!outs.IsDefined()) fail(s, root, "", "expected required key 'outcomes' (what to measure in each run); it is missing");
  if (!outs.IsMap() || outs.size() == 0)
    fail(s, outs, "outcomes", "expected a non-empty map of outcome names to outcome specs; got " + describe(outs));
  Known k{bodies, pairs, {}, {}};
  for (const auto& p : s.params) k.columns.insert(p.name);
  for (auto it = outs.begin(); it != outs.end(); ++it) {
    Outcome o = parse_outcome(s, it->first, it->second, k);
    if (o.kind == "event") k.events.insert(o.name);
    for (const auto& c : o.columns) {
      if (c == "run_index" || c == "status" || c == "pass")
        fail(s, it->first, o.key_path, "expected a name other than run_index, status and pass (table columns); got '" + c + "'");
      if (!k.columns.insert(c).second) fail(s, it->first, o.key_path, "expected unique column names; got '" + c + "' twice");
      s.outcome_columns.push_back(c);
    }
    s.outcomes.push_back(std::move(o));
  }
  if (auto n = find(root, "pass"); n.IsDefined()) {
    const std::string what = "a predicate over the outcomes, e.g. \"max_force < 200\"";
    s.pass_node = n;
    s.pass_text = string_of(s, n, "pass", what);
    s.pass = parse_checked(s, n, "pass", what, k.columns);
    s.outcome_columns.push_back("pass");
  }
}

std::vector<double> compute_outcomes(const Campaign& c, long run, const std::string& h5) {
  const Spec& s = c.spec;
  OutputReader f(h5);
  const Series& time = f.get(output_path::kTime);
  const size_t n = time.rows;
  if (n == 0) throw std::runtime_error("the run's output has no samples");
  std::map<std::string, size_t> event_rows;  // for `from`
  std::vector<double> out;
  // The parameters and the outcome columns so far, by name (for `expression` and `pass`).
  auto columns = [&] {
    std::map<std::string, double> vars;
    for (size_t k = 0; k < s.params.size(); ++k) vars[s.params[k].name] = c.values[run][k];
    for (size_t k = 0; k < out.size(); ++k) vars[s.outcome_columns[k]] = out[k];
    return vars;
  };
  for (const auto& o : s.outcomes) {
    if (o.kind == "final" || o.kind == "initial") {
      out.push_back(component(f.get(o.series.dataset), o.kind == "final" ? n - 1 : 0, o.series.component));
    } else if (o.kind == "max" || o.kind == "min") {
      const Series& d = f.get(o.series.dataset);
      size_t from = 0;
      if (!o.from.empty()) from = event_rows.count(o.from) ? event_rows[o.from] : n;
      double v = kNaN;
      for (size_t i = from; i < n; ++i) {
        const double x = component(d, i, o.series.component);
        if (std::isnan(v) || (o.kind == "max" ? x > v : x < v)) v = x;
      }
      out.push_back(v);
    } else if (o.kind == "final_pose") {
      const Series& p = f.get(output_path::body(o.body, "position"));
      const Series& q = f.get(output_path::body(o.body, "orientation"));
      for (int k = 0; k < 3; ++k) out.push_back(p.data[(n - 1) * 3 + k]);
      for (int k = 0; k < 4; ++k) out.push_back(q.data[(n - 1) * 4 + k]);
    } else if (o.kind == "energy_dissipated") {
      const Series& e = f.get(output_path::energy("total"));
      out.push_back(e.data[0] - e.data[n - 1]);
    } else if (o.kind == "expression") {
      out.push_back(eval(*o.expression, columns()));
    } else {  // event
      const size_t row = event_row(c, o, f, n);
      if (row < n) event_rows[o.name] = row;
      out.push_back(row < n ? time.data[row] : kNaN);
    }
  }
  if (s.pass) {
    const double p = eval(*s.pass, columns());
    out.push_back(p != 0 && !std::isnan(p) ? 1 : 0);
  }
  return out;
}

}  // namespace vcsim::sweep
