// A cylinder's or cone's curved side that the other cell cannot reach is no face of the pair. A cylinder standing on
// another's flat end, a tilted cylinder's rim on a table-like end, a frustum's top pressed into a cylinder's end:
// the other cell's part between the primitive's end planes lies strictly inside its side, so the pair is that part
// against the two end planes, which a closed form answers (geometry/closed_form_pairs.h) where the convex lens
// would integrate (docs/geometry.md, "Which path each pair takes").
//
// The proof is a bound, never an estimate: the support of (other cell) ∩ (end slab) along a direction d across the
// axis is at most h_P(d − t z) + |t| h for every t and every primitive P of the other cell (Lagrangian duality for the
// slab |z| ≤ h; P ⊇ the cell), minimised over t by golden section. Twelve directions bound the part's distance from
// the axis by their largest support over cos(π/12); below the side's smallest radius, the side is out of reach.
#pragma once
#include <optional>

#include "geometry/column_integration.h"

namespace vcsim::geo {

// `cell` with each cylinder or frustum whose side `other` cannot reach replaced by its end slab (the same pose,
// thickness = its length); nothing when no primitive qualifies. cell ∩ other is unchanged, so any query may use the
// result. Complemented primitives, infinite cylinders, capsules and sharp cones (a radius 0) are left as they are.
std::optional<CellPrimitives> without_unreachable_sides(const CellPrimitives& cell, const Pose& pose,
                                                        const CellPrimitives& other, const Pose& other_pose);

}  // namespace vcsim::geo
