// The contact normal against a half-space (docs/contact-models.md, "Contact normal"): the plane's normal, exactly,
// for any shape on it — where the J_v eigenvector of a wedge-shaped region tilts (T6). Real cells, real queries.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "contact/volumetric_contact.h"
#include "geometry/support_plane.h"
#include "tests/geometry_support.h"

using namespace vcsim;
using namespace geometry_support;

namespace {

contact::BodyKinematics at(const Pose& pose) {
  contact::BodyKinematics k;
  k.pose = pose;
  return k;
}

}  // namespace

TEST_CASE("support plane: a box edge on a half-space gets the plane normal, not the tilted J_v axis",
          "[contact][normal]") {
  // T6 geometry: a 0.2 m cube resting on an edge, tilted by α about it, 1 mm deep, the whole pair turned and moved
  // 100 m away. The plane normal is exact; the J_v axis tilts by φ ≈ α/2 (contact_normal_test.cpp, T6 table).
  const Cell cube = make_cell({box(Vec3(0.2, 0.2, 0.2))});
  const Cell ground = make_cell({halfspace()});
  std::mt19937 rng(7);
  for (const double alpha_deg : {5.0, 20.0, 40.0}) {
    const Pose world{Vec3(100, -40, 70), random_rotation(rng)};
    const double a = alpha_deg * M_PI / 180, depth = 1e-3;
    // Cube rotated by 45° + α about x: its lowest edge at z = −depth.
    const double half_diag = 0.1 * (std::sin(M_PI / 4 + a) + std::cos(M_PI / 4 + a));
    const Pose cube_local{Vec3(0, 0, half_diag - depth), Quat(Eigen::AngleAxisd(M_PI / 4 + a, Vec3::UnitX()))};
    const Pose pi = world.compose(cube_local), pj = world;
    const contact::VolumetricMemory mem;
    const geo::Interference q = geo::interference(cube, pi, ground, pj, {});
    REQUIRE(q.overlap);
    const Vec3 up = world.rotation * Vec3::UnitZ();
    const Vec3 n = contact::volumetric_normal(q, at(pi), at(pj), mem, 0.0);
    CHECK((n - up).norm() < 1e-12);
    // With the roles swapped (ground as body i) the normal still points from j toward i.
    const geo::Interference q2 = geo::interference(ground, pj, cube, pi, {});
    CHECK((contact::volumetric_normal(q2, at(pj), at(pi), mem, 0.0) + up).norm() < 1e-12);
    // The thesis's J_v axis for the same region is tilted (so the rule above is what sets the normal).
    geo::Interference jv = q;
    jv.plane_normal = Vec3::Zero();
    const double tilt = std::acos(std::min(1.0, contact::volumetric_normal(jv, at(pi), at(pj), mem, 0.0).dot(up)));
    INFO("alpha " << alpha_deg << " deg: J_v tilt " << tilt * 180 / M_PI << " deg");
    CHECK(tilt > 0.5 * M_PI / 180);
  }
}

TEST_CASE("support plane: only a lone half-space (or its complement) is a support plane", "[contact][normal]") {
  const Pose p{Vec3(1, 2, 3), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 1, 0).normalized()))};
  const Vec3 up = p.rotation * Vec3::UnitZ();
  CHECK((geo::half_space_normal(make_cell({halfspace()}), p) - up).norm() < 1e-15);
  CHECK(geo::half_space_normal(make_cell({box(Vec3(4, 4, 0.2))}), p).squaredNorm() == 0);
  CHECK(geo::half_space_normal(make_cell({sphere(0.1)}), p).squaredNorm() == 0);
  // A half-space cut by a box (a slab-like cell) is not a plane everywhere.
  CHECK(geo::half_space_normal(make_cell({halfspace(), box(Vec3(1, 1, 1))}), p).squaredNorm() == 0);
  // Two non-plane cells: no support plane, the J_v eigenvector decides.
  CHECK(geo::support_plane_normal(make_cell({sphere(0.1)}), p, make_cell({box(Vec3(1, 1, 1))}), p).squaredNorm() == 0);
}
