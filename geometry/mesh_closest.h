// The point of a closed mesh's surface closest to a given point, exactly, through the mesh's hierarchy
// (geometry/mesh.h), and the signed distance and its gradient there. The sign comes from the angle-weighted
// pseudonormal of the closest feature (face, edge or vertex; Bærentzen and Aanæs, IEEE TVCG 11(3), 2005), which
// decides inside from outside exactly for a closed, consistently oriented mesh. The closed-form paths take their
// normal estimate from it (geometry/interference.cpp), so they never need the mesh's distance grid.
#pragma once
#include "geometry/mesh.h"

namespace vcsim::geo {

struct MeshClosest {
  double distance = 0;            // signed: < 0 inside (m)
  Vec3 point = Vec3::Zero();      // on the surface, primitive frame
  Vec3 gradient = Vec3::UnitZ();  // unit, the signed distance's gradient: outward, away from the surface
};

// x in the mesh's primitive frame.
MeshClosest mesh_closest(const MeshLevelSet& mesh, const Vec3& x);

}  // namespace vcsim::geo
