// Interference query vs the closed forms T1–T7 of docs/sources.md ("Interference-volume closed forms"),
// at the default tolerance, plus rigid-motion invariance. Every expected value is a closed form.
// Acceptance limits (issue 3): V within 1e-3 relative; centroid within 1e-3 V^(1/3); inertia within
// 5e-3 relative (Frobenius norm of the difference over the norm of the expected tensor).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "geometry/interference.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

CsgNode prim_node(const Primitive& p, const std::string& name = "") {
  CsgNode n;
  n.op = CsgNode::Op::Primitive;
  n.primitive = p;
  n.name = name;
  n.where.file = "test.yaml";
  n.where.key_path = "bodies.b.geometry";
  return n;
}

Cell one_cell(const Primitive& p) {
  BodyGeometry g = make_body_geometry(prim_node(p), "");
  REQUIRE(g.cells.size() == 1);
  return g.cells[0];
}

Primitive sphere(double r) {
  Primitive p;
  p.kind = PrimitiveKind::Sphere;
  p.radius = r;
  return p;
}
Primitive halfspace() {
  Primitive p;
  p.kind = PrimitiveKind::HalfSpace;
  return p;
}
Primitive box(const Vec3& size) {
  Primitive p;
  p.kind = PrimitiveKind::Box;
  p.size = size;
  return p;
}
Primitive cylinder(double r, double l) {
  Primitive p;
  p.kind = PrimitiveKind::Cylinder;
  p.radius = r;
  p.length = l;
  return p;
}

struct Expected {
  double V;
  Vec3 centroid;
  Mat3 J;
};

// Every case runs twice: through the column engine (the general path, closed forms off) and
// through the closed-form fast paths where the pair has one (both must meet the same limits).
QueryOptions engine_options(bool closed_forms) {
  QueryOptions o;
  o.closed_forms = closed_forms;
  return o;
}

double rel_frobenius(const Mat3& a, const Mat3& b) { return (a - b).norm() / b.norm(); }

void check(const char* label, const Interference& x, const Expected& e) {
  const double ev = std::abs(x.volume / e.V - 1);
  const double ec = (x.centroid - e.centroid).norm() / std::cbrt(e.V);
  const double ej = rel_frobenius(x.inertia, e.J);
  std::printf("%-34s V err %.2e  centroid err/V^(1/3) %.2e  J err %.2e  (spacing %.3g m, %ld columns)\n", label, ev,
              ec, ej, x.spacing, x.columns);
  CHECK(x.overlap);
  CHECK(ev < 1e-3);   // issue 3 acceptance limit
  CHECK(ec < 1e-3);   // issue 3 acceptance limit
  CHECK(ej < 5e-3);   // issue 3 acceptance limit
  if (x.columns == 0) {
    // A closed-form fast path answered: exact up to rounding (V ~ 1e-12..1, rounding ~1e-16 relative,
    // amplified by the clipping and the centroid shift).
    CHECK(ev < 1e-10);
    CHECK(ec < 1e-10);
    CHECK(ej < 1e-9);
  }
  // J must be symmetric positive definite (a physical inertia tensor).
  CHECK((x.inertia - x.inertia.transpose()).norm() <= 1e-12 * x.inertia.norm());
  CHECK(Eigen::SelfAdjointEigenSolver<Mat3>(x.inertia).eigenvalues().minCoeff() > 0);
}

// T1: a spherical cap of height h of a sphere of radius R (plane z = 0, sphere above).
Expected cap_expected(double R, double h, const Vec3& xy) {
  const double V = M_PI * h * h * (3 * R - h) / 3;
  const double dc = h * (4 * R - h) / (4 * (3 * R - h));
  const double Ja = M_PI * std::pow(h, 3) * (20 * R * R - 15 * R * h + 3 * h * h) / 30;
  const double Jt = M_PI * std::pow(h, 3) * (240 * R * R * R - 220 * R * R * h + 72 * R * h * h - 9 * h * h * h) /
                    (240 * (3 * R - h));
  return {V, Vec3(xy.x(), xy.y(), -dc), Vec3(Jt, Jt, Ja).asDiagonal()};
}

}  // namespace

TEST_CASE("T1 sphere in a half-space", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const Cell table = one_cell(halfspace());
  struct Case {
    double R, h;
  };
  // The reference's worked example (R = 1, h = 0.3), ball-on-table at rest, and the tippe-top
  // regression anchor (R = 15 mm, h = 8.3356 µm).
  for (const Case c : {Case{1.0, 0.3}, Case{0.1, 2.5e-3}, Case{0.015, 8.3356e-6}}) {
    const Cell ball = one_cell(sphere(c.R));
    const Vec3 xy(0.0123, -0.0456, 0);
    const Pose pi{Vec3(xy.x(), xy.y(), c.R - c.h), Quat::Identity()};
    const Interference x = interference(ball, pi, table, Pose{}, engine_options(closed_forms));
    char label[64];
    std::snprintf(label, sizeof label, "T1 R=%g h=%g", c.R, c.h);
    check(label, x, cap_expected(c.R, c.h, xy));
    CHECK(x.normal_estimate.z() > 0.999999);  // +z: from the table (j) toward the ball (i)
  }
  // The reference's printed numbers for R = 1, h = 0.3 (an independent check of the formulas).
  const Expected e = cap_expected(1.0, 0.3, Vec3::Zero());
  CHECK(e.V == Approx(0.254469).epsilon(1e-5));
  CHECK(-e.centroid.z() == Approx(0.102778).epsilon(1e-5));
  CHECK(e.J(2, 2) == Approx(0.0445886).epsilon(1e-5));
  CHECK(e.J(0, 0) == Approx(0.0235930).epsilon(1e-5));
  // Tippe-top anchor: V = 3.2737e-12 m^3.
  CHECK(cap_expected(0.015, 8.3356e-6, Vec3::Zero()).V == Approx(3.2737e-12).epsilon(1e-4));
}

TEST_CASE("T2 two-sphere lens", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const double R = 0.05, D = 0.09;
  const Cell a = one_cell(sphere(R)), b = one_cell(sphere(R));
  // Centre line along an oblique direction, so the lens is not aligned with the world axes.
  const Vec3 dir = Vec3(1, 2, 2).normalized();
  const Vec3 cj(0.3, -0.2, 0.1), ci = cj + D * dir;
  const Interference x = interference(a, Pose{ci, Quat::Identity()}, b, Pose{cj, Quat::Identity()},
                                        engine_options(closed_forms));
  // Two caps of height h = R − D/2 back to back on the radical plane (parallel-axis theorem).
  const double h = R - D / 2;
  const Expected cap = cap_expected(R, h, Vec3::Zero());
  const double Vc = cap.V, dc = -cap.centroid.z();
  const double V = M_PI * (4 * R + D) * std::pow(2 * R - D, 2) / 12;
  REQUIRE(2 * Vc == Approx(V).epsilon(1e-12));  // the two closed forms agree
  const double Ja = 2 * cap.J(2, 2), Jt = 2 * (cap.J(0, 0) + Vc * dc * dc);
  const Mat3 P = dir * dir.transpose();
  const Mat3 J = Ja * P + Jt * (Mat3::Identity() - P);
  check("T2 equal spheres", x, {V, 0.5 * (ci + cj), J});
  CHECK(x.normal_estimate.dot(dir) > 0.999999);  // along the centre line, from j toward i
}

TEST_CASE("T3 cylinder end-on", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const double R = 0.05, L = 0.2, h = 1e-3;
  const Cell cyl = one_cell(cylinder(R, L)), table = one_cell(halfspace());
  const Interference x = interference(cyl, Pose{Vec3(0.01, 0.02, L / 2 - h), Quat::Identity()}, table, Pose{},
                                        engine_options(closed_forms));
  const double V = M_PI * R * R * h;
  const double Ja = V * R * R / 2, Jt = V * (R * R / 4 + h * h / 12);
  check("T3 cylinder end-on", x, {V, Vec3(0.01, 0.02, -h / 2), Vec3(Jt, Jt, Ja).asDiagonal()});
}

TEST_CASE("T4 cylinder on its side", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const double R = 1, L = 2, h = 0.4;
  const Cell cyl = one_cell(cylinder(R, L)), table = one_cell(halfspace());
  // Axis along world y.
  const Pose pi{Vec3(0, 0, R - h), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()))};
  const Interference x = interference(cyl, pi, table, Pose{}, engine_options(closed_forms));
  const double th = std::acos((R - h) / R), sn = std::sin(th), cs = std::cos(th);
  const double A = R * R * (th - sn * cs);
  const double zbar = 2 * R * std::pow(sn, 3) / (3 * (th - sn * cs));
  const double dc = zbar - R * cs;
  const double Ix2 = std::pow(R, 4) / 4 * (th - sn * cs) - std::pow(R, 4) / 6 * std::pow(sn, 3) * cs;
  const double Iz2 = std::pow(R, 4) / 4 * (th + sn * cs) - std::pow(R, 4) / 2 * sn * std::pow(cs, 3);
  const double Iz2c = Iz2 - A * zbar * zbar;
  const double Jn = L * Ix2 + A * L * L * L / 12, Jx = A * L * L * L / 12 + L * Iz2c, Jcyl = L * (Ix2 + Iz2c);
  // The reference's printed numbers (independent check of the formulas above).
  CHECK(L * A == Approx(0.894590).epsilon(1e-5));
  CHECK(dc == Approx(0.163105).epsilon(1e-5));
  CHECK(Jn == Approx(0.419444).epsilon(1e-5));
  CHECK(Jx == Approx(0.308098).epsilon(1e-5));
  CHECK(Jcyl == Approx(0.131149).epsilon(1e-5));
  check("T4 cylinder on its side", x, {L * A, Vec3(0, 0, -dc), Vec3(Jx, Jcyl, Jn).asDiagonal()});
}

TEST_CASE("T5 box face flat", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const double a = 0.5, b = 0.3, h = 1e-4;
  const Cell bx = one_cell(box(Vec3(a, b, 0.2))), table = one_cell(halfspace());
  const Interference x = interference(bx, Pose{Vec3(-0.2, 0.1, 0.1 - h), Quat::Identity()}, table, Pose{},
                                        engine_options(closed_forms));
  const double V = a * b * h;
  check("T5 box face flat", x,
        {V, Vec3(-0.2, 0.1, -h / 2), Vec3(V * (b * b + h * h) / 12, V * (a * a + h * h) / 12, V * (a * a + b * b) / 12)
                                        .asDiagonal()});
}

namespace {
// T6: a box (S × w × S) with an edge along y, tilted by alpha about it, edge at depth delta.
Pose tilted_box_pose(double S, double alpha, double delta) {
  const Quat q(Eigen::AngleAxisd(-alpha, Vec3::UnitY()));  // bottom face direction x -> (cos a, 0, sin a)
  return Pose{Vec3(0, 0, -delta) - q * Vec3(-S / 2, 0, -S / 2), q};
}
Expected tilted_box_expected(double w, double alpha, double delta) {
  // Section: right triangle (−δ tanα, 0), (δ cotα, 0), (0, −δ), extruded along y over w.
  const Vec3 v[3] = {Vec3(-delta * std::tan(alpha), 0, 0), Vec3(delta / std::tan(alpha), 0, 0), Vec3(0, 0, -delta)};
  const Vec3 c = (v[0] + v[1] + v[2]) / 3;
  const double A = 0.5 * (v[1].x() - v[0].x()) * delta, V = A * w;
  Mat3 S = Mat3::Zero();  // central second moments ∫ r rᵀ dV
  for (const Vec3& p : v) S += (V / 12) * (p - c) * (p - c).transpose();
  S(1, 1) = V * w * w / 12;
  return {V, c, S.trace() * Mat3::Identity() - S};
}
// Tilt of the J_v normal from +z in the xz plane (eigenvector of the xz block with the largest J).
double normal_tilt_deg(const Mat3& J) {
  Eigen::Matrix2d B;
  B << J(0, 0), J(0, 2), J(2, 0), J(2, 2);
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> es(B);
  Eigen::Vector2d n = es.eigenvectors().col(1);
  if (n.y() < 0) n = -n;
  return std::atan2(std::abs(n.x()), n.y()) * 180 / M_PI;
}
}  // namespace

TEST_CASE("T6 tilted box edge", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const double S = 0.2, w = 0.1, delta = 2e-3;
  const Cell table = one_cell(halfspace());
  const Cell bx = one_cell(box(Vec3(S, w, S)));
  struct Case {
    double alpha_deg, phi_deg;  // the reference's table of the J_v normal tilt
  };
  for (const Case c : {Case{10, 4.843}, Case{30, 9.553}}) {
    const double alpha = c.alpha_deg * M_PI / 180;
    const Interference x = interference(bx, tilted_box_pose(S, alpha, delta), table, Pose{},
                                          engine_options(closed_forms));
    const Expected e = tilted_box_expected(w, alpha, delta);
    char label[64];
    std::snprintf(label, sizeof label, "T6 alpha=%g deg", c.alpha_deg);
    check(label, x, e);
    CHECK(e.V == Approx(w * delta * delta / std::sin(2 * alpha)).epsilon(1e-12));  // two closed forms agree
    const double phi_expected = normal_tilt_deg(e.J), phi = normal_tilt_deg(x.inertia);
    std::printf("  J_v normal tilt: %.4f deg (closed form %.4f, reference table %.3f)\n", phi, phi_expected, c.phi_deg);
    CHECK(phi_expected == Approx(c.phi_deg).margin(5e-4));  // table printed to 3 decimals
    // At alpha = 10° the two in-plane eigenvalues are well separated: a 1e-3 inertia error moves
    // the axis by < 0.01°. (Near 30° they almost coincide, so the axis is ill-conditioned and only
    // V, centroid and J are checked.)
    if (c.alpha_deg == 10) CHECK(phi == Approx(phi_expected).margin(0.01));
  }
}

TEST_CASE("T7 cube corner down", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const double S = 0.1, delta = 3e-3;
  const Cell table = one_cell(halfspace()), cube = one_cell(box(Vec3(S, S, S)));
  const Quat q = Quat::FromTwoVectors(Vec3(-1, -1, -1).normalized(), -Vec3::UnitZ());
  const Pose pi{Vec3(0.05, 0.02, -delta) - q * Vec3::Constant(-S / 2), q};
  const Interference x = interference(cube, pi, table, Pose{}, engine_options(closed_forms));
  const double V = std::sqrt(3.0) / 2 * std::pow(delta, 3);
  const double Ja = 3 * std::sqrt(3.0) * std::pow(delta, 5) / 20, Jt = 3 * std::sqrt(3.0) * std::pow(delta, 5) / 32;
  check("T7 cube corner", x, {V, Vec3(0.05, 0.02, -delta / 4), Vec3(Jt, Jt, Ja).asDiagonal()});
}

TEST_CASE("Rigid-motion invariance 100 m from the origin", "[geometry][invariance]") {
  const bool closed_forms = GENERATE(false, true);
  // A rigid motion G applied to both bodies must move the results with it.
  const Pose G{Vec3(100.0, -70.0, 100.0), Quat(Eigen::AngleAxisd(1.1, Vec3(0.3, -0.5, 0.8).normalized()))};
  const Mat3 RG = G.rotation.toRotationMatrix();
  auto run = [&](const char* label, const Cell& ci, const Pose& pi, const Cell& cj, const Pose& pj) {
    const Interference a = interference(ci, pi, cj, pj, engine_options(closed_forms));
    const Interference b = interference(ci, G.compose(pi), cj, G.compose(pj), engine_options(closed_forms));
    REQUIRE(a.overlap);
    REQUIRE(b.overlap);
    const double ev = std::abs(b.volume / a.volume - 1);
    const double ec = (G.apply_inverse(b.centroid) - a.centroid).norm() / std::cbrt(a.volume);
    const double ej = rel_frobenius(RG.transpose() * b.inertia * RG, a.inertia);
    std::printf("%-34s moved: V diff %.2e  centroid diff %.2e  J diff %.2e\n", label, ev, ec, ej);
    CHECK(ev < 1e-3);  // same limits as the closed-form cases
    CHECK(ec < 1e-3);
    CHECK(ej < 5e-3);
    CHECK((RG.transpose() * b.normal_estimate).dot(a.normal_estimate) > 0.999);
  };
  const Cell table = one_cell(halfspace());
  run("sphere in half-space", one_cell(sphere(0.1)), Pose{Vec3(0, 0, 0.1 - 2.5e-3), Quat::Identity()}, table, Pose{});
  run("tilted box edge", one_cell(box(Vec3(0.2, 0.1, 0.2))), tilted_box_pose(0.2, 10 * M_PI / 180, 2e-3), table,
      Pose{});
  run("two spheres", one_cell(sphere(0.05)), Pose{Vec3(0.09, 0, 0), Quat::Identity()}, one_cell(sphere(0.05)), Pose{});
}

// T5 with a tiny tilt, the attitude of a box resting on a table: the overlap is a truncated prism
// whose volume is the face area times the depth at the face centre, to O(tilt²) (≤ 1e-6 here).
// Regression: walls nearly parallel to the columns once made V jump by ~1% and a query cost 1M columns.
TEST_CASE("T5 box face with a tiny tilt: V = face area x centre depth", "[geometry][closed_form]") {
  const bool closed_forms = GENERATE(false, true);
  const double a = 0.2, b = 0.2, c = 0.1, d = 4.9e-4;
  const Cell bx = one_cell(box(Vec3(a, b, c))), table = one_cell(box(Vec3(2, 2, 0.1)));
  for (double tilt : {1e-12, 1e-9, 1e-6, 1e-4, 1e-3}) {
    const Quat q = Quat(Eigen::AngleAxisd(tilt, Vec3(0.3, 1, 0).normalized())) * Quat(Eigen::AngleAxisd(1e-4, Vec3::UnitZ()));
    const Pose pose{Vec3(0.0123, 0.0071, 0), q};
    // Put the bottom-face centre at depth d below the table top (z = 0).
    Pose placed = pose;
    placed.position.z() = -d - (q * Vec3(0, 0, -c / 2)).z();
    const Interference x = interference(bx, placed, table, Pose{Vec3(0, 0, -0.05), Quat::Identity()},
                                          engine_options(closed_forms));
    INFO("tilt " << tilt << " V " << x.volume << " columns " << x.columns);
    CHECK(std::abs(x.volume / (a * b * d) - 1) < 1e-3);  // the T5 limit at the default tolerance
    if (!closed_forms) CHECK(x.columns < 50000);  // work, not time: the aligned face takes ~11k columns
  }
}
