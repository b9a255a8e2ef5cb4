#include "contact/point_contact.h"

#include <cmath>
#include <limits>

#include "contact/contact_diagnostics.h"
#include "contact/friction.h"
#include "contact/normal_force.h"

namespace vcsim::contact {

PointContact::PointContact(const ModelParams& params, const geo::PointShape& shape_i, const geo::PointShape& shape_j)
    : p_(params), shape_i_(shape_i), shape_j_(shape_j) {
  std::string why;
  if (!geo::point_pair_supported(shape_i, shape_j, &why)) throw std::invalid_argument(why);
}

void point_law_initial_states(const ModelParams& p, double* s) {
  s[0] = s[1] = s[2] = 0;
  s[3] = p.normal.s_dw0;
  s[4] = 0;
}

void point_law_state_scales(const ModelParams& p, double* scales) {
  const double inf = std::numeric_limits<double>::infinity();
  scales[0] = scales[1] = scales[2] = p.friction.sigma0 > 0 ? 1 / p.friction.sigma0 : inf;
  scales[3] = 1;
  scales[4] = inf;
}

PointLawResult point_law(const ModelParams& p, const PointMemory& m, double x, const Vec3& n, const Vec3& v_r,
                         const double* s, double* ds) {
  PointLawResult out;
  const double v_n = n.dot(v_r);
  const Vec3 v_t = v_r - v_n * n;
  out.z = Vec3(s[0], s[1], s[2]);
  const Vec3 z_t = out.z - n * n.dot(out.z);  // only the tangential part of the bristle acts (stale normal part ignored)
  const double x_ro = s[4];
  for (int k = 0; k < PointContact::kStates; ++k) ds[k] = 0;
  out.overlap = x < 0;
  // With relaxation the contact exerts no force until its onset is latched on an accepted step,
  // where x_ro := x (eq 3.44: f_n starts from 0).
  const bool active = out.overlap && (m.in_contact || p.normal.tau_r == 0);
  if (out.overlap) {
    const double v_in = m.in_contact ? m.v_in : v_n;
    // Gonthier's a = −d/(e_eff |v_in|) (3.24, 3.43), or Sandia's constant a = −1.5 α: f_n = k δ^n + λ δ^n δ̇ with
    // λ = 1.5 α k and δ̇ = −v_n (LaFarge & Lewis 1998, Hunt-Crossley / Marhefka-Orin).
    const double a = p.normal.alpha > 0 ? -1.5 * p.normal.alpha
                                        : damping_factor(p.normal.d, p.normal.e_eff, v_in, p.normal.v_small);
    const double depth = active ? -(x - x_ro) : 0.0;
    out.f_n = hertz_normal_force(p.normal.k, p.normal.n, depth, a, v_n);
    out.f_el = hertz_elastic_force(p.normal.k, p.normal.n, depth);
    out.fr = point_friction(p.friction, out.f_n, v_t, z_t, s[3]);
    ds[0] = out.fr.z_dot.x();
    ds[1] = out.fr.z_dot.y();
    ds[2] = out.fr.z_dot.z();
    ds[3] = out.fr.s_dw_dot;
    ds[4] = relaxation_rate(x_ro, p.normal.tau_r);
  }
  return out;
}

void point_law_accept(const ModelParams& p, PointMemory& m, double x, const Vec3& n, double v_n, double* s) {
  if (x < 0) {
    if (!m.in_contact) {
      m.in_contact = true;
      if (p.normal.tau_r > 0) {
        // Relaxed spring starts here with zero force: the impact velocity is the current one.
        m.v_in = v_n;
        s[4] = x;
      } else if (m.have_prev && m.prev_x >= 0) {
        // Linear interpolation of v_n to the crossing x = 0 within the step (P3).
        const double w = m.prev_x / (m.prev_x - x);
        m.v_in = m.prev_vn + w * (v_n - m.prev_vn);
      } else {
        m.v_in = v_n;
      }
    }
    keep_bristle_tangential(s, n);  // P8
  } else if (m.in_contact) {
    // Separation ends the episode: friction states and relaxation are reset (policy P7(b)).
    m.in_contact = false;
    m.v_in = 0;
    point_law_initial_states(p, s);
  }
  m.have_prev = true;
  m.prev_x = x;
  m.prev_vn = v_n;
}

void PointContact::initial_states(double* s) const { point_law_initial_states(p_, s); }

namespace {

// The point model's channels: x the signed separation, z the bristle, s the states (dwell s[3], relaxation s[4]).
void write_point_channels(ChannelRow& row, double x, const Vec3& n, const PointLawResult& law, const Vec3& z,
                          const double* s, double v_in, const Vec3& v_t, const ContactDiagnostics& d) {
  row.add("penetration", "m", "signed separation x along n (negative in contact, eq 3.2)", {x});
  row.add("normal", "1", "contact normal n, from body j toward body i", n);
  row.add("normal_force", "N", "f_n (eq 3.19, clamped >= 0)", {law.f_n});
  row.add("friction_force", "N", "f_t on body i (eq 3.42)", law.fr.force);
  row.add("bristle", "m", "bristle deflection z (eq 3.35)", z);
  row.add("dwell", "1", "dwell state s_dw (eq 3.36)", {s[3]});
  row.add("stick", "1", "stick weight s = exp(-|v_t|^2/v_s^2) (eq 3.30)", {law.fr.s});
  row.add("stick_flag", "1", "1 when s > 0.5 (sticking)", {law.fr.s > 0.5 ? 1.0 : 0.0});
  row.add("relaxation", "m", "relaxation reference x_ro (eq 3.44)", {s[4]});
  row.add("impact_velocity", "m/s", "latched normal impact velocity v_n^i", {v_in});
  row.add("slip_velocity", "m/s", "tangential relative velocity v_t at the point of action", v_t);
  write_diagnostics(row, d);  // point model: CoP = the point, moment 0, dimension 0
}

}  // namespace

std::vector<Channel> PointContact::channels() const {
  const double states[kStates] = {};
  const Vec3 zero = Vec3::Zero();
  return channel_names(
      [&](ChannelRow& row) { write_point_channels(row, 0, zero, PointLawResult{}, zero, states, 0, zero, {}); });
}

void PointContact::evaluate(double, const BodyKinematics& bi, const BodyKinematics& bj, const double* s,
                            double* ds, ContactResult& r) const {
  const geo::PointContactGeometry g = geo::point_contact_geometry(shape_i_, bi.pose, shape_j_, bj.pose);
  const Vec3& n = g.normal;
  const Vec3 v_r = point_velocity(bi, g.point) - point_velocity(bj, g.point);  // eq 3.3
  const Vec3 v_t = v_r - n.dot(v_r) * n;
  const PointLawResult law = point_law(p_, m_, g.x, n, v_r, s, ds);
  const double v_n = n.dot(v_r);
  const bool overlap = law.overlap;
  const Vec3& z = law.z;
  r.in_contact = overlap;
  r.force = law.f_n * n + law.fr.force;
  r.point = g.point;
  r.couple = Vec3::Zero();  // no contact couple in the point model (§3.2, P15)
  r.elastic_power = -law.f_el * v_n;  // power of the stiffness part into the contact spring
  r.bristle_energy = bristle_energy(p_.friction, law.f_n, z - n * n.dot(z));
  ContactDiagnostics d;
  if (overlap) {
    d.center_of_pressure = g.point;  // one point of action, no couple (P15)
    d.dimension = 0;
    d.active_pairs = 1;
  }
  ChannelRow row(r.channels);
  write_point_channels(row, g.x, n, law, z, s, m_.in_contact ? m_.v_in : 0.0, v_t, d);
}

void PointContact::accept_step(double, const BodyKinematics& bi, const BodyKinematics& bj, double* s) {
  const geo::PointContactGeometry g = geo::point_contact_geometry(shape_i_, bi.pose, shape_j_, bj.pose);
  const double v_n = g.normal.dot(point_velocity(bi, g.point) - point_velocity(bj, g.point));
  point_law_accept(p_, m_, g.x, g.normal, v_n, s);
}

}  // namespace vcsim::contact
