// Bad scenario input (an error, exit status 2) and setups that load but are likely wrong (a warning), both pointing
// back into the file (geometry/located_error.h).
#pragma once
#include <string>

#include "geometry/located_error.h"

namespace vcsim {

// A setup that loads but is likely to give a wrong answer (docs/reliability.md, "Warnings"): printed as
// "FILE:LINE:COLUMN: warning: KEY.PATH: ...", stored in the output, and an error under --strict.
struct InputWarning {
  geo::SourceLocation where;
  std::string message;
  std::string text() const { return format_located(where, message, "warning"); }
};

// The loader's errors are located errors (geometry/located_error.h), like those of the geometry and the contact models.
using InputError = LocatedError;

}  // namespace vcsim
