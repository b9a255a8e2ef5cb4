// A solid against a closed mesh as a signed sum of prisms (see mesh_prisms.h).
#include "geometry/mesh_prisms.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "geometry/hulls_apart.h"
#include "geometry/mesh_closest.h"

namespace vcsim::geo {
namespace {

// Can no point of solid ∩ box lie inside the plane? min over it of n·x > d, bounded below by the solid's and the box's.
bool clear_of(const Plane& pl, const ClippableSolid& solid, const Vec3& lo, const Vec3& hi) {
  const double box_least = pl.n.cwiseMax(Vec3::Zero()).dot(lo) + pl.n.cwiseMin(Vec3::Zero()).dot(hi);
  return std::max(-solid.support(-pl.n), box_least) > pl.d;
}

// Does the prism of the convex face t (swept along −d, d a unit axis) miss the ball (c, r)? Across d: the ball's least
// height over the face's shadow is at the shadow's point nearest c, where the ball's lower surface is lowest; when
// the face's highest vertex is below that, so is its prism. Exact shadows, conservative heights.
bool prism_below_ball(const std::vector<Vec3>& t, const Vec3& d, const Vec3& c, double r) {
  int k;
  d.cwiseAbs().maxCoeff(&k);
  const int i = (k + 1) % 3, j = (k + 2) % 3;
  const Eigen::Vector2d p(c[i], c[j]);
  const size_t n = t.size();
  auto shadow = [&](size_t e) { return Eigen::Vector2d(t[e % n][i], t[e % n][j]); };
  // The distance from p to the (convex) shadow: 0 inside it, else to its nearest edge.
  const Eigen::Vector2d v0 = shadow(0), v1 = shadow(1), v2 = shadow(2);
  const double area = (v1 - v0).x() * (v2 - v0).y() - (v1 - v0).y() * (v2 - v0).x();
  bool inside = true;
  double rho2 = 1e300, top = -1e300;
  for (size_t e = 0; e < n; ++e) {
    const Eigen::Vector2d a = shadow(e), b = shadow(e + 1), ab = b - a;
    const double side = ab.x() * (p - a).y() - ab.y() * (p - a).x();
    if (side * area < 0) inside = false;
    const double s = std::clamp(ab.dot(p - a) / std::max(ab.squaredNorm(), 1e-300), 0.0, 1.0);
    rho2 = std::min(rho2, (a + s * ab - p).squaredNorm());
    top = std::max(top, d.dot(t[e]));
  }
  if (inside) rho2 = 0;
  if (rho2 >= r * r) return true;
  return top <= d.dot(c) - std::sqrt(r * r - rho2);
}

}  // namespace

RawMoments mesh_prism_moments(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo, const Vec3& hi,
                              const std::vector<Plane>& planes, const ClippableSolid& solid) {
  // The solid's box, from its support along the axes.
  Vec3 top, bottom;  // max of x_k over the solid, and max of −x_k
  for (int k = 0; k < 3; ++k) top[k] = solid.support(Vec3::Unit(k)), bottom[k] = solid.support(-Vec3::Unit(k));
  // The solid is clipped by the box's faces that cut it and by every plane: each prism adds its own.
  std::vector<Plane> base = planes;
  for (int k = 0; k < 3; ++k) {
    if (top[k] > hi[k]) base.push_back({Vec3::Unit(k), hi[k]});
    if (bottom[k] > -lo[k]) base.push_back({-Vec3::Unit(k), -lo[k]});
  }
  // The ray's direction: the axis nearest the mesh's outward normal at the point closest to the solid's centre, so
  // that prisms reach the solid mostly where it is in the mesh.
  Vec3 centre = solid.ball_centre;
  double radius = solid.ball_radius;
  if (!(radius > 0)) centre = 0.5 * (top - bottom), radius = (0.5 * (top + bottom)).norm();
  const Vec3 toward = mesh_pose.rotation * mesh_closest(mesh, mesh_pose.apply_inverse(centre)).gradient;
  int k;
  toward.cwiseAbs().maxCoeff(&k);
  const Vec3 d = (toward[k] >= 0 ? 1.0 : -1.0) * Vec3::Unit(k);
  // The rays run along d to beyond the mesh, where they are outside it, so the triangles that count are those whose
  // prisms can reach the box: those in the box extended along d past the mesh's bounds. A superset is harmless (a
  // prism clear of the box clips to nothing), so the hierarchy's candidates are taken as they are.
  const Mat3 rotation = mesh_pose.rotation.toRotationMatrix();
  Vec3 mlo, mhi;
  mapped_box_bounds(rotation, mesh_pose.position, mesh.lo, mesh.hi, mlo, mhi);
  Vec3 elo = lo, ehi = hi;
  const double margin = 1e-6 * (mhi - mlo).norm();
  if (d[k] > 0) ehi[k] = std::max(hi[k], mhi[k] + margin);
  else elo[k] = std::min(lo[k], mlo[k] - margin);
  // The faces (merged at load, geometry/mesh.h) of the triangles there, each once, in a fixed order.
  const MeshFaces& merged = mesh.faces();
  std::vector<int> faces = mesh_triangles_near_box(mesh, mesh_pose, elo, ehi);
  for (int& t : faces) t = merged.face_of[t];
  std::sort(faces.begin(), faces.end());
  faces.erase(std::unique(faces.begin(), faces.end()), faces.end());

  RawMoments sum;
  auto add = [&](const RawMoments& m, double sign) {
    sum.m0 += sign * m.m0, sum.m1 += sign * m.m1, sum.m2 += sign * m.m2;
  };
  std::vector<Plane> clip = base;
  const double far = d.dot(d.sum() > 0 ? lo : hi);  // the box's least height along d
  std::vector<Plane> prism;
  std::vector<Vec3> corners, hull;
  for (const int f : faces) {
    const Vec3 normal = rotation * merged.normals[f];
    const double along = normal.dot(d);
    if (!(std::abs(along) > 1e-12)) continue;  // parallel to the rays: a prism of no volume
    const double sign = along > 0 ? 1.0 : -1.0;  // the ray leaves the mesh through f: +1; enters: −1
    corners.clear();
    for (int i = merged.offsets[f]; i < merged.offsets[f + 1]; ++i)
      corners.push_back(mesh_pose.apply(mesh.vertices[merged.vertices[i]]));
    // The prism: below f's plane (against d) and inside the planes through its edges along d.
    const size_t n = corners.size();
    const Vec3 u = sign * normal, middle = std::accumulate(corners.begin(), corners.end(), Vec3(Vec3::Zero())) / n;
    prism.assign(1, Plane{u, u.dot(corners[0])});
    for (size_t e = 0; e < n; ++e) {
      const Vec3 &p = corners[e], &q = corners[(e + 1) % n];
      Vec3 m = (q - p).cross(d).normalized();
      if (m.dot(middle - p) > 0) m = -m;
      prism.push_back({m, m.dot(p)});
    }
    bool clear = prism_below_ball(corners, d, centre, radius);
    for (const Plane& pl : prism) clear = clear || clear_of(pl, solid, lo, hi);
    if (clear) continue;
    // Planes one at a time pass most prisms under a ring contact whose clip is empty (a capsule's: 115 of 118, each
    // a slicing): a plane found by GJK between the prism, cut at the box's far face, and the solid skips them.
    if (solid.support_point) {
      hull = corners;
      for (const Vec3& x : corners) hull.push_back(x - (d.dot(x) - far) * d);
      if (polytope_apart(hull, solid.support, solid.support_point)) continue;
    }
    clip.resize(base.size());
    clip.insert(clip.end(), prism.begin(), prism.end());
    add(solid.clipped(clip), sign);
  }
  return sum;
}

}  // namespace vcsim::geo
