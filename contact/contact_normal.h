// The volumetric contact normal: the eigenvector of the interference volume's inertia tensor J_v
// closest to a seed direction (thesis §4.3.7, eqs 4.199–4.201, App. A.3.3). A full symmetric
// eigen-decomposition replaces the thesis's unshifted inverse iteration, which converges to the
// smallest-eigenvalue axis (a tangential one for thin volumes; docs/sources.md, "Contact normal").
#pragma once
#include "geometry/pose.h"

namespace vcsim::contact {

// Seed of eq A.31: normalize((1 − r_n) n_geo + r_n n_prev); n_geo alone when n_prev is zero (first
// contact instant) or when the blend degenerates (n_prev opposite to n_geo).
Vec3 normal_seed(const Vec3& n_geo, const Vec3& n_prev, double r_n);

struct NormalSelection {
  Vec3 normal = Vec3::UnitZ();  // unit, oriented so that normal·seed > 0 (from body j toward body i)
  double lambda = 0;            // n·J·n (m^5); r_gyr = sqrt(lambda / V) (eq 4.201)
  int multiplicity = 1;         // how many eigenvalues fell within the degeneracy gap of the chosen one
};

// Chooses the eigenvector of the symmetric J with the largest |e·seed|. Eigenvalues within
// rel_gap · max|λ| of the chosen one form a degenerate eigenspace: then the normal is the seed
// projected onto that eigenspace (the seed itself when J is isotropic), so it stays continuous.
NormalSelection select_normal(const Mat3& J, const Vec3& seed, double rel_gap = 1e-6);

// A patch's area from its volume V and inertia J (about its centroid): 12 σ_a σ_b, σ_a ≥ σ_b the two largest principal
// standard deviations of the region (covariance Σ = (tr J / 2V) I − J / V), the area of a thin rectangle with those.
double patch_area(double V, const Mat3& J);

// The normal from the area vector S_i = ∫ n dA over cell i's boundary inside j (= ∇V under i's translation): −S/|S|,
// when the patch faces one way, |S| ≥ kFacingOneWay × patch_area (docs/contact-models.md, "Contact normal"); else none
// (zero: a band around a peg, whose S cancels).
constexpr double kFacingOneWay = 0.25;
Vec3 area_normal(const Vec3& S, double V, const Mat3& J);

}  // namespace vcsim::contact
