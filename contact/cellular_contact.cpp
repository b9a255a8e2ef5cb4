#include "contact/cellular_contact.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include "contact/contact_diagnostics.h"

namespace vcsim::contact {

namespace {

int slots_for(const std::vector<geo::Cell>& cells_i, const std::vector<geo::Cell>& cells_j) {
  for (const geo::Cell& ci : cells_i)
    for (const geo::Cell& cj : cells_j)
      if (geo::may_have_patches(ci, cj)) return kPatchSlots;
  return 1;
}

}  // namespace

CellularContact::CellularContact(const ModelParams& params, const geo::BodyGeometry& gi, const geo::BodyGeometry& gj,
                                 geo::QueryOptions options)
    : p_(params), cells_i_(gi.cells), cells_j_(gj.cells), options_(options), slots_(slots_for(cells_i_, cells_j_)),
      memory_(num_contacts()), coherence_(num_pairs()) {}

void CellularContact::initial_states(double* s) const {
  for (int k = 0; k < num_contacts(); ++k) volumetric_initial_states(p_, s + k * kVolumetricStates);
}

geo::Interference CellularContact::query(int pair, const BodyKinematics& bi, const BodyKinematics& bj,
                                         geo::PairCoherence* refresh) const {
  if (const geo::Interference* kept = accepted_.find(bi, bj, pair)) return *kept;
  const geo::Cell& ci = cells_i_[pair / cells_j_.size()];
  const geo::Cell& cj = cells_j_[pair % cells_j_.size()];
  // Broad phase on cell bounds: disjoint boxes cannot overlap.
  const geo::Aabb a = geo::world_bounds(ci, bi.pose), b = geo::world_bounds(cj, bj.pose);
  if (a.empty() || b.empty() || (a.max.array() < b.min.array()).any() || (b.max.array() < a.min.array()).any())
    return geo::Interference{};
  return geo::interference(ci, bi.pose, cj, bj.pose, options_, &coherence_[pair], refresh);
}

namespace {

// The cellular model's channels: the sums over the cell pairs, then one value per sub-model (index
// (ci * n_cells_j + cj) * patch slots + slot; one slot unless a cell has a hole).
void write_cellular_channels(ChannelRow& row, const std::vector<VolumetricEvaluation>& ev, int active, double vol,
                             const Vec3& P, double fn, const Vec3& Ft, const ContactDiagnostics& d) {
  const int np = static_cast<int>(ev.size());
  row.add("active_pairs", "1", "number of patches in contact (one per overlapping cell pair, unless a cell has a hole)", {double(active)});
  row.add("volume", "m^3", "total interference volume over the cell pairs", {vol});
  row.add("centroid", "m", "volume-weighted centroid of the active pairs (world): the reported point of action", P);
  row.add("normal_force", "N", "sum of the pairs' f_n", {fn});
  row.add("friction_force", "N", "sum of the pairs' friction forces on body i", Ft);
  row.add_each("pair_volume", "m^3", "V per cell pair and patch (index (ci * n_cells_j + cj) * slots + slot)", np,
               [&](int k) { return ev[k].volume; });
  row.add_each("pair_normal", "1", "normal per cell pair and patch", 3 * np, [&](int k) { return ev[k / 3].normal[k % 3]; });
  row.add_each("pair_r_gyr", "m", "radius of gyration per cell pair and patch", np, [&](int k) { return ev[k].r_gyr; });
  row.add_each("pair_stick", "1", "stick weight s per cell pair and patch", np, [&](int k) { return ev[k].s; });
  row.add_each("pair_c_v", "1", "Contensou C_v per cell pair and patch", np, [&](int k) { return ev[k].c_v; });
  row.add_each("pair_c_w", "1", "Contensou C_w per cell pair and patch", np, [&](int k) { return ev[k].c_w; });
  write_diagnostics(row, d, false);  // active_pairs is above
}

}  // namespace

std::vector<Channel> CellularContact::channels() const {
  const std::vector<VolumetricEvaluation> ev(num_contacts());
  const Vec3 zero = Vec3::Zero();
  return channel_names([&](ChannelRow& row) { write_cellular_channels(row, ev, 0, 0, zero, 0, zero, {}); });
}

void CellularContact::evaluate(double, const BodyKinematics& bi, const BodyKinematics& bj, const double* s,
                               double* ds, ContactResult& r) const {
  const int np = num_contacts();
  std::vector<VolumetricEvaluation> ev(np);
  std::vector<Mat3> inertia(np, Mat3::Zero());  // per sub-model, about its centroid (for the dimension diagnostic)
  // Each cell pair writes only its own sub-models; the grain-1 simple partitioner makes no cross-pair reduction.
  tbb::parallel_for(tbb::blocked_range<int>(0, num_pairs(), 1), [&](const tbb::blocked_range<int>& range) {
    geo::Interference patch[kPatchSlots];
    for (int pair = range.begin(); pair != range.end(); ++pair) {
      const int k0 = pair * slots_;
      patches_in_slots(query(pair, bi, bj, nullptr), &memory_[k0], slots_, bi.pose, patch);
      for (int k = k0; k < k0 + slots_; ++k) {
        inertia[k] = patch[k - k0].inertia;
        ev[k] = evaluate_volumetric(p_, patch[k - k0], bi, bj, memory_[k], s + k * kVolumetricStates,
                                    ds + k * kVolumetricStates);
      }
    }
  }, tbb::simple_partitioner());
  // Fixed-order sums. The wrench of every pair is moved to a common point P (the volume-weighted
  // centroid): couple += (p_c,k − P) × F_k, which keeps the total wrench exact.
  double vol = 0, fn = 0, power = 0, held = 0;
  int active = 0;
  Vec3 P = Vec3::Zero(), F = Vec3::Zero(), Ft = Vec3::Zero(), C = Vec3::Zero();
  for (int k = 0; k < np; ++k) {
    if (!ev[k].in_contact) continue;
    ++active;
    vol += ev[k].volume;
    P += ev[k].volume * ev[k].centroid;
  }
  if (vol > 0) P /= vol; else P = bi.pose.position;
  for (int k = 0; k < np; ++k) {
    if (!ev[k].in_contact) continue;
    F += ev[k].force;
    Ft += ev[k].friction_force;
    fn += ev[k].normal_force;
    C += (ev[k].centroid - P).cross(ev[k].force) + ev[k].couple;
    power += ev[k].elastic_power;
    held += ev[k].bristle_energy;
  }
  r.in_contact = active > 0;
  r.force = F;
  r.point = P;
  r.couple = C;
  r.elastic_power = power;
  r.bristle_energy = held;
  // Diagnostics of the whole pair: the normal is the force-weighted mean of the pairs' normals, the inertia the
  // pairs' inertias moved to P (parallel axes), the centre of pressure that of the total wrench (F at P, couple C).
  Vec3 n = Vec3::Zero();
  Mat3 J = Mat3::Zero();
  for (int k = 0; k < np; ++k) {
    if (!ev[k].in_contact) continue;
    n += (ev[k].normal_force > 0 ? ev[k].normal_force : ev[k].volume) * ev[k].normal;
    J += inertia_moved(inertia[k], ev[k].volume, ev[k].centroid - P);
  }
  ContactDiagnostics d;
  if (active > 0 && n.squaredNorm() > 0) {
    n.normalize();
    centre_of_pressure(n, F, P, C, d.center_of_pressure, d.normal_moment);
    d.dimension = contact_dimension(vol, J, n);
  }
  ChannelRow row(r.channels);
  write_cellular_channels(row, ev, active, vol, P, fn, Ft, d);
}

void CellularContact::accept_step(double, const BodyKinematics& bi, const BodyKinematics& bj, double* s) {
  const int np = num_pairs();
  std::vector<geo::Interference> q(np);
  tbb::parallel_for(tbb::blocked_range<int>(0, np, 1), [&](const tbb::blocked_range<int>& range) {
    geo::Interference patch[kPatchSlots];
    for (int pair = range.begin(); pair != range.end(); ++pair) {
      q[pair] = query(pair, bi, bj, &coherence_[pair]);  // each pair writes only its own
      const int k0 = pair * slots_;
      // The slots are read from the memory before any is updated, as evaluate read them.
      patches_in_slots(q[pair], &memory_[k0], slots_, bi.pose, patch);
      for (int k = k0; k < k0 + slots_; ++k)
        accept_volumetric(p_, patch[k - k0], bi, bj, memory_[k], s + k * kVolumetricStates);
    }
  }, tbb::simple_partitioner());
  accepted_.keep(bi, bj, std::move(q));
}

}  // namespace vcsim::contact
