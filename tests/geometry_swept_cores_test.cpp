// geometry/swept_cores.h: the proof that a ring torus and a ball, capsule or torus are apart. Expected values are
// closed forms of the distance between their cores (a circle, a point, a segment) and, at random poses, a brute-force
// distance over 20 000 points of the circle; the column engine must agree wherever the proof says "apart".
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>

#include "geometry/cell_impl.h"
#include "geometry/swept_cores.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

const double R = 0.04, r = 0.012;  // the rings of benchmarks/scenes/ring_on_ring.yaml

bool apart(const Cell& a, const Pose& pa, const Cell& b, const Pose& pb) {
  return swept_cores_apart(a.impl->prims, pa, b.impl->prims, pb);
}

}  // namespace

TEST_CASE("Swept cores: two rings side by side, interlocked, and a ball or a rod through the hole", "[geometry][swept]") {
  const Cell ring = make_cell({torus(R, r)});
  SECTION("side by side in one plane: apart exactly when the centres are more than 2 (R + r) apart") {
    for (double d : {1e-7, 1e-5, 1e-3}) {
      CHECK(apart(ring, Pose{}, ring, Pose{Vec3(2 * (R + r) + d, 0, 0), Quat::Identity()}));
      const Pose touching{Vec3(2 * (R + r) - d, 0, 0), Quat::Identity()};
      CHECK_FALSE(apart(ring, Pose{}, ring, touching));
      if (d >= 1e-5) CHECK(interference(ring, Pose{}, ring, touching).overlap);  // the engine sees the overlap
    }
  }
  SECTION("interlocked at right angles: the cores' distance is |z + 2R|, 2r + the gap (benchmarks/scenes/ring_on_ring.yaml)") {
    const Pose fixed{Vec3::Zero(), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()))};
    const Quat hanging(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
    for (double gap : {2e-3, 1e-3, 1e-4, 1e-6, -1e-6, -1e-4}) {
      const Pose p{Vec3(0, 0, -2 * R + 2 * r + gap), hanging};
      CHECK(apart(ring, p, ring, fixed) == (gap > 0));
      if (gap > 0 || gap <= -1e-4) CHECK(interference(ring, p, ring, fixed).overlap == (gap < 0));
    }
  }
  SECTION("a ball on the axis, a ball at the outer equator, a capsule through the hole") {
    const double rb = 0.035;  // r + rb > R: it can touch the ring from the axis
    const Cell ball = make_cell({sphere(rb)});
    // On the axis at height h: the distance to the circle is sqrt(R² + h²), the same from every point of it, the
    // proof's worst case: it needs a gap of ~2πR / 20 000 (13 µm) there (geometry/swept_cores.h).
    const double h_touch = std::sqrt((r + rb) * (r + rb) - R * R);
    CHECK(apart(ring, Pose{}, ball, Pose{Vec3(0, 0, h_touch + 1e-4), Quat::Identity()}));
    CHECK_FALSE(apart(ring, Pose{}, ball, Pose{Vec3(0, 0, h_touch - 1e-6), Quat::Identity()}));
    CHECK(apart(ball, Pose{Vec3(R + r + rb + 1e-6, 0, 0), Quat::Identity()}, ring, Pose{}));
    CHECK_FALSE(apart(ball, Pose{Vec3(R + r + rb - 1e-6, 0, 0), Quat::Identity()}, ring, Pose{}));
    // A rod along the axis through the hole: the distance is R from every point, apart when R > r + its radius.
    const Cell thin = make_cell({rod(PrimitiveKind::Capsule, R - r - 1e-4, 0.2)});
    const Cell thick = make_cell({rod(PrimitiveKind::Capsule, R - r + 1e-6, 0.2)});
    CHECK(apart(ring, Pose{}, thin, Pose{}));
    CHECK_FALSE(apart(ring, Pose{}, thick, Pose{}));
    // Not a ball, a capsule or a ring torus on both sides: no proof.
    CHECK_FALSE(apart(ring, Pose{}, make_cell({box(Vec3(0.01, 0.01, 0.01))}), Pose{Vec3(1, 0, 0), Quat::Identity()}));
  }
}

TEST_CASE("Swept cores at random poses: apart only where the column engine finds nothing, and wherever clearly apart",
          "[geometry][swept]") {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  const Cell ring = make_cell({torus(R, r)});
  const std::pair<const char*, Primitive> others[] = {
      {"torus", torus(R, r)}, {"ball", sphere(0.02)}, {"capsule", rod(PrimitiveKind::Capsule, 0.008, 0.06)}};
  for (const auto& [name, prim] : others) {
    const Cell other = make_cell({prim});
    int proven = 0, clear = 0, engine_checked = 0;
    for (int t = 0; t < 150; ++t) {
      const Pose pa{Vec3::Zero(), random_rotation(rng)};
      const Pose pb{Vec3(0.12 * (unit(rng) - 0.5), 0.12 * (unit(rng) - 0.5), 0.12 * (unit(rng) - 0.5)),
                    random_rotation(rng)};
      // Brute force: the least distance from 20 000 points of the ring's circle to the other core, minus the radii.
      const Vec3 axis = pa.rotation * Vec3::UnitZ(), e1 = axis.unitOrthogonal(), e2 = axis.cross(e1);
      double least = 1e300;
      for (int k = 0; k < 20000; ++k) {
        const double t_k = 2 * M_PI * k / 20000;
        const Vec3 x = R * (std::cos(t_k) * e1 + std::sin(t_k) * e2);
        const Vec3 d = pb.rotation.inverse() * (x - pb.position);
        double dist;
        if (prim.kind == PrimitiveKind::Sphere) dist = d.norm();
        else if (prim.kind == PrimitiveKind::Capsule)
          dist = (d - std::clamp(d.z(), -0.5 * prim.length, 0.5 * prim.length) * Vec3::UnitZ()).norm();
        else dist = std::hypot(std::hypot(d.x(), d.y()) - R, d.z());
        least = std::min(least, dist);
      }
      const double gap = least - r - (prim.kind == PrimitiveKind::Torus ? r : prim.radius);
      const bool is_apart = apart(ring, pa, other, pb);
      proven += is_apart;
      // The brute force's own error: the circle's points are 2πR / 20 000 = 1.3e-5 m apart, so the least distance is
      // within 6.3e-6 of the true one.
      if (gap > 1e-5) {
        CHECK(is_apart);
        ++clear;
      }
      if (gap < 0) CHECK_FALSE(is_apart);
      if (is_apart && gap < 2e-3 && engine_checked < 15) {  // a near miss: the engine must find nothing either
        ++engine_checked;
        CHECK_FALSE(interference(ring, pa, other, pb, column_engine(1e-3)).overlap);
      }
    }
    std::printf("%s: %d of 150 poses proven apart (%d clearly apart by the brute force), %d near misses checked against "
                "the column engine\n", name, proven, clear, engine_checked);
    CHECK(engine_checked > 0);
  }
}
