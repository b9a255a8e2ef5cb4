// libFuzzer target (issue 8): the scenario loader, then the world build (CSG normalisation, cell checks,
// mass properties, contact models), exactly as `vcsim run` does before it steps. Slower than fuzz_scenario
// // (a build integrates volumes), so its seeds are small scenarios (tests/fuzz/corpus/world/). Bad input must
// end in one of the three input errors (exit status 2 in vcsim); anything else that escapes, and any
// sanitizer report or hang, is a finding.
#include <cstdint>
#include <string>

#include "contact/model_params.h"
#include "engine/input_error.h"
#include "engine/preflight.h"
#include "engine/io/scenario_loader.h"
#include "engine/simulation.h"
#include "geometry/located_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // Relative mesh files resolve next to this (non-existent) path: a missing file is an input error.
    const vcsim::Scenario sc = vcsim::load_scenario_text(text, "/nonexistent/fuzz.yaml");
    vcsim::preflight(sc, vcsim::build_world(sc));
  } catch (const vcsim::LocatedError&) {  // input, geometry and contact errors
  }
  return 0;
}
