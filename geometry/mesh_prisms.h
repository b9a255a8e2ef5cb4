// A solid against a closed mesh that is not convex (a ball in a bowl, a peg in a hole cut in a mesh), exactly, as a
// signed sum of the solid clipped by planes (issue 17).
//
// A ray from a point x along a direction d leaves a closed, outward-oriented mesh once more than it enters it when x
// is inside, and as often as it enters when x is outside. So the mesh's indicator is Σ_f sign(n_f·d) [x ∈ prism_f],
// where prism_f, the points whose ray meets triangle f, is the triangle swept along −d: below its plane and inside the
// three planes through its edges along d. In a box B, only the triangles in B extended along d past the mesh count
// (beyond the mesh every ray is outside it). Coplanar neighbours are merged into convex faces (once per mesh,
// MeshLevelSet::faces), whose prisms are the unions of theirs. The solid's part in B and in the mesh is then a signed
// sum over the faces of the solid clipped by a face's planes: each term is a closed form (geometry/primitive_planes.h,
// the ball's caps), so the sum is exact to their accuracy and smooth in the poses. Only the faces whose prisms can
// reach the solid are clipped (its support function, then GJK).
#pragma once
#include <functional>
#include <vector>

#include "geometry/exact_interference.h"
#include "geometry/mesh.h"

namespace vcsim::geo {

// What a mesh is cut against: its support function h(v) = max over it of v·x, a point where it is reached, and a ball
// that holds it (upper bounds are enough: they only skip prisms that cannot meet the solid), and its raw moments about the query frame's origin
// when clipped by planes.
struct ClippableSolid {
  std::function<double(const Vec3&)> support;
  std::function<Vec3(const Vec3&)> support_point;  // where the support is reached; empty: prisms culled by planes only
  std::function<RawMoments(const std::vector<Plane>&)> clipped;
  Vec3 ball_centre = Vec3::Zero();
  double ball_radius = 0;  // 0: the ball around the solid's box (from the support function)
};

// Raw moments (about the query frame's origin) of solid ∩ mesh ∩ box [lo, hi] ∩ every plane, the mesh placed by
// mesh_pose (its primitive frame in the query frame), everything else given in the query frame.
RawMoments mesh_prism_moments(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo, const Vec3& hi,
                              const std::vector<Plane>& planes, const ClippableSolid& solid);

}  // namespace vcsim::geo
