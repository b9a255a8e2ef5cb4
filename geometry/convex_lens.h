// Two convex cells that no closed form serves: crossed cylinders, a cylinder on a cone, two capsules, an ellipsoid on
// a ball, a cone's tip in a ball. Their intersection is convex, so along columns of a fixed axis its chord length
// G(u, v) is concave on the footprint (the lens's projection, a convex region), smooth between the curves where the
// faces that bound a column change, and each column's interval is exact (quadrics and planes in closed form,
// geometry/line_sets.h). The quadrature (docs/geometry.md, "The convex lens quadrature"):
//  - columns along the difference of the outward normals of the two faces bounding the deepest column, and rows (v)
//    along the footprint's long axis (principal axis of eight rim points);
//  - the footprint's extent in u and each row's edges located by false position on a gap that stays continuous and
//    concave where G jumps (beside a face parallel to the columns: a flat end on a flat end);
//  - each row split where the faces bounding it change (false position on the two faces' chord ends), each piece
//    by Clenshaw–Curtis rules under a sine map (9 nodes, then 17; the half-order rule on the same nodes is the
//    error estimate);
//  - the rows' integral F(u) by the same rules, split where the rows' shape (the faces along a row and beyond its
//    edges) changes: a corner of the footprint or the end of a kink curve, where F has a kink (bisection).
// The result is continuous in the poses (no lattice). When an estimate misses the tolerance (more kinks than
// allowed, a footprint the search did not find) the function answers nothing and the caller takes the column
// engine: never a silently worse answer.
#pragma once
#include <optional>

#include "geometry/column_integration.h"

namespace vcsim::geo {

// True when every primitive of both cells is convex and bounded by planes or quadrics (no complement, torus or mesh).
bool convex_lens_pair(const CellPrimitives& a, const CellPrimitives& b);

// Raw moments, in `frame`, of a ∩ b (frame: z the contact normal, the first guess of the column axis; its origin
// near the overlap). Nothing when the pair is not convex_lens_pair or the error estimate misses `tolerance` (relative, on V).
// columns: incremented by the columns evaluated.
std::optional<RawMoments> convex_lens_moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& columns);

}  // namespace vcsim::geo
