// Scenario files (YAML, format in docs/scenario-format.md) -> validated Scenario (engine/scenario.h).
#pragma once
#include <string>
#include <vector>

#include "engine/input_error.h"
#include "engine/scenario.h"

namespace vcsim {

// Loads the file, applies the overrides in order ("a.b.c=YAML value", e.g.
// "bodies.ball.velocity=[0,0.3,0]"; list items as "contacts[0].k_v"), validates everything, and fills
// a Scenario. Throws InputError on any problem (file:line:column, key path, what was expected).
// Never touches the output file.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text already in memory (fuzzing, front ends): `path` names the text in messages, gives
// the default name and output file, and is the directory that relative mesh files are resolved from.
Scenario load_scenario_text(const std::string& text, const std::string& path,
                            const std::vector<std::string>& overrides = {});

// Edit distance used for "did you mean" hints (exposed for tests and other front ends; engine/io/yaml_reader.cpp).
int levenshtein_distance(const std::string& a, const std::string& b);

}  // namespace vcsim
