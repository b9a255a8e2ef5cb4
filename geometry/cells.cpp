// CSG normalisation to disjoint cells, validation of primitives, and body-level operations.
#include <cmath>
#include <map>
#include <sstream>

#include "geometry/cell_impl.h"
#include "geometry/convex_pieces.h"
#include "geometry/located_error.h"
#include "geometry/interference.h"
#include "geometry/mesh.h"

namespace vcsim::geo {

const char* primitive_kind_name(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Sphere: return "sphere";
    case PrimitiveKind::Box: return "box";
    case PrimitiveKind::Cylinder: return "cylinder";
    case PrimitiveKind::Cone: return "cone";
    case PrimitiveKind::Capsule: return "capsule";
    case PrimitiveKind::Ellipsoid: return "ellipsoid";
    case PrimitiveKind::Torus: return "torus";
    case PrimitiveKind::HalfSpace: return "halfspace";
    case PrimitiveKind::Slab: return "slab";
    case PrimitiveKind::InfiniteCylinder: return "infinite_cylinder";
    case PrimitiveKind::Mesh: return "mesh";
  }
  return "unknown";
}

namespace {

// One primitive occurrence in disjunctive normal form.
struct Literal {
  const CsgNode* node;
  bool complement;
};
using Conjunction = std::vector<Literal>;
using Dnf = std::vector<Conjunction>;

Dnf product(const Dnf& a, const Dnf& b) {
  Dnf out;
  for (const auto& x : a)
    for (const auto& y : b) {
      Conjunction c = x;
      c.insert(c.end(), y.begin(), y.end());
      out.push_back(std::move(c));
    }
  return out;
}

SourceLocation child_location(const CsgNode& node, const std::string& suffix) {
  SourceLocation w = node.where;
  w.key_path = w.key_path.empty() ? suffix : w.key_path + "." + suffix;
  return w;
}

// Union splits into cells; intersection distributes over unions; A − B = A ∩ ¬B; De Morgan for
// complements of unions and intersections; ¬¬A = A.
Dnf normalise(const CsgNode& node, bool negate) {
  using Op = CsgNode::Op;
  switch (node.op) {
    case Op::Primitive: return Dnf{Conjunction{Literal{&node, negate}}};
    case Op::Complement:
      if (node.children.size() != 1)
        throw GeometryError(node.where, "exactly one node under 'complement', got " +
                                            std::to_string(node.children.size()));
      return normalise(node.children[0], !negate);
    case Op::Union:
    case Op::Intersection: {
      if (node.children.empty())
        throw GeometryError(node.where, std::string("at least one node under '") +
                                            (node.op == Op::Union ? "union" : "intersection") + "'");
      // A union (or a negated intersection) is a disjunction of its (negated) children.
      const bool disjunction = (node.op == Op::Union) != negate;
      Dnf out;
      for (size_t k = 0; k < node.children.size(); ++k) {
        Dnf c = normalise(node.children[k], negate);
        if (disjunction) {
          out.insert(out.end(), c.begin(), c.end());
        } else {
          out = k == 0 ? c : product(out, c);
        }
      }
      return out;
    }
    case Op::Difference: {
      if (node.children.size() < 2)
        throw GeometryError(node.where, "at least two nodes under 'difference' (the first minus the rest), got " +
                                            std::to_string(node.children.size()));
      // A − B1 − ... = A ∩ ¬B1 ∩ ...;  its complement is ¬A ∪ B1 ∪ ...
      if (!negate) {
        Dnf out = normalise(node.children[0], false);
        for (size_t k = 1; k < node.children.size(); ++k) out = product(out, normalise(node.children[k], true));
        return out;
      }
      Dnf out = normalise(node.children[0], true);
      for (size_t k = 1; k < node.children.size(); ++k) {
        Dnf c = normalise(node.children[k], false);
        out.insert(out.end(), c.begin(), c.end());
      }
      return out;
    }
  }
  throw GeometryError(node.where, "a known geometry operation (union, intersection, difference, complement)");
}

void require_positive(const CsgNode& node, const char* key, double value, const char* what = "> 0") {
  if (!(value > 0) || !std::isfinite(value)) {
    std::ostringstream msg;
    msg << "a finite value " << what << ", got " << value;
    throw GeometryError(child_location(node, std::string(primitive_kind_name(node.primitive.kind)) + "." + key),
                        msg.str());
  }
}

void validate_primitive(const CsgNode& node) {
  const Primitive& p = node.primitive;
  switch (p.kind) {
    case PrimitiveKind::Sphere: require_positive(node, "radius", p.radius); return;
    case PrimitiveKind::Box:
      for (int k = 0; k < 3; ++k) require_positive(node, ("size[" + std::to_string(k) + "]").c_str(), p.size[k]);
      return;
    case PrimitiveKind::Cylinder:
      require_positive(node, "radius", p.radius);
      require_positive(node, "length", p.length);
      return;
    case PrimitiveKind::Cone:
      require_positive(node, "length", p.length);
      if (p.radius < 0 || !std::isfinite(p.radius)) require_positive(node, "radius_bottom", p.radius, ">= 0");
      if (p.radius_top < 0 || !std::isfinite(p.radius_top)) require_positive(node, "radius_top", p.radius_top, ">= 0");
      if (p.radius == 0 && p.radius_top == 0)
        throw GeometryError(child_location(node, "cone"), "radius_bottom and radius_top not both 0");
      return;
    case PrimitiveKind::Capsule:
      require_positive(node, "radius", p.radius);
      if (p.length < 0 || !std::isfinite(p.length)) require_positive(node, "length", p.length, ">= 0");
      return;
    case PrimitiveKind::Ellipsoid:
      for (int k = 0; k < 3; ++k) require_positive(node, ("radii[" + std::to_string(k) + "]").c_str(), p.radii[k]);
      return;
    case PrimitiveKind::Torus:
      require_positive(node, "major_radius", p.major_radius);
      require_positive(node, "minor_radius", p.minor_radius);
      if (p.minor_radius >= p.major_radius)
        throw GeometryError(child_location(node, "torus.minor_radius"),
                            "minor_radius < major_radius (" + std::to_string(p.major_radius) + ")");
      return;
    case PrimitiveKind::HalfSpace: return;
    case PrimitiveKind::Slab: require_positive(node, "thickness", p.thickness); return;
    case PrimitiveKind::InfiniteCylinder: require_positive(node, "radius", p.radius); return;
    case PrimitiveKind::Mesh:
      require_positive(node, "scale", p.mesh_scale);
      if (p.mesh_file.empty()) throw GeometryError(child_location(node, "mesh.file"), "a mesh file name");
      return;
  }
  throw GeometryError(node.where, "a known primitive kind (sphere, box, cylinder, cone, capsule, ellipsoid, torus, "
                                  "halfspace, slab, infinite_cylinder, mesh), got kind #" +
                                      std::to_string(static_cast<int>(p.kind)));
}

// Collects the user's names: the nearest named ancestor of each primitive.
void collect_names(const CsgNode& node, const std::string& name, std::map<const CsgNode*, std::string>& out) {
  const std::string n = node.name.empty() ? name : node.name;
  if (node.op == CsgNode::Op::Primitive) out[&node] = n;
  for (const auto& c : node.children) collect_names(c, n, out);
}

// Whether the plane is a face of the box [lo, hi]: an axis direction through the box's side.
bool is_box_face(const Plane& pl, const Vec3& lo, const Vec3& hi) {
  const double eps = 1e-12 * (hi - lo).maxCoeff();
  for (int a = 0; a < 3; ++a) {
    if (std::abs(pl.n[(a + 1) % 3]) > 1e-15 || std::abs(pl.n[(a + 2) % 3]) > 1e-15) continue;
    return pl.n[a] > 0 ? std::abs(pl.d - hi[a]) <= eps : std::abs(pl.d + lo[a]) <= eps;
  }
  return false;
}

// A cell with a mesh marked split: convex becomes one cell per convex piece of the mesh: the cell's other
// primitives, the piece's half-spaces, and the piece's bounding box (it holds the piece, and gives the cell finite
// bounds for the broad phase and the mass properties). Other cells are returned as they are.
std::vector<std::shared_ptr<CellImpl>> split_convex_meshes(const std::shared_ptr<CellImpl>& cell) {
  for (size_t m = 0; m < cell->prims.size(); ++m) {
    const CellPrimitive& mesh = cell->prims[m];
    if (mesh.primitive.kind != PrimitiveKind::Mesh || !mesh.primitive.mesh_split_convex) continue;
    const SourceLocation& where = cell->where[m];
    if (mesh.complement)
      throw GeometryError(where, "split: convex on a solid mesh, but this mesh is subtracted (a complement); "
                                 "split the solid it is subtracted from, or leave this mesh whole (split: none)");
    if (mesh.mesh->convex) continue;  // one piece already, served by its own exact path (geometry/convex_mesh.h)
    std::vector<std::shared_ptr<CellImpl>> out;
    for (const ConvexPiece& piece : convex_pieces(*mesh.mesh, where)) {
      auto part = std::make_shared<CellImpl>(*cell);
      part->prims.erase(part->prims.begin() + m);
      part->where.erase(part->where.begin() + m);
      auto add = [&](const Primitive& p) {
        part->prims.push_back(CellPrimitive{p, false, nullptr});
        part->where.push_back(where);
      };
      for (const Plane& pl : piece.planes) {
        if (is_box_face(pl, piece.lo, piece.hi)) continue;  // the box below has it (fewer planes to clip by)
        Primitive half;
        half.kind = PrimitiveKind::HalfSpace;  // z <= 0 in its frame: the frame's z along n, its origin on the plane
        half.pose = mesh.primitive.pose.compose(Pose{pl.n * pl.d, Quat::FromTwoVectors(Vec3::UnitZ(), pl.n)});
        add(half);
      }
      Primitive box;
      box.kind = PrimitiveKind::Box;
      box.size = piece.hi - piece.lo;
      box.pose = mesh.primitive.pose.compose(Pose{0.5 * (piece.lo + piece.hi), Quat::Identity()});
      add(box);
      // The pieces of a cell with a second split mesh split in turn.
      for (auto& p : split_convex_meshes(part)) out.push_back(std::move(p));
    }
    return out;
  }
  return {cell};
}

bool bounded(const Cell& cell) {
  const Aabb b = world_bounds(cell, Pose{});
  return b.min.allFinite() && b.max.allFinite();
}

}  // namespace

Aabb world_bounds(const Cell& cell, const Pose& body_pose) {
  Vec3 lo, hi;
  cell_bounds_in_frame(cell.impl->prims, body_pose, Pose{}, lo, hi);
  Aabb b;
  b.min = lo, b.max = hi;
  return b;
}

BodyGeometry make_body_geometry(const CsgNode& root, const std::string& base_dir, MeshCache* shared_meshes) {
  const Dnf dnf = normalise(root, false);
  std::map<const CsgNode*, std::string> names;
  collect_names(root, "", names);
  MeshCache own_meshes;
  MeshCache& meshes = shared_meshes ? *shared_meshes : own_meshes;
  BodyGeometry body;
  for (size_t k = 0; k < dnf.size(); ++k) {
    auto impl = std::make_shared<CellImpl>();
    std::string name;
    for (const Literal& lit : dnf[k]) {
      const CsgNode& node = *lit.node;
      validate_primitive(node);
      CellPrimitive cp{node.primitive, lit.complement, nullptr};
      if (node.primitive.kind == PrimitiveKind::Mesh) {
        std::string path = node.primitive.mesh_file;
        if (!path.empty() && path[0] != '/' && !base_dir.empty()) path = base_dir + "/" + path;
        auto& slot = meshes[{path, node.primitive.mesh_scale}];
        if (!slot) slot = load_mesh_level_set(path, node.primitive.mesh_scale, child_location(node, "mesh.file"));
        cp.mesh = slot;
      }
      impl->prims.push_back(cp);
      impl->where.push_back(node.where);
      if (name.empty()) name = names[&node];
    }
    impl->cell_where = dnf[k].empty() ? root.where : dnf[k][0].node->where;
    // Unnamed cells get their index; several cells from one named node get name[k].
    const std::string cell_name = name.empty() ? "cell[" + std::to_string(k) + "]" : name;
    for (auto& piece : split_convex_meshes(impl)) body.cells.push_back(Cell{cell_name, std::move(piece)});
  }
  std::map<std::string, int> count;
  for (const auto& c : body.cells) ++count[c.name];
  std::map<std::string, int> seen;
  for (size_t k = 0; k < body.cells.size(); ++k)
    if (count[body.cells[k].name] > 1) body.cells[k].name += "[" + std::to_string(seen[body.cells[k].name]++) + "]";

  // Empty cells (zero volume), then overlaps. Unbounded cells (grounds) cannot be measured and are
  // only checked against bounded ones.
  QueryOptions check;
  check.tolerance = 1e-2;
  std::vector<double> volume(body.cells.size(), -1);
  for (size_t k = 0; k < body.cells.size(); ++k) {
    const Cell& c = body.cells[k];
    if (!bounded(c)) continue;
    BodyGeometry one;
    one.cells.push_back(c);
    const Aabb b = world_bounds(c, Pose{});
    const double box = (b.max - b.min).prod();
    const bool empty_box = (b.max - b.min).minCoeff() <= 0;
    volume[k] = empty_box ? 0.0 : mass_properties(one, 1.0, check.tolerance).mass;
    if (empty_box || !(volume[k] > 1e-9 * box))
      throw GeometryError(c.impl->cell_where, "a cell with a non-zero volume, but cell '" + c.name +
                                                  "' (an intersection of " + std::to_string(c.impl->prims.size()) +
                                                  " primitives and complements) is empty");
  }
  for (size_t a = 0; a < body.cells.size(); ++a)
    for (size_t b = a + 1; b < body.cells.size(); ++b) {
      if (volume[a] < 0 && volume[b] < 0) continue;
      const Interference x = interference(body.cells[a], Pose{}, body.cells[b], Pose{}, check);
      const double ref = volume[a] < 0 ? volume[b] : volume[b] < 0 ? volume[a] : std::min(volume[a], volume[b]);
      if (x.overlap && x.volume > 1e-6 * ref) {
        std::ostringstream msg;
        msg << "disjoint cells (their overlap would be counted twice), but cells '" << body.cells[a].name << "' and '"
            << body.cells[b].name << "' overlap by " << x.volume << " m^3; subtract one from the other";
        throw GeometryError(body.cells[b].impl->cell_where, msg.str());
      }
    }
  return body;
}

BodyGeometry transformed(const BodyGeometry& geometry, const Pose& offset) {
  const Pose inv = offset.inverse();
  BodyGeometry out;
  for (const Cell& c : geometry.cells) {
    auto impl = std::make_shared<CellImpl>(*c.impl);
    for (auto& p : impl->prims) p.primitive.pose = inv.compose(p.primitive.pose);
    out.cells.push_back(Cell{c.name, impl});
  }
  return out;
}

}  // namespace vcsim::geo
