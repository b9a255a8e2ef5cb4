// The ball mode of the ruled faces (geometry/ruled_faces.h): a ball or an ellipsoid, alone or cut by planes (a
// capsule's cap), against a cell of planes, cylinders and cones, by the flux of a field tangent to the ball through
// the other cell's faces. References, each independent of it:
//  - a ball or an ellipsoid pressed into a box: the query's closed form (the spherical cap, or the ball sliced across
//    the deepest plane, mapped affinely for an ellipsoid; < 1e-9, ≤ 7e-7 sliced);
//  - curved cells at random poses (a cylinder's side and rim, a pointed cone's tip, a frustum): exact chords along the
//    normal on a 1000² grid (`chords_moments`), whose own error there is ~1e-7 (1000² against 4000²);
//  - smoothness: third differences of V along a lowering, O(step²) of the first for a smooth V(h).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tests/geometry_checks.h"
#include "tests/ruled_faces_support.h"

using namespace geometry_support;

namespace {

Primitive capsule(double r, double length) { return rod(PrimitiveKind::Capsule, r, length); }

// A shape placed for a lowering: its attitude, and where it comes down.
struct Placement {
  const char* name;
  Primitive shape;
  Quat attitude;
  Vec3 at;
};

}  // namespace

TEST_CASE("ball mode: a ball and an ellipsoid pressed into a box's face, edge and corner, against the closed forms",
          "[geometry][ruled_faces][ball]") {
  // The box's faces inside the ball carry every moment (the field is tangent to the ball). The reference is the
  // query's own closed form for a ball or an ellipsoid against planes: a different path (caps and slices).
  const Primitive table = box(Vec3(0.2, 0.2, 0.1));
  const Quat tilted(Eigen::AngleAxisd(0.7, Vec3(0.3, 1, 0.2).normalized()));
  const std::vector<Placement> cases = {
      {"ball on the face", sphere(0.02), Quat::Identity(), Vec3(0.01, -0.02, 0)},
      {"ball on an edge", sphere(0.02), Quat::Identity(), Vec3(0.1, 0.03, 0)},
      {"ball on a corner", sphere(0.02), Quat::Identity(), Vec3(0.1, 0.1, 0)},
      {"ellipsoid on the face", ellipsoid(Vec3(0.03, 0.015, 0.01)), tilted, Vec3(0.01, -0.02, 0)},
      {"ellipsoid on an edge", ellipsoid(Vec3(0.03, 0.015, 0.01)), tilted, Vec3(0.1, 0.03, 0)},
  };
  for (const Placement& c : cases) {
    const Cell A = make_cell({table}), B = make_cell({c.shape});
    for (double target : {1e-10, 1e-8, 1e-6}) {
      const double z = height_for_volume(A, Pose{}, B, c.attitude, c.at, target, -0.1, 0.2, 60);
      const Pose pb{c.at + Vec3(0, 0, z), c.attitude};
      const Interference exact = interference(A, Pose{}, B, pb);
      REQUIRE(exact.overlap);
      INFO(c.name << ", V " << target);
      const auto q = ruled({table}, Pose{}, {c.shape}, pb, exact.centroid, Vec3::UnitZ(), 1e-3);
      REQUIRE(q);
      // Tolerance 1e-3 asks for 5e-4 on each moment's estimate; measured ≤ 6.6e-7 in V, 1.5e-6 in the centroid and
      // 7.7e-6 in J (an ellipsoid on the face at 1e-6 m³).
      check_moments(*q, moments_of(exact), 5e-5, c.name);
    }
  }
}

TEST_CASE("ball mode: balls, ellipsoids and capsules' caps against curved cells at random poses, against exact chords",
          "[geometry][ruled_faces][ball]") {
  // Random attitudes of both, V 1e-9 … 1e-6 m³: a cylinder's side and rim, a pointed cone's side and tip, a frustum,
  // a box. The ball mode must serve every pose whose ball centre lies outside the other cell (the field's singular ray
  // would cross the lens otherwise), within the reference's own error.
  struct Case {
    const char* name;
    std::vector<Primitive> cell;
  };
  const std::vector<Case> cells = {
      {"cylinder", {rod(PrimitiveKind::Cylinder, 0.03, 0.1)}},
      {"pointed cone", {rod(PrimitiveKind::Cone, 0.03, 0.08, 0.0)}},
      {"frustum", {rod(PrimitiveKind::Cone, 0.03, 0.06, 0.012)}},
      {"cylinder with a flat", {rod(PrimitiveKind::Cylinder, 0.03, 0.1), box(Vec3(0.05, 1, 1))}},
  };
  Primitive cap = sphere(0.02), cut = halfspace();  // a capsule's cap: the ball's lower half cut off at its centre
  cut.pose.rotation = Quat(0, 1, 0, 0);              // z ≥ 0 kept
  const std::vector<std::pair<const char*, std::vector<Primitive>>> balls = {
      {"ball", {sphere(0.02)}},
      {"ellipsoid", {ellipsoid(Vec3(0.025, 0.012, 0.018))}},
      {"a capsule's cap", {cap, cut}},
  };
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  int served = 0, total = 0;
  for (const Case& c : cells)
    for (const auto& [ball_name, ball] : balls) {
      const Cell A = make_cell(c.cell), B = make_cell(ball);
      for (int trial = 0; trial < 4; ++trial) {
        const Quat qa = random_rotation(rng), qb = random_rotation(rng);
        const Vec3 offset(0.03 * (unit(rng) - 0.5), 0.03 * (unit(rng) - 0.5), 0);
        const double target = std::pow(10.0, -9 + 3 * unit(rng));
        const Pose pa{Vec3::Zero(), qa};
        const double z = height_for_volume(A, pa, B, qb, offset, target, -0.2, 0.2, 50);
        const Pose pb{offset + Vec3(0, 0, z), qb};
        const Interference q = interference(A, pa, B, pb);
        if (!q.overlap) continue;
        ++total;
        INFO(c.name << " and " << ball_name << ", trial " << trial << ", V " << q.volume);
        const auto mine = ruled(c.cell, pa, ball, pb, q.centroid, q.normal_estimate, 1e-3);
        if (!mine) {
          std::printf("%s and %s, trial %d: declined (V %.3e)\n", c.name, ball_name, trial, q.volume);
          continue;
        }
        ++served;
        MomentsReference exact = chords_moments(A, pa, B, pb, q, 1000);
        // Along the query's normal estimate (the area vector's direction since 2026-11-29) one pose's 1000² grid was
        // 2.7e-5 off in V (a cap on a cylinder with a flat); 3000² agreed with the ball mode at 1e-9 to 1.6e-6. Where the
        // first grid disagrees with the answer, a 3000² grid decides.
        if (std::abs(mine->V / exact.V - 1) > 1e-5) exact = chords_moments(A, pa, B, pb, q, 3000);
        const double dV = std::abs(mine->V / exact.V - 1), dc = (mine->c - exact.c).norm() / std::cbrt(exact.V),
                     dJ = (mine->J - exact.J).norm() / exact.J.norm();
        std::printf("%s and %s: V %.3e, V err %.2e, centroid %.2e, J %.2e\n", c.name, ball_name, exact.V, dV, dc, dJ);
        // Asked for 1e-3 (5e-4 on each estimate), the ball mode was within 2.0e-6 in V, 1.5e-6 in the centroid and
        // 3.2e-6 in J on these poses; the chords' grid is good to ~1e-7 in V (1000² against 4000²). Limits: ten times
        // what was measured, still 25 times inside the tolerance.
        CHECK(dV < 2e-5);
        CHECK(dc < 2e-5);
        CHECK(dJ < 5e-5);
      }
    }
  std::printf("ball mode served %d of %d random poses\n", served, total);
  CHECK(served >= total - 2);
}

TEST_CASE("ball mode: a capsule across its cap/side junction against a cone and a cylinder, by its pieces",
          "[geometry][ruled_faces][ball]") {
  // The public query: the capsule's pieces in reach, its side by the ruled faces and its caps by the ball mode, summed
  // (geometry/interference.cpp, capsule_pieces_summed). Lying on a cone's side or a cylinder's rim with the junction
  // inside the contact; against exact chords, and served without a lattice.
  const Primitive caps = capsule(0.012, 0.05);
  const Cell B = make_cell({caps});
  const Quat lying(Eigen::AngleAxisd(M_PI / 2 - 0.25, Vec3::UnitY()));
  const std::vector<Placement> cases = {
      {"cone", rod(PrimitiveKind::Cone, 0.04, 0.1, 0.0), Quat::Identity(), Vec3(0.03, 0.004, 0)},
      {"cylinder's rim", rod(PrimitiveKind::Cylinder, 0.04, 0.06), Quat::Identity(), Vec3(0.045, 0.003, 0)},
      {"cylinder's side", rod(PrimitiveKind::Cylinder, 0.04, 0.2), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX())),
       Vec3(0.025, 0.0, 0)},
  };
  for (const Placement& c : cases) {
    const Cell A = make_cell({c.shape});
    const Pose pa{Vec3::Zero(), c.attitude};
    for (double target : {1e-9, 1e-7}) {
      const double z = height_for_volume(A, pa, B, lying, c.at, target, -0.2, 0.2, 50);
      const Pose pb{c.at + Vec3(0, 0, z), lying};
      const Interference q = interference(A, pa, B, pb);
      INFO(c.name << ", V " << target);
      REQUIRE(q.overlap);
      CHECK(q.spacing == 0);
      const MomentsReference exact = chords_moments(A, pa, B, pb, q, 1000);
      char what[96];
      std::snprintf(what, sizeof what, "capsule across its junction on a %s", c.name);
      // The query at its default tolerance 1e-3 was within 1e-7 in V and 4e-7 in J; the limit is the random poses'.
      check_moments(moments_of(q), exact, 2e-5, what);
    }
  }
}

TEST_CASE("ball mode: a ball whose centre is in the other cell is declined, and the query still answers",
          "[geometry][ruled_faces][ball]") {
  // A ball pressed past its centre into a cone's side: the field's singular ray would cross the lens. The function
  // declines; the query's other paths (the convex lens) answer, within 1e-3 of exact chords.
  const Primitive cone = rod(PrimitiveKind::Cone, 0.04, 0.1, 0.0), ball = sphere(0.01);
  const Cell A = make_cell({cone}), B = make_cell({ball});
  const Pose pb{Vec3(0.012, 0.0, 0.0), Quat::Identity()};  // the cone's radius there is 0.04 · 0.5 = 0.02 > 0.012
  const Interference q = interference(A, Pose{}, B, pb);
  REQUIRE(q.overlap);
  CHECK_FALSE(ruled({cone}, Pose{}, {ball}, pb, q.centroid, q.normal_estimate, 1e-3));
  const MomentsReference exact = chords_moments(A, Pose{}, B, pb, q, 1000);
  check_moments(moments_of(q), exact, 1e-3, "a ball past its centre in a cone (the lens)");
}

TEST_CASE("ball mode: V(h) is smooth, a ball lowered onto a frustum's rim and a capsule across it 1000 x 1 um",
          "[geometry][ruled_faces][ball]") {
  const Cell cone = make_cell({rod(PrimitiveKind::Cone, 0.04, 0.1, 0.015)});
  const Quat tilt(Eigen::AngleAxisd(0.4, Vec3(1, 0.5, 0).normalized()));
  check_smooth_lowering("a ball on a frustum's top rim (ball mode)", cone, Pose{}, make_cell({sphere(0.02)}), tilt,
                        Vec3(0.022, 0.006, 0));
  const Quat lying(Eigen::AngleAxisd(M_PI / 2 - 0.25, Vec3::UnitY()));
  check_smooth_lowering("a capsule across a frustum's side (its pieces)", cone, Pose{},
                        make_cell({capsule(0.012, 0.05)}), lying, Vec3(0.03, 0.004, 0));
}

TEST_CASE("capsule pieces: two balls clipped by a plane through both centres hold half their lens",
          "[geometry][ruled_faces][ball]") {
  // A ball cut by a half-space through its centre (a capsule's cap) against a ball centred on that plane: by symmetry
  // the overlap is half the lens of the two balls, V = π (R1 + R2 − D)² (D² + 2D(R1 + R2) − 3(R1 − R2)²) / (24 D). The query splits the lens at the radical plane into two balls clipped by planes (the
  // sliced closed form, ≤ 7e-7).
  const double R1 = 0.02, R2 = 0.015;
  Primitive keep_low = halfspace();  // z ≤ 0 in its frame: turned so that y ≤ 0 is kept
  keep_low.pose.rotation = Quat(Eigen::AngleAxisd(-M_PI / 2, Vec3::UnitX()));
  const Cell A = make_cell({sphere(R1), keep_low}), B = make_cell({sphere(R2)});
  const Quat turn(Eigen::AngleAxisd(0.8, Vec3(0.2, 0.5, 1).normalized()));
  for (const double D : {0.0349, 0.03, 0.02, 0.008}) {
    const Pose pa{Vec3(0.01, -0.02, 0.03), turn}, pb{pa.apply(Vec3(D, 0, 0)), Quat::Identity()};
    const Interference q = interference(A, pa, B, pb);
    const double V = M_PI * std::pow(R1 + R2 - D, 2) * (D * D + 2 * D * (R1 + R2) - 3 * std::pow(R1 - R2, 2)) / (24 * D);
    INFO("D " << D);
    REQUIRE(q.overlap);
    CHECK(q.spacing == 0);
    CHECK(std::abs(q.volume / V - 1) < 1e-6);
    // Along the centres' line the half lens's centroid is the whole lens's: each ball's cap beyond the radical plane
    // (height h, V = π h² (3R − h) / 3) has its centroid 3 (2R − h)² / (4 (3R − h)) from that ball's centre. Across
    // both the line and the plane's normal it is 0 by symmetry.
    const double x0 = (D * D + R1 * R1 - R2 * R2) / (2 * D), h1 = R1 - x0, h2 = R2 - (D - x0);
    const double v1 = M_PI * h1 * h1 * (3 * R1 - h1) / 3, v2 = M_PI * h2 * h2 * (3 * R2 - h2) / 3;
    const double at1 = 3 * std::pow(2 * R1 - h1, 2) / (4 * (3 * R1 - h1));
    const double at2 = D - 3 * std::pow(2 * R2 - h2, 2) / (4 * (3 * R2 - h2));
    const Vec3 local = pa.rotation.inverse() * (q.centroid - pa.position);
    CHECK(std::abs(local.x() - (v1 * at1 + v2 * at2) / (v1 + v2)) < 1e-6 * std::cbrt(V));
    CHECK(std::abs(local.z()) < 1e-9 * std::cbrt(V));
  }
}

TEST_CASE("capsule pieces: a ball and a capsule on a capsule across their junctions, against exact chords",
          "[geometry][ruled_faces][ball]") {
  // Pairs of pieces: a side against a side (the ruled faces), a cap against a side (the ball mode), a cap against a
  // ball or a cap (two balls clipped by planes). Before, the convex lens took the whole pair at up to 1.2 ms.
  const Cell fixed = make_cell({capsule(0.015, 0.08)});
  const Quat lying(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));  // along x, its caps' centres at x = ±0.04
  const std::vector<Placement> cases = {
      {"a ball over a junction", sphere(0.02), Quat::Identity(), Vec3(0.041, 0.004, 0)},
      {"a capsule end to end", capsule(0.01, 0.05),
       Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ())) * Quat(Eigen::AngleAxisd(M_PI / 2 - 0.3, Vec3::UnitY())),
       Vec3(0.07, 0.012, 0)},
      {"a capsule across a junction", capsule(0.01, 0.05), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX())),
       Vec3(0.038, 0.0, 0)},
  };
  for (const Placement& c : cases) {
    const Cell B = make_cell({c.shape});
    const Pose pa{Vec3::Zero(), lying};
    for (double target : {1e-9, 1e-7}) {
      const double z = height_for_volume(fixed, pa, B, c.attitude, c.at, target, -0.2, 0.2, 50);
      const Pose pb{c.at + Vec3(0, 0, z), c.attitude};
      const Interference q = interference(fixed, pa, B, pb);
      INFO(c.name << ", V " << target);
      REQUIRE(q.overlap);
      CHECK(q.spacing == 0);
      const MomentsReference exact = chords_moments(fixed, pa, B, pb, q, 1000);
      // As the random poses above: 10× what the ball mode measured there, 25× inside the tolerance.
      check_moments(moments_of(q), exact, 2e-5, c.name);
    }
  }
}
