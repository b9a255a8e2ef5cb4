// Loading a mesh (issue 17, "scale"): wall time per stage and the memory the loaded mesh holds, and the same for
// the signed-distance grid that only the column engine reads (built on first use). Release, the machine's threads.
//
//   build/benchmarks/bench_mesh_load benchmarks/meshes/rock_100k.obj [more.obj ...]
//
// Memory: the loaded mesh's arrays (capacity × element size) and the grid's own count (memUsage); the process's
// resident set grows by more, the allocator's slack from the checks.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "geometry/mesh.h"

namespace {

template <class T>
double mib(const std::vector<T>& v) {
  return v.capacity() * double(sizeof(T)) / (1 << 20);
}

double held_mib(const vcsim::geo::MeshLevelSet& m) {
  const auto& t = m.topology;
  return mib(m.vertices) + mib(m.triangles) + mib(m.bvh) + mib(m.bvh_order) + mib(t.vertex_triangle_offsets) +
         mib(t.vertex_triangles) + mib(t.component) + mib(t.component_seed) + mib(t.component_lo) +
         mib(t.component_hi);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vcsim::geo;
  if (argc < 2) {
    std::cerr << "usage: bench_mesh_load MESH.obj|MESH.stl ...\n";
    return 2;
  }
  std::printf("| mesh | triangles | load s | s per million triangles | MiB held | MiB per million triangles | "
              "distance grid s | grid MiB |\n|---|---|---|---|---|---|---|---|\n");
  for (int k = 1; k < argc; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    const auto mesh = load_mesh_level_set(argv[k], 1.0, SourceLocation{});
    const double load_s = seconds_since(t0), held = held_mib(*mesh);
    t0 = std::chrono::steady_clock::now();
    const double grid_mib = mesh->level_set().memUsage() / double(1 << 20);
    const double grid_s = seconds_since(t0);
    const double mtri = mesh->triangles.size() / 1e6;
    std::printf("| %s | %zu | %.2f | %.2f | %.0f | %.0f | %.2f | %.0f |\n", argv[k], mesh->triangles.size(), load_s,
                load_s / mtri, held, held / mtri, grid_s, grid_mib);
  }
}
