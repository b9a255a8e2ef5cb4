// A closed triangle mesh clipped by planes, exactly (issue 16): the moments of mesh ∩ {n·x <= d for every plane}
// from the divergence theorem over the clipped boundary and the cap polygons, exact to rounding, for convex and
// non-convex closed meshes. Only the triangles that can lie inside every plane are touched, found through a
// bounding-volume hierarchy built once at load (MeshLevelSet::bvh). See docs/geometry.md.
#pragma once
#include <vector>

#include "geometry/exact_interference.h"
#include "geometry/mesh.h"

namespace vcsim::geo {

// Raw moments (about the frame's origin) of the mesh placed by `mesh_pose` (its primitive frame in the query
// frame: the world orientation with the overlap's origin) clipped by every plane (given in the query frame).
// An empty plane list gives the whole solid.
RawMoments mesh_planes_moments(const MeshLevelSet& mesh, const Pose& mesh_pose, const std::vector<Plane>& planes);

}  // namespace vcsim::geo
