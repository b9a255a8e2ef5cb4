#include "engine/prescribed.h"

#include <cmath>

namespace vcsim {

Vec3 profile_value(const Vec3Profile& p, double t) {
  return Vec3(profile_value(p[0], t), profile_value(p[1], t), profile_value(p[2], t));
}
Vec3 profile_rate(const Vec3Profile& p, double t) {
  return Vec3(profile_rate(p[0], t), profile_rate(p[1], t), profile_rate(p[2], t));
}
Vec3Profile constant_profile(const Vec3& v) {
  return {constant_profile(v.x()), constant_profile(v.y()), constant_profile(v.z())};
}

// Turning by an angle about a fixed axis: exp of the rotation vector.
static Quat rotation_vector(const Vec3& r) {
  const double angle = r.norm();
  return angle > 0 ? Quat(Eigen::AngleAxisd(angle, r / angle)) : Quat::Identity();
}

PoseTwist motion_at(const MotionSpec& m, const Pose& initial, double t) {
  PoseTwist out;
  switch (m.kind) {
    case MotionSpec::Kind::Velocity:
      out.pose = {initial.position + m.velocity * t, (rotation_vector(m.angular_velocity * t) * initial.rotation).normalized()};
      out.velocity = m.velocity;
      out.angular_velocity = m.angular_velocity;
      break;
    case MotionSpec::Kind::Profiles:
      out.pose = {initial.position + profile_value(m.displacement, t),
                  (rotation_vector(m.axis * profile_value(m.angle, t)) * initial.rotation).normalized()};
      out.velocity = profile_rate(m.displacement, t);
      out.angular_velocity = m.axis * profile_rate(m.angle, t);
      break;
    case MotionSpec::Kind::Table: {
      // q = s/|s| with s the splined components: q' = (s' - q (q.s'))/|s|, and the world angular velocity is the
      // vector part of 2 q' q* (q' = ½ (0, ω) q, docs/conventions.md).
      Eigen::Vector4d s, ds;
      for (int k = 0; k < 4; ++k) s[k] = profile_value(m.table_quaternion[k], t), ds[k] = profile_rate(m.table_quaternion[k], t);
      const double norm = s.norm();
      const Eigen::Vector4d q = s / norm, dq = (ds - q * q.dot(ds)) / norm;
      const Quat qq(q[0], q[1], q[2], q[3]), dqq(dq[0], dq[1], dq[2], dq[3]);
      const Quat w = dqq * qq.conjugate();
      out.pose = {profile_value(m.table_position, t), qq};
      out.velocity = profile_rate(m.table_position, t);
      out.angular_velocity = 2 * Vec3(w.x(), w.y(), w.z());
      break;
    }
  }
  return out;
}

Vec3 gravity_at(const GravitySpec& g, double t) {
  if (!g.tilting) return profile_value(g.components, t);
  return Eigen::AngleAxisd(profile_value(g.tilt, t), g.tilt_axis) * Vec3(0, 0, -g.magnitude);
}

void append_breakpoints(const Vec3Profile& p, std::vector<double>& out) {
  for (const auto& c : p)
    for (double b : profile_breakpoints(c)) out.push_back(b);
}

void append_breakpoints(const MotionSpec& m, std::vector<double>& out) {
  if (m.kind == MotionSpec::Kind::Profiles) {
    append_breakpoints(m.displacement, out);
    for (double b : profile_breakpoints(m.angle)) out.push_back(b);
  } else if (m.kind == MotionSpec::Kind::Table) {
    append_breakpoints(m.table_position, out);
    for (const auto& c : m.table_quaternion)
      for (double b : profile_breakpoints(c)) out.push_back(b);
  }
}

void append_breakpoints(const GravitySpec& g, std::vector<double>& out) {
  if (g.tilting) {
    for (double b : profile_breakpoints(g.tilt)) out.push_back(b);
  } else {
    append_breakpoints(g.components, out);
  }
}

}  // namespace vcsim
