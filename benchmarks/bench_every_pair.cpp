// Every pair of nine finite primitives at random poses (docs/geometry.md, "Every pair at random poses"): a robustness
// sweep of the public query's paths, which also times each pose's query (the median of 5, one thread) and reports each
// pair's median and worst, and how many poses took over 100 us. Each pose lowers one primitive onto the other at random
// attitudes to V = 1e-9 ... 3e-6 m^3 (bisection on the public query) and compares the query at its default tolerance
// with the column engine at tolerance 1e-5 (third argument). Where they differ by more than 2e-3 (VCSIM_THRESHOLD
// overrides), exact chords along the normal on a 1000^2 and a 2000^2 midpoint grid over the footprint say which one is
// wrong, and the pose is printed. VCSIM_ONLY=cone-capsule limits it to one pair (the poses drawn stay the same);
// VCSIM_VERBOSE=1 prints each pose's time, volume, column count, error and whether the torus sweep serves it;
// VCSIM_VERBOSE=2 also the pose of every query the column engine served or that took over 500 us.
//
//   build-tests/benchmarks/bench_every_pair [poses per pair = 6] [seed = 3] [reference tolerance = 1e-5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "geometry/cell_impl.h"
#include "geometry/interference.h"
#include "geometry/torus_sweep.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

int main(int argc, char** argv) {
  const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  const int n = argc > 1 ? std::atoi(argv[1]) : 6;
  const int seed = argc > 2 ? std::atoi(argv[2]) : 3;
  const double ref_tolerance = argc > 3 ? std::atof(argv[3]) : 1e-5;
  const double threshold = std::getenv("VCSIM_THRESHOLD") ? std::atof(std::getenv("VCSIM_THRESHOLD")) : 2e-3;
  const char* only = std::getenv("VCSIM_ONLY");
  // 1: one line per pose; 2: also the pose of every query the column engine served
  const int verbose = std::getenv("VCSIM_VERBOSE") ? std::atoi(std::getenv("VCSIM_VERBOSE")) : 0;
  std::vector<std::pair<const char*, Primitive>> prims;
  {
    Primitive ellipsoid = primitive(PrimitiveKind::Ellipsoid), torus = primitive(PrimitiveKind::Torus);
    Primitive slab = primitive(PrimitiveKind::Slab);
    ellipsoid.radii = Vec3(0.04, 0.025, 0.015), torus.major_radius = 0.04, torus.minor_radius = 0.012;
    slab.thickness = 0.02;
    prims = {{"ball", sphere(0.03)},
             {"box", box(Vec3(0.08, 0.05, 0.03))},
             {"cylinder", rod(PrimitiveKind::Cylinder, 0.025, 0.1)},
             {"cone", rod(PrimitiveKind::Cone, 0.03, 0.08, 0.0)},
             {"frustum", rod(PrimitiveKind::Cone, 0.03, 0.08, 0.012)},
             {"capsule", rod(PrimitiveKind::Capsule, 0.015, 0.08)},
             {"ellipsoid", ellipsoid},
             {"torus", torus},
             {"slab", slab}};
  }
  QueryOptions reference;
  reference.closed_forms = false;
  reference.tolerance = ref_tolerance;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  int all = 0, all_off = 0;
  for (size_t i = 0; i < prims.size(); ++i)
    for (size_t j = i; j < prims.size(); ++j) {
      if (prims[i].second.kind == PrimitiveKind::Slab && prims[j].second.kind == PrimitiveKind::Slab) continue;
      const std::string name = std::string(prims[i].first) + "-" + prims[j].first;
      const Cell a = make_cell({prims[i].second}), b = make_cell({prims[j].second});
      int poses = 0, off = 0;
      double worst = 0;
      std::vector<double> query_us;  // per pose, the median of 5 queries
      for (int t = 0; t < n; ++t) {
        const Quat qa = random_rotation(rng), qb = random_rotation(rng);
        const Vec3 at(0.03 * (unit(rng) - 0.5), 0.03 * (unit(rng) - 0.5), 0);
        const double target = std::pow(10.0, -9 + 3.5 * unit(rng));
        if (only && name != only) continue;  // the draws above keep every pair's poses the same
        const Pose pa{Vec3::Zero(), qa}, pb{at + Vec3(0, 0, height_for_volume(a, pa, b, qb, at, target, -0.3, 0.3, 40)), qb};
        Interference q;
        double us[5];
        for (double& u : us) {
          const auto start = std::chrono::steady_clock::now();
          q = interference(a, pa, b, pb);
          u = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        }
        if (!q.overlap) continue;
        std::sort(us, us + 5);
        query_us.push_back(us[2]);
        const Interference ref = interference(a, pa, b, pb, reference);
        ++poses;
        const double e = ref.volume > 0 ? q.volume / ref.volume - 1 : 1;
        worst = std::max(worst, std::abs(e));
        if (verbose) {
          const bool sweep = torus_sweep_moments(a.impl->prims, pa, b.impl->prims, pb, Vec3::Zero(), 1e-3) ||
                             torus_sweep_moments(b.impl->prims, pb, a.impl->prims, pa, Vec3::Zero(), 1e-3);
          std::printf("  %s pose %d: %.0f us, V %.3e m^3, %ld columns, query %+.2e against the column engine at %g, %s\n",
                      name.c_str(), t, us[2], ref.volume, q.columns, e, ref_tolerance,
                      sweep ? "the torus sweep" : "not the torus sweep");
        }
        auto print_pose = [&] {
          std::printf("    a at the origin, q (%.17g, %.17g, %.17g, %.17g); b at (%.17g, %.17g, %.17g), q (%.17g, %.17g, "
                      "%.17g, %.17g)\n", qa.w(), qa.x(), qa.y(), qa.z(), pb.position.x(), pb.position.y(),
                      pb.position.z(), qb.w(), qb.x(), qb.y(), qb.z());
        };
        if (std::abs(e) <= threshold) {
          if (verbose > 1 && (q.spacing > 0 || us[2] > 500)) print_pose();  // the column engine's and slow poses
          continue;
        }
        ++off;
        const double c1 = chords_volume(a, pa, b, pb, ref, 1000), c2 = chords_volume(a, pa, b, pb, ref, 2000);
        std::printf("  %s pose %d: V %.3e, query %+.2e; against exact chords (1000, 2000 across): query %+.2e %+.2e, "
                    "column engine %+.2e %+.2e\n", name.c_str(), t, ref.volume, e, q.volume / c1 - 1, q.volume / c2 - 1,
                    ref.volume / c1 - 1, ref.volume / c2 - 1);
        print_pose();
      }
      if (poses == 0) continue;
      all += poses, all_off += off;
      std::sort(query_us.begin(), query_us.end());
      const long slow = std::count_if(query_us.begin(), query_us.end(), [](double u) { return u > 100; });
      std::printf("%-10s %-10s %3d poses, %d off by more than %.0e, worst %.1e; query median %.0f us, max %.0f us, %ld "
                  "over 100 us\n", prims[i].first, prims[j].first, poses, off, threshold, worst,
                  query_us[query_us.size() / 2], query_us.back(), slow);
      std::fflush(stdout);
    }
  std::printf("%d poses, %d off\n", all, all_off);
  return 0;
}
