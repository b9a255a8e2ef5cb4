#include "geometry/convex_mesh.h"

#include <map>
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
  std::map<std::pair<int, int>, int> owner;
  for (size_t k = 0; k < mesh.triangles.size(); ++k)
    for (int e = 0; e < 3; ++e) owner[{mesh.triangles[k][e], mesh.triangles[k][(e + 1) % 3]}] = static_cast<int>(k);
  std::vector<int> parent(mesh.triangles.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t k = 0; k < mesh.triangles.size(); ++k) {
    const auto& t = mesh.triangles[k];
    for (int e = 0; e < 3; ++e) {
      const auto twin = owner.find({t[(e + 1) % 3], t[e]});
      if (twin == owner.end()) return std::nullopt;  // open or inconsistently oriented
      const auto& u = mesh.triangles[twin->second];
      for (int j = 0; j < 3; ++j)  // the neighbour's vertex off the shared edge must not rise above this facet
        if (u[j] != t[e] && u[j] != t[(e + 1) % 3] &&
            planes[k].n.dot(mesh.vertices[u[j]]) - planes[k].d > slack)
          return std::nullopt;
      parent[root(static_cast<int>(k))] = root(twin->second);
    }
  }
  for (size_t k = 0; k < mesh.triangles.size(); ++k)
    if (root(static_cast<int>(k)) != root(0)) return std::nullopt;  // several pieces
  return planes;
}

}  // namespace vcsim::geo
