// Basic math types shared by every layer. SI units; quaternions are (w, x, y, z)
// and map body-frame vectors to the parent frame: v_parent = q * v_body.
#pragma once
#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace vcsim {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;

// Rigid transform of a frame relative to its parent: x_parent = rotation * x_local + position.
struct Pose {
  Vec3 position = Vec3::Zero();
  Quat rotation = Quat::Identity();

  Vec3 apply(const Vec3& x_local) const { return rotation * x_local + position; }
  Vec3 apply_inverse(const Vec3& x_parent) const {
    return rotation.conjugate() * (x_parent - position);
  }
  // this ∘ child: the pose of a child frame, given relative to this one, in this one's parent.
  Pose compose(const Pose& child) const {
    return Pose{apply(child.position), (rotation * child.rotation).normalized()};
  }
  Pose inverse() const {
    Quat qi = rotation.conjugate();
    return Pose{-(qi * position), qi};
  }
};

// The axis-aligned bounds of the box [lo, hi] mapped by x → R x + t: centre R c + t, half-extents |R| h, the
// bounds of its eight mapped corners.
inline void mapped_box_bounds(const Mat3& R, const Vec3& t, const Vec3& lo, const Vec3& hi, Vec3& out_lo,
                              Vec3& out_hi) {
  const Vec3 centre = R * (0.5 * (lo + hi)) + t, half = R.cwiseAbs() * (0.5 * (hi - lo));
  out_lo = centre - half, out_hi = centre + half;
}

// Roll-pitch-yaw in radians, applied as R = Rz(yaw) Ry(pitch) Rx(roll) (extrinsic x, y, z).
inline Quat quat_from_rpy(double roll, double pitch, double yaw) {
  return Quat(Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
              Eigen::AngleAxisd(roll, Vec3::UnitX()));
}

}  // namespace vcsim
