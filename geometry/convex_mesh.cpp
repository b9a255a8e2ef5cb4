#include "geometry/convex_mesh.h"

#include <numeric>
#include <utility>

namespace vcsim::geo {

std::optional<std::vector<Plane>> convex_facet_planes(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) return std::nullopt;
  Vec3 lo = mesh.vertices[0], hi = lo;
  for (const Vec3& v : mesh.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  const double slack = 1e-9 * (hi - lo).maxCoeff();
  std::vector<Plane> planes;
  planes.reserve(mesh.triangles.size());
  for (const auto& t : mesh.triangles) {
    const Vec3 &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &c = mesh.vertices[t[2]];
    const Vec3 n = (b - a).cross(c - a);
    if (!(n.norm() > 0)) return std::nullopt;  // degenerate: the loader rejects it anyway
    const Vec3 u = n.normalized();
    planes.push_back({u, u.dot(a)});
  }
  // Each directed edge (a, b) of a closed, consistently oriented mesh has its twin (b, a) in the neighbour.
  const std::vector<HalfEdge> edges = half_edges_by_edge(mesh);
  const auto& T = mesh.triangles;
  std::vector<int> parent(T.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t g = 0; g < edges.size(); g += 2) {
    if (g + 1 >= edges.size() || edges[g + 1].key != edges[g].key ||
        (g + 2 < edges.size() && edges[g + 2].key == edges[g].key))
      return std::nullopt;  // open or not a manifold
    const int h = edges[g].id, w = edges[g + 1].id, k = h / 3, u = w / 3;
    if (T[k][h % 3] == T[u][w % 3]) return std::nullopt;  // both run the same way: inconsistently oriented
    // Each facet's vertex off the shared edge must not rise above the other facet.
    const int off_k = T[k][(h % 3 + 2) % 3], off_u = T[u][(w % 3 + 2) % 3];
    if (planes[k].n.dot(mesh.vertices[off_u]) - planes[k].d > slack ||
        planes[u].n.dot(mesh.vertices[off_k]) - planes[u].d > slack)
      return std::nullopt;
    parent[root(k)] = root(u);
  }
  for (size_t k = 0; k < mesh.triangles.size(); ++k)
    if (root(static_cast<int>(k)) != root(0)) return std::nullopt;  // several pieces
  return planes;
}

std::vector<Plane> convex_mesh_planes_in_box(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo,
                                             const Vec3& hi) {
  std::vector<Plane> out;
  for (int k = 0; k < 3; ++k) {
    out.push_back({Vec3::Unit(k), hi[k]});
    out.push_back({-Vec3::Unit(k), -lo[k]});
  }
  const Mat3 R = mesh_pose.rotation.toRotationMatrix();
  auto facet = [&](int k) {
    const auto& t = mesh.triangles[k];
    const Vec3 &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &c = mesh.vertices[t[2]];
    const Vec3 n = R * (b - a).cross(c - a).normalized(), p = R * a + mesh_pose.position;
    return Plane{n, n.dot(p)};
  };
  const std::vector<int> near = mesh_triangles_near_box(mesh, mesh_pose, lo, hi);
  for (int k : near) out.push_back(facet(k));
  if (near.empty()) {
    // Inside every facet's plane at the box's centre: the box is inside the mesh (no plane needed); else outside.
    const Vec3 x = 0.5 * (lo + hi);
    bool inside = true;
    for (size_t k = 0; k < mesh.triangles.size() && inside; ++k) {
      const Plane pl = facet(static_cast<int>(k));
      inside = pl.n.dot(x) <= pl.d;
    }
    if (!inside) out.push_back({Vec3::UnitZ(), lo.z() - 1});  // misses the box: empty
  }
  return out;
}

}  // namespace vcsim::geo
