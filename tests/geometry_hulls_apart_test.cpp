// hulls_apart (geometry/hulls_apart.h): a plane between two cells' hulls proves them apart; it must never be claimed for
// cells that overlap, and it must be found for convex cells a small gap apart whose boxes overlap.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "geometry/cell_impl.h"
#include "geometry/hulls_apart.h"
#include "geometry/interference.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

TEST_CASE("hulls apart: two balls, either side of touching, against their centres' distance", "[geometry][apart]") {
  // Apart exactly when the centres are farther than r1 + r2 = 0.05 m. The search stops at ~1e-9 of the size (0.06 m),
  // so gaps down to 1e-7 m are proven; touching and overlapping never are.
  const Cell a = make_cell({sphere(0.03)}), b = make_cell({sphere(0.02)});
  const Vec3 dir = Vec3(1, -2, 0.5).normalized();
  for (double gap : {1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2}) {
    INFO("gap " << gap);
    CHECK(hulls_apart(a.impl->prims, Pose{}, b.impl->prims, Pose{(0.05 + gap) * dir, Quat::Identity()}));
  }
  for (double depth : {0.0, 1e-9, 1e-6, 1e-3, 0.05}) {
    INFO("depth " << depth);
    CHECK_FALSE(hulls_apart(a.impl->prims, Pose{}, b.impl->prims, Pose{(0.05 - depth) * dir, Quat::Identity()}));
  }
}

TEST_CASE("hulls apart: convex cells at random attitudes, just apart and just overlapping, against the column engine",
          "[geometry][apart]") {
  // Each pose lowers one cell onto the other until the public query finds an overlap (bisection to ~2e-14 m), then
  // looks 10 µm and 1 mm above (apart, and the proof must be found; 1 mm above, the column engine, which never claims
  // an overlap that is not there, finds none) and 10 µm below (no proof may be claimed there).
  Primitive ellipsoid = primitive(PrimitiveKind::Ellipsoid);
  ellipsoid.radii = Vec3(0.04, 0.025, 0.015);
  const std::vector<Primitive> prims = {sphere(0.03),
                                        box(Vec3(0.08, 0.05, 0.03)),
                                        rod(PrimitiveKind::Cylinder, 0.025, 0.1),
                                        rod(PrimitiveKind::Cone, 0.03, 0.08, 0.0),
                                        rod(PrimitiveKind::Cone, 0.03, 0.08, 0.012),
                                        rod(PrimitiveKind::Capsule, 0.015, 0.08),
                                        ellipsoid};
  QueryOptions column;
  column.closed_forms = false;
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  int proven = 0, boxes_overlap = 0;
  for (size_t i = 0; i < prims.size(); ++i)
    for (size_t j = i; j < prims.size(); ++j) {
      const Cell a = make_cell({prims[i]}), b = make_cell({prims[j]});
      for (int t = 0; t < 1; ++t) {
        const Quat qa = random_rotation(rng), qb = random_rotation(rng);
        const Vec3 at(0.03 * (unit(rng) - 0.5), 0.03 * (unit(rng) - 0.5), 0);
        const Pose pa{Vec3::Zero(), qa};
        double lo = -0.3, hi = 0.3;  // b overlaps a at lo, not at hi
        for (int k = 0; k < 45; ++k) {
          const double mid = 0.5 * (lo + hi);
          (interference(a, pa, b, Pose{at + Vec3(0, 0, mid), qb}).overlap ? lo : hi) = mid;
        }
        INFO("pair " << i << "-" << j << ", pose " << t);
        for (double gap : {1e-5, 1e-3}) {
          const Pose pb{at + Vec3(0, 0, hi + gap), qb};
          // The column engine 10 µm above would take seconds (it refines until the gap is empty): 1 mm above only.
          if (gap > 1e-4) REQUIRE_FALSE(interference(a, pa, b, pb, column).overlap);
          const Aabb ba = world_bounds(a, pa), bb = world_bounds(b, pb);
          boxes_overlap += (ba.min.cwiseMax(bb.min).array() < ba.max.cwiseMin(bb.max).array()).all();
          const bool apart = hulls_apart(a.impl->prims, pa, b.impl->prims, pb);
          CHECK(apart);
          proven += apart;
        }
        // At lo the query found a volume (it never finds one that is not there), and 10 µm further in the cells still
        // overlap: the heights at which two convex cells overlap form an interval.
        const Pose in{at + Vec3(0, 0, lo - 1e-5), qb};
        REQUIRE(interference(a, pa, b, Pose{at + Vec3(0, 0, lo), qb}).volume > 0);
        CHECK_FALSE(hulls_apart(a.impl->prims, pa, b.impl->prims, in));
      }
    }
  // Most of these poses are near misses with overlapping boxes: the case the proof is for.
  CHECK(boxes_overlap > 30);
  CHECK(proven == 2 * 28);
}

TEST_CASE("hulls apart: a cell of several primitives, a capsule's cap and a torus", "[geometry][apart]") {
  // A box cut by a ball (a rounded block) 0.1 mm under a ball: the least of the box's and the ball's support bounds the
  // cell's, so the proof holds. A ball resting in a torus's hole is inside the torus's hull: never proven, though apart
  // (the swept cores prove it: geometry/swept_cores.h).
  const Cell rounded = make_cell({box(Vec3(0.1, 0.1, 0.1)), sphere(0.06)});
  const Cell ball = make_cell({sphere(0.01)});
  // The rounded block's top is the box's face z = 0.05 (the ball reaches 0.06 there, beyond it).
  CHECK(hulls_apart(rounded.impl->prims, Pose{}, ball.impl->prims, Pose{Vec3(0, 0, 0.0601), Quat::Identity()}));
  CHECK_FALSE(hulls_apart(rounded.impl->prims, Pose{}, ball.impl->prims, Pose{Vec3(0, 0, 0.0599), Quat::Identity()}));
  // A capsule's cap (a 30 mm ball's upper half) over a 5 mm ball on its axis, 0.1 mm below the flat face: apart, though
  // the ball's lower half holds it (the cap's exact support, not the least of the ball's and the half-space's). Beside
  // the rim, 0.1 mm out from the circle below the plane: apart too; 0.1 mm into either: not.
  const Cell cap = make_cell({sphere(0.03), halfspace(Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(M_PI, Vec3::UnitX()))})});
  const Cell small = make_cell({sphere(0.005)});
  const Vec3 below_rim = Vec3(0.03, 0, 0) + Vec3(1, 0, -1).normalized() * 0.005;  // at the rim's distance 0.005
  for (double gap : {1e-4, -1e-4}) {
    INFO("gap " << gap);
    CHECK(hulls_apart(cap.impl->prims, Pose{}, small.impl->prims, Pose{Vec3(0, 0, -0.005 - gap), Quat::Identity()}) ==
          (gap > 0));
    const Vec3 at = below_rim + gap * Vec3(1, 0, -1).normalized();
    CHECK(hulls_apart(cap.impl->prims, Pose{}, small.impl->prims, Pose{at, Quat::Identity()}) == (gap > 0));
  }
  Primitive ring = primitive(PrimitiveKind::Torus);
  ring.major_radius = 0.05, ring.minor_radius = 0.01;
  const Cell torus = make_cell({ring});
  CHECK_FALSE(hulls_apart(torus.impl->prims, Pose{}, ball.impl->prims, Pose{Vec3::Zero(), Quat::Identity()}));
  CHECK(hulls_apart(torus.impl->prims, Pose{}, ball.impl->prims, Pose{Vec3(0, 0, 0.0201), Quat::Identity()}));
  CHECK_FALSE(hulls_apart(torus.impl->prims, Pose{}, ball.impl->prims, Pose{Vec3(0, 0, 0.0199), Quat::Identity()}));
}

TEST_CASE("polytope apart: a turned box's corners against a ball and a capsule, either side of touching",
          "[geometry][apart]") {
  // A box 0.04 × 0.03 × 0.02 m, given only by its 8 corners, at a random attitude. Apart from a ball exactly when the
  // ball's centre is farther from the box than its radius (the point–box distance, in the box's frame), and from a
  // capsule lying parallel over a face exactly when the gap between the face and its axis exceeds its radius. Gaps
  // down to 1e-8 m (~1e-6 of the size: the search stops near 1e-9) must be proven; touching and overlapping never.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(-1, 1);
  const Vec3 half(0.02, 0.015, 0.01);
  const double r = 0.01;
  for (int t = 0; t < 20; ++t) {
    const Quat q = random_rotation(rng);
    const Vec3 centre(unit(rng) * 0.1, unit(rng) * 0.1, unit(rng) * 0.1);
    std::vector<Vec3> corners;
    for (int c = 0; c < 8; ++c)
      corners.push_back(centre + q * Vec3((c & 1) ? half.x() : -half.x(), (c & 2) ? half.y() : -half.y(),
                                          (c & 4) ? half.z() : -half.z()));
    // A ball towards a random direction from the box (a face, an edge or a corner nearest), at distance r ± gap.
    Vec3 dir(unit(rng), unit(rng), unit(rng));
    dir.normalize();
    const Vec3 nearest = half.cwiseProduct(dir.cwiseSign());                 // a corner, in the box's frame ...
    for (int k = 0; k < 3; ++k)                                              // ... or a face's or an edge's point
      if (std::abs(dir[k]) < 0.3) dir[k] = 0;
    dir.normalize();
    Vec3 base = nearest;
    for (int k = 0; k < 3; ++k)
      if (dir[k] == 0) base[k] = 0.3 * half[k];
    for (const double gap : {1e-8, 1e-6, 1e-3, 0.0, -1e-9, -1e-4}) {
      const Vec3 ball = centre + q * (base + (r + gap) * dir);
      // Independent: the distance from the ball's centre to the box, in the box's frame.
      const Vec3 local = q.inverse() * (ball - centre);
      const double distance = (local.cwiseAbs() - half).cwiseMax(0.0).norm();
      const bool apart = distance > r + 1e-9;
      INFO("pose " << t << ", gap " << gap << ", distance − r " << distance - r);
      CHECK(polytope_apart(
                corners, [&](const Vec3& v) { return v.dot(ball) + r * v.norm(); },
                [&](const Vec3& v) { return Vec3(ball + r * v.normalized()); }) == apart);
    }
    // A capsule (r, segment 0.02 long) parallel to the box's +z face, over its middle.
    for (const double gap : {1e-8, 1e-5, 0.0, -1e-6}) {
      const Vec3 mid = centre + q * Vec3(0.003, -0.002, half.z() + r + gap), axis = q * Vec3(0.6, 0.8, 0);
      const double h = 0.01;
      auto support = [&](const Vec3& v) { return v.dot(mid) + h * std::abs(v.dot(axis)) + r * v.norm(); };
      auto point = [&](const Vec3& v) {
        return Vec3(mid + std::copysign(h, v.dot(axis)) * axis + r * v.normalized());
      };
      INFO("pose " << t << ", capsule gap " << gap);
      CHECK(polytope_apart(corners, support, point) == (gap > 0));
    }
  }
}
