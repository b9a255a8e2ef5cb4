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

// Roll-pitch-yaw in radians, applied as R = Rz(yaw) Ry(pitch) Rx(roll) (extrinsic x, y, z).
inline Quat quat_from_rpy(double roll, double pitch, double yaw) {
  return Quat(Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
              Eigen::AngleAxisd(roll, Vec3::UnitX()));
}

}  // namespace vcsim
