// Gonthier's point contact model (thesis ch. 3): Hertz normal force with the exact hysteretic damping
// (eqs 3.19–3.25, 3.43), relaxation of the initial penetration (3.44–3.45) and the seven-parameter
// bristle friction (3.28–3.42), for the analytic pairs of geometry/point_contact_geometry.h.
#pragma once
#include <vector>

#include "contact/contact_pair.h"
#include "contact/model_params.h"
#include "geometry/point_contact_geometry.h"

namespace vcsim::contact {

class PointContact : public ContactPair {
 public:
  // States: bristle z (3), dwell s_dw (1), relaxation reference x_ro (1).
  static constexpr int kStates = 5;
  // Shapes with their primitive poses expressed in each body's centre-of-mass frame.
  PointContact(const ModelParams& params, const geo::PointShape& shape_i, const geo::PointShape& shape_j);

  int num_states() const override { return kStates; }
  void initial_states(double* states) const override;
  std::vector<Channel> channels() const override;
  void evaluate(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, const double* states,
                double* state_derivatives, ContactResult& result) const override;
  void accept_step(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, double* states) override;

  bool in_contact() const { return in_contact_; }
  double impact_velocity() const { return v_in_; }

 private:
  ModelParams p_;
  geo::PointShape shape_i_, shape_j_;
  // Per-contact memory: changes only in accept_step.
  bool in_contact_ = false;
  double v_in_ = 0;                    // latched normal impact velocity (< 0)
  bool have_prev_ = false;
  double prev_x_ = 0, prev_vn_ = 0;    // at the previous accepted step, to interpolate the crossing
};

}  // namespace vcsim::contact
