// Convex closed meshes as intersections of half-spaces (issue 17): a convex mesh is the intersection of its facets'
// half-spaces, so any shape against it is that shape clipped by planes, which the closed forms answer exactly
// (geometry/closed_form_pairs.h). Near a box, only the facets whose triangles meet the box matter: for a convex B
// meeting a box, B ∩ box = box ∩ {the half-spaces of the facets that meet the box} (a point of the box outside B
// leaves B, on the segment to a point of B ∩ box, through a facet inside the box).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "geometry/exact_interference.h"
#include "geometry/mesh.h"

namespace vcsim::geo {

// The outward facet planes of a closed, outward-oriented mesh (one plane per triangle, in the mesh's frame) when it
// is convex: connected, and every edge convex (each triangle's neighbours' far vertices on or below its plane, to
// 1e-9 of the mesh's extent: a closed connected surface that is locally convex everywhere bounds a convex body).
// Nothing when it is not.
std::optional<std::vector<Plane>> convex_facet_planes(const TriangleMesh& mesh);

// The half-spaces (in the query frame) whose intersection with the box [lo, hi] (query frame) is the convex mesh
// placed by mesh_pose ∩ the box: the box's six faces and the facets whose triangles' bounds meet the box (found
// through the mesh's BVH). When no facet meets the box, the box lies wholly inside or wholly outside: one plane
// that holds the box or misses it stands for the mesh.
std::vector<Plane> convex_mesh_planes_in_box(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo,
                                             const Vec3& hi);

}  // namespace vcsim::geo
