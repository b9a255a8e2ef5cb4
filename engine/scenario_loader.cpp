// YAML scenario loader: parse, apply --set overrides, validate against the schema of
// docs/scenario-format.md, and fill a Scenario. Every error names file:line:column, the key path and
// what was expected, because a user fixing a scenario should never need a debugger.
#include "engine/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "contact/parameters.h"
#include "engine/prescribed.h"
#include "integrators/adaptive_rk.h"

namespace vcsim {

int levenshtein_distance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

// Relative slack of the principal-moment triangle inequality I_a + I_b >= I_c. Flat plates sit exactly
// on the bound, and inputs rounded to 4 significant digits (0.08333 + 0.08333 vs 0.1667) miss it by
// up to ~6e-4, so 1e-3 accepts honest rounding while still rejecting real violations.
constexpr double kTriangleSlack = 1e-3;
// A quaternion is silently normalised only when it is already unit to this tolerance; anything
// farther away is more likely a typo than rounding.
constexpr double kQuaternionNormTolerance = 1e-6;
// Symmetry of a full 3x3 inertia, relative to its largest entry (rounding of printed values).
constexpr double kSymmetryTolerance = 1e-9;
// An interference query integrates ~0.49/tol lattice points (docs/geometry.md, N = 0.7/sqrt(tol) across the
// patch): 1e-6 is ~5e5 points, seconds per query; tighter would hang a run (found by fuzzing, issue 8).
constexpr double kMinGeometryTolerance = 1e-6;
constexpr double kMaxSteps = 1e12;
// Plausible ranges of material values, for the warnings that catch values in other units (a density of 7.8: g/cm^3).
constexpr double kMinDensity = 10, kMaxDensity = 23000;
const char* const kDensityRange = "10 to 23 000 kg/m^3, from foams to osmium; steel is 7800";
constexpr double kMinVolumetricStiffness = 1e5, kMaxVolumetricStiffness = 1e16;
const char* const kVolumetricStiffnessRange = "1e5 to 1e16 N/m^3: soft foam on a 10 cm scale to steel on a 10 um scale";
constexpr double kMinHertzStiffness = 1e3, kMaxHertzStiffness = 1e13;
const char* const kHertzStiffnessRange = "1e3 to 1e13 N/m^1.5: k = 4/3 E* sqrt(R), rubber on 1 mm to steel on 1 m";
constexpr double kMaxFriction = 2;
// The column engine's coarsest lattice (geometry/interference.cpp): looser tolerances are run at this one.
constexpr double kMaxGeometryTolerance = 1e-2;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Closest candidate within edit distance 2 (case-insensitive), or "".
std::string did_you_mean(const std::string& got, const std::vector<std::string>& candidates) {
  std::string best;
  int best_d = 3;
  for (const auto& c : candidates) {
    const int d = levenshtein_distance(lower(got), lower(c));
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& x : items) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string fmt_number(double x) {
  std::ostringstream s;
  s.precision(12);
  s << x;
  return s.str();
}

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}
std::string index_path(const std::string& parent, size_t i) { return parent + "[" + std::to_string(i) + "]"; }

// What a node holds, for the "; got ..." part of a message.
std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing (null)";
  if (n.IsSequence()) return "a list of " + std::to_string(n.size()) + " item" + (n.size() == 1 ? "" : "s");
  if (n.IsMap()) return "a map";
  std::string s = n.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return n.Tag() == "!" ? "the quoted string \"" + s + "\"" : "'" + s + "'";
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

struct Override {
  std::string path;  // canonical key path, e.g. "contacts[0].k_v"
  std::string text;  // as given on the command line
};

class Loader {
 public:
  Loader(std::string file) : file_(std::move(file)) {}

  std::vector<Override> overrides;

  // Where a node came from: the file position, or the override that produced it.
  geo::SourceLocation locate(const YAML::Node& node, const std::string& path) const {
    geo::SourceLocation where;
    where.key_path = path;
    for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
      const std::string& p = it->path;
      if (path == p || (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
                        (path[p.size()] == '.' || path[p.size()] == '['))) {
        where.file = file_ + ": --set " + it->text;
        return where;
      }
    }
    where.file = file_;
    if (node.IsDefined()) {
      const YAML::Mark m = node.Mark();
      if (!m.is_null()) {
        where.line = m.line + 1, where.column = m.column + 1;
      } else {
        // No position: the node was created by an override below this path (e.g. "a" of --set a.b.c=1).
        for (auto it = overrides.rbegin(); it != overrides.rend(); ++it)
          if (it->path.size() > path.size() && it->path.compare(0, path.size(), path) == 0 &&
              (it->path[path.size()] == '.' || it->path[path.size()] == '['))
            return {file_ + ": --set " + it->text, 0, 0, path};
      }
    }
    return where;
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, const std::string& expected) const {
    const geo::SourceLocation w = locate(node, path);
    throw InputError(w.file, w.line, w.column, path, expected);
  }
  [[noreturn]] void fail_got(const YAML::Node& node, const std::string& path, const std::string& expected) const {
    fail(node, path, "expected " + expected + "; got " + describe(node));
  }

  // Checks that `map` is a map whose keys are all in `allowed` and not repeated.
  void check_map(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
                 const std::string& what) const {
    if (!map.IsMap()) fail_got(map, path, what + " (a map)");
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = key_string(it->first, path);
      const std::string kp = child_path(path, key);
      if (!seen.insert(key).second) fail(it->first, kp, "expected each key once; got a second '" + key + "'");
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string msg = "expected a key of " + what + " (" + join_list(allowed) + "); got unknown key '" + key + "'";
        const std::string hint = did_you_mean(key, allowed);
        if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
        fail(it->first, kp, msg);
      }
    }
  }

  // A user-named map (bodies, materials): keys are names, each once, usable in --set paths.
  std::vector<std::tuple<std::string, YAML::Node, YAML::Node>> named_map(const YAML::Node& map,
                                                                         const std::string& path,
                                                                         const std::string& what,
                                                                         const std::string& entry) const {
    if (!map.IsMap()) fail_got(map, path, what);
    std::vector<std::tuple<std::string, YAML::Node, YAML::Node>> out;
    std::map<std::string, YAML::Node> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = key_string(it->first, path);
      const std::string kp = child_path(path, key);
      if (auto s = seen.find(key); s != seen.end()) {
        const YAML::Mark m = s->second.Mark();
        fail(it->first, kp,
             "expected unique " + entry + " names; got '" + key + "' again (first defined at line " +
                 std::to_string(m.line + 1) + ")");
      }
      if (!valid_name(key))
        fail(it->first, kp, "expected a " + entry + " name of letters, digits, '_' and '-'; got '" + key + "'");
      seen.emplace(key, it->first);
      out.emplace_back(key, it->first, it->second);
    }
    return out;
  }

  // A map whose keys are checked elsewhere (open parameter sets): only type and uniqueness here.
  void check_unique_keys(const YAML::Node& map, const std::string& path, const std::string& what) const {
    if (!map.IsMap()) fail_got(map, path, what);
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = key_string(it->first, path);
      if (!seen.insert(key).second)
        fail(it->first, child_path(path, key), "expected each key once; got a second '" + key + "'");
    }
  }

  std::string key_string(const YAML::Node& key, const std::string& parent) const {
    if (!key.IsScalar()) fail_got(key, parent, "a plain key (a name)");
    return key.Scalar();
  }

  // The value under `key`, or an undefined node. Duplicate keys are reported by check_map.
  static YAML::Node find(const YAML::Node& map, const std::string& key) {
    if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
    return YAML::Node(YAML::NodeType::Undefined);
  }

  YAML::Node require(const YAML::Node& map, const std::string& key, const std::string& path,
                     const std::string& expected) const {
    YAML::Node n = find(map, key);
    if (!n.IsDefined()) fail(map, path, "expected required key '" + key + "' (" + expected + "); it is missing");
    return n;
  }

  double number(const YAML::Node& n, const std::string& path, const std::string& what = "a number",
                bool allow_inf = false) const {
    static const std::regex num(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
    static const std::regex inf(R"([-+]?\.(inf|Inf|INF))");
    if (!n.IsScalar() || n.Tag() == "!") fail_got(n, path, what);
    const std::string& s = n.Scalar();
    if (allow_inf && std::regex_match(s, inf)) return s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    if (!std::regex_match(s, num)) {
      if (std::regex_match(s, std::regex(R"([-+]?\.?(nan|NaN|NAN|inf|Inf|INF|infinity))")))
        fail_got(n, path, what + " (finite)");
      fail_got(n, path, what);
    }
    const double x = std::strtod(s.c_str(), nullptr);
    if (!std::isfinite(x)) fail_got(n, path, what + " (finite; this overflows a double)");
    return x;
  }

  double positive(const YAML::Node& n, const std::string& path, const std::string& what) const {
    const double x = number(n, path, what + " > 0");
    if (!(x > 0)) fail(n, path, "expected " + what + " > 0; got " + fmt_number(x));
    return x;
  }

  std::string string(const YAML::Node& n, const std::string& path, const std::string& what) const {
    if (!n.IsScalar() || n.Scalar().empty()) fail_got(n, path, what);
    return n.Scalar();
  }

  bool boolean(const YAML::Node& n, const std::string& path) const {
    if (n.IsScalar() && n.Tag() != "!") {
      const std::string s = n.Scalar();
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    fail_got(n, path, "true or false");
  }

  std::vector<double> numbers(const YAML::Node& n, const std::string& path, size_t count,
                              const std::string& what) const {
    if (!n.IsSequence() || n.size() != count) fail_got(n, path, what);
    std::vector<double> v;
    for (size_t i = 0; i < count; ++i) v.push_back(number(n[i], index_path(path, i)));
    return v;
  }

  Vec3 vec3(const YAML::Node& n, const std::string& path, const std::string& what) const {
    const auto v = numbers(n, path, 3, what + " (a list of 3 numbers)");
    return Vec3(v[0], v[1], v[2]);
  }

  // {quaternion: [w, x, y, z]} or {rpy_deg: [roll, pitch, yaw]}.
  Quat orientation(const YAML::Node& n, const std::string& path) const {
    check_map(n, path, {"quaternion", "rpy_deg"}, "an orientation");
    if (n.size() != 1) fail_got(n, path, "exactly one of quaternion: [w, x, y, z] or rpy_deg: [roll, pitch, yaw]");
    if (YAML::Node q = find(n, "quaternion"); q.IsDefined()) {
      const std::string qp = child_path(path, "quaternion");
      const auto v = numbers(q, qp, 4, "a quaternion [w, x, y, z] (a list of 4 numbers)");
      Quat quat(v[0], v[1], v[2], v[3]);
      const double norm = quat.norm();
      if (!(std::abs(norm - 1) <= kQuaternionNormTolerance))
        fail(q, qp, "expected a unit quaternion [w, x, y, z] (norm within 1e-6 of 1); got norm " + fmt_number(norm));
      return quat.normalized();
    }
    const std::string rp = child_path(path, "rpy_deg");
    const Vec3 rpy = vec3(find(n, "rpy_deg"), rp, "roll, pitch, yaw in degrees") * (M_PI / 180.0);
    return quat_from_rpy(rpy.x(), rpy.y(), rpy.z());
  }

  // Full 3x3 inertia from [Ixx, Iyy, Izz], [[..],[..],[..]] or {moments: [..], products: [Ixy, Ixz, Iyz]}.
  Mat3 inertia(const YAML::Node& n, const std::string& path) const {
    const std::string forms =
        "an inertia: [Ixx, Iyy, Izz], a 3x3 matrix, or {moments: [Ixx, Iyy, Izz], products: [Ixy, Ixz, Iyz]} in kg m^2";
    Mat3 I = Mat3::Zero();
    if (n.IsMap()) {
      check_map(n, path, {"moments", "products"}, "an inertia");
      const Vec3 m = vec3(require(n, "moments", path, "[Ixx, Iyy, Izz] in kg m^2"), child_path(path, "moments"),
                          "principal moments [Ixx, Iyy, Izz]");
      Vec3 p = Vec3::Zero();
      if (YAML::Node pn = find(n, "products"); pn.IsDefined())
        p = vec3(pn, child_path(path, "products"), "products of inertia [Ixy, Ixz, Iyz]");
      I << m.x(), p.x(), p.y(), p.x(), m.y(), p.z(), p.y(), p.z(), m.z();
    } else if (n.IsSequence() && n.size() == 3 && n[0].IsSequence()) {
      for (size_t r = 0; r < 3; ++r) {
        const auto row = numbers(n[r], index_path(path, r), 3, "a matrix row of 3 numbers");
        for (int c = 0; c < 3; ++c) I(r, c) = row[c];
      }
      const double scale = I.cwiseAbs().maxCoeff();
      for (int r = 0; r < 3; ++r)
        for (int c = r + 1; c < 3; ++c)
          if (std::abs(I(r, c) - I(c, r)) > kSymmetryTolerance * scale)
            fail(n, path,
                 "expected a symmetric inertia matrix; got I[" + std::to_string(r) + "][" + std::to_string(c) +
                     "] = " + fmt_number(I(r, c)) + " but I[" + std::to_string(c) + "][" + std::to_string(r) +
                     "] = " + fmt_number(I(c, r)));
      I = 0.5 * (I + I.transpose());
    } else if (n.IsSequence() && n.size() == 3) {
      I.diagonal() = vec3(n, path, "principal moments");
    } else {
      fail_got(n, path, forms);
    }
    // Positive definite, and the principal moments must be those of a real mass distribution:
    // I_a + I_b >= I_c for every permutation (I_c = ∫(x_a² + x_b²) dm <= I_a + I_b).
    Eigen::SelfAdjointEigenSolver<Mat3> eig(I);
    const Vec3 l = eig.eigenvalues();  // ascending
    if (!(l(0) > 0))
      fail(n, path,
           "expected a symmetric positive definite inertia; got principal moments " + fmt_number(l(0)) + ", " +
               fmt_number(l(1)) + ", " + fmt_number(l(2)) + " kg m^2");
    if (l(0) + l(1) < l(2) * (1 - kTriangleSlack))
      fail(n, path,
           "expected principal moments satisfying the triangle inequality I1 + I2 >= I3; got " + fmt_number(l(0)) +
               " + " + fmt_number(l(1)) + " < " + fmt_number(l(2)) + " kg m^2");
    return I;
  }

  // ---- geometry ----
  geo::CsgNode csg(const YAML::Node& n, const std::string& path) const {
    static const std::vector<std::string> primitives = {"sphere",   "box",       "cylinder", "cone",
                                                        "capsule",  "ellipsoid", "torus",    "halfspace",
                                                        "slab",     "infinite_cylinder", "mesh"};
    static const std::vector<std::string> ops = {"union", "intersection", "difference", "complement"};
    std::vector<std::string> allowed = primitives;
    allowed.insert(allowed.end(), ops.begin(), ops.end());
    allowed.insert(allowed.end(), {"name", "position", "orientation"});
    const std::string what = "a geometry node (one of " + join_list(primitives) + ", " + join_list(ops) + ")";
    if (!n.IsMap()) fail_got(n, path, what);
    check_map(n, path, allowed, "a geometry node");

    geo::CsgNode node;
    node.where = locate(n, path);
    std::string kind;
    YAML::Node body;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (k == "name" || k == "position" || k == "orientation") continue;
      if (!kind.empty())
        fail(it->first, child_path(path, k),
             "expected one shape or operation per node; got both '" + kind + "' and '" + k + "' (wrap them in union)");
      kind = k;
      body = it->second;
    }
    if (kind.empty()) fail(n, path, "expected " + what + "; got none");
    if (YAML::Node nm = find(n, "name"); nm.IsDefined()) node.name = string(nm, child_path(path, "name"), "a cell name");
    const std::string bp = child_path(path, kind);
    const bool is_op = std::find(ops.begin(), ops.end(), kind) != ops.end();
    if (is_op) {
      for (const char* k : {"position", "orientation"})
        if (YAML::Node x = find(n, k); x.IsDefined())
          fail(x, child_path(path, k),
               std::string("expected '") + k + "' only on primitives (place the children instead); got it on a " + kind);
      if (kind == "complement") {
        node.op = geo::CsgNode::Op::Complement;
        node.children.push_back(csg(body, bp));
        return node;
      }
      node.op = kind == "union" ? geo::CsgNode::Op::Union
                : kind == "intersection" ? geo::CsgNode::Op::Intersection
                                         : geo::CsgNode::Op::Difference;
      const size_t min_children = kind == "difference" ? 2 : 1;
      if (!body.IsSequence() || body.size() < min_children)
        fail_got(body, bp, "a list of at least " + std::to_string(min_children) + " geometry nodes");
      for (size_t i = 0; i < body.size(); ++i) node.children.push_back(csg(body[i], index_path(bp, i)));
      return node;
    }
    node.op = geo::CsgNode::Op::Primitive;
    geo::Primitive& p = node.primitive;
    if (YAML::Node x = find(n, "position"); x.IsDefined())
      p.pose.position = vec3(x, child_path(path, "position"), "a position [x, y, z] in m");
    if (YAML::Node x = find(n, "orientation"); x.IsDefined())
      p.pose.rotation = orientation(x, child_path(path, "orientation"));
    const auto len = [&](const char* key) {
      return positive(require(body, key, bp, "a length in m"), child_path(bp, key), "a length in m");
    };
    const auto lens = [&](const char* key) {
      const std::string kp = child_path(bp, key);
      const YAML::Node v = require(body, key, bp, "3 lengths in m");
      const Vec3 x = vec3(v, kp, "3 lengths in m");
      for (int i = 0; i < 3; ++i)
        if (!(x(i) > 0)) fail(v[i], index_path(kp, i), "expected a length > 0 m; got " + fmt_number(x(i)));
      return x;
    };
    if (kind == "halfspace") {
      if (!body.IsNull()) {
        check_unique_keys(body, bp, "no parameters ({} or nothing: the region z <= 0 of its frame)");
        if (body.size() != 0)
          fail(body.begin()->first, child_path(bp, body.begin()->first.Scalar()),
               "expected no parameters (halfspace is the region z <= 0 of its frame); got key '" +
                   body.begin()->first.Scalar() + "'");
      }
      p.kind = geo::PrimitiveKind::HalfSpace;
      return node;
    }
    if (kind == "sphere") {
      check_map(body, bp, {"radius"}, "sphere");
      p.kind = geo::PrimitiveKind::Sphere;
      p.radius = len("radius");
    } else if (kind == "box") {
      check_map(body, bp, {"size"}, "box");
      p.kind = geo::PrimitiveKind::Box;
      p.size = lens("size");
    } else if (kind == "cylinder") {
      check_map(body, bp, {"radius", "length"}, "cylinder");
      p.kind = geo::PrimitiveKind::Cylinder;
      p.radius = len("radius");
      p.length = len("length");
    } else if (kind == "cone") {
      check_map(body, bp, {"radius_bottom", "radius_top", "length"}, "cone");
      p.kind = geo::PrimitiveKind::Cone;
      const auto radius = [&](const char* key) {
        const std::string kp = child_path(bp, key);
        const YAML::Node v = require(body, key, bp, "a radius >= 0 in m");
        const double r = number(v, kp, "a radius >= 0 in m");
        if (!(r >= 0)) fail(v, kp, "expected a radius >= 0 m; got " + fmt_number(r));
        return r;
      };
      p.radius = radius("radius_bottom");
      p.radius_top = radius("radius_top");
      if (!(p.radius > 0 || p.radius_top > 0))
        fail(body, bp, "expected radius_bottom > 0 or radius_top > 0; got both 0");
      p.length = len("length");
    } else if (kind == "capsule") {
      check_map(body, bp, {"radius", "length"}, "capsule");
      p.kind = geo::PrimitiveKind::Capsule;
      p.radius = len("radius");
      p.length = len("length");
    } else if (kind == "ellipsoid") {
      check_map(body, bp, {"radii"}, "ellipsoid");
      p.kind = geo::PrimitiveKind::Ellipsoid;
      p.radii = lens("radii");
    } else if (kind == "torus") {
      check_map(body, bp, {"major_radius", "minor_radius"}, "torus");
      p.kind = geo::PrimitiveKind::Torus;
      p.major_radius = len("major_radius");
      p.minor_radius = len("minor_radius");
      if (!(p.minor_radius < p.major_radius))
        fail(find(body, "minor_radius"), child_path(bp, "minor_radius"),
             "expected minor_radius < major_radius (a ring torus); got " + fmt_number(p.minor_radius) +
                 " >= " + fmt_number(p.major_radius));
    } else if (kind == "slab") {
      check_map(body, bp, {"thickness"}, "slab");
      p.kind = geo::PrimitiveKind::Slab;
      p.thickness = len("thickness");
    } else if (kind == "infinite_cylinder") {
      check_map(body, bp, {"radius"}, "infinite_cylinder");
      p.kind = geo::PrimitiveKind::InfiniteCylinder;
      p.radius = len("radius");
    } else {  // mesh
      check_map(body, bp, {"file", "scale"}, "mesh");
      p.kind = geo::PrimitiveKind::Mesh;
      p.mesh_file = string(require(body, "file", bp, "an OBJ or STL file path"), child_path(bp, "file"),
                           "an OBJ or STL file path");
      if (YAML::Node s = find(body, "scale"); s.IsDefined()) p.mesh_scale = positive(s, child_path(bp, "scale"), "a scale");
    }
    return node;
  }

  // ---- contact parameters ----
  struct ParamSet {
    std::string model;
    std::map<std::string, double> params;
    std::map<std::string, std::pair<YAML::Node, std::string>> where;  // parameter -> value node, key path
  };

  std::string model_name(const YAML::Node& n, const std::string& path) const {
    const std::string m = string(n, path, "a contact model (" + join_list(contact::model_names()) + ")");
    const auto names = contact::model_names();
    if (std::find(names.begin(), names.end(), m) == names.end()) {
      std::string msg = "expected a contact model (" + join_list(names) + "); got '" + m + "'";
      const std::string hint = did_you_mean(m, names);
      if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
      fail(n, path, msg);
    }
    return m;
  }

  // Reads every key of `map` except `skip` as a parameter of `model`, with did-you-mean on unknown names.
  void read_params(const YAML::Node& map, const std::string& path, const std::string& model,
                   const std::vector<std::string>& skip, ParamSet& out) const {
    std::vector<std::string> names;
    for (const auto& info : contact::model_parameters(model)) names.push_back(info.name);
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (std::find(skip.begin(), skip.end(), k) != skip.end()) continue;
      const std::string kp = child_path(path, k);
      if (std::find(names.begin(), names.end(), k) == names.end()) {
        std::vector<std::string> all = skip;
        all.insert(all.end(), names.begin(), names.end());
        std::string msg = "expected " + join_list(skip) + " or a parameter of the '" + model + "' model (" +
                          join_list(names) + "); got unknown key '" + k + "'";
        const std::string hint = did_you_mean(k, all);
        if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
        fail(it->first, kp, msg);
      }
      // Body stiffnesses may be .inf (rigid, eq 4.128); check_parameters decides what is allowed.
      out.params[k] = number(it->second, kp, "a number (parameter " + k + ")", true);
      out.where[k] = {it->second, kp};
    }
  }

  void check_param_set(const ParamSet& set, const YAML::Node& section, const std::string& path) const {
    const auto issues = contact::check_parameters(set.model, set.params);
    if (issues.empty()) return;
    const auto& issue = issues.front();
    // contact::check_parameters ends value errors with " (got X)"; say it as "; got X" like every other message.
    std::string expected = "expected " + issue.expected;
    if (const size_t at = expected.rfind(" (got "); at != std::string::npos && expected.back() == ')')
      expected = expected.substr(0, at) + "; got " + expected.substr(at + 6, expected.size() - at - 7);
    auto w = set.where.find(issue.key);
    if (w != set.where.end()) fail(w->second.first, w->second.second, expected);
    fail(section, path, expected);
  }

  // Values that no real material has (usually given in other units): warnings, never errors.
  void check_param_ranges(const ParamSet& set, const std::string& section) const {
    const auto given = [&](const std::string& k) { return set.params.count(k) ? set.params.at(k) : std::nan(""); };
    for (const auto& [key, where] : set.where) {
      if (where.second.compare(0, section.size() + 1, section + ".") != 0) continue;  // checked with its own section
      const double x = set.params.at(key);
      if (key == "mu" || key == "mu_s" || key == "mu_c")
        check_range(where.first, where.second, x, 0, kMaxFriction, "(a friction coefficient)",
                    "dry friction is 0.05 to 1.5");
      const bool linear = !set.params.count("hyper_n") || given("hyper_n") == 1;
      if (!contact::is_point_model(set.model) && linear && (key == "k_v" || key == "k_v_i" || key == "k_v_j") &&
          std::isfinite(x))
        check_range(where.first, where.second, x, kMinVolumetricStiffness, kMaxVolumetricStiffness, "N/m^3",
                    kVolumetricStiffnessRange);
      if (contact::is_point_model(set.model) && key == "k" && (!set.params.count("n") || given("n") == 1.5))
        check_range(where.first, where.second, x, kMinHertzStiffness, kMaxHertzStiffness, "N/m^1.5",
                    kHertzStiffnessRange);
    }
  }

  // "file:line:column" of a parameter's value, and through which section it came ("material_pairs[0].mu").
  std::map<std::string, std::string> origins(const ParamSet& set) const {
    std::map<std::string, std::string> out;
    for (const auto& [key, where] : set.where) {
      const geo::SourceLocation w = locate(where.first, where.second);
      out[key] = where.second + " (" + w.file + (w.line > 0 ? ":" + std::to_string(w.line) : "") + ")";
    }
    return out;
  }

  // ---- warnings (InputWarning: a setup that loads but is likely wrong) ----
  mutable std::vector<InputWarning> warnings;
  void warn(const YAML::Node& node, const std::string& path, const std::string& message) const {
    const geo::SourceLocation w = locate(node, path);
    warnings.push_back(InputWarning{w.file, w.line, w.column, path, message});
  }
  // A value far outside the range its unit allows for real materials: usually a value in other units.
  void check_range(const YAML::Node& node, const std::string& path, double x, double low, double high,
                   const std::string& unit, const std::string& typical) const {
    if (x >= low && x <= high) return;
    warn(node, path,
         fmt_number(x) + " " + unit + " is outside the range of real materials (" + typical +
             "); every value is SI (docs/scenario-format.md, \"Units\")");
  }

  // ---- time profiles (docs/scenario-format.md, "Time profiles") ----
  // A number, or one of {ramp: ...}, {sine: ...}, {step: ...}, {table: ...}. `continuous`: a position (no step).
  TimeProfile profile(const YAML::Node& n, const std::string& path, const std::string& unit,
                      bool continuous = false) const {
    const std::string forms = "a number in " + unit + " or a time profile ({ramp: ...}, {sine: ...}, " +
                              (continuous ? "" : "{step: ...}, ") + "{table: ...})";
    if (n.IsScalar()) return constant_profile(number(n, path, forms));
    if (!n.IsMap() || n.size() != 1) fail_got(n, path, forms);
    check_map(n, path, {"ramp", "sine", "step", "table"}, "a time profile");
    const std::string kind = n.begin()->first.Scalar();
    const YAML::Node b = n.begin()->second;
    const std::string bp = child_path(path, kind);
    const auto value = [&](const char* key, std::optional<double> fallback, const std::string& what) {
      const YAML::Node v = find(b, key);
      if (!v.IsDefined()) {
        if (!fallback) fail(b, bp, "expected required key '" + std::string(key) + "' (" + what + "); it is missing");
        return *fallback;
      }
      return number(v, child_path(bp, key), what);
    };
    const auto nonnegative = [&](const char* key, const std::string& what) {
      const double x = value(key, 0.0, what);
      if (!(x >= 0)) fail(find(b, key), child_path(bp, key), "expected " + what + " >= 0; got " + fmt_number(x));
      return x;
    };
    TimeProfile p;
    if (kind == "ramp") {
      check_map(b, bp, {"from", "to", "over", "start"}, "a ramp");
      p.kind = TimeProfile::Kind::Ramp;
      p.from = value("from", 0.0, "the value before the ramp, " + unit);
      p.to = value("to", std::nullopt, "the value after the ramp, " + unit);
      p.over = positive(require(b, "over", bp, "the ramp's duration in s"), child_path(bp, "over"), "a duration in s");
      p.start = nonnegative("start", "a start time in s");
    } else if (kind == "sine") {
      check_map(b, bp, {"amplitude", "frequency", "phase", "offset"}, "a sine");
      p.kind = TimeProfile::Kind::Sine;
      p.amplitude = value("amplitude", std::nullopt, "the amplitude, " + unit);
      p.frequency = value("frequency", std::nullopt, "a frequency in Hz");
      if (!(p.frequency >= 0))
        fail(find(b, "frequency"), child_path(bp, "frequency"), "expected a frequency >= 0 Hz; got " + fmt_number(p.frequency));
      p.phase = value("phase", 0.0, "a phase in rad");
      p.offset = value("offset", 0.0, "the mean value, " + unit);
    } else if (kind == "step") {
      if (continuous) fail(n, bp, "expected a continuous profile (a position cannot jump; use a ramp); got a step");
      check_map(b, bp, {"from", "to", "at"}, "a step");
      p.kind = TimeProfile::Kind::Step;
      p.from = value("from", 0.0, "the value before the step, " + unit);
      p.to = value("to", std::nullopt, "the value from the step on, " + unit);
      p.start = value("at", std::nullopt, "the time of the step in s");
      if (!(p.start >= 0)) fail(find(b, "at"), child_path(bp, "at"), "expected a time >= 0 s; got " + fmt_number(p.start));
    } else {
      check_map(b, bp, {"times", "values", "interpolation", "after"}, "a table");
      p.kind = TimeProfile::Kind::Table;
      p.times = table_times(require(b, "times", bp, "increasing times in s"), child_path(bp, "times"));
      const YAML::Node vn = require(b, "values", bp, "one value per time");
      const std::string vp = child_path(bp, "values");
      if (!vn.IsSequence() || vn.size() != p.times.size())
        fail_got(vn, vp, std::to_string(p.times.size()) + " values (one per time) in " + unit);
      for (size_t i = 0; i < vn.size(); ++i) p.values.push_back(number(vn[i], index_path(vp, i)));
      read_table_options(b, bp, p, false);
    }
    prepare_profile(p);
    return p;
  }

  // At least 2 times, strictly increasing (never sorted silently: an out-of-order time is a typo).
  std::vector<double> table_times(const YAML::Node& n, const std::string& path) const {
    if (!n.IsSequence() || n.size() < 2) fail_got(n, path, "a list of at least 2 increasing times in s");
    std::vector<double> t;
    for (size_t i = 0; i < n.size(); ++i) {
      t.push_back(number(n[i], index_path(path, i), "a time in s"));
      if (i > 0 && !(t[i] > t[i - 1]))
        fail(n[i], index_path(path, i),
             "expected times in strictly increasing order; got " + fmt_number(t[i]) + " after " + fmt_number(t[i - 1]));
    }
    return t;
  }

  void read_table_options(const YAML::Node& b, const std::string& bp, TimeProfile& p, bool cubic_default) const {
    p.cubic = cubic_default;
    if (YAML::Node i = find(b, "interpolation"); i.IsDefined()) {
      const std::string s = string(i, child_path(bp, "interpolation"), "linear or cubic");
      if (s != "linear" && s != "cubic") fail(i, child_path(bp, "interpolation"), "expected linear or cubic; got '" + s + "'");
      p.cubic = s == "cubic";
    }
    if (YAML::Node a = find(b, "after"); a.IsDefined()) {
      const std::string s = string(a, child_path(bp, "after"), "hold or extrapolate");
      if (s != "hold" && s != "extrapolate") fail(a, child_path(bp, "after"), "expected hold or extrapolate; got '" + s + "'");
      p.extrapolate = s == "extrapolate";
    }
  }

  // [x, y, z], each a number or a time profile.
  Vec3Profile vec3_profile(const YAML::Node& n, const std::string& path, const std::string& unit,
                           bool continuous = false) const {
    if (!n.IsSequence() || n.size() != 3)
      fail_got(n, path, "a list of 3 components [x, y, z], each a number in " + unit + " or a time profile");
    return {profile(n[0], index_path(path, 0), unit, continuous), profile(n[1], index_path(path, 1), unit, continuous),
            profile(n[2], index_path(path, 2), unit, continuous)};
  }

  // {axis: [x, y, z], angle: PROFILE (rad) | angle_deg: PROFILE}: a turn about a fixed axis.
  std::pair<Vec3, TimeProfile> turn(const YAML::Node& n, const std::string& path) const {
    check_map(n, path, {"axis", "angle", "angle_deg"}, "a rotation {axis, angle or angle_deg}");
    const std::string ap = child_path(path, "axis");
    const YAML::Node an = require(n, "axis", path, "a direction [x, y, z]");
    const Vec3 axis = vec3(an, ap, "an axis direction");
    if (!(axis.norm() > 0)) fail(an, ap, "expected a nonzero axis direction; got [0, 0, 0]");
    const YAML::Node rad = find(n, "angle"), deg = find(n, "angle_deg");
    if (rad.IsDefined() == deg.IsDefined())
      fail(n, path, std::string("expected exactly one of 'angle' (rad) or 'angle_deg'; got ") + (rad.IsDefined() ? "both" : "neither"));
    TimeProfile angle = rad.IsDefined() ? profile(rad, child_path(path, "angle"), "rad", true)
                                        : profile(deg, child_path(path, "angle_deg"), "degrees", true);
    if (deg.IsDefined()) scale_profile(angle, M_PI / 180);
    return {axis.normalized(), angle};
  }

  static void scale_profile(TimeProfile& p, double k) {
    p.value *= k, p.from *= k, p.to *= k, p.amplitude *= k, p.offset *= k;
    for (double& v : p.values) v *= k;
    prepare_profile(p);
  }

 private:
  std::string file_;
};

// "a.b[2].c" or "a.b.2.c" -> segments {a, b, 2, c} (list indices as decimal strings).
std::vector<std::string> split_path(const std::string& path, bool& ok) {
  std::vector<std::string> segs;
  std::string cur;
  ok = true;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      if (cur.empty() && (segs.empty() || path[i - 1] != ']')) ok = false;
      if (!cur.empty()) segs.push_back(cur);
      cur.clear();
    } else if (c == '[') {
      if (!cur.empty()) segs.push_back(cur);
      cur.clear();
      const size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) {
        ok = false;
        return segs;
      }
      const std::string idx = path.substr(i + 1, close - i - 1);
      if (idx.find_first_not_of("0123456789") != std::string::npos) ok = false;
      segs.push_back(idx);
      i = close;
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) segs.push_back(cur);
  else if (path.empty() || path.back() == '.') ok = false;
  return segs;
}

bool fs_equivalent(const std::string& a, const std::string& b) {
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

bool is_index(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// Applies one "key.path=value" override to the document; returns its canonical path.
Override apply_override(YAML::Node& root, const std::string& text, const std::string& file) {
  const std::string where = file + ": --set " + text;
  const size_t eq = text.find('=');
  std::string path = eq == std::string::npos ? text : text.substr(0, eq);
  path.erase(0, path.find_first_not_of(" \t"));
  path.erase(path.find_last_not_of(" \t") + 1);
  if (eq == std::string::npos || path.empty())
    throw InputError(where, 0, 0, path, "expected KEY.PATH=VALUE (e.g. bodies.ball.velocity=[0,0.3,0]); got no '='");
  bool ok = true;
  const std::vector<std::string> segs = split_path(path, ok);
  if (!ok || segs.empty())
    throw InputError(where, 0, 0, path,
                     "expected a key path of names separated by '.', list items as [N]; got '" + path + "'");
  const std::string value_text = text.substr(eq + 1);
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    throw InputError(where, 0, 0, path, "expected a YAML value after '='; got '" + value_text + "' (" + e.msg + ")");
  }
  if (value_text.find_first_not_of(" \t") == std::string::npos)
    throw InputError(where, 0, 0, path, "expected a YAML value after '='; got nothing");

  YAML::Node cur;
  cur.reset(root);
  std::string canon;
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    const bool last = i + 1 == segs.size();
    const std::string parent = canon;
    if (cur.IsSequence()) {
      if (!is_index(seg))
        throw InputError(where, 0, 0, child_path(parent, seg),
                         "expected a list index [N] after " + parent + " (a list); got '" + seg + "'");
      const size_t idx = std::stoul(seg);
      canon = index_path(parent, idx);
      if (idx > cur.size() || (!last && idx == cur.size()))
        throw InputError(where, 0, 0, canon,
                         "expected an index below " + std::to_string(cur.size()) + " (" + parent + " has " +
                             std::to_string(cur.size()) + " items); got " + seg);
      if (last) {
        if (idx == cur.size()) cur.push_back(value);
        else cur[idx] = value;
      } else {
        YAML::Node next = cur[idx];
        cur.reset(next);
      }
      continue;
    }
    canon = child_path(parent, seg);
    if (!cur.IsMap() && !cur.IsNull())
      throw InputError(where, 0, 0, canon,
                       "expected " + (parent.empty() ? std::string("the document") : parent) +
                           " to be a map or list to descend into; got " + describe(cur));
    YAML::Node existing = Loader::find(cur, seg);
    if (last) {
      if (existing.IsDefined()) existing = value;  // replaces in place (Node assignment rebinds the value)
      else cur[seg] = value;
      break;
    }
    if (!existing.IsDefined()) {
      // Named collections must already hold the name: a typo must not silently create a new body.
      if (parent == "bodies" || parent == "materials") {
        std::vector<std::string> names;
        if (cur.IsMap())
          for (auto it = cur.begin(); it != cur.end(); ++it) names.push_back(it->first.Scalar());
        std::string msg = "expected the name of an existing entry of " + parent + " (" + join_list(names) +
                          "); got '" + seg + "'";
        const std::string hint = did_you_mean(seg, names);
        if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
        throw InputError(where, 0, 0, canon, msg);
      }
      // Build the missing part bottom-up from fresh nodes and attach it once. (Creating an empty map, then
      // descending into it and creating the next, left yaml-cpp 0.7 with a dangling node that crashed the
      // emitter: "--set a.b.c=1", found by fuzzing, issue 8.) An index creates a list, whose only valid
      // index is 0.
      if (parent.empty() && (seg == "bodies" || seg == "materials"))
        throw InputError(where, 0, 0, child_path(canon, segs[i + 1]),
                         "expected the name of an existing entry of " + seg + " (there are none); got '" +
                             segs[i + 1] + "'");
      std::string rest = canon;
      for (size_t j = i + 1; j < segs.size(); ++j) {
        const std::string list = rest;
        rest = is_index(segs[j]) ? index_path(rest, std::stoul(segs[j].substr(0, 9))) : child_path(rest, segs[j]);
        if (is_index(segs[j]) && segs[j].find_first_not_of('0') != std::string::npos)
          throw InputError(where, 0, 0, rest,
                           "expected index 0 of " + list + " (a new list, 0 items); got " + segs[j]);
      }
      YAML::Node nested = YAML::Clone(value);
      for (size_t j = segs.size() - 1; j > i; --j) {
        YAML::Node wrap(is_index(segs[j]) ? YAML::NodeType::Sequence : YAML::NodeType::Map);
        if (is_index(segs[j])) wrap.push_back(nested);
        else wrap[segs[j]] = nested;
        nested.reset(wrap);
      }
      cur[seg] = nested;
      canon = rest;
      break;
    }
    cur.reset(existing);
  }
  return Override{canon, text};
}

// A body name at `n` that is defined under 'bodies'.
std::string body_ref(const Loader& L, const YAML::Node& n, const std::string& path,
                     const std::vector<std::string>& body_names) {
  const std::string name = L.string(n, path, "a body name");
  if (std::find(body_names.begin(), body_names.end(), name) == body_names.end()) {
    std::string msg = "expected a body defined under 'bodies' (" + join_list(body_names) + "); got '" + name + "'";
    const std::string hint = did_you_mean(name, body_names);
    if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
    L.fail(n, path, msg);
  }
  return name;
}

// The `name` of entry i of a list section ("<kind>_<i>" unless given), unique among `taken`.
std::string entry_name(const Loader& L, const YAML::Node& n, const std::string& path, const std::string& kind,
                       size_t i, std::set<std::string>& taken) {
  const std::string what = (kind == "impulse" ? "an " : "a ") + kind + " name";
  std::string name = kind + "_" + std::to_string(i);
  if (YAML::Node nm = Loader::find(n, "name"); nm.IsDefined()) {
    name = L.string(nm, child_path(path, "name"), what);
    if (!valid_name(name))
      L.fail(nm, child_path(path, "name"), "expected " + what + " of letters, digits, '_' and '-'; got '" + name + "'");
  }
  if (!taken.insert(name).second) L.fail(n, path, "expected unique " + kind + " names; got '" + name + "' again");
  return name;
}

// when: {signal, crosses, direction, body[, until]}: a signal of a body crossing a level (impulses, load switches;
// docs/scenario-format.md, "Impulses"). `until` is read only where it is allowed (non-null).
void read_crossing(const Loader& L, const YAML::Node& when, const std::string& wp,
                   const std::vector<std::string>& body_names, const std::string& default_body,
                   std::string& signal_body, std::string& signal, double& level, int& direction,
                   std::optional<double>* until) {
  static const std::vector<std::string> signals = {
      "position.x", "position.y", "position.z", "velocity.x", "velocity.y", "velocity.z",
      "angular_velocity.x", "angular_velocity.y", "angular_velocity.z"};
  std::vector<std::string> keys = {"signal", "crosses", "direction", "body"};
  if (until) keys.push_back("until");
  L.check_map(when, wp, keys, "a crossing trigger");
  const std::string sp = child_path(wp, "signal");
  const YAML::Node sn = L.require(when, "signal", wp, "a state signal: " + join_list(signals));
  signal = L.string(sn, sp, "a state signal");
  if (std::find(signals.begin(), signals.end(), signal) == signals.end()) {
    std::string msg = "expected a state signal (" + join_list(signals) + "); got '" + signal + "'";
    const std::string hint = did_you_mean(signal, signals);
    if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
    L.fail(sn, sp, msg);
  }
  level = L.number(L.require(when, "crosses", wp, "the level in SI units"), child_path(wp, "crosses"),
                   "a level (number, SI units)");
  signal_body = default_body;
  if (YAML::Node b = Loader::find(when, "body"); b.IsDefined()) signal_body = body_ref(L, b, child_path(wp, "body"), body_names);
  direction = 0;
  if (YAML::Node d = Loader::find(when, "direction"); d.IsDefined()) {
    const std::string dp = child_path(wp, "direction");
    const std::string dir = L.string(d, dp, "falling, rising or either");
    if (dir == "falling") direction = -1;
    else if (dir == "rising") direction = 1;
    else if (dir != "either") L.fail(d, dp, "expected falling, rising or either; got '" + dir + "'");
  }
  if (YAML::Node u = until ? Loader::find(when, "until") : YAML::Node(YAML::NodeType::Undefined); u.IsDefined()) {
    // Ends a series of crossing impulses (S2's stop phase: the kicks end and the spin decays to rest).
    const std::string up = child_path(wp, "until");
    const double t = L.number(u, up, "a time in s");
    if (!(t >= 0)) L.fail(u, up, "expected a time >= 0 s; got " + fmt_number(t) + " s");
    *until = t;
  }
}

// motion: {velocity, angular_velocity} | {displacement, rotation} | {table: {times, positions, orientations}}
// (docs/scenario-format.md, "Prescribed motion").
MotionSpec load_motion(const Loader& L, const YAML::Node& n, const std::string& path, const YAML::Node& body,
                       BodySpec& b) {
  L.check_map(n, path, {"velocity", "angular_velocity", "displacement", "rotation", "table"}, "a prescribed motion");
  const auto has = [&](const char* k) { return Loader::find(n, k).IsDefined(); };
  const bool constant = has("velocity") || has("angular_velocity"), profiles = has("displacement") || has("rotation"),
             table = has("table");
  const std::string kinds = "velocity and angular_velocity (constant), displacement and rotation (profiles), or table";
  if (constant + profiles + table != 1)
    L.fail(n, path, "expected one kind of motion: " + kinds + "; got " + (constant + profiles + table ? "two" : "none"));
  MotionSpec m;
  const auto kp = [&](const char* k) { return child_path(path, k); };
  if (constant) {
    m.kind = MotionSpec::Kind::Velocity;
    if (has("velocity")) m.velocity = L.vec3(Loader::find(n, "velocity"), kp("velocity"), "a velocity in m/s");
    if (has("angular_velocity"))
      m.angular_velocity = L.vec3(Loader::find(n, "angular_velocity"), kp("angular_velocity"), "an angular velocity in rad/s");
    return m;
  }
  if (profiles) {
    m.kind = MotionSpec::Kind::Profiles;
    if (has("displacement")) m.displacement = L.vec3_profile(Loader::find(n, "displacement"), kp("displacement"), "m", true);
    if (has("rotation")) std::tie(m.axis, m.angle) = L.turn(Loader::find(n, "rotation"), kp("rotation"));
    return m;
  }
  m.kind = MotionSpec::Kind::Table;
  const YAML::Node t = Loader::find(n, "table");
  const std::string tp = kp("table");
  L.check_map(t, tp, {"times", "positions", "orientations", "interpolation"}, "a pose table");
  for (const char* k : {"position", "orientation"})
    if (YAML::Node x = Loader::find(body, k); x.IsDefined())
      L.fail(x, child_path(b.where.key_path, k), "expected no initial " + std::string(k) + " beside motion.table (the table gives the pose); got one");
  const std::vector<double> times = L.table_times(L.require(t, "times", tp, "increasing times in s"), child_path(tp, "times"));
  const YAML::Node pn = Loader::find(t, "positions"), qn = Loader::find(t, "orientations");
  if (!pn.IsDefined() && !qn.IsDefined())
    L.fail(t, tp, "expected 'positions' ([x, y, z] per time, m) and/or 'orientations' ([w, x, y, z] per time); got neither");
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
  L.read_table_options(t, tp, base, true);
  for (int k = 0; k < 3; ++k) m.table_position[k] = base, m.table_position[k].values.assign(times.size(), b.pose.position[k]);
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
void load_adaptive_settings(const Loader& L, const YAML::Node& s, Scenario& sc) {
  AdaptiveSettings& a = sc.adaptive_settings;
  if (YAML::Node n = Loader::find(s, "rel_tol"); n.IsDefined()) {
    a.rel_tol = L.positive(n, "simulation.rel_tol", "a relative tolerance");
    // Below 1e-13 the error estimate is round-off; at 1 nothing is controlled.
    if (!(a.rel_tol >= 1e-13 && a.rel_tol < 1))
      L.fail(n, "simulation.rel_tol", "expected a relative tolerance in [1e-13, 1); got " + fmt_number(a.rel_tol));
  }
  if (YAML::Node n = Loader::find(s, "abs_tol"); n.IsDefined()) {
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
      if (YAML::Node v = Loader::find(n, k.first); v.IsDefined())
        *k.second = L.positive(v, "simulation.abs_tol." + k.first, "an absolute tolerance");
  }
  if (YAML::Node n = Loader::find(s, "max_step"); n.IsDefined()) {
    a.max_step = L.positive(n, "simulation.max_step", "a largest step in s");
    if (a.max_step > sc.duration)
      L.fail(n, "simulation.max_step",
             "expected a largest step <= duration (" + fmt_number(sc.duration) + " s); got " + fmt_number(a.max_step));
  }
  const double max_step = a.max_step > 0 ? a.max_step : sc.duration / 50;
  for (const char* key : {"step", "initial_step"})
    if (YAML::Node n = Loader::find(s, key); n.IsDefined()) {
      const std::string path = std::string("simulation.") + key;
      const double h = L.positive(n, path, "a first step in s");
      if (h > max_step)
        L.fail(n, path, "expected a first step <= the largest step (" + fmt_number(max_step) + " s); got " +
                            fmt_number(h) + " s");
      a.initial_step = h;  // initial_step, read last, wins over step
    }
  sc.step = a.initial_step;
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

Scenario load_scenario_text(const std::string& text, const std::string& path, const std::vector<std::string>& overrides) {
  Scenario sc;
  sc.source_file = path;

  YAML::Node root;
  try {
    root = YAML::Load(text);
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

  Loader L(path);
  if (!root.IsMap() && !root.IsNull())
    throw InputError(path, 1, 1, "", "expected a map of scenario sections (simulation, bodies, ...); got " + describe(root));
  if (root.IsNull() && overrides.empty())
    throw InputError(path, 1, 1, "", "expected a map of scenario sections (simulation, bodies, ...); got an empty document");
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
  if (YAML::Node n = Loader::find(root, "name"); n.IsDefined()) sc.name = L.string(n, "name", "a scenario name");
  if (YAML::Node n = Loader::find(root, "description"); n.IsDefined() && !n.IsNull())
    L.string(n, "description", "a text");

  // simulation
  {
    const YAML::Node s = L.require(root, "simulation", "", "a map with duration, step, integrator");
    L.check_map(s, "simulation",
                {"duration", "step", "integrator", "geometry_tolerance", "rel_tol", "abs_tol", "max_step",
                 "initial_step"},
                "simulation");
    const YAML::Node dn = L.require(s, "duration", "simulation", "the simulated time in s");
    sc.duration = L.positive(dn, "simulation.duration", "a duration in s");
    if (YAML::Node in = Loader::find(s, "integrator"); in.IsDefined()) {
      const auto names = integ::method_names();
      const std::string name = L.string(in, "simulation.integrator", "an integrator name");
      const auto method = integ::method_from_name(name);
      const auto adaptive = integ::adaptive_method_from_name(name);
      if (!method && !adaptive) {
        std::vector<std::string> all = names;
        for (const auto& a : integ::adaptive_method_names()) all.push_back(a);
        all.insert(all.end(), {"ode3", "ode5", "ode23", "ode45", "ode23s"});
        std::string msg = "expected an integrator (" + join_list(names) + ", the adaptive " +
                          join_list(integ::adaptive_method_names()) + ", or the aliases ode3, ode5, ode23, ode45, ode23s); got '" +
                          name + "'";
        const std::string hint = did_you_mean(name, all);
        if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
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
        if (YAML::Node k = Loader::find(s, key); k.IsDefined())
          L.fail(k, std::string("simulation.") + key,
                 "error-control settings only with an adaptive integrator (dopri5, bs23); integrator is " +
                     sc.integrator);
    }
    if (YAML::Node g = Loader::find(s, "geometry_tolerance"); g.IsDefined()) {
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
  if (YAML::Node g = Loader::find(root, "gravity"); g.IsDefined()) {
    if (g.IsMap()) {
      L.check_map(g, "gravity", {"magnitude", "tilt"}, "a tilting gravity {magnitude, tilt: {axis, angle_deg}}");
      GravitySpec spec;
      spec.tilting = true;
      if (YAML::Node m = Loader::find(g, "magnitude"); m.IsDefined())
        spec.magnitude = L.positive(m, "gravity.magnitude", "a gravity magnitude in m/s^2");
      std::tie(spec.tilt_axis, spec.tilt) =
          L.turn(L.require(g, "tilt", "gravity", "{axis: [x, y, z], angle_deg: PROFILE}"), "gravity.tilt");
      sc.gravity = gravity_at(spec, 0);
      sc.gravity_profile = spec;
    } else {
      if (!g.IsSequence() || g.size() != 3)
        L.fail_got(g, "gravity", "a gravity vector [gx, gy, gz] in m/s^2 (a list of 3 numbers or time profiles)");
      GravitySpec spec;
      spec.components = L.vec3_profile(g, "gravity", "m/s^2");
      sc.gravity = gravity_at(spec, 0);
      if (!std::all_of(spec.components.begin(), spec.components.end(), profile_is_constant)) sc.gravity_profile = spec;
    }
  }

  sc.output_file = stem + ".h5";
  if (YAML::Node o = Loader::find(root, "output"); o.IsDefined()) {
    L.check_map(o, "output", {"file", "interval"}, "output");
    if (YAML::Node f = Loader::find(o, "file"); f.IsDefined()) {
      sc.output_file = L.string(f, "output.file", "an output file path");
      // Writing the output over the scenario itself would destroy the input.
      if (fs_equivalent(sc.output_file, path))
        L.fail(f, "output.file", "expected an output file other than the scenario file; got '" + sc.output_file + "'");
    }
    if (YAML::Node iv = Loader::find(o, "interval"); iv.IsDefined()) {
      sc.output_interval = L.number(iv, "output.interval", "a sampling interval >= 0 in s");
      if (!(sc.output_interval >= 0))
        L.fail(iv, "output.interval",
               "expected a sampling interval >= 0 s (0 = every step); got " + fmt_number(sc.output_interval));
    }
  }

  // materials: name -> {density, description}
  std::map<std::string, std::optional<double>> material_density;
  std::vector<std::string> material_names;
  if (YAML::Node ms = Loader::find(root, "materials"); ms.IsDefined() && !ms.IsNull()) {
    for (const auto& [name, key, val] :
         L.named_map(ms, "materials", "a map of material names to {density, description}", "material")) {
      const std::string mp = child_path("materials", name);
      material_names.push_back(name);
      material_density[name];
      if (val.IsNull()) continue;
      L.check_map(val, mp, {"density", "description"}, "a material");
      if (YAML::Node d = Loader::find(val, "density"); d.IsDefined())
        material_density[name] = L.positive(d, child_path(mp, "density"), "a density in kg/m^3");
      if (YAML::Node d = Loader::find(val, "description"); d.IsDefined() && !d.IsNull())
        L.string(d, child_path(mp, "description"), "a text");
    }
  }
  const auto material_ref = [&](const YAML::Node& n, const std::string& kp) {
    const std::string m = L.string(n, kp, "a material name");
    if (!material_density.count(m)) {
      std::string msg = material_names.empty()
                            ? "expected a material defined under 'materials' (there are none); got '" + m + "'"
                            : "expected a material defined under 'materials' (" + join_list(material_names) +
                                  "); got '" + m + "'";
      const std::string hint = did_you_mean(m, material_names);
      if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
      L.fail(n, kp, msg);
    }
    return m;
  };

  // material_pairs: [{materials: [a, b], model, <parameters>}], complete parameter sets.
  std::map<std::pair<std::string, std::string>, Loader::ParamSet> pair_params;
  if (YAML::Node ps = Loader::find(root, "material_pairs"); ps.IsDefined() && !ps.IsNull()) {
    if (!ps.IsSequence()) L.fail_got(ps, "material_pairs", "a list of {materials: [a, b], model, parameters...}");
    for (size_t i = 0; i < ps.size(); ++i) {
      const YAML::Node n = ps[i];
      const std::string mp = index_path("material_pairs", i);
      L.check_unique_keys(n, mp, "a material pair {materials: [a, b], model, parameters...}");
      const YAML::Node mn = L.require(n, "materials", mp, "the two material names [a, b]");
      const std::string mk = child_path(mp, "materials");
      if (!mn.IsSequence() || mn.size() != 2) L.fail_got(mn, mk, "two material names [a, b]");
      const std::string a = material_ref(mn[0], index_path(mk, 0));
      const std::string b = material_ref(mn[1], index_path(mk, 1));
      Loader::ParamSet set;
      set.model = L.model_name(L.require(n, "model", mp, "point, volumetric or cellular"), child_path(mp, "model"));
      L.read_params(n, mp, set.model, {"materials", "model"}, set);
      L.check_param_set(set, n, mp);
      L.check_param_ranges(set, mp);
      const auto key = std::minmax(a, b);
      if (pair_params.count(key))
        L.fail(mn, mk, "expected each material pair once; got " + a + "/" + b + " again");
      pair_params[key] = set;
      sc.material_pairs.push_back(MaterialPairSpec{a, b, set.model, set.params, L.locate(n, mp)});
    }
  }

  // bodies: name -> body
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
    const auto get = [&](const char* k) { return Loader::find(body_node, k); };
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
    if (YAML::Node n = get("material"); n.IsDefined()) b.material = material_ref(n, kp("material"));
    if (YAML::Node g = get("geometry"); g.IsDefined()) {
      const std::string gp = kp("geometry");
      if (g.IsSequence()) {  // a list of cells = their union
        if (g.size() == 0) L.fail_got(g, gp, "at least one geometry node");
        geo::CsgNode u;
        u.op = geo::CsgNode::Op::Union;
        u.where = L.locate(g, gp);
        for (size_t i = 0; i < g.size(); ++i) u.children.push_back(L.csg(g[i], index_path(gp, i)));
        b.geometry = std::move(u);
      } else {
        b.geometry = L.csg(g, gp);
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
        L.fail(m, kp("motion"), "expected motion only on a fixed body (fixed: true; a free body moves by its dynamics)");
      b.motion = load_motion(L, m, kp("motion"), body_node, b);
    }
    if (!b.fixed) {
      if (b.mass && !b.inertia && !b.geometry)
        L.fail(val, bp,
               "expected a geometry (the inertia of a uniform body of the given mass comes from its shape) or "
               "'inertia' in kg m^2 beside mass; got neither");
      if (b.inertia && !b.mass) L.fail(val, bp, "expected required key 'mass' (in kg) beside inertia; it is missing");
      if (!b.mass && !b.density && !b.material.empty() && material_density[b.material])
        b.density = material_density[b.material];
      if (!b.mass && !b.density)
        L.fail(val, bp,
               "expected mass and inertia, or density (or a material with a density), for a body that is not "
               "fixed; got none");
      if (b.density && !b.geometry)
        L.fail(val, bp, "expected a geometry to compute the mass properties from the density; it is missing");
    }
    sc.bodies.push_back(std::move(b));
  }

  // The body under `key` of a list entry that acts on a body (impulses, loads): defined and not fixed.
  const auto moving_body = [&](const YAML::Node& entry, const std::string& path, const std::string& role,
                               const std::string& why) {
    const std::string bk = child_path(path, "body");
    const YAML::Node bn = L.require(entry, "body", path, "the name of the body " + role);
    const std::string name = body_ref(L, bn, bk, body_names);
    if (std::find_if(sc.bodies.begin(), sc.bodies.end(), [&](const BodySpec& b) { return b.name == name; })->fixed)
      L.fail(bn, bk, "expected a body that is not fixed (" + why + "); got '" + name + "'");
    return name;
  };

  // contacts: [{bodies: [i, j], model, <parameters>}]
  if (YAML::Node cs = Loader::find(root, "contacts"); cs.IsDefined() && !cs.IsNull()) {
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
      const Loader::ParamSet* inherited = nullptr;
      const std::string& ma = body_of(names[0]).material;
      const std::string& mb = body_of(names[1]).material;
      if (!ma.empty() && !mb.empty()) {
        auto it = pair_params.find(std::minmax(ma, mb));
        if (it != pair_params.end()) inherited = &it->second;
      }
      Loader::ParamSet set;
      if (YAML::Node mn = Loader::find(n, "model"); mn.IsDefined()) {
        set.model = L.model_name(mn, child_path(cp, "model"));
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
      L.read_params(n, cp, set.model, {"bodies", "model"}, set);
      L.check_param_set(set, n, cp);
      L.check_param_ranges(set, cp);
      sc.contacts.push_back(ContactSpec{names[0], names[1], set.model, set.params, L.origins(set), L.locate(n, cp)});
    }
  }

  // impulses: [{body, at | when: {signal, crosses, direction, body, until}, linear, angular, name}]
  // (docs/scenario-format.md, "Impulses").
  if (YAML::Node is = Loader::find(root, "impulses"); is.IsDefined() && !is.IsNull()) {
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
      imp.body = moving_body(n, ip, "that receives the impulse", "a fixed body cannot take an impulse");
      const YAML::Node ln = Loader::find(n, "linear"), an = Loader::find(n, "angular");
      if (!ln.IsDefined() && !an.IsDefined())
        L.fail(n, ip, "expected 'linear' (N s) and/or 'angular' (N m s), world frame; got neither");
      if (ln.IsDefined()) imp.linear = L.vec3(ln, child_path(ip, "linear"), "a linear impulse in N s, world frame");
      if (an.IsDefined()) imp.angular = L.vec3(an, child_path(ip, "angular"), "an angular impulse in N m s, world frame");
      const YAML::Node at = Loader::find(n, "at"), when = Loader::find(n, "when");
      if (at.IsDefined() == when.IsDefined())
        L.fail(n, ip,
               std::string("expected exactly one trigger, 'at' (a time in s) or 'when' ({signal, crosses, direction}); got ") +
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

  // loads: [{body, force, torque, frame, point, name}] (docs/scenario-format.md, "Loads").
  if (YAML::Node ls = Loader::find(root, "loads"); ls.IsDefined() && !ls.IsNull()) {
    if (!ls.IsSequence()) L.fail_got(ls, "loads", "a list of {body, force and/or torque, frame, point}");
    std::set<std::string> names;
    for (size_t i = 0; i < ls.size(); ++i) {
      const YAML::Node n = ls[i];
      const std::string lp = index_path("loads", i);
      L.check_map(n, lp, {"name", "body", "force", "torque", "frame", "point", "when"}, "a load");
      LoadSpec load;
      load.where = L.locate(n, lp);
      load.name = entry_name(L, n, lp, "load", i, names);
      load.body = moving_body(n, lp, "the load acts on", "a load on a fixed body does nothing");
      const YAML::Node fn = Loader::find(n, "force"), tn = Loader::find(n, "torque");
      if (!fn.IsDefined() && !tn.IsDefined()) L.fail(n, lp, "expected 'force' (N) and/or 'torque' (N m); got neither");
      if (fn.IsDefined()) load.force = L.vec3_profile(fn, child_path(lp, "force"), "N");
      if (tn.IsDefined()) load.torque = L.vec3_profile(tn, child_path(lp, "torque"), "N m");
      if (YAML::Node f = Loader::find(n, "frame"); f.IsDefined()) {
        const std::string fp = child_path(lp, "frame");
        const std::string frame = L.string(f, fp, "world or body");
        if (frame != "world" && frame != "body") L.fail(f, fp, "expected world or body; got '" + frame + "'");
        load.body_frame = frame == "body";
      }
      if (YAML::Node pt = Loader::find(n, "point"); pt.IsDefined())
        load.point = L.vec3(pt, child_path(lp, "point"), "a body-frame point [x, y, z] in m");
      if (YAML::Node w = Loader::find(n, "when"); w.IsDefined())
        read_crossing(L, w, child_path(lp, "when"), body_names, load.body, load.signal_body, load.signal, load.level,
                      load.direction, nullptr);
      sc.loads.push_back(std::move(load));
    }
  }

  sc.warnings = std::move(L.warnings);
  return sc;
}

}  // namespace vcsim
