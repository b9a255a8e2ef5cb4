#include "contact/contact_diagnostics.h"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace vcsim::contact {

void centre_of_pressure(const Vec3& n, const Vec3& F, const Vec3& p, const Vec3& C, Vec3& a, double& lambda_r) {
  const double N = F.dot(n);
  a = p;
  if (N > 0) a += n.cross(C) / N;
  lambda_r = n.dot(C - (a - p).cross(F));
}

double contact_dimension(double volume, const Mat3& inertia, const Vec3& n_in) {
  if (!(volume > 0) || n_in.squaredNorm() == 0) return -1;
  const Vec3 n = n_in.normalized();
  const Mat3 C = (inertia.trace() / (2 * volume)) * Mat3::Identity() - inertia / volume;
  const double var_n = std::max(n.dot(C * n), 0.0);
  // Tangent basis (t1, t2) and the 2x2 covariance in it.
  const Vec3 t1 = (std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).cross(n).normalized();
  const Vec3 t2 = n.cross(t1);
  Eigen::Matrix2d Ct;
  Ct << t1.dot(C * t1), t1.dot(C * t2), t2.dot(C * t1), t2.dot(C * t2);
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> es(Ct);
  const double var_b = std::max(es.eigenvalues()[0], 0.0), var_a = std::max(es.eigenvalues()[1], 0.0);
  const double k2 = kDimensionRatio * kDimensionRatio;
  if (var_a < k2 * var_n) return 0;                          // about as deep as it is wide: point
  if (var_b >= k2 * var_n && var_a < k2 * var_b) return 2;   // wide both ways, not elongated: surface
  return 1;                                                  // wide one way only, or elongated: line
}

void write_diagnostics(ChannelRow& row, const ContactDiagnostics& d, bool with_active_pairs) {
  row.add("center_of_pressure", "m",
          "centre of pressure (Xie & Chakraborty's equivalent contact point): p + n x C/(F.n) on the plane through "
          "the point of action normal to n (world)",
          d.center_of_pressure);
  row.add("normal_moment", "N m", "net moment about the normal at the centre of pressure (on body i)",
          {d.normal_moment});
  row.add("contact_dimension", "1",
          "dimension of the contact region: -1 none, 0 point, 1 line, 2 surface (interference inertia eigenvalues)",
          {d.dimension});
  if (with_active_pairs) row.add("active_pairs", "1", "number of contacting cell pairs", {d.active_pairs});
}

}  // namespace vcsim::contact
