// Checks shared by the geometry tests (Catch assertions on top of tests/geometry_support.h).
#pragma once
#include <catch2/catch.hpp>

#include "tests/geometry_support.h"

namespace geometry_support {

// V relative, the centroid relative to V^(1/3) and J relative (Frobenius) within tol; printed.
inline void check_moments(const MomentsReference& q, const MomentsReference& r, double tol, const char* what) {
  INFO(what);
  const double dV = std::abs(q.V - r.V) / r.V, dc = (q.c - r.c).norm() / std::cbrt(r.V),
               dJ = (q.J - r.J).norm() / r.J.norm();
  std::printf("%s: V %.3e, V err %.2e, centroid %.2e of V^(1/3), J %.2e\n", what, r.V, dV, dc, dJ);
  CHECK(dV < tol);
  CHECK(dc < tol);
  CHECK(dJ < tol);
}

// b (attitude qb) lowered onto a from where V reaches 1e-8 m³, 1000 × 1 µm: V strictly increasing and its third
// differences below 1e-2 of the first (printed as `what`).
inline void check_smooth_lowering(const char* what, const Cell& a, const Pose& pa, const Cell& b, const Quat& qb,
                                  const Vec3& at) {
  const double hi = height_for_volume(a, pa, b, qb, at, 1e-8, -0.3, 0.4, 50);
  const std::vector<double> V = lowered_volumes(a, pa, b, qb, at, hi, 1001, 1e-6);
  const Smoothness sm = third_differences(V);
  std::printf("%s: V %.3e .. %.3e, %d non-increasing steps, max |d3V| / dV = %.3e\n", what, V[0], V.back(),
              sm.non_increasing, sm.worst);
  CHECK(sm.non_increasing == 0);
  CHECK(sm.worst < 0.01);
}

}  // namespace geometry_support
