// The torus sweep (geometry/torus_sweep.h): a ring torus against cells with no closed form, through the public
// query, against references computed independently:
//  - Sandia's doughnut on its cone, coaxial: Pappus's closed form (tests/doughnut_closed_form.h);
//  - a torus against a tilted half-space, forced through the sweep: the torus–plane closed form
//    (geometry/primitive_planes.h, a different method: meridian discs clipped by the plane's line in closed form);
//  - a torus against a ball at random attitudes: the column engine at tolerance 1e-6 (its own error is ~1e-5).
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "geometry/torus_sweep.h"
#include "tests/doughnut_closed_form.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

Primitive torus(double R, double r) {
  Primitive p;
  p.kind = PrimitiveKind::Torus;
  p.major_radius = R;
  p.minor_radius = r;
  return p;
}

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
