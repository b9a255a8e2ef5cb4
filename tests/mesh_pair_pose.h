// Shared by the mesh-pair tests and benchmarks (tests/geometry_mesh_coherence_test.cpp, benchmarks/bench_mesh_*.cpp):
// where to put one mesh on another.
#pragma once
#include "geometry/mesh_intersection.h"

namespace mesh_pair_pose {

// b over a (a at the identity) at attitude q and horizontal offset, lowered until it first touches (bisection on
// the exact V of cold queries, to the last bit), then `depth` further.
inline vcsim::Pose first_touch(const vcsim::geo::MeshLevelSet& a, const vcsim::geo::MeshLevelSet& b, const vcsim::Quat& q,
                               const vcsim::Vec3& offset, double depth) {
  using vcsim::Pose, vcsim::Vec3;
  double above = a.hi.z() - b.lo.z() + (b.hi - b.lo).norm(), below = a.lo.z() - b.hi.z();
  for (int k = 0; k < 70; ++k) {
    const double z = 0.5 * (above + below);
    (vcsim::geo::mesh_mesh_moments(a, Pose{}, b, Pose{offset + Vec3(0, 0, z), q}).m0 > 0 ? below : above) = z;
  }
  return Pose{offset + Vec3(0, 0, above - depth), q};
}

}  // namespace mesh_pair_pose
