// --set overrides (docs/scenario-format.md, "Command-line overrides"): "key.path=YAML value" applied to the parsed
// document before it is read, so the value is validated like one written in the file.
#pragma once
#include <string>

#include "engine/io/yaml_reader.h"

namespace vcsim::io {

// Applies one "key.path=value" override to the document; returns its canonical path ("contacts[0].k_v"), so that
// errors in the values it wrote name the override instead of a line.
Override apply_override(YAML::Node& root, const std::string& text, const std::string& file);

}  // namespace vcsim::io
