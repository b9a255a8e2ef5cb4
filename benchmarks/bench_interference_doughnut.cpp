// Time per interference query and V error for Sandia's doughnut on a cone (torus R = 0.05 m, tube r = 0.015 m on a
// 10° cone, scenarios/validation/sandia_doughnut_cone.yaml) at its closed-form rest pose: a thin ring-shaped patch
// (an annulus ~0.2 mm wide at radius 35 mm seen along the axis), the case that sizes the lattice from the patch's
// width rather than its area (docs/geometry.md). V exact by Pappus (tests/validation_sandia_doughnut_test.cpp).
// The public query takes the tube mode (geometry/ruled_faces.h; the torus sweep until 2026-11-26); the column
// engine's row is kept for comparison.
// Release build; not a test (timings depend on the machine). Optional argument: the tilt of the torus (rad) about x.
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "benchmarks/bench_support.h"
#include "closed_forms/doughnut_on_cone.h"
#include "geometry/interference.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

using namespace doughnut;
constexpr double kA = kHalfAngle;


using bench::one_cell;


}  // namespace

int main(int argc, char** argv) {
  const double tilt = argc > 1 ? std::atof(argv[1]) : 0.0;
  Primitive torus, cone;
  torus.kind = PrimitiveKind::Torus;
  torus.major_radius = kR, torus.minor_radius = kr;
  cone.kind = PrimitiveKind::Cone;
  cone.radius = 0.3 * std::tan(kA), cone.radius_top = 0, cone.length = 0.3;
  const Cell tc = one_cell(torus), cc = one_cell(cone);
  // The scenario's rest depth, a shallower and a deeper one.
  std::printf("| depth d (µm) | path | tolerance | V rel. error | 1 thread (µs) |\n|---|---|---|---|---|\n");
  double lo = 0, hi = kr;  // rest depth: k_v V(d) = m g, k_v = 1e9 N/m³, m = 0.222066 kg
  for (int i = 0; i < 200; ++i) ((1e9 * ring_volume(0.5 * (lo + hi)) < 0.22206609902451058 * 9.8) ? lo : hi) = 0.5 * (lo + hi);
  const double rest = 0.5 * (lo + hi);
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 1);
  for (double d : {rest, 3e-6, 100e-6, 3e-3}) {
    const Pose pt{Vec3(0, 0, centre_height(d)), Quat(Eigen::AngleAxisd(tilt, Vec3::UnitX()))};
    const Pose pc{Vec3(0, 0, 0.15), Quat::Identity()};
    const double V = ring_volume(d);
    auto row = [&](const char* path, double tol, bool closed_forms) {
      QueryOptions o;
      o.tolerance = tol;
      o.closed_forms = closed_forms;
      const Interference x = interference(tc, pt, cc, pc, o);
      const double t = bench::median_us([&] { interference(tc, pt, cc, pc, o); }, closed_forms ? 21 : 3, 0.3);
      std::printf("| %.2f | %s | %.0e | %+.2e | %.1f |\n", d * 1e6, path, tol, tilt == 0 ? x.volume / V - 1 : x.volume,
                  t);
    };
    for (double tol : {1e-2, 1e-3, 1e-4, 1e-6}) row("tube mode", tol, true);
    if (d == rest) row("column engine", 1e-3, false);
  }
  return 0;
}
