// Curved solids against a non-convex mesh (issue 17; geometry/mesh_prisms.h): a ball, a cylinder on its side, a cone
// tip down, a tilted capsule, a tilted ellipsoid and a tilted torus in benchmarks/meshes/bowl_1000.obj, on the bowl's
// axis and off it (x = 0, 0.012, 0.025 m), lowered until V = 1e-10, 1e-8, 1e-7 m³. Per pose: the median and largest
// of 15 timed queries, and V against exact rays cast in a turned frame (tests/geometry_support.h's
// mesh_solid_by_rays), 1 500² over the contact found by a coarse pass. With
// --column, the column engine (tolerance 1e-3) once per pose as well: what these pairs cost before 2026-11-28.
// Usage: bench_solid_in_bowl [--column]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

// The reference: a coarse pass (150², 2² rays a cell) finds the contact's extent, then 1 500² rays over it.
double reference_volume(const MeshLevelSet& mesh, const Cell& solid, const Pose& pose, double reach) {
  const Quat turn(Eigen::AngleAxisd(0.7, Vec3(1, 2, 0.5).normalized()));
  const Pose frame{pose.position - turn * pose.position, turn};  // turned about the solid's centre
  const Vec3 c = pose.position;
  const int nc = 150;
  const double h = 2 * reach / nc;
  double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j < nc; ++j) {
      const double x = c.x() - reach + (i + 0.5) * h, y = c.y() - reach + (j + 0.5) * h;
      if (mesh_solid_by_rays(mesh, solid, pose, frame, x - h / 2, x + h / 2, y - h / 2, y + h / 2, 2).volume > 0)
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  return mesh_solid_by_rays(mesh, solid, pose, frame, x0 - 1.5 * h, x1 + 1.5 * h, y0 - 1.5 * h, y1 + 1.5 * h, 1500)
      .volume;
}

}  // namespace

int main(int argc, char** argv) {
  const bool column = argc > 1 && std::strcmp(argv[1], "--column") == 0;
  const std::string path = std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/bowl_1000.obj";
  const Cell bowl = mesh_cell(path);
  const auto mesh = load_mesh_level_set(path, 1.0, SourceLocation{});
  struct Solid {
    const char* name;
    Cell cell;
    Quat attitude;
    double reach;  // m, more than the solid's bounding radius
  };
  const std::vector<Solid> solids{
      {"ball", make_cell({sphere(0.02)}), Quat::Identity(), 0.022},
      {"cylinder", make_cell({rod(PrimitiveKind::Cylinder, 0.015, 0.05)}),
       Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY())), 0.037},
      {"cone", make_cell({rod(PrimitiveKind::Cone, 0.02, 0.04)}), Quat(Eigen::AngleAxisd(M_PI, Vec3::UnitX())), 0.032},
      {"capsule", make_cell({rod(PrimitiveKind::Capsule, 0.012, 0.04)}),
       Quat(Eigen::AngleAxisd(1.2, Vec3(0.3, 1, 0).normalized())), 0.037},
      {"ellipsoid", make_cell({ellipsoid(Vec3(0.025, 0.02, 0.015))}),
       Quat(Eigen::AngleAxisd(0.4, Vec3(1, 0.5, 0).normalized())), 0.032},
      {"torus", make_cell({torus(0.02, 0.006)}), Quat(Eigen::AngleAxisd(0.5, Vec3(1, 0.3, 0).normalized())), 0.028}};
  std::printf("| solid | x (m) | V (m³) | µs per query, median of 15 | largest | V − V_rays, relative | path |%s\n",
              column ? " column engine, µs | its error |" : "");
  std::printf("|---|---|---|---|---|---|---|%s\n", column ? "---|---|" : "");
  for (const Solid& s : solids)
    for (const double x : {0.0, 0.012, 0.025})
      for (const double target : {1e-10, 1e-8, 1e-7}) {
        const Vec3 at(x, 0.002, 0);
        const double z = height_for_volume(bowl, Pose{}, s.cell, s.attitude, at, target, 0.0, 0.12, 60);
        const Pose pose{at + Vec3(0, 0, z), s.attitude};
        std::vector<double> us;
        Interference q;
        for (int r = 0; r < 15; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          q = interference(s.cell, pose, bowl, Pose{});
          us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(us.begin(), us.end());
        const double ref = reference_volume(*mesh, s.cell, pose, s.reach);
        std::printf("| %s | %.3f | %.2e | %.1f | %.1f | %+.1e | %s |", s.name, x, q.volume, us[7], us.back(),
                    q.volume / ref - 1, q.columns > 0 ? "column engine" : "prisms");
        if (column) {
          QueryOptions o;
          o.closed_forms = false;
          const auto t0 = std::chrono::steady_clock::now();
          const Interference c = interference(s.cell, pose, bowl, Pose{}, o);
          std::printf(" %.0f | %+.1e |", std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count(),
                      c.volume / ref - 1);
        }
        std::printf("\n");
        std::fflush(stdout);
      }
}
