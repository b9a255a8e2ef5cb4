// Issue 16: every primitive and every closed mesh against a plane or a box table, per query, with the closed forms
// (geometry/closed_form_pairs.h). Each shape is placed at several attitudes and at a resting depth (30 µm) and a
// deep one (1 mm) below its lowest point, against a half-space and against a 2 × 2 × 0.1 m box table (six planes),
// and compared with the column engine at tolerance 1e-5 (its error there is ~1e-5, docs/geometry.md): the
// printed V difference is the larger of the two engines' errors. Then the curved pairs with closed forms.
// Usage: bench_closed_forms [MESH.obj ...] (meshes are dropped the same way). Release build, one thread.
#include <tbb/global_control.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "benchmarks/bench_support.h"
#include "geometry/interference.h"
#include "tests/geometry_support.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

// The lowest world z of a primitive at attitude q with its frame at the origin (support function along −z).
double lowest(const Primitive& p, const Quat& q) {
  const Vec3 a = q * Vec3::UnitZ();
  const double s = std::sqrt(std::max(0.0, 1 - a.z() * a.z()));  // |horizontal part of the axis|
  switch (p.kind) {
    case PrimitiveKind::Cylinder: return -0.5 * p.length * std::abs(a.z()) - p.radius * s;
    case PrimitiveKind::Cone:
      return std::min(-0.5 * p.length * a.z() - p.radius * s, 0.5 * p.length * a.z() - p.radius_top * s);
    case PrimitiveKind::Capsule: return -0.5 * p.length * std::abs(a.z()) - p.radius;
    case PrimitiveKind::Ellipsoid: {
      const Mat3 R = q.toRotationMatrix();
      return -std::sqrt(std::pow(R(2, 0) * p.radii.x(), 2) + std::pow(R(2, 1) * p.radii.y(), 2) +
                        std::pow(R(2, 2) * p.radii.z(), 2));
    }
    case PrimitiveKind::Torus: return -p.major_radius * s - p.minor_radius;
    default: return 0;
  }
}

}  // namespace

int main(int argc, char** argv) {
  tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  struct Shape {
    std::string name;
    Primitive p;
  };
  std::vector<Shape> shapes;
  Primitive cyl = geometry_support::primitive(PrimitiveKind::Cylinder);
  cyl.radius = 0.05, cyl.length = 0.2;
  Primitive frustum = geometry_support::primitive(PrimitiveKind::Cone);
  frustum.radius = 0.05, frustum.radius_top = 0.02, frustum.length = 0.1;
  Primitive cone = frustum;
  cone.radius_top = 0;
  Primitive capsule = geometry_support::primitive(PrimitiveKind::Capsule);
  capsule.radius = 0.03, capsule.length = 0.1;
  Primitive ell = geometry_support::primitive(PrimitiveKind::Ellipsoid);
  ell.radii = Vec3(0.05, 0.04, 0.03);
  Primitive torus = geometry_support::primitive(PrimitiveKind::Torus);
  torus.major_radius = 0.05, torus.minor_radius = 0.015;
  shapes = {{"cylinder R 0.05 L 0.2", cyl},   {"frustum 0.05/0.02 L 0.1", frustum}, {"cone 0.05 L 0.1", cone},
            {"capsule R 0.03 L 0.1", capsule}, {"ellipsoid 0.05/0.04/0.03", ell},   {"torus 0.05/0.015", torus}};
  for (int k = 1; k < argc; ++k) {
    Primitive m = geometry_support::primitive(PrimitiveKind::Mesh);
    m.mesh_file = argv[k];
    std::string base = argv[k];
    base = base.substr(base.find_last_of('/') + 1);
    shapes.push_back({"mesh " + base, m});
  }
  // Attitudes: the axis (local z) horizontal (on the side; a torus standing on its rim), tilted 30° from vertical
  // (on a rim edge / a frustum's edge), vertical (on the end face; a torus flat), tip down, and a generic one.
  const std::vector<std::pair<std::string, Quat>> attitudes = {
      {"side", Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()))},
      {"tilt 30", Quat(Eigen::AngleAxisd(M_PI / 6, Vec3(1, 0.3, 0).normalized()))},
      {"upright", Quat::Identity()},
      {"tip down", Quat(Eigen::AngleAxisd(M_PI, Vec3::UnitX()))},
      {"generic", Quat(Eigen::AngleAxisd(1.234, Vec3(0.2, -0.7, 0.4).normalized()))}};
  Primitive half = geometry_support::primitive(PrimitiveKind::HalfSpace);
  Primitive table = geometry_support::primitive(PrimitiveKind::Box);
  table.size = Vec3(2, 2, 0.1);
  const Cell half_c = bench::one_cell(half), table_c = bench::one_cell(table);
  const Pose table_pose{Vec3(0.3, -0.2, -0.05), Quat::Identity()};
  QueryOptions exact, column;
  column.closed_forms = false;
  column.tolerance = 1e-5;
  std::printf("| shape | attitude | depth | support | closed form (us) | column engine tol 1e-5 (us) | V difference |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  double worst_us = 0, worst_dv = 0;
  for (const Shape& s : shapes) {
    const Cell c = bench::one_cell(s.p);
    for (const auto& [aname, q] : attitudes) {
      if (aname == "tip down" && s.p.kind != PrimitiveKind::Cone) continue;
      // The lowest point: closed form for primitives; for meshes, bisection on the query itself (the depth at
      // which V first becomes non-zero), which is exact to 1e-12 m.
      double z0;
      if (s.p.kind == PrimitiveKind::Mesh) {
        double lo = -1, hi = 1;
        for (int it = 0; it < 100; ++it) {
          const double mid = 0.5 * (lo + hi);
          const bool hit = interference(c, Pose{Vec3(0, 0, -mid), q}, half_c, Pose{}, exact).overlap;
          (hit ? hi : lo) = mid;
        }
        z0 = hi;
      } else {
        z0 = lowest(s.p, q);
      }
      for (const double depth : {30e-6, 1e-3}) {
        for (int support = 0; support < 2; ++support) {
          const Cell& other = support == 0 ? half_c : table_c;
          const Pose other_pose = support == 0 ? Pose{} : table_pose;
          const Pose pose{Vec3(0.0123, -0.0456, -z0 - depth), q};
          const Interference x = interference(c, pose, other, other_pose, exact);
          const double us = bench::median_us([&] { interference(c, pose, other, other_pose, exact); });
          const Interference r = interference(c, pose, other, other_pose, column);
          const double us_col = bench::median_us([&] { interference(c, pose, other, other_pose, column); }, 3, 0.05);
          const double dv = std::abs(x.volume / r.volume - 1);
          std::printf("| %s | %s | %.0f um | %s | %.2f%s | %.0f | %.1e |\n", s.name.c_str(), aname.c_str(),
                      depth * 1e6, support == 0 ? "half-space" : "box table", us, x.columns ? " (COLUMN)" : "",
                      us_col, dv);
          std::fflush(stdout);
          worst_us = std::max(worst_us, us);
          worst_dv = std::max(worst_dv, dv);
        }
      }
    }
  }
  std::printf("\nworst closed-form time %.2f us, worst V difference %.1e\n\n", worst_us, worst_dv);
  // Curved pairs with closed forms: a ball on a fixed ball, a ball against a cylinder's and a capsule's side.
  Primitive ball = geometry_support::primitive(PrimitiveKind::Sphere), small = ball;
  ball.radius = 0.1;
  small.radius = 0.03;
  const Cell ball_c = bench::one_cell(ball), small_c = bench::one_cell(small), cyl_c = bench::one_cell(cyl),
             capsule_c = bench::one_cell(capsule);
  const Quat side(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  struct Pair {
    const char* name;
    const Cell &a, &b;
    Pose pa, pb;
  };
  const std::vector<Pair> pairs = {
      {"ball R 0.03 on a ball R 0.1, 30 um", small_c, ball_c, Pose{Vec3(0.01, 0.02, 0.13 - 30e-6).normalized() * (0.13 - 30e-6), Quat::Identity()}, Pose{}},
      {"ball R 0.03 on a ball R 0.1, 1 mm", small_c, ball_c, Pose{Vec3(0.01, 0.02, 0.13 - 1e-3).normalized() * (0.13 - 1e-3), Quat::Identity()}, Pose{}},
      {"ball R 0.03 on a lying cylinder's side, 30 um", small_c, cyl_c, Pose{Vec3(0, 0.02, 0.08 - 30e-6), Quat::Identity()}, Pose{Vec3::Zero(), side}},
      {"ball R 0.03 on a lying capsule's side, 1 mm", small_c, capsule_c, Pose{Vec3(0, 0.0, 0.06 - 1e-3), Quat::Identity()}, Pose{Vec3::Zero(), side}}};
  std::printf("| pair | closed form (us) | column engine tol 1e-5 (us) | V difference |\n|---|---|---|---|\n");
  for (const Pair& p : pairs) {
    const Interference x = interference(p.a, p.pa, p.b, p.pb, exact), r = interference(p.a, p.pa, p.b, p.pb, column);
    const double us = bench::median_us([&] { interference(p.a, p.pa, p.b, p.pb, exact); });
    const double us_col = bench::median_us([&] { interference(p.a, p.pa, p.b, p.pb, column); }, 3, 0.05);
    std::printf("| %s | %.2f%s | %.0f | %.1e |\n", p.name, us, x.columns ? " (COLUMN)" : "", us_col,
                std::abs(x.volume / r.volume - 1));
  }
  return 0;
}
