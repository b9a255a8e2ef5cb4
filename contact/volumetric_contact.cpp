#include "contact/volumetric_contact.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "contact/contact_diagnostics.h"
#include "contact/contact_normal.h"
#include "contact/friction.h"
#include "contact/normal_force.h"

namespace vcsim::contact {
namespace {

bool overlapping(const geo::Interference& q) { return q.overlap && q.volume > 0; }

// The elastic measure of the law and its point of action: the volume V and its centroid (eq 4.62), or with
// Petersen's hyperelastic foundation (hyper_n != 1) the hypervolume V_h = ∫ L^n dA and its L^n-weighted centroid.
double elastic_measure(const ModelParams& p, const geo::Interference& q) {
  return p.normal.hyper_n == 1 ? q.volume : q.hypervolume;
}
Vec3 action_point(const ModelParams& p, const geo::Interference& q) {
  return p.normal.hyper_n == 1 ? q.centroid : q.hyper_centroid;
}

}  // namespace

void volumetric_initial_states(const ModelParams& p, double* s) {
  for (int k = 0; k < kVolumetricStates; ++k) s[k] = 0;
  s[4] = p.normal.s_dw0;
}

void volumetric_state_scales(const ModelParams& p, double* scales) {
  const double inf = std::numeric_limits<double>::infinity();
  const double bristle = p.friction.sigma0 > 0 ? 1 / p.friction.sigma0 : inf;
  scales[0] = scales[1] = scales[2] = scales[3] = bristle;
  scales[4] = 1;
  scales[5] = inf;
}

Vec3 volumetric_normal(const geo::Interference& q, const BodyKinematics& bi, const BodyKinematics& bj,
                       const VolumetricMemory& mem, double r_n, double* lambda) {
  if (q.plane_normal.squaredNorm() > 0) {
    // Against a half-space the plane is the plate of the one-body model: the Winkler resultant is exactly along
    // its normal (geometry/support_plane.h), where J_v's axis would tilt on a wedge (T6, §12-A3).
    if (lambda) *lambda = q.plane_normal.dot(q.inertia * q.plane_normal);
    return q.plane_normal;
  }
  // Where the patch faces one way, its area vector is the normal: dV/dt = S·v then equals −|S| v_cn under a
  // translation, so the damping's v_cn and V's rate agree. J_v's axis nearest it can lean by a few degrees (a peg's
  // side sliding down a hole's wall: 1.7° down where S leans 0.55° up); at 0.6 m/s of sliding that read as 2 cm/s of
  // separation while V grew, the hysteretic force clamped to zero, and the peg went through the wall
  // (docs/contact-models.md, "Contact normal").
  if (q.area.squaredNorm() > 0) {
    const Vec3 n = area_normal(q.area, q.volume, q.inertia);
    if (n.squaredNorm() > 0) {
      if (lambda) *lambda = n.dot(q.inertia * n);
      return n;
    }
  }
  Vec3 n_geo = q.normal_estimate;
  if (n_geo.squaredNorm() == 0) n_geo = mem.n_prev;
  if (n_geo.squaredNorm() == 0) n_geo = bi.pose.position - bj.pose.position;  // last resort: centre line
  if (n_geo.squaredNorm() == 0) n_geo = Vec3::UnitZ();
  // A.31's weight on the previous normal steadies a point estimate of the normal. The area vector (where the geometry
  // gives it) is the patch's own direction, continuous in the poses, and it seeds alone: the previous normal held a
  // peg's normal on the hole's floor after its contact had moved onto the wall, and the peg climbed out of the wall
  // (docs/contact-models.md, "Contact normal").
  const Vec3 seed = q.area.squaredNorm() > 0 ? n_geo : normal_seed(n_geo, mem.n_prev, r_n);
  const NormalSelection sel = select_normal(q.inertia, seed);
  if (lambda) *lambda = sel.lambda;
  return sel.normal;
}

VolumetricEvaluation evaluate_volumetric(const ModelParams& p, const geo::Interference& q, const BodyKinematics& bi,
                                         const BodyKinematics& bj, const VolumetricMemory& mem, const double* s,
                                         double* ds) {
  VolumetricEvaluation e;
  for (int k = 0; k < kVolumetricStates; ++k) ds[k] = 0;
  if (!overlapping(q)) return e;
  e.in_contact = true;
  e.volume = q.volume;
  e.hypervolume = elastic_measure(p, q);
  e.centroid = action_point(p, q);
  double lambda = 0;
  const Vec3 n = volumetric_normal(q, bi, bj, mem, p.normal.r_n, &lambda);
  e.normal = n;
  e.r_gyr = std::sqrt(std::max(lambda, 0.0) / q.volume);  // eq 4.201
  // Kinematics at the centroid (eqs 4.49, 4.51), p_n neglected so v_sct ≈ v_ct (§12-A7).
  const Vec3 v_c = point_velocity(bi, e.centroid) - point_velocity(bj, e.centroid);
  const Vec3 w_r = bi.angular_velocity - bj.angular_velocity;
  e.v_cn = n.dot(v_c);
  e.v_sct = v_c - e.v_cn * n;
  const double w_n = n.dot(w_r);
  const Vec3 w_t = w_r - w_n * n;
  // Normal force (eq 4.62) with relaxation V_r = V − V_ro (eq 3.44, x → V). With relaxation on, the
  // pair exerts no force until its onset is latched on an accepted step (where V_ro := V).
  const bool active = mem.in_contact || p.normal.tau_r == 0;
  const double v_in = mem.in_contact ? mem.v_in : e.v_cn;
  const double a = damping_factor(p.normal.d, p.normal.e_eff, v_in, p.normal.v_small);
  // (Hyperelastic law: V → V_h throughout, relaxation reference included.)
  const double V_r = active ? e.hypervolume - s[5] : 0.0;
  e.normal_force = volumetric_normal_force(p.normal.k, V_r, a, e.v_cn);
  e.elastic_force = V_r > 0 ? p.normal.k * V_r : 0.0;
  // Rolling resistance (eq 4.67) with J_v, applied while the pair pushes. Hyperelastic law: the stiffness is the
  // secant k_v V_h / V [N/m^3] (Petersen's k_v c_v(V)), which keeps eq 4.67's units and gives k_v at n = 1.
  const double k_roll = p.normal.hyper_n == 1 ? p.normal.k : p.normal.k * e.hypervolume / q.volume;
  if (V_r > 0) e.rolling_torque = rolling_resistance(k_roll, a, q.inertia, w_t);
  // Friction (eqs 4.215–4.243), on the clamped f_n.
  const Vec3 z(s[0], s[1], s[2]);
  const Vec3 z_t = z - n * n.dot(z);
  const VolumetricFriction fr =
      volumetric_friction(p.friction, e.normal_force, e.v_sct, w_n, e.r_gyr, z_t, s[3], s[4]);
  e.friction_force = fr.force;
  e.spin_torque = fr.torque;
  e.s = fr.s;
  e.c_v = fr.c_v;
  e.c_w = fr.c_w;
  ds[0] = fr.z_dot.x();
  ds[1] = fr.z_dot.y();
  ds[2] = fr.z_dot.z();
  ds[3] = fr.theta_dot;
  ds[4] = fr.s_dw_dot;
  ds[5] = relaxation_rate(s[5], p.normal.tau_r);
  e.force = e.normal_force * n + e.friction_force;
  e.couple = e.rolling_torque + e.spin_torque * n;
  e.elastic_power = -e.elastic_force * e.v_cn;
  e.bristle_energy = bristle_energy(p.friction, e.normal_force, z_t, e.r_gyr, s[3]);
  return e;
}

void accept_volumetric(const ModelParams& p, const geo::Interference& q, const BodyKinematics& bi,
                       const BodyKinematics& bj, VolumetricMemory& mem, double* s) {
  if (!overlapping(q)) {
    if (mem.in_contact || mem.n_prev.squaredNorm() > 0) {
      // Lost pair: states and memory reset (App. A.4), so a new episode starts fresh.
      mem = VolumetricMemory{};
      volumetric_initial_states(p, s);
    }
    return;
  }
  const Vec3 n = volumetric_normal(q, bi, bj, mem, p.normal.r_n);
  if (!mem.in_contact) {
    mem.in_contact = true;
    const Vec3 c = action_point(p, q);
    const Vec3 v_c = point_velocity(bi, c) - point_velocity(bj, c);
    mem.v_in = n.dot(v_c);
    if (p.normal.tau_r > 0) s[5] = elastic_measure(p, q);  // V_ro := V (or V_h) at detection (eq 3.44)
  }
  mem.n_prev = n;
  mem.anchor = bi.pose.apply_inverse(q.centroid);
  keep_bristle_tangential(s, n);  // §12-B5
}

namespace {

// Two pieces of one interference as one: volumes, first moments and inertias (parallel axes) add up.
geo::Interference merged(const geo::Interference& a, const geo::Interference& b) {
  geo::Interference m = a;
  m.volume = a.volume + b.volume;
  m.centroid = (a.volume * a.centroid + b.volume * b.centroid) / m.volume;
  m.inertia = inertia_moved(a.inertia, a.volume, a.centroid - m.centroid) +
              inertia_moved(b.inertia, b.volume, b.centroid - m.centroid);
  m.area = a.area + b.area;
  if (m.area.squaredNorm() > 0) m.normal_estimate = -m.area.normalized();
  m.hypervolume = m.volume;  // patches come from the ruled faces only, at hyper_n = 1
  m.hyper_centroid = m.centroid;
  return m;
}

}  // namespace

void patches_in_slots(const geo::Interference& q, const VolumetricMemory* mem, int slots, const Pose& pose_i,
                      geo::Interference* out) {
  for (int k = 0; k < slots; ++k) out[k] = geo::Interference{};
  if (slots == 1 || !q.overlap) {
    if (q.overlap) out[0] = q;
    return;
  }
  // The pieces by reference (no copies on this path, which runs at every evaluation); the whole query where it
  // reports none (then its `patches` is empty, so a copy of it carries none).
  std::array<const geo::Interference*, kPatchSlots> piece{};
  std::array<geo::Interference, kPatchSlots> joined;  // pieces with further ones merged into them
  const int given = static_cast<int>(q.patches.size());
  const int n = given == 0 ? 1 : std::min(given, slots);
  if (given == 0) piece[0] = &q;
  for (int k = 0; k < n && given > 0; ++k) piece[k] = &q.patches[k];
  // Beyond the slots: each further piece, smallest first (pieces come largest first), into the nearest kept.
  for (int e = given - 1; e >= slots; --e) {
    const geo::Interference& extra = q.patches[e];
    int best = 0;
    for (int k = 1; k < n; ++k)
      if ((piece[k]->centroid - extra.centroid).norm() < (piece[best]->centroid - extra.centroid).norm()) best = k;
    joined[best] = merged(*piece[best], extra);
    piece[best] = &joined[best];
  }
  // Each piece to a slot: the assignment with the least total distance from the pieces to the anchors of their slots,
  // where a slot out of contact counts as farther than any anchor (so a slot in contact keeps the piece nearest it, and
  // a new piece takes a free slot). Ties keep the first assignment in lexicographic order: deterministic.
  auto cost = [&](int k, int slot) {
    return mem[slot].in_contact ? (pose_i.apply(mem[slot].anchor) - piece[k]->centroid).norm() : 1e6;
  };
  std::array<int, kPatchSlots> order, slot_of;
  for (int k = 0; k < slots; ++k) order[k] = k;
  double best = std::numeric_limits<double>::infinity();
  do {
    double total = 0;
    for (int k = 0; k < n; ++k) total += cost(k, order[k]);
    if (total < best) best = total, slot_of = order;
  } while (std::next_permutation(order.begin(), order.begin() + slots));
  for (int k = 0; k < n; ++k) out[slot_of[k]] = *piece[k];
}

VolumetricContact::VolumetricContact(const ModelParams& params, geo::Cell cell_i, geo::Cell cell_j,
                                     geo::QueryOptions options)
    : p_(params), cell_i_(std::move(cell_i)), cell_j_(std::move(cell_j)), options_(options) {}

geo::Interference VolumetricContact::query(const BodyKinematics& bi, const BodyKinematics& bj,
                                           geo::PairCoherence* refresh) const {
  if (const geo::Interference* kept = accepted_.find(bi, bj, 0)) return *kept;
  return geo::interference(cell_i_, bi.pose, cell_j_, bj.pose, options_, &coherence_, refresh);
}

namespace {

// The volumetric model's channels: s the model's states (bristle z_sc, torsion, dwell, relaxation reference), v_in
// the latched impact velocity (0 out of contact).
void write_volumetric_channels(ChannelRow& row, const VolumetricEvaluation& e, const double* s, double v_in,
                               const ContactDiagnostics& d) {
  row.add("volume", "m^3", "interference volume V (eq 4.4)", {e.volume});
  row.add("centroid", "m",
          "centroid p_c of the interference volume (world), the point of action; with hyper_n != 1 the "
          "hypervolume's L^n-weighted centroid",
          e.centroid);
  row.add("normal", "1", "contact normal n (eigenvector of J_v), from body j toward body i", e.normal);
  row.add("r_gyr", "m", "radius of gyration about n (eq 4.201)", {e.r_gyr});
  row.add("normal_force", "N", "f_n (eq 4.62, clamped >= 0)", {e.normal_force});
  row.add("friction_force", "N", "tangential friction force on body i (eq 4.230)", e.friction_force);
  row.add("spin_torque", "N m", "spinning friction torque about n on body i (eq 4.243)", {e.spin_torque});
  row.add("rolling_torque", "N m", "rolling resistance couple on body i (eq 4.67)", e.rolling_torque);
  row.add("bristle", "m", "bristle deflection z_sc", {s[0], s[1], s[2]});
  row.add("torsion", "rad", "bristle torsion theta_n", {s[3]});
  row.add("dwell", "1", "dwell state s_dw (eq 3.36)", {s[4]});
  row.add("stick", "1", "stick weight s = exp(-v_avg^2/v_s^2) (eq 4.221)", {e.s});
  row.add("stick_flag", "1", "1 when s > 0.5 (sticking)", {e.s > 0.5 ? 1.0 : 0.0});
  row.add("c_v", "1", "Contensou factor C_v (eq 4.224)", {e.c_v});
  row.add("c_w", "1", "Contensou factor C_w (eq 4.236)", {e.c_w});
  row.add("relaxation", "m^3", "relaxation reference V_ro (m^(2+n) with hyper_n = n)", {s[5]});
  row.add("impact_velocity", "m/s", "latched normal impact velocity v_cn^i", {v_in});
  row.add("hypervolume", "m^(2+n)",
          "elastic measure of the law: V_h = ∫ L^n dA with n = hyper_n (= volume at n = 1)", {e.hypervolume});
  write_diagnostics(row, d);  // centre of pressure, dimension (contact_diagnostics.h)
}

}  // namespace

std::vector<Channel> VolumetricContact::channels() const {
  const double states[kVolumetricStates] = {};
  return channel_names(
      [&](ChannelRow& row) { write_volumetric_channels(row, {}, states, 0, {}); });
}

void VolumetricContact::evaluate(double, const BodyKinematics& bi, const BodyKinematics& bj, const double* s,
                                 double* ds, ContactResult& r) const {
  const geo::Interference q = query(bi, bj, nullptr);
  const VolumetricEvaluation e = evaluate_volumetric(p_, q, bi, bj, mem_, s, ds);
  r.in_contact = e.in_contact;
  r.force = e.force;
  r.point = e.in_contact ? e.centroid : bi.pose.position;
  r.couple = e.couple;
  r.elastic_power = e.elastic_power;
  r.bristle_energy = e.bristle_energy;
  ContactDiagnostics d;
  if (e.in_contact) {
    centre_of_pressure(e.normal, e.force, e.centroid, e.couple, d.center_of_pressure, d.normal_moment);
    d.dimension = contact_dimension(q.volume, q.inertia, e.normal);
    d.active_pairs = 1;
  }
  ChannelRow row(r.channels);
  write_volumetric_channels(row, e, s, mem_.in_contact ? mem_.v_in : 0.0, d);
}

void VolumetricContact::accept_step(double, const BodyKinematics& bi, const BodyKinematics& bj, double* s) {
  const geo::Interference q = query(bi, bj, &coherence_);
  accept_volumetric(p_, q, bi, bj, mem_, s);
  accepted_.keep(bi, bj, {q});
}

}  // namespace vcsim::contact
