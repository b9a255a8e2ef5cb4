// Shared by the geometry tests: cells from primitives, and random attitudes.
#pragma once
#include <random>
#include <vector>

#include "geometry/interference.h"

namespace geometry_support {

using namespace vcsim;
using namespace vcsim::geo;

// One cell: a primitive, or the intersection of several.
inline Cell make_cell(const std::vector<Primitive>& prims) {
  CsgNode root;
  if (prims.size() == 1) {
    root.primitive = prims[0];
  } else {
    root.op = CsgNode::Op::Intersection;
    for (const Primitive& p : prims) {
      CsgNode c;
      c.primitive = p;
      c.where.key_path = "test.child";
      root.children.push_back(c);
    }
  }
  root.where.key_path = "test";
  return make_body_geometry(root, "").cells.at(0);
}
inline Primitive sphere(double r) {
  Primitive p;
  p.kind = PrimitiveKind::Sphere;
  p.radius = r;
  return p;
}
inline Primitive box(const Vec3& size, const Pose& pose = {}) {
  Primitive p;
  p.kind = PrimitiveKind::Box;
  p.size = size;
  p.pose = pose;
  return p;
}
inline Primitive halfspace(const Pose& pose = {}) {
  Primitive p;
  p.kind = PrimitiveKind::HalfSpace;
  p.pose = pose;
  return p;
}
// Uniformly distributed over rotations (a normalised Gaussian quaternion).
inline Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

}  // namespace geometry_support
