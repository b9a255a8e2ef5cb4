// The column engine on a thin ring-shaped patch (docs/geometry.md, "Thin patches"): a torus R = 0.05 m, r = 0.015 m
// on a cone of half-angle 10° (Sandia's doughnut, scenarios/validation/sandia_doughnut_cone.yaml) touches along a
// band whose projection along the column axis is an annulus ~0.2 mm wide at radius 35 mm, 30x narrower than
// sqrt(area). Reference: Pappus (the tube's circular segment beyond the cone line, revolved; derived in
// tests/validation_sandia_doughnut_test.cpp, which checks it against a direct integral). Also checked here: the
// closed-form torus intervals against the torus's own closed-form volume, and that the sparse lattice keeps results
// bitwise identical on 1 and 2 threads and invariant under a rigid motion.
#include <catch2/catch.hpp>
#include <tbb/global_control.h>

#include <cmath>
#include <cstdio>

#include "geometry/interference.h"
#include "closed_forms/doughnut_on_cone.h"
#include "tests/geometry_support.h"

using namespace vcsim;
using namespace vcsim::geo;
using namespace geometry_support;

namespace {

using namespace doughnut;
constexpr double kA = kHalfAngle;


Cell torus_cell() {
  Primitive t;
  t.kind = PrimitiveKind::Torus;
  t.major_radius = kR, t.minor_radius = kr;
  return make_cell({t});
}
Cell cone_cell() {  // apex up, base on z = -0.15 in its frame (the scenario places it at z = 0.15)
  Primitive c;
  c.kind = PrimitiveKind::Cone;
  c.radius = 0.3 * std::tan(kA), c.radius_top = 0, c.length = 0.3;
  return make_cell({c});
}

}  // namespace

TEST_CASE("Column engine: a thin ring (torus on a cone) within its tolerance", "[geometry][column][ring]") {
  const Cell torus = torus_cell(), cone = cone_cell();
  const double d = 12.19e-6;  // the scenario's rest depth (k_v V = m g)
  const Pose pt{Vec3(0, 0, centre_height(d)), Quat::Identity()}, pc{Vec3(0, 0, 0.15), Quat::Identity()};
  const double V = ring_volume(d);
  QueryOptions o;
  o.tolerance = 1e-2;  // the loosest tolerance: the cheapest query (~0.5 s)
  o.closed_forms = false;  // the column engine itself (the public query takes the torus sweep for this pair)
  const Interference x = interference(torus, pt, cone, pc, o);
  const double err = x.volume / V - 1;
  std::printf("thin ring, tol 1e-2: V %.6e (Pappus %.6e, error %+.2e), spacing %.3e m, %ld columns\n", x.volume, V,
              err, x.spacing, x.columns);
  // Within the tolerance, and within the ±0.5 % of the Sandia doughnut's resting force (k_v V, issue 10).
  // Before the width rule (spacing from sqrt(area)) this was −0.67.
  CHECK(std::abs(err) < 5e-3);
  // The band is symmetric about the axis: the centroid on it, within 1e-3 V^(1/3) (issue 3's limit).
  CHECK(std::hypot(x.centroid.x(), x.centroid.y()) < 1e-3 * std::cbrt(V));

  SECTION("bitwise identical on 1 and 2 threads (the blocks are summed in a fixed order)") {
    Interference y;
    {
      tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 1);
      y = interference(torus, pt, cone, pc, o);
    }
    Interference z;
    {
      tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 2);
      z = interference(torus, pt, cone, pc, o);
    }
    CHECK(y.volume == z.volume);
    CHECK(y.centroid == z.centroid);
    CHECK(y.inertia == z.inertia);
  }
  SECTION("invariant under a rigid motion: 100 m away and turned about the ring's axis") {
    // (About the axis only: under a general rotation the column axis, seeded from the gradients at the overlap
    // box's centre, comes out nearly in the ring's plane, and V was then 1.7 % low at tol 3e-3 (c = 1.3): docs/geometry.md,
    // "Known column engine defects", normal seed.)
    const Pose move{Vec3(100, -37, 52), Quat(Eigen::AngleAxisd(0.7, Vec3::UnitZ()))};
    const Interference m = interference(torus, move.compose(pt), cone, move.compose(pc), o);
    std::printf("thin ring moved, tol 1e-2: V error %+.2e, centroid moved by %.2e V^(1/3)\n", m.volume / V - 1,
                (m.centroid - move.apply(x.centroid)).norm() / std::cbrt(V));
    CHECK(std::abs(m.volume / V - 1) < 5e-3);
    CHECK((m.centroid - move.apply(x.centroid)).norm() < 1e-3 * std::cbrt(V));
  }
}

TEST_CASE("Column engine: the closed-form torus intervals on a tube cut by a plane", "[geometry][column][ring]") {
  // The torus below the plane z = -h0 of its own frame: the tube's circular segment below a horizontal chord,
  // revolved. The segment is symmetric about rho = R, so Pappus gives V = 2 pi R (r² acos(h0/r) − h0 sqrt(r² − h0²)).
  // The patch is a ring 18 mm wide at radius 50 mm (the width rule applies); the torus and the plane are turned
  // together, so the columns cross the torus in a general direction of its frame. Limit: the tolerance (1e-3).
  const Cell torus = torus_cell();
  const double h0 = 0.012;
  const Quat q(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
  const Pose pt{Vec3(0.001, -0.002, 0.003), q};
  const Pose ph{pt.apply(Vec3(0, 0, -h0)), q};
  const Cell half = make_cell({halfspace()});
  QueryOptions o;
  o.tolerance = 1e-3;
  o.closed_forms = false;  // the column engine itself (the public query takes the torus–plane closed form)
  const Interference x = interference(torus, pt, half, ph, o);
  const double V = 2 * kPi * kR * (kr * kr * std::acos(h0 / kr) - h0 * std::sqrt(kr * kr - h0 * h0));
  std::printf("torus below a plane, tol 1e-3: V %.8e (Pappus %.8e, error %+.2e), spacing %.3e m, %ld columns\n",
              x.volume, V, x.volume / V - 1, x.spacing, x.columns);
  CHECK(std::abs(x.volume / V - 1) < 1e-3);
  // The centroid: on the axis, at the segment's centroid height below the centre, 4 r³ sin³α / (3 (2 A)) ...
  // by symmetry its offset from the axis vanishes: checked within 1e-3 V^(1/3).
  const Vec3 c = pt.apply_inverse(x.centroid);
  CHECK(std::hypot(c.x(), c.y()) < 1e-3 * std::cbrt(V));
}
