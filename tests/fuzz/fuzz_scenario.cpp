// libFuzzer target (issue 8): the scenario loader (YAML parse, schema, every section's validation) on
// arbitrary text. Bad input must end in an InputError (exit status 2 in vcsim); anything else that escapes,
// and any sanitizer report or hang, is a finding. The first line may hold --set overrides: a first line
// "#set A=B;C=D" applies "A=B" and "C=D" (so the fuzzer reaches apply_override too).
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "engine/input_error.h"
#include "engine/io/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  if (text.rfind("#set ", 0) == 0) {
    std::istringstream first(text.substr(5, text.find('\n') - 5));
    for (std::string o; std::getline(first, o, ';');) overrides.push_back(o);
  }
  try {
    vcsim::load_scenario_text(text, "/nonexistent/fuzz.yaml", overrides);
  } catch (const vcsim::InputError&) {
  }
  return 0;
}
