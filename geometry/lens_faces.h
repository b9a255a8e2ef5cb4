// The faces of a placed primitive seen from a column of the convex lens quadrature (geometry/convex_lens.cpp):
// which faces run parallel to the column (a cylinder's side along it, a cap across it), the column's chord with those
// faces left out, and one face taken alone. Exact, closed form (geometry/line_sets.h).
#pragma once
#include "geometry/line_sets.h"

namespace vcsim::geo::lens {

// How far inside the faces that run parallel to the column x = o + s w (primitive frame) the column is: positive
// inside, negative outside, +∞ when no face runs parallel. G jumps at such a face; this margin is continuous.
double parallel_margin(const lines::Placed& p, const Vec3& o, const Vec3& w);

// The chord of p along the column with the faces parallel to it left out: a cylinder along its axis keeps its caps,
// one across it its side, a box its other faces. Where no face runs parallel, the chord itself. Concave in the
// column's position like every chord of a convex set.
lines::Span chord_without_parallel_faces(const lines::Placed& p, const Vec3& o, const Vec3& w);

// One face of a primitive (its line_span face number) as a primitive of its own, same placement: a cylinder's side
// (an infinite cylinder) or caps (a slab), a cone's caps or side (the same surface on a longer slab), a capsule's
// body or end balls, a box's pair of faces. False where the face cannot stand alone.
bool face_alone(const lines::Placed& p, int face, lines::Placed& q);

}  // namespace vcsim::geo::lens
