// The closed-form fast paths of the interference query (geometry/exact_interference.h): convex
// polyhedra (planar cells) and spherical caps. Expected values are closed forms, or the column engine
// (an independent algorithm: root finding along columns on a lattice) within its own tolerance.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>

#include "geometry/cell_impl.h"
#include "geometry/exact_interference.h"
#include "geometry/interference.h"
#include "tests/geometry_support.h"

using namespace vcsim;
using namespace vcsim::geo;
using namespace geometry_support;

namespace {

QueryOptions engine(bool closed_forms) {
  QueryOptions o;
  o.closed_forms = closed_forms;
  return o;
}


// Monte Carlo estimate of V (and its standard error) over the overlap of the two cells' bounds.
std::pair<double, double> monte_carlo_volume(const Cell& ci, const Pose& pi, const Cell& cj, const Pose& pj, long n) {
  const Aabb bi = world_bounds(ci, pi), bj = world_bounds(cj, pj);
  const Vec3 lo = bi.min.cwiseMax(bj.min), hi = bi.max.cwiseMin(bj.max);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  long hits = 0;
  for (long k = 0; k < n; ++k) {
    const Vec3 x = lo + (hi - lo).cwiseProduct(Vec3(u(rng), u(rng), u(rng)));
    hits += cell_distance(ci.impl->prims, pi, x) < 0 && cell_distance(cj.impl->prims, pj, x) < 0;
  }
  const double box = (hi - lo).prod(), p = static_cast<double>(hits) / n;
  return {box * p, box * std::sqrt(p * (1 - p) / n)};
}

int column_engine_misses = 0;  // poses where the column engine missed its limits (reported)

// The closed-form path against the column engine, within the column engine's acceptance limits
// (issue 3: V 1e-3 relative, centroid 1e-3 V^(1/3), inertia 5e-3 Frobenius). Where the two
// disagree, a Monte Carlo estimate decides, and the closed form must be the one that is right.
void agree(const char* label, const Cell& ci, const Pose& pi, const Cell& cj, const Pose& pj) {
  const Interference a = interference(ci, pi, cj, pj, engine(true));
  const Interference b = interference(ci, pi, cj, pj, engine(false));
  INFO(label << ": V closed " << a.volume << " column " << b.volume << " (" << b.columns << " columns)");
  REQUIRE(a.overlap == b.overlap);
  if (!a.overlap) return;
  CHECK(a.columns == 0);  // the fast path answered
  const bool column_ok = std::abs(a.volume / b.volume - 1) < 1e-3 &&
                         (a.centroid - b.centroid).norm() < 1e-3 * std::cbrt(b.volume) &&
                         (a.inertia - b.inertia).norm() < 5e-3 * b.inertia.norm();
  if (column_ok) return;
  ++column_engine_misses;
  const auto [V, sigma] = monte_carlo_volume(ci, pi, cj, pj, 4000000);
  std::printf("%s: closed form V %.6e, column engine %.6e, Monte Carlo %.6e +- %.1e\n", label, a.volume, b.volume,
              V, sigma);
  CHECK(std::abs(a.volume - V) < 4 * sigma);  // 4 standard errors
}

}  // namespace

TEST_CASE("Convex polyhedron moments: a rotated cube inside a box, and overlapping aligned boxes",
          "[geometry][exact]") {
  // A cube of side S, rotated, entirely inside a large box: the cube itself.
  const double S = 0.3;
  const Quat q(Eigen::AngleAxisd(0.7, Vec3(1, -2, 0.5).normalized()));
  const Vec3 c(0.02, -0.01, 0.03);
  const Interference x = interference(make_cell({box(Vec3::Constant(S))}), Pose{c, q},
                                      make_cell({box(Vec3::Constant(2.0))}), Pose{});
  REQUIRE(x.overlap);
  CHECK(x.volume == Approx(S * S * S).epsilon(1e-12));
  CHECK((x.centroid - c).norm() < 1e-14);
  CHECK((x.inertia - S * S * S * S * S / 6 * Mat3::Identity()).norm() < 1e-12 * std::pow(S, 5));

  // Two aligned boxes overlapping in a box a × b × c: V = abc, J = V/12 diag(b²+c², a²+c², a²+b²).
  const Interference y = interference(make_cell({box(Vec3(1.0, 0.6, 0.4))}), Pose{Vec3(0.3, 0.1, -0.05), Quat::Identity()},
                                      make_cell({box(Vec3(0.8, 0.8, 0.8))}), Pose{Vec3(-0.2, 0.2, 0.3), Quat::Identity()});
  // The overlap box is the intersection of the two boxes' extents.
  const Vec3 lo = Vec3(0.3 - 0.5, 0.1 - 0.3, -0.05 - 0.2).cwiseMax(Vec3(-0.2 - 0.4, 0.2 - 0.4, 0.3 - 0.4));
  const Vec3 hi = Vec3(0.3 + 0.5, 0.1 + 0.3, -0.05 + 0.2).cwiseMin(Vec3(-0.2 + 0.4, 0.2 + 0.4, 0.3 + 0.4));
  const Vec3 e = hi - lo;
  const double V = e.prod();
  REQUIRE(y.overlap);
  CHECK(y.volume == Approx(V).epsilon(1e-12));
  CHECK((y.centroid - 0.5 * (lo + hi)).norm() < 1e-14);
  const Mat3 J = (V / 12 * Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                                e.x() * e.x() + e.y() * e.y())).asDiagonal();
  CHECK((y.inertia - J).norm() < 1e-12 * J.norm());
}

TEST_CASE("Sphere cap closed form: moments against direct integration", "[geometry][exact]") {
  // Independent check of the polynomial form: integrate the cap slice by slice (Simpson, 2000
  // slices) for V, ∫τ and the transverse second moment.
  const double R = 0.1;
  for (double h : {1e-5, 2.5e-3, 0.05, 0.15}) {
    const Plane pl{Vec3::UnitZ(), 0.0};
    const RawMoments m = sphere_cap_moments(Vec3(0, 0, R - h), R, pl);
    const int n = 2000;
    double V = 0, S1 = 0, P = 0;
    for (int k = 0; k <= n; ++k) {
      const double tau = h * k / n, w = (k == 0 || k == n) ? 1 : (k % 2 ? 4 : 2);
      const double r2 = tau * (2 * R - tau);  // section radius² at height τ above the lowest point
      V += w * M_PI * r2, S1 += w * M_PI * r2 * tau, P += w * M_PI * r2 * r2 / 4;
    }
    V *= h / (3 * n), S1 *= h / (3 * n), P *= h / (3 * n);
    INFO("h = " << h);
    CHECK(m.m0 == Approx(V).epsilon(1e-10));
    // ∫z dV with z = (R − h − R) + τ = τ − h (the lowest point at z = −h).
    CHECK(m.m1.z() == Approx(S1 - h * V).epsilon(1e-9));
    CHECK(m.m2(0, 0) == Approx(P).epsilon(1e-9));
  }
}

TEST_CASE("Closed forms agree with the column engine over random poses", "[geometry][exact]") {
  std::mt19937 rng(20261123);
  std::uniform_real_distribution<double> u(-1, 1);
  const Cell table = make_cell({box(Vec3(2.0, 2.0, 0.1))});
  const Pose table_pose{Vec3(0, 0, -0.05), Quat::Identity()};
  const Cell brick = make_cell({box(Vec3(0.3, 0.2, 0.1))});
  // A chamfered bar: a box cut by a 45° half-space (the battery box's guide rails).
  const Cell chamfered = make_cell(
      {box(Vec3(0.35, 0.05, 0.05)), halfspace(Pose{Vec3(0, 0.0, 0.015), Quat(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()))})});
  const Cell ball = make_cell({sphere(0.05)});
  // A tippe-top-like cell: a sphere cut by a plane through it.
  const Cell cut_ball = make_cell({sphere(0.015), halfspace(Pose{Vec3(0, 0, 0.004), Quat::Identity()})});
  for (int k = 0; k < 8; ++k) {
    // Boxes with a corner, edge or face in the table, at random attitudes and depths of a few mm.
    const Quat q = random_rotation(rng);
    Pose p{Vec3(0.3 * u(rng), 0.3 * u(rng), 0), q};
    const double lowest = world_bounds(brick, p).min.z();
    p.position.z() -= lowest + 3e-3 * (1 + u(rng));  // 0–6 mm deep
    agree("brick on table", brick, p, table, table_pose);
    Pose pc{Vec3(0.3 * u(rng), 0.3 * u(rng), 0), random_rotation(rng)};
    pc.position.z() -= world_bounds(chamfered, pc).min.z() + 2e-3 * (1 + u(rng));
    agree("chamfered bar on table", chamfered, pc, table, table_pose);
    // Two bricks interpenetrating at random attitudes.
    agree("brick in brick", brick, Pose{Vec3(0.05 * u(rng), 0.05 * u(rng), 0.05 * u(rng)), random_rotation(rng)}, brick,
          Pose{Vec3(0.1, 0, 0), random_rotation(rng)});
    // A ball in the table, away from the edges (a cap).
    agree("ball on table", ball, Pose{Vec3(0.5 * u(rng), 0.5 * u(rng), 0.05 - 2e-3 * (1 + u(rng))), random_rotation(rng)},
          table, table_pose);
    // The cut ball on its spherical side, tilted.
    const Quat tilt(Eigen::AngleAxisd(0.4 * u(rng), Vec3(u(rng), u(rng), 0).normalized()));
    Pose pt{Vec3(0.2 * u(rng), 0.2 * u(rng), 0), tilt};
    pt.position.z() = 0.015 - 5e-4 * (1 + u(rng));
    agree("cut ball on table", cut_ball, pt, table, table_pose);
  }
  std::printf("random poses: the column engine missed its limits on %d of 40 (see docs/geometry.md)\n",
              column_engine_misses);
}

TEST_CASE("Sliced sphere: a cap sliced equals the closed form", "[geometry][exact]") {
  // One plane, tilted, through a ball: the slicing path against the cap formula.
  const Vec3 c(0.01, -0.02, 0.03), n = Vec3(0.2, -0.3, 1).normalized();
  for (double delta : {0.0999, 0.09, 0.0, -0.05}) {
    const Plane pl{n, n.dot(c) - delta};
    const RawMoments a = sphere_cap_moments(c, 0.1, pl), b = sliced_sphere_moments(c, 0.1, {pl}, n);
    INFO("delta " << delta);
    CHECK(b.m0 == Approx(a.m0).epsilon(1e-12));
    CHECK((b.m1 - a.m1).norm() < 1e-12 * a.m1.norm());
    CHECK((b.m2 - a.m2).norm() < 1e-12 * a.m2.norm());
  }
}

TEST_CASE("Sliced sphere: two planes parallel across the slices meet inside the ball (a roof's ridge)",
          "[geometry][exact]") {
  // A ball (R 0.1 at the origin) under a roof: x <= (z_e − z)/2 and x >= −(z_e − z)/2, ridge along y at z_e = −0.6 R,
  // and z <= −0.3 R, the deepest plane, so the ball is sliced across z. In every slice the roof's two lines are
  // parallel, and they meet at z_e, where the slice's strip closes: a kink the break points missed until 2026-11-28
  // (a ball clipped by a mesh triangle's prism came out 6–14 % low). Reference: ∫ of the disc ∩ strip's area
  // πr² − 2(r² acos(w/r) − w √(r² − w²)), w = (z_e − z)/2 < r, by composite Simpson split where w = r.
  const double R = 0.1, ze = -0.6 * R;
  const Vec3 n1 = Vec3(1, 0, 0.5).normalized(), n2 = Vec3(-1, 0, 0.5).normalized();
  const std::vector<Plane> planes{{Vec3::UnitZ(), -0.3 * R}, {n1, n1.z() * ze}, {n2, n2.z() * ze}};
  auto area = [&](double z) {
    const double r2 = R * R - z * z, w = 0.5 * (ze - z);
    if (r2 <= 0 || w <= 0) return 0.0;
    const double r = std::sqrt(r2);
    return w >= r ? M_PI * r2 : M_PI * r2 - 2 * (r2 * std::acos(w / r) - w * std::sqrt(r2 - w * w));
  };
  double lo = -R, hi = ze;  // w(z) = r(z) between them: w − r rises from negative at −R... bisect on its sign
  for (int it = 0; it < 200; ++it) {
    const double z = 0.5 * (lo + hi);
    (0.5 * (ze - z) >= std::sqrt(R * R - z * z) ? lo : hi) = z;
  }
  double V = 0;
  for (auto [p, q] : {std::pair{-R, lo}, std::pair{lo, ze}}) {
    const int n = 20000;
    for (int k = 0; k <= n; ++k) {
      const double t = static_cast<double>(k) / n, w = (k == 0 || k == n) ? 1 : (k % 2 ? 4 : 2);
      V += w * area(p + (q - p) * t * t * (3 - 2 * t)) * (q - p) * 6 * t * (1 - t) / (3.0 * n);
    }
  }
  const double one_rule = ball_planes_moments(Vec3::Zero(), R, planes).m0;
  const double two_rules = ball_planes_moments(Vec3::Zero(), R, planes, 2).m0;
  INFO("V " << V << " one rule " << one_rule << " two " << two_rules);
  // Measured 2.1e-6 and 7.6e-9 (1.4e-2 and 2.1e-3 high before the fix): where a roof line leaves its tangency the segment cut
  // off grows like (r − w)^(3/2), which Gauss–Legendre integrates only algebraically.
  CHECK(std::abs(one_rule / V - 1) < 5e-6);
  CHECK(std::abs(two_rules / V - 1) < 2e-8);
}

TEST_CASE("Sliced sphere: planes 1e-9 to 1e-13 from parallel to the slices sweep across them at one height",
          "[geometry][exact]") {
  // A unit ball sliced across z, cut by three lines that move with z and by a plane tilted 1e-9 … 1e-13 from the
  // slices (its line in a slice moves 1/tilt times faster), nearly antiparallel to one of the three: 200 tilts and
  // heights. The three lines are those of an ellipsoid's mapped ball under a merged mesh face's prism (2026-11-28).
  // The tilted plane's events come from quadratics whose coefficients grow like 1/tilt² and cancel: they were lost,
  // and where the range's middle slice lay past the sweep, V came out 0 (59 of these 200 off, most by 100 %).
  // Reference: the same region with that plane at its limit, z >= z*, where it crosses the axis (a bound on z, no
  // lines).
  const Vec3 axis = Vec3::UnitZ(), u = axis.unitOrthogonal(), w = axis.cross(u);
  // A line g·x <= b0 + b1 z in the slices, as a unit plane.
  auto plane = [&](double gx, double gy, double b0, double b1) {
    const double gn = 1 / std::sqrt(1 + b1 * b1);
    const Vec3 g = Vec3(gx * u + gy * w).normalized();
    return Plane{gn * g - b1 * gn * axis, b0 * gn};
  };
  const std::vector<Plane> three{plane(0.025495166198, 0.999674945420, 4.18966069, 4.1641164),
                                 plane(0.997474045253, -0.071031887538, 0.633960243, 0.448500907),
                                 plane(-0.997474045253, 0.071031887538, -0.083385134, 0.0501598515),
                                 {axis, -0.472855406}};
  int off = 0;
  for (int i = 0; i < 200; ++i) {
    const double b1 = std::pow(10.0, 9 + 4 * (i % 50) / 50.0) * (1 + 0.37 * (i / 50)), z_star = -0.55 - 0.002 * (i % 37);
    const double angle = 1e-4 * (1 + i % 7);  // from antiparallel to the second line
    std::vector<Plane> tilted = three, limit = three;
    tilted.push_back(plane(-std::cos(angle) * 0.997474045253 + std::sin(angle) * 0.071031887538,
                           std::sin(angle) * 0.997474045253 + std::cos(angle) * 0.071031887538, -z_star * b1, b1));
    limit.push_back({-axis, -z_star});
    const double V = sliced_sphere_moments(Vec3::Zero(), 1.0, limit, axis, 2).m0;
    const double sliced = sliced_sphere_moments(Vec3::Zero(), 1.0, tilted, axis, 2).m0;
    // The tilt moves V by O(tilt) = O(1 / b1); 100 / b1 leaves room for the slices' sizes, 1e-6 for the rules.
    if (!(std::abs(sliced / V - 1) < std::min(1e-6, 100 / b1))) {
      ++off;
      UNSCOPED_INFO("tilt " << 1 / b1 << ", z* " << z_star << ": V at the limit " << V << ", tilted " << sliced);
    }
  }
  CHECK(off == 0);
}

namespace {
// V of a ball (radius R, centre height R − h above the table top z = 0, centre at distance e inside
// the table's edge y = y_edge) below z = 0 and inside the edge, integrated independently slice by
// slice: each horizontal slice is a disc of radius r cut by the chord at e, keeping
// r² (π − acos(e/r)) + e √(r² − e²). Composite Simpson (4000 intervals per piece, through the
// smoothstep map that tames the √ onset where r = |e|).
double edge_ball_volume(double R, double h, double e) {
  auto kept = [&](double tau) {
    const double r2 = R * R - tau * tau;
    if (r2 <= 0) return 0.0;
    const double r = std::sqrt(r2);
    if (e >= r) return M_PI * r2;
    if (e <= -r) return 0.0;
    return r2 * (M_PI - std::acos(e / r)) + e * std::sqrt(r2 - e * e);
  };
  const double top = -(R - h), kink = -std::sqrt(std::max(R * R - e * e, 0.0));
  double V = 0;
  for (auto [p, q] : {std::pair{-R, std::min(kink, top)}, std::pair{std::max(kink, -R), top}}) {
    if (!(q > p)) continue;
    const int n = 4000;
    for (int k = 0; k <= n; ++k) {
      const double t = static_cast<double>(k) / n, w = (k == 0 || k == n) ? 1 : (k % 2 ? 4 : 2);
      V += w * kept(p + (q - p) * t * t * (3 - 2 * t)) * (q - p) * 6 * t * (1 - t) / (3.0 * n);
    }
  }
  return V;
}
}  // namespace

TEST_CASE("Sphere rolling over a box edge: exact cap, then the sliced ball, smooth throughout",
          "[geometry][exact][smoothness]") {
  // A ball of radius 0.1 m, 2.5 mm into a table whose edge is at y = 0.3 (ball_on_table). Before
  // the cap reaches the side face the region is exactly the cap; past it, the sliced path takes
  // over. Checked against an independent slice integral, and for smoothness across the switch.
  const double R = 0.1, h = 2.5e-3;
  const Cell ball = make_cell({sphere(R)});
  const Cell table = make_cell({box(Vec3(2.0, 2.0, 0.1))});
  const Pose table_pose{Vec3(0, -0.7, -0.05), Quat::Identity()};
  const double V_cap = M_PI * h * h * (3 * R - h) / 3, rim = std::sqrt(h * (2 * R - h));
  std::vector<double> V;
  double worst_cap = 0, worst_ref = 0;
  for (int k = 0;; ++k) {
    const double y = 0.27 + 1e-4 * k;
    if (y > 0.3 + rim) break;
    const Interference x = interference(ball, Pose{Vec3(0.01, y, R - h), Quat::Identity()}, table, table_pose);
    REQUIRE(x.overlap);
    CHECK(x.columns == 0);
    V.push_back(x.volume);
    if (y + rim < 0.3) worst_cap = std::max(worst_cap, std::abs(x.volume / V_cap - 1));
    // Relative to V_cap: the last slivers are ~1e-11 m³.
    worst_ref = std::max(worst_ref, std::abs(x.volume - edge_ball_volume(R, h, 0.3 - y)) / V_cap);
  }
  // Smoothness: the second differences of V(y) against the largest first difference.
  double max_d1 = 0, max_d2 = 0;
  for (size_t k = 0; k + 2 < V.size(); ++k) {
    max_d1 = std::max(max_d1, std::abs(V[k + 1] - V[k]));
    max_d2 = std::max(max_d2, std::abs(V[k + 2] - 2 * V[k + 1] + V[k]));
  }
  std::printf("edge roll: %zu queries, all closed form; |V/V_cap - 1| before the edge %.2e; "
              "max |V - slice integral| / V_cap %.2e; max |d2V| / max |dV| = %.2e\n",
              V.size(), worst_cap, worst_ref, max_d2 / max_d1);
  CHECK(worst_cap < 1e-12);       // the cap formula, to rounding
  // The 8-point rule between break points vs a 4000-interval Simpson: ~1e-6 of V_cap at worst, when
  // the centre nears the edge and the ball's pole (a branch point of the slice area) sits just
  // outside the sub-interval; 1000× inside the 1e-3 V tolerance of issue 3.
  CHECK(worst_ref < 1e-5);
  CHECK(max_d2 < 0.05 * max_d1);  // no jump: a switch between paths would put d2V ~ dV
}

TEST_CASE("A ball with a spherical hole (tippe-top): the hole is ignored only where it cannot matter",
          "[geometry][exact]") {
  // The tippe-top's ball cell: a sphere of 15 mm minus the stem sphere (5 mm, 13 mm up).
  CsgNode ball;
  ball.op = CsgNode::Op::Difference;
  ball.where.key_path = "test";
  for (double r : {0.015, 0.005}) {
    CsgNode c;
    c.primitive.kind = PrimitiveKind::Sphere;
    c.primitive.radius = r;
    c.primitive.pose.position = Vec3(0, 0, r == 0.015 ? 0.0 : 0.013);
    c.where.key_path = "test.child";
    ball.children.push_back(c);
  }
  const Cell cell = make_body_geometry(ball, "").cells.at(0);
  const Cell table = make_cell({box(Vec3(1.0, 1.0, 0.1))});
  const Pose table_pose{Vec3(0, 0, -0.05), Quat::Identity()};
  const double R = 0.015, h = 8.3356e-6;
  // Upright, resting on its ball: the closed form, exactly the cap (T1's tippe-top anchor).
  const Interference up = interference(cell, Pose{Vec3(0.002, 0.001, R - h), Quat::Identity()}, table, table_pose);
  CHECK(up.columns == 0);
  CHECK(up.volume == Approx(M_PI * h * h * (3 * R - h) / 3).epsilon(1e-10));  // rounding, as in T1
  // Tilted by 120°: the contact cap is 0.4 mm from the hole's rim in the ground — not ignorable
  // in general, so the column engine answers (and the two agree where the closed form applies).
  const Quat tilt(Eigen::AngleAxisd(2.0944, Vec3::UnitX()));
  Pose side{Vec3(0, 0, 0), tilt};
  side.position.z() = R - h;
  const Interference near_hole = interference(cell, side, table, table_pose);
  QueryOptions column;
  column.closed_forms = false;
  const Interference reference = interference(cell, side, table, table_pose, column);
  INFO("V " << near_hole.volume << " column " << reference.volume << " (" << near_hole.columns << " columns)");
  CHECK(std::abs(near_hole.volume / reference.volume - 1) < 1e-3);
}

TEST_CASE("Exact paths reject what they cannot do, and empty intersections are empty", "[geometry][exact]") {
  // A sphere above a half-space, inside the bounds of a box table: no overlap.
  const Cell ball = make_cell({sphere(0.05)});
  const Cell table = make_cell({box(Vec3(1.0, 1.0, 0.1))});
  CHECK_FALSE(interference(ball, Pose{Vec3(0, 0, 0.0501), Quat::Identity()}, table, Pose{Vec3(0, 0, -0.05), Quat::Identity()}).overlap);
  // Planar cells only: a cylinder is not planar.
  Primitive cyl;
  cyl.kind = PrimitiveKind::Cylinder;
  cyl.radius = 0.1;
  cyl.length = 0.2;
  CellPrimitive cp{cyl, false, nullptr};
  CHECK_FALSE(planar_cell_planes({cp}, Pose{}, Vec3::Zero()).has_value());
  CellPrimitive hs{halfspace(), true, nullptr};  // complement of z <= 0: z >= 0
  const auto planes = planar_cell_planes({hs}, Pose{Vec3(0, 0, 1), Quat::Identity()}, Vec3::Zero());
  REQUIRE(planes.has_value());
  REQUIRE(planes->size() == 1);
  CHECK(((*planes)[0].n - Vec3(0, 0, -1)).norm() == 0);
  CHECK((*planes)[0].d == -1.0);  // −z <= −1, i.e. z >= 1
}

namespace {

// Raw moments about the ball's centre of the part of the ball (radius R) at distance >= rc from an
// axis parallel to `axis_dir`, passing at `e` (⊥ axis_dir, from the centre), integrated in spherical
// shells around the centre's axis line instead of slices across the axis: at radius s in the slice
// plane, the points outside the circle form the arc cos φ' <= κ = (s² + d² − rc²)/(2 s d) (φ' from the
// direction of e), whose angular moments are closed forms; the chord along the axis has half-length
// √(R² − s²). The s integral, over [rc − d, R] (where the shells reach outside), is a midpoint rule in
// t with s = s0 + (R − s0)·t²(3 − 2t), which smooths the square-root ends.
RawMoments ball_outside_cylinder_by_shells(double R, const Vec3& e, const Vec3& axis_dir, double rc) {
  const double d = e.norm();
  const Vec3 ex = e / d, ey = axis_dir.cross(ex);
  const long N = 200000;
  const double s0 = std::max(0.0, rc - d);
  RawMoments m;
  double m0 = 0, m1 = 0, mxx = 0, myy = 0, maa = 0;
  for (long k = 0; k < N; ++k) {
    const double t = (k + 0.5) / N;
    const double s = s0 + (R - s0) * t * t * (3 - 2 * t), ds = (R - s0) * 6 * t * (1 - t) / N;
    const double kappa = (s * s + d * d - rc * rc) / (2 * s * d);
    if (kappa < -1) continue;  // the whole circle of radius s is inside the cylinder
    const double alpha = kappa >= 1 ? 0.0 : std::acos(kappa);
    const double A0 = 2 * (M_PI - alpha), C1 = -2 * std::sin(alpha);
    const double Ccc = (M_PI - alpha) - std::sin(2 * alpha) / 2, Css = (M_PI - alpha) + std::sin(2 * alpha) / 2;
    const double chord = 2 * std::sqrt(R * R - s * s);
    m0 += chord * s * A0 * ds;
    m1 += chord * s * s * C1 * ds;
    mxx += chord * s * s * s * Ccc * ds;
    myy += chord * s * s * s * Css * ds;
    maa += chord * chord * chord / 12 * s * A0 * ds;
  }
  m.m0 = m0;
  m.m1 = m1 * ex;
  m.m2 = mxx * ex * ex.transpose() + myy * ey * ey.transpose() + maa * axis_dir * axis_dir.transpose();
  return m;
}

}  // namespace

TEST_CASE("A ball in a cylindrical groove (ball_in_cylinder): slices across the axis against shell integration",
          "[geometry][exact]") {
  // The grooved block of scenarios/ball_in_cylinder.yaml: box ∩ complement of a 1 m cylinder along Y,
  // groove bottom at z = 0.
  const Cell groove = groove_cell();
  const double R = 0.1, rc = 1.0;
  const Cell ball = make_cell({sphere(R)});
  for (double depth : {1e-5, 2.5e-3, 0.02})
    for (double theta : {0.0, 0.35}) {
      // The ball's centre at rc − R + depth from the axis, θ up the groove's side, anywhere along it.
      const Vec3 out(std::sin(theta), 0, -std::cos(theta));
      const Vec3 c = Vec3(0, 0.7, 1.0) + (rc - R + depth) * out;
      const Pose ball_pose{c, Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()))};
      const Interference x = interference(ball, ball_pose, groove, Pose{});
      INFO("depth " << depth << " theta " << theta);
      CHECK(x.columns == 0);  // the closed form answered
      const RawMoments ref = ball_outside_cylinder_by_shells(R, -(rc - R + depth) * out, Vec3::UnitY(), rc);
      Vec3 centroid;
      Mat3 J;
      centroid_and_inertia(ref, centroid, J);
      // Both are quadratures of the same exact integrand, sliced in different directions; each is good to
      // ~1e-8 (measured 1e-9 on V, 2e-8 on the inertia against a 30-digit mpmath quadrature of the shell
      // integrals), so 1e-7 and 1e-6 leave room and still catch a wrong slice or break point.
      std::printf("groove depth %g theta %g: V %.9e shells %.9e, centroid diff %.2e, inertia diff %.2e rel\n", depth,
                  theta, x.volume, ref.m0, (x.centroid - (c + centroid)).norm(), (x.inertia - J).norm() / J.norm());
      CHECK(x.volume == Approx(ref.m0).epsilon(1e-7));
      CHECK((x.centroid - (c + centroid)).norm() < 1e-7 * std::cbrt(ref.m0));
      CHECK((x.inertia - J).norm() < 1e-6 * J.norm());
      // The column engine, an independent algorithm, within the acceptance limits.
      QueryOptions column;
      column.closed_forms = false;
      const Interference y = interference(ball, ball_pose, groove, Pose{}, column);
      CHECK(y.volume == Approx(x.volume).epsilon(1e-3));
      CHECK((y.centroid - x.centroid).norm() < 1e-3 * std::cbrt(x.volume));
      CHECK((y.inertia - x.inertia).norm() < 5e-3 * x.inertia.norm());
      // The normal: toward the axis (from the block into the ball).
      CHECK(x.normal_estimate.dot(-out) > 0.999);
    }
  // Inside the groove, clear of it: nothing. Through the block's top face: the closed form declines.
  CHECK_FALSE(interference(ball, Pose{Vec3(0, 0, 0.5), Quat::Identity()}, groove, Pose{}).overlap);
  const Interference corner = interference(ball, Pose{Vec3(0.98, 0, 0.8), Quat::Identity()}, groove, Pose{});
  CHECK(corner.columns > 0);
}
