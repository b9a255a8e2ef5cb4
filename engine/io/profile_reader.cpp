#include "engine/io/profile_reader.h"

#include <cmath>

namespace vcsim::io {
namespace {

void scale_profile(TimeProfile& p, double k) {
  p.value *= k, p.from *= k, p.to *= k, p.amplitude *= k, p.offset *= k;
  for (double& v : p.values) v *= k;
  prepare_profile(p);
}

}  // namespace

// A number, or one of {ramp: ...}, {sine: ...}, {step: ...}, {table: ...}. `continuous`: a position (no step).
TimeProfile read_profile(const YamlReader& L, const YAML::Node& n, const std::string& path, const std::string& unit,
                         bool continuous) {
  const std::string forms = "a number in " + unit + " or a time profile ({ramp: ...}, {sine: ...}, " +
                            (continuous ? "" : "{step: ...}, ") + "{table: ...})";
  if (n.IsScalar()) return constant_profile(L.number(n, path, forms));
  if (!n.IsMap() || n.size() != 1) L.fail_got(n, path, forms);
  L.check_map(n, path, {"ramp", "sine", "step", "table"}, "a time profile");
  const std::string kind = n.begin()->first.Scalar();
  const YAML::Node b = n.begin()->second;
  const std::string bp = child_path(path, kind);
  const auto value = [&](const char* key, std::optional<double> fallback, const std::string& what) {
    const YAML::Node v = L.find(b, key);
    if (!v.IsDefined()) {
      if (!fallback) L.fail(b, bp, "expected required key '" + std::string(key) + "' (" + what + "); it is missing");
      return *fallback;
    }
    return L.number(v, child_path(bp, key), what);
  };
  const auto nonnegative = [&](const char* key, const std::string& what) {
    const double x = value(key, 0.0, what);
    if (!(x >= 0)) L.fail(L.find(b, key), child_path(bp, key), "expected " + what + " >= 0; got " + fmt_number(x));
    return x;
  };
  TimeProfile p;
  if (kind == "ramp") {
    L.check_map(b, bp, {"from", "to", "over", "start"}, "a ramp");
    p.kind = TimeProfile::Kind::Ramp;
    p.from = value("from", 0.0, "the value before the ramp, " + unit);
    p.to = value("to", std::nullopt, "the value after the ramp, " + unit);
    p.over =
        L.positive(L.require(b, "over", bp, "the ramp's duration in s"), child_path(bp, "over"), "a duration in s");
    p.start = nonnegative("start", "a start time in s");
  } else if (kind == "sine") {
    L.check_map(b, bp, {"amplitude", "frequency", "phase", "offset"}, "a sine");
    p.kind = TimeProfile::Kind::Sine;
    p.amplitude = value("amplitude", std::nullopt, "the amplitude, " + unit);
    p.frequency = value("frequency", std::nullopt, "a frequency in Hz");
    if (!(p.frequency >= 0))
      L.fail(L.find(b, "frequency"), child_path(bp, "frequency"),
             "expected a frequency >= 0 Hz; got " + fmt_number(p.frequency));
    p.phase = value("phase", 0.0, "a phase in rad");
    p.offset = value("offset", 0.0, "the mean value, " + unit);
  } else if (kind == "step") {
    if (continuous) L.fail(n, bp, "expected a continuous profile (a position cannot jump; use a ramp); got a step");
    L.check_map(b, bp, {"from", "to", "at"}, "a step");
    p.kind = TimeProfile::Kind::Step;
    p.from = value("from", 0.0, "the value before the step, " + unit);
    p.to = value("to", std::nullopt, "the value from the step on, " + unit);
    p.start = value("at", std::nullopt, "the time of the step in s");
    if (!(p.start >= 0))
      L.fail(L.find(b, "at"), child_path(bp, "at"), "expected a time >= 0 s; got " + fmt_number(p.start));
  } else {
    L.check_map(b, bp, {"times", "values", "interpolation", "after"}, "a table");
    p.kind = TimeProfile::Kind::Table;
    p.times = read_table_times(L, L.require(b, "times", bp, "increasing times in s"), child_path(bp, "times"));
    const YAML::Node vn = L.require(b, "values", bp, "one value per time");
    const std::string vp = child_path(bp, "values");
    if (!vn.IsSequence() || vn.size() != p.times.size())
      L.fail_got(vn, vp, std::to_string(p.times.size()) + " values (one per time) in " + unit);
    for (size_t i = 0; i < vn.size(); ++i) p.values.push_back(L.number(vn[i], index_path(vp, i)));
    read_table_options(L, b, bp, p, false);
  }
  prepare_profile(p);
  return p;
}

// At least 2 times, strictly increasing (never sorted silently: an out-of-order time is a typo).
std::vector<double> read_table_times(const YamlReader& L, const YAML::Node& n, const std::string& path) {
  if (!n.IsSequence() || n.size() < 2) L.fail_got(n, path, "a list of at least 2 increasing times in s");
  std::vector<double> t;
  for (size_t i = 0; i < n.size(); ++i) {
    t.push_back(L.number(n[i], index_path(path, i), "a time in s"));
    if (i > 0 && !(t[i] > t[i - 1]))
      L.fail(n[i], index_path(path, i),
             "expected times in strictly increasing order; got " + fmt_number(t[i]) + " after " + fmt_number(t[i - 1]));
  }
  return t;
}

void read_table_options(const YamlReader& L, const YAML::Node& b, const std::string& bp, TimeProfile& p,
                        bool cubic_default) {
  p.cubic = cubic_default;
  if (YAML::Node i = L.find(b, "interpolation"); i.IsDefined()) {
    const std::string s = L.string(i, child_path(bp, "interpolation"), "linear or cubic");
    if (s != "linear" && s != "cubic")
      L.fail(i, child_path(bp, "interpolation"), "expected linear or cubic; got '" + s + "'");
    p.cubic = s == "cubic";
  }
  if (YAML::Node a = L.find(b, "after"); a.IsDefined()) {
    const std::string s = L.string(a, child_path(bp, "after"), "hold or extrapolate");
    if (s != "hold" && s != "extrapolate")
      L.fail(a, child_path(bp, "after"), "expected hold or extrapolate; got '" + s + "'");
    p.extrapolate = s == "extrapolate";
  }
}

// [x, y, z], each a number or a time profile.
Vec3Profile read_vec3_profile(const YamlReader& L, const YAML::Node& n, const std::string& path,
                              const std::string& unit, bool continuous) {
  if (!n.IsSequence() || n.size() != 3)
    L.fail_got(n, path, "a list of 3 components [x, y, z], each a number in " + unit + " or a time profile");
  return {read_profile(L, n[0], index_path(path, 0), unit, continuous),
          read_profile(L, n[1], index_path(path, 1), unit, continuous),
          read_profile(L, n[2], index_path(path, 2), unit, continuous)};
}

// {axis: [x, y, z], angle: PROFILE (rad) | angle_deg: PROFILE}: a turn about a fixed axis.
std::pair<Vec3, TimeProfile> read_turn(const YamlReader& L, const YAML::Node& n, const std::string& path) {
  L.check_map(n, path, {"axis", "angle", "angle_deg"}, "a rotation {axis, angle or angle_deg}");
  const std::string ap = child_path(path, "axis");
  const YAML::Node an = L.require(n, "axis", path, "a direction [x, y, z]");
  const Vec3 axis = L.vec3(an, ap, "an axis direction");
  if (!(axis.norm() > 0)) L.fail(an, ap, "expected a nonzero axis direction; got [0, 0, 0]");
  const YAML::Node rad = L.find(n, "angle"), deg = L.find(n, "angle_deg");
  if (rad.IsDefined() == deg.IsDefined())
    L.fail(n, path,
           std::string("expected exactly one of 'angle' (rad) or 'angle_deg'; got ") +
               (rad.IsDefined() ? "both" : "neither"));
  TimeProfile angle = rad.IsDefined() ? read_profile(L, rad, child_path(path, "angle"), "rad", true)
                                      : read_profile(L, deg, child_path(path, "angle_deg"), "degrees", true);
  if (deg.IsDefined()) scale_profile(angle, M_PI / 180);
  return {axis.normalized(), angle};
}

}  // namespace vcsim::io
