// Gonthier's volumetric contact model (thesis ch. 4) for ONE pair of convex cells: normal force
// f_n = k_v V (1 + a v_cn) at the interference centroid (eq 4.62), rolling resistance (4.67), the
// contact normal from the volume inertia tensor (4.199–4.201), and the volumetric bristle friction
// with Contensou coupling and spinning torque (4.215–4.243).
#pragma once
#include <vector>

#include "contact/accepted_interferences.h"
#include "contact/contact_pair.h"
#include "contact/model_params.h"
#include "geometry/interference.h"

namespace vcsim::contact {

// Per-cell-pair memory: changes only on accepted steps.
struct VolumetricMemory {
  bool in_contact = false;
  double v_in = 0;               // latched v_cn at onset (< 0)
  Vec3 n_prev = Vec3::Zero();    // previous accepted normal; zero before the first contact instant
  Vec3 anchor = Vec3::Zero();    // the patch's centroid at the last accepted state, in body i's frame (patch slots)
};

// A cell pair whose interference can fall apart (geo::may_have_patches: a peg tilted in its hole touches the wall at
// the top and at the bottom) is this many volumetric contacts, one per patch, each with its own normal, memory and
// states (docs/contact-models.md, "Patches").
constexpr int kPatchSlots = 4;  // a square peg's four corners in a round hole

// The query's patches, one per slot (slots: 1 or kPatchSlots; out[slots]). One slot: the whole query. Else each patch
// (the whole query where it reports none) takes the slot whose patch at the last accepted state lay nearest (anchors,
// mem[slots]; a slot out of contact has none), so that it keeps its memory and bristles; patches beyond the slots are
// merged into the nearest one kept. A slot without a patch gets no overlap.
void patches_in_slots(const geo::Interference& q, const VolumetricMemory* mem, int slots, const Pose& pose_i,
                      geo::Interference* out);

// Everything the volumetric law produces for one cell pair.
struct VolumetricEvaluation {
  bool in_contact = false;
  double volume = 0, hypervolume = 0, r_gyr = 0, normal_force = 0, elastic_force = 0, spin_torque = 0, v_cn = 0;
  Vec3 centroid = Vec3::Zero(), normal = Vec3::Zero(), friction_force = Vec3::Zero();
  Vec3 rolling_torque = Vec3::Zero(), v_sct = Vec3::Zero();
  double s = 0, c_v = 0, c_w = 0;
  Vec3 force = Vec3::Zero(), couple = Vec3::Zero();  // total on body i at the centroid
  double elastic_power = 0;
  double bristle_energy = 0;  // held by the bristles (friction.h)
};

// States per cell pair: bristle z (3), torsion θ_n (1), dwell s_dw (1), relaxation V_ro (1).
constexpr int kVolumetricStates = 6;

// The normal of the pair: the plane's normal when one side is a half-space, else the J_v eigenvector
// closest to the seed (eq A.31 seed, eigenvector choice). docs/contact-models.md, "Contact normal".
Vec3 volumetric_normal(const geo::Interference& q, const BodyKinematics& bi, const BodyKinematics& bj,
                       const VolumetricMemory& mem, double r_n, double* lambda = nullptr);

// The model for one cell pair given its interference (pure).
VolumetricEvaluation evaluate_volumetric(const ModelParams& p, const geo::Interference& q, const BodyKinematics& bi,
                                         const BodyKinematics& bj, const VolumetricMemory& mem, const double* states,
                                         double* state_derivatives);
// The accepted-step update of one cell pair (onset latch, bristle projection, reset on loss).
void accept_volumetric(const ModelParams& p, const geo::Interference& q, const BodyKinematics& bi,
                       const BodyKinematics& bj, VolumetricMemory& mem, double* states);
void volumetric_initial_states(const ModelParams& p, double* states);
// States of a pair placed in contact (ContactPair::start_placed): V_ro = 0; stuck: z, θ = 0, s_dw = 1.
inline void volumetric_start_placed(double* s, bool stuck, const Vec3& bristle) {
  s[5] = 0;
  if (stuck) s[0] = bristle.x(), s[1] = bristle.y(), s[2] = bristle.z(), s[3] = 0, s[4] = 1;
}
// Bristle z and torsion θ_n: 1/σ0 (the deflection at full friction); dwell: 1; V_ro (a relaxing memory): +inf.
void volumetric_state_scales(const ModelParams& p, double* scales);

class VolumetricContact : public ContactPair {
 public:
  VolumetricContact(const ModelParams& params, geo::Cell cell_i, geo::Cell cell_j, geo::QueryOptions options);
  int num_states() const override { return kVolumetricStates; }
  void initial_states(double* states) const override { volumetric_initial_states(p_, states); }
  void start_placed(double* states, bool stuck, const Vec3& bristle) const override {
    volumetric_start_placed(states, stuck, bristle);
  }
  void state_scales(double* scales) const override { volumetric_state_scales(p_, scales); }
  std::vector<Channel> channels() const override;
  void evaluate(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, const double* states,
                double* state_derivatives, ContactResult& result) const override;
  void accept_step(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, double* states) override;
  const VolumetricMemory& memory() const { return mem_; }

 private:
  // refresh: the pair's coherence to rebuild where it no longer holds (accept_step only); evaluate passes nullptr.
  geo::Interference query(const BodyKinematics& bi, const BodyKinematics& bj, geo::PairCoherence* refresh) const;
  ModelParams p_;
  geo::Cell cell_i_, cell_j_;
  geo::QueryOptions options_;
  VolumetricMemory mem_;
  AcceptedInterferences accepted_;  // the query at the last accepted state, reused at the same poses
  // What the queries start from (two meshes' leaf pairs): like accepted_, written only in accept_step and only read
  // in evaluate, which stays pure.
  geo::PairCoherence coherence_;
};

}  // namespace vcsim::contact
