#include "engine/io/csg_reader.h"

#include <algorithm>

namespace vcsim::io {

namespace {

// The parameters of a primitive of `kind` (its map `body` at key path `bp`).
void read_primitive(const YamlReader& L, const std::string& kind, const YAML::Node& body, const std::string& bp,
                    geo::Primitive& p) {
  const auto len = [&](const char* key) {
    return L.positive(L.require(body, key, bp, "a length in m"), child_path(bp, key), "a length in m");
  };
  const auto lens = [&](const char* key) {
    const std::string kp = child_path(bp, key);
    const YAML::Node v = L.require(body, key, bp, "3 lengths in m");
    const Vec3 x = L.vec3(v, kp, "3 lengths in m");
    for (int i = 0; i < 3; ++i)
      if (!(x(i) > 0)) L.fail(v[i], index_path(kp, i), "expected a length > 0 m; got " + fmt_number(x(i)));
    return x;
  };
  if (kind == "halfspace") {
    if (!body.IsNull()) {
      L.check_unique_keys(body, bp, "no parameters ({} or nothing: the region z <= 0 of its frame)");
      if (body.size() != 0)
        L.fail(body.begin()->first, child_path(bp, body.begin()->first.Scalar()),
               "expected no parameters (halfspace is the region z <= 0 of its frame); got key '" +
                   body.begin()->first.Scalar() + "'");
    }
    p.kind = geo::PrimitiveKind::HalfSpace;
    return;
  }
  if (kind == "sphere") {
    L.check_map(body, bp, {"radius"}, "sphere");
    p.kind = geo::PrimitiveKind::Sphere;
    p.radius = len("radius");
  } else if (kind == "box") {
    L.check_map(body, bp, {"size"}, "box");
    p.kind = geo::PrimitiveKind::Box;
    p.size = lens("size");
  } else if (kind == "cylinder") {
    L.check_map(body, bp, {"radius", "length"}, "cylinder");
    p.kind = geo::PrimitiveKind::Cylinder;
    p.radius = len("radius");
    p.length = len("length");
  } else if (kind == "cone") {
    L.check_map(body, bp, {"radius_bottom", "radius_top", "length"}, "cone");
    p.kind = geo::PrimitiveKind::Cone;
    const auto radius = [&](const char* key) {
      const std::string kp = child_path(bp, key);
      const YAML::Node v = L.require(body, key, bp, "a radius >= 0 in m");
      const double r = L.number(v, kp, "a radius >= 0 in m");
      if (!(r >= 0)) L.fail(v, kp, "expected a radius >= 0 m; got " + fmt_number(r));
      return r;
    };
    p.radius = radius("radius_bottom");
    p.radius_top = radius("radius_top");
    if (!(p.radius > 0 || p.radius_top > 0))
      L.fail(body, bp, "expected radius_bottom > 0 or radius_top > 0; got both 0");
    p.length = len("length");
  } else if (kind == "capsule") {
    L.check_map(body, bp, {"radius", "length"}, "capsule");
    p.kind = geo::PrimitiveKind::Capsule;
    p.radius = len("radius");
    p.length = len("length");
  } else if (kind == "ellipsoid") {
    L.check_map(body, bp, {"radii"}, "ellipsoid");
    p.kind = geo::PrimitiveKind::Ellipsoid;
    p.radii = lens("radii");
  } else if (kind == "torus") {
    L.check_map(body, bp, {"major_radius", "minor_radius"}, "torus");
    p.kind = geo::PrimitiveKind::Torus;
    p.major_radius = len("major_radius");
    p.minor_radius = len("minor_radius");
    if (!(p.minor_radius < p.major_radius))
      L.fail(L.find(body, "minor_radius"), child_path(bp, "minor_radius"),
             "expected minor_radius < major_radius (a ring torus); got " + fmt_number(p.minor_radius) +
                 " >= " + fmt_number(p.major_radius));
  } else if (kind == "slab") {
    L.check_map(body, bp, {"thickness"}, "slab");
    p.kind = geo::PrimitiveKind::Slab;
    p.thickness = len("thickness");
  } else if (kind == "infinite_cylinder") {
    L.check_map(body, bp, {"radius"}, "infinite_cylinder");
    p.kind = geo::PrimitiveKind::InfiniteCylinder;
    p.radius = len("radius");
  } else {  // mesh
    L.check_map(body, bp, {"file", "scale", "split"}, "mesh");
    p.kind = geo::PrimitiveKind::Mesh;
    p.mesh_file = L.string(L.require(body, "file", bp, "an OBJ or STL file path"), child_path(bp, "file"),
                           "an OBJ or STL file path");
    if (YAML::Node s = L.find(body, "scale"); s.IsDefined())
      p.mesh_scale = L.positive(s, child_path(bp, "scale"), "a scale");
    if (YAML::Node s = L.find(body, "split"); s.IsDefined()) {
      const std::string split = L.string(s, child_path(bp, "split"), "convex or none");
      if (split != "convex" && split != "none") L.fail_got(s, child_path(bp, "split"), "convex or none");
      p.mesh_split_convex = split == "convex";
    }
  }
}

}  // namespace

geo::CsgNode read_csg(const YamlReader& L, const YAML::Node& n, const std::string& path) {
  static const std::vector<std::string> primitives = {"sphere",    "box",   "cylinder",  "cone", "capsule",
                                                      "ellipsoid", "torus", "halfspace", "slab", "infinite_cylinder",
                                                      "mesh"};
  static const std::vector<std::string> ops = {"union", "intersection", "difference", "complement"};
  std::vector<std::string> allowed = primitives;
  allowed.insert(allowed.end(), ops.begin(), ops.end());
  allowed.insert(allowed.end(), {"name", "position", "orientation"});
  const std::string what = "a geometry node (one of " + join_list(primitives) + ", " + join_list(ops) + ")";
  if (!n.IsMap()) L.fail_got(n, path, what);
  L.check_map(n, path, allowed, "a geometry node");

  geo::CsgNode node;
  node.where = L.locate(n, path);
  std::string kind;
  YAML::Node body;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (k == "name" || k == "position" || k == "orientation") continue;
    if (!kind.empty())
      L.fail(it->first, child_path(path, k),
             "expected one shape or operation per node; got both '" + kind + "' and '" + k + "' (wrap them in union)");
    kind = k;
    body = it->second;
  }
  if (kind.empty()) L.fail(n, path, "expected " + what + "; got none");
  if (YAML::Node nm = L.find(n, "name"); nm.IsDefined())
    node.name = L.string(nm, child_path(path, "name"), "a cell name");
  const std::string bp = child_path(path, kind);
  const bool is_op = std::find(ops.begin(), ops.end(), kind) != ops.end();
  if (is_op) {
    for (const char* k : {"position", "orientation"})
      if (YAML::Node x = L.find(n, k); x.IsDefined())
        L.fail(
            x, child_path(path, k),
            std::string("expected '") + k + "' only on primitives (place the children instead); got it on a " + kind);
    if (kind == "complement") {
      node.op = geo::CsgNode::Op::Complement;
      node.children.push_back(read_csg(L, body, bp));
      return node;
    }
    node.op = kind == "union"          ? geo::CsgNode::Op::Union
              : kind == "intersection" ? geo::CsgNode::Op::Intersection
                                       : geo::CsgNode::Op::Difference;
    const size_t min_children = kind == "difference" ? 2 : 1;
    if (!body.IsSequence() || body.size() < min_children)
      L.fail_got(body, bp, "a list of at least " + std::to_string(min_children) + " geometry nodes");
    for (size_t i = 0; i < body.size(); ++i) node.children.push_back(read_csg(L, body[i], index_path(bp, i)));
    return node;
  }
  node.op = geo::CsgNode::Op::Primitive;
  geo::Primitive& p = node.primitive;
  if (YAML::Node x = L.find(n, "position"); x.IsDefined())
    p.pose.position = L.vec3(x, child_path(path, "position"), "a position [x, y, z] in m");
  if (YAML::Node x = L.find(n, "orientation"); x.IsDefined())
    p.pose.rotation = L.orientation(x, child_path(path, "orientation"));
  read_primitive(L, kind, body, bp, p);
  return node;
}

}  // namespace vcsim::io
