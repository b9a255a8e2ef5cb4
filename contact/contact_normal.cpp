#include "contact/contact_normal.h"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace vcsim::contact {

Vec3 normal_seed(const Vec3& n_geo, const Vec3& n_prev, double r_n) {
  const Vec3 g = n_geo.normalized();
  if (n_prev.squaredNorm() == 0) return g;
  const Vec3 blend = (1 - r_n) * g + r_n * n_prev.normalized();
  const double m = blend.norm();
  return m > 1e-12 ? Vec3(blend / m) : g;
}

NormalSelection select_normal(const Mat3& J, const Vec3& seed_in, double rel_gap) {
  NormalSelection out;
  const Vec3 seed = seed_in.normalized();
  const Mat3 Js = 0.5 * (J + J.transpose());  // guard against round-off asymmetry
  Eigen::SelfAdjointEigenSolver<Mat3> eig(Js);
  const Vec3 lam = eig.eigenvalues();
  const Mat3 E = eig.eigenvectors();
  int best = 0;
  for (int k = 1; k < 3; ++k)
    if (std::abs(E.col(k).dot(seed)) > std::abs(E.col(best).dot(seed))) best = k;
  const double scale = lam.cwiseAbs().maxCoeff();
  const double gap = rel_gap * scale;
  // The eigenspace of every eigenvalue within the gap of the chosen one.
  Vec3 projected = Vec3::Zero();
  int mult = 0;
  for (int k = 0; k < 3; ++k) {
    if (std::abs(lam[k] - lam[best]) <= gap) {
      projected += E.col(k) * E.col(k).dot(seed);
      ++mult;
    }
  }
  out.multiplicity = mult;
  Vec3 n;
  if (scale == 0 || mult == 3) {
    n = seed;  // isotropic (or empty) tensor: every direction is an eigenvector
  } else if (mult == 2) {
    // The best eigenvector maximises |e·seed| in its eigenspace, so the projection is nonzero.
    n = projected.normalized();
  } else {
    n = E.col(best);
  }
  if (n.dot(seed) < 0) n = -n;
  out.normal = n;
  out.lambda = n.dot(Js * n);
  return out;
}

double patch_area(double V, const Mat3& J) {
  if (!(V > 0)) return 0;
  const Mat3 sigma = (J.trace() / (2 * V)) * Mat3::Identity() - J / V;
  const Vec3 s = Eigen::SelfAdjointEigenSolver<Mat3>(0.5 * (sigma + sigma.transpose()), Eigen::EigenvaluesOnly)
                     .eigenvalues()
                     .cwiseMax(0.0);
  return 12 * std::sqrt(s[2] * s[1]);  // ascending
}

Vec3 area_normal(const Vec3& S, double V, const Mat3& J) {
  const double area = S.norm();
  if (!(area > 0) || area < kFacingOneWay * patch_area(V, J)) return Vec3::Zero();
  return -S / area;
}

}  // namespace vcsim::contact
