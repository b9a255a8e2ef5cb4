// Coherence between queries of two meshes (issue 17, geometry/mesh_intersection.h's MeshPairCache): a warm query
// tests only the leaf pairs listed at an earlier pose and must give the same bits as a cold query, which walks both
// hierarchies (an independent path to the same triangle pairs). Every expected value here is a cold query's.
//  - trajectories of small rigid motions (rock on rock, rock in the non-convex bowl), on 1 and 2 threads, with the
//    default margin and with a margin so small that the cache is rebuilt every few steps and the bound is tight;
//  - jumps just inside and beyond the margin: inside, warm and the same bits; beyond, detected and answered cold;
//  - a cache built for other meshes, or for the same meshes in the other order, is ignored;
//  - two scenes (benchmarks/scenes/rock_in_bowl.yaml and rock_on_rock.yaml, short windows) give bitwise identical
//    HDF5 datasets with the warm start off (VCSIM_WARM_START=0), on, and on 2 threads.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>

#include <tbb/global_control.h>

#include "geometry/mesh.h"
#include "geometry/mesh_intersection.h"
#include "tests/cli_support.h"
#include "tests/mesh_pair_pose.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

const std::string kMeshes = std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/";

std::shared_ptr<const MeshLevelSet> load(const std::string& name) {
  return load_mesh_level_set(kMeshes + name, 1.0, SourceLocation{});
}

bool same_bits(const RawMoments& x, const RawMoments& y) { return x.m0 == y.m0 && x.m1 == y.m1 && x.m2 == y.m2; }

// A small rigid motion at time t (s) about the start pose: a 5 mm horizontal circle at 10 Hz (0.31 m/s, 31 µm per
// 1e-4 s step), a 0.3 mm bob and a 0.05 rad rock, with A turning slowly too. Both are given in a query frame whose
// origin moves with B, as the interference query's overlap origin does.
struct Motion {
  Pose a0, b0;
  std::pair<Pose, Pose> at(double t) const {
    const double w = 2 * M_PI * 10;
    const Vec3 shift(5e-3 * std::sin(w * t), 5e-3 * (1 - std::cos(w * t)), 3e-4 * std::sin(3 * w * t));
    const Quat qb = b0.rotation * Quat(Eigen::AngleAxisd(0.05 * std::sin(w * t), Vec3(1, 2, 3).normalized()));
    const Quat qa = a0.rotation * Quat(Eigen::AngleAxisd(0.5 * t, Vec3(0, 0, 1)));
    const Vec3 origin = b0.position + shift;
    return {Pose{a0.position - origin, qa}, Pose{b0.position + shift - origin, qb}};
  }
};

struct Counts {
  int poses = 0, touching = 0, mismatches = 0;
  MeshIntersectionStats accepted, stages;
};

// Drives a cache as a contact model does: at each step's pose ("accepted"), a query that refreshes it when it no
// longer holds; at the step's midpoint (a Runge–Kutta stage), a query that only reads it. Both against cold queries.
Counts run_trajectory(const MeshLevelSet& a, const MeshLevelSet& b, const Motion& m, double margin_in_leaves,
                      int threads, int steps) {
  Counts c;
  MeshPairCache cache;
  cache.margin_in_leaves = margin_in_leaves;
  const double dt = 1e-4;
  for (int k = 0; k < steps; ++k) {
    for (const double t : {k * dt, (k + 0.5) * dt}) {
      const auto [pa, pb] = m.at(t);
      RawMoments cold;
      {
        const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        cold = mesh_mesh_moments(a, pa, b, pb);
      }
      const tbb::global_control cap(tbb::global_control::max_allowed_parallelism, threads);
      const bool accepted = t == k * dt;
      const RawMoments warm = accepted ? mesh_mesh_moments(a, pa, b, pb, &c.accepted, &cache, &cache)
                                       : mesh_mesh_moments(a, pa, b, pb, &c.stages, &cache, nullptr);
      ++c.poses;
      c.touching += cold.m0 > 0;
      c.mismatches += !same_bits(cold, warm);
    }
  }
  return c;
}

}  // namespace

TEST_CASE("Mesh coherence: Bitwise identical warm and cold queries along trajectories, on 1 and 2 threads") {
  const auto rock = load("rock_700.obj"), bowl = load("bowl_1000.obj");
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  struct Case {
    const char* name;
    const MeshLevelSet *a, *b;
    Pose b0;
  };
  const Case cases[] = {
      {"rock on rock", rock.get(), rock.get(), mesh_pair_pose::first_touch(*rock, *rock, tilt, Vec3(0.01, 0.005, 0), 1e-3)},
      {"rock in bowl", bowl.get(), rock.get(), mesh_pair_pose::first_touch(*bowl, *rock, tilt, Vec3(0.01, 0, 0), 1e-3)}};
  for (const Case& cs : cases) {
    const Motion motion{Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(0.1, Vec3::UnitX()))}, cs.b0};
    // 0.25 leaf sizes: the default; 0.01 (0.11–0.13 mm here; B's translation alone, 31 µm per step, leaves it within
    // ~6 steps): rebuilt every few steps, so many warm queries sit near the bound.
    for (const double margin : {0.25, 0.01})
      for (const int threads : {1, 2}) {
        const Counts c = run_trajectory(*cs.a, *cs.b, motion, margin, threads, 500);
        INFO(cs.name << ", margin " << margin << " leaf sizes, " << threads << " threads: " << c.poses << " poses, "
                     << c.touching << " touching; accepted steps: " << c.accepted.warm << " warm, "
                     << c.accepted.rebuilt << " rebuilt; stages: " << c.stages.warm << " warm");
        CHECK(c.mismatches == 0);
        // The trajectory stays in contact (the comparison means something) ...
        CHECK(c.touching == c.poses);
        // ... and both paths ran: rebuilt caches, and warm queries at accepted steps and stages.
        CHECK(c.accepted.rebuilt >= 1);
        CHECK(c.accepted.warm >= 1);
        CHECK(c.stages.warm >= 1);
        if (margin == 0.01) CHECK(c.accepted.rebuilt >= 20);  // ≥ 500 / 6 ≈ 80 by the translation alone
        else CHECK(c.stages.warm > 400);                      // 500 stages: the default margin holds for most
      }
  }
}

TEST_CASE("Mesh coherence: a move inside the margin is answered warm, beyond it cold, with the same bits") {
  const auto rock = load("rock_700.obj"), bowl = load("bowl_1000.obj");
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  const Pose b0 = mesh_pair_pose::first_touch(*bowl, *rock, tilt, Vec3(0.01, 0, 0), 1e-3);
  MeshPairCache cache;
  cache.margin_in_leaves = 0.05;
  MeshIntersectionStats build;
  const RawMoments at_build = mesh_mesh_moments(*bowl, Pose{}, *rock, b0, &build, nullptr, &cache);
  REQUIRE(build.rebuilt == 1);
  REQUIRE(cache.margin > 0);
  CHECK(same_bits(at_build, mesh_mesh_moments(*bowl, Pose{}, *rock, b0)));
  // The validity bound (mesh_intersection.cpp) is at most ‖ΔR‖_F (|c_root| + 2 |h_root|) + |Δt| for B's nodes seen
  // from A, the same with A's root and A's translation seen from B; and at least the largest component of Δt. Each
  // jump below is sized in those, as a fraction of the margin.
  auto reach = [](const MeshLevelSet& m) {
    const MeshBvhNode& r = m.bvh[0];
    return (0.5 * (r.lo + r.hi)).norm() + (r.hi - r.lo).norm();
  };
  const double turn_reach = std::max(reach(*rock), reach(*bowl));
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  int warm_same = 0, cold_same = 0, jumps = 0;
  for (int k = 0; k < 200; ++k) {
    const bool inside = k % 2 == 0;
    const Vec3 random_dir = Vec3(g(rng), g(rng), g(rng)).normalized(), axis = Vec3(g(rng), g(rng), g(rng)).normalized();
    // A turn worth 0.45 margins: ‖R(θ) − I‖_F = 2√2 sin(θ/2), times the larger root reach; the translation of A's
    // frame seen from B's grows with the turn too (|ΔRᵀ p_B| ≤ ‖ΔR‖_F |p_B|), so |p_B| is in the share. Then a
    // translation of 0.45 margins in any direction (0.9 in all: inside), or of 1.2 margins along one axis (B's
    // points alone move beyond the margin along it).
    const double theta = 2 * std::asin(0.45 * cache.margin / (2 * std::sqrt(2.0) * (turn_reach + b0.position.norm())));
    const Vec3 shift = inside ? Vec3(0.45 * cache.margin * random_dir)
                              : Vec3(1.2 * cache.margin * (random_dir[k % 3] < 0 ? -1 : 1) * Vec3::Unit(k % 3));
    const Pose pb{b0.position + shift, b0.rotation * Quat(Eigen::AngleAxisd(theta, axis))};
    MeshIntersectionStats st;
    const RawMoments warm = mesh_mesh_moments(*bowl, Pose{}, *rock, pb, &st, &cache, nullptr);
    const RawMoments cold = mesh_mesh_moments(*bowl, Pose{}, *rock, pb);
    ++jumps;
    if (inside) warm_same += st.warm == 1 && same_bits(warm, cold);
    else cold_same += st.warm == 0 && st.rebuilt == 0 && same_bits(warm, cold);
  }
  INFO("margin " << cache.margin << " m, " << cache.leaf_pairs.size() << " leaf pairs listed");
  CHECK(warm_same == jumps / 2);
  CHECK(cold_same == jumps / 2);
}

TEST_CASE("Mesh coherence: a cache built for other meshes, or in the other order, is ignored") {
  const auto rock = load("rock_700.obj"), bowl = load("bowl_1000.obj");
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  const Pose in_bowl = mesh_pair_pose::first_touch(*bowl, *rock, tilt, Vec3(0.01, 0, 0), 1e-3);
  const Pose on_rock = mesh_pair_pose::first_touch(*rock, *rock, tilt, Vec3(0.01, 0.005, 0), 1e-3);
  MeshPairCache rock_rock, bowl_rock;
  mesh_mesh_moments(*rock, Pose{}, *rock, on_rock, nullptr, nullptr, &rock_rock);
  mesh_mesh_moments(*bowl, Pose{}, *rock, in_bowl, nullptr, nullptr, &bowl_rock);
  REQUIRE(rock_rock.built());
  REQUIRE(bowl_rock.built());
  // The rock-on-rock cache offered to the bowl pair at its own build pose.
  MeshIntersectionStats st;
  const RawMoments other = mesh_mesh_moments(*bowl, Pose{}, *rock, in_bowl, &st, &rock_rock, nullptr);
  CHECK(st.warm == 0);
  CHECK(same_bits(other, mesh_mesh_moments(*bowl, Pose{}, *rock, in_bowl)));
  // The bowl pair's cache offered to the same two meshes swapped (the rock seen from the bowl's side).
  const Pose bowl_from_rock = in_bowl.inverse();
  MeshIntersectionStats swapped;
  const RawMoments m = mesh_mesh_moments(*rock, Pose{}, *bowl, bowl_from_rock, &swapped, &bowl_rock, nullptr);
  CHECK(swapped.warm == 0);
  CHECK(same_bits(m, mesh_mesh_moments(*rock, Pose{}, *bowl, bowl_from_rock)));
  // And its own pair at its own pose: warm.
  MeshIntersectionStats own;
  const RawMoments w = mesh_mesh_moments(*bowl, Pose{}, *rock, in_bowl, &own, &bowl_rock, nullptr);
  CHECK(own.warm == 1);
  CHECK(same_bits(w, mesh_mesh_moments(*bowl, Pose{}, *rock, in_bowl)));
}

TEST_CASE("Mesh coherence: scenes give bitwise identical datasets with the warm start off, on, and on 2 threads") {
  namespace fs = std::filesystem;
  const fs::path dir = cli::temp_dir("mesh_coherence_test");
  // rock_in_bowl, 0.15 s: the rock lands on the rim at 57 ms, bounces and rolls on it (a ring contact, hundreds of
  // triangle pairs per query). rock_on_rock, 0.2 s: the rock starts on the other and begins to roll off. Each must
  // have at least 20 output samples (1 ms apart) in contact.
  const std::pair<const char*, const char*> scenes[] = {{"rock_in_bowl", "0.15"}, {"rock_on_rock", "0.2"}};
  for (const auto& [name, duration] : scenes) {
    const std::string scene = cli::kSource + "/benchmarks/scenes/" + name + ".yaml";
    const std::string cold = (dir / (std::string(name) + "_cold.h5")).string(),
                      warm1 = (dir / (std::string(name) + "_warm1.h5")).string(),
                      warm2 = (dir / (std::string(name) + "_warm2.h5")).string();
    using Run = std::tuple<std::string, std::string, std::string>;  // environment, threads, output
    for (const auto& [env, threads, out] : {Run{"VCSIM_WARM_START=0 ", "1", cold}, Run{"", "1", warm1},
                                            Run{"", "2", warm2}}) {
      const cli::Run r = cli::run_command(env + cli::kVcsim + " run " + scene + " --set simulation.duration=" +
                                          duration + " -q --threads " + threads + " -o " + out);
      INFO(r.output);
      REQUIRE(r.status == 0);
    }
    const int status = cli::run_python_check(dir, cli::kCheckPrelude, R"PY(
ref_file, ref = dataset_bytes(')PY" + cold + R"PY(')
volume = [k for k in ref if k.endswith('/volume')]
steps = int(sum((np.frombuffer(ref[k], dtype=ref_file[k].dtype) > 0).sum() for k in volume))
expect('output samples in contact', steps, 20, 1e9)
for other in [')PY" + warm1 + "', '" + warm2 + R"PY(']:
    _, data = dataset_bytes(other)
    expect_true(other + ': the same datasets', data.keys() == ref.keys())
    diff = [k for k in ref if data.get(k) != ref[k]]
    expect_true(other + ': bitwise identical to the cold run', not diff, diff[:5])
)PY");
    CHECK(status == 0);
  }
  fs::remove_all(dir);
}
