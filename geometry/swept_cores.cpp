// Cells as swept spheres around a core, and a proof that two are apart (geometry/swept_cores.h).
#include "geometry/swept_cores.h"

#include <algorithm>
#include <cmath>

namespace vcsim::geo {

namespace {

// A cell's core in the world: a point (ball), a segment (capsule: centre ± half · axis) or a circle (torus: centre,
// axis, ring radius), and the radius swept around it.
struct Core {
  PrimitiveKind kind;
  Vec3 centre, axis;
  double half = 0, ring = 0, radius = 0;
};

bool core_of(const CellPrimitives& cell, const Pose& pose, Core& core) {
  if (cell.size() != 1 || cell[0].complement) return false;
  const Primitive& p = cell[0].primitive;
  const Pose placed = pose.compose(p.pose);
  core.kind = p.kind;
  core.centre = placed.position;
  core.axis = placed.rotation * Vec3::UnitZ();
  switch (p.kind) {
    case PrimitiveKind::Sphere: core.radius = p.radius; return true;
    case PrimitiveKind::Capsule: core.radius = p.radius, core.half = 0.5 * p.length; return true;
    case PrimitiveKind::Torus:
      core.radius = p.minor_radius, core.ring = p.major_radius;
      return p.major_radius > p.minor_radius;  // a ring torus: its core is the circle
    default: return false;
  }
}

// Distance from a point to a core.
double distance_to(const Core& c, const Vec3& x) {
  const Vec3 d = x - c.centre;
  const double along = d.dot(c.axis);
  switch (c.kind) {
    case PrimitiveKind::Sphere: return d.norm();
    case PrimitiveKind::Capsule: {
      const double t = std::clamp(along, -c.half, c.half);
      return (d - t * c.axis).norm();
    }
    default: {  // the circle: in-plane distance to the ring and height above its plane
      const double rho = (d - along * c.axis).norm();
      return std::hypot(rho - c.ring, along);
    }
  }
}

// The circle's point at angle t, in any fixed in-plane basis (e1, e2).
Vec3 on_circle(const Core& c, const Vec3& e1, const Vec3& e2, double t) {
  return c.centre + c.ring * (std::cos(t) * e1 + std::sin(t) * e2);
}

}  // namespace

bool swept_cores_apart(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b, const Pose& pose_b) {
  Core ca, cb;
  if (!core_of(a, pose_a, ca) || !core_of(b, pose_b, cb)) return false;
  if (cb.kind == PrimitiveKind::Torus) std::swap(ca, cb);  // ca: a torus (the circle swept below)
  if (ca.kind != PrimitiveKind::Torus) return false;       // no torus: other paths are exact and cheap
  const double reach = ca.radius + cb.radius;
  // f(t) = distance from the circle's point at angle t to core b: 1-Lipschitz in the arc length, so on an arc of
  // half-width w (radians) f ≥ f(mid) − ring · w. Arcs whose bound exceeds the reach are apart; an arc whose midpoint
  // is within reach is a touch (no proof); others are halved, down to a width where the bound's slack is 1e-9 of the
  // ring, within a budget (no proof past it).
  const Vec3 e1 = ca.axis.unitOrthogonal(), e2 = ca.axis.cross(e1);
  const double floor = 1e-9 * ca.ring;
  struct Arc {
    double mid, half;
  };
  Arc stack[64];
  int n = 0;
  for (int k = 0; k < 16; ++k) stack[n++] = {(k + 0.5) * M_PI / 8, M_PI / 16};
  int evaluations = 0;
  while (n > 0) {
    const Arc arc = stack[--n];
    const double f = distance_to(cb, on_circle(ca, e1, e2, arc.mid));
    if (++evaluations > 20000 || f <= reach) return false;
    if (f - ca.ring * arc.half > reach) continue;  // this arc is apart
    if (ca.ring * arc.half < floor || n + 2 > 64) return false;
    stack[n++] = {arc.mid - 0.5 * arc.half, 0.5 * arc.half};
    stack[n++] = {arc.mid + 0.5 * arc.half, 0.5 * arc.half};
  }
  return true;
}

}  // namespace vcsim::geo
