#include "geometry/point_contact_geometry.h"

#include <cmath>
#include <stdexcept>

namespace vcsim::geo {
namespace {

using K = PrimitiveKind;

const char* kind_name(K kind) {
  switch (kind) {
    case K::Sphere: return "sphere";
    case K::Box: return "box";
    case K::Cylinder: return "cylinder";
    case K::Cone: return "cone";
    case K::Capsule: return "capsule";
    case K::Ellipsoid: return "ellipsoid";
    case K::Torus: return "torus";
    case K::HalfSpace: return "half_space";
    case K::Slab: return "slab";
    case K::InfiniteCylinder: return "infinite_cylinder";
    case K::Mesh: return "mesh";
  }
  return "unknown";
}

bool is(const PointShape& s, K kind, bool complement = false) {
  return s.primitive.kind == kind && s.complement == complement;
}

// The geometry with body i = the "moving" shape (sphere or ellipsoid) and body j = the other.
// Each helper returns the normal from j toward i and p_a on i's undeformed surface.
PointContactGeometry sphere_halfspace(const Vec3& c, double R, const Pose& plane) {
  // Half-space z <= 0 in its frame: outward normal +z, surface through the origin (eqs 3.1–3.2).
  const Vec3 n = plane.rotation * Vec3::UnitZ();
  PointContactGeometry g;
  g.normal = n;
  g.point = c - R * n;
  g.x = (g.point - plane.position).dot(n);
  return g;
}

PointContactGeometry sphere_sphere(const Vec3& ci, double Ri, const Vec3& cj, double Rj) {
  const Vec3 d = ci - cj;
  const double D = d.norm();
  if (!(D > 0)) throw std::invalid_argument("point contact: coincident sphere centres, normal undefined");
  PointContactGeometry g;
  g.normal = d / D;
  g.point = ci - Ri * g.normal;
  g.x = D - Ri - Rj;
  return g;
}

PointContactGeometry sphere_cylinder(const Vec3& c, double R, const Pose& cyl, double r, bool inside) {
  // eqs A.12–A.15: p_cs from the axis, its component perpendicular to the axis a.
  const Vec3 a = cyl.rotation * Vec3::UnitZ();
  const Vec3 pcs = c - cyl.position;
  const Vec3 perp = pcs - a * a.dot(pcs);
  const double rho = perp.norm();
  if (!(rho > 0)) throw std::invalid_argument("point contact: sphere centre on the cylinder axis, normal undefined");
  PointContactGeometry g;
  // Inside a concave cylinder the wall pushes the sphere back toward the axis (A.14, r < 0 branch).
  g.normal = inside ? Vec3(-perp / rho) : Vec3(perp / rho);
  g.point = c - R * g.normal;
  g.x = inside ? r - rho - R : rho - R - r;  // A.15 with the thesis's signed r = −r for the inside case
  return g;
}

PointContactGeometry ellipsoid_halfspace(const Pose& ell, const Vec3& radii, const Pose& plane) {
  const Vec3 n = plane.rotation * Vec3::UnitZ();
  // Deepest point: the support point of the ellipsoid in direction −n. In the ellipsoid frame, with
  // D = diag(radii) and u = −R^T n, the support point is D² u / |D u|.
  const Vec3 u = -(ell.rotation.conjugate() * n);
  const Vec3 Du = radii.cwiseProduct(u);
  const Vec3 local = radii.cwiseProduct(Du) / Du.norm();
  PointContactGeometry g;
  g.normal = n;
  g.point = ell.apply(local);
  g.x = (g.point - plane.position).dot(n);
  return g;
}

PointContactGeometry oriented(const PointShape& si, const Pose& bi, const PointShape& sj, const Pose& bj) {
  const Pose pi = bi.compose(si.primitive.pose), pj = bj.compose(sj.primitive.pose);
  const Primitive& a = si.primitive;
  const Primitive& b = sj.primitive;
  if (is(si, K::Sphere) && is(sj, K::Sphere)) return sphere_sphere(pi.position, a.radius, pj.position, b.radius);
  if (is(si, K::Sphere) && is(sj, K::HalfSpace)) return sphere_halfspace(pi.position, a.radius, pj);
  if (is(si, K::Sphere) && sj.primitive.kind == K::InfiniteCylinder)
    return sphere_cylinder(pi.position, a.radius, pj, b.radius, sj.complement);
  if (is(si, K::Ellipsoid) && is(sj, K::HalfSpace)) return ellipsoid_halfspace(pi, a.radii, pj);
  throw std::invalid_argument("unsupported");
}

bool supported_oriented(const PointShape& si, const PointShape& sj) {
  return (is(si, K::Sphere) && (is(sj, K::Sphere) || is(sj, K::HalfSpace) ||
                                 sj.primitive.kind == K::InfiniteCylinder)) ||
         (is(si, K::Ellipsoid) && is(sj, K::HalfSpace));
}

}  // namespace

bool point_pair_supported(const PointShape& a, const PointShape& b, std::string* why) {
  if (supported_oriented(a, b) || supported_oriented(b, a)) return true;
  if (why)
    *why = std::string("the point model handles sphere-sphere, sphere-half_space, sphere with an infinite cylinder ") +
           "(inside its complement or outside it) and ellipsoid-half_space; got " +
           (a.complement ? "complement of " : "") + kind_name(a.primitive.kind) + " and " +
           (b.complement ? "complement of " : "") + kind_name(b.primitive.kind);
  return false;
}

PointContactGeometry point_contact_geometry(const PointShape& si, const Pose& bi, const PointShape& sj,
                                            const Pose& bj) {
  std::string why;
  if (supported_oriented(si, sj)) return oriented(si, bi, sj, bj);
  if (supported_oriented(sj, si)) {
    // Swap the roles: the normal must still point from j toward i.
    PointContactGeometry g = oriented(sj, bj, si, bi);
    g.normal = -g.normal;
    return g;
  }
  point_pair_supported(si, sj, &why);
  throw std::invalid_argument(why);
}

}  // namespace vcsim::geo
