// The closed-form dispatch of the interference query: see closed_form_pairs.h for the table of pairs.
#include "geometry/closed_form_pairs.h"

#include <cmath>
#include <vector>

#include "geometry/convex_mesh.h"
#include "geometry/exact_interference.h"
#include "geometry/mesh_clip.h"
#include "geometry/mesh_intersection.h"
#include "geometry/mesh_prisms.h"
#include "geometry/primitive_planes.h"
#include "geometry/line_sets.h"
#include "geometry/unreachable_sides.h"

namespace vcsim::geo {
namespace {

// A primitive placed in the query frame (world orientation, origin at the overlap).
struct Placed {
  const CellPrimitive* prim = nullptr;
  Pose pose;  // primitive frame -> query frame
  Vec3 axis() const { return pose.rotation * Vec3::UnitZ(); }
};

// Both cells split into what the closed forms know.
struct PairParts {
  std::vector<Plane> planes;
  std::vector<Placed> solids;  // spheres, cylinders, cones, capsules, ellipsoids, tori, meshes
  std::vector<Placed> holes;   // complemented spheres
  std::vector<Placed> rods;    // infinite cylinders, or their complements
};

bool is_solid(PrimitiveKind k) {
  switch (k) {
    case PrimitiveKind::Sphere: case PrimitiveKind::Cylinder: case PrimitiveKind::Cone: case PrimitiveKind::Capsule:
    case PrimitiveKind::Ellipsoid: case PrimitiveKind::Torus: case PrimitiveKind::Mesh: return true;
    default: return false;
  }
}

std::optional<PairParts> split(const CellPrimitives& A, const Pose& pose_a, const CellPrimitives& B,
                               const Pose& pose_b, const Vec3& origin) {
  PairParts parts;
  for (int side = 0; side < 2; ++side) {  // (A and B may be the same cell at two poses)
    const CellPrimitives& cell = side == 0 ? A : B;
    const Pose& pose = side == 0 ? pose_a : pose_b;
    CellPrimitives planar;
    for (const CellPrimitive& cp : cell) {
      const Pose world = pose.compose(cp.primitive.pose);
      const Placed placed{&cp, Pose{world.position - origin, world.rotation}};
      const PrimitiveKind k = cp.primitive.kind;
      if (k == PrimitiveKind::InfiniteCylinder) parts.rods.push_back(placed);
      else if (k == PrimitiveKind::Sphere && cp.complement) parts.holes.push_back(placed);
      else if (is_solid(k) && !cp.complement) parts.solids.push_back(placed);
      else if (is_solid(k)) return std::nullopt;  // other complemented solids: the column engine
      else planar.push_back(cp);
    }
    const auto p = planar_cell_planes(planar, pose, origin);
    if (!p) return std::nullopt;
    parts.planes.insert(parts.planes.end(), p->begin(), p->end());
  }
  return parts;
}

bool is_mesh(const Placed& p) { return p.prim->primitive.kind == PrimitiveKind::Mesh; }

// The overlap box's 6 faces and up to 16 facets: clipping by them costs less than intersecting two surfaces
// (benchmarks/README.md, "Two meshes").
constexpr std::size_t kFewFacets = 22;

// Signed distance of a point to a plane (> 0 outside).
double outside(const Plane& pl, const Vec3& x) { return pl.n.dot(x) - pl.d; }

// One solid clipped by every plane; rule: the sliced closed forms' (geometry/disc_slices.h).
RawMoments solid_planes_moments(const Placed& s, const std::vector<Plane>& planes,
                                const SliceRule& rule = kFineSlices) {
  const Primitive& p = s.prim->primitive;
  const Vec3& c = s.pose.position;
  switch (p.kind) {
    case PrimitiveKind::Cylinder:
      return frustum_planes_moments(c, s.axis(), p.radius, p.radius, p.length, planes, rule);
    case PrimitiveKind::Cone:
      return frustum_planes_moments(c, s.axis(), p.radius, p.radius_top, p.length, planes, rule);
    case PrimitiveKind::Capsule: return capsule_planes_moments(c, s.axis(), p.radius, p.length, planes, rule);
    case PrimitiveKind::Ellipsoid:
      return ellipsoid_planes_moments(c, s.pose.rotation.toRotationMatrix(), p.radii, planes, rule);
    case PrimitiveKind::Torus: return torus_planes_moments(c, s.axis(), p.major_radius, p.minor_radius, planes, rule);
    case PrimitiveKind::Mesh: return mesh_planes_moments(*s.prim->mesh, s.pose, planes);
    default: return {};
  }
}

// A ball (centre c, radius R, with complemented spheres `holes`) clipped by every plane (ball_planes_moments);
// nothing when a hole can reach the region.
std::optional<RawMoments> sphere_planes_moments(const Vec3& centre, double R, const std::vector<Plane>& planes,
                                                const std::vector<Placed>& holes) {
  if (holes.empty()) return ball_planes_moments(centre, R, planes);
  const Plane* deepest = nullptr;
  double deepest_delta = -R;
  for (const Plane& pl : planes) {
    const double delta = outside(pl, centre);
    if (delta >= R) return RawMoments{};  // the plane misses the ball: empty
    if (delta > -R && delta > deepest_delta) deepest_delta = delta, deepest = &pl;
  }
  const double rim = std::sqrt(std::max(R * R - deepest_delta * deepest_delta, 0.0));
  // A hole is ignorable when it lies wholly outside one of the planes, or when its part inside the deepest plane
  // cannot meet the ball's cap there: both caps are less than a hemisphere and sit in cylinders along the plane's
  // normal whose radii are the rims (a tippe-top's ball minus its stem sphere).
  for (const Placed& h : holes) {
    const Vec3& c = h.pose.position;
    const double r = h.prim->primitive.radius;
    bool clear = false;
    for (const Plane& pl : planes) clear = clear || outside(pl, c) >= r;
    if (!clear && deepest && outside(*deepest, centre) > 0) {
      const double delta = outside(*deepest, c);
      const Vec3 off = c - centre;
      const double apart = (off - deepest->n * deepest->n.dot(off)).norm();
      clear = delta > 0 && apart >= rim + std::sqrt(std::max(r * r - delta * delta, 0.0));
    }
    if (!clear) return std::nullopt;
  }
  return ball_planes_moments(centre, R, planes);
}

// The lens of two balls: the cap of each beyond their radical plane (both empty when they are apart, the smaller
// ball when one holds the other).
RawMoments lens_moments(const Vec3& c1, double R1, const Vec3& c2, double R2) {
  const Vec3 d = c2 - c1;
  const double D = d.norm();
  if (D >= R1 + R2) return {};
  if (D <= std::abs(R1 - R2)) {
    const Vec3& c = R1 <= R2 ? c1 : c2;
    const double R = std::min(R1, R2);
    return sphere_cap_moments(c, R, Plane{Vec3::UnitZ(), c.z() + 2 * R});
  }
  const Vec3 u = d / D;
  const double at = u.dot(c1) + (D * D + R1 * R1 - R2 * R2) / (2 * D);  // the radical plane u·x = at
  RawMoments m = sphere_cap_moments(c1, R1, Plane{-u, -at});
  m += sphere_cap_moments(c2, R2, Plane{u, at});
  return m;
}

// Every plane holds the ball (c, R) whole: true; one misses it: *empty = true. Else (a plane cuts it) false.
bool planes_clear_of_ball(const std::vector<Plane>& planes, const Vec3& c, double R, bool* empty) {
  bool clear = true;
  for (const Plane& pl : planes) {
    const double delta = outside(pl, c);
    if (delta >= R) *empty = true;
    if (delta > -R) clear = false;
  }
  return clear;
}

// A ball against a finite cylinder or a capsule where only the side (or, for a capsule, one end's half ball alone)
// meets it, every plane clear: the ball inside the infinite cylinder, or the lens with the end's ball.
std::optional<RawMoments> sphere_rod_side_moments(const Placed& ball, const Placed& rod,
                                                  const std::vector<Plane>& planes) {
  const Vec3& c = ball.pose.position;
  const double R = ball.prim->primitive.radius;
  const Primitive& p = rod.prim->primitive;
  const Vec3 a = rod.axis();
  const double t = a.dot(c - rod.pose.position), half = 0.5 * p.length;
  bool empty = false;
  if (!planes_clear_of_ball(planes, c, R, &empty)) return empty ? std::optional<RawMoments>(RawMoments{}) : std::nullopt;
  if (std::abs(t) + R <= half)
    return sphere_cylinder_moments(c, R, rod.pose.position, a, p.radius, /*outside=*/false);
  if (std::abs(t) - R >= half) {
    if (p.kind == PrimitiveKind::Cylinder) return RawMoments{};  // beyond the end face
    // Beyond one end plane of a capsule, where the capsule is that end's ball.
    return lens_moments(c, R, rod.pose.position + (t > 0 ? half : -half) * a, p.radius);
  }
  return std::nullopt;  // across an end plane: the column engine
}

// The pair's closed form as its cells stand, if any.
std::optional<RawMoments> direct_moments(const CellPrimitives& A, const Pose& pose_a, const CellPrimitives& B,
                                         const Pose& pose_b, const Vec3& origin, const Vec3& lo, const Vec3& hi,
                                         double tolerance, const MeshPairCache* warm, MeshPairCache* refresh) {
  const auto parts = split(A, pose_a, B, pose_b, origin);
  if (!parts) return std::nullopt;
  const auto& [planes, solids, holes, rods] = *parts;
  const auto is_sphere = [](const Placed& s) { return s.prim->primitive.kind == PrimitiveKind::Sphere; };
  if (!rods.empty()) {
    // A ball against one infinite cylinder (a grooved block), every plane clear of the ball or one missing it.
    if (solids.size() != 1 || !is_sphere(solids[0]) || rods.size() != 1 || !holes.empty()) return std::nullopt;
    const Vec3& c = solids[0].pose.position;
    const double R = solids[0].prim->primitive.radius;
    bool empty = false;
    if (!planes_clear_of_ball(planes, c, R, &empty)) return empty ? std::optional<RawMoments>(RawMoments{}) : std::nullopt;
    const Placed& rod = rods[0];
    return sphere_cylinder_moments(c, R, rod.pose.position, rod.axis(), rod.prim->primitive.radius,
                                   rod.prim->complement);
  }
  if (solids.empty()) {
    for (const Placed& h : holes) {
      bool clear = false;
      for (const Plane& pl : planes) clear = clear || outside(pl, h.pose.position) >= h.prim->primitive.radius;
      if (!clear) return std::nullopt;
    }
    return convex_polyhedron_moments(planes, lo, hi);
  }
  if (solids.size() == 1) {
    const Placed& s = solids[0];
    if (is_sphere(s)) return sphere_planes_moments(s.pose.position, s.prim->primitive.radius, planes, holes);
    if (!holes.empty()) return std::nullopt;
    return solid_planes_moments(s, planes);
  }
  if (solids.size() == 2 && holes.empty() && planes.empty() && is_mesh(solids[0]) && is_mesh(solids[1])) {
    // Two meshes. A convex one with few facets near the overlap (a slab, a box) is cheapest as planes clipping the
    // other; otherwise both surfaces are intersected (geometry/mesh_intersection.h).
    const int fewer = solids[1].prim->mesh->triangles.size() < solids[0].prim->mesh->triangles.size() ? 1 : 0;
    for (int k : {fewer, 1 - fewer}) {
      if (!solids[k].prim->mesh->convex) continue;
      const std::vector<Plane> facets = convex_mesh_planes_in_box(*solids[k].prim->mesh, solids[k].pose, lo, hi);
      if (facets.size() <= kFewFacets) return solid_planes_moments(solids[1 - k], facets);
    }
    // The pair's cache, if any, is checked against these two meshes (in this order) before use.
    return mesh_mesh_moments(*solids[0].prim->mesh, solids[0].pose, *solids[1].prim->mesh, solids[1].pose, nullptr,
                             warm, refresh);
  }
  if (solids.size() == 2 && holes.empty()) {
    // A convex mesh is the intersection of its facets' half-spaces: near the overlap box, of the few facets there.
    // When both are, the one with fewer triangles gives the planes (a 12-triangle slab, not the rock on it).
    auto convex = [](const Placed& p) { return p.prim->primitive.kind == PrimitiveKind::Mesh && p.prim->mesh->convex; };
    const bool swap = convex(solids[0]) && convex(solids[1]) &&
                      solids[1].prim->mesh->triangles.size() < solids[0].prim->mesh->triangles.size();
    for (int j = 0; j < 2; ++j) {
      const int k = swap ? 1 - j : j;
      const Placed& mesh = solids[k];
      if (!convex(mesh)) continue;
      std::vector<Plane> all = planes;
      const std::vector<Plane> facets = convex_mesh_planes_in_box(*mesh.prim->mesh, mesh.pose, lo, hi);
      all.insert(all.end(), facets.begin(), facets.end());
      const Placed& other = solids[1 - k];
      if (other.prim->primitive.kind == PrimitiveKind::Sphere)
        return ball_planes_moments(other.pose.position, other.prim->primitive.radius, all);
      return solid_planes_moments(other, all);
    }
    // A solid against a mesh that is not convex: signed prisms of the mesh's triangles (geometry/mesh_prisms.h), each
    // clip at the query's tolerance (tens of clips a query). Not the ball: it takes one rule per interval where the
    // others take two, and one coarse rule left 2.6e-4 of it.
    const SliceRule rule = slice_rule(tolerance);
    for (int k = 0; k < 2; ++k) {
      if (!is_mesh(solids[k]) || is_mesh(solids[1 - k])) continue;
      const Placed& other = solids[1 - k];
      const lines::Placed support_form =
          lines::place(*other.prim, other.pose.compose(other.prim->primitive.pose.inverse()), Pose{});
      ClippableSolid solid{[&](const Vec3& v) { return lines::support(support_form, v); },
                           [&](const Vec3& v) { return lines::support_point(support_form, v); },
                           [&](const std::vector<Plane>& clip) {
                             return is_sphere(other)
                                        ? ball_planes_moments(other.pose.position, other.prim->primitive.radius, clip)
                                        : solid_planes_moments(other, clip, rule);
                           }};
      if (is_sphere(other)) solid.ball_centre = other.pose.position, solid.ball_radius = other.prim->primitive.radius;
      if (other.prim->primitive.kind == PrimitiveKind::Torus) {
        const Primitive& t = other.prim->primitive;
        solid.ball_centre = other.pose.position, solid.ball_radius = t.major_radius + t.minor_radius;
      }
      return mesh_prism_moments(*solids[k].prim->mesh, solids[k].pose, lo, hi, planes, solid);
    }
    const Placed *x = &solids[0], *y = &solids[1];
    if (!is_sphere(*x)) std::swap(x, y);
    if (!is_sphere(*x)) return std::nullopt;
    const double R = x->prim->primitive.radius;
    const PrimitiveKind ky = y->prim->primitive.kind;
    if (ky == PrimitiveKind::Sphere) {
      // Two balls: their lens, when every plane holds it (tested on a ball around the lens).
      const Vec3 c1 = x->pose.position, c2 = y->pose.position;
      const double R2 = y->prim->primitive.radius, D = (c2 - c1).norm();
      if (D >= R + R2) return RawMoments{};
      const double small = std::min(R, R2);
      Vec3 centre = R <= R2 ? c1 : c2;
      double radius = small;
      if (D > std::abs(R - R2)) {
        const Vec3 u = (c2 - c1) / D;
        const double x0 = (D * D + R * R - R2 * R2) / (2 * D);
        const double rim = std::sqrt(std::max(R * R - x0 * x0, 0.0));
        centre = c1 + x0 * u;
        radius = std::sqrt(rim * rim + std::pow(std::max(R - x0, R2 - (D - x0)), 2));
      }
      bool empty = false;
      const bool clear = planes_clear_of_ball(planes, centre, radius, &empty);
      if (empty) return RawMoments{};
      if (clear) return lens_moments(c1, R, c2, R2);
      // Planes cut the lens (a ball on a capsule's cap, two caps): on each side of the radical plane the lens is one
      // ball's part (a point there inside that ball is inside the other), so each side is a ball clipped by planes.
      if (D <= std::abs(R - R2)) return ball_planes_moments(centre, small, planes);
      const Vec3 u = (c2 - c1) / D;
      const double at = u.dot(c1) + (D * D + R * R - R2 * R2) / (2 * D);  // the radical plane u·x = at
      std::vector<Plane> side1 = planes, side2 = planes;
      side1.push_back(Plane{-u, -at}), side2.push_back(Plane{u, at});
      RawMoments m = ball_planes_moments(c1, R, side1);
      m += ball_planes_moments(c2, R2, side2);
      return m;
    }
    if (ky == PrimitiveKind::Cylinder || ky == PrimitiveKind::Capsule) return sphere_rod_side_moments(*x, *y, planes);
  }
  return std::nullopt;
}

}  // namespace

std::optional<RawMoments> closed_form_moments(const CellPrimitives& A, const Pose& pose_a, const CellPrimitives& B,
                                              const Pose& pose_b, const Vec3& origin, const Vec3& lo,
                                              const Vec3& hi, double tolerance, const MeshPairCache* warm,
                                              MeshPairCache* refresh) {
  if (auto m = direct_moments(A, pose_a, B, pose_b, origin, lo, hi, tolerance, warm, refresh)) return m;
  // A cylinder's or cone's side the other cell cannot reach is no face of the pair: without it, its end planes may
  // leave a closed form (geometry/unreachable_sides.h). The overlap box still bounds the same intersection.
  if (const auto a = without_unreachable_sides(A, pose_a, B, pose_b))
    if (auto m = direct_moments(*a, pose_a, B, pose_b, origin, lo, hi, tolerance, nullptr, nullptr)) return m;
  if (const auto b = without_unreachable_sides(B, pose_b, A, pose_a))
    return direct_moments(A, pose_a, *b, pose_b, origin, lo, hi, tolerance, nullptr, nullptr);
  return std::nullopt;
}

}  // namespace vcsim::geo
