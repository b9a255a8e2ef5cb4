// The definitions of tests/ruled_faces_support.h.
#include "tests/ruled_faces_support.h"

namespace geometry_support {

CellPrimitives prims_of(const std::vector<Primitive>& ps) {
  CellPrimitives out;
  for (const Primitive& p : ps) out.push_back(CellPrimitive{p, false, nullptr});
  return out;
}

std::optional<MomentsReference> ruled(const std::vector<Primitive>& a, const Pose& pa, const std::vector<Primitive>& b,
                                      const Pose& pb, const Vec3& at, const Vec3& normal, double tol, long* lines) {
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
