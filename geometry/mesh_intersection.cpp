// Two closed meshes intersected exactly: see mesh_intersection.h.
//
// For a triangle t of one mesh, the part inside the other solid is a polygon region R of t's plane. Its boundary,
// oriented counter-clockwise about t's outward normal, is
//  - the parts of t's edges inside the other solid, in t's own edge direction, and
//  - for each face f of the other mesh that t meets, the segment t ∩ f, oriented so that the other solid lies on
//    its left. An edge of t that enters the other solid through f ends that segment (the boundary goes on along
//    the edge); an edge of f that enters t's solid through t starts it.
// A fan from a vertex c of t over these oriented pieces gives R's moments, and the signed tetrahedra (O, c, x, y)
// those of the cone from the origin O over R: their sum over both surfaces is the moments of A ∩ B.
//
// Edges crossed by the other surface know the status (inside or outside) of their ends from the direction of their
// first and last crossings. The status spreads from there across uncrossed edges, so a triangle wholly inside is
// found without a test of its own. A connected piece of surface that no edge of it crosses asks one ray.
#include "geometry/mesh_intersection.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/task_arena.h>

#include "geometry/exact_predicates.h"

namespace vcsim::geo {
namespace {

using exact::Int;
using exact::Point;

std::uint64_t edge_key(int u, int v) {
  return u < v ? (std::uint64_t(u) << 32) | std::uint32_t(v) : (std::uint64_t(v) << 32) | std::uint32_t(u);
}

// A power-of-two grid: snapping and unsnapping are exact scalings.
struct Grid {
  double quantum = 1, inverse = 1;
  // Round half away from zero by truncation (one instruction; std::llround is a library call, a tenth of a query).
  static std::int64_t nearest(double v) { return static_cast<std::int64_t>(v + (v >= 0 ? 0.5 : -0.5)); }
  Point snap(const Vec3& x) const { return {nearest(x.x() * inverse), nearest(x.y() * inverse), nearest(x.z() * inverse)}; }
  Vec3 unsnap(const Point& p) const { return Vec3(double(p.x), double(p.y), double(p.z)) * quantum; }
};

// Per-side scratch of the calling thread (surface_inside): vertex status and triangle marks, valid when their stamp is
// the current query's.
struct Scratch {
  std::vector<std::uint32_t> vertex_stamp, triangle_stamp;
  std::vector<char> inside;
  std::uint32_t epoch = 0;
  void begin(const MeshLevelSet& m) {
    const std::size_t nv = m.vertices.size();
    if (vertex_stamp.size() < nv) vertex_stamp.resize(nv, 0), inside.resize(nv);
    if (triangle_stamp.size() < m.triangles.size()) triangle_stamp.resize(m.triangles.size(), 0);
    if (++epoch == 0x80000000u) {  // the high bit marks "summed whole" (surface_inside): clear and start again
      for (auto* v : {&vertex_stamp, &triangle_stamp}) std::fill(v->begin(), v->end(), 0);
      epoch = 1;
    }
  }
  bool known(int v) const { return vertex_stamp[v] == epoch; }
  bool is_inside(int v) const { return known(v) && inside[v]; }
  void set(int v, bool in) {
    vertex_stamp[v] = epoch;
    inside[v] = in;
  }
};

// Per thread and side: the snapped vertices of one query, each computed once per thread (the values do not depend on
// the thread, so every thread's copy has the same bits). Stamped with the query's number.
struct Cache {
  std::uint64_t query = 0;
  std::vector<std::uint64_t> point_stamp;
  std::vector<Point> points;
  void prepare(const MeshLevelSet& m, std::uint64_t q) {
    if (query == q) return;
    query = q;
    if (point_stamp.size() < m.vertices.size()) point_stamp.resize(m.vertices.size(), 0), points.resize(m.vertices.size());
  }
};

Cache& thread_cache(int side) {
  thread_local Cache cache[2];
  return cache[side];
}

std::atomic<std::uint64_t> g_query_number{0};

// Subtree pairs the work is cut into: many per thread, so that uneven subtrees still balance, few enough that each
// is worth a task. The frontier is found breadth first; a small contact patch leaves few pairs per level, so the
// cut may go deep (bench_mesh_pairs on 2 threads: 16 subtrees at most 4 levels deep, 0.9–1.6×; this, 1.5–2.5×).
constexpr std::size_t kSubtrees = 128;
constexpr int kFrontierLevels = 40;

bool parallel_allowed() {
  return tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) > 1;
}

// One mesh placed in the query frame.
struct Placed {
  const MeshLevelSet* mesh;
  Pose pose;
  Mat3 rotation, abs_rotation;
  Vec3 lo, hi;  // bounds in the query frame
  bool is_b;    // the symbolically translated side
  Placed(const MeshLevelSet& m, const Pose& p, bool b) : mesh(&m), pose(p), is_b(b) {
    rotation = p.rotation.toRotationMatrix();
    abs_rotation = rotation.cwiseAbs();
    box(m.bvh[0].lo, m.bvh[0].hi, lo, hi, 0);
  }
  void box(const Vec3& l, const Vec3& h, Vec3& out_lo, Vec3& out_hi, double pad) const {
    const Vec3 c = rotation * (0.5 * (l + h)) + pose.position;
    const Vec3 e = abs_rotation * (0.5 * (h - l)) + Vec3::Constant(pad);
    out_lo = c - e;
    out_hi = c + e;
  }
  std::uint64_t query = 0;      // this query's number, which stamps the per-thread cache
  Point point(const Grid& g, int v) const {
    Cache& c = thread_cache(is_b);
    c.prepare(*mesh, query);
    if (c.point_stamp[v] != query) {
      c.points[v] = g.snap(pose.apply(mesh->vertices[v]));
      c.point_stamp[v] = query;
    }
    return c.points[v];
  }
};

// Each mesh's frame seen from the other's: x_a = b_to_a x_b + t_b_to_a, and back.
struct RelativePose {
  Mat3 b_to_a, abs_b_to_a, a_to_b, abs_a_to_b;
  Vec3 t_b_to_a, t_a_to_b;
  RelativePose(const Placed& a, const Placed& b) {
    b_to_a = a.rotation.transpose() * b.rotation;
    t_b_to_a = a.rotation.transpose() * (b.pose.position - a.pose.position);
    a_to_b = b_to_a.transpose();
    t_a_to_b = -(a_to_b * t_b_to_a);
    abs_b_to_a = b_to_a.cwiseAbs();
    abs_a_to_b = a_to_b.cwiseAbs();
  }
};

// A's edge p→q (vertex indices ip, iq) against B's edge a→b (ia, ib): the sign of orient(p, q, a, b) under the
// symbolic perturbation, computed in one canonical order so both faces of either edge see the same answer.
int edge_edge(const Point& p, const Point& q, int ip, int iq, const Point& a, const Point& b, int ia, int ib) {
  int s = 1;
  const Point *pp = &p, *qq = &q, *aa = &a, *bb = &b;
  if (ip > iq) std::swap(pp, qq), s = -s;
  if (ia > ib) std::swap(aa, bb), s = -s;
  return s * exact::edge_edge_sign(*pp, *qq, *aa, *bb);
}

struct Triangle {
  std::array<int, 3> v;
  std::array<Point, 3> p;
};

// Where an edge of one mesh passes through a face of the other.
struct Crossing {
  std::uint64_t edge;  // the crossing edge, in canonical order (lower vertex index first)
  int face;            // the other mesh's triangle
  Int num, den;        // parameter along the canonical edge, num/den in [0, 1]
  bool enter;          // the canonical direction enters the other solid here
  Vec3 x;              // the point, query frame
};

// The side of point x (of mesh A when x_is_a, else of B) against the other mesh's triangle f, under the
// perturbation: from doubles when that is certain (most pairs), else exactly.
int side_of(const Point& x, bool x_is_a, const Triangle& f) {
  const Point &a = f.p[0], &b = f.p[1], &c = f.p[2];
  if (const int fast = exact::orient_sign_filtered(a, b, c, x)) return fast;
  const Int value = exact::orient(a, b, c, x);
  return x_is_a ? exact::side_of_a_point(value, a, b, c) : exact::side_of_b_point(value, a, b, c);
}

// The crossing of an edge (canonical u < v, points pu, pv, sides su, sv against f) of one mesh through a triangle f
// of the other, if any. `edge_is_a`: which mesh the edge belongs to (the perturbation moves B).
bool cross(const Point& pu, const Point& pv, int u, int v, int su, int sv, bool edge_is_a, const Triangle& f,
           const Grid& g, Crossing& out) {
  if (su == sv) return false;
  const Point &a = f.p[0], &b = f.p[1], &c = f.p[2];
  int first = 0;
  for (int k = 0; k < 3; ++k) {
    const int k1 = (k + 1) % 3;
    // orient(u, v, f_k, f_k1) for an A edge; for a B edge the even permutation orient(f_k, f_k1, u, v).
    const int s = edge_is_a ? edge_edge(pu, pv, u, v, f.p[k], f.p[k1], f.v[k], f.v[k1])
                            : edge_edge(f.p[k], f.p[k1], f.v[k], f.v[k1], pu, pv, u, v);
    if (k == 0) first = s;
    else if (s != first) return false;
  }
  // The exact parameter, for the order of crossings along the edge.
  const Int ou = exact::orient(a, b, c, pu), ov = exact::orient(a, b, c, pv);
  out.num = ou;
  out.den = ou - ov;
  if (out.den < 0) out.num = -out.num, out.den = -out.den;
  out.enter = su > 0;
  const double t = double(out.num) / double(out.den);
  const Vec3 xu = g.unsnap(pu), xv = g.unsnap(pv);
  out.x = xu + (xv - xu) * t;
  return true;
}

bool crossing_before(const Crossing& a, const Crossing& b) {
  const double ta = double(a.num) / double(a.den), tb = double(b.num) / double(b.den);
  if (std::abs(ta - tb) > 1e-9) return ta < tb;
  if (exact::fraction_less(a.num, a.den, b.num, b.den)) return true;
  if (exact::fraction_less(b.num, b.den, a.num, a.den)) return false;
  // The same parameter exactly: an edge through a vertex or edge of the other mesh, where the perturbation orders
  // the crossings; the face index only keeps the comparison a strict weak order.
  return a.face < b.face;
}

// A segment of a triangle's region boundary, oriented.
struct Piece {
  int triangle, other;  // this mesh's triangle and the other mesh's, which cut it: one segment per such pair
  Vec3 from, to;
};

// Everything one surface needs to sum its part inside the other solid.
struct SurfaceWork {
  std::vector<Crossing> crossings;  // of this mesh's edges through the other's faces
  std::vector<Piece> segments;      // intersection segments, on this mesh's triangles
};

// What one query's walk found, one per thread that ran part of it, in no particular order: surface_inside sorts it
// into a canonical order, so the bits do not depend on which thread found what. Per thread rather than per task:
// buffers of their own cost the small tasks of a shallow contact more in allocations than their work.
struct WalkOutput {
  SurfaceWork a, b;  // on A's surface and on B's
  MeshIntersectionStats st;
  std::vector<std::pair<int, int>> listed;  // leaf pairs met, on a cache rebuild
};
using WalkOutputs = tbb::enumerable_thread_specific<WalkOutput>;

// One side's work from every thread's output, on the calling thread (the half that sorts it next).
SurfaceWork gather(WalkOutputs& found, SurfaceWork WalkOutput::*side) {
  SurfaceWork w;
  for (WalkOutput& o : found) {
    SurfaceWork& part = o.*side;
    if (w.crossings.empty() && w.segments.empty()) {
      w = std::move(part);
      continue;
    }
    w.crossings.insert(w.crossings.end(), part.crossings.begin(), part.crossings.end());
    w.segments.insert(w.segments.end(), part.segments.begin(), part.segments.end());
  }
  return w;
}

Triangle triangle(const Placed& s, const Grid& g, int t) {
  Triangle out;
  out.v = s.mesh->triangles[t];
  for (int k = 0; k < 3; ++k) out.p[k] = s.point(g, out.v[k]);
  return out;
}

bool boxes_meet(const Triangle& a, const Triangle& b) {
  auto lo = [](const Triangle& t, std::int64_t Point::*c) { return std::min({t.p[0].*c, t.p[1].*c, t.p[2].*c}); };
  auto hi = [](const Triangle& t, std::int64_t Point::*c) { return std::max({t.p[0].*c, t.p[1].*c, t.p[2].*c}); };
  for (auto c : {&Point::x, &Point::y, &Point::z})
    if (lo(a, c) > hi(b, c) || lo(b, c) > hi(a, c)) return false;
  return true;
}

// Triangles ta (of A) and tb (of B): their crossings, and the segment ta ∩ tb on each.
void intersect_pair(int ia, const Triangle& ta, int ib, const Triangle& tb, const Grid& g, SurfaceWork& wa,
                    SurfaceWork& wb, MeshIntersectionStats& st) {
  // Each triangle's vertices against the other's plane: all on one side, no crossing (most candidate pairs).
  std::array<std::array<int, 3>, 2> sides;
  for (int k = 0; k < 3; ++k) sides[0][k] = side_of(ta.p[k], true, tb);
  if (sides[0][0] == sides[0][1] && sides[0][1] == sides[0][2]) return;
  for (int k = 0; k < 3; ++k) sides[1][k] = side_of(tb.p[k], false, ta);
  if (sides[1][0] == sides[1][1] && sides[1][1] == sides[1][2]) return;
  Vec3 start, end;
  int starts = 0, ends = 0;
  Crossing c;
  for (int side = 0; side < 2; ++side) {
    const Triangle& t = side == 0 ? ta : tb;
    const Triangle& f = side == 0 ? tb : ta;
    for (int k = 0; k < 3; ++k) {
      const int k1 = (k + 1) % 3;
      const bool forward = t.v[k] < t.v[k1];
      const int u = forward ? k : k1, v = forward ? k1 : k;
      if (!cross(t.p[u], t.p[v], t.v[u], t.v[v], sides[side][u], sides[side][v], side == 0, f, g, c)) continue;
      c.edge = edge_key(t.v[u], t.v[v]);
      c.face = side == 0 ? ib : ia;
      // Entering in the triangle's own edge direction?
      const bool enters = c.enter == forward;
      // On ta's segment: an A edge entering B ends it; a B edge entering A starts it.
      const bool is_start = side == 0 ? !enters : enters;
      (is_start ? start : end) = c.x;
      (is_start ? starts : ends) += 1;
      (side == 0 ? wa : wb).crossings.push_back(c);
    }
  }
  if (starts + ends == 0) return;
  if (starts != 1 || ends != 1) {
    ++st.inconsistent;
    return;
  }
  wa.segments.push_back({ia, ib, start, end});
  wb.segments.push_back({ib, ia, end, start});
}

// Whether the boxes of node i (of A) and node j (of B) can hold meeting triangles at `pad`: each node's box against
// a box around the other's, moved into its frame; both must meet. Two frames cull far more than one shared frame,
// where both boxes grow with their rotation.
bool nodes_meet(const Placed& a, const Placed& b, const RelativePose& rel, int i, int j, double pad) {
  const MeshBvhNode &na = a.mesh->bvh[i], &nb = b.mesh->bvh[j];
  auto meets = [pad](const MeshBvhNode& n, const MeshBvhNode& m, const Mat3& R, const Mat3& abs_R, const Vec3& t) {
    const Vec3 c = R * (0.5 * (m.lo + m.hi)) + t, e = abs_R * (0.5 * (m.hi - m.lo)) + Vec3::Constant(pad);
    return !((c - e).array() > n.hi.array()).any() && !(n.lo.array() > (c + e).array()).any();
  };
  return meets(na, nb, rel.b_to_a, rel.abs_b_to_a, rel.t_b_to_a) &&
         meets(nb, na, rel.a_to_b, rel.abs_a_to_b, rel.t_a_to_b);
}

// Whether node pair (i, j) can hold meeting triangles; if so, and not both leaves, its two children pairs. Which
// node is split depends only on the nodes' own boxes, not on the pose: every walk reaches a leaf pair by one path.
bool split_nodes(const Placed& a, const Placed& b, const RelativePose& rel, int i, int j, double pad,
                 std::array<std::pair<int, int>, 2>& kids, bool& leaves) {
  if (!nodes_meet(a, b, rel, i, j, pad)) return false;
  const MeshBvhNode &na = a.mesh->bvh[i], &nb = b.mesh->bvh[j];
  leaves = na.count > 0 && nb.count > 0;
  if (leaves) return true;
  // Descend into the larger (or the only inner) node.
  if (nb.count > 0 || (na.count == 0 && (na.hi - na.lo).squaredNorm() >= (nb.hi - nb.lo).squaredNorm()))
    kids = {{{i + 1, j}, {na.right, j}}};
  else
    kids = {{{i, j + 1}, {i, nb.right}}};
  return true;
}

// The triangle pairs of leaf pair (i, j) whose bounds meet, intersected.
void intersect_leaves(const Placed& a, const Placed& b, const Grid& g, int i, int j, SurfaceWork& wa, SurfaceWork& wb,
                      MeshIntersectionStats& st) {
  std::array<Triangle, 4> leaf_a, leaf_b;  // BVH leaves hold at most 4 triangles (geometry/mesh.cpp)
  const MeshBvhNode &na = a.mesh->bvh[i], &nb = b.mesh->bvh[j];
  for (int k = 0; k < na.count; ++k) leaf_a[k] = triangle(a, g, a.mesh->bvh_order[na.first + k]);
  for (int k = 0; k < nb.count; ++k) leaf_b[k] = triangle(b, g, b.mesh->bvh_order[nb.first + k]);
  for (int x = 0; x < na.count; ++x)
    for (int y = 0; y < nb.count; ++y) {
      if (!boxes_meet(leaf_a[x], leaf_b[y])) continue;
      ++st.triangle_pairs;
      intersect_pair(a.mesh->bvh_order[na.first + x], leaf_a[x], b.mesh->bvh_order[nb.first + y], leaf_b[y], g, wa,
                     wb, st);
    }
}

// The triangle pairs under node pair `root` whose bounds meet, intersected. The walk culls at `walk_pad` (≥ the
// query's pad 2 quanta); when `listed` is given (a cache rebuild), every leaf pair met at walk_pad is appended to it,
// and only those that meet at the query's pad are intersected, as in a warm query.
void find_pairs(const Placed& a, const Placed& b, const RelativePose& rel, const Grid& g, std::pair<int, int> root,
                double walk_pad, SurfaceWork& wa, SurfaceWork& wb, MeshIntersectionStats& st,
                std::vector<std::pair<int, int>>* listed) {
  const double pad = 2 * g.quantum;
  thread_local std::vector<std::pair<int, int>> stack;  // reused: a task runs to its end on one thread
  stack.assign(1, root);
  std::array<std::pair<int, int>, 2> kids;
  while (!stack.empty()) {
    const auto [i, j] = stack.back();
    stack.pop_back();
    bool leaves = false;
    if (!split_nodes(a, b, rel, i, j, walk_pad, kids, leaves)) continue;
    if (leaves) {
      if (listed) {
        listed->push_back({i, j});
        if (walk_pad != pad && !nodes_meet(a, b, rel, i, j, pad)) continue;
      }
      intersect_leaves(a, b, g, i, j, wa, wb, st);
      continue;
    }
    stack.push_back(kids[1]);
    stack.push_back(kids[0]);
  }
}

// Runs task k of n (each writes only its own slots) in parallel when allowed, isolated: a waiting thread takes no
// other query's task, whose per-thread vertex caches would interleave with this one's.
template <class Task>
void run_tasks(std::size_t n, const Task& task) {
  if (parallel_allowed() && n > 1) {
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t k = r.begin(); k != r.end(); ++k) task(k);
                        },
                        tbb::simple_partitioner());
    });
  } else {
    for (std::size_t k = 0; k < n; ++k) task(k);
  }
}

// All triangle pairs whose bounds meet, intersected. The node-pair tree is cut into a frontier of subtrees whose
// work runs in parallel, each into the output of the thread that runs it. With `list` (a cache rebuild), the walk
// culls at walk_pad and lists the leaf pairs it meets.
void intersect_surfaces(const Placed& a, const Placed& b, const RelativePose& rel, const Grid& g, double walk_pad,
                        bool list, WalkOutputs& found) {
  std::vector<std::pair<int, int>> frontier{{0, 0}}, next;
  std::array<std::pair<int, int>, 2> kids;
  // Until the frontier is large enough, or only leaf pairs are left (a small contact: tested again, they would only
  // come back, a third of the query on two 700-triangle rocks).
  bool split = true;
  for (int level = 0; split && level < kFrontierLevels && frontier.size() < kSubtrees; ++level) {
    next.clear();
    split = false;
    for (const auto& [i, j] : frontier) {
      bool leaves = false;
      if (!split_nodes(a, b, rel, i, j, walk_pad, kids, leaves)) continue;
      if (leaves) next.push_back({i, j});
      else next.insert(next.end(), kids.begin(), kids.end()), split = true;
    }
    frontier.swap(next);
  }
  run_tasks(frontier.size(), [&](std::size_t k) {
    WalkOutput& o = found.local();
    find_pairs(a, b, rel, g, frontier[k], walk_pad, o.a, o.b, o.st, list ? &o.listed : nullptr);
  });
}

// Leaf pairs per task of a warm query: chunks of the list, as many as the frontier's subtrees at most, of at least
// this many pairs (a task costs about as much as a few leaf pairs).
constexpr std::size_t kMinChunk = 16;

// The listed leaf pairs that meet at the query's pad, intersected, in contiguous chunks run in parallel (one on one
// thread), each into the output of the thread that runs it.
void intersect_listed(const Placed& a, const Placed& b, const RelativePose& rel, const Grid& g,
                      const std::vector<std::pair<int, int>>& pairs, WalkOutputs& found) {
  const double pad = 2 * g.quantum;
  const std::size_t chunks =
      parallel_allowed() ? std::max<std::size_t>(1, std::min(kSubtrees, pairs.size() / kMinChunk)) : 1;
  run_tasks(chunks, [&](std::size_t k) {
    WalkOutput& o = found.local();
    const std::size_t begin = pairs.size() * k / chunks, end = pairs.size() * (k + 1) / chunks;
    for (std::size_t p = begin; p < end; ++p) {
      const auto [i, j] = pairs[p];
      if (nodes_meet(a, b, rel, i, j, pad)) intersect_leaves(a, b, g, i, j, o.a, o.b, o.st);
    }
  });
}

// How far (at most) either side of any node-box test can have moved since the cache's pose: B's nodes seen from A's
// frame, and A's from B's; the larger of the two.
//
// Why this suffices (nodes_meet at the current relative pose (R, t), pad p ⇒ at the cache's (R₀, t₀), pad P, when
// moved + p ≤ P). In A's frame, B's node m (centre c_m, half-extents h_m) becomes the box of centre c = R c_m + t and
// half-extents e = |R| h_m + p. Along axis k it meets A's node n iff c_k − e_k ≤ n.hi_k and n.lo_k ≤ c_k + e_k. From
// the cache's pose to the current one, with ρ_k the norm of row k of R − R₀ (ρ_k ≤ ‖R − R₀‖_F):
//  - c_k changes by |((R − R₀) c_m)_k + (t − t₀)_k| ≤ ρ_k |c_m| + |t − t₀|_k (Cauchy–Schwarz on row k);
//  - (|R| h_m)_k by at most Σ_l ||R_kl| − |R₀_kl|| h_m,l ≤ Σ_l |R_kl − R₀_kl| h_m,l ≤ ρ_k |h_m|.
// Every node box lies in the root box: u = |c_m − c_root| and v = h_m (componentwise) are ≥ 0 with u + v ≤ h_root, so
// |u| + |v| ≤ √2 |u + v| ≤ √2 |h_root| and |c_m| + |h_m| ≤ |c_root| + √2 |h_root| =: r. Each side of the test then
// moves by at most max_k (ρ_k r + |t − t₀|_k) ≤ ‖R − R₀‖_F (|c_root| + 2 |h_root|) + |t − t₀| (the bound of the
// issue, looser), and the pad grows by P − p ≥ moved, so the test still holds at the cache's pose and pad. The same
// with A's nodes in B's frame (rotation Rᵀ, translation t_a_to_b). Every node pair on a leaf pair's path (which does
// not depend on the pose, split_nodes) met at the cache's pose and pad, so the build walk listed every leaf pair a
// cold walk reaches now. A cold query examines every triangle pair that truly intersects (the pad, 2 quanta, is far
// above the rounding of snapping and of the box tests), and so does the warm one: the same crossings and segments,
// summed in the same canonical order, give the same bits.
double moved_since(const MeshPairCache& c, const MeshLevelSet& ma, const MeshLevelSet& mb, const RelativePose& rel) {
  const Mat3 dR = rel.b_to_a - c.b_to_a, dRt = dR.transpose();  // rows of dRᵀ: A's nodes seen from B's frame
  auto reach = [](const MeshLevelSet& m) {
    const MeshBvhNode& root = m.bvh[0];
    return (0.5 * (root.lo + root.hi)).norm() + std::sqrt(0.5) * (root.hi - root.lo).norm();  // |c_root| + √2 |h_root|
  };
  const double rb = reach(mb), ra = reach(ma);
  const Vec3 db = (rel.t_b_to_a - c.t_b_to_a).cwiseAbs(), da = (rel.t_a_to_b - c.t_a_to_b).cwiseAbs();
  double moved = 0;
  for (int k = 0; k < 3; ++k)
    moved = std::max({moved, dR.row(k).norm() * rb + db[k], dRt.row(k).norm() * ra + da[k]});
  return moved;
}

// A room for the rounding of nodes_meet and moved_since, both a few ulps of the frames' coordinates: 1e-12 of them
// (ulps are 1.1e-16; the pad is 2 quanta, 2^-38 ≈ 3.6e-12 of the scene's reach, far above either).
double rounding_room(const MeshLevelSet& ma, const MeshLevelSet& mb, const RelativePose& rel) {
  auto size = [](const MeshLevelSet& m) {
    const MeshBvhNode& root = m.bvh[0];
    return root.lo.cwiseAbs().maxCoeff() + root.hi.cwiseAbs().maxCoeff();
  };
  return 1e-12 * (size(ma) + size(mb) + rel.t_b_to_a.norm() + rel.t_a_to_b.norm());
}

bool cache_valid(const MeshPairCache& c, const MeshLevelSet& ma, const MeshLevelSet& mb, const RelativePose& rel,
                 double pad) {
  if (c.mesh_a != &ma || c.mesh_b != &mb) return false;
  return moved_since(c, ma, mb, rel) + pad + rounding_room(ma, mb, rel) <= c.pad;
}

// A mesh's leaf size, estimated from its root box: a surface of ~L² spread over N leaves gives leaves of ~L/√N.
double leaf_size(const MeshLevelSet& m) {
  const double leaves = std::max(1.0, double(m.triangles.size()) / 4);
  return (m.bvh[0].hi - m.bvh[0].lo).norm() / std::sqrt(leaves);
}

// Is vertex v of `s` inside the other mesh `o`? A ray along +x from it, to beyond o's bounds, counted exactly.
bool vertex_inside(const Placed& s, int v, const Placed& o, const Grid& g) {
  const Point p = s.point(g, v);
  const Point far{g.snap(o.hi).x + 2, p.y, p.z};
  if (g.unsnap(p).x() > o.hi.x()) return false;
  // The ray is an edge of s's side with a vertex index of its own (-1 for the far end).
  const bool is_a = !s.is_b;
  int count = 0;
  Crossing c;
  const Vec3 x = g.unsnap(p);
  std::vector<int> stack{0};
  const double pad = 2 * g.quantum;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    const MeshBvhNode& n = o.mesh->bvh[i];
    Vec3 lo, hi;
    o.box(n.lo, n.hi, lo, hi, pad);
    if (hi.x() < x.x() || lo.y() > x.y() || hi.y() < x.y() || lo.z() > x.z() || hi.z() < x.z()) continue;
    if (n.count == 0) {
      stack.push_back(n.right);
      stack.push_back(i + 1);
      continue;
    }
    for (int k = 0; k < n.count; ++k) {
      const Triangle f = triangle(o, g, o.mesh->bvh_order[n.first + k]);
      // Canonical order of the ray's two ends: the far end (-1) first.
      count += cross(far, p, -1, v, side_of(far, is_a, f), side_of(p, is_a, f), is_a, f, g, c);
    }
  }
  return count % 2 == 1;
}

// The moments of the part of s's surface inside the other solid o (one half of ∂(A ∩ B)).
RawMoments surface_inside(const Placed& s, const Placed& o, SurfaceWork& w, const Grid& g,
                          MeshIntersectionStats& st) {
  const MeshLevelSet& m = *s.mesh;
  const MeshTopology& topo = m.topology;
  thread_local Scratch scratch_of_side[2];  // the running thread's: a half may run on any thread
  Scratch& scratch = scratch_of_side[s.is_b];
  scratch.begin(m);
  RawMoments out;
  auto& cr = w.crossings;
  // Each crossing was found once per face of its edge: keep one.
  std::sort(cr.begin(), cr.end(), [](const Crossing& a, const Crossing& b) {
    return a.edge != b.edge ? a.edge < b.edge : a.face < b.face;
  });
  cr.erase(std::unique(cr.begin(), cr.end(),
                       [](const Crossing& a, const Crossing& b) { return a.edge == b.edge && a.face == b.face; }),
           cr.end());
  st.crossings += static_cast<long>(cr.size());
  // Per crossed edge: crossings in order along it, its ends' status, and its parts inside (canonical direction).
  struct EdgeInside {
    std::uint64_t edge;
    Vec3 from, to;
  };
  std::vector<EdgeInside> inside_parts;
  std::vector<std::uint64_t> crossed;
  std::vector<char> seeded(topo.component_seed.size(), 0);
  for (std::size_t i = 0; i < cr.size();) {
    std::size_t j = i;
    while (j < cr.size() && cr[j].edge == cr[i].edge) ++j;
    std::sort(cr.begin() + i, cr.begin() + j, crossing_before);
    const int u = int(cr[i].edge >> 32), v = int(cr[i].edge & 0xffffffffu);
    const Vec3 xu = g.unsnap(s.point(g, u)), xv = g.unsnap(s.point(g, v));
    bool in = !cr[i].enter;
    scratch.set(u, in);
    scratch.set(v, cr[j - 1].enter);
    seeded[topo.component[u]] = 1;
    Vec3 from = xu;
    for (std::size_t k = i; k < j; ++k) {
      if (in) inside_parts.push_back({cr[i].edge, from, cr[k].x});
      from = cr[k].x;
      in = cr[k].enter;
    }
    if (in) inside_parts.push_back({cr[i].edge, from, xv});
    crossed.push_back(cr[i].edge);
    i = j;
  }
  // Pieces of surface no edge of which is crossed: wholly inside or wholly outside, one ray says which.
  for (std::size_t c = 0; c < topo.component_seed.size(); ++c) {
    if (seeded[c]) continue;
    Vec3 lo, hi;
    s.box(topo.component_lo[c], topo.component_hi[c], lo, hi, 0);
    if ((lo.array() > o.hi.array()).any() || (o.lo.array() > hi.array()).any()) continue;
    ++st.ray_tests;
    scratch.set(topo.component_seed[c], vertex_inside(s, topo.component_seed[c], o, g));
  }
  // Triangles with segments are handled piece by piece; mark them.
  // In a canonical order, so the sums do not depend on the order the traversal found the pairs in (a cold query, a
  // warm one, any frontier): the same bits.
  std::sort(w.segments.begin(), w.segments.end(), [](const Piece& a, const Piece& b) {
    return a.triangle != b.triangle ? a.triangle < b.triangle : a.other < b.other;
  });
  for (const Piece& p : w.segments) scratch.triangle_stamp[p.triangle] = scratch.epoch;
  auto is_crossed = [&](int a, int b) { return std::binary_search(crossed.begin(), crossed.end(), edge_key(a, b)); };
  // Spread "inside" across uncrossed edges; untouched triangles reached are wholly inside.
  std::vector<int> stack;
  for (std::size_t i = 0; i < cr.size(); ++i) {
    const int u = int(cr[i].edge >> 32), v = int(cr[i].edge & 0xffffffffu);
    if (scratch.is_inside(u)) stack.push_back(u);
    if (scratch.is_inside(v)) stack.push_back(v);
  }
  for (int seed : topo.component_seed)
    if (scratch.is_inside(seed)) stack.push_back(seed);
  const std::uint32_t touched_stamp = scratch.epoch, summed = scratch.epoch | 0x80000000u;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int i = topo.vertex_triangle_offsets[v]; i < topo.vertex_triangle_offsets[v + 1]; ++i) {
      const int t = topo.vertex_triangles[i];
      const auto& tri = m.triangles[t];
      const bool touched = scratch.triangle_stamp[t] == touched_stamp;
      if (!touched && scratch.triangle_stamp[t] != summed) {
        scratch.triangle_stamp[t] = summed;
        add_tetrahedron(g.unsnap(s.point(g, tri[0])), g.unsnap(s.point(g, tri[1])), g.unsnap(s.point(g, tri[2])), out);
      }
      for (int x : tri) {
        if (x == v || scratch.known(x)) continue;
        if (touched && is_crossed(v, x)) continue;
        scratch.set(x, true);
        stack.push_back(x);
      }
    }
  }
  // Touched triangles: a fan from their first vertex over their boundary pieces.
  for (std::size_t i = 0; i < w.segments.size();) {
    const int t = w.segments[i].triangle;
    const auto& tri = m.triangles[t];
    const Vec3 c = g.unsnap(s.point(g, tri[0]));
    for (; i < w.segments.size() && w.segments[i].triangle == t; ++i)
      add_tetrahedron(c, w.segments[i].from, w.segments[i].to, out);
    for (int k = 0; k < 3; ++k) {
      const int u = tri[k], v = tri[(k + 1) % 3];
      const std::uint64_t key = edge_key(u, v);
      if (std::binary_search(crossed.begin(), crossed.end(), key)) {
        auto lo = std::lower_bound(inside_parts.begin(), inside_parts.end(), key,
                                   [](const EdgeInside& e, std::uint64_t k) { return e.edge < k; });
        for (; lo != inside_parts.end() && lo->edge == key; ++lo)
          u < v ? add_tetrahedron(c, lo->from, lo->to, out) : add_tetrahedron(c, lo->to, lo->from, out);
      } else if (scratch.is_inside(u)) {
        add_tetrahedron(c, g.unsnap(s.point(g, u)), g.unsnap(s.point(g, v)), out);
      }
    }
  }
  return out;
}

}  // namespace

RawMoments mesh_mesh_moments(const MeshLevelSet& mesh_a, const Pose& pose_a, const MeshLevelSet& mesh_b,
                             const Pose& pose_b, MeshIntersectionStats* stats, const MeshPairCache* warm,
                             MeshPairCache* refresh) {
  Placed a(mesh_a, pose_a, false), b(mesh_b, pose_b, true);
  MeshIntersectionStats local;
  MeshIntersectionStats& st = stats ? *stats : local;
  if ((a.lo.array() > b.hi.array()).any() || (b.lo.array() > a.hi.array()).any()) return {};
  // The grid: every coordinate of either mesh below 2^39 quanta (with room for a ray's far end).
  double reach = 0;
  for (const Placed* p : {&a, &b}) reach = std::max({reach, p->lo.cwiseAbs().maxCoeff(), p->hi.cwiseAbs().maxCoeff()});
  Grid g;
  g.quantum = std::ldexp(1.0, std::ilogb(1.5 * reach + 1e-300) + 1 - 39);
  g.inverse = 1 / g.quantum;
  a.query = b.query = ++g_query_number;
  WalkOutputs found;
  const RelativePose rel(a, b);
  const double pad = 2 * g.quantum;
  if (warm && cache_valid(*warm, mesh_a, mesh_b, rel, pad)) {
    ++st.warm;
    st.cached_leaf_pairs += static_cast<long>(warm->leaf_pairs.size());
    intersect_listed(a, b, rel, g, warm->leaf_pairs, found);
  } else if (refresh) {
    // Rebuilt at this pose: the walk at the pad enlarged by δ lists the leaf pairs and intersects those that meet.
    MeshPairCache& c = *refresh;
    c.mesh_a = &mesh_a;
    c.mesh_b = &mesh_b;
    c.b_to_a = rel.b_to_a;
    c.t_b_to_a = rel.t_b_to_a;
    c.t_a_to_b = rel.t_a_to_b;
    c.margin = c.margin_in_leaves * std::min(leaf_size(mesh_a), leaf_size(mesh_b));
    c.pad = pad + c.margin;
    c.leaf_pairs.clear();
    ++st.rebuilt;
    intersect_surfaces(a, b, rel, g, c.pad, true, found);
    for (const WalkOutput& o : found) c.leaf_pairs.insert(c.leaf_pairs.end(), o.listed.begin(), o.listed.end());
    std::sort(c.leaf_pairs.begin(), c.leaf_pairs.end());  // the same list whichever thread found which pair
    st.cached_leaf_pairs += static_cast<long>(c.leaf_pairs.size());
  } else {
    intersect_surfaces(a, b, rel, g, pad, false, found);
  }
  for (const WalkOutput& o : found) st.triangle_pairs += o.st.triangle_pairs, st.inconsistent += o.st.inconsistent;
  // ∂A inside B and ∂B inside A are independent; each is deterministic, and they are added in this order.
  RawMoments in_b, in_a;
  MeshIntersectionStats st_b, st_a;
  // Each half gathers its side's work on the thread that sorts it next.
  auto half_a = [&] {
    SurfaceWork w = gather(found, &WalkOutput::a);
    in_b = surface_inside(a, b, w, g, st_b);
  };
  auto half_b = [&] {
    SurfaceWork w = gather(found, &WalkOutput::b);
    in_a = surface_inside(b, a, w, g, st_a);
  };
  if (parallel_allowed())
    tbb::this_task_arena::isolate([&] { tbb::parallel_invoke(half_a, half_b); });
  else
    half_a(), half_b();
  for (const MeshIntersectionStats* h : {&st_b, &st_a}) st.crossings += h->crossings, st.ray_tests += h->ray_tests;
  in_b += in_a;
  return in_b;
}

}  // namespace vcsim::geo
