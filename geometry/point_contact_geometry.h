// Penetration depth, point of action and normal for the smooth analytic pairs where the Hertz point
// contact model applies (thesis eqs 3.1–3.2 and App. A.2, A.11–A.15): sphere–sphere, sphere–half-space,
// sphere inside (or outside) an infinite cylinder, ellipsoid–half-space.
#pragma once
#include <string>

#include "geometry/csg.h"
#include "geometry/pose.h"

namespace vcsim::geo {

// One side of a point contact: an analytic primitive placed in its body's frame. `complement` marks
// the region outside the primitive (a concave cylinder wall: the body is Complement(InfiniteCylinder)).
struct PointShape {
  Primitive primitive;
  bool complement = false;
};

struct PointContactGeometry {
  double x = 0;                 // signed separation along n; x < 0 means contact, depth = −x (eq 3.2)
  Vec3 point = Vec3::Zero();    // point of action p_a (world): the deepest point of the sphere/ellipsoid (eq 3.1)
  Vec3 normal = Vec3::UnitZ();  // unit, from body j toward body i
};

// Can the point model handle this pair (in either order)? When not, `why` says what is supported.
bool point_pair_supported(const PointShape& a, const PointShape& b, std::string* why = nullptr);

// Geometry of the pair (i, j) given the body (centre-of-mass) frames' world poses. Throws
// std::invalid_argument for unsupported pairs or degenerate configurations (sphere centre on a
// cylinder axis, coincident sphere centres).
PointContactGeometry point_contact_geometry(const PointShape& shape_i, const Pose& body_i, const PointShape& shape_j,
                                            const Pose& body_j);

}  // namespace vcsim::geo
