// Cellular volumetric contact between two multi-cell bodies (thesis §4.1.4, App. A.4): one
// volumetric sub-model with its own states per possible cell pair (fixed state size
// n_cells_i × n_cells_j × 6), a broad phase on cell bounds, lost pairs reset on accepted steps. Where a cell pair's
// interference can fall apart (geo::may_have_patches: a cell with a hole), every cell pair has kPatchSlots
// sub-models, one per patch (fixed state size n_cells_i × n_cells_j × kPatchSlots × 6).
// Cell pairs are evaluated in parallel (TBB) into a per-pair array and summed in a fixed order, so
// results are bitwise identical on 1 or N threads.
#pragma once
#include <vector>

#include "contact/volumetric_contact.h"

namespace vcsim::contact {

class CellularContact : public ContactPair {
 public:
  CellularContact(const ModelParams& params, const geo::BodyGeometry& geometry_i, const geo::BodyGeometry& geometry_j,
                  geo::QueryOptions options);
  int num_states() const override { return num_contacts() * kVolumetricStates; }
  void initial_states(double* states) const override;
  void start_placed(double* states, bool stuck, const Vec3& bristle) const override {
    for (int k = 0; k < num_contacts(); ++k) volumetric_start_placed(states + k * kVolumetricStates, stuck, bristle);
  }
  void state_scales(double* scales) const override {
    for (int k = 0; k < num_contacts(); ++k) volumetric_state_scales(p_, scales + k * kVolumetricStates);
  }
  std::vector<Channel> channels() const override;
  void evaluate(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, const double* states,
                double* state_derivatives, ContactResult& result) const override;
  void accept_step(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, double* states) override;
  int num_pairs() const { return static_cast<int>(cells_i_.size() * cells_j_.size()); }
  // The sub-models: one per patch slot of each cell pair, index (ci * n_cells_j + cj) * patch_slots() + slot.
  int patch_slots() const { return slots_; }
  int num_contacts() const { return num_pairs() * slots_; }

 private:
  // refresh: the pair's coherence to rebuild where it no longer holds (accept_step only); evaluate passes nullptr.
  geo::Interference query(int pair, const BodyKinematics& bi, const BodyKinematics& bj,
                          geo::PairCoherence* refresh) const;
  ModelParams p_;
  std::vector<geo::Cell> cells_i_, cells_j_;
  geo::QueryOptions options_;
  int slots_ = 1;                          // kPatchSlots where any cell pair may have patches, else 1
  std::vector<VolumetricMemory> memory_;  // per sub-model (num_contacts)
  AcceptedInterferences accepted_;        // the queries at the last accepted state, reused at the same poses
  // Per cell pair, what its queries start from (a mesh pair's leaf pairs): like accepted_, written only in
  // accept_step and only read in evaluate, which stays pure and thread-safe.
  std::vector<geo::PairCoherence> coherence_;
};

}  // namespace vcsim::contact
