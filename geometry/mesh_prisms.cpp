// A solid against a closed mesh as a signed sum of prisms (see mesh_prisms.h).
#include "geometry/mesh_prisms.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "geometry/hulls_apart.h"
#include "geometry/mesh_closest.h"

namespace vcsim::geo {
namespace {

// A triangle of the mesh in the query frame.
using Triangle = std::array<Vec3, 3>;

// Triangles of the mesh in the query frame, with their vertices' indices in the mesh.
struct MeshTriangles {
  std::vector<Triangle> x;
  std::vector<std::array<int, 3>> ids;
};

// A convex, planar polygon of the mesh's surface (counter-clockwise about its outward normal): one prism for what
// would be several triangles' prisms.
struct Face {
  std::vector<Vec3> x;
  Vec3 normal;  // outward, unit: the seed triangle's
  double along = 0;  // normal·d
};

// The triangles merged into convex faces across shared edges, where the third vertex lies within `flat` of the face's
// plane and the face stays convex (a tessellated surface of revolution: its quads; a CAD part's flat faces: fans).
// Greedy in the triangles' order, so the same triangles give the same faces. Returns how many of `faces` it filled:
// they are scratch reused across queries (hundreds of triangles a query), and keep their polygons' storage.
size_t merge_coplanar(const MeshTriangles& tris, const Vec3& d, double flat, std::vector<Face>& faces) {
  // Each directed edge a → b of a triangle, keyed a·2³² + b, to find the triangle across it (which runs b → a).
  thread_local std::vector<std::pair<uint64_t, int>> edges;
  thread_local std::vector<char> used;
  thread_local std::vector<int> ids;
  auto key = [](int a, int b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  };
  edges.clear();
  for (size_t i = 0; i < tris.ids.size(); ++i)
    for (int e = 0; e < 3; ++e) edges.push_back({key(tris.ids[i][e], tris.ids[i][(e + 1) % 3]), static_cast<int>(i)});
  std::sort(edges.begin(), edges.end());
  auto across = [&](int a, int b) {  // the triangle holding the directed edge b → a, or −1
    const auto it = std::lower_bound(edges.begin(), edges.end(), std::make_pair(key(b, a), -1));
    return it != edges.end() && it->first == key(b, a) ? it->second : -1;
  };
  used.assign(tris.ids.size(), 0);
  size_t count = 0;
  for (size_t seed = 0; seed < tris.ids.size(); ++seed) {
    if (used[seed]) continue;
    used[seed] = 1;
    const Triangle& t = tris.x[seed];
    if (count == faces.size()) faces.emplace_back();
    Face& f = faces[count++];
    f.normal = (t[1] - t[0]).cross(t[2] - t[0]).normalized();
    f.along = f.normal.dot(d);
    ids.assign(tris.ids[seed].begin(), tris.ids[seed].end());
    f.x.assign(t.begin(), t.end());
    // Left turn at q (p → q → r) about the normal, relative to the edges' lengths.
    auto turn = [&](const Vec3& p, const Vec3& q, const Vec3& r) {
      return (q - p).cross(r - q).dot(f.normal) / ((q - p).norm() * (r - q).norm());
    };
    for (size_t e = 0; e < ids.size();) {
      const size_t n = ids.size(), e1 = (e + 1) % n;
      const int other = across(ids[e], ids[e1]);
      bool merged = false;
      if (other >= 0 && !used[other]) {
        const auto& v = tris.ids[other];
        int k = 0;
        while (v[k] == ids[e] || v[k] == ids[e1]) ++k;
        const Vec3 c = tris.x[other][k];
        const Vec3 &a = f.x[e], &b = f.x[e1], &before = f.x[(e + n - 1) % n], &after = f.x[(e1 + 1) % n];
        const bool same_side = (f.along > 0) == ((tris.x[other][1] - tris.x[other][0])
                                                      .cross(tris.x[other][2] - tris.x[other][0])
                                                      .dot(d) > 0);
        if (same_side && std::abs(f.normal.dot(c - a)) <= flat && turn(before, a, c) >= -1e-9 &&
            turn(a, c, b) > 1e-9 && turn(c, b, after) >= -1e-9) {
          ids.insert(ids.begin() + e1, v[k]);
          f.x.insert(f.x.begin() + e1, c);
          used[other] = 1;
          merged = true;
        }
      }
      if (!merged) ++e;  // else look again across the new edge a → c
    }
    // Vertices on a straight edge add no plane.
    for (size_t i = 0; i < f.x.size() && f.x.size() > 3;) {
      const size_t n = f.x.size();
      if (std::abs(turn(f.x[(i + n - 1) % n], f.x[i], f.x[(i + 1) % n])) <= 1e-9) f.x.erase(f.x.begin() + i);
      else ++i;
    }
  }
  return count;
}

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
  Vec3 mlo, mhi;
  mapped_box_bounds(mesh_pose.rotation.toRotationMatrix(), mesh_pose.position, mesh.lo, mesh.hi, mlo, mhi);
  Vec3 elo = lo, ehi = hi;
  const double margin = 1e-6 * (mhi - mlo).norm();
  if (d[k] > 0) ehi[k] = std::max(hi[k], mhi[k] + margin);
  else elo[k] = std::min(lo[k], mlo[k] - margin);
  thread_local MeshTriangles tris;  // scratch, as the faces are
  tris.x.clear(), tris.ids.clear();
  for (const int t : mesh_triangles_near_box(mesh, mesh_pose, elo, ehi)) {
    const auto& v = mesh.triangles[t];
    tris.x.push_back({mesh_pose.apply(mesh.vertices[v[0]]), mesh_pose.apply(mesh.vertices[v[1]]),
                      mesh_pose.apply(mesh.vertices[v[2]])});
    tris.ids.push_back(v);
  }

  RawMoments sum;
  auto add = [&](const RawMoments& m, double sign) {
    sum.m0 += sign * m.m0, sum.m1 += sign * m.m1, sum.m2 += sign * m.m2;
  };
  std::vector<Plane> clip = base;
  const double far = d.dot(d.sum() > 0 ? lo : hi);  // the box's least height along d
  std::vector<Plane> prism;
  std::vector<Vec3> hull;
  // Coplanar within 1e-12 of the mesh's size (a file's 12 digits): V moves by at most the faces' area in the solid
  // times that, ~1e-13 m.
  thread_local std::vector<Face> faces;
  const size_t count = merge_coplanar(tris, d, 1e-12 * (mesh.hi - mesh.lo).norm(), faces);
  for (size_t i = 0; i < count; ++i) {
    const Face& f = faces[i];
    if (!(std::abs(f.along) > 1e-12)) continue;  // parallel to the rays: a prism of no volume
    const double sign = f.along > 0 ? 1.0 : -1.0;  // the ray leaves the mesh through f: +1; enters: −1
    // The prism: below f's plane (against d) and inside the planes through its edges along d.
    const size_t n = f.x.size();
    const Vec3 u = sign * f.normal, middle = std::accumulate(f.x.begin(), f.x.end(), Vec3(Vec3::Zero())) / n;
    prism.assign(1, Plane{u, u.dot(f.x[0])});
    for (size_t e = 0; e < n; ++e) {
      const Vec3 &p = f.x[e], &q = f.x[(e + 1) % n];
      Vec3 m = (q - p).cross(d).normalized();
      if (m.dot(middle - p) > 0) m = -m;
      prism.push_back({m, m.dot(p)});
    }
    bool clear = prism_below_ball(f.x, d, centre, radius);
    for (const Plane& pl : prism) clear = clear || clear_of(pl, solid, lo, hi);
    if (clear) continue;
    // Planes one at a time pass most prisms under a ring contact whose clip is empty (a capsule's: 115 of 118, each
    // a slicing): a plane found by GJK between the prism, cut at the box's far face, and the solid skips them.
    if (solid.support_point) {
      hull = f.x;
      for (const Vec3& x : f.x) hull.push_back(x - (d.dot(x) - far) * d);
      if (polytope_apart(hull, solid.support, solid.support_point)) continue;
    }
    clip.resize(base.size());
    clip.insert(clip.end(), prism.begin(), prism.end());
    add(solid.clipped(clip), sign);
  }
  return sum;
}

}  // namespace vcsim::geo
