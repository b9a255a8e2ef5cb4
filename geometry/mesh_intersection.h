// Two closed triangle meshes, convex or not, exactly (issue 17): the moments of A ∩ B from its boundary, which is
// ∂A inside B plus ∂B inside A. Each triangle's part inside the other solid is a planar polygon whose boundary is
// made of its edges' parts inside the other solid and of its intersection segments with the other surface; the
// solid's moments are then sums of signed tetrahedra from the query frame's origin over a fan of each polygon
// (divergence theorem). Only triangle pairs whose bounds meet are examined, through both meshes' BVHs.
//
// The combinatorics (which edge crosses which face, in which direction, in which order along the edge) are decided
// by exact integer predicates on the vertices snapped to a grid of 2^-39 of the scene's extent, with ties broken by
// one symbolic perturbation (geometry/exact_predicates.h), so faces that lie exactly on each other (a box resting
// on a slab) and vertices on faces give a consistent answer. The only error is that snapping: each vertex moves by
// at most 2^-40 of the extent (1e-12 m for a 1 m scene), which changes V by at most that times the contact area.
// See docs/geometry.md, "Two meshes".
#pragma once
#include "geometry/column_integration.h"
#include "geometry/mesh.h"

namespace vcsim::geo {

struct MeshIntersectionStats {
  long triangle_pairs = 0;  // pairs of triangles whose bounds meet (the work of a query)
  long crossings = 0;       // edge-through-face crossings found
  long ray_tests = 0;       // pieces of surface whose inside/outside status needed a ray
  long inconsistent = 0;    // triangle pairs with other than 0 or 2 crossings (0 with exact predicates)
};

// Raw moments (about the query frame's origin) of mesh_a ∩ mesh_b, each placed by its pose (primitive frame →
// query frame: the world orientation with the overlap's origin).
RawMoments mesh_mesh_moments(const MeshLevelSet& mesh_a, const Pose& pose_a, const MeshLevelSet& mesh_b,
                             const Pose& pose_b, MeshIntersectionStats* stats = nullptr);

}  // namespace vcsim::geo
