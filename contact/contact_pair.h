// The interface between the engine and a contact model. A contact pair turns the kinematics of
// two bodies (and its own internal states, which live in the world state vector) into a wrench
// on body i and state derivatives. Body j receives the opposite wrench (thesis eq 3.4).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "geometry/pose.h"

namespace vcsim::contact {

// Kinematics of one body, world frame. pose is the centre-of-mass frame.
struct BodyKinematics {
  Pose pose;
  Vec3 velocity = Vec3::Zero();          // of the centre of mass
  Vec3 angular_velocity = Vec3::Zero();
};

// Velocity of the body's material point at world position p (eq 3.3's v_i + w_i x r).
inline Vec3 point_velocity(const BodyKinematics& b, const Vec3& p) {
  return b.velocity + b.angular_velocity.cross(p - b.pose.position);
}

// One named output channel of a contact pair (an HDF5 dataset of shape [samples, width]).
struct Channel {
  std::string name;
  int width = 1;
  std::string units;
  std::string description;
};

// A model's output channels, names and values written by one function, so that the two cannot drift apart: the
// model's writer calls add() once per channel, in order. channels() runs it with `names` to collect the list;
// evaluate() without, so the hot path builds no strings.
class ChannelRow {
 public:
  explicit ChannelRow(std::vector<double>& values, std::vector<Channel>* names = nullptr)
      : values_(values), names_(names) {
    values_.clear();
    values_.reserve(kTypicalValues);  // one allocation per evaluation, not one per doubling
  }
  void add(const char* name, const char* units, const char* description, std::initializer_list<double> v) {
    declare(name, static_cast<int>(v.size()), units, description);
    for (const double x : v) values_.push_back(x);  // into reserved capacity: cheaper than a range insert
  }
  void add(const char* name, const char* units, const char* description, const Vec3& v) {
    add(name, units, description, {v.x(), v.y(), v.z()});
  }
  // A channel of `width` values value(0), ..., value(width - 1) (one per cell pair, say).
  template <class Value>
  void add_each(const char* name, const char* units, const char* description, int width, Value value) {
    declare(name, width, units, description);
    for (int k = 0; k < width; ++k) values_.push_back(value(k));
  }

 private:
  static constexpr size_t kTypicalValues = 48;  // the volumetric model writes 34
  void declare(const char* name, int width, const char* units, const char* description) {
    if (names_) names_->push_back({name, width, units, description});
  }
  std::vector<double>& values_;
  std::vector<Channel>* names_;
};

// The channel list a writer produces (for a model's channels()).
template <class Write>
std::vector<Channel> channel_names(Write write) {
  std::vector<double> values;
  std::vector<Channel> names;
  ChannelRow row(values, &names);
  write(row);
  return names;
}

struct ContactResult {
  bool in_contact = false;
  Vec3 force = Vec3::Zero();        // total contact force on body i, world frame
  Vec3 point = Vec3::Zero();        // where force acts (world), e.g. the interference centroid
  Vec3 couple = Vec3::Zero();       // pure moment on body i (rolling, spinning), world frame
  double elastic_power = 0;         // power of the stiffness part into the contact (for energy bookkeeping)
  double bristle_energy = 0;        // J held by the friction bristles, outside the bookkeeping (friction.h)
  std::vector<double> channels;     // flat values of channels(), in order (ChannelRow)
};

class ContactPair {
 public:
  virtual ~ContactPair() = default;
  virtual int num_states() const = 0;
  virtual void initial_states(double* states) const = 0;
  // The size at which each state matters (its own unit), for the adaptive integrators' error weights: a bristle's
  // deflection at full friction is 1/σ0. +inf leaves a state out of the error control (a slowly relaxing memory).
  virtual void state_scales(double* scales) const = 0;
  // For a pair placed in contact at t = 0, after accept_step(0, ...) has opened its contact episode: no relaxation
  // of the overlap (it is the user's placement, not a late detection); and when `stuck` (placed at rest), full
  // stiction (dwell s_dw = 1) with the bristles at the deflection `bristle` (world frame; the static friction the
  // placement needs), so a body set down on a slope holds (docs/contact-models.md, "Initial contact state").
  virtual void start_placed(double* states, bool stuck, const Vec3& bristle) const = 0;
  virtual std::vector<Channel> channels() const = 0;
  // Pure function of its inputs: called at every stage of a Runge-Kutta step.
  virtual void evaluate(double t, const BodyKinematics& body_i, const BodyKinematics& body_j,
                        const double* states, double* state_derivatives, ContactResult& result) const = 0;
  // Called once per accepted step: update per-contact memory (impact velocity, previous normal),
  // and project states in place if the model needs it (bristles kept tangential).
  virtual void accept_step(double t, const BodyKinematics& body_i, const BodyKinematics& body_j,
                           double* states) = 0;
};

}  // namespace vcsim::contact
