// The ruled faces' function called directly (geometry/ruled_faces.h), for the tests of its modes: a decline cannot hide
// behind the query's fallbacks. Defined in tests/ruled_faces_support.cpp.
#pragma once
#include <optional>
#include <vector>

#include "geometry/ruled_faces.h"
#include "tests/geometry_support.h"

namespace geometry_support {

CellPrimitives prims_of(const std::vector<Primitive>& ps);

// The moments of a ∩ b with the frame's z along `normal` and its origin at `at`; nothing for an empty answer or a
// decline. lines: the rulings evaluated.
std::optional<MomentsReference> ruled(const std::vector<Primitive>& a, const Pose& pa, const std::vector<Primitive>& b,
                                      const Pose& pb, const Vec3& at, const Vec3& normal, double tol,
                                      long* lines = nullptr);

}  // namespace geometry_support
