// Contact-normal selection (thesis eqs 4.199–4.201, App. A.3.3) on volume inertia tensors computed
// from the closed forms of docs/sources.md, T1–T8 (T1 sphere cap, T3 cylinder end, T6 tilted box
// edge) — not from our geometry engine.
#include <catch2/catch.hpp>

#include <cmath>

#include "contact/contact_normal.h"

using namespace vcsim;
using namespace vcsim::contact;

namespace {

const Mat3 kRot = quat_from_rpy(0.3, -0.7, 1.1).toRotationMatrix();  // an arbitrary attitude of the pair

Vec3 tilt(const Vec3& n, const Vec3& axis, double deg) {
  return Eigen::AngleAxisd(deg * M_PI / 180, axis.normalized()) * n;
}

// T6: box edge down, tilted by α about the edge (y), edge depth δ, edge length w. Section triangle
// (x, z): (−δ tanα, 0), (δ cotα, 0), (0, −δ); central second moments (A/12) Σ d_k d_kᵀ, extruded in y.
Mat3 t6_inertia(double alpha, double delta, double w) {
  const Eigen::Vector2d v[3] = {{-delta * std::tan(alpha), 0}, {delta / std::tan(alpha), 0}, {0, -delta}};
  const Eigen::Vector2d c = (v[0] + v[1] + v[2]) / 3;
  const double A = 0.5 * (v[1].x() - v[0].x()) * delta;
  Eigen::Matrix2d S = Eigen::Matrix2d::Zero();
  for (const auto& vk : v) S += (vk - c) * (vk - c).transpose();
  S *= A / 12;
  Mat3 C = Mat3::Zero();  // ∫ ρ ρᵀ dV
  C(0, 0) = w * S(0, 0);
  C(0, 2) = C(2, 0) = w * S(0, 1);
  C(2, 2) = w * S(1, 1);
  C(1, 1) = A * w * w * w / 12;
  return C.trace() * Mat3::Identity() - C;  // J = tr(C) I − C
}

}  // namespace

TEST_CASE("T1 sphere cap: the normal is the cap axis, r_gyr from J_axis", "[contact][normal]") {
  const double R = 1, h = 0.3;
  const double V = M_PI * h * h * (3 * R - h) / 3;
  const double J_axis = M_PI * std::pow(h, 3) * (20 * R * R - 15 * R * h + 3 * h * h) / 30;
  const double J_tan = M_PI * std::pow(h, 3) * (240 * R * R * R - 220 * R * R * h + 72 * R * h * h - 9 * h * h * h) /
                       (240 * (3 * R - h));
  const Mat3 J = kRot * Vec3(J_tan, J_tan, J_axis).asDiagonal() * kRot.transpose();
  const Vec3 axis = kRot * Vec3::UnitZ();
  // A seed 30° off the axis still selects the axis (the closest eigenvector).
  const NormalSelection sel = select_normal(J, tilt(axis, kRot * Vec3::UnitX(), 30));
  CHECK((sel.normal - axis).norm() < 1e-12);
  CHECK(sel.multiplicity == 1);
  // r_gyr² = h (20R² − 15Rh + 3h²) / (10 (3R − h)) (T1).
  CHECK(sel.lambda / V == Approx(h * (20 * R * R - 15 * R * h + 3 * h * h) / (10 * (3 * R - h))).epsilon(1e-12));
  // Orientation follows the seed (from body j toward body i).
  CHECK((select_normal(J, -axis).normal + axis).norm() < 1e-12);
}

TEST_CASE("T3 flat cylinder end: normal = axis, r_gyr = R/sqrt(2)", "[contact][normal]") {
  const double R = 0.05, h = 1e-4;
  const double V = M_PI * R * R * h;
  const Mat3 J = kRot * Vec3(V * (R * R / 4 + h * h / 12), V * (R * R / 4 + h * h / 12), V * R * R / 2).asDiagonal() *
                 kRot.transpose();
  const Vec3 axis = kRot * Vec3::UnitZ();
  const NormalSelection sel = select_normal(J, tilt(axis, kRot * Vec3::UnitY(), 40));
  CHECK((sel.normal - axis).norm() < 1e-12);
  CHECK(std::sqrt(sel.lambda / V) == Approx(R / std::sqrt(2.0)).epsilon(1e-12));
}

TEST_CASE("T6 tilted box edge: the J_v normal tilts by the closed-form angle (policy: thesis J_v)", "[contact][normal]") {
  // Policy (docs/contact-models.md, "Contact normal"): the normal is always the J_v eigenvector, even against a
  // rigid plane, so a box edge tilted by α gets a normal tilted by φ ≈ α/2 from the plane normal,
  // toward the bisector of the two faces. Expected φ from docs/sources.md, T6.
  const double alphas[] = {2, 5, 10, 20, 30, 40, 45};
  const double phis[] = {0.999, 2.481, 4.843, 8.620, 9.553, 4.713, 0.0};
  for (int k = 0; k < 7; ++k) {
    const double alpha = alphas[k] * M_PI / 180;
    const Mat3 J = t6_inertia(alpha, 1e-3, 0.2);
    const NormalSelection sel = select_normal(J, Vec3::UnitZ());  // geometric estimate: the plane normal
    const double phi = std::acos(std::min(1.0, sel.normal.dot(Vec3::UnitZ()))) * 180 / M_PI;
    INFO("alpha = " << alphas[k] << " deg, phi = " << phi);
    CHECK(phi == Approx(phis[k]).margin(1.5e-3));  // table printed to 3 decimals (±0.0005°) plus rounding
    CHECK(std::abs(sel.normal.y()) < 1e-12);       // stays in the plane of the section
  }
}

TEST_CASE("degenerate eigenvalues: projection of the seed, isotropic tensor gives the seed", "[contact][normal]") {
  // Full sphere inside the other body (T1 at h = 2R): J = 8πR⁵/15 I, every direction qualifies.
  const Vec3 seed = Vec3(0.2, -0.5, 0.8).normalized();
  const NormalSelection iso = select_normal(Mat3::Identity() * (8 * M_PI / 15), seed);
  CHECK((iso.normal - seed).norm() < 1e-15);
  CHECK(iso.multiplicity == 3);
  // Two equal eigenvalues (x, y) and the seed mostly in that plane: the seed projected on it.
  const Mat3 J = kRot * Vec3(1.0, 1.0, 2.0).asDiagonal() * kRot.transpose();
  const Vec3 s = kRot * Vec3(0.6, 0.7, 0.1);
  const NormalSelection sel = select_normal(J, s);
  CHECK(sel.multiplicity == 2);
  CHECK((sel.normal - kRot * Vec3(0.6, 0.7, 0).normalized()).norm() < 1e-12);
  // Continuity across the degeneracy: a tiny split of the eigenvalues moves the answer continuously only
  // within the gap; outside it the eigenvector closest to the seed is returned.
  const Mat3 J2 = kRot * Vec3(1.0, 1.0 + 1e-9, 2.0).asDiagonal() * kRot.transpose();
  CHECK((select_normal(J2, s).normal - sel.normal).norm() < 1e-12);
}

TEST_CASE("normal seed blends the geometric estimate with the previous normal (eq A.31)", "[contact][normal]") {
  const Vec3 g = Vec3::UnitZ(), prev = Vec3(1, 0, 1).normalized();
  CHECK((normal_seed(g, Vec3::Zero(), 0.95) - g).norm() == 0.0);
  const Vec3 s = normal_seed(g, prev, 0.95);
  CHECK(s.norm() == Approx(1.0));
  CHECK(((0.05 * g + 0.95 * prev).normalized() - s).norm() < 1e-15);
}
