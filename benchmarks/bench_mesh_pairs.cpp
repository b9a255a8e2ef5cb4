// Two meshes in contact (issue 17): median µs per interference query, through the public query (which picks the
// exact surface intersection of geometry/mesh_intersection.h for two meshes, or clips by a convex mesh's few
// facets, as for the slab), for pairs of benchmark meshes at several attitudes and depths below first contact, and
// the surface intersection alone, on 1 and 2 threads.
//
//   python3 benchmarks/meshes/make_meshes.py      # rock_700, rock_100k, bowl_1000, slab_12
//   build-tests/benchmarks/bench_mesh_pairs [--large]   # --large adds the two 100 820-triangle rocks
//   build-tests/benchmarks/bench_mesh_pairs --large-only   # only those, at the same poses as with --large
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "benchmarks/bench_support.h"
#include "geometry/mesh.h"
#include "geometry/mesh_intersection.h"
#include "tests/mesh_pair_pose.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

struct Shape {
  std::string name;
  Cell cell;
  std::shared_ptr<const MeshLevelSet> mesh;
};

Shape shape(const std::string& name, const std::string& path) {
  Primitive p;
  p.kind = PrimitiveKind::Mesh;
  p.mesh_file = path;
  Shape s{name, bench::one_cell(p), nullptr};
  s.mesh = load_mesh_level_set(path, 1.0, SourceLocation{});
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const bool large_only = argc > 1 && std::strcmp(argv[1], "--large-only") == 0;
  const bool large = large_only || (argc > 1 && std::strcmp(argv[1], "--large") == 0);
  const std::string dir = std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/";
  std::vector<Shape> shapes = {shape("rock_700", dir + "rock_700.obj"), shape("bowl_1000", dir + "bowl_1000.obj"),
                               shape("torus_48x24", std::string(VCSIM_SOURCE_DIR) +
                                                        "/scenarios/validation/torus_48x24.obj"),
                               shape("slab_12", dir + "slab_12.obj")};
  if (large) shapes.push_back(shape("rock_100k", dir + "rock_100k.obj"));
  const int rock_100k = 4;
  struct PairSpec {
    int a, b;
    Vec3 offset;  // of b over a, horizontal
  };
  std::vector<PairSpec> pairs = {{0, 0, Vec3(0.01, 0.005, 0)},  // rock on rock
                                 {1, 0, Vec3(0.02, 0, 0)},      // rock in the bowl
                                 {2, 2, Vec3(0.03, 0.01, 0)},   // torus on torus (both non-convex)
                                 {1, 2, Vec3(0.0, 0.02, 0)},    // torus in the bowl
                                 {3, 0, Vec3(0.1, 0.2, 0)}};    // rock on a slab: the query clips by its facets
  if (large) pairs.push_back({rock_100k, rock_100k, Vec3(0.01, 0.005, 0)});
  std::mt19937 rng(11);
  std::printf("| a | b | attitude | depth | V (m³) | triangle pairs | µs per query | surfaces alone, µs | the same on 2 "
              "threads, µs |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const PairSpec& ps : pairs) {
    const Shape &a = shapes[ps.a], &b = shapes[ps.b];
    for (int att = 0; att < 3; ++att) {
      std::normal_distribution<double> g;
      const Quat q = att == 0 ? Quat::Identity() : Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
      if (large_only && ps.a != rock_100k) continue;  // the attitude still drawn, so the rocks' poses stay the same
      for (double depth : {30e-6, 300e-6, 1e-3}) {
        const Pose pb = mesh_pair_pose::first_touch(*a.mesh, *b.mesh, q, ps.offset, depth);
        MeshIntersectionStats st;
        const double V = mesh_mesh_moments(*a.mesh, Pose{}, *b.mesh, pb, &st).m0;
        double us = 0, surfaces = 0, surfaces_2 = 0;
        {
          const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
          us = bench::median_us([&] { interference(a.cell, Pose{}, b.cell, pb); });
        }
        // The surface intersection alone (the query's path unless a convex side has few facets near the contact), on
        // 1 and 2 threads in alternating blocks: this host's cores change speed by up to 1.5× from one second to the
        // next, which one block of each could read as a speed-up or a loss. The median of three blocks each.
        std::vector<double> blocks[2];
        for (int round = 0; round < 3; ++round)
          for (int threads : {1, 2}) {
            const tbb::global_control cap(tbb::global_control::max_allowed_parallelism, threads);
            blocks[threads - 1].push_back(bench::median_us([&] { mesh_mesh_moments(*a.mesh, Pose{}, *b.mesh, pb); }));
          }
        for (auto& b : blocks) std::sort(b.begin(), b.end());
        surfaces = blocks[0][1];
        surfaces_2 = blocks[1][1];
        std::printf("| %s | %s | %d | %.0f µm | %.3e | %ld | %.1f | %.1f | %.1f (%.2f×) |\n", a.name.c_str(),
                    b.name.c_str(), att, depth * 1e6, V, st.triangle_pairs, us, surfaces, surfaces_2,
                    surfaces / surfaces_2);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
