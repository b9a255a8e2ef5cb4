// The torus sweep (geometry/torus_sweep.h): a ring torus against cells with no closed form, through the public
// query, against references computed independently:
//  - Sandia's doughnut on its cone, coaxial: Pappus's closed form (closed_forms/doughnut_on_cone.h);
//  - a torus against a tilted half-space, forced through the sweep: the torus–plane closed form
//    (geometry/primitive_planes.h, a different method: meridian discs clipped by the plane's line in closed form);
//  - a torus against a ball at random attitudes: the column engine at tolerance 1e-6 (its own error is ~1e-5);
//  - a torus against ellipsoids: the column engine at 1e-6, refereed by exact chords where they differ, and an
//    ellipsoid's own closed forms where it lies wholly inside the tube.
#include <catch2/catch.hpp>
#include <tbb/global_control.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "geometry/cell_impl.h"
#include "geometry/line_sets.h"
#include "geometry/torus_sweep.h"
#include "closed_forms/doughnut_on_cone.h"
#include "tests/geometry_checks.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

// The scenario's cone: apex up at z = kApex, 0.3 m long, base at z = 0.
Cell sandia_cone() {
  Primitive p;
  p.kind = PrimitiveKind::Cone;
  p.radius = 0.3 * std::tan(doughnut::kHalfAngle);
  p.radius_top = 0;
  p.length = 0.3;
  p.pose.position = Vec3(0, 0, 0.15);
  return make_cell({p});
}

double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

}  // namespace

TEST_CASE("torus sweep: the doughnut on its cone against Pappus's closed form", "[geometry][torus_sweep]") {
  const Cell ring = make_cell({torus(doughnut::kR, doughnut::kr)});
  const Cell cone = sandia_cone();
  for (double tol : {1e-3, 1e-6}) {
    QueryOptions opt;
    opt.tolerance = tol;
    for (double d : {1e-6, 1.2e-5, 1e-4, 1e-3, 5e-3}) {
      const Pose pose{Vec3(0, 0, doughnut::centre_height(d)), Quat::Identity()};
      const auto t0 = std::chrono::steady_clock::now();
      const Interference x = interference(ring, pose, cone, Pose{}, opt);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      const double V = doughnut::ring_volume(d);
      std::printf("tol %g d %g: V %.9e ref %.9e rel %.2e  (%.0f us)\n", tol, d, x.volume, V, rel(x.volume, V), us);
      INFO("tol " << tol << " depth " << d);
      REQUIRE(x.overlap);
      // The requested tolerance, relative to V (the sweep's error falls geometrically with its node count).
      CHECK(rel(x.volume, V) < tol);
      // Symmetry: the centroid on the axis (to the volume's own accuracy times the ring's size).
      CHECK(std::hypot(x.centroid.x(), x.centroid.y()) < tol * doughnut::kR);
    }
  }
}

TEST_CASE("torus sweep: a torus against a tilted half-space agrees with the column engine and the closed form",
          "[geometry][torus_sweep]") {
  // Forced through the sweep (torus_sweep_moments directly); the public query answers this pair in closed form.
  // References: the column engine at tolerance 1e-6 (V, centroid and J; its own error is ~1e-5, docs/geometry.md)
  // and the torus–plane closed form (V only: its J, accumulated about the torus's centre, loses ~5e-5 to
  // cancellation on shallow lenses, measured against both other methods).
  const double R = 0.05, r = 0.015;
  const Cell ring = make_cell({torus(R, r)});
  const Cell ground = make_cell({halfspace()});
  QueryOptions column;
  column.closed_forms = false;
  column.tolerance = 1e-6;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 12; ++trial) {
    const Quat q = random_rotation(rng);
    // The lowest point of the torus at attitude q (its support along −z), then a depth from 1 µm to 2 cm.
    const Vec3 axis = q * Vec3::UnitZ();
    const double sin_tilt = Vec3(axis.x(), axis.y(), 0).norm();
    const double lowest = -(R * sin_tilt + r);
    const double depth = std::pow(10.0, -6 + 4.3 * trial / 11.0);
    const Pose pose{Vec3(0.01, -0.02, -lowest - depth), q};
    const Interference exact = interference(ring, pose, ground, Pose{});
    const Interference ref = interference(ring, pose, ground, Pose{}, column);
    REQUIRE(exact.overlap);
    const Vec3 origin = ref.centroid;
    for (double tol : {1e-3, 1e-6}) {
      const auto m = torus_sweep_moments(ring.impl->prims, pose, ground.impl->prims, Pose{}, origin, tol);
      REQUIRE(m);
      Vec3 c;
      Mat3 J;
      centroid_and_inertia(*m, c, J);
      const double dV = rel(m->m0, ref.volume), dc = c.norm() / std::cbrt(ref.volume),
                   dJ = (J - ref.inertia).norm() / ref.inertia.norm();
      INFO("trial " << trial << " depth " << depth << " tol " << tol);
      std::printf("trial %d depth %.3g tol %g: V %.2e, centroid %.2e of V^(1/3), J %.2e; V vs closed form %.2e\n", trial,
                  depth, tol, dV, dc, dJ, rel(m->m0, exact.volume));
      const double bound = std::max(tol, 5e-5);  // the column engine at 1e-6: up to 3e-5 off at 2 cm deep (trial 11), where the sweep and the closed form agree to 1e-9
      CHECK(dV < bound);
      CHECK(dc < bound);
      CHECK(dJ < bound);
      CHECK(rel(m->m0, exact.volume) < std::max(tol, 2e-6));  // the closed form's V: ~1e-6 at worst, measured
    }
  }
}

TEST_CASE("torus sweep: a torus against a ball agrees with the column engine",
          "[geometry][torus_sweep]") {
  // Curved against curved: a ball pressed into the tube from any side, at the default tolerance. (A box's corner
  // pressed into the tube is answered by the torus–plane closed form; through the sweep it is a known limit,
  // docs/geometry.md.)
  const double R = 0.05, r = 0.015;
  const Cell ring = make_cell({torus(R, r)});
  const Cell ball = make_cell({sphere(0.02)});
  QueryOptions column;
  column.closed_forms = false;
  column.tolerance = 1e-6;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> angle(0, 2 * M_PI), unit(0, 1);
  for (int trial = 0; trial < 8; ++trial) {
    const Cell& other = ball;
    // A point on the tube's surface, and the other body pushed into it along the surface normal.
    const double phi = angle(rng), theta = angle(rng), depth = std::pow(10.0, -5 + 2.5 * unit(rng));
    const Vec3 er(std::cos(phi), std::sin(phi), 0), normal = std::cos(theta) * er + std::sin(theta) * Vec3::UnitZ();
    const Vec3 surface = R * er + r * normal;
    Pose other_pose;
    other_pose.position = surface + (0.02 - depth) * normal;
    const Pose torus_pose{Vec3(0.3, -0.1, 0.2), random_rotation(rng)};
    const Pose moved{torus_pose.apply(other_pose.position), torus_pose.rotation * other_pose.rotation};
    const Interference ref = interference(ring, torus_pose, other, moved, column);
    INFO("trial " << trial << " depth " << depth);
    REQUIRE(ref.overlap);
    // The sweep directly, about the reference's centroid, and through the public query (which takes the sweep).
    const auto m = torus_sweep_moments(ring.impl->prims, torus_pose, other.impl->prims, moved, ref.centroid, 1e-3);
    REQUIRE(m);
    Vec3 c;
    Mat3 J;
    centroid_and_inertia(*m, c, J);
    const double dV = rel(m->m0, ref.volume), dc = c.norm() / std::cbrt(ref.volume),
                 dJ = (J - ref.inertia).norm() / ref.inertia.norm();
    const Interference x = interference(ring, torus_pose, other, moved);
    CHECK(rel(x.volume, m->m0) < 1e-12);
    std::printf("ball depth %.3g: V %.2e, centroid %.2e of V^(1/3), J %.2e\n", depth, dV, dc, dJ);
    CHECK(dV < 1e-3);  // the default tolerance
    CHECK(dc < 1e-3);
    CHECK(dJ < 1e-3);
  }
}

TEST_CASE("torus sweep: balls smaller and larger than the tube, up to a diameter deep, agree with the column engine",
          "[geometry][torus_sweep]") {
  // The sweep's contact bands start where the disc's deepest point enters the other cell. For a ball that point is
  // exact (torus_sweep.cpp, depth_and_height): a ball's section can lie inside the tube's disc away from the point
  // deepest along −q (before: a 20 mm ball 0.99 of its radius into the outer equator was 4.8e-4 low at tolerance
  // 1e-3). Reference: the column engine at tolerance 1e-6 (its own error ≤ 1e-5 here).
  const double R = 0.05, r = 0.015, tolerance = 1e-4;
  const Cell ring = make_cell({torus(R, r)});
  QueryOptions column;
  column.closed_forms = false;
  column.tolerance = 1e-6;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> angle(0, 2 * M_PI), unit(0, 1);
  for (double radius : {0.003, 0.006, 0.02}) {
    const Cell ball = make_cell({sphere(radius)});
    for (int trial = 0; trial < 5; ++trial) {
      // Trial 0: the outer equator, 0.99 of the radius deep; the others: any side, 1e-4 ... 0.99 of the radius deep.
      const double phi = trial == 0 ? 0.0 : angle(rng), theta = trial == 0 ? 0.0 : angle(rng);
      const double depth = radius * (trial == 0 ? 0.99 : std::pow(10.0, -4 + 4 * unit(rng)) * 0.99);
      const Vec3 er(std::cos(phi), std::sin(phi), 0), normal = std::cos(theta) * er + std::sin(theta) * Vec3::UnitZ();
      const Pose ball_pose{R * er + (r + radius - depth) * normal, Quat::Identity()};
      const Interference ref = interference(ring, Pose{}, ball, ball_pose, column);
      INFO("ball radius " << radius << ", trial " << trial << ", depth " << depth / radius << " of the radius");
      REQUIRE(ref.overlap);
      const auto m = torus_sweep_moments(ring.impl->prims, Pose{}, ball.impl->prims, ball_pose, ref.centroid, tolerance);
      REQUIRE(m);
      Vec3 c;
      Mat3 J;
      centroid_and_inertia(*m, c, J);
      CHECK(rel(m->m0, ref.volume) < tolerance);
      CHECK(c.norm() / std::cbrt(ref.volume) < tolerance);
      CHECK((J - ref.inertia).norm() / ref.inertia.norm() < 10 * tolerance);  // J: the column engine's own 1e-5
    }
  }
}

TEST_CASE("torus sweep: declines a ball with its centre in the tube, which the query still serves",
          "[geometry][torus_sweep]") {
  // Measured before these were declined: balls with their centres inside the torus 5-49 % low. The public query then
  // takes the column engine. (An ellipsoid was declined here too until its levels over each disc were exact: the
  // ellipsoid tests below.)
  const double R = 0.05, r = 0.015;
  const Cell ring = make_cell({torus(R, r)});
  struct Case {
    const char* name;
    Cell cell;
    Pose pose;
  };
  const Case cases[] = {
      // A 3 mm ball 5 mm inside the outer equator (wholly inside the torus) and a 20 mm ball with its centre 2 mm
      // inside the top of the tube.
      {"3 mm ball in the tube", make_cell({sphere(0.003)}), Pose{Vec3(R + r - 0.005, 0, 0), Quat::Identity()}},
      {"20 mm ball half in", make_cell({sphere(0.02)}), Pose{Vec3(R, 0, r - 0.002), Quat::Identity()}},
  };
  QueryOptions column;
  column.closed_forms = false;
  column.tolerance = 1e-6;
  for (const Case& k : cases) {
    INFO(k.name);
    CHECK_FALSE(torus_sweep_moments(ring.impl->prims, Pose{}, k.cell.impl->prims, k.pose, Vec3::Zero(), 1e-3));
    // Reference: the whole ball where it lies inside the torus, else the column engine at 1e-6 (2.9e-5 low on the
    // whole ball: its known underestimate for curved pairs, docs/geometry.md).
    const double V = k.name[0] == '3' ? 4.0 / 3 * M_PI * std::pow(0.003, 3)
                                      : interference(ring, Pose{}, k.cell, k.pose, column).volume;
    REQUIRE(V > 0);
    // At tolerance 1e-4: at the default 1e-3 the column engine is 1.9e-3 ... 4.4e-3 low on these.
    QueryOptions fine;
    fine.tolerance = 1e-4;
    CHECK(rel(interference(ring, Pose{}, k.cell, k.pose, fine).volume, V) < 1e-3);
  }
}

namespace {

// Distance of a point from the torus's tube (R, r about the z axis): < 0 inside.
double tube_distance(const Vec3& x, double R, double r) { return std::hypot(std::hypot(x.x(), x.y()) - R, x.z()) - r; }

struct Errors {
  double V = 0, c = 0, J = 0;
};

// The sweep's moments (about `origin`) against a reference volume, centroid and inertia.
Errors errors_of(const RawMoments& m, double V, const Vec3& centroid_from_origin, const Mat3& inertia) {
  Vec3 c;
  Mat3 J;
  centroid_and_inertia(m, c, J);
  return {rel(m.m0, V), (c - centroid_from_origin).norm() / std::cbrt(V), (J - inertia).norm() / inertia.norm()};
}

}  // namespace

TEST_CASE("torus sweep: ellipsoids pressed into the tube at random poses agree with the column engine",
          "[geometry][torus_sweep][ellipsoid]") {
  // Three ellipsoids (semi-axes 3 × 10 × 20, 6 × 6 × 30, 10 × 20 × 30 mm) at 30 random attitudes each, pressed into
  // the 15 mm tube at random surface points by 1e-4 … 2 of their least semi-axis (the ones the sweep declined before:
  // 23-30 of 30 off by 0.1-100 %). Reference: the column engine at tolerance 1e-6 (its own error ~1e-5 on curved
  // pairs, docs/geometry.md). Where it and the sweep differ by more than 1e-3, exact chords along the normal on a
  // 2000² grid (geometry_support::chords_volume, ~1e-6 of V) referee V: the column engine at 1e-6 misses part of some
  // thin lenses in the hole (pose 7 of the 6 × 6 × 30 mm one: 16 % low; the chords agree with the sweep to 1e-4).
  const double R = 0.05, r = 0.015;
  const Cell ring = make_cell({torus(R, r)});
  const QueryOptions column = column_engine(1e-6);
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> angle(0, 2 * M_PI), unit(0, 1);
  for (const Vec3& radii : {Vec3(0.003, 0.010, 0.020), Vec3(0.006, 0.006, 0.030), Vec3(0.010, 0.020, 0.030)}) {
    const Cell ell = make_cell({ellipsoid(radii)});
    int served = 0, declined = 0, off = 0, refereed = 0;
    double worst_V = 0, worst_c = 0, worst_J = 0;
    for (int trial = 0; trial < 30; ++trial) {
      // A point on the tube's surface with its outward normal n; the ellipsoid at a random attitude touching it there
      // from outside (its point farthest along −n on it), then pushed in along −n.
      const double phi = angle(rng), theta = angle(rng), depth = radii.minCoeff() * std::pow(10.0, -4 + 4.3 * unit(rng));
      const Quat att = random_rotation(rng);
      const Pose torus_pose{Vec3(0.3, -0.1, 0.2), random_rotation(rng)};
      const Vec3 er(std::cos(phi), std::sin(phi), 0), n = std::cos(theta) * er + std::sin(theta) * Vec3::UnitZ();
      const Vec3 nl = att.conjugate() * n;  // n in the ellipsoid's frame; its point farthest along −n: −D² nl / |D nl|
      const Vec3 centre =
          R * er + r * n + att * (radii.cwiseAbs2().cwiseProduct(nl) / radii.cwiseProduct(nl).norm()) - depth * n;
      const Pose pose{torus_pose.apply(centre), torus_pose.rotation * att};
      INFO("radii " << radii.transpose() << ", trial " << trial << ", depth " << depth);
      const Interference ref = interference(ring, torus_pose, ell, pose, column);
      REQUIRE(ref.overlap);
      const auto m = torus_sweep_moments(ring.impl->prims, torus_pose, ell.impl->prims, pose, ref.centroid, 1e-3);
      if (!m) {
        // Declined: a sub-panel still changing by 27-141 % of itself (up to 1 % of its band) at the fifth halving (5
        // of these 90), a feature inside it that halving does not resolve. The public query then takes the column
        // engine, at its own tolerance.
        ++declined;
        CHECK(rel(interference(ring, torus_pose, ell, pose).volume, ref.volume) < 1e-3);
        continue;
      }
      ++served;
      Errors e = errors_of(*m, ref.volume, Vec3::Zero(), ref.inertia);
      if (e.V > 1e-3) {
        ++refereed;
        const double chords = chords_volume(ring, torus_pose, ell, pose, ref, 2000);
        std::printf("  trial %d: the column engine %+.2e against exact chords, the sweep %+.2e\n", trial,
                    ref.volume / chords - 1, m->m0 / chords - 1);
        e = {rel(m->m0, chords), 0, 0};  // the column engine's centroid and J are not a reference here
      }
      std::printf("  radii %g %g %g trial %d depth %.3g of the least semi-axis: V %.3e, V %.1e, centroid %.1e, J %.1e\n",
                  radii.x(), radii.y(), radii.z(), trial, depth / radii.minCoeff(), ref.volume, e.V, e.c, e.J);
      off += e.V > 1e-3;
      worst_V = std::max(worst_V, e.V), worst_c = std::max(worst_c, e.c), worst_J = std::max(worst_J, e.J);
      // The public query takes the sweep: the same moments.
      const Interference x = interference(ring, torus_pose, ell, pose);
      CHECK(rel(x.volume, m->m0) < 1e-12);
      // The default tolerance, relative to V. Measured: ≤ 1e-5 in V and centroid, ≤ 4e-5 in J, so the centroid and J
      // are held to 1e-4: a tenth of the tolerance, above the column engine's own ~1e-5.
      CHECK(e.V < 1e-3);
      CHECK(e.c < 1e-4);
      CHECK(e.J < 1e-4);
    }
    std::printf("ellipsoid %g x %g x %g: %d served, %d declined, %d off by more than 1e-3 (%d refereed by exact "
                "chords); worst V %.1e, centroid %.1e, J %.1e\n", radii.x(), radii.y(), radii.z(), served, declined,
                off, refereed, worst_V, worst_c, worst_J);
    CHECK(off == 0);
    // The sweep is for these: most poses must be served (measured: none declined; 2, 3 and 0 of 30 before a band of
    // 1e-29 of V was held to the sweep's V instead of its own).
    CHECK(declined <= 3);
  }
}

TEST_CASE("torus sweep: an ellipsoid wholly inside the tube and one in the hole",
          "[geometry][torus_sweep][ellipsoid]") {
  const double R = 0.05, r = 0.015;
  const Cell ring = make_cell({torus(R, r)});
  // 3 × 10 × 20 mm along e_r, e_z and e_φ, centred 2 mm inside the tube's centre circle: wholly inside (checked on
  // its surface below). Reference: its own closed forms, V = 4/3 π abc, the centroid at its centre and
  // J = V/5 diag(b² + c², a² + c², a² + b²) in its axes. At tolerance 1e-3 and 1e-6.
  {
    const Vec3 radii(0.003, 0.020, 0.010), centre(R - 0.002, 0, 0);
    for (int i = 0; i <= 40; ++i)
      for (int j = 0; j < 80; ++j) {
        const double u = M_PI * i / 40, v = 2 * M_PI * j / 80;
        const Vec3 x = centre + radii.cwiseProduct(Vec3(std::sin(u) * std::cos(v), std::sin(u) * std::sin(v), std::cos(u)));
        REQUIRE(tube_distance(x, R, r) < -1e-3);
      }
    const Cell ell = make_cell({ellipsoid(radii)});
    const Quat turn(Eigen::AngleAxisd(0.4, Vec3(1, -2, 0.5).normalized()));
    const Pose torus_pose{Vec3(0.1, 0.2, -0.3), turn}, pose{torus_pose.apply(centre), turn};
    const double V = 4.0 / 3 * M_PI * radii.prod();
    const Vec3 a2 = radii.cwiseAbs2();
    const Mat3 Rm = turn.toRotationMatrix();
    const Mat3 J = Rm * (V / 5 * Vec3(a2.y() + a2.z(), a2.x() + a2.z(), a2.x() + a2.y())).asDiagonal() * Rm.transpose();
    for (double tol : {1e-3, 1e-6}) {
      const auto m = torus_sweep_moments(ring.impl->prims, torus_pose, ell.impl->prims, pose, pose.position, tol);
      REQUIRE(m);
      const Errors e = errors_of(*m, V, Vec3::Zero(), J);
      std::printf("ellipsoid wholly inside, tolerance %g: V %.1e, centroid %.1e, J %.1e\n", tol, e.V, e.c, e.J);
      CHECK(e.V < tol);
      CHECK(e.c < tol);
      CHECK(e.J < tol);
    }
  }
  // In the hole, across the axis: 10 × 20 × 30 mm with its long axis along x, from x = −22 to 38 mm, 3 mm into the
  // inner equator at φ = 0, then tilted (the sweep's range of φ is then the whole ring). Reference: the column engine
  // at tolerance 1e-6.
  const Cell ell = make_cell({ellipsoid(Vec3(0.030, 0.020, 0.010))});
  for (double tilt : {0.0, 0.3}) {
    const Quat att(Eigen::AngleAxisd(tilt, Vec3(0, 1, 1).normalized()));
    const Pose pose{Vec3(0.008, 0, 0), att};
    const Interference ref = interference(ring, Pose{}, ell, pose, column_engine(1e-6));
    REQUIRE(ref.overlap);
    const auto m = torus_sweep_moments(ring.impl->prims, Pose{}, ell.impl->prims, pose, ref.centroid, 1e-3);
    REQUIRE(m);
    const Errors e = errors_of(*m, ref.volume, Vec3::Zero(), ref.inertia);
    std::printf("ellipsoid in the hole, tilt %g: V %.3e, V %.1e, centroid %.1e, J %.1e\n", tilt, ref.volume, e.V, e.c, e.J);
    CHECK(e.V < 1e-3);
    CHECK(e.c < 1e-4);  // as for the random poses
    CHECK(e.J < 1e-4);
    CHECK(rel(interference(ring, Pose{}, ell, pose).volume, m->m0) < 1e-12);
  }
}

TEST_CASE("torus sweep: a capsule deep across the tube, its cap/side junction inside a band, against exact chords",
          "[geometry][torus_sweep]") {
  // bench_every_pair's capsule (r 15 mm, 80 mm long) against its torus (R 40, r 12 mm), seed 29 pose 3 and seed 41 pose
  // 3, V 2.8e-6 and 3.0e-6 m³. Where the junction of a cap and the side crosses a meridian disc the sections change
  // shape with no break in φ, and the band's fixed 10-node rule (no error estimate) left the centroid 3.9e-3 of
  // V^(1/3) and J 6.7e-3 off at the default 1e-3 (V only 3e-4, so bench_every_pair, which compares V, passed it). A
  // capsule's bands now take the checked Kronrod rule: 2e-5 and 3e-5. Reference: exact chords on a 1000² grid (~1e-5).
  const Primitive capsule = rod(PrimitiveKind::Capsule, 0.015, 0.08);
  const Cell ring = make_cell({torus(0.04, 0.012)});
  const PairPose cases[] = {
      {"seed 29 pose 3", capsule, Quat(0.3534720633947544, -0.69152627855793358, 0.62811475356683477, 0.048174296206010853),
       Vec3(0.014339306361355171, -0.0057223611790700379, 0.045919072898504956),
       Quat(-0.33073995866724604, -0.60944535512180353, -0.67025977374658408, 0.26446034590922196)},
      {"seed 41 pose 3", capsule, Quat(0.1759110923458356, -0.2711535657816766, -0.90653410363810549, 0.27152707101619433),
       Vec3(0.0010274040568401799, -0.010157318041771286, 0.068516682664812839),
       Quat(0.11036550843548537, -0.72301657298816813, 0.096729518399972278, -0.67506287855453218)},
  };
  for (const PairPose& c : cases) {
    const Cell a = make_cell({c.a});
    const Pose pa = c.pose_a(), pb = c.pose_b();
    const Interference q = interference(a, pa, ring, pb);
    INFO(c.name);
    REQUIRE(q.overlap);
    CHECK(q.spacing == 0);  // the sweep, not the column engine
    check_moments(moments_of(q), chords_moments(a, pa, ring, pb, q, 1000), 1e-3, c.name);
  }
}

TEST_CASE("torus sweep: invariant under a rigid motion, identical on 1 and 2 threads", "[geometry][torus_sweep]") {
  // The doughnut at rest on its cone, then both moved 100 m away and turned by a general rotation (the column engine
  // lost 1.7 % of V under such a turn: docs/geometry.md, "Known column engine defects"). The sweep is serial, so
  // the thread count cannot change its bits.
  const Cell ring = make_cell({torus(doughnut::kR, doughnut::kr)});
  const Cell cone = sandia_cone();
  const double d = 1.219e-5;
  const Pose pt{Vec3(0, 0, doughnut::centre_height(d)), Quat::Identity()};
  const Interference x = interference(ring, pt, cone, Pose{});
  std::mt19937 rng(3);
  for (int k = 0; k < 4; ++k) {
    const Pose move{Vec3(100, -37, 52), random_rotation(rng)};
    const Interference m = interference(ring, move.compose(pt), cone, move);
    INFO("motion " << k);
    CHECK(rel(m.volume, doughnut::ring_volume(d)) < 1e-9);  // well inside the 1e-3 tolerance, as at the origin
    CHECK((m.centroid - move.apply(x.centroid)).norm() < 1e-6 * std::cbrt(x.volume));
    const Mat3 R = move.rotation.toRotationMatrix();
    CHECK((m.inertia - R * x.inertia * R.transpose()).norm() < 1e-6 * x.inertia.norm());
  }
  Interference one, two;
  {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 1);
    one = interference(ring, pt, cone, Pose{});
  }
  {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 2);
    two = interference(ring, pt, cone, Pose{});
  }
  CHECK(one.volume == two.volume);
  CHECK(one.centroid == two.centroid);
  CHECK(one.inertia == two.inertia);
}

TEST_CASE("torus sweep: V(d) is smooth, the doughnut lowered 1000 x 10 nm", "[geometry][torus_sweep][smoothness]") {
  // docs/geometry.md's sphere-lowering test for the ring: V strictly increasing and its second differences within
  // 1 % of the first differences of Pappus's (the depth d is normal to the cone; 10 nm steps from 2 µm).
  const Cell ring = make_cell({torus(doughnut::kR, doughnut::kr)});
  const Cell cone = sandia_cone();
  const int n = 1001;
  std::vector<double> V(n), Vx(n);
  for (int k = 0; k < n; ++k) {
    const double d = 2e-6 + k * 1e-8;
    V[k] = interference(ring, Pose{Vec3(0, 0, doughnut::centre_height(d)), Quat::Identity()}, cone, Pose{}).volume;
    Vx[k] = doughnut::ring_volume(d);
  }
  const auto s = geometry_support::smoothness(V, Vx);
  std::printf("doughnut lowered: %d non-increasing steps, max |d2V - exact| / dV = %.3e\n", s.non_increasing, s.worst);
  CHECK(s.non_increasing == 0);
  CHECK(s.worst < 0.01);
}

namespace {

using Vec2 = Eigen::Vector2d;

// Raw moments (V, ∫x, ∫x xᵀ) in a torus's frame of the solid of revolution about z whose meridian section is the lens
// of two discs of radius r centred at (ρ, z) = c1 and c2: V = 2π∫ρ dA, ∫z dV = 2π∫ρz dA, ∫x² dV = ∫y² dV = π∫ρ³ dA,
// ∫z² dV = 2π∫ρz² dA (Pappus's theorems, by nested Gauss–Legendre over the lens: across the line of centres η, along it
// ξ; exact in ξ, smooth in η since the lens's corners stay inside the discs).
MomentsReference coaxial_lens(double r, const Vec2& c1, const Vec2& c2) {
  const double d = (c2 - c1).norm(), eta_max = std::sqrt(r * r - d * d / 4);
  const Vec2 e = (c2 - c1) / d, n(-e.y(), e.x()), m = 0.5 * (c1 + c2);
  std::vector<double> x, w;
  gauss_legendre(48, x, w);
  double V = 0, z1 = 0, rho3 = 0, z2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double eta = eta_max * x[i], half = std::sqrt(r * r - eta * eta) - d / 2;
    for (size_t j = 0; j < x.size(); ++j) {
      const Vec2 p = m + half * x[j] * e + eta * n;  // (ρ, z)
      const double dA = eta_max * w[i] * half * w[j];
      V += 2 * M_PI * p.x() * dA, z1 += 2 * M_PI * p.x() * p.y() * dA;
      rho3 += M_PI * p.x() * p.x() * p.x() * dA, z2 += 2 * M_PI * p.x() * p.y() * p.y() * dA;
    }
  }
  Mat3 m2 = Mat3::Zero();
  m2(0, 0) = m2(1, 1) = rho3, m2(2, 2) = z2;
  return moments_from_raw(V, Vec3(0, 0, z1), m2);
}

}  // namespace

TEST_CASE("torus sweep: two coaxial tori against Pappus's theorems", "[geometry][torus_sweep][torus_pair]") {
  // Two tori with one axis: every meridian plane holds the same lens of two tube discs, so V, the centroid and J are
  // those of that lens revolved (coaxial_lens). Shifted along the axis by δ, or apart in major radius by δ (the same
  // plane), for δ from just over r (the torus's centre circle stays outside the other: the sweep declines where it
  // does not) to nearly 2r (a sliver). At a general pose in the world. Before this, two tori took the column engine.
  const double R = 0.04, r = 0.012;
  const Pose place{Vec3(0.7, -0.2, 0.35), Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, -0.5).normalized()))};
  const Mat3 Rp = place.rotation.toRotationMatrix();
  const Cell a = make_cell({torus(R, r)});
  for (double f : {1.02, 1.3, 1.7, 1.98}) {
    const double delta = f * r;
    for (bool along_axis : {true, false}) {
      const Cell b = make_cell({torus(along_axis ? R : R + delta, r)});
      const Pose pb = place.compose(Pose{along_axis ? Vec3(0, 0, delta) : Vec3::Zero(), Quat::Identity()});
      const MomentsReference local = coaxial_lens(r, Vec2(R, 0), along_axis ? Vec2(R, delta) : Vec2(R + delta, 0));
      const Interference q = interference(a, place, b, pb);
      INFO("delta " << f << " r, " << (along_axis ? "along the axis" : "apart in major radius"));
      REQUIRE(q.overlap);
      CHECK(q.spacing == 0);  // the sweep, not the column engine
      // Measured: within 2.4e-6 in V and 3.3e-6 in J (δ = 1.3 r; 3e-8 and 1e-7 for the sliver), under 1e-9 of V^(1/3)
      // in the centroid: each section is the same lens, integrated by Gauss–Legendre (8 nodes at the default
      // tolerance; 10 gave 2.0e-7 and 2.4e-7) between located breakpoints. Held to 1e-5 (the centroid 1e-6), a
      // hundredth of the default tolerance.
      CHECK(rel(q.volume, local.V) < 1e-5);
      CHECK((q.centroid - place.apply(local.c)).norm() / std::cbrt(local.V) < 1e-6);
      CHECK((q.inertia - Rp * local.J * Rp.transpose()).norm() / local.J.norm() < 1e-5);
    }
  }
}

TEST_CASE("torus sweep: two tori at random poses and sizes agree with exact chords",
          "[geometry][torus_pair][torus_sweep]") {
  // Tori of major radius 20-60 mm and tube 10-70 % of it, at random attitudes, lowered onto one another to V = 1e-10 …
  // 3e-6 m³. Reference: exact chords along the normal on a 1000² grid (chords_moments), independent of the sweep. The
  // column engine at 1e-6 is no reference here: it was 3.9-4.4e-4 high on two of 36 such poses where the chords and
  // the sweep agree to 2e-8.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  int served = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const double Ra = 0.02 + 0.04 * unit(rng), ra = Ra * (0.1 + 0.6 * unit(rng));
    const double Rb = 0.02 + 0.04 * unit(rng), rb = Rb * (0.1 + 0.6 * unit(rng));
    const Cell a = make_cell({torus(Ra, ra)}), b = make_cell({torus(Rb, rb)});
    const Quat qa = random_rotation(rng), qb = random_rotation(rng);
    const Vec3 at(0.05 * (unit(rng) - 0.5), 0.05 * (unit(rng) - 0.5), 0);
    const double target = std::pow(10.0, -10 + 4.5 * unit(rng));
    const Pose pa{Vec3::Zero(), qa}, pb{at + Vec3(0, 0, height_for_volume(a, pa, b, qb, at, target, -0.3, 0.3, 40)), qb};
    const Interference q = interference(a, pa, b, pb);
    INFO("trial " << trial << ": R " << Ra << " / " << Rb << ", r " << ra << " / " << rb);
    REQUIRE(q.overlap);
    const MomentsReference ref = chords_moments(a, pa, b, pb, q, 1000);
    const double eV = rel(q.volume, ref.V), ec = (q.centroid - ref.c).norm() / std::cbrt(ref.V),
                 eJ = (q.inertia - ref.J).norm() / ref.J.norm();
    std::printf("  trial %d: V %.3e, %s, V %.1e, centroid %.1e, J %.1e\n", trial, ref.V,
                q.spacing == 0 ? "the sweep" : "the column engine", eV, ec, eJ);
    if (q.spacing > 0) {  // declined (a tube's centre circle inside the other torus): the column engine's tolerance
      CHECK(eV < 1e-3);
      continue;
    }
    ++served;
    // Measured: within 1.9e-5 in V, 1.7e-5 in the centroid and 2.9e-5 in J (8 nodes across a section at the default
    // tolerance; 10 gave 5.6e-7, 5.1e-7 and 2.1e-6). Held to 1e-4: a tenth of the default tolerance, above the chords'
    // own ~1e-7 at 1000².
    CHECK(eV < 1e-4);
    CHECK(ec < 1e-4);
    CHECK(eJ < 1e-4);
  }
  CHECK(served >= 9);
}

TEST_CASE("torus sweep: two tori lowered 1000 x 1 um, V smooth", "[geometry][torus_pair][torus_sweep][smoothness]") {
  // docs/geometry.md's sphere-lowering test for two tori (a chain link onto another, at generic attitudes): V strictly
  // increasing and its third differences below 1e-2 of the first (a staircase or a kink would be O(1); measured
  // 2.0e-7), served by the sweep all the way down. b's centre over a's tube: V(height) increases from 0.1 m down to 0 (b's centre in a's tube);
  // a bisection from further down would pass b through a's hole.
  const Cell a = make_cell({torus(0.04, 0.012)}), b = make_cell({torus(0.03, 0.008)});
  const Pose pa{Vec3::Zero(), Quat(Eigen::AngleAxisd(0.4, Vec3(1, 0.3, 0).normalized()))};
  const Quat qb(Eigen::AngleAxisd(1.3, Vec3(0.2, 1, 0.5).normalized()));
  const Vec3 at(0.045, 0.01, 0);
  const double hi = height_for_volume(a, pa, b, qb, at, 1e-8, 0.0, 0.1, 50);
  const std::vector<double> V = lowered_volumes(a, pa, b, qb, at, hi, 1001, 1e-6);
  const Smoothness sm = third_differences(V);
  std::printf("two tori lowered: V %.3e .. %.3e, %d non-increasing steps, max |d3V| / dV = %.3e\n", V[0], V.back(),
              sm.non_increasing, sm.worst);
  CHECK(sm.non_increasing == 0);
  CHECK(sm.worst < 0.01);
  CHECK(interference(a, pa, b, Pose{at + Vec3(0, 0, hi - 1e-3), qb}).spacing == 0);  // the deepest pose: the sweep
}

TEST_CASE("torus chord shapes: a diameter's two crossings in closed form, and the chords' own sets at random",
          "[geometry][torus_sweep][torus_pair]") {
  // lines::torus_chord_shape reads a chord's shape (its intervals' count, whether its ends are the segment's) from the
  // quartic's signs alone; torus_chord solves the roots. Closed form: a torus R 0.05, r 0.015 about z, the line along
  // x through its centre crosses the tube on [-0.065, -0.035] and [0.035, 0.065].
  const Cell ring = make_cell({torus(0.05, 0.015)});
  const lines::Placed p = lines::place(ring.impl->prims[0], Pose{}, Pose{});
  auto shape = [&](const Vec3& o, const Vec3& w, double s0, double s1) { return lines::torus_chord_shape(p, o, w, s0, s1); };
  const lines::ChordShape across = shape(Vec3::Zero(), Vec3::UnitX(), -0.1, 0.1);
  CHECK(across.n == 2);
  CHECK(!across.starts_at_s0);
  CHECK(!across.ends_at_s1);
  const lines::ChordShape inside = shape(Vec3::Zero(), Vec3::UnitX(), -0.05, 0.05);  // both ends in the tube
  CHECK(inside.n == 2);
  CHECK(inside.starts_at_s0);
  CHECK(inside.ends_at_s1);
  const lines::ChordShape one = shape(Vec3(0.05, 0, 0), Vec3::UnitZ(), -0.01, 0.02);  // from the tube's centre up
  CHECK(one.n == 1);
  CHECK(one.starts_at_s0);
  CHECK(!one.ends_at_s1);
  CHECK(shape(Vec3(0, 0, 0.016), Vec3::UnitX(), -0.1, 0.1).n == 0);  // above the tube
  // Random segments through the torus's box: the same shape as the roots' own intervals (20 000 of them).
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  int mismatches = 0, hits = 0;
  for (int k = 0; k < 20000; ++k) {
    const Vec3 o(0.07 * u(rng), 0.07 * u(rng), 0.02 * u(rng));
    const Vec3 w = Vec3(u(rng), u(rng), u(rng)).normalized();
    const double s0 = -0.1 * std::abs(u(rng)), s1 = 0.1 * std::abs(u(rng));
    const lines::IntervalList set = lines::torus_chord(p, o, w, s0, s1).set;
    const lines::ChordShape sh = shape(o, w, s0, s1);
    hits += set.n > 0;
    const bool same = sh.n == set.n && (set.n == 0 || (sh.starts_at_s0 == (set.v[0][0] == s0) &&
                                                       sh.ends_at_s1 == (set.v[set.n - 1][1] == s1)));
    mismatches += !same;
  }
  std::printf("torus chord shapes: %d of 20000 segments meet the torus, %d shapes differ from the solved sets\n", hits,
              mismatches);
  CHECK(hits > 2000);
  CHECK(mismatches == 0);
}
