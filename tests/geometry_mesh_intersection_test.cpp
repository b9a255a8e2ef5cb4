// Two closed meshes intersected exactly (issue 17, geometry/mesh_intersection.h), against independent exact
// references:
//  - two boxes written as 12-triangle meshes, against the same boxes as planar cells, whose intersection the exact
//    polyhedron clip gives (geometry/exact_interference.h), at random poses and at the degenerate ones (faces lying
//    on faces, the same box twice, touching);
//  - non-convex L-shaped prisms, against the sum over their two convex boxes (disjoint, so moments add);
//  - a non-convex bowl against a convex gem, against the bowl clipped by the gem's facet planes
//    (geometry/mesh_clip.h, a different algorithm).
// The engine's only error is snapping vertices to a grid of 2^-40 of the scene's reach (~1e-12 m here), so V agrees to
// far better than 1e-9 of the box volume; the tolerances below say where they come from.
#include <catch2/catch.hpp>

#include <cstring>

#include <tbb/global_control.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "geometry/convex_mesh.h"
#include "geometry/mesh_clip.h"
#include "geometry/mesh_intersection.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

std::shared_ptr<const MeshLevelSet> load(const Solid& s, const std::string& name) {
  return load_mesh_level_set(write_obj(s, name), 1.0, SourceLocation{});
}

// The box [lo, hi] placed by `pose`, as a planar cell.
Cell box_cell(const Vec3& lo, const Vec3& hi, const Pose& pose) {
  return make_cell({box(hi - lo, pose.compose(Pose{0.5 * (lo + hi), Quat::Identity()}))});
}

struct Moments {
  double V = 0;
  Vec3 c = Vec3::Zero();
  Mat3 J = Mat3::Zero();
};
Moments from_raw(const RawMoments& m) {
  Moments out;
  out.V = m.m0;
  if (m.m0 > 0) centroid_and_inertia(m, out.c, out.J);
  return out;
}
Moments from_query(const Interference& q) { return {q.volume, q.centroid, q.inertia}; }
// Disjoint pieces add their raw moments (about the world origin).
RawMoments raw(const Interference& q) {
  RawMoments m;
  if (!q.overlap) return m;
  m.m0 = q.volume;
  m.m1 = q.volume * q.centroid;
  // J = M0 (tr C I − C) with C the central second moments: C = tr(J)/(2 M0) I − J/M0.
  const Mat3 C = q.inertia.trace() / (2 * q.volume) * Mat3::Identity() - q.inertia / q.volume;
  m.m2 = q.volume * C + q.volume * q.centroid * q.centroid.transpose();
  return m;
}

// Agreement in V (absolute, m³), centroid (m) and J (relative to the largest entry), when V is not a sliver.
void check_same(const Moments& got, const Moments& want, double v_tol) {
  CHECK(std::abs(got.V - want.V) <= v_tol);
  if (want.V > 1e3 * v_tol) {
    CHECK((got.c - want.c).norm() <= 1e-7);
    CHECK((got.J - want.J).norm() <= 1e-6 * want.J.norm());
  }
}

Pose random_pose(std::mt19937& rng, double spread) {
  std::uniform_real_distribution<double> u(-spread, spread);
  return Pose{Vec3(u(rng), u(rng), u(rng)), random_rotation(rng)};
}

// Tolerance on V for unit-sized solids: snapping moves each vertex by < 2^-40 × 2 (reach ~2 m) = 2e-12 m, over
// surfaces of ~10 m²: 2e-11 m³. 1e-10 leaves room for the rounding of the tetrahedron sums.
constexpr double kUnitTol = 1e-10;

}  // namespace

TEST_CASE("Two meshes: two boxes as meshes agree with their exact intersection, random and degenerate poses") {
  const Vec3 lo_a(-0.5, -0.4, -0.3), hi_a(0.5, 0.4, 0.3), lo_b(-0.3, -0.35, -0.25), hi_b(0.3, 0.35, 0.25);
  const auto A = load(box_solid(lo_a, hi_a), "box_a"), B = load(box_solid(lo_b, hi_b), "box_b");
  std::mt19937 rng(17);
  int overlapping = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Pose pa = random_pose(rng, 0.2), pb = random_pose(rng, 0.6);
    const Interference want = interference(box_cell(lo_a, hi_a, pa), Pose{}, box_cell(lo_b, hi_b, pb), Pose{});
    MeshIntersectionStats st;
    const Moments got = from_raw(mesh_mesh_moments(*A, pa, *B, pb, &st));
    INFO("trial " << trial);
    check_same(got, from_query(want), kUnitTol);
    CHECK(st.inconsistent == 0);
    overlapping += want.overlap;
  }
  CHECK(overlapping > 100);  // the poses test intersections, not only misses

  SECTION("faces on faces: exact coincidences the symbolic perturbation must resolve") {
    struct Case {
      const char* name;
      Pose pa, pb;
      double V;  // closed form
    };
    const double Va = 1.0 * 0.8 * 0.6;
    const Quat quarter(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ())), half(Eigen::AngleAxisd(M_PI, Vec3::UnitZ()));
    const std::vector<Case> cases = {
        {"the same box twice", Pose{}, Pose{}, Va},
        {"the same box, turned half a turn (other diagonals)", Pose{}, Pose{Vec3::Zero(), half}, Va},
        {"shifted by half its length: four faces shared", Pose{}, Pose{Vec3(0.5, 0, 0), Quat::Identity()}, Va / 2},
        {"touching face to face", Pose{}, Pose{Vec3(1.0, 0, 0), Quat::Identity()}, 0},
        {"stacked, 1 mm deep", Pose{}, Pose{Vec3(0.2, 0.1, 0.599), Quat::Identity()}, 0.8 * 0.7 * 0.001},
    };
    for (const Case& c : cases) {
      INFO(c.name);
      const Moments got = from_raw(mesh_mesh_moments(*A, c.pa, *A, c.pb));
      CHECK(std::abs(got.V - c.V) <= kUnitTol);
    }
    // A quarter turn of B (0.6 x 0.7 in plan) about z inside A (1 x 0.8): every face of B parallel to one of A.
    const Moments got = from_raw(mesh_mesh_moments(*A, Pose{}, *B, Pose{Vec3::Zero(), quarter}));
    CHECK(std::abs(got.V - 0.6 * 0.7 * 0.5) <= kUnitTol);
  }
}

TEST_CASE("Two meshes: non-convex L prisms against the sums over their convex boxes") {
  // L = [0, 2] x [0, 1] x [0, 1] ∪ [0, 1] x [1, 2] x [0, 1], its cap fanned from the reflex vertex (1, 1).
  const Solid L = prism({Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(2, 1, 0), Vec3(1, 1, 0), Vec3(1, 2, 0), Vec3(0, 2, 0)},
                        1.0, 3);
  const auto mL = load(L, "ell");
  const std::array<std::pair<Vec3, Vec3>, 2> parts = {{{Vec3(0, 0, 0), Vec3(2, 1, 1)}, {Vec3(0, 1, 0), Vec3(1, 2, 1)}}};
  const Vec3 lo_b(-0.3, -0.2, -0.25), hi_b(0.3, 0.2, 0.25);
  const auto B = load(box_solid(lo_b, hi_b), "small_box");
  std::mt19937 rng(5);
  int hits = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::uniform_real_distribution<double> u(-0.2, 2.2), w(-0.2, 1.2);
    const Pose pl{Vec3::Zero(), Quat::Identity()};
    const Pose pb{Vec3(u(rng), u(rng), w(rng)), random_rotation(rng)};
    RawMoments want;
    for (const auto& [lo, hi] : parts)
      want += raw(interference(box_cell(lo, hi, pl), Pose{}, box_cell(lo_b, hi_b, pb), Pose{}));
    INFO("trial " << trial);
    check_same(from_raw(mesh_mesh_moments(*mL, pl, *B, pb)), from_raw(want), kUnitTol);
    hits += want.m0 > 0;
  }
  CHECK(hits > 50);

  SECTION("L against L: four pairs of boxes") {
    for (int trial = 0; trial < 60; ++trial) {
      const Pose pa{Vec3(0.1, -0.2, 0.05), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()))};
      std::uniform_real_distribution<double> u(-1.0, 1.5);
      const Pose pb{Vec3(u(rng), u(rng), 0.5 * u(rng)), random_rotation(rng)};
      RawMoments want;
      for (const auto& [la, ha] : parts)
        for (const auto& [lb, hb] : parts) want += raw(interference(box_cell(la, ha, pa), Pose{}, box_cell(lb, hb, pb), Pose{}));
      INFO("trial " << trial);
      check_same(from_raw(mesh_mesh_moments(*mL, pa, *mL, pb)), from_raw(want), 4 * kUnitTol);
    }
  }

  SECTION("a box in the notch of the L, clear of it, and boxes wholly inside: rays decide") {
    // The small box's bounds overlap the L's, but it sits in the notch [1, 2] x [1, 2]: no contact.
    CHECK(mesh_mesh_moments(*mL, Pose{}, *B, Pose{Vec3(1.5, 1.5, 0.5), Quat::Identity()}).m0 == 0);
    // Wholly inside the L's first arm, either way round: V is the small box's.
    const double Vb = 0.6 * 0.4 * 0.5;
    const Pose inside{Vec3(1.0, 0.5, 0.5), Quat(Eigen::AngleAxisd(0.2, Vec3::UnitZ()))};
    CHECK(std::abs(mesh_mesh_moments(*mL, Pose{}, *B, inside).m0 - Vb) <= kUnitTol);
    CHECK(std::abs(mesh_mesh_moments(*B, inside, *mL, Pose{}).m0 - Vb) <= kUnitTol);
  }
}

// The convex partner has few facets: the reference clips the bowl by each of them in turn, which costs the product of
// facets and triangles.
std::shared_ptr<const MeshLevelSet> bowl_and_gem(std::shared_ptr<const MeshLevelSet>& gem) {
  const auto bowl =
      load_mesh_level_set(std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/bowl_1000.obj", 1.0, SourceLocation{});
  const double size = (bowl->hi - bowl->lo).maxCoeff();
  gem = load(bipyramid(10, 0.3 * size, 0.2 * size), "gem");
  return bowl;
}

TEST_CASE("Two meshes: a non-convex bowl against a convex gem agrees with the bowl clipped by the gem's facets") {
  std::shared_ptr<const MeshLevelSet> rock;
  const auto bowl = bowl_and_gem(rock);
  REQUIRE(!bowl->convex);
  REQUIRE(rock->convex);
  const double reach = (bowl->hi - bowl->lo).maxCoeff() + (rock->hi - rock->lo).maxCoeff();
  std::mt19937 rng(3);
  int hits = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::uniform_real_distribution<double> u(-0.3 * reach, 0.3 * reach);
    const Pose pb{Vec3::Zero(), Quat::Identity()};
    const Pose pr{Vec3(u(rng), u(rng), u(rng)), random_rotation(rng)};
    // The gem's facets as half-spaces in the query frame, bounded by a box around the gem.
    Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
    for (const Vec3& v : rock->vertices) lo = lo.cwiseMin(pr.apply(v)), hi = hi.cwiseMax(pr.apply(v));
    const std::vector<Plane> planes = convex_mesh_planes_in_box(*rock, pr, lo, hi);
    const RawMoments want = mesh_planes_moments(*bowl, pb, planes);
    const RawMoments got = mesh_mesh_moments(*bowl, pb, *rock, pr);
    INFO("trial " << trial << " V " << want.m0);
    // Exact both ways; the clip's planes are rounded to double (1e-16 relative) and the snapping adds ~1e-12 m over
    // the contact surface: 1e-9 of the gem's volume.
    check_same(from_raw(got), from_raw(want), 1e-9 * rock->volume);
    hits += want.m0 > 0;
  }
  CHECK(hits > 10);
}

TEST_CASE("Two meshes: V grows smoothly as a gem is lowered into a bowl, and the query is deterministic") {
  std::shared_ptr<const MeshLevelSet> rock;
  const auto bowl = bowl_and_gem(rock);
  const Quat tilt(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
  // Find the first contact height along z by bisection on the exact volume; then, from 0.2 mm deep, lower it 200 steps
  // of 1 µm (the sphere-lowering test of docs/geometry.md, which starts 2 mm deep into a 0.1 m ball).
  const double size = (rock->hi - rock->lo).maxCoeff();
  auto V_at = [&](double z) {
    return mesh_mesh_moments(*bowl, Pose{}, *rock, Pose{Vec3(0.1 * size, 0, z), tilt}).m0;
  };
  double above = bowl->hi.z() + size, below = bowl->lo.z();
  for (int k = 0; k < 80; ++k) (V_at(0.5 * (above + below)) > 0 ? below : above) = 0.5 * (above + below);
  std::vector<double> V, Vx;
  for (int k = 1; k <= 200; ++k) {
    const double z = above - 2e-4 - k * 1e-6;
    const Pose pr{Vec3(0.1 * size, 0, z), tilt};
    V.push_back(mesh_mesh_moments(*bowl, Pose{}, *rock, pr).m0);
    Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
    for (const Vec3& v : rock->vertices) lo = lo.cwiseMin(pr.apply(v)), hi = hi.cwiseMax(pr.apply(v));
    Vx.push_back(mesh_planes_moments(*bowl, Pose{}, convex_mesh_planes_in_box(*rock, pr, lo, hi)).m0);
  }
  const Smoothness s = smoothness(V, Vx);
  CHECK(s.non_increasing == 0);
  // Both exact: the second differences agree to the rounding of the first (1e-6 relative is a wide margin).
  CHECK(s.worst < 1e-6);
  // The same pose twice: the same bits.
  const Pose pr{Vec3(0.1 * size, 0, above - 1e-4), tilt};
  const RawMoments m1 = mesh_mesh_moments(*bowl, Pose{}, *rock, pr), m2 = mesh_mesh_moments(*bowl, Pose{}, *rock, pr);
  CHECK(m1.m0 == m2.m0);
  CHECK(m1.m1 == m2.m1);
  CHECK(m1.m2 == m2.m2);
}

TEST_CASE("Two meshes: the interference query serves a non-convex mesh pair exactly, without columns") {
  const Solid L = prism({Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(2, 1, 0), Vec3(1, 1, 0), Vec3(1, 2, 0), Vec3(0, 2, 0)},
                        1.0, 3);
  Primitive p;
  p.kind = PrimitiveKind::Mesh;
  p.mesh_file = write_obj(L, "ell_cell");
  const Cell ell = make_cell({p});
  const Pose pa{Vec3::Zero(), Quat::Identity()};
  const Pose pb{Vec3(0.4, 0.3, 0.9), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()))};
  const Interference q = interference(ell, pa, ell, pb);
  REQUIRE(q.overlap);
  CHECK(q.columns == 0);
  // A cell keeps the file's coordinates (the body's centre-of-mass shift comes later, in the loader): the reference
  // is the sum over the L's convex boxes at the same poses.
  const std::array<std::pair<Vec3, Vec3>, 2> parts = {{{Vec3(0, 0, 0), Vec3(2, 1, 1)}, {Vec3(0, 1, 0), Vec3(1, 2, 1)}}};
  RawMoments want;
  for (const auto& [la, ha] : parts)
    for (const auto& [lb, hb] : parts) want += raw(interference(box_cell(la, ha, pa), Pose{}, box_cell(lb, hb, pb), Pose{}));
  check_same(from_query(q), from_raw(want), 4 * kUnitTol);
}

TEST_CASE("Two meshes: Bitwise identical on 1 and 2 threads, for a query cut into parallel subtrees") {
  // The rock in the bowl: hundreds of triangle pairs, so the parallel path runs. Each thread gathers what its tasks
  // find, and which thread runs which task changes from run to run; the sums are taken in a canonical order, so the
  // moments must have the same bits every time, and a rebuilt cache the same list of leaf pairs.
  const std::string dir = std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/";
  const auto bowl = load_mesh_level_set(dir + "bowl_1000.obj", 1.0, SourceLocation{});
  const auto rock = load_mesh_level_set(dir + "rock_700.obj", 1.0, SourceLocation{});
  const Pose pr{Vec3(0.01, 0.0, 0.064), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()))};
  struct Result {
    RawMoments m;
    MeshIntersectionStats st;
    MeshPairCache rebuilt;
  };
  auto query = [&](int threads) {
    tbb::global_control cap(tbb::global_control::max_allowed_parallelism, threads);
    Result r;
    r.m = mesh_mesh_moments(*bowl, Pose{}, *rock, pr, &r.st);
    mesh_mesh_moments(*bowl, Pose{}, *rock, pr, nullptr, nullptr, &r.rebuilt);
    return r;
  };
  const Result one = query(1);
  INFO("V = " << one.m.m0 << " m^3, " << one.st.triangle_pairs << " triangle pairs");
  REQUIRE(one.m.m0 > 0);
  CHECK(one.st.triangle_pairs > 100);
  for (int run = 0; run < 20; ++run) {
    const Result two = query(2);
    CHECK(one.st.triangle_pairs == two.st.triangle_pairs);
    CHECK(std::memcmp(&one.m.m0, &two.m.m0, sizeof(double)) == 0);
    CHECK(std::memcmp(one.m.m1.data(), two.m.m1.data(), 3 * sizeof(double)) == 0);
    CHECK(std::memcmp(one.m.m2.data(), two.m.m2.data(), 9 * sizeof(double)) == 0);
    CHECK(one.rebuilt.leaf_pairs == two.rebuilt.leaf_pairs);
  }
}
