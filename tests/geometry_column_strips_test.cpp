// The column engine (closed_forms = false) on long thin strips: a cylinder lying parallel on another, and a cylinder
// lying across another's flat end (docs/geometry.md, "Known column engine defects"). Their contact is a strip up to
// 3000 times longer than wide; the width rule's square lattice over it passed 2^22 squares at tolerance 1e-5, the pass
// reported nothing and the query fell back on the coarse pass: 20-60 % low. References are independent of the code:
// the circles' lens area (closed form) times the shared length, and a 1-D integral across the strip.
// A torus on its side around a cone's apex, against a polar quadrature about the apex.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

// α − sin α cos α = (x − sin x) / 2 with x = 2α, by its series where it cancels (relative error < 1e-15 for α < 0.2).
double segment_shape(double alpha) {
  const double x = 2 * alpha;
  if (x > 0.4) return 0.5 * (x - std::sin(x));
  double term = x * x * x / 6, sum = 0;
  for (int k = 1; k < 12; ++k) {
    sum += term;
    term *= -x * x / ((2 * k + 2) * (2 * k + 3));
  }
  return 0.5 * sum;
}

// The lens of two circles (radii a, b) whose centres are a + b − depth apart: two circular segments cut by the common
// chord. Written in the depth so that nothing cancels: the textbook formula (a² acos(..) + b² acos(..) − kite) loses
// ~1e-5 of the area at depth 1e-7 (terms 6e-6 for a lens of 8e-12 m²).
double lens_area(double a, double b, double depth) {
  const double d = a + b - depth;
  // The distance from a's centre to the chord: a − p = depth (2b − depth) / (2d) (the half chord follows from it).
  const double ap = depth * (2 * b - depth) / (2 * d);
  const double half_chord = std::sqrt(ap * (2 * a - ap));
  return a * a * segment_shape(std::asin(half_chord / a)) + b * b * segment_shape(std::asin(half_chord / b));
}

// Upright cylinder A (radius ra, top face at z = top) under cylinder B (radius rb, along x, axis at y = yb, z = zb),
// B long enough to span A's disc: at each y the section is |x| <= X = √(ra² − y²) by z from B's lower side
// zl = zb − √(rb² − (y − yb)²) up to the top. V = ∫ 2 X (top − zl) dy over the strip, by n-point Gauss–Legendre
// under the sine map y = yb − w cos θ (the depth vanishes linearly at ±w; the map keeps the rule geometric).
double lying_across(double ra, double top, double rb, double yb, double zb, int n) {
  std::vector<double> x, w;
  gauss_legendre(n, x, w);
  const double half = std::sqrt(rb * rb - (zb - top) * (zb - top));
  double V = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double theta = 0.5 * M_PI * (x[i] + 1), wt = w[i] * 0.5 * M_PI * half * std::sin(theta);
    const double y = yb - half * std::cos(theta);
    const double X = std::sqrt(ra * ra - y * y);
    const double zl = zb - std::sqrt(std::max(rb * rb - (y - yb) * (y - yb), 0.0));
    V += wt * 2 * X * std::max(top - zl, 0.0);
  }
  return V;
}

}  // namespace

TEST_CASE("column strips: the lens formula written in the depth agrees with the textbook one where neither cancels",
          "[geometry][column_strips]") {
  // At depth 1e-3 the textbook formula loses ~1e-11 only: the two must agree to 1e-9.
  const double a = 0.05, b = 0.03, depth = 1e-3, d = a + b - depth;
  const double textbook = a * a * std::acos((d * d + a * a - b * b) / (2 * d * a)) +
                          b * b * std::acos((d * d + b * b - a * a) / (2 * d * b)) -
                          0.5 * std::sqrt((-d + a + b) * (d + a - b) * (d - a + b) * (d + a + b));
  CHECK(rel(lens_area(a, b, depth), textbook) < 1e-9);
}

TEST_CASE("column strips: a cylinder lying parallel on another, against the circles' lens times the length",
          "[geometry][column_strips]") {
  // Both along x (the poses of geometry_convex_lens_test and bench_curved_pairs' "cylinder along a cylinder",
  // attitude 1): the intersection is the lens of the two cross-sections times the shared length 0.4 − 0.004, its
  // centroid at x = 0.002. Columns run across the axes, parallel to the caps. Strips 0.12-3.9 mm wide, 0.396 m long.
  // Tolerance: the query's own, on V and on the centroid along the strip (relative to the length); before the fix
  // depths ≤ 1e-5 were 28-61 % low at tolerance 1e-5.
  const double ra = 0.05, rb = 0.03, half = 0.2;
  const Cell A = make_cell({rod(PrimitiveKind::Cylinder, ra, 2 * half)});
  const Cell B = make_cell({rod(PrimitiveKind::Cylinder, rb, 2 * half)});
  const Quat on_side(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));
  const Vec3 at(0.004, 0.003, 0);
  for (double tol : {1e-3, 1e-5}) {
    QueryOptions column;
    column.closed_forms = false;
    column.tolerance = tol;
    for (double depth : {1e-7, 1e-6, 1e-5, 1e-4}) {
      const double d = ra + rb - depth, zb = std::sqrt(d * d - at.y() * at.y());
      const double length = 2 * half - at.x(), V = lens_area(ra, rb, depth) * length;
      const Interference q =
          interference(A, Pose{Vec3::Zero(), on_side}, B, Pose{at + Vec3(0, 0, zb), on_side}, column);
      INFO("tolerance " << tol << ", depth " << depth);
      REQUIRE(q.overlap);
      std::printf("parallel cylinders, tol %.0e, depth %.0e: V %.4e, V err %+.2e, centroid x err %.2e, %ld columns\n",
                  tol, depth, V, q.volume / V - 1, std::abs(q.centroid.x() - 0.5 * at.x()) / length, q.columns);
      CHECK(rel(q.volume, V) < tol);
      CHECK(std::abs(q.centroid.x() - 0.5 * at.x()) < tol * length);
    }
  }
}

TEST_CASE("column engine: a tolerance its lattice budget cannot meet gets the finest lattice that fits, and says so",
          "[geometry][column_strips]") {
  // Two balls (a, b) whose centres are d apart: the lens's volume in closed form, π (a + b − d)² (d² + 2d(a + b) −
  // 3(a − b)²) / (12 d). The width rule asks for 0.49 / tol squares over the patch: 4.9e6 at tol 1e-7, over the
  // lattice's 2^22. Until 2026-11-28 the overflow returned the coarse pass's estimate silently (a frustum on a torus at
  // 1e-7: 29 % low). Now the finest lattice that fits serves and the answer is flagged. Tolerance 1e-6: a lattice of
  // ~2^22 squares is the width rule's at tol ≈ 1.2e-7; tenfold for the Richardson step's residual.
  const double a = 0.03, b = 0.02, d = 0.045;
  const double V = M_PI * (a + b - d) * (a + b - d) * (d * d + 2 * d * (a + b) - 3 * (a - b) * (a - b)) / (12 * d);
  const Cell A = make_cell({sphere(a)}), B = make_cell({sphere(b)});
  const Quat turned(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()));
  for (double tol : {1e-5, 1e-7}) {
    QueryOptions column;
    column.closed_forms = false;
    column.tolerance = tol;
    const Interference q = interference(A, Pose{Vec3::Zero(), turned}, B, Pose{turned * Vec3(0, 0, d), turned}, column);
    INFO("tolerance " << tol);
    REQUIRE(q.overlap);
    REQUIRE(q.columns > 0);  // the column engine served
    std::printf("two balls, column engine at tol %.0e: V err %+.2e, %ld columns, coarsened %d\n", tol, q.volume / V - 1,
                q.columns, static_cast<int>(q.coarsened));
    CHECK(q.coarsened == (tol < 1e-6));
    CHECK(rel(q.volume, V) < std::max(tol, 1e-6));
  }
}

TEST_CASE("column strips: a cylinder lying across a flat end, against its 1-D integral", "[geometry][column_strips]") {
  // B (radius 0.03) on its side along x across A's top face (radius 0.05), d deep: bench_curved_pairs' "crossed
  // cylinders", attitude 1, V 3e-11 to 9e-8 m³, strips 0.5-7 mm wide and ~0.1 m long (the column engine was 33 % off
  // here at tolerance 1e-6). The reference's own error: 400 against 800 points, below 1e-12 (checked). Tolerance: the
  // query's own, on V; 1e-6 once, at d = 1e-5.
  const double ra = 0.05, la = 0.4, rb = 0.03, top = 0.5 * la;
  const Cell A = make_cell({rod(PrimitiveKind::Cylinder, ra, la)});
  const Cell B = make_cell({rod(PrimitiveKind::Cylinder, rb, 0.4)});
  const Quat on_side(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));
  const Vec3 at(0.004, 0.003, 0);
  struct Case {
    double tol, d;
  };
  std::vector<Case> cases;
  for (double tol : {1e-3, 1e-5})
    for (double d : {1e-6, 1e-5, 5e-5, 2e-4}) cases.push_back({tol, d});
  cases.push_back({1e-6, 1e-5});
  for (const Case& c : cases) {
    const double zb = top + rb - c.d;
    const double V = lying_across(ra, top, rb, at.y(), zb, 400);
    REQUIRE(rel(lying_across(ra, top, rb, at.y(), zb, 800), V) < 1e-12);
    QueryOptions column;
    column.closed_forms = false;
    column.tolerance = c.tol;
    const Interference q = interference(A, Pose{}, B, Pose{at + Vec3(0, 0, zb), on_side}, column);
    INFO("tolerance " << c.tol << ", depth " << c.d);
    REQUIRE(q.overlap);
    std::printf("lying across an end, tol %.0e, d %.0e: V %.4e, V err %+.2e, %ld columns\n", c.tol, c.d, V,
                q.volume / V - 1, q.columns);
    CHECK(rel(q.volume, V) < c.tol);
  }
}

namespace {

// A cone's apex (at the origin's axis, z = apex, half-angle atan t, pointing up) inside the lower side of a ring torus
// lying on its side (axis x, centre C, radii R, r): along vertical lines the torus's lower tube is the interval
// [C.z − √((R + a)² − qy²), C.z − √((R − a)² − qy²)] with a = √(r² − qx²), q = (x, y) − C, and the cone is below
// z = apex − ρ / t. V = ∫ dφ ∫ ρ dρ (top − bottom), polar about the apex so the integrand is smooth in ρ (the apex's
// kink is the origin): each ray's rim by bisection, 48-point Gauss–Legendre in ρ, the periodic trapezoid in φ
// (geometric convergence: 32 and 256 angles agree to 1e-12).
double apex_in_torus(double apex, double t, const Vec3& C, double R, double r, int nphi) {
  std::vector<double> x, w;
  gauss_legendre(48, x, w);
  auto tube = [&](double X, double Y, double& bottom, double& inner) {
    const double qx = X - C.x(), qy = Y - C.y(), a = std::sqrt(std::max(r * r - qx * qx, 0.0));
    bottom = C.z() - std::sqrt((R + a) * (R + a) - qy * qy);
    const double in2 = (R - a) * (R - a) - qy * qy;
    inner = in2 > 0 ? C.z() - std::sqrt(in2) : C.z();
  };
  double V = 0;
  for (int k = 0; k < nphi; ++k) {
    const double phi = 2 * M_PI * k / nphi, c = std::cos(phi), s = std::sin(phi);
    auto gap = [&](double rho) {
      double bottom, inner;
      tube(rho * c, rho * s, bottom, inner);
      return apex - rho / t - bottom;
    };
    double lo = 0, hi = 1e-4;
    while (gap(hi) > 0) hi *= 2;
    for (int it = 0; it < 200; ++it) (gap(0.5 * (lo + hi)) > 0 ? lo : hi) = 0.5 * (lo + hi);
    for (size_t i = 0; i < x.size(); ++i) {
      const double rho = 0.5 * lo * (1 + x[i]);
      double bottom, inner;
      tube(rho * c, rho * s, bottom, inner);
      V += 0.5 * lo * w[i] * rho * std::max(std::min(apex - rho / t, inner) - bottom, 0.0) * 2 * M_PI / nphi;
    }
  }
  return V;
}

// The same for a torus at any pose (axis: the pose's z), the cone's part above the tube's lower side being inside the
// tube (its apex a few mm in): along each vertical line the lower side by bisection on the torus's inequality
// between the cone's surface (inside) and 0.1 m below it (under the ring), the rest as above.
double apex_in_posed_torus(double apex, double t, const Pose& torus, double R, double r, int nphi) {
  std::vector<double> x, w;
  gauss_legendre(48, x, w);
  auto inside = [&](double X, double Y, double Z) {
    const Vec3 p = torus.apply_inverse(Vec3(X, Y, Z));
    const double a = std::hypot(p.x(), p.y()) - R;
    return a * a + p.z() * p.z() < r * r;
  };
  double V = 0;
  for (int k = 0; k < nphi; ++k) {
    const double phi = 2 * M_PI * k / nphi, c = std::cos(phi), s = std::sin(phi);
    double lo = 0, hi = 1e-4;
    while (inside(hi * c, hi * s, apex - hi / t)) hi *= 2;
    for (int it = 0; it < 100; ++it) {
      const double m = 0.5 * (lo + hi);
      (inside(m * c, m * s, apex - m / t) ? lo : hi) = m;
    }
    for (size_t i = 0; i < x.size(); ++i) {
      const double rho = 0.5 * lo * (1 + x[i]), top = apex - rho / t;
      double in = top, out = top - 0.1;
      for (int it = 0; it < 100; ++it) (inside(rho * c, rho * s, 0.5 * (in + out)) ? in : out) = 0.5 * (in + out);
      V += 0.5 * lo * w[i] * rho * (top - in) * 2 * M_PI / nphi;
    }
  }
  return V;
}

}  // namespace

TEST_CASE("column strips: a torus on its side around a cone's apex, against a polar quadrature",
          "[geometry][column_strips]") {
  // bench_curved_pairs' "torus around a cone (Sandia)", attitude 1, at V ≈ 1e-9, 1e-8, 1e-7 (heights from the
  // benchmark's bisection), and neighbouring poses: another height, the torus tilted 20° more (the apex then meets the
  // tube 13 mm from the ring's lowest point), offset sideways 5 mm along its tube and across it. The torus sweep
  // declines (the apex is a corner), so the column engine serves it. Its normal estimate (gradients at the overlap
  // box's centre) tilts the columns ~40° from the cone's axis (10.3° when tilted), beyond its 10° half-angle: the
  // cone's silhouette bounded the footprint, where the chord grows like √distance and the error falls like s^1.5,
  // which the Richardson step does not remove (−6.6e-3 at tolerance 1e-3, −1.1e-3 at 1e-4). The columns now run along
  // the cone's axis, which crosses every face (geometry/transversal_axis.h). The tolerance is the query's own.
  const double t = std::tan(10 * M_PI / 180), R = 0.05, r = 0.015;
  const Cell cone = make_cell({rod(PrimitiveKind::Cone, 0.3 * t, 0.3, 0.0)});
  Primitive torus;
  torus.kind = PrimitiveKind::Torus;
  torus.major_radius = R, torus.minor_radius = r;
  const Cell ring = make_cell({torus});
  const Quat on_side(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));
  const Quat tilted(Eigen::AngleAxisd(M_PI / 2 + 20 * M_PI / 180, Vec3::UnitY()));
  struct Case {
    const char* what;
    Pose pose;
  };
  const Case cases[] = {{"on its side", {Vec3(0.004, 0.003, 0.2112487920), on_side}},
                        {"on its side", {Vec3(0.004, 0.003, 0.2076171783), on_side}},
                        {"on its side", {Vec3(0.004, 0.003, 0.1997607604), on_side}},
                        {"on its side, another height", {Vec3(0.004, 0.003, 0.2040), on_side}},
                        {"tilted 20 deg more", {Vec3(0.004, 0.003, 0.1977310), tilted}},
                        {"5 mm along the tube", {Vec3(0.004, 0.008, 0.2076171783), on_side}},
                        {"5 mm across the tube", {Vec3(0.009, 0.003, 0.2076171783), on_side}}};
  for (const Case& c : cases) {
    const Pose& pb = c.pose;
    const double V = apex_in_posed_torus(0.15, t, pb, R, r, 64);
    INFO(c.what << ", torus at " << pb.position.transpose());
    REQUIRE(rel(apex_in_posed_torus(0.15, t, pb, R, r, 256), V) < 1e-12);
    // On its side, the tube's exact intervals agree.
    if (pb.rotation.isApprox(on_side)) REQUIRE(rel(apex_in_torus(0.15, t, pb.position, R, r, 64), V) < 1e-12);
    for (double tol : {1e-3, 1e-4}) {
      QueryOptions column;
      column.closed_forms = false;
      column.tolerance = tol;
      const Interference q = interference(cone, Pose{}, ring, pb, column);
      INFO("tolerance " << tol);
      REQUIRE(q.overlap);
      std::printf("torus around a cone's apex, %s, V %.4e, tol %.0e: V err %+.2e, %ld columns\n", c.what, V, tol,
                  q.volume / V - 1, q.columns);
      CHECK(rel(q.volume, V) < tol);
    }
  }
}
