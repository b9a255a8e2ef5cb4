// Two convex cells that no closed form serves: crossed cylinders, a cylinder on a cone, two capsules, an ellipsoid on
// a ball, a cone's tip in a ball. Their intersection is convex, so along columns of a fixed axis (the contact
// normal) its chord length G(u, v) is concave on the footprint (the lens's projection, a convex region), smooth
// between the curves where the faces that bound a column change, and each column's interval is exact (quadrics and
// planes in closed form, geometry/line_sets.h). The footprint and each row's ends are located exactly (false
// position on the signed gap, which the quadrics' "inverted chords" keep continuous outside), so what is left is
// smooth and is integrated by nested Clenshaw–Curtis rules in u (across the footprint) and v (along each row):
// 17 nodes each, with the 9-node rule on the same nodes as the error estimate. Rows whose face signature changes are
// split at the change (bisection). The result is continuous in the poses (no lattice).
//
// When an estimate misses the tolerance (a kink the splitting did not catch, a footprint the search did not find)
// the function answers nothing and the caller takes the column engine: never a silently worse answer.
#pragma once
#include <optional>

#include "geometry/column_integration.h"

namespace vcsim::geo {

// True when every primitive of both cells is convex and bounded by planes or quadrics (no complement, torus or mesh).
bool convex_lens_pair(const CellPrimitives& a, const CellPrimitives& b);

// Raw moments, in `frame`, of a ∩ b with columns along the frame's z axis (the contact normal; its origin near the
// overlap). Nothing when the pair is not convex_lens_pair or the error estimate misses `tolerance` (relative, on V).
// columns: incremented by the columns evaluated.
std::optional<RawMoments> convex_lens_moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& columns);

}  // namespace vcsim::geo
