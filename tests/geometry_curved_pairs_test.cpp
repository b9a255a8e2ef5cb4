// Curved pairs with closed forms (issue 16): two balls (their lens) and a ball against a cylinder's or a capsule's
// side, through the public query, against references computed here independently.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "geometry/column_integration.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

// The lens of balls (0, R1) and (D e_z, R2) by slices across the z axis: the slice at z is a disc of radius²
// min(R1² − z², R2² − (z − D)²), so A(z) = π r², ∫x² over the slice = π r⁴/4. Composite 20-point Gauss–Legendre
// on 400 pieces each side of the radical plane, with t² maps at the poles (where r² is linear in z, so the
// integrand is a polynomial and the rule exact on each piece up to rounding).
struct LensReference {
  double V = 0, zc = 0, Jzz = 0, Jxx = 0;
};
LensReference lens_by_slices(double R1, double R2, double D) {
  // 20-point Gauss–Legendre nodes and weights by Newton's method on P_20 (Golub–Welsch would do as well).
  double x[20], w[20];
  for (int i = 0; i < 20; ++i) {
    double z = std::cos(M_PI * (i + 0.75) / 20.5), dp = 0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = z;
      for (int n = 2; n <= 20; ++n) {
        const double p2 = ((2 * n - 1) * z * p1 - (n - 1) * p0) / n;
        p0 = p1;
        p1 = p2;
      }
      dp = 20 * (z * p1 - p0) / (z * z - 1);
      const double dz = p1 / dp;
      z -= dz;
      if (std::abs(dz) < 1e-16) break;
    }
    x[i] = z;
    w[i] = 2 / ((1 - z * z) * dp * dp);
  }
  const double zr = (D * D + R1 * R1 - R2 * R2) / (2 * D);  // radical plane
  double m0 = 0, m1 = 0, m2 = 0, q = 0;
  auto integrate = [&](double a, double b) {
    const int pieces = 400;
    for (int p = 0; p < pieces; ++p) {
      const double lo = a + (b - a) * p / pieces, hi = a + (b - a) * (p + 1) / pieces;
      for (int k = 0; k < 20; ++k) {
        const double t = x[k], wt = w[k];
        const double z = 0.5 * (lo + hi) + 0.5 * (hi - lo) * t, dz = 0.5 * (hi - lo) * wt;
        const double r2 = std::max(0.0, std::min(R1 * R1 - z * z, R2 * R2 - (z - D) * (z - D)));
        m0 += M_PI * r2 * dz;
        m1 += M_PI * r2 * z * dz;
        m2 += M_PI * r2 * z * z * dz;
        q += M_PI * r2 * r2 / 4 * dz;  // ∫ x² over the slice
      }
    }
  };
  integrate(D - R2, zr);
  integrate(zr, R1);
  LensReference ref;
  ref.V = m0;
  ref.zc = m1 / m0;
  const double czz = m2 - m0 * ref.zc * ref.zc;
  ref.Jzz = 2 * q;        // ∫ (x² + y²)
  ref.Jxx = q + czz;      // ∫ (y² + (z − zc)²)
  return ref;
}

}  // namespace

TEST_CASE("Two balls: the lens against slices across the line of centres", "[geometry][exact][curved]") {
  const Cell a = make_cell({sphere(0.1)}), b = make_cell({sphere(0.05)});
  // Depths from 1 µm (a resting contact between stiff balls) to a deep overlap; one ball holding the other.
  for (const double depth : {1e-6, 1e-4, 2.5e-3, 0.03, 0.09}) {
    const double D = 0.15 - depth;
    const LensReference ref = lens_by_slices(0.1, 0.05, D);
    // Turned and moved far from the origin: the query's frame must carry it.
    const Quat q = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
    const Vec3 at(100, -40, 3);
    const Interference x = interference(a, Pose{at, Quat::Identity()}, b, Pose{at + q * Vec3(0, 0, D), q});
    REQUIRE(x.overlap);
    INFO("depth " << depth << " V " << x.volume << " ref " << ref.V);
    // The slice reference is exact to ~1e-14 of V (polynomial integrand per piece); the closed form's caps are
    // polynomials in h evaluated directly. But the poses 100 m out hold the depth only to a few ulps of 100 m
    // (1.4e-14 m each), and V ∝ depth²: that input rounding is allowed on top of 1e-9.
    const double input = 2 * 4 * std::numeric_limits<double>::epsilon() * at.norm() / depth;
    CHECK(std::abs(x.volume / ref.V - 1) < 1e-9 + input);
    const Vec3 centroid_ref = at + q * Vec3(0, 0, ref.zc);
    CHECK((x.centroid - centroid_ref).norm() < 1e-9 * std::cbrt(ref.V) + 1e-12);
    const Mat3 R = q.toRotationMatrix();
    const Mat3 J = R.transpose() * x.inertia * R;
    CHECK(std::abs(J(2, 2) / ref.Jzz - 1) < 1e-8);
    CHECK(std::abs(J(0, 0) / ref.Jxx - 1) < 1e-8);
    CHECK(std::abs(J(0, 1)) < 1e-8 * ref.Jzz);
  }
  // One ball wholly inside the other: the smaller ball.
  const Interference inside = interference(a, Pose{}, b, Pose{Vec3(0.02, 0, 0), Quat::Identity()});
  CHECK(std::abs(inside.volume / (4.0 / 3 * M_PI * std::pow(0.05, 3)) - 1) < 1e-12);
  CHECK_FALSE(interference(a, Pose{}, b, Pose{Vec3(0.1501, 0, 0), Quat::Identity()}).overlap);
}

TEST_CASE("A ball against a cylinder's and a capsule's side, and a capsule's end, against the column engine",
          "[geometry][exact][curved]") {
  const Cell ball = make_cell({sphere(0.03)});
  QueryOptions column;
  column.closed_forms = false;
  column.tolerance = 1e-6;  // the column engine's reference: V error ~1e-6 at this tolerance (docs/geometry.md)
  for (const PrimitiveKind kind : {PrimitiveKind::Cylinder, PrimitiveKind::Capsule}) {
    const Cell body = make_cell({rod(kind, 0.05, 0.2)});
    const Quat q = Quat(Eigen::AngleAxisd(1.1, Vec3(0.3, -1, 0.5).normalized()));
    const Pose body_pose{Vec3(3, 2, 1), q};
    // The ball against the side (axial offset 0.04: clear of the end planes at ±0.1), at three depths; and, for
    // the capsule, beyond an end plane against its half ball.
    std::vector<Vec3> centres = {Vec3(0.08 - 1e-5, 0, 0.04), Vec3(0, 0.08 - 1e-3, -0.04), Vec3(0.06, 0.01, 0.02)};
    if (kind == PrimitiveKind::Capsule) centres.push_back(Vec3(0, 0, 0.1) + Vec3(0.3, 0.2, 1).normalized() * (0.08 - 2e-3));
    for (const Vec3& local : centres) {
      const Pose ball_pose{body_pose.apply(local), Quat::Identity()};
      const Interference x = interference(ball, ball_pose, body, body_pose);
      const Interference ref = interference(ball, ball_pose, body, body_pose, column);
      REQUIRE(x.overlap);
      REQUIRE(ref.overlap);
      INFO(primitive_kind_name(kind) << " at " << local.transpose() << ": V " << x.volume << " ref " << ref.volume);
      CHECK(std::abs(x.volume / ref.volume - 1) < 2e-5);  // the reference's own error (tol 1e-6) with margin
      CHECK((x.centroid - ref.centroid).norm() < 2e-5 * std::cbrt(ref.volume));
      CHECK((x.inertia - ref.inertia).norm() < 1e-4 * ref.inertia.norm());
      CHECK(x.columns == 0);  // answered by the closed form
    }
  }
}
