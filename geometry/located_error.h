// Bad input that points back into the scenario file: one error type for the loader, the geometry (negative sizes,
// empty or overlapping cells, open meshes) and the contact models (parameters, unsupported shapes), and one
// formatter. what() is "FILE:LINE:COLUMN: error: KEY.PATH: expected ...; got ..."; without a known position
// (line 0) "FILE: error: ...". Errors in a command-line override carry "FILE: --set TEXT" as their file, so the
// user sees which override was wrong instead of a line number.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

#include "geometry/csg.h"

namespace vcsim {

inline std::string format_located(const geo::SourceLocation& where, const std::string& text,
                                  const std::string& severity = "error") {
  std::string msg = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) msg += ":" + std::to_string(where.line) + ":" + std::to_string(where.column > 0 ? where.column : 1);
  msg += ": " + severity + ": ";
  if (!where.key_path.empty()) msg += where.key_path + ": ";
  return msg + text;
}

// Messages state what was expected; a text that does not start with it ("a closed mesh ..., but ...") gets it.
inline std::string with_expected(const std::string& text) {
  if (text.rfind("expected", 0) == 0 || text.find(": expected") != std::string::npos) return text;
  return "expected " + text;
}

// A measured value in a message (a warning's force, a step limit): 3 significant digits.
inline std::string brief_number(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

struct LocatedError : std::runtime_error {
  LocatedError(const geo::SourceLocation& where, const std::string& expected)
      : std::runtime_error(format_located(where, with_expected(expected))),
        where(where),
        expected(with_expected(expected)) {}
  LocatedError(const std::string& file, int line, int column, const std::string& key_path, const std::string& expected)
      : LocatedError(geo::SourceLocation{file, line, column, key_path}, expected) {}
  geo::SourceLocation where;
  std::string expected;  // "expected ...; got ..."
};

namespace geo {
using GeometryError = LocatedError;
}
namespace contact {
using ContactError = LocatedError;
}

}  // namespace vcsim
