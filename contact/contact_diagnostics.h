// Per-pair contact diagnostics (issue 10, "Equivalent contact point and contact diagnostics"): the centre of
// pressure (Xie & Chakraborty's equivalent contact point), the net moment about the normal there, and the
// dimension of the contact region (point / line / surface) from the interference volume's inertia tensor.
// Definitions and the classification rule: docs/output-format.md, "Contact diagnostics".
#pragma once
#include <string>
#include <vector>

#include "contact/contact_pair.h"

namespace vcsim::contact {

struct ContactDiagnostics {
  Vec3 center_of_pressure = Vec3::Zero();  // world; 0 out of contact
  double normal_moment = 0;                // N m, about n at the centre of pressure
  double dimension = -1;                   // -1 none, 0 point, 1 line, 2 surface
  double active_pairs = 0;                 // contacting cell pairs (point model: 0 or 1)
};

// Centre of pressure of a wrench (force F applied at p plus the couple C about p) on the plane through p normal
// to n: a = p + n × C / (F·n) (docs/sources.md, "Xie & Chakraborty", with O = p), and the moment about the normal at a,
// λ_r = n·(C − (a − p) × F). When F·n ≤ 0 (no pushing force) a = p and λ_r = n·C.
void centre_of_pressure(const Vec3& n, const Vec3& F, const Vec3& p, const Vec3& C, Vec3& a, double& lambda_r);

// Dimension of a contact region from its volume V, inertia J (about the centroid, unit density) and normal n.
// C = (tr J /(2V)) I − J/V is the covariance of the region; σ_n² = n·C·n, σ_a ≥ σ_b the principal standard
// deviations of C in the tangent plane. Point (0) when σ_a < κ σ_n (the region is about as deep as it is wide:
// a vertex digging in); surface (2) when σ_b ≥ κ σ_n and σ_a < κ σ_b (wide both ways, not elongated: a face, a
// sphere's cap); otherwise line (1) (an edge, a cylinder on its side, a vertex sliver turning into an edge).
// κ = 4. -1 when V ≤ 0.
constexpr double kDimensionRatio = 4.0;
double contact_dimension(double volume, const Mat3& inertia, const Vec3& n);

// The inertia (unit density) of a volume V about a point at d from its centroid, given J about the centroid: the
// parallel axes. Sums of pieces about a common point add up.
inline Mat3 inertia_moved(const Mat3& J, double V, const Vec3& d) {
  return J + V * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
}

// The diagnostic channels every model ends its row with: centre_of_pressure, normal_moment, contact_dimension and,
// unless the model wrote it earlier, active_pairs.
void write_diagnostics(ChannelRow& row, const ContactDiagnostics& d, bool with_active_pairs = true);

}  // namespace vcsim::contact
