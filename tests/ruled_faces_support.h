// The ruled faces' function called directly (geometry/ruled_faces.h), for the tests of its modes: a decline cannot hide
// behind the query's fallbacks.
#pragma once
#include <optional>
#include <vector>

#include "geometry/ruled_faces.h"
#include "tests/geometry_support.h"

namespace geometry_support {

inline CellPrimitives prims_of(const std::vector<Primitive>& ps) {
  CellPrimitives out;
  for (const Primitive& p : ps) out.push_back(CellPrimitive{p, false, nullptr});
  return out;
}

// The moments of a ∩ b with the frame's z along `normal` and its origin at `at`; nothing for an empty answer or a
// decline. lines: the rulings evaluated.
inline std::optional<MomentsReference> ruled(const std::vector<Primitive>& a, const Pose& pa,
                                             const std::vector<Primitive>& b, const Pose& pb, const Vec3& at,
                                             const Vec3& normal, double tol, long* lines = nullptr) {
  const Pose frame{at, Quat::FromTwoVectors(Vec3::UnitZ(), normal.normalized())};
  long n = 0;
  const auto m = ruled_faces_moments(prims_of(a), pa, prims_of(b), pb, frame, tol, n);
  if (lines) *lines = n;
  if (!m || !(m->m0 > 0)) return std::nullopt;
  Vec3 c;
  Mat3 J;
  centroid_and_inertia(*m, c, J);
  const Mat3 R = frame.rotation.toRotationMatrix();
  MomentsReference r;
  r.V = m->m0, r.c = frame.apply(c), r.J = R * J * R.transpose();
  return r;
}

}  // namespace geometry_support
