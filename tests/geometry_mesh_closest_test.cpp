// The closest surface point of a mesh (geometry/mesh_closest.h) against closed forms: a box's signed distance and
// gradient, the outside distance and the inside/outside sign of a non-convex L prism, and the closed-form query's
// normal estimate, which now comes from it (so a mesh against planes or a mesh never builds its distance grid).
#include <catch2/catch.hpp>

#include <random>

#include <tbb/parallel_for.h>

#include "geometry/cell_impl.h"
#include "geometry/interference.h"
#include "geometry/mesh_closest.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

// The box [-h, h]³'s signed distance and, where unique, its gradient (closed forms).
double box_sdf(const Vec3& x, const Vec3& h) {
  const Vec3 q = x.cwiseAbs() - h;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

std::shared_ptr<const MeshLevelSet> load(const Solid& s, const std::string& name) {
  return load_mesh_level_set(write_obj(s, name), 1.0, SourceLocation{});
}

}  // namespace

TEST_CASE("Mesh closest point: a box mesh's signed distance and gradient equal the box's closed forms",
          "[geometry][mesh]") {
  const Vec3 h(0.5, 0.3, 0.2);
  const auto mesh = load(box_solid(-h, h), "closest_box");
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  int inside = 0, checked_gradients = 0;
  for (int k = 0; k < 3000; ++k) {
    const Vec3 x(u(rng), u(rng), u(rng));
    const MeshClosest c = mesh_closest(*mesh, x);
    const double d = box_sdf(x, h);
    // Rounding of a few operations on O(1) coordinates.
    REQUIRE(c.distance == Approx(d).margin(1e-12));
    REQUIRE(std::abs(box_sdf(c.point, h)) < 1e-12);  // the point is on the surface
    inside += d < 0;
    const Vec3 q = x.cwiseAbs() - h;
    Vec3 g;
    if (d > 0) {
      g = q.cwiseMax(0.0).normalized().cwiseProduct(x.cwiseSign());  // outside: away from the nearest feature
    } else {
      // Inside: the normal of the nearest face, unique unless two faces are (nearly) as near.
      int k_max;
      const double top = q.maxCoeff(&k_max);
      Vec3 rest = q;
      rest[k_max] = -1e300;
      if (top - rest.maxCoeff() < 1e-6) continue;
      g = Vec3::Unit(k_max) * (x[k_max] > 0 ? 1 : -1);
    }
    ++checked_gradients;
    REQUIRE((c.gradient - g).norm() < 1e-9);
  }
  CHECK(inside > 50);  // the sample reaches the inside too (the box is 3 % of the cube sampled)
  CHECK(checked_gradients > 2900);
}

TEST_CASE("Mesh closest point: a non-convex L prism's sign everywhere and its distance outside", "[geometry][mesh]") {
  // The L: [0, 2] x [0, 1] and [0, 1] x [1, 2], height 1; the union of two boxes.
  const Solid L = prism({Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(2, 1, 0), Vec3(1, 1, 0), Vec3(1, 2, 0), Vec3(0, 2, 0)},
                        1.0, 3);
  const auto mesh = load(L, "closest_L");
  auto box = [](const Vec3& x, const Vec3& lo, const Vec3& hi) { return box_sdf(x - 0.5 * (lo + hi), 0.5 * (hi - lo)); };
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.5, 2.5);
  int in_notch = 0;
  for (int k = 0; k < 3000; ++k) {
    const Vec3 x(u(rng), u(rng), u(rng) * 0.6);
    // The union's distance outside is the smaller box distance, exactly; inside, only the sign is that simple.
    const double d = std::min(box(x, Vec3(0, 0, 0), Vec3(2, 1, 1)), box(x, Vec3(0, 1, 0), Vec3(1, 2, 1)));
    if (std::abs(d) < 1e-9) continue;  // on the surface: either sign is right
    const MeshClosest c = mesh_closest(*mesh, x);
    REQUIRE((c.distance < 0) == (d < 0));
    if (d > 0) REQUIRE(c.distance == Approx(d).margin(1e-12));
    in_notch += x.x() > 1 && x.y() > 1 && x.z() > 0 && x.z() < 1;
  }
  CHECK(in_notch > 100);  // points in the notch, nearest the reflex edge or its faces, were tested
}

TEST_CASE("A mesh against planes or a mesh: the normal estimate is the surface's, and no distance grid is built",
          "[geometry][mesh]") {
  const Vec3 h(0.05, 0.04, 0.03);
  const std::string path = write_obj(box_solid(-h, h), "closest_query_box");
  Primitive m;
  m.kind = PrimitiveKind::Mesh;
  m.mesh_file = path;
  const Cell mesh_cell = make_cell({m});
  const Cell table = make_cell({box(Vec3(1, 1, 0.1), Pose{Vec3(0, 0, -0.05), Quat::Identity()})});
  // The mesh box 1 mm into the table, turned about z, and again tilted 0.1 rad about x (a corner digs in).
  for (const Quat& q : {Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ())),
                        Quat(Eigen::AngleAxisd(0.1, Vec3::UnitX()) * Eigen::AngleAxisd(0.3, Vec3::UnitZ()))}) {
    const Mat3 R = q.toRotationMatrix();
    const double lowest = (R.cwiseAbs() * h).z();
    const Pose pose{Vec3(0.1, 0.2, lowest - 1e-3), q};
    const Interference i = interference(mesh_cell, pose, table, Pose{});
    REQUIRE(i.overlap);
    // The table's gradient is +z, the mesh's at the centroid points out of its bottom face (−R e_z): the estimate
    // is their normalised difference (geometry/interference.cpp), exactly computable here.
    const Vec3 expected = (Vec3::UnitZ() + R.col(2)).normalized();
    CHECK((i.normal_estimate - expected).norm() < 1e-9);
  }
  // Two meshes (this box against the rock): the surfaces' intersection, again without the grid.
  const auto rock = std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/rock_700.obj";
  Primitive r;
  r.kind = PrimitiveKind::Mesh;
  r.mesh_file = rock;
  const Cell rock_cell = make_cell({r});
  const double rock_top = rock_cell.impl->prims[0].mesh->hi.z();
  const Interference both =
      interference(rock_cell, Pose{}, mesh_cell, Pose{Vec3(0, 0, rock_top + h.z() - 2e-3), Quat::Identity()});
  CHECK(both.overlap);
  CHECK(both.normal_estimate.z() < -0.9);  // from the box (j) toward the rock (i) below it
  for (const Cell* c : {&mesh_cell, &rock_cell})
    for (const auto& p : c->impl->prims) CHECK_FALSE(p.mesh->level_set_built());
}

TEST_CASE("The distance grid: built once, on first use, by concurrent callers", "[geometry][mesh]") {
  const auto mesh =
      load_mesh_level_set(std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/rock_700.obj", 1.0, SourceLocation{});
  REQUIRE_FALSE(mesh->level_set_built());  // loading does not build it
  std::vector<Vec3> x;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-0.08, 0.08);
  for (int k = 0; k < 64; ++k) x.emplace_back(u(rng), u(rng), u(rng));
  // Many tasks ask at once (the build runs its own TBB loops inside one of them: isolated, so no caller deadlocks).
  std::vector<double> concurrent(x.size());
  tbb::parallel_for(std::size_t(0), x.size(), [&](std::size_t k) { concurrent[k] = mesh_distance(*mesh, x[k]); });
  REQUIRE(mesh->level_set_built());
  for (std::size_t k = 0; k < x.size(); ++k) {
    CHECK(mesh_distance(*mesh, x[k]) == concurrent[k]);  // one grid: the same value bit for bit
    // Against the exact distance: the sign wherever the point is a few voxels from the surface (the grid rounds
    // the surface at the voxel scale, extent/200; outside its 3-voxel band it returns the band, a lower bound).
    const double exact = mesh_closest(*mesh, x[k]).distance;
    if (std::abs(exact) > 2 * mesh->voxel) CHECK((concurrent[k] < 0) == (exact < 0));
    if (exact < -2 * mesh->voxel) CHECK(concurrent[k] == Approx(exact).margin(mesh->voxel));
  }
}
