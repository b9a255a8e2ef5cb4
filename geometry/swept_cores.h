// A proof that two cells do not overlap, for cells that are each a ball, a capsule or a ring torus: each is the set of
// points within its radius of a core (a point, a segment, a circle), so they are apart when the distance between the
// cores exceeds the sum of the radii. For a circle the distance is bounded below over arcs of it (branch and bound on
// its angle, Lipschitz in the arc length), so "apart" is never claimed for cells that touch.
//
// Why: two interlocked rings (chain links), or a ring near a ball, have overlapping boxes while apart, and the column
// engine then spends up to 54 000 columns (~60 ms) failing to find an overlap 0.1 mm wide (benchmarks/README.md, the
// eighth session).
#pragma once

#include "geometry/column_integration.h"
#include "geometry/pose.h"

namespace vcsim::geo {

// True when cells a and b (posed in the world) are proven apart: each one primitive, a ball, a capsule or a ring
// torus (not complemented), at least one of them a torus, and the cores farther apart than the radii's sum. False
// otherwise, including "not proven": touching, overlapping, or a gap too small for the budget of 20 000 distances.
// That is down to ~1e-9 of the ring where the distance varies along the circle, but ~2πR / 20 000 (13 µm for R 4 cm)
// where it does not (a ball on the ring's axis, a rod through its hole).
bool swept_cores_apart(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b, const Pose& pose_b);

}  // namespace vcsim::geo
