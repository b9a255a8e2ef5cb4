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

// The public query at its default tolerance (1e-3) served without the column engine (no lattice), its V within 1e-3
// of exact chords on a 2000² grid (~1e-5 of V on such pairs) and its centroid and inertia within 1e-3 of the column
// engine at 1e-6: for poses the column engine used to take.
inline void check_served_without_lattice(const Cell& a, const Pose& pa, const Cell& b, const Pose& pb, const char* what) {
  INFO(what);
  const Interference q = interference(a, pa, b, pb), ref = interference(a, pa, b, pb, column_engine(1e-6));
  REQUIRE(q.overlap);
  CHECK(q.spacing == 0);
  const double exact = chords_volume(a, pa, b, pb, ref, 2000);
  INFO("V " << exact << ", the query " << q.volume / exact - 1);
  CHECK(std::abs(q.volume / exact - 1) < 1e-3);
  check_moments(moments_of(q), moments_of(ref), 1e-3, what);
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
