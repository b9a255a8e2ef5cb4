// Curved against curved without a closed form (issue 17): time per query on one thread and the V difference from the
// column engine at tolerance 1e-5, for each pair at three attitudes and three depths. The pairs take the convex lens
// quadrature (geometry/convex_lens.h) or, with a torus, the torus sweep (geometry/torus_sweep.h); a row whose
// columns run into the thousands and more fell back to the column engine (the lens's estimate missed the tolerance,
// or the torus touches an edge the sweep does not take); the torus sweep reports no columns.
// Release build; not a test (timings depend on the machine).
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "benchmarks/bench_support.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

Primitive shape(PrimitiveKind kind, double radius, double length = 0, double radius_top = 0) {
  Primitive p;
  p.kind = kind;
  p.radius = radius, p.length = length, p.radius_top = radius_top;
  if (kind == PrimitiveKind::Torus) p.major_radius = length, p.minor_radius = radius;
  if (kind == PrimitiveKind::Ellipsoid) p.radii = Vec3(radius, 0.7 * radius, 0.5 * radius);
  return p;
}

Quat attitude(int k) {
  if (k == 0) return Quat::Identity();
  if (k == 1) return Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));  // on its side
  return Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));     // a generic one
}

}  // namespace

// How often the convex lens gives up on random attitudes: both bodies turned at random, b lowered (bisection on its
// height) to a random V in 1e-9 .. 1e-7 m³; a query the column engine served has a lattice spacing, the lens's has
// none. Where the lens served, its V against the column engine at tolerance 1e-5.
void fallbacks(const std::vector<std::pair<std::string, std::pair<Primitive, Primitive>>>& pairs, int poses) {
  std::printf("| pair | random poses | served by the lens | fell back to the column engine | largest |V − column engine| "
              "(rel.) where the lens served |\n|---|---|---|---|---|\n");
  QueryOptions reference;
  reference.closed_forms = false;
  reference.tolerance = 1e-5;
  std::mt19937 rng(2026);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> unit(0, 1);
  auto rotation = [&] { return Quat(g(rng), g(rng), g(rng), g(rng)).normalized(); };
  for (const auto& [name, shapes] : pairs) {
    const Cell a = bench::one_cell(shapes.first), b = bench::one_cell(shapes.second);
    int lens = 0, column = 0;
    double worst = 0;
    for (int k = 0; k < poses; ++k) {
      const Pose pa{Vec3::Zero(), rotation()};
      const Quat qb = rotation();
      const Vec3 at(0.02 * (unit(rng) - 0.5), 0.02 * (unit(rng) - 0.5), 0);
      const double target = std::pow(10.0, -9 + 2 * unit(rng));
      double lo = -0.3, hi = 0.4;
      for (int it = 0; it < 40; ++it) {
        const double z = 0.5 * (lo + hi);
        (interference(a, pa, b, Pose{at + Vec3(0, 0, z), qb}).volume > target ? lo : hi) = z;
      }
      const Interference x = interference(a, pa, b, Pose{at + Vec3(0, 0, hi), qb});
      if (!x.overlap) continue;
      (x.spacing > 0 ? column : lens) += 1;
      if (x.spacing == 0) {
        const Interference r = interference(a, pa, b, Pose{at + Vec3(0, 0, hi), qb}, reference);
        worst = std::max(worst, std::abs(x.volume / r.volume - 1));
      }
    }
    std::printf("| %s | %d | %d | %d | %.1e |\n", name.c_str(), lens + column, lens, column, worst);
  }
}

// Usage: bench_curved_pairs [name-prefix [attitude]]: only the pairs whose name starts with the prefix.
//        bench_curved_pairs --fallbacks [poses]: how often the lens falls back on random attitudes (default 100).
int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--fallbacks") {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    const int poses = argc > 2 ? std::atoi(argv[2]) : 100;
    fallbacks({{"crossed cylinders", {shape(PrimitiveKind::Cylinder, 0.05, 0.4), shape(PrimitiveKind::Cylinder, 0.03, 0.4)}},
               {"cylinder on a cone", {shape(PrimitiveKind::Cone, 0.05, 0.2, 0.01), shape(PrimitiveKind::Cylinder, 0.02, 0.3)}},
               {"capsule on a capsule", {shape(PrimitiveKind::Capsule, 0.03, 0.2), shape(PrimitiveKind::Capsule, 0.02, 0.15)}},
               {"ellipsoid on a ball", {shape(PrimitiveKind::Ellipsoid, 0.06), shape(PrimitiveKind::Sphere, 0.05)}}},
              poses);
    return 0;
  }
  const std::string only = argc > 1 ? argv[1] : "";
  const int only_attitude = argc > 2 ? std::atoi(argv[2]) : -1;
  struct Pair {
    std::string name;
    Primitive a, b;
    Quat qa = Quat::Identity();  // a's attitude (b's is the row's)
  };
  const std::vector<Pair> pairs = {
      {"crossed cylinders", shape(PrimitiveKind::Cylinder, 0.05, 0.4), shape(PrimitiveKind::Cylinder, 0.03, 0.4)},
      // a on its side: attitude 1 lays b exactly parallel along it, attitude 0 stands b's flat end on a's side.
      {"cylinder along a cylinder", shape(PrimitiveKind::Cylinder, 0.05, 0.4), shape(PrimitiveKind::Cylinder, 0.03, 0.4),
       attitude(1)},
      {"cylinder on a cone", shape(PrimitiveKind::Cone, 0.05, 0.2, 0.01), shape(PrimitiveKind::Cylinder, 0.02, 0.3)},
      {"capsule on a capsule", shape(PrimitiveKind::Capsule, 0.03, 0.2), shape(PrimitiveKind::Capsule, 0.02, 0.15)},
      {"ellipsoid on a ball", shape(PrimitiveKind::Ellipsoid, 0.06), shape(PrimitiveKind::Sphere, 0.05)},
      {"ball on a torus's tube", shape(PrimitiveKind::Torus, 0.015, 0.05), shape(PrimitiveKind::Sphere, 0.03)},
      {"torus around a cone (Sandia)", shape(PrimitiveKind::Cone, 0.3 * std::tan(10 * M_PI / 180), 0.3, 0.0),
       shape(PrimitiveKind::Torus, 0.015, 0.05)},
  };
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  std::printf("| pair | attitude of b | V (m³) | columns | V − column engine (rel.) | µs per query |\n|---|---|---|---|---|---|\n");
  QueryOptions reference;
  reference.closed_forms = false;
  reference.tolerance = 1e-5;
  if (const char* t = std::getenv("BENCH_REFERENCE_TOLERANCE")) reference.tolerance = std::atof(t);
  for (const Pair& p : pairs) {
    if (p.name.rfind(only, 0) != 0) continue;
    const Cell a = bench::one_cell(p.a), b = bench::one_cell(p.b);
    const Pose pa{Vec3::Zero(), p.qa};
    for (int k = 0; k < 3; ++k) {
      if (only_attitude >= 0 && k != only_attitude) continue;
      // b above a at attitude k, lowered until V reaches 1e-9, 1e-8 and 1e-7 m³ (bisection on the height).
      const Quat qb = attitude(k);
      // Over the tube for the ball (the torus's hole would let it through), near the axis otherwise.
      const bool on_tube = p.name.rfind("ball on a torus", 0) == 0;
      const Vec3 at = on_tube ? Vec3(0.05, 0.003, 0) : Vec3(0.004, 0.003, 0);
      for (double target : {1e-9, 1e-8, 1e-7}) {
        double lo = on_tube ? 0.0 : -0.3, hi = 0.4;  // V falls from lo to hi
        for (int it = 0; it < 50; ++it) {
          const double z = 0.5 * (lo + hi);
          (interference(a, pa, b, Pose{at + Vec3(0, 0, z), qb}).volume > target ? lo : hi) = z;
        }
        const Pose pb{at + Vec3(0, 0, hi), qb};
        QueryOptions mine;
        if (const char* t = std::getenv("BENCH_TOLERANCE")) mine.tolerance = std::atof(t);
        const Interference x = interference(a, pa, b, pb, mine);
        const Interference r = interference(a, pa, b, pb, reference);
        const double us = bench::median_us([&] { interference(a, pa, b, pb, mine); }, 7, 0.2);
        std::printf("| %s | %d | %.2e | %ld | %+.1e | %.1f |\n", p.name.c_str(), k, x.volume, x.columns,
                    x.volume / r.volume - 1, us);
      }
    }
  }
  return 0;
}
