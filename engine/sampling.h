// What a run writes (docs/output-format.md): the output layout of a scenario's world, and one sample of its state.
#pragma once
#include <vector>

#include "contact/contact_pair.h"
#include "engine/impulse_script.h"
#include "engine/output_hdf5.h"
#include "engine/scenario.h"
#include "engine/world.h"

namespace vcsim {

// Bodies, contact pairs with their models' channels, impulses, and the run's settings as attributes.
OutputLayout make_layout(const Scenario& scenario, const World& world);
// The sample at time t: every body's pose and twist (prescribed ones too), the energies, every pair's wrench on
// body i (also about its centre of mass) and channels, and the impulses' running tallies.
OutputSample make_sample(double t, const World& world, const VecX& x, const Energies& e,
                         const std::vector<contact::ContactResult>& results, const ImpulseScript& script);

}  // namespace vcsim
