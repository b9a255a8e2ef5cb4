// Bristle friction kernels of Gonthier's thesis: the seven-parameter point model (§3.2.2, eqs
// 3.28–3.42) and its volumetric extension with Contensou coupling and spinning friction (§4.4,
// eqs 4.202–4.243). Pure functions; every quantity in SI, vectors in the world frame.
// The friction force is the one acting on body i; z is body i's displacement relative to body j.
#pragma once
#include "geometry/pose.h"

namespace vcsim::contact {

struct FrictionParams {
  double mu_s = 0, mu_c = 0;   // stiction and Coulomb coefficients
  double sigma0 = 0;           // load-relative bristle stiffness [1/m]
  double sigma1 = 0;           // load-relative bristle damping [s/m]
  double sigma2 = 0;           // load-relative viscous coefficient [s/m]
  double v_s = 0;              // Stribeck velocity [m/s]
  double tau_dw = 0;           // dwell-time constant [s]; 0: s_dw ≡ s (dwell disabled)
  double v_e = 0;              // numerical velocity tolerance [m/s] (> 0; callers resolve "v_s/100")
  double spin_scale = 1;       // scale of the spinning torque (volumetric only)
  double tau_br() const { return sigma1 / sigma0; }  // bristle time constant (eq 3.52)
};

// Regularised direction (eq 3.33): u/|u| above u_e, the cubic (u/u_e)(3/2 − ½(|u|/u_e)²) below;
// C¹ at |u| = u_e (magnitude 1, slope 0) and 0 at u = 0.
Vec3 dir_e(const Vec3& u, double u_e);
double dir_e(double u, double u_e);
// Saturation (eq 3.39): u if |u| ≤ u_max, else u_max u/|u|.
Vec3 sat(const Vec3& u, double u_max);
double sat(double u, double u_max);

// Stick weight s = exp(−v²/v_s²) (eq 3.30, 4.221), v the sliding speed (point) or v_avg (volumetric).
double stick_weight(double speed, double v_s);
// Dwell-state rate (eq 3.36): slow rise with τ_dw, fast collapse with τ_br.
double dwell_rate(const FrictionParams& p, double s, double s_dw);
// μ_max = μ_C + (μ_S − μ_C) s_dw (eq 3.37); with τ_dw = 0 the dwell state is replaced by s.
double mu_max(const FrictionParams& p, double s, double s_dw);

struct PointFriction {
  Vec3 force = Vec3::Zero();   // f_t on body i (eq 3.42)
  Vec3 z_dot = Vec3::Zero();   // bristle rate (eq 3.35, or 3.41 when saturated)
  double s_dw_dot = 0;         // eq 3.36
  double s = 0;                // stick weight (eq 3.30)
  double mu_max = 0;           // eq 3.37
  bool saturated = false;      // |σ0 z + σ1 ż| reached μ_max
};
// The point model's bristle friction for normal load f_n ≥ 0 and tangential slip velocity v_t
// (body i relative to body j). z is the bristle deflection (tangential), s_dw the dwell state.
PointFriction point_friction(const FrictionParams& p, double f_n, const Vec3& v_t, const Vec3& z, double s_dw);

struct Contensou {
  double v_avg = 0;  // sqrt(|v_sct|² + r_gyr² ω_n²) (eq 4.212–4.213)
  double c_v = 0;    // eq 4.224
  double c_w = 0;    // eq 4.236
};
// Contensou factors; C_v² + C_w² = 1 whenever v_avg ≥ v_e (eq 4.211).
Contensou contensou(double v_sct, double r_gyr, double w_n, double v_e);

struct VolumetricFriction {
  Vec3 force = Vec3::Zero();   // f_t on body i (eq 4.230)
  double torque = 0;           // spinning torque about n on body i (eq 4.243, times spin_scale)
  Vec3 z_dot = Vec3::Zero();   // eq 4.227 / 4.229
  double theta_dot = 0;        // eq 4.239 / 4.242
  double s_dw_dot = 0;         // eq 3.36
  double s = 0, c_v = 0, c_w = 0, c_vs = 0, c_ws = 0, mu_max = 0, v_avg = 0;
  bool saturated = false, spin_saturated = false;
};
// Volumetric bristle friction at the contact centroid: v_sct the tangential relative velocity
// (tangential to n), w_n = n·ω_r the relative spin, r_gyr = sqrt(n·J·n / V) (eq 4.201).
VolumetricFriction volumetric_friction(const FrictionParams& p, double f_n, const Vec3& v_sct, double w_n,
                                       double r_gyr, const Vec3& z, double theta, double s_dw);

// Rolling-resistance couple τ_r = k_v a J·ω_t (eq 4.67, J_v in place of J_s), on body i.
Vec3 rolling_resistance(double k_v, double a, const Mat3& J, const Vec3& w_t);

// Keeps a bristle deflection z[0..2] in the tangent plane of the current normal n as the normal turns
// (a ball rolling over a table edge): the normal part is dropped (point model P8, volumetric §12-B5).
void keep_bristle_tangential(double* z, const Vec3& n);

// Energy held by the bristle springs, which the energy bookkeeping leaves out (their stiffness σ0 f_n follows
// the load, so they are no potential; docs/conventions.md, "Energy tolerance"): ½ σ0 f_n |z|², plus the torsion
// ½ spin_scale σ0 r_gyr² f_n θ² of the volumetric model (its spin torque is spin_scale r_gyr² f_n σ0 θ, eq 4.243).
double bristle_energy(const FrictionParams& p, double f_n, const Vec3& z, double r_gyr = 0, double theta = 0);

}  // namespace vcsim::contact
