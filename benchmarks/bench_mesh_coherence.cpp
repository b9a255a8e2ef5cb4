// The warm start between queries of two meshes (issue 17, "coherence"; geometry/mesh_intersection.h's MeshPairCache):
// µs per query along a realistic motion, cold against warm, on 1 thread.
//
// The motion: B, in contact with A (lowered 300 µm below first touch), circles horizontally at `speed` (a 2 mm
// circle) while spinning at 5 rad/s, sampled at 1e-4 s steps. Each step makes the queries of an RK3 step as the
// contact models do: one at the accepted pose, which refreshes the cache when it no longer holds, and two at the
// stages (t + dt/2, t + dt), which only read it (the third stage's query is the accepted one's, reused). Cold: the
// same 3 queries, each walking both hierarchies. Each trajectory runs 3 times; a query's time is its fastest of the
// 3 (the machine is shared), and the table gives the median and the mean over the trajectory's queries (the mean
// carries the rebuilds). Every warm answer is checked to have the bits of the cold one.
//
//   python3 benchmarks/meshes/make_meshes.py        # rock_700, rock_100k, bowl_1000
//   build/benchmarks/bench_mesh_coherence [--large]  # --large adds the two 100 820-triangle rocks
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "geometry/mesh.h"
#include "geometry/mesh_intersection.h"
#include "tests/mesh_pair_pose.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

std::shared_ptr<const MeshLevelSet> load(const std::string& path) {
  return load_mesh_level_set(path, 1.0, SourceLocation{});
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct Result {
  double median = 0, mean = 0;
  std::vector<double> best;       // per query, µs
  std::vector<char> was_rebuild;  // per query: it rebuilt the cache
  long rebuilt = 0, warm = 0, queries = 0, listed = 0, mismatches = 0;
};

Result run(const MeshLevelSet& a, const MeshLevelSet& b, const Pose& b0, double speed, int steps, double margin,
           bool warm_start, std::vector<RawMoments>* cold_answers) {
  Result r;
  const double dt = 1e-4, radius = 2e-3, spin = 5;
  auto pose_at = [&](double t) {
    const double w = speed / radius;
    const Vec3 shift(radius * (std::cos(w * t) - 1), radius * std::sin(w * t), 0);
    return Pose{b0.position + shift, b0.rotation * Quat(Eigen::AngleAxisd(spin * t, Vec3(0.2, 0.1, 1).normalized()))};
  };
  std::vector<double>& best = r.best;
  best.assign(3 * steps, 1e300);
  r.was_rebuild.assign(3 * steps, 0);
  std::vector<RawMoments>& cold = *cold_answers;
  for (int repeat = 0; repeat < 3; ++repeat) {
    MeshPairCache cache;
    cache.margin_in_leaves = margin;
    MeshIntersectionStats st;
    for (int k = 0; k < steps; ++k)
      for (int s = 0; s < 3; ++s) {
        const double t = k * dt + (s == 0 ? 0 : s == 1 ? 0.5 * dt : dt);
        const Pose pb = pose_at(t);
        const long rebuilt_before = st.rebuilt;
        const auto t0 = std::chrono::steady_clock::now();
        const RawMoments m = !warm_start ? mesh_mesh_moments(a, Pose{}, b, pb)
                             : s == 0    ? mesh_mesh_moments(a, Pose{}, b, pb, &st, &cache, &cache)
                                         : mesh_mesh_moments(a, Pose{}, b, pb, &st, &cache, nullptr);
        const double us = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6;
        const int q = 3 * k + s;
        best[q] = std::min(best[q], us);
        if (repeat > 0) continue;
        r.was_rebuild[q] = st.rebuilt > rebuilt_before;
        if (!warm_start) cold.push_back(m);
        else r.mismatches += !(cold[q].m0 == m.m0 && cold[q].m1 == m.m1 && cold[q].m2 == m.m2);
      }
    if (repeat == 0) r.rebuilt = st.rebuilt, r.warm = st.warm, r.listed = st.cached_leaf_pairs;
  }
  r.queries = 3 * steps;
  r.mean = std::accumulate(best.begin(), best.end(), 0.0) / best.size();
  r.median = median(best);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const bool large = argc > 1 && std::strcmp(argv[1], "--large") == 0;
  const std::string dir = std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/";
  const auto rock = load(dir + "rock_700.obj"), bowl = load(dir + "bowl_1000.obj");
  std::shared_ptr<const MeshLevelSet> rock_100k = large ? load(dir + "rock_100k.obj") : nullptr;
  struct Pair {
    const char *a_name, *b_name;
    const MeshLevelSet *a, *b;
    Vec3 offset;
    int steps;
  };
  std::vector<Pair> pairs = {{"rock_700", "rock_700", rock.get(), rock.get(), Vec3(0.01, 0.005, 0), 300},
                             {"bowl_1000", "rock_700", bowl.get(), rock.get(), Vec3(0.02, 0, 0), 300}};
  if (large) pairs.push_back({"rock_100k", "rock_100k", rock_100k.get(), rock_100k.get(), Vec3(0.01, 0.005, 0), 100});
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  std::printf("| a | b | speed (m/s) | margin (leaf sizes) | margin (µm) | cold median / mean µs "
              "| warm median / mean µs | gain (mean) | rebuilt / queries | rebuild median µs (cold at those poses) "
              "| leaf pairs listed (mean) | bits ≠ cold |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Pair& p : pairs) {
    const Pose b0 = mesh_pair_pose::first_touch(*p.a, *p.b, tilt, p.offset, 300e-6);
    for (const double speed : {1.0, 0.1}) {
      std::vector<RawMoments> cold_answers;
      const Result cold = run(*p.a, *p.b, b0, speed, p.steps, 0, false, &cold_answers);
      for (const double margin : {0.05, 0.1, 0.25, 0.5, 1.0}) {
        const Result w = run(*p.a, *p.b, b0, speed, p.steps, margin, true, &cold_answers);
        MeshPairCache probe;
        probe.margin_in_leaves = margin;
        mesh_mesh_moments(*p.a, Pose{}, *p.b, b0, nullptr, nullptr, &probe);
        std::vector<double> rebuilds, cold_there;
        for (std::size_t q = 0; q < w.best.size(); ++q)
          if (w.was_rebuild[q]) rebuilds.push_back(w.best[q]), cold_there.push_back(cold.best[q]);
        std::printf("| %s | %s | %.1f | %.2f | %.0f | %.1f / %.1f | %.1f / %.1f | %.2f× | %ld / %ld | %.1f (%.1f) | %.0f "
                    "| %ld |\n",
                    p.a_name, p.b_name, speed, margin, probe.margin * 1e6, cold.median, cold.mean, w.median, w.mean,
                    cold.mean / w.mean, w.rebuilt, w.queries, median(rebuilds), median(cold_there),
                    double(w.listed) / double(w.rebuilt + w.warm), w.mismatches);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
