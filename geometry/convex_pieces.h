// A closed mesh's solid split exactly into disjoint convex pieces, each the intersection of half-spaces (issue 17:
// a concave fixture given as one mesh). The cellular model then gives each piece its own contact, with its own
// normal, as hand-made convex cells do, and each piece pair is the exact convex polyhedron clip.
//
// Method: a binary space partition along the planes of the faces at reflex edges. A region with no reflex edge
// inside holds convex components of the solid (a connected, locally convex set is convex); one component is the
// intersection of the region's cuts and the planes of the faces it holds, while two or more leave that intersection
// without volume and are cut apart along a face plane. The pieces' volumes must add up to the mesh's (its divergence
// sum, an independent computation), or the split is refused. See docs/geometry.md, "Convex pieces".
#pragma once
#include <vector>

#include "geometry/csg.h"
#include "geometry/exact_interference.h"
#include "geometry/mesh.h"

namespace vcsim::geo {

struct ConvexPiece {
  std::vector<Plane> planes;  // the piece is {x : n·x <= d for each}, mesh frame
  Vec3 lo, hi;                // its bounds, mesh frame
  double volume = 0;
};

// The pieces, in a deterministic order. Throws GeometryError at `where` (naming the mesh file) when the mesh has too
// many distinct face planes (curved or scanned surfaces), needs more than `max_pieces`, or a region cannot be
// resolved into convex pieces.
std::vector<ConvexPiece> convex_pieces(const MeshLevelSet& mesh, const SourceLocation& where, int max_pieces = 256);

}  // namespace vcsim::geo
