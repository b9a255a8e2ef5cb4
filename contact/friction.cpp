#include "contact/friction.h"

#include <algorithm>
#include <cmath>

namespace vcsim::contact {

Vec3 dir_e(const Vec3& u, double u_e) {
  const double m = u.norm();
  if (m >= u_e) return u / m;
  const double r = m / u_e;
  return (u / u_e) * (1.5 - 0.5 * r * r);  // eq 3.33, cubic branch
}

double dir_e(double u, double u_e) {
  const double m = std::abs(u);
  if (m >= u_e) return u > 0 ? 1.0 : -1.0;
  const double r = m / u_e;
  return (u / u_e) * (1.5 - 0.5 * r * r);
}

Vec3 sat(const Vec3& u, double u_max) {
  const double m = u.norm();
  return m <= u_max ? u : Vec3(u * (u_max / m));
}

double sat(double u, double u_max) { return std::clamp(u, -u_max, u_max); }

double stick_weight(double speed, double v_s) { return std::exp(-(speed * speed) / (v_s * v_s)); }

double dwell_rate(const FrictionParams& p, double s, double s_dw) {
  // With τ_dw = 0 the dwell effect is disabled (μ_max uses s itself); the state still follows s
  // with τ_br so that it stays bounded and meaningful in the output.
  const double tau = (s - s_dw >= 0 && p.tau_dw > 0) ? p.tau_dw : p.tau_br();
  return (s - s_dw) / tau;
}

double mu_max(const FrictionParams& p, double s, double s_dw) {
  const double w = p.tau_dw > 0 ? s_dw : s;
  return p.mu_c + (p.mu_s - p.mu_c) * w;
}

namespace {

// The common bristle update of eqs 3.35/3.41 (point) and 4.227/4.229 (volumetric):
// ż* = s v + (1 − s)(drive − σ0 z)/σ1, u = σ0 z + σ1 ż*, saturated to |u| ≤ limit, then ż = (u − σ0 z)/σ1.
// Returns the (saturated) load-relative bristle force u.
template <class V>
V bristle(const FrictionParams& p, double s, const V& v, const V& drive, double limit, const V& z, V& z_dot,
          bool& saturated) {
  z_dot = s * v + (1 - s) * (drive - p.sigma0 * z) / p.sigma1;
  V u = p.sigma0 * z + p.sigma1 * z_dot;
  const V us = sat(u, limit);
  saturated = !(us == u);
  if (saturated) z_dot = (us - p.sigma0 * z) / p.sigma1;
  return us;
}

}  // namespace

PointFriction point_friction(const FrictionParams& p, double f_n, const Vec3& v_t, const Vec3& z, double s_dw) {
  PointFriction out;
  out.s = stick_weight(v_t.norm(), p.v_s);
  out.mu_max = mu_max(p, out.s, s_dw);
  const Vec3 drive = p.mu_c * dir_e(v_t, p.v_e);  // f_C / f_n (eq 3.32)
  const Vec3 u = bristle<Vec3>(p, out.s, v_t, drive, out.mu_max, z, out.z_dot, out.saturated);
  out.force = -f_n * (u + p.sigma2 * v_t);  // eq 3.42
  out.s_dw_dot = dwell_rate(p, out.s, s_dw);
  return out;
}

Contensou contensou(double v_sct, double r_gyr, double w_n, double v_e) {
  Contensou c;
  const double vs = std::abs(v_sct), ws = std::abs(r_gyr * w_n);
  c.v_avg = std::hypot(vs, ws);
  const double den = std::max(c.v_avg, v_e);  // second branch of 4.224/4.236, continuous at v_e
  c.c_v = vs / den;
  c.c_w = ws / den;
  return c;
}

VolumetricFriction volumetric_friction(const FrictionParams& p, double f_n, const Vec3& v_sct, double w_n,
                                       double r_gyr, const Vec3& z, double theta, double s_dw) {
  VolumetricFriction out;
  const Contensou c = contensou(v_sct.norm(), r_gyr, w_n, p.v_e);
  out.v_avg = c.v_avg;
  out.c_v = c.c_v;
  out.c_w = c.c_w;
  out.s = stick_weight(c.v_avg, p.v_s);                   // eq 4.221: spin counts too
  out.c_vs = out.s + (1 - out.s) * c.c_v;                 // eq 4.223
  out.c_ws = out.s + (1 - out.s) * c.c_w;                 // eq 4.235
  out.mu_max = mu_max(p, out.s, s_dw);
  // Translation (eqs 4.225–4.230).
  const Vec3 drive = p.mu_c * dir_e(v_sct, p.v_e) * out.c_vs;
  const Vec3 u = bristle<Vec3>(p, out.s, v_sct, drive, out.mu_max * out.c_vs, z, out.z_dot, out.saturated);
  out.force = -f_n * (u + p.sigma2 * v_sct);
  // Spin (eqs 4.234–4.243). sgn(ω_n) is regularised as dir_e(r_gyr ω_n, v_e) (§12-B8). Needs r_gyr > 0.
  if (r_gyr > 0) {
    const double dirw = dir_e(r_gyr * w_n, p.v_e);
    const double drive_w = p.mu_c * out.c_ws * dirw / r_gyr;
    double theta_dot = 0;
    const double uw = bristle<double>(p, out.s, w_n, drive_w, out.mu_max * out.c_ws / r_gyr, theta, theta_dot,
                                      out.spin_saturated);
    out.theta_dot = theta_dot;
    out.torque = -p.spin_scale * r_gyr * r_gyr * f_n * (uw + p.sigma2 * w_n);
  } else {
    out.theta_dot = -theta * p.sigma0 / p.sigma1;  // no spin lever arm: the torsion relaxes
  }
  out.s_dw_dot = dwell_rate(p, out.s, s_dw);
  return out;
}

Vec3 rolling_resistance(double k_v, double a, const Mat3& J, const Vec3& w_t) { return k_v * a * (J * w_t); }

void keep_bristle_tangential(double* z, const Vec3& n) {
  Vec3 v(z[0], z[1], z[2]);
  v -= n * n.dot(v);
  z[0] = v.x();
  z[1] = v.y();
  z[2] = v.z();
}

double bristle_energy(const FrictionParams& p, double f_n, const Vec3& z, double r_gyr, double theta) {
  return 0.5 * p.sigma0 * f_n * (z.squaredNorm() + p.spin_scale * r_gyr * r_gyr * theta * theta);
}

}  // namespace vcsim::contact
