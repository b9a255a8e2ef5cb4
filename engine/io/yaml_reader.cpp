#include "engine/io/yaml_reader.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>

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

namespace io {
namespace {

// Relative slack of the principal-moment triangle inequality I_a + I_b >= I_c. Flat plates sit exactly
// on the bound, and inputs rounded to 4 significant digits (0.08333 + 0.08333 vs 0.1667) miss it by
// up to ~6e-4, so 1e-3 accepts honest rounding while still rejecting real violations.
constexpr double kTriangleSlack = 1e-3;
// Symmetry of a full 3x3 inertia, relative to its largest entry (rounding of printed values).
constexpr double kSymmetryTolerance = 1e-9;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

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

size_t parse_index(const std::string& digits) {
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return kNotAnIndex;
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  if (digits.size() - first > 9) return kNotAnIndex;
  return std::stoul(digits.substr(first));
}

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

std::string with_hint(std::string message, const std::string& got, const std::vector<std::string>& candidates) {
  const std::string hint = did_you_mean(got, candidates);
  if (!hint.empty()) message += "; did you mean '" + hint + "'?";
  return message;
}

geo::SourceLocation YamlReader::locate(const YAML::Node& node, const std::string& path) const {
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

void YamlReader::fail(const YAML::Node& node, const std::string& path, const std::string& expected) const {
  const geo::SourceLocation w = locate(node, path);
  throw InputError(w, expected);
}

void YamlReader::fail_got(const YAML::Node& node, const std::string& path, const std::string& expected) const {
  fail(node, path, "expected " + expected + "; got " + describe(node));
}

void YamlReader::check_map(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
                           const std::string& what) const {
  if (!map.IsMap()) fail_got(map, path, what + " (a map)");
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = key_string(it->first, path);
    const std::string kp = child_path(path, key);
    if (!seen.insert(key).second) fail(it->first, kp, "expected each key once; got a second '" + key + "'");
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const std::string msg = with_hint(
          "expected a key of " + what + " (" + join_list(allowed) + "); got unknown key '" + key + "'", key, allowed);
      fail(it->first, kp, msg);
    }
  }
}

std::vector<std::tuple<std::string, YAML::Node, YAML::Node>> YamlReader::named_map(const YAML::Node& map,
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

void YamlReader::check_unique_keys(const YAML::Node& map, const std::string& path, const std::string& what) const {
  if (!map.IsMap()) fail_got(map, path, what);
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = key_string(it->first, path);
    if (!seen.insert(key).second)
      fail(it->first, child_path(path, key), "expected each key once; got a second '" + key + "'");
  }
}

std::string YamlReader::key_string(const YAML::Node& key, const std::string& parent) const {
  if (!key.IsScalar()) fail_got(key, parent, "a plain key (a name)");
  return key.Scalar();
}

YAML::Node YamlReader::find(const YAML::Node& map, const std::string& key) {
  if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node YamlReader::require(const YAML::Node& map, const std::string& key, const std::string& path,
                               const std::string& expected) const {
  YAML::Node n = find(map, key);
  if (!n.IsDefined()) fail(map, path, "expected required key '" + key + "' (" + expected + "); it is missing");
  return n;
}

double YamlReader::number(const YAML::Node& n, const std::string& path, const std::string& what, bool allow_inf) const {
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

double YamlReader::positive(const YAML::Node& n, const std::string& path, const std::string& what) const {
  const double x = number(n, path, what + " > 0");
  if (!(x > 0)) fail(n, path, "expected " + what + " > 0; got " + fmt_number(x));
  return x;
}

std::string YamlReader::string(const YAML::Node& n, const std::string& path, const std::string& what) const {
  if (!n.IsScalar() || n.Scalar().empty()) fail_got(n, path, what);
  return n.Scalar();
}

bool YamlReader::boolean(const YAML::Node& n, const std::string& path) const {
  if (n.IsScalar() && n.Tag() != "!") {
    const std::string s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  fail_got(n, path, "true or false");
}

std::vector<double> YamlReader::numbers(const YAML::Node& n, const std::string& path, size_t count,
                                        const std::string& what) const {
  if (!n.IsSequence() || n.size() != count) fail_got(n, path, what);
  std::vector<double> v;
  for (size_t i = 0; i < count; ++i) v.push_back(number(n[i], index_path(path, i)));
  return v;
}

Vec3 YamlReader::vec3(const YAML::Node& n, const std::string& path, const std::string& what) const {
  const auto v = numbers(n, path, 3, what + " (a list of 3 numbers)");
  return Vec3(v[0], v[1], v[2]);
}

Quat YamlReader::orientation(const YAML::Node& n, const std::string& path) const {
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

Mat3 YamlReader::inertia(const YAML::Node& n, const std::string& path) const {
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

void YamlReader::warn(const YAML::Node& node, const std::string& path, const std::string& message) const {
  const geo::SourceLocation w = locate(node, path);
  warnings.push_back(InputWarning{w, message});
}

void YamlReader::check_range(const YAML::Node& node, const std::string& path, double x, double low, double high,
                             const std::string& unit, const std::string& typical) const {
  if (x >= low && x <= high) return;
  warn(node, path,
       fmt_number(x) + " " + unit + " is outside the range of real materials (" + typical +
           "); every value is SI (docs/scenario-format.md, \"Units\")");
}

}  // namespace io
}  // namespace vcsim
