// Bad geometry (negative sizes, empty or overlapping cells, open meshes): an input error that
// points back into the scenario file. what() is "file:line:column: error: key.path: expected ...".
#pragma once
#include <stdexcept>
#include <string>

#include "geometry/csg.h"

namespace vcsim::geo {

inline std::string format_location_message(const SourceLocation& where, const std::string& expected) {
  std::string msg = where.file.empty() ? std::string("<geometry>") : where.file;
  if (where.line > 0) msg += ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
  msg += ": error: ";
  if (!where.key_path.empty()) msg += where.key_path + ": ";
  return msg + expected;
}

struct GeometryError : std::runtime_error {
  GeometryError(const SourceLocation& where, const std::string& expected)
      : std::runtime_error(format_location_message(where, expected)), where(where), expected(expected) {}
  SourceLocation where;
  std::string expected;
};

}  // namespace vcsim::geo
