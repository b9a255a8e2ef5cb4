// A solid against a closed mesh as a signed sum of prisms (see mesh_prisms.h).
#include "geometry/mesh_prisms.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "geometry/hulls_apart.h"
#include "geometry/mesh_closest.h"

namespace vcsim::geo {
namespace {

// A triangle of the mesh in the query frame.
using Triangle = std::array<Vec3, 3>;

// The faces of the box [lo, hi] that the triangle's part in the box reaches (within eps), as bits 2k (x_k = hi_k) and
// 2k + 1 (x_k = lo_k); -1 when the triangle misses the box. Sutherland–Hodgman clipping against the six faces.
int box_faces_reached(const Triangle& t, const Vec3& lo, const Vec3& hi, double eps) {
  std::array<Vec3, 9> poly{t[0], t[1], t[2]}, next;
  int n = 3;
  for (int face = 0; face < 6 && n > 0; ++face) {
    const int k = face / 2;
    const double s = face % 2 == 0 ? 1.0 : -1.0, bound = face % 2 == 0 ? hi[k] : -lo[k];
    int m = 0;
    for (int i = 0; i < n; ++i) {
      const Vec3 &p = poly[i], &q = poly[(i + 1) % n];
      const double fp = s * p[k] - bound, fq = s * q[k] - bound;
      if (fp <= 0) next[m++] = p;
      if ((fp < 0 && fq > 0) || (fp > 0 && fq < 0)) next[m++] = p + (q - p) * (fp / (fp - fq));
    }
    poly = next;
    n = m;
  }
  if (n < 3) return -1;
  int reached = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      if (poly[i][k] >= hi[k] - eps) reached |= 1 << (2 * k);
      if (poly[i][k] <= lo[k] + eps) reached |= 1 << (2 * k + 1);
    }
  return reached;
}

// The triangles (query frame) that meet the box, and the faces they reach between them.
std::vector<Triangle> triangles_in_box(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo,
                                       const Vec3& hi, double eps, int& faces_reached) {
  std::vector<Triangle> out;
  faces_reached = 0;
  for (int k : mesh_triangles_near_box(mesh, mesh_pose, lo, hi)) {
    const auto& v = mesh.triangles[k];
    const Triangle t{mesh_pose.apply(mesh.vertices[v[0]]), mesh_pose.apply(mesh.vertices[v[1]]),
                     mesh_pose.apply(mesh.vertices[v[2]])};
    const int reached = box_faces_reached(t, lo, hi, eps);
    if (reached < 0) continue;
    faces_reached |= reached;
    out.push_back(t);
  }
  return out;
}

// Can no point of solid ∩ box lie inside the plane? min over it of n·x > d, bounded below by the solid's and the box's.
bool clear_of(const Plane& pl, const ClippableSolid& solid, const Vec3& lo, const Vec3& hi) {
  const double box_least = pl.n.cwiseMax(Vec3::Zero()).dot(lo) + pl.n.cwiseMin(Vec3::Zero()).dot(hi);
  return std::max(-solid.support(-pl.n), box_least) > pl.d;
}

// Does the prism of triangle t (swept along −d, d a unit axis) miss the ball (c, r)? Across d: the ball's least
// height over the triangle's shadow is at the shadow's point nearest c, where the ball's lower surface is lowest; when
// the triangle's highest vertex is below that, so is its prism. Exact shadows, conservative heights.
bool prism_below_ball(const Triangle& t, const Vec3& d, const Vec3& c, double r) {
  int k;
  d.cwiseAbs().maxCoeff(&k);
  const int i = (k + 1) % 3, j = (k + 2) % 3;
  const Eigen::Vector2d p(c[i], c[j]);
  std::array<Eigen::Vector2d, 3> v;
  for (int e = 0; e < 3; ++e) v[e] = Eigen::Vector2d(t[e][i], t[e][j]);
  // The distance from p to the shadow: 0 inside it, else to its nearest edge.
  const double area = (v[1] - v[0]).x() * (v[2] - v[0]).y() - (v[1] - v[0]).y() * (v[2] - v[0]).x();
  bool inside = true;
  double rho2 = 1e300;
  for (int e = 0; e < 3; ++e) {
    const Eigen::Vector2d a = v[e], b = v[(e + 1) % 3], ab = b - a;
    const double side = ab.x() * (p - a).y() - ab.y() * (p - a).x();
    if (side * area < 0) inside = false;
    const double s = std::clamp(ab.dot(p - a) / std::max(ab.squaredNorm(), 1e-300), 0.0, 1.0);
    rho2 = std::min(rho2, (a + s * ab - p).squaredNorm());
  }
  if (inside) rho2 = 0;
  if (rho2 >= r * r) return true;
  const double top = std::max({d.dot(t[0]), d.dot(t[1]), d.dot(t[2])});
  return top <= d.dot(c) - std::sqrt(r * r - rho2);
}

}  // namespace

RawMoments mesh_prism_moments(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo, const Vec3& hi,
                              const std::vector<Plane>& planes, const ClippableSolid& solid) {
  const double eps = 1e-12 * (mesh.hi - mesh.lo).norm();
  // The solid is clipped by the box's faces that cut it and by every plane: prisms add only their four.
  std::vector<Plane> base = planes;
  for (int k = 0; k < 3; ++k) {
    if (solid.support(Vec3::Unit(k)) > hi[k]) base.push_back({Vec3::Unit(k), hi[k]});
    if (solid.support(-Vec3::Unit(k)) > -lo[k]) base.push_back({-Vec3::Unit(k), -lo[k]});
  }
  int reached = 0;
  std::vector<Triangle> tris = triangles_in_box(mesh, mesh_pose, lo, hi, eps, reached);
  // The ray's direction: the axis nearest the mesh's outward normal at the point closest to the solid's centre, so
  // that prisms reach the solid mostly where it is in the mesh.
  Vec3 centre = solid.ball_centre, half;
  double radius = solid.ball_radius;
  if (!(radius > 0)) {
    for (int k = 0; k < 3; ++k) {
      centre[k] = 0.5 * (solid.support(Vec3::Unit(k)) - solid.support(-Vec3::Unit(k)));
      half[k] = 0.5 * (solid.support(Vec3::Unit(k)) + solid.support(-Vec3::Unit(k)));
    }
    radius = half.norm();
  }
  const Vec3 toward = mesh_pose.rotation * mesh_closest(mesh, mesh_pose.apply_inverse(centre)).gradient;
  // The rays run along that axis to the box's face. Where a triangle reaches that face, the box is extended past the
  // mesh's bounds there: the face beyond the mesh is outside it.
  int k;
  toward.cwiseAbs().maxCoeff(&k);
  const int face = toward[k] >= 0 ? 2 * k : 2 * k + 1;
  bool top_inside = false;
  if (!(reached & (1 << face))) {
    // No triangle reaches the face: it lies wholly inside the mesh or wholly outside.
    Vec3 x = 0.5 * (lo + hi);
    x[k] = face % 2 == 0 ? hi[k] : lo[k];
    top_inside = mesh_closest(mesh, mesh_pose.apply_inverse(x)).distance < 0;
  } else {
    Vec3 mlo = Vec3::Constant(1e300), mhi = Vec3::Constant(-1e300);
    for (int c = 0; c < 8; ++c) {
      const Vec3 corner((c & 1) ? mesh.hi.x() : mesh.lo.x(), (c & 2) ? mesh.hi.y() : mesh.lo.y(),
                        (c & 4) ? mesh.hi.z() : mesh.lo.z());
      const Vec3 w = mesh_pose.apply(corner);
      mlo = mlo.cwiseMin(w), mhi = mhi.cwiseMax(w);
    }
    Vec3 elo = lo, ehi = hi;
    const double margin = 1e-6 * (mhi - mlo).norm();
    if (face % 2 == 0) ehi[k] = std::max(hi[k], mhi[k] + margin);
    else elo[k] = std::min(lo[k], mlo[k] - margin);
    tris = triangles_in_box(mesh, mesh_pose, elo, ehi, eps, reached);
  }
  const Vec3 d = (face % 2 == 0 ? 1.0 : -1.0) * Vec3::Unit(face / 2);

  RawMoments sum;
  auto add = [&](const RawMoments& m, double sign) {
    sum.m0 += sign * m.m0, sum.m1 += sign * m.m1, sum.m2 += sign * m.m2;
  };
  if (top_inside) add(solid.clipped(base), 1.0);  // every ray starts inside: +1 on the whole box
  std::vector<Plane> clip = base;
  const double far = d.dot(d.sum() > 0 ? lo : hi);  // the box's least height along d
  std::vector<Vec3> hull(6);
  for (const Triangle& t : tris) {
    const Vec3 n = (t[1] - t[0]).cross(t[2] - t[0]);
    const double along = n.dot(d);
    if (!(std::abs(along) > 1e-12 * n.norm())) continue;  // parallel to the rays: a prism of no volume
    const double sign = along > 0 ? 1.0 : -1.0;  // the ray leaves the mesh through t: +1; enters: −1
    // The prism: below t's plane (against d) and inside the planes through its edges along d.
    std::array<Plane, 4> prism;
    const Vec3 u = sign * n.normalized();
    prism[0] = {u, u.dot(t[0])};
    for (int e = 0; e < 3; ++e) {
      const Vec3 &p = t[e], &q = t[(e + 1) % 3], &r = t[(e + 2) % 3];
      Vec3 m = (q - p).cross(d).normalized();
      if (m.dot(r - p) > 0) m = -m;
      prism[e + 1] = {m, m.dot(p)};
    }
    bool clear = prism_below_ball(t, d, centre, radius);
    for (const Plane& pl : prism) clear = clear || clear_of(pl, solid, lo, hi);
    if (clear) continue;
    // Planes one at a time pass most prisms under a ring contact whose clip is empty (a capsule's: 115 of 118, each
    // a slicing): a plane found by GJK between the prism, cut at the box's far face, and the solid skips them.
    if (solid.support_point) {
      for (int e = 0; e < 3; ++e) hull[e] = t[e], hull[e + 3] = t[e] - (d.dot(t[e]) - far) * d;
      if (polytope_apart(hull, solid.support, solid.support_point)) continue;
    }
    clip.resize(base.size());
    clip.insert(clip.end(), prism.begin(), prism.end());
    add(solid.clipped(clip), sign);
  }
  return sum;
}

}  // namespace vcsim::geo
