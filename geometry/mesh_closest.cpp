#include "geometry/mesh_closest.h"

#include <cmath>
#include <limits>
#include <vector>

namespace vcsim::geo {
namespace {

// Which feature of a triangle holds the closest point: its face, edge k (from corner k to k + 1) or corner k.
enum class Feature { Face, Edge, Vertex };

struct TriangleClosest {
  Vec3 point;
  Feature feature = Feature::Face;
  int index = 0;  // the edge's or corner's number
};

// The closest point of triangle abc to p, by its Voronoi regions (Ericson, Real-Time Collision Detection, §5.1.5).
TriangleClosest closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {a, Feature::Vertex, 0};
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {b, Feature::Vertex, 1};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return {a + d1 / (d1 - d3) * ab, Feature::Edge, 0};
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {c, Feature::Vertex, 2};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return {a + d2 / (d2 - d6) * ac, Feature::Edge, 2};
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return {b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b), Feature::Edge, 1};
  const double denom = 1 / (va + vb + vc);
  return {a + ab * (vb * denom) + ac * (vc * denom), Feature::Face, 0};
}

Vec3 unit_normal(const MeshLevelSet& m, int t) {
  const auto& v = m.triangles[t];
  return (m.vertices[v[1]] - m.vertices[v[0]]).cross(m.vertices[v[2]] - m.vertices[v[0]]).normalized();
}

// The angle-weighted pseudonormal of the closest feature (not normalised; only its direction matters).
Vec3 pseudonormal(const MeshLevelSet& m, int t, const TriangleClosest& f) {
  if (f.feature == Feature::Face) return unit_normal(m, t);
  const MeshTopology& topo = m.topology;
  const auto& tri = m.triangles[t];
  if (f.feature == Feature::Edge) {  // the two faces of the edge, equally weighted (angle π each)
    const int u = tri[f.index], w = tri[(f.index + 1) % 3];
    Vec3 n = unit_normal(m, t);
    for (int i = topo.vertex_triangle_offsets[u]; i < topo.vertex_triangle_offsets[u + 1]; ++i) {
      const int s = topo.vertex_triangles[i];
      const auto& o = m.triangles[s];
      if (s != t && (o[0] == w || o[1] == w || o[2] == w)) n += unit_normal(m, s);
    }
    return n;
  }
  const int v = tri[f.index];
  Vec3 n = Vec3::Zero();
  for (int i = topo.vertex_triangle_offsets[v]; i < topo.vertex_triangle_offsets[v + 1]; ++i) {
    const int s = topo.vertex_triangles[i];
    const auto& o = m.triangles[s];
    const int k = o[0] == v ? 0 : o[1] == v ? 1 : 2;
    const Vec3 e1 = m.vertices[o[(k + 1) % 3]] - m.vertices[v], e2 = m.vertices[o[(k + 2) % 3]] - m.vertices[v];
    const double angle = std::atan2(e1.cross(e2).norm(), e1.dot(e2));
    n += angle * unit_normal(m, s);
  }
  return n;
}

double box_distance_squared(const MeshBvhNode& n, const Vec3& x) {
  return (n.lo - x).cwiseMax(x - n.hi).cwiseMax(0.0).squaredNorm();
}

}  // namespace

MeshClosest mesh_closest(const MeshLevelSet& m, const Vec3& x) {
  double best = std::numeric_limits<double>::infinity();
  int best_triangle = -1;
  TriangleClosest best_point;
  // Depth first, nearer child first, pruning boxes no nearer than the best so far. Ties keep the first triangle met
  // in this fixed order, so the answer is deterministic.
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    const MeshBvhNode& n = m.bvh[i];
    if (box_distance_squared(n, x) >= best) continue;
    if (n.count > 0) {
      for (int k = n.first; k < n.first + n.count; ++k) {
        const int t = m.bvh_order[k];
        const auto& v = m.triangles[t];
        const TriangleClosest c = closest_on_triangle(x, m.vertices[v[0]], m.vertices[v[1]], m.vertices[v[2]]);
        const double d = (x - c.point).squaredNorm();
        if (d < best) best = d, best_triangle = t, best_point = c;
      }
      continue;
    }
    const int l = i + 1, r = n.right;
    const bool left_first = box_distance_squared(m.bvh[l], x) <= box_distance_squared(m.bvh[r], x);
    stack.push_back(left_first ? r : l);
    stack.push_back(left_first ? l : r);
  }
  MeshClosest out;
  out.point = best_point.point;
  const Vec3 n = pseudonormal(m, best_triangle, best_point);
  const Vec3 away = x - out.point;
  const double dist = away.norm();
  const bool inside = away.dot(n) < 0;
  out.distance = inside ? -dist : dist;
  // On the surface (or closer than rounding can tell) the pseudonormal is the gradient's best value.
  out.gradient = dist > 1e-12 * (m.hi - m.lo).maxCoeff() ? Vec3((inside ? -away : away) / dist) : n.normalized();
  return out;
}

}  // namespace vcsim::geo
