// From a validated Scenario to a World and its initial state (engine/build_world.cpp).
#pragma once
#include "engine/scenario.h"
#include "engine/world.h"

namespace vcsim {

// Builds the world from a validated scenario (mass properties from geometry where asked,
// centre-of-mass frames, contact pairs, and the episodes of contacts placed at t = 0: docs/contact-models.md,
// "Initial contact state"). Throws InputError, geo::GeometryError or contact::ContactError on bad input.
struct BuiltWorld {
  World world;
  VecX initial_state;
};
BuiltWorld build_world(const Scenario& scenario);

}  // namespace vcsim
