#include "geometry/support_plane.h"

#include "geometry/cell_impl.h"

namespace vcsim::geo {

Vec3 half_space_normal(const Cell& cell, const Pose& pose) {
  const CellPrimitives& prims = cell.impl->prims;
  if (prims.size() != 1 || prims[0].primitive.kind != PrimitiveKind::HalfSpace) return Vec3::Zero();
  // The half-space is z <= 0 in its primitive frame: outward +z, reversed for the complement.
  const Vec3 n = pose.rotation * (prims[0].primitive.pose.rotation * Vec3::UnitZ());
  return prims[0].complement ? Vec3(-n) : n;
}

Vec3 support_plane_normal(const Cell& cell_i, const Pose& pose_i, const Cell& cell_j, const Pose& pose_j) {
  const Vec3 nj = half_space_normal(cell_j, pose_j);
  if (nj.squaredNorm() > 0) return nj;  // j's outward normal points toward i
  return -half_space_normal(cell_i, pose_i);
}

}  // namespace vcsim::geo
