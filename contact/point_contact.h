// Gonthier's point contact model (thesis ch. 3): Hertz normal force with the exact hysteretic damping
// (eqs 3.19–3.25, 3.43), relaxation of the initial penetration (3.44–3.45) and the seven-parameter
// bristle friction (3.28–3.42), for the analytic pairs of geometry/point_contact_geometry.h.
#pragma once
#include <vector>

#include "contact/contact_pair.h"
#include "contact/friction.h"
#include "contact/model_params.h"
#include "geometry/point_contact_geometry.h"

namespace vcsim::contact {

// The per-point law shared by the point model and the per-vertex model (contact/point_vertices_contact.h):
// one contact point with its five states and its own memory of the contact episode.
struct PointMemory {
  bool in_contact = false;
  double v_in = 0;                  // latched normal impact velocity (< 0)
  bool have_prev = false;
  double prev_x = 0, prev_vn = 0;   // at the previous accepted step, to interpolate the crossing
};
struct PointLawResult {
  bool overlap = false;  // x < 0
  double f_n = 0;        // normal force (eq 3.19 or Sandia's law, clamped >= 0)
  double f_el = 0;       // its stiffness part k δ^n
  PointFriction fr;      // bristle friction (eqs 3.28-3.42), on body i
  Vec3 z = Vec3::Zero(); // bristle state
};
// States s[0..4] = (z, s_dw, x_ro) of one point: initial values.
void point_law_initial_states(const ModelParams& p, double* s);
// Bristle z: 1/σ0; dwell: 1; x_ro (a relaxing memory): +inf.
void point_law_state_scales(const ModelParams& p, double* scales);
// The law at one point of signed separation x (< 0: contact) along the unit normal n (from body j toward body i),
// relative velocity v_r = v_i(p) − v_j(p) at the point; writes the five state rates ds.
PointLawResult point_law(const ModelParams& p, const PointMemory& m, double x, const Vec3& n, const Vec3& v_r,
                         const double* s, double* ds);
// Once per accepted step: latch the impact velocity (P3), keep the bristle tangential (P8), reset on separation (P7b).
// States of a point law placed in contact (ContactPair::start_placed): x_ro = 0; stuck: z, s_dw = 1.
inline void point_law_start_placed(double* s, bool stuck, const Vec3& bristle) {
  s[4] = 0;
  if (stuck) s[0] = bristle.x(), s[1] = bristle.y(), s[2] = bristle.z(), s[3] = 1;
}
void point_law_accept(const ModelParams& p, PointMemory& m, double x, const Vec3& n, double v_n, double* s);

class PointContact : public ContactPair {
 public:
  // States: bristle z (3), dwell s_dw (1), relaxation reference x_ro (1).
  static constexpr int kStates = 5;
  // Shapes with their primitive poses expressed in each body's centre-of-mass frame.
  PointContact(const ModelParams& params, const geo::PointShape& shape_i, const geo::PointShape& shape_j);

  int num_states() const override { return kStates; }
  void initial_states(double* states) const override;
  void start_placed(double* states, bool stuck, const Vec3& bristle) const override {
    point_law_start_placed(states, stuck, bristle);
  }
  void state_scales(double* scales) const override { point_law_state_scales(p_, scales); }
  std::vector<Channel> channels() const override;
  void evaluate(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, const double* states,
                double* state_derivatives, ContactResult& result) const override;
  void accept_step(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, double* states) override;

  bool in_contact() const { return m_.in_contact; }
  double impact_velocity() const { return m_.v_in; }

 private:
  ModelParams p_;
  geo::PointShape shape_i_, shape_j_;
  PointMemory m_;  // per-contact memory: changes only in accept_step
};

}  // namespace vcsim::contact
