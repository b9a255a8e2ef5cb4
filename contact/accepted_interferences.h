// The interferences of the last accepted state, kept by a contact pair so that a geometric query is computed once
// per state (issue 16): the accepted step computes them, and the output sample and the first stage of the next
// Runge–Kutta step, which see the same poses bit for bit, reuse them. RK3 then costs 3 queries per step, not 5;
// RK4 4, not 6. A reused result is the same bits a recomputation would give (the query is deterministic), so the
// output does not change. Written only in accept_step; evaluate only reads it, so evaluate stays pure.
#pragma once
#include <vector>

#include "contact/contact_pair.h"
#include "geometry/interference.h"

namespace vcsim::contact {

class AcceptedInterferences {
 public:
  // The kept result of cell pair k when the poses are those of the accepted state, bit for bit; else null.
  const geo::Interference* find(const BodyKinematics& bi, const BodyKinematics& bj, size_t k) const {
    if (!valid_ || k >= pairs_.size() || !same(bi.pose, pose_i_) || !same(bj.pose, pose_j_)) return nullptr;
    return &pairs_[k];
  }
  // Keeps the results of the accepted state (one per cell pair).
  void keep(const BodyKinematics& bi, const BodyKinematics& bj, std::vector<geo::Interference> pairs) {
    pose_i_ = bi.pose;
    pose_j_ = bj.pose;
    pairs_ = std::move(pairs);
    valid_ = true;
  }

 private:
  static bool same(const Pose& a, const Pose& b) {
    return a.position == b.position && a.rotation.coeffs() == b.rotation.coeffs();
  }
  bool valid_ = false;
  Pose pose_i_, pose_j_;
  std::vector<geo::Interference> pairs_;
};

}  // namespace vcsim::contact
