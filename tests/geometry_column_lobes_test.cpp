// Overlaps with two separate lobes through the column engine (closed forms off): every lobe the coarse pass's
// octree cull cannot rule out must be integrated, not only the one whose columns the first lattice hit
// (docs/geometry.md, "Known column engine defects", "A second lobe missed"). Expected values are independent:
// a 1-D/2-D Gauss-Legendre quadrature of the torus's meridian section for the box across the ring, and Monte Carlo
// plus the torus sweep (a different algorithm, geometry/torus_sweep.h) for Sandia's tilted torus on its cone.
#include <catch2/catch.hpp>

#include <tbb/global_control.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "geometry/cell_impl.h"
#include "geometry/torus_sweep.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

// Torus (major R, minor r, ring in the xy plane, centred at the origin) ∩ the slab |x - x0| <= w/2 ∩ {y >= y_a}, with
// y_a < -(R - r) (the box's end cuts the far side of the ring only, at its outer equator) and |x0| + w/2 < R - r.
// In the plane x = const the torus section is the set of points at distance ρ = sqrt(x² + y²) from the axis with
// (ρ − R)² + z² <= r²: its y > 0 half has area A(x) = ∫ 2 sqrt(r² − (ρ − R)²) ρ / sqrt(ρ² − x²) dρ over
// [R − r, R + r] (dy = ρ dρ / y); the y < 0 half is cut at y >= y_a, i.e. ρ <= sqrt(x² + y_a²). With
// ρ = R + r sin θ the integrand is smooth, and so is A in x: Gauss-Legendre in θ and in x converges geometrically.
double torus_slab_volume(double R, double r, double x0, double w, double y_a) {
  std::vector<double> gx, gw;
  gauss_legendre(64, gx, gw);
  auto half_area = [&](double x, double theta_max) {
    const double a = -M_PI / 2, b = theta_max;
    double sum = 0;
    for (size_t k = 0; k < gx.size(); ++k) {
      const double th = 0.5 * (a + b) + 0.5 * (b - a) * gx[k];
      const double rho = R + r * std::sin(th);
      sum += gw[k] * 2 * r * r * std::cos(th) * std::cos(th) * rho / std::sqrt(rho * rho - x * x);
    }
    return 0.5 * (b - a) * sum;
  };
  double V = 0;
  for (size_t k = 0; k < gx.size(); ++k) {
    const double x = x0 + 0.5 * w * gx[k];
    const double rho_max = std::sqrt(x * x + y_a * y_a);
    const double th_max = std::asin(std::clamp((rho_max - R) / r, -1.0, 1.0));
    V += gw[k] * 0.5 * w * (half_area(x, M_PI / 2) + half_area(x, th_max));
  }
  return V;
}

}  // namespace

TEST_CASE("The torus section quadrature reproduces Pappus for a full slab", "[geometry][lobes]") {
  // Check of the reference itself: a slab through the axis that does not cut the far side (y_a beyond the ring)
  // gives 2 ∫ A(x) dx; for w -> 0 the slice at x = 0 is two discs: A(0) = π r², V -> 2 π r² w.
  const double R = 0.05, r = 0.015, w = 1e-6;
  const double V = torus_slab_volume(R, r, 0, w, -1.0);
  CHECK(std::abs(V / (2 * M_PI * r * r * w) - 1) < 1e-9);
}

TEST_CASE("A box across a torus's ring: a full lobe and a thin one", "[geometry][lobes]") {
  // Torus lying flat (R 0.05, r 0.015); a box 0.01 wide in x, 0.3 tall in z, reaching in y from beyond the ring on the
  // y > 0 side to y_a = -(R - r) - δ, just past the inner equator of the tube on the y < 0 side. Its overlap: the
  // whole tube section on the y > 0 side (7.1e-6 m³) and a sliver δ deep on the y < 0 side: two lobes 0.07 m apart.
  const double R = 0.05, r = 0.015, w = 0.01;
  const Cell t = make_cell({torus(R, r)});
  for (double x0 : {0.0021, -0.0093})
    for (double delta : {0.4e-3, 1e-3, 1.5e-3}) {
      const double y_a = -(R - r) - delta, y_b = R + r + 0.01;
      const Cell b = make_cell({box(Vec3(w, y_b - y_a, 0.3))});
      const Pose pb{Vec3(x0, 0.5 * (y_a + y_b), 0.0), Quat::Identity()};
      const double exact = torus_slab_volume(R, r, x0, w, y_a);
      const double sliver = exact - 0.5 * torus_slab_volume(R, r, x0, w, -1.0);  // the y < 0 lobe
      for (double tol : {1e-3, 1e-5}) {
        const Interference x = interference(t, Pose{}, b, pb, column_engine(tol));
        const double err = x.volume / exact - 1;
        std::printf("box across torus, x0 %g delta %g tol %.0e: V %.10e exact %.10e (err %+.2e, sliver %.2e), %ld columns\n",
                    x0, delta, tol, x.volume, exact, err, sliver / exact, x.columns);
        // Here the coarse columns, along the box's long side, cross both lobes (one patch, two intervals a column):
        // a check of the multi-interval columns against the quadrature. Limit 5 × the tolerance: measured 1.2e-3 to
        // 2.8e-3 at 1e-3 and ≤ 4.9e-5 at 1e-5 (the box's walls cross the tube, whose kinks a non-convex pair's
        // lattice does not split).
        CHECK(std::abs(err) < 5 * tol);
      }
    }
}


// A flat torus (major R, minor r, ring in the xy plane) on a tilted table strip: the cell |x - x0| <= w/2,
// z <= z0 + t y. Its two contact lobes lie under the ring near y = ±R. Along z the overlap column at (x, y) is
// [-h, min(h, z0 + t y)], h = sqrt(r² − (ρ − R)²), ρ = sqrt(x² + y²), so V = ∫∫ max(0, z0 + t y + h) dy dx (the plane
// stays above the ring's top, z0 + t y < h being false only where the column is cut). For each x the positive
// stretch of f(y) = z0 + t y + h around each lobe's centre y = ±sqrt(R² − x²) is located by bisection and
// integrated by Gauss-Legendre (f is smooth inside it and crosses 0 transversally at its ends); x likewise (the
// strip is narrower than the lobes, so their ends in y move smoothly with x).
double torus_on_strip_volume(double R, double r, double x0, double w, double z0, double t, int only_side = 0) {
  std::vector<double> gx, gw;
  gauss_legendre(48, gx, gw);
  auto f = [&](double x, double y) {
    const double rho = std::sqrt(x * x + y * y), e = r * r - (rho - R) * (rho - R);
    return e > 0 ? z0 + t * y + std::sqrt(e) : -r;
  };
  auto end = [&](double x, double in, double out) {  // f(in) > 0 >= f(out)
    for (int it = 0; it < 200; ++it) {
      const double m = 0.5 * (in + out);
      (f(x, m) > 0 ? in : out) = m;
    }
    return 0.5 * (in + out);
  };
  double V = 0;
  for (size_t k = 0; k < gx.size(); ++k) {
    const double x = x0 + 0.5 * w * gx[k];
    for (int side : {-1, 1}) {
      if (only_side != 0 && side != only_side) continue;
      const double yc = side * std::sqrt(R * R - x * x);
      // The maximum of f near yc (the tilt moves it by ~t r): golden-section search on [yc − r, yc + r].
      double a = yc - 0.5 * r, b = yc + 0.5 * r;
      for (int it = 0; it < 200; ++it) {
        const double m1 = a + 0.382 * (b - a), m2 = a + 0.618 * (b - a);
        (f(x, m1) < f(x, m2) ? a : b) = f(x, m1) < f(x, m2) ? m1 : m2;
      }
      const double ym = 0.5 * (a + b);
      if (!(f(x, ym) > 0)) continue;
      const double y0 = end(x, ym, ym - r), y1 = end(x, ym, ym + r);
      double inner = 0;
      for (size_t j = 0; j < gx.size(); ++j)
        inner += gw[j] * std::max(0.0, f(x, 0.5 * (y0 + y1) + 0.5 * (y1 - y0) * gx[j]));
      V += gw[k] * 0.5 * w * 0.5 * (y1 - y0) * inner;
    }
  }
  return V;
}

TEST_CASE("A flat torus on a tilted table strip: a deep lobe and a shallow one", "[geometry][lobes]") {
  // Torus R 0.05, r 0.015; the strip 6 mm wide in x; the plane cuts d+ = 1 mm into the tube's bottom at y = +R and
  // d- = 0.03-0.08 mm at y = -R: two lobes 0.1 m apart, the shallow one ~2 mm wide in y and 0.03-0.08 mm deep, far
  // narrower than the coarse lattice's spacing (~8 mm): the coarse columns hit only the deep lobe. Before the fix the
  // engine lost the shallow lobe in all nine poses (errors -0.53 % to -2.4 % at tolerance 1e-4).
  const double R = 0.05, r = 0.015, w = 0.006, d_plus = 1e-3;
  const Cell t = make_cell({torus(R, r)});
  for (double x0 : {0.0017, 0.0043, -0.0061})
    for (double d_minus : {0.03e-3, 0.05e-3, 0.08e-3}) {
      const double z0 = -r + 0.5 * (d_plus + d_minus), slope = (d_plus - d_minus) / (2 * R);
      const Primitive plane =
          halfspace(Pose{Vec3(0, 0, z0), Quat(Eigen::AngleAxisd(std::atan(slope), Vec3::UnitX()))});
      const Cell strip = make_cell({plane, box(Vec3(w, 0.3, 0.3), Pose{Vec3(x0, 0, z0 - 0.1), Quat::Identity()})});
      const double exact = torus_on_strip_volume(R, r, x0, w, z0, slope);
      const double shallow = torus_on_strip_volume(R, r, x0, w, z0, slope, -1) / exact;  // the lobe at y = -R
      for (double tol : {1e-3, 1e-4}) {
        const Interference x = interference(t, Pose{}, strip, Pose{}, column_engine(tol));
        const double err = x.volume / exact - 1;
        std::printf("torus on strip, x0 %+.4f d- %.2g mm, tol %.0e: V %.10e exact %.10e (err %+.2e, shallow lobe "
                    "%.2e of V), %ld columns\n",
                    x0, d_minus * 1e3, tol, x.volume, exact, err, shallow, x.columns);
        // Limit: 3 × the tolerance (measured with both lobes found: ≤ 2.3e-4 at 1e-4; at 1e-3 the lattice is 10×
        // coarser over lobes 0.05 mm deep). The lost lobe would be -shallow, 5e-3 to 2.4e-2, beyond it at 1e-4.
        CHECK(std::abs(err) < 3 * tol);
        if (tol == 1e-4) CHECK(shallow > 3 * tol);  // the check above would see the shallow lobe lost
      }
    }
}

TEST_CASE("Sandia's torus tilted 0.7 rad about (1, 2, 3) at its cone's tip: both lobes", "[geometry][lobes]") {
  // benchmarks/bench_curved_pairs.cpp, attitude 2, V = 1e-7 row: the cone (bottom radius 0.3 tan 10°, length 0.3,
  // tip up) and the ring torus (R 0.05, r 0.015) at (0.004, 0.003, z) rotated 0.7 rad about (1, 2, 3).
  Primitive cone;
  cone.kind = PrimitiveKind::Cone;
  cone.radius = 0.3 * std::tan(10 * M_PI / 180), cone.length = 0.3, cone.radius_top = 0;
  const Cell a = make_cell({cone}), b = make_cell({torus(0.05, 0.015)});
  const Quat qb(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  const Vec3 at(0.004, 0.003, 0);
  // The benchmark's pose: bisection on the height for V = 1e-7 with the default query (the torus sweep). Only the
  // pose comes from it; the expected value below does not.
  double lo = -0.3, hi = 0.4;
  for (int it = 0; it < 50; ++it) {
    const double z = 0.5 * (lo + hi);
    (interference(a, Pose{}, b, Pose{at + Vec3(0, 0, z), qb}).volume > 1e-7 ? lo : hi) = z;
  }
  const Pose pb{at + Vec3(0, 0, hi), qb};
  // Independent reference: the torus sweep, which integrates the torus's meridian discs (no lattice, no coarse pass)
  // at tolerance 1e-7. (benchmarks/README.md's Monte Carlo value 1.511e-7 belongs to the pose the benchmark found when
  // it bisected on the column engine; it now bisects on the sweep, which puts V at 1e-7.)
  const auto sweep = torus_sweep_moments(b.impl->prims, pb, a.impl->prims, Pose{}, Vec3::Zero(), 1e-7);
  REQUIRE(sweep);
  std::printf("Sandia tilted: z %.9f, torus sweep V %.10e\n", hi, sweep->m0);
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    for (double tol : {1e-3, 1e-5}) {
      const Interference x = interference(a, Pose{}, b, pb, column_engine(tol));
      const double err = x.volume / sweep->m0 - 1;
      std::printf("Sandia tilted, tol %.0e: V %.10e (vs sweep %+.2e), %ld columns\n", tol, x.volume, err, x.columns);
      // Before the fix: 3.499e-8 and 3.500e-8 (-65 %, one lobe). With both lobes: -2.5e-2 and -7.3e-4. The rest is
      // this pair's lattice error, which converges slowly here (the fine passes at s and 2s differ by 8 %): limits
      // 3e-2 at tolerance 1e-3 and 1.5e-3 at 1e-5, each 20× below the lost lobe.
      CHECK(std::abs(err) < (tol > 1e-4 ? 3e-2 : 1.5e-3));
    }
  }
  // The lobe search is serial: bitwise identical on 1 and 2 threads.
  auto run = [&](int threads) {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads);
    return interference(a, Pose{}, b, pb, column_engine(1e-5));
  };
  const Interference one_thread = run(1), two_threads = run(2);
  CHECK(std::memcmp(&one_thread.volume, &two_threads.volume, sizeof(double)) == 0);
  CHECK(std::memcmp(one_thread.centroid.data(), two_threads.centroid.data(), 3 * sizeof(double)) == 0);
}

TEST_CASE("Single-lobe cost: a ball on a torus's tube", "[.][lobes_cost]") {
  // Hidden: timing only (µs per query and columns, 1 thread), for before/after comparisons.
  const Cell t = make_cell({torus(0.05, 0.015)}), ball = make_cell({sphere(0.03)});
  const Pose pb{Vec3(0.05, 0.003, 0.015 + 0.03 - 0.004), Quat::Identity()};
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  for (double tol : {1e-3, 1e-5}) {
    const Interference x = interference(t, Pose{}, ball, pb, column_engine(tol));
    const int n = tol > 1e-4 ? 20 : 3;
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < n; ++k) interference(t, Pose{}, ball, pb, column_engine(tol));
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    std::printf("ball on tube, tol %.0e: V %.17g, %ld columns, %.0f us\n", tol, x.volume, x.columns, us);
  }
}
