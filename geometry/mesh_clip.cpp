// A closed mesh clipped by planes, by the divergence theorem (see mesh_clip.h).
//
// The mesh's surface is a closed, oriented 2-cycle. Clipping every triangle by a half-space and closing the cut with
// a cap keeps it one: the cap is a fan from a point on the plane over the cut segments, each taken against the
// direction of the clipped triangle's new edge, so it is right for any number of loops, holes included (a
// non-convex mesh), and clipping is linear, so the caps of earlier planes are clipped by later ones like any other
// triangle. The region's moments are then sums of signed tetrahedra from an apex O over the clipped triangles,
// with O a point of the region. With one cutting plane and O on it, the cap adds nothing and is not built, and whole
// BVH nodes inside the plane add their precomputed sums. Only triangles that reach into the most restrictive
// plane's half-space are touched: a bounded mesh meets a half-space only through its surface, so when none
// does the region is empty.
#include "geometry/mesh_clip.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace vcsim::geo {
namespace {

using Tri = std::array<Vec3, 3>;

// The part of triangle t with n·x <= d: returns its polygon's vertex count (0, 3 or 4; points within eps of the
// plane count as inside). When the plane crosses the triangle, *crossed is set and cut receives the cap's edge
// (p_in → p_out: against the polygon's new edge, which runs from where the boundary leaves the half-space to where
// it enters it).
int clip_triangle(const Tri& t, const Plane& pl, double eps, std::array<Vec3, 4>& poly, std::array<Vec3, 2>& cut,
                  bool& crossed) {
  crossed = false;
  double dist[3];
  int inside = 0;
  for (int k = 0; k < 3; ++k) {
    dist[k] = pl.n.dot(t[k]) - pl.d;
    if (std::abs(dist[k]) <= eps) dist[k] = 0;
    inside += dist[k] <= 0;
  }
  if (inside == 0) return 0;
  if (inside == 3) {
    poly = {t[0], t[1], t[2], t[2]};
    return 3;
  }
  int n = 0;
  Vec3 exit_point, entry_point;
  for (int k = 0; k < 3; ++k) {
    const int j = (k + 1) % 3;
    if (dist[k] <= 0) poly[n++] = t[k];
    if ((dist[k] <= 0) != (dist[j] <= 0)) {
      const Vec3 x = t[k] + (t[j] - t[k]) * (dist[k] / (dist[k] - dist[j]));
      poly[n++] = x;
      (dist[k] <= 0 ? exit_point : entry_point) = x;
    }
  }
  cut = {entry_point, exit_point};
  crossed = true;
  return n;
}

// Clips every triangle of `soup` by n·x <= d; the cut segments go to `cut`. eps: an earlier cap lying on an
// identical plane (two facets of one face of a mesh slab) must not be cut along rounding noise.
void clip_soup(std::vector<Tri>& soup, const Plane& pl, std::vector<std::array<Vec3, 2>>* cut, double eps) {
  std::vector<Tri> out;
  out.reserve(soup.size());
  std::array<Vec3, 4> poly;
  std::array<Vec3, 2> seg;
  bool crossed;
  for (const Tri& t : soup) {
    const int n = clip_triangle(t, pl, eps, poly, seg, crossed);
    for (int k = 1; k + 1 < n; ++k) out.push_back({poly[0], poly[k], poly[k + 1]});
    if (crossed && cut) cut->push_back(seg);
  }
  soup.swap(out);
}

// One triangle (coordinates relative to the apex) clipped by n·x <= d, its kept part's tetrahedra added to m and its
// cut segment to `cut` when given. Allocates nothing (the single-plane path's inner loop).
void add_clipped_triangle(const Tri& t, const Plane& pl, RawMoments& m, std::vector<std::array<Vec3, 2>>* cut) {
  std::array<Vec3, 4> poly;
  std::array<Vec3, 2> seg;
  bool crossed;
  const int n = clip_triangle(t, pl, 0, poly, seg, crossed);
  for (int k = 1; k + 1 < n; ++k) add_tetrahedron(poly[0], poly[k], poly[k + 1], m);
  if (crossed && cut) cut->push_back(seg);
}

// The extreme of n·y − d over the box [lo, hi]: the highest (highest = true) or the lowest.
double plane_reach(const Plane& pl, const Vec3& lo, const Vec3& hi, bool highest) {
  double v = 0;
  for (int k = 0; k < 3; ++k) v += (pl.n[k] > 0) == highest ? pl.n[k] * hi[k] : pl.n[k] * lo[k];
  return v - pl.d;
}

// One cutting plane (a body on a floor or a table top): whole BVH nodes inside it add their tetrahedron sums
// (from the mesh frame's origin, so they need no apex of the query's), triangles across it are clipped, and the
// cap is a fan over their cut segments; the cost is the triangles along the waterline, not those under it.
// The moments about `apex`, mesh axes; false when nothing is inside.
bool one_plane_moments(const MeshLevelSet& mesh, const Plane& pl, RawMoments& m, Vec3& apex) {
  std::vector<int> inside_nodes, leaf_triangles;
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int at = stack.back();
    stack.pop_back();
    const MeshBvhNode& node = mesh.bvh[at];
    if (plane_reach(pl, node.lo, node.hi, false) > 0) continue;  // wholly outside
    if (plane_reach(pl, node.lo, node.hi, true) <= 0) {          // wholly inside
      inside_nodes.push_back(at);
    } else if (node.count == 0) {
      stack.push_back(node.right);
      stack.push_back(at + 1);
    } else {
      for (int k = node.first; k < node.first + node.count; ++k) leaf_triangles.push_back(mesh.bvh_order[k]);
    }
  }
  // The apex: on the plane near the region when no whole node is inside (a shallow contact: its moments then keep
  // their digits, and the cap adds nothing); else the mesh frame's origin, which the node sums use (the region is
  // then at least a node across, so the moments about the origin lose little).
  apex = Vec3::Zero();
  if (inside_nodes.empty()) {
    if (leaf_triangles.empty()) return false;
    Vec3 x0 = mesh.vertices[mesh.triangles[leaf_triangles.front()][0]];  // the deepest vertex, projected
    for (int k : leaf_triangles)
      for (int v : mesh.triangles[k])
        if (pl.n.dot(mesh.vertices[v]) < pl.n.dot(x0)) x0 = mesh.vertices[v];
    apex = x0 - pl.n * (pl.n.dot(x0) - pl.d);
  }
  for (int k : inside_nodes) {
    m.m0 += mesh.bvh[k].m0;
    m.m1 += mesh.bvh[k].m1;
    m.m2 += mesh.bvh[k].m2;
  }
  std::vector<std::array<Vec3, 2>> cut;
  const Plane shifted{pl.n, pl.d - pl.n.dot(apex)};
  for (int k : leaf_triangles) {
    const auto& t = mesh.triangles[k];
    add_clipped_triangle(Tri{mesh.vertices[t[0]] - apex, mesh.vertices[t[1]] - apex, mesh.vertices[t[2]] - apex},
                         shifted, m, inside_nodes.empty() ? nullptr : &cut);
  }
  if (!cut.empty()) {  // the cap, seen from the origin (apex = 0 here)
    const Vec3 x0 = cut.front()[0];
    const Vec3 fan = x0 - pl.n * (pl.n.dot(x0) - pl.d);
    for (const auto& seg : cut) add_tetrahedron(fan, seg[0], seg[1], m);
  }
  // Only now: before its cap, a region seen from an origin beyond the plane sums to a negative volume.
  return m.m0 > 0;
}

// Several cutting planes (or none: the whole mesh): the triangles inside the most restrictive plane's side of the
// BVH are clipped by each plane in turn, each cut closed by a cap. The moments about `apex`, mesh axes; false when
// nothing is inside.
bool clipped_mesh_moments(const MeshLevelSet& mesh, std::vector<Plane> cutting, double eps, RawMoments& m,
                          Vec3& apex) {
  std::vector<Tri> soup;
  auto triangle = [&](int k) {
    const auto& t = mesh.triangles[k];
    return Tri{mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]};
  };
  apex = 0.5 * (mesh.lo + mesh.hi);
  if (cutting.empty()) {
    for (size_t k = 0; k < mesh.triangles.size(); ++k) soup.push_back(triangle(static_cast<int>(k)));
  } else {
    // The most restrictive plane first (least of the bounding box inside it): it decides which triangles are
    // touched at all.
    auto inside_share = [&](const Plane& p) {
      return -plane_reach(p, mesh.lo, mesh.hi, false) /
             (plane_reach(p, mesh.lo, mesh.hi, true) - plane_reach(p, mesh.lo, mesh.hi, false));
    };
    std::sort(cutting.begin(), cutting.end(),
              [&](const Plane& a, const Plane& b) { return inside_share(a) < inside_share(b); });
    const Plane& first = cutting.front();
    std::vector<int> stack{0};
    while (!stack.empty()) {
      const MeshBvhNode& node = mesh.bvh[stack.back()];
      const int at = stack.back();
      stack.pop_back();
      // Wholly outside the first plane, by more than the clip's eps: a face lying on the plane within eps is clipped
      // as inside, so its node must not be culled either (a rail's top face under a cut 1 ulp below it).
      if (plane_reach(first, node.lo, node.hi, false) > eps) continue;
      if (node.count > 0) {
        for (int k = node.first; k < node.first + node.count; ++k) soup.push_back(triangle(mesh.bvh_order[k]));
      } else {
        stack.push_back(node.right);
        stack.push_back(at + 1);
      }
    }
    if (soup.empty()) return false;
    std::vector<std::array<Vec3, 2>> cut;
    for (const Plane& pl : cutting) {
      cut.clear();
      clip_soup(soup, pl, &cut, eps);
      if (soup.empty()) return false;
      if (!cut.empty()) {
        // The cap: a fan from a point of the plane near the cut over every cut segment.
        const Vec3 x0 = cut.front()[0];
        const Vec3 fan = x0 - pl.n * (pl.n.dot(x0) - pl.d);
        for (const auto& seg : cut) soup.push_back({fan, seg[0], seg[1]});
      }
    }
    // The apex: a point of the region (every clipped vertex is one), so the tetrahedra stay small and a thin
    // region keeps its digits.
    apex = soup.front()[0];
  }
  double area = 0;
  for (const Tri& t : soup) {
    add_tetrahedron(t[0] - apex, t[1] - apex, t[2] - apex, m);
    area += 0.5 * (t[1] - t[0]).cross(t[2] - t[0]).norm();
  }
  // A region thinner than eps (the distance within which a point counts as on a plane) is the clip's rounding, not
  // an overlap: slivers left where planes meet the mesh outside each other's half-spaces (V ~ 1e-19 m³ with an
  // arbitrary centroid, which would start a contact episode with a random normal).
  return m.m0 > eps * area;
}

}  // namespace

RawMoments mesh_planes_moments(const MeshLevelSet& mesh, const Pose& mesh_pose, const std::vector<Plane>& planes) {
  // Planes in the mesh's frame: n·(R y + t) <= d.
  const Mat3 R = mesh_pose.rotation.toRotationMatrix();
  std::vector<Plane> local;
  local.reserve(planes.size());
  for (const Plane& pl : planes) local.push_back({R.transpose() * pl.n, pl.d - pl.n.dot(mesh_pose.position)});
  // Drop the planes that hold the whole mesh (the far faces of a table); an empty region if one misses it. Planes
  // identical to one already kept (a face given as two facets) are dropped too.
  const double eps = 1e-12 * (mesh.hi - mesh.lo).maxCoeff();
  std::vector<Plane> cutting;
  for (const Plane& pl : local) {
    if (plane_reach(pl, mesh.lo, mesh.hi, false) > 0) return {};  // the whole bounding box is outside
    bool same = false;
    for (const Plane& kept : cutting) same = same || (kept.n.dot(pl.n) > 1 - 1e-14 && std::abs(kept.d - pl.d) <= eps);
    if (!same && plane_reach(pl, mesh.lo, mesh.hi, true) > 0) cutting.push_back(pl);
  }
  RawMoments m;  // about the apex, mesh axes
  Vec3 apex;
  const bool inside = cutting.size() == 1 ? one_plane_moments(mesh, cutting.front(), m, apex)
                                          : clipped_mesh_moments(mesh, cutting, eps, m, apex);
  if (!inside) return {};
  // To the query frame: x = R (apex + z) + t.
  const Vec3 c = R * apex + mesh_pose.position, Rm1 = R * m.m1;
  RawMoments out;
  out.m0 = m.m0;
  out.m1 = Rm1 + m.m0 * c;
  out.m2 = R * m.m2 * R.transpose() + Rm1 * c.transpose() + c * Rm1.transpose() + m.m0 * c * c.transpose();
  return out;
}

}  // namespace vcsim::geo
