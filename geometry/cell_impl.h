// The normalised, ready-to-query form of a cell (see interference.h): an intersection of primitives
// and complements of primitives, each placed in the body frame.
#pragma once
#include <vector>

#include "geometry/column_integration.h"
#include "geometry/csg.h"

namespace vcsim::geo {

struct CellImpl {
  CellPrimitives prims;
  std::vector<SourceLocation> where;  // per primitive, for error messages
  SourceLocation cell_where;          // the node that produced the cell
};

}  // namespace vcsim::geo
