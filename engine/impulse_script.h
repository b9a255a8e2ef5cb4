// Scripted impulses and load switches as a run applies them (engine/simulation.cpp).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "engine/scenario.h"
#include "engine/world.h"

namespace vcsim {

// The scenario's scripted impulses (ImpulseSpec, docs/scenario-format.md "Impulses") and load switches (LoadSpec's
// `when`) as a run applies them: call start() on the initial state, then apply() after every accepted step (after
// World::accept_step, never inside integrator stages). A time trigger fires once, at the first accepted time
// t >= at − h/2; a crossing trigger fires each time its signal passes the level between two accepted states (up to
// `until`, if given); a load switch turns its load on (World's AppliedLoad::start) at its first crossing.
struct ImpulseTally {
  long count = 0;                          // firings so far
  double last_time = std::nan("");         // s, time of the latest firing
  Vec3 linear = Vec3::Zero(), angular = Vec3::Zero();  // cumulative impulse applied, world frame
};
class ImpulseScript {
 public:
  ImpulseScript(const Scenario& scenario, World& world);
  void start(VecX& x) { apply(0, 0, x); }  // on the initial state: applies impulses with at = 0
  // Applies every impulse due at the accepted state x at time t (fixed step h; 0 for an adaptive run, whose steps
  // end on each time trigger); returns how many fired.
  int apply(double t, double h, VecX& x);
  // For an adaptive run: the next time trigger after t (+inf if none), and whether a crossing trigger would fire at
  // the candidate state x_new at t_new (so that the step is cut before it).
  double next_time_trigger(double t) const;
  bool crossing_due(double t_new, const VecX& x_new) const;
  const std::vector<ImpulseTally>& tallies() const { return tallies_; }
  bool empty() const { return specs_.empty(); }
  long loads_switched() const { return loads_switched_; }  // so far: the run then refreshes the breakpoints

 private:
  // A signal of a body crossing a level (impulses' `when`, loads' `when`).
  struct Crossing {
    int body = -1, component = -1;  // component: 0-2 position, 3-5 velocity, 6-8 angular velocity
    double level = 0;
    int direction = 0;
    double previous = 0;  // the signal at the previous accepted state
  };
  Crossing crossing(const std::string& body, const std::string& signal, double level, int direction) const;
  int fire(size_t i, double t, VecX& x);
  bool crosses(const Crossing& c, const VecX& x) const;  // fires between the previous accepted state and x
  double signal(const Crossing& c, const VecX& x) const;
  World& world_;
  std::vector<ImpulseSpec> specs_;
  std::vector<int> body_;
  std::vector<Crossing> crossing_;  // per impulse (unused by time triggers)
  std::vector<bool> done_;          // time triggers already fired
  std::vector<ImpulseTally> tallies_;
  std::vector<Crossing> switch_;    // load switches, for world_.loads[switch_load_[k]]
  std::vector<int> switch_load_;
  long loads_switched_ = 0;
};

}  // namespace vcsim
