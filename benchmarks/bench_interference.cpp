// Time per interference query against the V error achieved, on 1 and 2 threads, for the three
// cases of issue 3, a ball on a box table and a ball in ball_in_cylinder's groove. Prints a Markdown table and the fitted exponent of cost vs lattice spacing.
// Release build; not a test (timings depend on the machine).
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "benchmarks/bench_support.h"
#include "engine/io/scenario_loader.h"
#include "geometry/interference.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

using bench::one_cell;

struct Case {
  const char* name;
  Cell ci, cj;
  Pose pi, pj;
  double V_exact;
};


}  // namespace

int main() {
  Primitive ball, small_ball, table, box;
  ball.kind = small_ball.kind = PrimitiveKind::Sphere;
  ball.radius = 0.1;
  small_ball.radius = 0.015;
  table.kind = PrimitiveKind::HalfSpace;
  box.kind = PrimitiveKind::Box;
  box.size = Vec3(0.5, 0.5, 0.2);
  Primitive table_box = box;  // ball_on_table's table: a 2 x 2 x 0.1 m box, top face at z = 0
  table_box.size = Vec3(2.0, 2.0, 0.1);
  const Cell ball_c = one_cell(ball), small_c = one_cell(small_ball), table_c = one_cell(table), box_c = one_cell(box);
  const Cell table_box_c = one_cell(table_box);
  auto cap = [](double R, double h) { return M_PI * h * h * (3 * R - h) / 3; };
  // ball_in_cylinder's grooved block, read from its scenario: box ∩ complement of a 1 m cylinder along Y, groove
  // bottom at z = 0.
  const Scenario groove_scene = load_scenario(std::string(VCSIM_SOURCE_DIR) + "/scenarios/ball_in_cylinder.yaml");
  const auto block = std::find_if(groove_scene.bodies.begin(), groove_scene.bodies.end(),
                                  [](const BodySpec& b) { return b.name == "block"; });
  const Cell groove_c = make_body_geometry(*block->geometry, "").cells.at(0);
  const std::vector<Case> cases{
      {"sphere R=0.1 m, h=2.5 mm", ball_c, table_c, Pose{Vec3(0.0123, -0.0456, 0.1 - 2.5e-3), Quat::Identity()}, Pose{},
       cap(0.1, 2.5e-3)},
      {"sphere R=0.1 m on a box table, h=2.5 mm", ball_c, table_box_c,
       Pose{Vec3(0.0123, -0.0456, 0.1 - 2.5e-3), Quat::Identity()}, Pose{Vec3(0, -0.7, -0.05), Quat::Identity()},
       cap(0.1, 2.5e-3)},
      {"box 0.5x0.5 m face, h=0.1 mm", box_c, table_c, Pose{Vec3(0.0123, -0.0456, 0.1 - 1e-4), Quat::Identity()},
       Pose{}, 0.25 * 1e-4},
      {"sphere R=15 mm, h=8.3 um", small_c, table_c, Pose{Vec3(0.0123, -0.0456, 0.015 - 8.3e-6), Quat::Identity()},
       Pose{}, cap(0.015, 8.3e-6)},
      // V: shell integrals around the ball's centre by a 30-digit mpmath quadrature (docs/geometry.md).
      {"sphere R=0.1 m in a 1 m groove, h=2.5 mm", ball_c, groove_c,
       Pose{Vec3(0, 0.7, 0.1 - 2.5e-3), Quat::Identity()}, Pose{}, 2.05049256437146e-6},
  };
  std::printf("| case | engine | tolerance | spacing (m) | columns | V rel. error | 1 thread (us) | 2 threads (us) |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    // The closed form (planar cells, sphere caps) where the pair has one: no tolerance, no lattice.
    QueryOptions exact;
    const Interference xe = interference(c.ci, c.pi, c.cj, c.pj, exact);
    if (xe.columns == 0) {
      double t[2];
      for (int threads : {1, 2}) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads);
        t[threads - 1] = bench::median_us([&] { interference(c.ci, c.pi, c.cj, c.pj, exact); });
      }
      std::printf("| %s | closed form | - | - | 0 | %.2e | %.2f | %.2f |\n", c.name, std::abs(xe.volume / c.V_exact - 1),
                  t[0], t[1]);
    }
    // The column engine (every pair): cost and error against the tolerance.
    std::vector<double> logs, logt;
    for (double tol : {1e-2, 3e-3, 1e-3, 3e-4, 1e-4}) {
      QueryOptions o;
      o.tolerance = tol;
      o.closed_forms = false;
      const Interference x = interference(c.ci, c.pi, c.cj, c.pj, o);
      double t[2];
      for (int threads : {1, 2}) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads);
        t[threads - 1] = bench::median_us([&] { interference(c.ci, c.pi, c.cj, c.pj, o); });
      }
      std::printf("| %s | column | %.0e | %.3e | %ld | %.2e | %.1f | %.1f |\n", c.name, tol, x.spacing, x.columns,
                  std::abs(x.volume / c.V_exact - 1), t[0], t[1]);
      logs.push_back(std::log(x.spacing));
      logt.push_back(std::log(t[0]));
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const double m = static_cast<double>(logs.size());
    for (size_t k = 0; k < logs.size(); ++k) sx += logs[k], sy += logt[k], sxx += logs[k] * logs[k], sxy += logs[k] * logt[k];
    std::printf("| %s | column: fitted cost ∝ spacing^%.2f (1 thread) | | | | | | |\n", c.name,
                (m * sxy - sx * sy) / (m * sxx - sx * sx));
  }
  return 0;
}
