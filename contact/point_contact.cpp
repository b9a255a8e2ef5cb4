#include "contact/point_contact.h"

#include <cmath>

#include "contact/contact_diagnostics.h"
#include "contact/friction.h"
#include "contact/normal_force.h"

namespace vcsim::contact {
namespace {

Vec3 point_velocity(const BodyKinematics& b, const Vec3& p) {
  return b.velocity + b.angular_velocity.cross(p - b.pose.position);
}

}  // namespace

PointContact::PointContact(const ModelParams& params, const geo::PointShape& shape_i, const geo::PointShape& shape_j)
    : p_(params), shape_i_(shape_i), shape_j_(shape_j) {
  std::string why;
  if (!geo::point_pair_supported(shape_i, shape_j, &why)) throw std::invalid_argument(why);
}

void PointContact::initial_states(double* s) const {
  s[0] = s[1] = s[2] = 0;
  s[3] = p_.normal.s_dw0;
  s[4] = 0;
}

std::vector<Channel> PointContact::channels() const {
  std::vector<Channel> ch = {
      {"penetration", 1, "m", "signed separation x along n (negative in contact, eq 3.2)"},
      {"normal", 3, "1", "contact normal n, from body j toward body i"},
      {"normal_force", 1, "N", "f_n (eq 3.19, clamped >= 0)"},
      {"friction_force", 3, "N", "f_t on body i (eq 3.42)"},
      {"bristle", 3, "m", "bristle deflection z (eq 3.35)"},
      {"dwell", 1, "1", "dwell state s_dw (eq 3.36)"},
      {"stick", 1, "1", "stick weight s = exp(-|v_t|^2/v_s^2) (eq 3.30)"},
      {"stick_flag", 1, "1", "1 when s > 0.5 (sticking)"},
      {"relaxation", 1, "m", "relaxation reference x_ro (eq 3.44)"},
      {"impact_velocity", 1, "m/s", "latched normal impact velocity v_n^i"},
      {"slip_velocity", 3, "m/s", "tangential relative velocity v_t at the point of action"},
  };
  for (auto& c : diagnostic_channels()) ch.push_back(c);  // point model: CoP = the point, moment 0, dimension 0
  return ch;
}

void PointContact::evaluate(double, const BodyKinematics& bi, const BodyKinematics& bj, const double* s,
                            double* ds, ContactResult& r) const {
  const geo::PointContactGeometry g = geo::point_contact_geometry(shape_i_, bi.pose, shape_j_, bj.pose);
  const Vec3& n = g.normal;
  const Vec3 v_r = point_velocity(bi, g.point) - point_velocity(bj, g.point);  // eq 3.3
  const double v_n = n.dot(v_r);
  const Vec3 v_t = v_r - v_n * n;
  const Vec3 z(s[0], s[1], s[2]);
  const Vec3 z_t = z - n * n.dot(z);  // only the tangential part of the bristle acts (stale normal part ignored)
  const double x_ro = s[4];
  for (int k = 0; k < kStates; ++k) ds[k] = 0;

  double f_n = 0, f_el = 0;
  PointFriction fr;
  const bool overlap = g.x < 0;
  // With relaxation the contact exerts no force until its onset is latched on an accepted step,
  // where x_ro := x (eq 3.44: f_n starts from 0).
  const bool active = overlap && (in_contact_ || p_.normal.tau_r == 0);
  if (overlap) {
    const double v_in = in_contact_ ? v_in_ : v_n;
    // Gonthier's a = −d/(e_eff |v_in|) (3.24, 3.43), or Sandia's constant a = −1.5 α: f_n = k δ^n + λ δ^n δ̇ with
    // λ = 1.5 α k and δ̇ = −v_n (LaFarge & Lewis 1998, Hunt-Crossley / Marhefka-Orin).
    const double a = p_.normal.alpha > 0 ? -1.5 * p_.normal.alpha
                                         : damping_factor(p_.normal.d, p_.normal.e_eff, v_in, p_.normal.v_small);
    const double depth = active ? -(g.x - x_ro) : 0.0;
    f_n = hertz_normal_force(p_.normal.k, p_.normal.n, depth, a, v_n);
    f_el = hertz_elastic_force(p_.normal.k, p_.normal.n, depth);
    fr = point_friction(p_.friction, f_n, v_t, z_t, s[3]);
    ds[0] = fr.z_dot.x();
    ds[1] = fr.z_dot.y();
    ds[2] = fr.z_dot.z();
    ds[3] = fr.s_dw_dot;
    ds[4] = relaxation_rate(x_ro, p_.normal.tau_r);
  }
  r.in_contact = overlap;
  r.force = f_n * n + fr.force;
  r.point = g.point;
  r.couple = Vec3::Zero();  // no contact couple in the point model (§3.2, P15)
  r.elastic_power = -f_el * v_n;  // power of the stiffness part into the contact spring
  r.channels = {g.x, n.x(), n.y(), n.z(), f_n, fr.force.x(), fr.force.y(), fr.force.z(),
                z.x(), z.y(), z.z(), s[3], fr.s, fr.s > 0.5 ? 1.0 : 0.0, x_ro,
                in_contact_ ? v_in_ : 0.0, v_t.x(), v_t.y(), v_t.z()};
  ContactDiagnostics d;
  if (overlap) {
    d.center_of_pressure = g.point;  // one point of action, no couple (P15)
    d.dimension = 0;
    d.active_pairs = 1;
  }
  append_diagnostics(d, r.channels);
}

void PointContact::accept_step(double, const BodyKinematics& bi, const BodyKinematics& bj, double* s) {
  const geo::PointContactGeometry g = geo::point_contact_geometry(shape_i_, bi.pose, shape_j_, bj.pose);
  const Vec3& n = g.normal;
  const double v_n = n.dot(point_velocity(bi, g.point) - point_velocity(bj, g.point));
  if (g.x < 0) {
    if (!in_contact_) {
      in_contact_ = true;
      if (p_.normal.tau_r > 0) {
        // Relaxed spring starts here with zero force: the impact velocity is the current one.
        v_in_ = v_n;
        s[4] = g.x;
      } else if (have_prev_ && prev_x_ >= 0) {
        // Linear interpolation of v_n to the crossing x = 0 within the step (P3).
        const double w = prev_x_ / (prev_x_ - g.x);
        v_in_ = prev_vn_ + w * (v_n - prev_vn_);
      } else {
        v_in_ = v_n;
      }
    }
    // Keep the bristle tangential as the normal turns (P8).
    Vec3 z(s[0], s[1], s[2]);
    z -= n * n.dot(z);
    s[0] = z.x();
    s[1] = z.y();
    s[2] = z.z();
  } else if (in_contact_) {
    // Separation ends the episode: friction states and relaxation are reset (policy P7(b)).
    in_contact_ = false;
    v_in_ = 0;
    initial_states(s);
  }
  have_prev_ = true;
  prev_x_ = g.x;
  prev_vn_ = v_n;
}

}  // namespace vcsim::contact
