#include "geometry/mesh.h"

#include <openvdb/tools/Interpolation.h>
#include <openvdb/tools/MeshToVolume.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "geometry/convex_mesh.h"
#include "geometry/located_error.h"

namespace vcsim::geo {
namespace {

std::string lower_extension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// Welds STL corners that are bitwise equal (STL repeats vertices per facet).
struct Welder {
  std::map<std::array<double, 3>, int> index;
  TriangleMesh* mesh;
  int add(const Vec3& p) {
    const std::array<double, 3> key{p.x(), p.y(), p.z()};
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    const int id = static_cast<int>(mesh->vertices.size());
    mesh->vertices.push_back(p);
    index.emplace(key, id);
    return id;
  }
};

void read_obj(std::istream& in, TriangleMesh& mesh, const std::string& path, const SourceLocation& where) {
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "v") {
      double x, y, z;
      if (!(ls >> x >> y >> z))
        throw GeometryError(where, "mesh '" + path + "' line " + std::to_string(line_no) + ": expected 'v x y z'");
      mesh.vertices.emplace_back(x, y, z);
    } else if (tag == "f") {
      std::vector<int> ids;
      std::string tok;
      while (ls >> tok) {
        // "i", "i/t", "i/t/n", "i//n". Checked parse: std::stoi threw std::invalid_argument on "f2" (fuzzing,
        // issue 8, tests/fuzz/crashes/mesh-64333ae8de823356).
        const std::string num = tok.substr(0, tok.find('/'));
        char* end = nullptr;
        errno = 0;
        const long k = std::strtol(num.c_str(), &end, 10);
        if (num.empty() || *end != '\0' || errno == ERANGE)
          throw GeometryError(where, "mesh '" + path + "' line " + std::to_string(line_no) +
                                         ": expected vertex indices in 'f' records; got '" + tok + "'");
        const long n = static_cast<long>(mesh.vertices.size());
        const long id = k > 0 ? k - 1 : n + k;  // negative indices count from the end
        if (id < 0 || id >= n)
          throw GeometryError(where, "mesh '" + path + "' line " + std::to_string(line_no) +
                                         ": face refers to a vertex that does not exist");
        ids.push_back(static_cast<int>(id));
      }
      if (ids.size() < 3)
        throw GeometryError(where, "mesh '" + path + "' line " + std::to_string(line_no) +
                                       ": expected a face with at least 3 vertices");
      for (size_t k = 1; k + 1 < ids.size(); ++k) mesh.triangles.push_back({ids[0], ids[k], ids[k + 1]});
    }
  }
}

void read_stl(const std::string& bytes, TriangleMesh& mesh, const std::string& path, const SourceLocation& where) {
  Welder weld{{}, &mesh};
  // Binary STL: 80-byte header, uint32 count, 50 bytes per facet. Some binary files start with
  // "solid" too, so decide by the size first.
  if (bytes.size() >= 84) {
    std::uint32_t n = 0;
    std::memcpy(&n, bytes.data() + 80, 4);
    if (bytes.size() == 84 + 50ull * n) {
      for (std::uint32_t f = 0; f < n; ++f) {
        const char* rec = bytes.data() + 84 + 50ull * f;
        int ids[3];
        for (int k = 0; k < 3; ++k) {
          float xyz[3];
          std::memcpy(xyz, rec + 12 + 12 * k, 12);
          ids[k] = weld.add(Vec3(xyz[0], xyz[1], xyz[2]));
        }
        mesh.triangles.push_back({ids[0], ids[1], ids[2]});
      }
      return;
    }
  }
  std::istringstream in(bytes);
  std::string tok;
  std::vector<int> facet;
  while (in >> tok) {
    if (tok == "vertex") {
      double x, y, z;
      if (!(in >> x >> y >> z)) throw GeometryError(where, "mesh '" + path + "': expected 'vertex x y z'");
      facet.push_back(weld.add(Vec3(x, y, z)));
    } else if (tok == "endloop") {
      if (facet.size() < 3) throw GeometryError(where, "mesh '" + path + "': expected 3 vertices per facet");
      for (size_t k = 1; k + 1 < facet.size(); ++k) mesh.triangles.push_back({facet[0], facet[k], facet[k + 1]});
      facet.clear();
    }
  }
}

// A BVH over the triangles: median split of the centroids along the longest axis, leaves of <= 4 triangles.
void build_bvh(MeshLevelSet& m) {
  const int n = static_cast<int>(m.triangles.size());
  std::vector<Vec3> centroid(n), lo(n), hi(n);
  for (int k = 0; k < n; ++k) {
    const auto& t = m.triangles[k];
    const Vec3 &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]];
    lo[k] = a.cwiseMin(b).cwiseMin(c);
    hi[k] = a.cwiseMax(b).cwiseMax(c);
    centroid[k] = (a + b + c) / 3;
  }
  m.bvh_order.resize(n);
  for (int k = 0; k < n; ++k) m.bvh_order[k] = k;
  m.bvh.clear();
  m.bvh.reserve(2 * n / 4 + 2);
  struct Job {
    int first, count, parent;  // parent: the node whose `right` this job fills (-1: none)
  };
  std::vector<Job> jobs{{0, n, -1}};
  while (!jobs.empty()) {
    const Job job = jobs.back();
    jobs.pop_back();
    const int at = static_cast<int>(m.bvh.size());
    if (job.parent >= 0) m.bvh[job.parent].right = at;
    MeshBvhNode node;
    node.lo = Vec3::Constant(1e300);
    node.hi = Vec3::Constant(-1e300);
    Vec3 clo = node.lo, chi = node.hi;
    for (int k = job.first; k < job.first + job.count; ++k) {
      const int t = m.bvh_order[k];
      node.lo = node.lo.cwiseMin(lo[t]);
      node.hi = node.hi.cwiseMax(hi[t]);
      clo = clo.cwiseMin(centroid[t]);
      chi = chi.cwiseMax(centroid[t]);
    }
    if (job.count <= 4) {
      node.first = job.first;
      node.count = job.count;
      m.bvh.push_back(node);
      continue;
    }
    m.bvh.push_back(node);
    int axis;
    (chi - clo).maxCoeff(&axis);
    const int half = job.count / 2;
    auto begin = m.bvh_order.begin() + job.first;
    std::nth_element(begin, begin + half, begin + job.count, [&](int a, int b) {
      return centroid[a][axis] < centroid[b][axis] || (centroid[a][axis] == centroid[b][axis] && a < b);
    });
    // Left child next (at + 1): pushed last so it is built first; the right child fills node.right.
    jobs.push_back({job.first + half, job.count - half, at});
    jobs.push_back({job.first, half, -1});
  }
  // Tetrahedron sums, children before parents (children have larger indices).
  for (int k = static_cast<int>(m.bvh.size()) - 1; k >= 0; --k) {
    MeshBvhNode& node = m.bvh[k];
    if (node.count > 0) {
      for (int i = node.first; i < node.first + node.count; ++i) {
        const auto& t = m.triangles[m.bvh_order[i]];
        const Vec3 &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]];
        const double V = a.dot(b.cross(c)) / 6;
        const Vec3 sum = a + b + c;
        node.m0 += V;
        node.m1 += V / 4 * sum;
        node.m2 += V / 20 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
      }
    } else {
      const MeshBvhNode &l = m.bvh[k + 1], &r = m.bvh[node.right];
      node.m0 = l.m0 + r.m0;
      node.m1 = l.m1 + r.m1;
      node.m2 = l.m2 + r.m2;
    }
  }
}

void build_topology(MeshLevelSet& m) {
  MeshTopology& t = m.topology;
  const int nv = static_cast<int>(m.vertices.size());
  t.vertex_triangle_offsets.assign(nv + 1, 0);
  for (const auto& tri : m.triangles)
    for (int v : tri) ++t.vertex_triangle_offsets[v + 1];
  for (int v = 0; v < nv; ++v) t.vertex_triangle_offsets[v + 1] += t.vertex_triangle_offsets[v];
  t.vertex_triangles.resize(t.vertex_triangle_offsets[nv]);
  std::vector<int> fill(t.vertex_triangle_offsets.begin(), t.vertex_triangle_offsets.end() - 1);
  for (int k = 0; k < static_cast<int>(m.triangles.size()); ++k)
    for (int v : m.triangles[k]) t.vertex_triangles[fill[v]++] = k;
  t.component.assign(nv, -1);
  for (int seed = 0; seed < nv; ++seed) {
    if (t.component[seed] >= 0 || t.vertex_triangle_offsets[seed] == t.vertex_triangle_offsets[seed + 1]) continue;
    const int id = static_cast<int>(t.component_seed.size());
    t.component_seed.push_back(seed);
    Vec3 lo = m.vertices[seed], hi = lo;
    std::vector<int> stack{seed};
    t.component[seed] = id;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      lo = lo.cwiseMin(m.vertices[v]);
      hi = hi.cwiseMax(m.vertices[v]);
      for (int i = t.vertex_triangle_offsets[v]; i < t.vertex_triangle_offsets[v + 1]; ++i)
        for (int w : m.triangles[t.vertex_triangles[i]])
          if (t.component[w] < 0) t.component[w] = id, stack.push_back(w);
    }
    t.component_lo.push_back(lo);
    t.component_hi.push_back(hi);
  }
}

}  // namespace

TriangleMesh read_mesh(const std::string& path, const SourceLocation& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GeometryError(where, "a readable mesh file (OBJ or STL), but '" + path + "' cannot be opened");
  TriangleMesh mesh;
  const std::string ext = lower_extension(path);
  if (ext == "obj") {
    read_obj(in, mesh, path, where);
  } else if (ext == "stl") {
    std::stringstream ss;
    ss << in.rdbuf();
    read_stl(ss.str(), mesh, path, where);
  } else {
    throw GeometryError(where, "a mesh file ending in .obj or .stl, got '" + path + "'");
  }
  if (mesh.triangles.empty()) throw GeometryError(where, "a mesh with at least one triangle in '" + path + "'");
  return mesh;
}

namespace {

std::string point_text(const Vec3& p) {
  std::ostringstream o;
  o << "(" << p.x() << ", " << p.y() << ", " << p.z() << ")";
  return o.str();
}

// Does segment p–q cross the triangle's interior (strictly: touching at an edge or a vertex does not count)?
bool segment_crosses_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a);
  const double dp = n.dot(p - a), dq = n.dot(q - a);
  if (!((dp > 0 && dq < 0) || (dp < 0 && dq > 0))) return false;
  const Vec3 x = p + (q - p) * (dp / (dp - dq));
  const double u = n.dot((b - a).cross(x - a)), v = n.dot((c - b).cross(x - b)), w = n.dot((a - c).cross(x - c));
  return (u > 0 && v > 0 && w > 0) || (u < 0 && v < 0 && w < 0);
}

bool triangles_cross(const Vec3* s, const Vec3* t) {
  for (int k = 0; k < 3; ++k)
    if (segment_crosses_triangle(s[k], s[(k + 1) % 3], t[0], t[1], t[2]) ||
        segment_crosses_triangle(t[k], t[(k + 1) % 3], s[0], s[1], s[2]))
      return true;
  return false;
}

}  // namespace

void check_closed(const TriangleMesh& mesh, const std::string& path, const SourceLocation& where) {
  const auto& V = mesh.vertices;
  const auto& T = mesh.triangles;
  Vec3 lo = V[0], hi = V[0];
  for (const Vec3& p : V) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  const double extent = (hi - lo).maxCoeff();
  // Degenerate triangles: a repeated vertex, or an area below 1e-12 of the extent squared (rounding of a flat one).
  for (size_t k = 0; k < T.size(); ++k) {
    const auto& t = T[k];
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2] ||
        !((V[t[1]] - V[t[0]]).cross(V[t[2]] - V[t[0]]).norm() > 2e-12 * extent * extent))
      throw GeometryError(where, "a mesh of triangles with non-zero area, but in '" + path + "' triangle " +
                                     std::to_string(k) + " (vertices " + std::to_string(t[0]) + ", " +
                                     std::to_string(t[1]) + ", " + std::to_string(t[2]) + ") has zero area");
  }
  // Edges: in a closed, consistently oriented 2-manifold every edge (a, b) is run once in each direction.
  std::map<std::pair<int, int>, std::vector<int>> uses;  // undirected edge -> triangles
  std::map<std::pair<int, int>, int> directed;
  for (size_t k = 0; k < T.size(); ++k)
    for (int e = 0; e < 3; ++e) {
      const int a = T[k][e], b = T[k][(e + 1) % 3];
      uses[{std::min(a, b), std::max(a, b)}].push_back(static_cast<int>(k));
      const auto [it, fresh] = directed.emplace(std::make_pair(a, b), static_cast<int>(k));
      if (!fresh && uses[{std::min(a, b), std::max(a, b)}].size() <= 2)
        throw GeometryError(where, "a consistently oriented mesh (each edge run once in each direction), but in '" +
                                       path + "' triangles " + std::to_string(it->second) + " and " +
                                       std::to_string(k) + " both run the edge from vertex " + std::to_string(a) +
                                       " to vertex " + std::to_string(b) + ": one of them is flipped");
    }
  for (const auto& [edge, tris] : uses)
    if (tris.size() != 2) {
      std::ostringstream msg;
      msg << "a closed mesh (every edge shared by exactly two triangles), but in '" << path << "' the edge "
          << point_text(V[edge.first]) << "-" << point_text(V[edge.second]) << " (vertices " << edge.first << " and "
          << edge.second << ") is used by " << tris.size() << " triangle" << (tris.size() == 1 ? "" : "s") << " (";
      for (size_t k = 0; k < tris.size(); ++k) msg << (k ? ", " : "") << tris[k];
      msg << (tris.size() == 1 ? "): the mesh is open there" : "): the mesh is not a manifold there");
      throw GeometryError(where, msg.str());
    }
  // Vertices: the triangles around each must form one fan (two cones touching at a vertex do not).
  std::vector<std::vector<int>> around(V.size());
  for (size_t k = 0; k < T.size(); ++k)
    for (int v : T[k]) around[v].push_back(static_cast<int>(k));
  for (size_t v = 0; v < V.size(); ++v) {
    const auto& fan = around[v];
    if (fan.empty()) continue;
    // Walk from the first triangle across the edges at v; every triangle must be reached.
    std::vector<int> seen{fan[0]}, todo{fan[0]};
    while (!todo.empty()) {
      const int k = todo.back();
      todo.pop_back();
      for (int e = 0; e < 3; ++e) {
        const int a = T[k][e], b = T[k][(e + 1) % 3];
        if (a != static_cast<int>(v) && b != static_cast<int>(v)) continue;
        for (int other : uses[{std::min(a, b), std::max(a, b)}])
          if (std::find(seen.begin(), seen.end(), other) == seen.end()) seen.push_back(other), todo.push_back(other);
      }
    }
    if (seen.size() != fan.size())
      throw GeometryError(where, "a manifold mesh (the triangles around each vertex form one fan), but in '" + path +
                                     "' the triangles around vertex " + std::to_string(v) + " " + point_text(V[v]) +
                                     " form separate fans (the surface touches itself there)");
  }
}

void check_not_self_intersecting(const MeshLevelSet& m, const std::string& path, const SourceLocation& where) {
  // Pairs of BVH nodes whose boxes overlap, down to leaf pairs; triangles sharing a vertex are skipped (they meet
  // there by construction).
  std::vector<std::pair<int, int>> stack{{0, 0}};
  auto overlap = [&](const MeshBvhNode& a, const MeshBvhNode& b) {
    return (a.lo.array() <= b.hi.array()).all() && (b.lo.array() <= a.hi.array()).all();
  };
  while (!stack.empty()) {
    const auto [i, j] = stack.back();
    stack.pop_back();
    const MeshBvhNode &a = m.bvh[i], &b = m.bvh[j];
    if (!overlap(a, b)) continue;
    if (a.count > 0 && b.count > 0) {
      for (int x = a.first; x < a.first + a.count; ++x)
        for (int y = (i == j ? x + 1 : b.first); y < b.first + b.count; ++y) {
          const auto &s = m.triangles[m.bvh_order[x]], &t = m.triangles[m.bvh_order[y]];
          bool shared = false;
          for (int p : s)
            for (int q : t) shared = shared || p == q;
          if (shared) continue;
          const Vec3 sv[3] = {m.vertices[s[0]], m.vertices[s[1]], m.vertices[s[2]]};
          const Vec3 tv[3] = {m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]]};
          if (triangles_cross(sv, tv)) {
            const int p = std::min(m.bvh_order[x], m.bvh_order[y]), q = std::max(m.bvh_order[x], m.bvh_order[y]);
            throw GeometryError(where, "a mesh that does not intersect itself, but in '" + path + "' triangles " +
                                           std::to_string(p) + " and " + std::to_string(q) + " cross");
          }
        }
      continue;
    }
    // Descend into the larger (or the only inner) node; a node against itself splits into its children's pairs.
    if (i == j) {
      const int l = i + 1, r = a.right;
      stack.push_back({l, l});
      stack.push_back({r, r});
      stack.push_back({l, r});
    } else if (b.count > 0 || (a.count == 0 && (a.hi - a.lo).norm() >= (b.hi - b.lo).norm())) {
      stack.push_back({i + 1, j});
      stack.push_back({a.right, j});
    } else {
      stack.push_back({i, j + 1});
      stack.push_back({i, b.right});
    }
  }
}

double polyhedron_volume(const TriangleMesh& mesh) {
  double v = 0;
  for (const auto& t : mesh.triangles)
    v += mesh.vertices[t[0]].dot(mesh.vertices[t[1]].cross(mesh.vertices[t[2]]));
  return v / 6.0;
}

std::shared_ptr<const MeshLevelSet> load_mesh_level_set(const std::string& path, double scale,
                                                        const SourceLocation& where) {
  static std::once_flag init;
  std::call_once(init, [] { openvdb::initialize(); });
  TriangleMesh mesh = read_mesh(path, where);
  check_closed(mesh, path, where);
  for (Vec3& p : mesh.vertices) p *= scale;
  auto out = std::make_shared<MeshLevelSet>();
  out->volume = polyhedron_volume(mesh);
  if (out->volume < 0) {
    // Every triangle faces inward (a consistently oriented closed mesh with a negative volume): the file's winding
    // is the other convention. The solid is unambiguous, so it is flipped, with a warning (docs/geometry.md).
    std::cerr << "warning: mesh '" << path << "': its triangles all face inward (negative volume); flipped to face "
                 "outward\n";
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
    out->volume = -out->volume;
  }
  out->vertices = mesh.vertices;
  out->triangles = mesh.triangles;
  build_bvh(*out);
  build_topology(*out);
  check_not_self_intersecting(*out, path, where);
  out->convex = convex_facet_planes(mesh).has_value();
  out->lo = out->hi = mesh.vertices[0];
  for (const Vec3& p : mesh.vertices) out->lo = out->lo.cwiseMin(p), out->hi = out->hi.cwiseMax(p);
  const double extent = (out->hi - out->lo).maxCoeff();
  if (!(extent > 0)) throw GeometryError(where, "a mesh with a non-zero extent in '" + path + "'");
  // Voxel = extent/200: the trilinear surface error is O(voxel² curvature); 3 voxels of exterior
  // band; the interior is filled completely so inside/outside is known everywhere.
  out->voxel = extent / 200.0;
  const float ex_band = 3.0f, in_band = static_cast<float>(extent / out->voxel) + 4.0f;
  out->background = ex_band * out->voxel;
  auto xform = openvdb::math::Transform::createLinearTransform(out->voxel);
  std::vector<openvdb::Vec3s> points;
  points.reserve(mesh.vertices.size());
  for (const Vec3& p : mesh.vertices)
    points.emplace_back(static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()));
  std::vector<openvdb::Vec3I> tris;
  tris.reserve(mesh.triangles.size());
  for (const auto& t : mesh.triangles) tris.emplace_back(t[0], t[1], t[2]);
  std::vector<openvdb::Vec4I> quads;
  // Points in the primitive (world-of-the-grid) frame; meshToVolume maps them to index space.
  out->grid = openvdb::tools::meshToSignedDistanceField<openvdb::FloatGrid>(*xform, points, tris, quads, ex_band,
                                                                            in_band);
  return out;
}

double mesh_distance(const MeshLevelSet& mesh, const Vec3& x) {
  // Far outside the grid's bounding box the background is returned by the sampler anyway; clamp
  // the lookup to avoid int overflow in the index coordinates.
  const Vec3 margin = Vec3::Constant(4 * mesh.background);
  if ((x.array() < (mesh.lo - margin).array()).any() || (x.array() > (mesh.hi + margin).array()).any()) {
    // The distance to the bounding box is a valid lower bound of the distance to the mesh.
    const Vec3 d = (mesh.lo - x).cwiseMax(x - mesh.hi).cwiseMax(0.0);
    return d.norm();
  }
  openvdb::tree::ValueAccessor<const openvdb::FloatTree, false> acc(mesh.grid->tree());
  const openvdb::Vec3d ijk = mesh.grid->transform().worldToIndex(openvdb::Vec3d(x.x(), x.y(), x.z()));
  return openvdb::tools::BoxSampler::sample(acc, ijk);
}

}  // namespace vcsim::geo
