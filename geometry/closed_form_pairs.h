// Which cell pairs have a closed form, and which closed form answers each (docs/geometry.md, "Which path each pair
// takes"). A cell is split into its planes (boxes, half-spaces, slabs, complemented half-spaces), at most one solid
// (a sphere, cylinder, cone, capsule, ellipsoid, torus or mesh) and the complements the closed forms know (spheres
// that cannot reach the region, one infinite cylinder). The pair is answered exactly when, over both cells:
//  - there is no solid: the convex polyhedron of all the planes (geometry/exact_interference.h);
//  - there is one solid: that solid clipped by all the planes (exact_interference.h for the sphere,
//    geometry/primitive_planes.h for the other primitives, geometry/mesh_clip.h for meshes);
//  - there are two solids and one is a convex mesh: the other solid clipped by every plane and by the mesh's
//    facets near the overlap (geometry/convex_mesh.h): a rock on a mesh slab, two convex rocks, a ball on a rock;
//  - there are two solids, one a mesh that is not convex and the other a primitive but a torus: signed prisms of the
//    mesh's triangles, each the other solid clipped by planes (geometry/mesh_prisms.h): a ball in a bowl;
//  - there are two spheres: the lens, two spherical caps cut by the radical plane; where planes cut it (a ball on a
//    capsule's cap), each ball clipped by the planes and its side of the radical plane;
//  - there is a sphere and a cylinder or capsule whose side alone meets the ball (no plane or end reaches it): the
//    ball against the infinite cylinder, inside (geometry/exact_interference.h's sphere_cylinder_moments);
//  - a sphere against an infinite cylinder's complement with every plane clear of the ball (a ball in a groove).
//  - any of these once a cylinder's or frustum's side that the other cell cannot reach is replaced by its end slab
//    (geometry/unreachable_sides.h): a cylinder standing on another's end.
// Every other pair goes to the torus sweep, the ruled faces, the convex lens or the column engine
// (geometry/interference.cpp).
#pragma once
#include <optional>

#include "geometry/column_integration.h"

namespace vcsim::geo {

struct MeshPairCache;  // geometry/mesh_intersection.h

// Raw moments about `origin` (world orientation) of cell_a ∩ cell_b when the pair has a closed form; nothing when
// it does not. lo, hi: the overlap of the two cells' bounds, relative to origin (the polyhedron clip starts from
// it). Empty moments (m0 = 0) mean the closed form found no overlap. tolerance: the query's; a solid against a
// non-convex mesh (tens of sliced clips) takes the coarse slice rule from 1e-3 up (geometry/disc_slices.h), every
// other closed form is exact whatever it is. warm, refresh: the pair's mesh–mesh cache, read only and to rebuild where
// it no longer holds (mesh_mesh_moments); only two meshes' surface intersection uses them.
std::optional<RawMoments> closed_form_moments(const CellPrimitives& cell_a, const Pose& pose_a,
                                              const CellPrimitives& cell_b, const Pose& pose_b, const Vec3& origin,
                                              const Vec3& lo, const Vec3& hi, double tolerance,
                                              const MeshPairCache* warm = nullptr, MeshPairCache* refresh = nullptr);

}  // namespace vcsim::geo
