#include "geometry/mesh.h"

#include <openvdb/tools/Interpolation.h>
#include <openvdb/tools/MeshToVolume.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>

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

// OBJ records parsed in place with std::from_chars (a string stream per line took ~1 s per million triangles).
void read_obj(const std::string& text, TriangleMesh& mesh, const std::string& path, const SourceLocation& where) {
  auto fail = [&](int line_no, const std::string& what) {
    throw GeometryError(where, "mesh '" + path + "' line " + std::to_string(line_no) + ": " + what);
  };
  const char* p = text.data();
  const char* const end = p + text.size();
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  std::vector<int> ids;
  for (int line_no = 1; p < end; ++line_no) {
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (!eol) eol = end;
    auto token = [&](const char*& q) {  // the next blank-separated token of the line, [begin, q)
      while (q < eol && blank(*q)) ++q;
      const char* begin = q;
      while (q < eol && !blank(*q)) ++q;
      return std::string_view(begin, q - begin);
    };
    const char* q = p;
    const std::string_view tag = token(q);
    if (tag == "v") {
      double x[3];
      for (double& c : x) {
        std::string_view t = token(q);
        if (!t.empty() && t[0] == '+') t.remove_prefix(1);  // from_chars takes no '+'; the stream did
        const auto [stop, ec] = std::from_chars(t.data(), t.data() + t.size(), c);
        if (t.empty() || ec != std::errc() || stop != t.data() + t.size() || !std::isfinite(c))
          fail(line_no, "expected 'v x y z' with finite numbers");
      }
      mesh.vertices.emplace_back(x[0], x[1], x[2]);
    } else if (tag == "f") {
      ids.clear();
      for (std::string_view tok = token(q); !tok.empty(); tok = token(q)) {
        // "i", "i/t", "i/t/n", "i//n". Checked parse: std::stoi threw std::invalid_argument on "f2" (fuzzing,
        // issue 8, tests/fuzz/crashes/mesh-64333ae8de823356).
        const std::string_view num = tok.substr(0, tok.find('/'));
        long k = 0;
        const auto [stop, ec] = std::from_chars(num.data(), num.data() + num.size(), k);
        if (num.empty() || ec != std::errc() || stop != num.data() + num.size())
          fail(line_no, "expected vertex indices in 'f' records; got '" + std::string(tok) + "'");
        const long n = static_cast<long>(mesh.vertices.size());
        const long id = k > 0 ? k - 1 : n + k;  // negative indices count from the end
        if (id < 0 || id >= n) fail(line_no, "face refers to a vertex that does not exist");
        ids.push_back(static_cast<int>(id));
      }
      if (ids.size() < 3) fail(line_no, "expected a face with at least 3 vertices");
      for (size_t k = 1; k + 1 < ids.size(); ++k) mesh.triangles.push_back({ids[0], ids[k], ids[k + 1]});
    }
    p = eol + 1;
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
  m.bvh.shrink_to_fit();  // ~2n/3 nodes of 168 bytes: the mesh's largest array
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

// MeshFaces, greedy in the triangles' order: a mesh always gives the same faces, whatever the pose.
void build_faces(const MeshLevelSet& m, MeshFaces& out) {
  const MeshTopology& t = m.topology;
  const double flat = 1e-12 * (m.hi - m.lo).norm();
  const auto& tris = m.triangles;
  // The triangle holding the directed edge b → a (across a → b), or −1.
  auto across = [&](int a, int b) {
    for (int i = t.vertex_triangle_offsets[a]; i < t.vertex_triangle_offsets[a + 1]; ++i) {
      const auto& v = tris[t.vertex_triangles[i]];
      for (int e = 0; e < 3; ++e)
        if (v[e] == b && v[(e + 1) % 3] == a) return t.vertex_triangles[i];
    }
    return -1;
  };
  out.face_of.assign(tris.size(), -1);
  out.offsets.assign(1, 0);
  out.vertices.clear();
  out.normals.clear();
  std::vector<int> ids;
  std::vector<Vec3> x;
  for (size_t seed = 0; seed < tris.size(); ++seed) {
    if (out.face_of[seed] >= 0) continue;
    const int face = static_cast<int>(out.normals.size());
    out.face_of[seed] = face;
    ids.assign(tris[seed].begin(), tris[seed].end());
    x = {m.vertices[ids[0]], m.vertices[ids[1]], m.vertices[ids[2]]};
    const Vec3 normal = (x[1] - x[0]).cross(x[2] - x[0]).normalized();
    // Left turn at q (p → q → r) about the normal, relative to the edges' lengths.
    auto turn = [&](const Vec3& p, const Vec3& q, const Vec3& r) {
      return (q - p).cross(r - q).dot(normal) / ((q - p).norm() * (r - q).norm());
    };
    for (size_t e = 0; e < ids.size() && ids.size() < MeshFaces::kMaxVertices;) {
      const size_t n = ids.size(), e1 = (e + 1) % n;
      const int other = across(ids[e], ids[e1]);
      bool merged = false;
      if (other >= 0 && out.face_of[other] < 0) {
        const auto& v = tris[other];
        int k = 0;
        while (v[k] == ids[e] || v[k] == ids[e1]) ++k;
        const Vec3& c = m.vertices[v[k]];
        const Vec3 &a = x[e], &b = x[e1], &before = x[(e + n - 1) % n], &after = x[(e1 + 1) % n];
        const Vec3 other_normal =
            (m.vertices[v[1]] - m.vertices[v[0]]).cross(m.vertices[v[2]] - m.vertices[v[0]]);
        const bool same_side = other_normal.dot(normal) > 0;  // not folded back onto the face
        if (same_side && std::abs(normal.dot(c - a)) <= flat && turn(before, a, c) >= -1e-9 && turn(a, c, b) > 1e-9 &&
            turn(c, b, after) >= -1e-9) {
          ids.insert(ids.begin() + e1, v[k]);
          x.insert(x.begin() + e1, c);
          out.face_of[other] = face;
          merged = true;
        }
      }
      if (!merged) ++e;  // else look again across the new edge a → c
    }
    // Corners on a straight edge add no plane.
    for (size_t i = 0; i < x.size() && x.size() > 3;) {
      const size_t n = x.size();
      if (std::abs(turn(x[(i + n - 1) % n], x[i], x[(i + 1) % n])) <= 1e-9) {
        x.erase(x.begin() + i);
        ids.erase(ids.begin() + i);
      } else {
        ++i;
      }
    }
    out.vertices.insert(out.vertices.end(), ids.begin(), ids.end());
    out.offsets.push_back(static_cast<int>(out.vertices.size()));
    out.normals.push_back(normal);
  }
}

}  // namespace

TriangleMesh read_mesh(const std::string& path, const SourceLocation& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GeometryError(where, "a readable mesh file (OBJ or STL), but '" + path + "' cannot be opened");
  TriangleMesh mesh;
  const std::string ext = lower_extension(path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (ext == "obj") {
    read_obj(bytes.str(), mesh, path, where);
  } else if (ext == "stl") {
    read_stl(bytes.str(), mesh, path, where);
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
  // Edges: in a closed, consistently oriented 2-manifold every edge (a, b) is run once in each direction. The
  // half-edges sorted by their undirected edge put each edge's uses side by side, in triangle order.
  const std::vector<HalfEdge> edges = half_edges_by_edge(mesh);
  auto from = [&](int h) { return T[h / 3][h % 3]; };
  auto to = [&](int h) { return T[h / 3][(h % 3 + 1) % 3]; };
  // First, an edge whose first two uses run the same way (reported at the second use, in the file's order).
  int flipped = -1;
  for (size_t g = 0, end; g < edges.size(); g = end) {
    for (end = g + 1; end < edges.size() && edges[end].key == edges[g].key;) ++end;
    if (end - g >= 2 && from(edges[g].id) == from(edges[g + 1].id) &&
        (flipped < 0 || edges[g + 1].id < edges[flipped + 1].id))
      flipped = static_cast<int>(g);
  }
  if (flipped >= 0) {
    const int h0 = edges[flipped].id, h1 = edges[flipped + 1].id;
    throw GeometryError(where, "a consistently oriented mesh (each edge run once in each direction), but in '" + path +
                                   "' triangles " + std::to_string(h0 / 3) + " and " + std::to_string(h1 / 3) +
                                   " both run the edge from vertex " + std::to_string(from(h1)) + " to vertex " +
                                   std::to_string(to(h1)) + ": one of them is flipped");
  }
  for (size_t g = 0, end; g < edges.size(); g = end) {
    for (end = g + 1; end < edges.size() && edges[end].key == edges[g].key;) ++end;
    if (end - g == 2) continue;
    const int a = std::min(from(edges[g].id), to(edges[g].id)), b = std::max(from(edges[g].id), to(edges[g].id));
    std::ostringstream msg;
    msg << "a closed mesh (every edge shared by exactly two triangles), but in '" << path << "' the edge "
        << point_text(V[a]) << "-" << point_text(V[b]) << " (vertices " << a << " and " << b << ") is used by "
        << end - g << " triangle" << (end - g == 1 ? "" : "s") << " (";
    for (size_t k = g; k < end; ++k) msg << (k > g ? ", " : "") << edges[k].id / 3;
    msg << (end - g == 1 ? "): the mesh is open there" : "): the mesh is not a manifold there");
    throw GeometryError(where, msg.str());
  }
  // Vertices: the triangles around each must form one fan (two cones touching at a vertex do not). Every edge now
  // has its twin, so the fan through a corner is walked across the edges leaving v, and must cover all of v's
  // triangles.
  std::vector<int> twin(3 * T.size());
  for (size_t g = 0; g < edges.size(); g += 2) twin[edges[g].id] = edges[g + 1].id, twin[edges[g + 1].id] = edges[g].id;
  std::vector<int> degree(V.size(), 0);
  std::vector<char> walked(V.size(), 0);
  for (const auto& t : T)
    for (int v : t) ++degree[v];
  for (size_t k = 0; k < T.size(); ++k)
    for (int c = 0; c < 3; ++c) {
      const int v = T[k][c];
      if (walked[v]) continue;
      walked[v] = 1;
      int fan = 0, h = static_cast<int>(3 * k + c);  // the half-edge leaving v in triangle k
      do {
        ++fan;
        const int back = twin[h];                  // runs into v in the neighbour
        h = 3 * (back / 3) + (back % 3 + 1) % 3;   // the neighbour's half-edge leaving v
      } while (h != static_cast<int>(3 * k + c) && fan <= degree[v]);
      if (fan != degree[v])
        throw GeometryError(where, "a manifold mesh (the triangles around each vertex form one fan), but in '" +
                                       path + "' the triangles around vertex " + std::to_string(v) + " " +
                                       point_text(V[v]) + " form separate fans (the surface touches itself there)");
    }
}

std::vector<HalfEdge> half_edges_by_edge(const TriangleMesh& mesh) {
  const std::uint64_t n = mesh.vertices.size();
  std::vector<HalfEdge> edges;
  edges.reserve(3 * mesh.triangles.size());
  for (size_t k = 0; k < mesh.triangles.size(); ++k)
    for (int e = 0; e < 3; ++e) {
      const std::uint64_t a = mesh.triangles[k][e], b = mesh.triangles[k][(e + 1) % 3];
      edges.push_back({std::min(a, b) * n + std::max(a, b), static_cast<int>(3 * k + e)});
    }
  std::sort(edges.begin(), edges.end(),
            [](const HalfEdge& x, const HalfEdge& y) { return x.key < y.key || (x.key == y.key && x.id < y.id); });
  return edges;
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

std::vector<int> mesh_triangles_near_box(const MeshLevelSet& mesh, const Pose& mesh_pose, const Vec3& lo,
                                         const Vec3& hi) {
  const Mat3 R = mesh_pose.rotation.toRotationMatrix();
  const Vec3 centre = R.transpose() * (0.5 * (lo + hi) - mesh_pose.position);
  const Vec3 half = R.transpose().cwiseAbs() * (0.5 * (hi - lo));
  const Vec3 blo = centre - half, bhi = centre + half;
  std::vector<int> out;
  std::vector<int> stack{0};
  while (!stack.empty() && !mesh.bvh.empty()) {
    const int at = stack.back();
    stack.pop_back();
    const MeshBvhNode& node = mesh.bvh[at];
    if ((node.lo.array() > bhi.array()).any() || (node.hi.array() < blo.array()).any()) continue;
    if (node.count == 0) {
      stack.push_back(node.right);
      stack.push_back(at + 1);
      continue;
    }
    for (int i = node.first; i < node.first + node.count; ++i) {
      const auto& t = mesh.triangles[mesh.bvh_order[i]];
      const Vec3 tlo = mesh.vertices[t[0]].cwiseMin(mesh.vertices[t[1]]).cwiseMin(mesh.vertices[t[2]]);
      const Vec3 thi = mesh.vertices[t[0]].cwiseMax(mesh.vertices[t[1]]).cwiseMax(mesh.vertices[t[2]]);
      if ((tlo.array() > bhi.array()).any() || (thi.array() < blo.array()).any()) continue;
      out.push_back(mesh.bvh_order[i]);
    }
  }
  return out;
}

double polyhedron_volume(const TriangleMesh& mesh) {
  double v = 0;
  for (const auto& t : mesh.triangles)
    v += mesh.vertices[t[0]].dot(mesh.vertices[t[1]].cross(mesh.vertices[t[2]]));
  return v / 6.0;
}

namespace {

// Reports each loading stage's wall time on stderr for large meshes, so a user loading a million triangles sees
// where the seconds go.
class LoadStages {
 public:
  using Clock = std::chrono::steady_clock;
  LoadStages(const std::string& path, bool report, Clock::time_point start)
      : path_(path), report_(report), last_(start) {}
  void done(const std::string& stage) {
    const auto now = Clock::now();
    if (report_)
      std::cerr << "mesh '" << path_ << "': " << stage << " in "
                << std::chrono::duration<double>(now - last_).count() << " s" << std::endl;
    last_ = now;
  }

 private:
  std::string path_;
  bool report_;
  Clock::time_point last_;
};

constexpr size_t kReportedTriangles = 200000;

}  // namespace

std::shared_ptr<const MeshLevelSet> load_mesh_level_set(const std::string& path, double scale,
                                                        const SourceLocation& where) {
  const auto start = std::chrono::steady_clock::now();
  TriangleMesh mesh = read_mesh(path, where);
  LoadStages stages(path, mesh.triangles.size() >= kReportedTriangles, start);
  stages.done("read " + std::to_string(mesh.triangles.size()) + " triangles");
  check_closed(mesh, path, where);
  stages.done("checked closed and manifold");
  for (Vec3& p : mesh.vertices) p *= scale;
  auto out = std::make_shared<MeshLevelSet>();
  out->path = path;
  out->volume = polyhedron_volume(mesh);
  if (out->volume < 0) {
    // Every triangle faces inward (a consistently oriented closed mesh with a negative volume): the file's winding
    // is the other convention. The solid is unambiguous, so it is flipped, with a warning (docs/geometry.md).
    std::cerr << "warning: mesh '" << path << "': its triangles all face inward (negative volume); flipped to face "
                 "outward\n";
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
    out->volume = -out->volume;
  }
  out->convex = convex_facet_planes(mesh).has_value();
  stages.done("checked convexity");
  out->vertices = std::move(mesh.vertices);
  out->triangles = std::move(mesh.triangles);
  build_bvh(*out);
  build_topology(*out);
  stages.done("built the hierarchy and topology");
  check_not_self_intersecting(*out, path, where);
  stages.done("checked for self-intersections");
  out->lo = out->hi = out->vertices[0];
  for (const Vec3& p : out->vertices) out->lo = out->lo.cwiseMin(p), out->hi = out->hi.cwiseMax(p);
  const double extent = (out->hi - out->lo).maxCoeff();
  if (!(extent > 0)) throw GeometryError(where, "a mesh with a non-zero extent in '" + path + "'");
  // Voxel = extent/200: the trilinear surface error is O(voxel² curvature); 3 voxels of exterior band.
  out->voxel = extent / 200.0;
  out->background = 3 * out->voxel;
  return out;
}

const MeshFaces& MeshLevelSet::faces() const {
  std::call_once(faces_once_, [this] { build_faces(*this, faces_); });
  return faces_;
}

const openvdb::FloatGrid& MeshLevelSet::level_set() const {
  // Isolated: the build's own TBB loops must not pick up an outer query task that would wait on this same flag.
  std::call_once(level_set_once_, [this] { tbb::this_task_arena::isolate([this] {
    static std::once_flag init;
    std::call_once(init, [] { openvdb::initialize(); });
    const auto start = std::chrono::steady_clock::now();
    // The interior is filled completely so inside/outside is known everywhere.
    const float ex_band = static_cast<float>(background / voxel);
    const float in_band = static_cast<float>((hi - lo).maxCoeff() / voxel) + 4.0f;
    auto xform = openvdb::math::Transform::createLinearTransform(voxel);
    std::vector<openvdb::Vec3s> points;
    points.reserve(vertices.size());
    for (const Vec3& p : vertices)
      points.emplace_back(static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()));
    std::vector<openvdb::Vec3I> tris;
    tris.reserve(triangles.size());
    for (const auto& t : triangles) tris.emplace_back(t[0], t[1], t[2]);
    std::vector<openvdb::Vec4I> quads;
    // Points in the primitive (world-of-the-grid) frame; meshToVolume maps them to index space.
    level_set_ = openvdb::tools::meshToSignedDistanceField<openvdb::FloatGrid>(*xform, points, tris, quads, ex_band,
                                                                               in_band);
    level_set_ready_ = true;
    LoadStages(path, triangles.size() >= kReportedTriangles, start)
        .done("built the signed-distance grid that the column engine reads (first mesh-against-curved query)");
  }); });
  return *level_set_;
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
  const openvdb::FloatGrid& grid = mesh.level_set();
  openvdb::tree::ValueAccessor<const openvdb::FloatTree, false> acc(grid.tree());
  const openvdb::Vec3d ijk = grid.transform().worldToIndex(openvdb::Vec3d(x.x(), x.y(), x.z()));
  return openvdb::tools::BoxSampler::sample(acc, ijk);
}

}  // namespace vcsim::geo
