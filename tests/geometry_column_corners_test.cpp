// Regression test for the column engine (closed_forms = false) on box corners and edges in a table
// at random attitudes (docs/geometry.md, "Known column engine defects"). The grown fine lattice was
// clipped to the coarse pass's non-empty columns plus 1.5 coarse spacings; the sharp tip of a
// corner's triangular patch can reach much farther than that between coarse columns and was cut
// off (one pose converged to 4.50e-7 m³ instead of 6.54e-7 m³). The oracle is the closed form for
// convex polyhedra (closed_forms = true), itself checked against Monte Carlo in geometry_exact_test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "geometry/interference.h"
#include "tests/geometry_support.h"

using namespace vcsim;
using namespace vcsim::geo;
using namespace geometry_support;

namespace {

struct Worst {
  double V = 0, centroid = 0, inertia = 0;
  int poses = 0;
};

// The column engine against the closed form, within the issue-3 limits: V 1e-3 relative, centroid
// 1e-3 V^(1/3), inertia 5e-3 (Frobenius, relative). centroid_tol: the tolerance at which the
// centroid is held to its limit, none when <= 0.
void check_pose(const char* label, const Cell& ci, const Pose& pi, const Cell& cj, const Pose& pj, Worst& worst,
                double centroid_tol = 1e-3) {
  QueryOptions exact, column;
  column.closed_forms = false;
  const Interference a = interference(ci, pi, cj, pj, exact);
  const Interference b = interference(ci, pi, cj, pj, column);
  REQUIRE(a.columns == 0);  // the oracle is the closed form
  REQUIRE(a.overlap == b.overlap);
  if (!a.overlap) return;
  const double eV = std::abs(b.volume / a.volume - 1);
  const double ec = (b.centroid - a.centroid).norm() / std::cbrt(a.volume);
  const double eJ = (b.inertia - a.inertia).norm() / a.inertia.norm();
  INFO(label << ": V closed " << a.volume << " column " << b.volume << " (" << b.columns << " columns); errors V " << eV
             << " centroid " << ec << " inertia " << eJ);
  CHECK(eV < 1e-3);
  CHECK(eJ < 5e-3);
  if (centroid_tol == column.tolerance) {
    CHECK(ec < 1e-3);
  } else if (centroid_tol > 0) {
    column.tolerance = centroid_tol;
    const Interference c = interference(ci, pi, cj, pj, column);
    CHECK((c.centroid - a.centroid).norm() / std::cbrt(a.volume) < 1e-3);
  }
  worst.V = std::max(worst.V, eV), worst.centroid = std::max(worst.centroid, ec);
  worst.inertia = std::max(worst.inertia, eJ);
  ++worst.poses;
}

const Pose kTablePose{Vec3(0, 0, -0.05), Quat::Identity()};  // top face at z = 0

}  // namespace

TEST_CASE("Column engine: a brick corner whose patch tip reaches past the coarse columns", "[geometry][column]") {
  // Pose k7 of the reproduction (brick 0.3 x 0.2 x 0.1 m, corner ~3 mm into a 2 x 2 x 0.1 m table,
  // std::mt19937(20261123)). Before the fix: 4.63e-7 at tol 1e-3, 4.50e-7 at 1e-5 (exact 6.54e-7).
  const Cell table = make_cell({box(Vec3(2.0, 2.0, 0.1))});
  const Cell brick = make_cell({box(Vec3(0.3, 0.2, 0.1))});
  const Pose p{Vec3(0.13805046116475075, -0.22337992054659972, 0.17747764419590881),
               Quat(-0.62476214124429674, -0.57587708683451877, 0.44583798594607965, -0.28154278185450399)};
  Worst worst;
  check_pose("k7", brick, p, table, kTablePose, worst);
  const Interference a = interference(brick, p, table, kTablePose);
  CHECK(a.volume == Approx(6.539414476e-07).epsilon(1e-8));
  for (double tol : {1e-4, 1e-5}) {  // converges to the exact value as the tolerance tightens
    QueryOptions o;
    o.closed_forms = false;
    o.tolerance = tol;
    const Interference b = interference(brick, p, table, kTablePose, o);
    INFO("tol " << tol << ": column " << b.volume);
    CHECK(std::abs(b.volume / a.volume - 1) < tol);
  }
}

namespace {
// 24 bricks and 24 chamfered bars with a corner, an edge or a face 0–6 mm (brick) or 0–4 mm (bar)
// into the table; the poses that miss the table are skipped.
void run_random_poses(double centroid_tol) {
  std::mt19937 rng(20261124);
  std::uniform_real_distribution<double> u(-1, 1);
  const Cell table = make_cell({box(Vec3(2.0, 2.0, 0.1))});
  const Cell brick = make_cell({box(Vec3(0.3, 0.2, 0.1))});
  // A chamfered bar: a box cut by a 45° half-space (the battery box's guide rails).
  const Cell chamfered = make_cell(
      {box(Vec3(0.35, 0.05, 0.05)), halfspace(Pose{Vec3(0, 0.0, 0.015), Quat(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()))})});
  Worst worst;
  for (int k = 0; k < 24; ++k) {
    Pose p{Vec3(0.3 * u(rng), 0.3 * u(rng), 0), random_rotation(rng)};
    p.position.z() -= world_bounds(brick, p).min.z() + 3e-3 * (1 + u(rng));
    check_pose("brick on table", brick, p, table, kTablePose, worst, centroid_tol);
    Pose pc{Vec3(0.3 * u(rng), 0.3 * u(rng), 0), random_rotation(rng)};
    pc.position.z() -= world_bounds(chamfered, pc).min.z() + 2e-3 * (1 + u(rng));
    check_pose("chamfered bar on table", chamfered, pc, table, kTablePose, worst, centroid_tol);
  }
  std::printf("column engine, box corners/edges (tol 1e-3): %d poses; worst V %.2e, centroid / V^(1/3) %.2e, "
              "inertia %.2e\n",
              worst.poses, worst.V, worst.centroid, worst.inertia);
  CHECK(worst.poses >= 40);
}
}  // namespace

TEST_CASE("Column engine: box corners and edges in a table at random poses, against the closed form",
          "[geometry][column]") {
  // V, centroid and inertia at the default tolerance. Until the width rule of the fine spacing (docs/geometry.md,
  // "Thin patches"), 3 of the 41 poses missed the centroid limit (1.1e-3 to 1.6e-3 V^(1/3): thin, wide edge
  // patches sized from sqrt(area)); measured after it: worst centroid 4.8e-4 V^(1/3), V 2.0e-4, inertia 1.1e-3.
  run_random_poses(1e-3);
}
