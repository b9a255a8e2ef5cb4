#include "geometry/column_integration.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>

#include "geometry/line_sets.h"
#include "geometry/mesh.h"

namespace vcsim::geo {
namespace {

using lines::IntervalList;
using lines::kInf;
using lines::Placed;
using lines::Span;
using lines::cell_sdf;
using lines::intersect;
using lines::line_span;
using lines::place;
using lines::placed_cell_bounds;
using lines::sdf_local;

// ---- column sets ----

struct Pair {
  std::vector<Placed> prims;
  size_t n_i = 0;      // prims[0, n_i) belong to cell i
  bool convex = true;  // no complement, no torus, no mesh: one interval per column, signed gap defined
  double s0 = 0, s1 = 0;
};

// What a column contributes: its set's total length G, and mean s and s² over the set
// (m = ∫s/G, q = ∫s²/G). For convex pairs an empty column keeps the signed gap G < 0, which is
// continuous across the rim (quadrics: the "inverted chord"), to locate the rim by false position.
struct ColumnValue {
  bool in = false;
  int sig = 0;  // which primitive faces bound the column (convex pairs): G is smooth where sig is constant
  double G = 0, m = 0, q = 0;
  double lo = 0, hi = 0;  // hull of the set
};

IntervalList cell_set(const Pair& pr, size_t begin, size_t end, double u, double v) {
  return lines::cell_line_set(pr.prims, begin, end, Vec3(u, v, 0), Vec3::UnitZ(), pr.s0, pr.s1);
}

ColumnValue eval_column(const Pair& pr, double u, double v) {
  ColumnValue c;
  if (pr.convex) {
    double lo = -kInf, hi = kInf;
    int sig_lo = 0, sig_hi = 0;
    for (size_t k = 0; k < pr.prims.size(); ++k) {
      const Placed& p = pr.prims[k];
      const Span sp = line_span(p, p.A.col(0) * u + p.A.col(1) * v + p.b, p.A.col(2));
      if (sp.lo > lo) lo = sp.lo, sig_lo = static_cast<int>(k) * 8 + sp.face_lo;
      if (sp.hi < hi) hi = sp.hi, sig_hi = static_cast<int>(k) * 8 + sp.face_hi;
    }
    c.sig = sig_lo * 4096 + sig_hi;
    c.G = hi - lo;
    if (!std::isfinite(c.G)) {  // a parallel miss of a flat face: no usable signed gap
      c.G = -kInf;
      return c;
    }
    c.in = c.G > 0;
    c.lo = lo, c.hi = hi;
    c.m = 0.5 * (lo + hi);
    c.q = c.m * c.m + c.G * c.G / 12.0;
    return c;
  }
  const IntervalList set = intersect(cell_set(pr, 0, pr.n_i, u, v), cell_set(pr, pr.n_i, pr.prims.size(), u, v));
  double i0 = 0, i1 = 0, i2 = 0;
  for (int k = 0; k < set.n; ++k) {
    const double a = set.v[k][0], b = set.v[k][1];
    i0 += b - a;
    i1 += 0.5 * (b - a) * (b + a);
    i2 += (b - a) * (b * b + a * b + a * a) / 3.0;
  }
  if (i0 > 0) {
    c.in = true;
    c.G = i0, c.m = i1 / i0, c.q = i2 / i0;
    c.lo = set.v[0][0], c.hi = set.v[set.n - 1][1];
  }
  return c;
}

struct FieldVertex {
  double u, v;
  ColumnValue c;
};

// The rim crossing on the segment from a (column non-empty) to b (empty): false position with the
// Illinois modification on the signed gap when it is available, bisection otherwise. Returns the
// innermost bracketing point, with the column seen from inside (for a vertical wall G stays finite).
// outer (optional): the closest evaluated empty column (b when the search stopped on the rim).
FieldVertex find_cut(const Pair& pr, const FieldVertex& a, const FieldVertex& b, long& columns,
                     FieldVertex* outer = nullptr) {
  double t_in = 0, t_out = 1, f_in = a.c.G, f_out = b.c.G;
  // False position needs a gap that is continuous across the rim. A wall nearly parallel to the
  // columns (a slightly tilted box side) gives a huge inverted chord outside instead, and Illinois
  // would creep from the inside end for dozens of steps: bisect those.
  bool false_position = pr.convex && std::isfinite(f_out) && std::abs(f_out) < 1e3 * std::abs(f_in);
  FieldVertex best = a;
  if (outer) *outer = b;
  int side = 0;
  for (int it = 0; it < 64 && t_out - t_in > 1e-6; ++it) {
    double t = false_position ? t_in + (t_out - t_in) * f_in / (f_in - f_out) : 0.5 * (t_in + t_out);
    if (!(t > t_in && t < t_out)) t = 0.5 * (t_in + t_out);
    FieldVertex x{a.u + t * (b.u - a.u), a.v + t * (b.v - a.v), {}};
    x.c = eval_column(pr, x.u, x.v);
    ++columns;
    if (x.c.in) {
      t_in = t, f_in = x.c.G, best = x;
      if (side == 1) f_out *= 0.5;
      side = 1;
      if (pr.convex && x.c.G <= 1e-10 * a.c.G) break;  // on the rim to within rounding
    } else {
      t_out = t, f_out = x.c.G;
      if (outer) *outer = x;
      if (!std::isfinite(f_out)) false_position = false;
      if (side == -1) f_in *= 0.5;
      side = -1;
    }
  }
  return best;
}

// Subdivision levels for all-empty triangles whose corners see different outer faces.
constexpr int kEmptyDepth = 3;

// Degree-3 exact rule on a triangle (barycentric points and weights summing to 1).
constexpr double kQw[4] = {-27.0 / 48.0, 25.0 / 48.0, 25.0 / 48.0, 25.0 / 48.0};
constexpr double kQb[4][3] = {{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.6, 0.2, 0.2}, {0.2, 0.6, 0.2}, {0.2, 0.2, 0.6}};

struct Accum {
  double g = 0, gu = 0, gv = 0, gm = 0, guu = 0, gvv = 0, guv = 0, gum = 0, gvm = 0, gq = 0, area = 0;
  double rim = 0;  // length of the clipped polygons' rim edges (the patch outline)
  double hyper_n = 1;                   // hypervolume exponent; 1: not accumulated
  double h = 0, hu = 0, hv = 0, hm = 0;  // ∫ G^n {1, u, v, m} dA
  // Rim cuts found in this lattice row, keyed by (inside u, v, outside u, v): the edges of a row are
  // shared by two triangles (diagonals, verticals), so each cut is searched for once.
  struct Cut {
    std::array<double, 4> key;
    FieldVertex at;
    bool hidden;
    int outer_class;  // class of the closest empty column evaluated beyond the cut
  };
  std::vector<Cut> cuts;
};

// 2 ∫_0^1 (b + (a − b) s)^n (1 − s) ds: the mean of G^n over a triangle whose G is linear, a at the apex and b
// along the opposite edge (the level line at fraction s from that edge has length ∝ 1 − s).
double apex_mean_power(double a, double b, double n) {
  a = std::max(a, 0.0), b = std::max(b, 0.0);
  const double d = a - b, top = std::max(a, b);
  if (top == 0) return 0;
  if (std::abs(d) <= 1e-2 * top) {
    // Nearly constant G: the integrand is analytic and varies by < 1 %, 5-point Gauss-Legendre (degree 9) is exact
    // to rounding; the closed form below would cancel catastrophically here.
    constexpr double x[5] = {0.0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640, 0.9061798459386640};
    constexpr double w[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891,
                             0.2369268850561891};
    double sum = 0;
    for (int k = 0; k < 5; ++k) {
      const double s = 0.5 * (1 + x[k]);
      sum += w[k] * std::pow(b + d * s, n) * (1 - s);
    }
    return sum;  // 2 × (the half-length 1/2 of [0, 1]) × Σ
  }
  // g = b + d s: 2/d² ∫_b^a g^n (a − g) dg. |d| > 1e-2 max(a, b) bounds the cancellation at ~1e4 ulp.
  const double n1 = n + 1, n2 = n + 2;
  return 2 / (d * d) * (a * (std::pow(a, n1) - std::pow(b, n1)) / n1 - (std::pow(a, n2) - std::pow(b, n2)) / n2);
}

// Exact ∫ G^n dA over a triangle (area `area`) on which G is linear with vertex values g: split along the level
// line through the middle value into two triangles, each with one apex and a constant-G opposite edge.
double triangle_power_integral(double g0, double g1, double g2, double n, double area) {
  double g[3] = {g0, g1, g2};
  std::sort(g, g + 3);
  if (g[2] - g[0] <= 0) return area * std::pow(std::max(g[0], 0.0), n);
  const double t = (g[1] - g[0]) / (g[2] - g[0]);  // the level line meets the edge g[0]-g[2] at fraction t
  return area * (t * apex_mean_power(g[0], g[1], n) + (1 - t) * apex_mean_power(g[2], g[1], n));
}

// ∫ over a triangle of G·{1, u, v, m, u², v², uv, um, vm, q} with G, m, q interpolated linearly.
void integrate_triangle(const FieldVertex& a, const FieldVertex& b, const FieldVertex& c, Accum& acc) {
  const double area = 0.5 * std::abs((b.u - a.u) * (c.v - a.v) - (c.u - a.u) * (b.v - a.v));
  if (area == 0) return;
  acc.area += area;
  if (acc.hyper_n != 1) {
    // Hypervolume: ∫ G^n exactly for the linear G; its point of action ∫ (u, v, m) G^n / ∫ G^n by the positive
    // edge-midpoint rule (degree 2; a weighting only, so a negative-weight rule could not push it outside).
    const double n = acc.hyper_n;
    const double H = triangle_power_integral(a.c.G, b.c.G, c.c.G, n, area);
    const FieldVertex* v[3] = {&a, &b, &c};
    double W = 0, wu = 0, wv = 0, wm = 0;
    for (int k = 0; k < 3; ++k) {
      const FieldVertex &x = *v[k], &y = *v[(k + 1) % 3];
      const double w = std::pow(std::max(0.5 * (x.c.G + y.c.G), 0.0), n);
      W += w, wu += w * 0.5 * (x.u + y.u), wv += w * 0.5 * (x.v + y.v), wm += w * 0.5 * (x.c.m + y.c.m);
    }
    if (W > 0) {
      acc.h += H, acc.hu += H * wu / W, acc.hv += H * wv / W, acc.hm += H * wm / W;
    } else {
      acc.h += H, acc.hu += H * (a.u + b.u + c.u) / 3, acc.hv += H * (a.v + b.v + c.v) / 3;
      acc.hm += H * (a.c.m + b.c.m + c.c.m) / 3;
    }
  }
  for (int k = 0; k < 4; ++k) {
    const double l0 = kQb[k][0], l1 = kQb[k][1], l2 = kQb[k][2];
    const double u = l0 * a.u + l1 * b.u + l2 * c.u, v = l0 * a.v + l1 * b.v + l2 * c.v;
    const double G = l0 * a.c.G + l1 * b.c.G + l2 * c.c.G;
    const double m = l0 * a.c.m + l1 * b.c.m + l2 * c.c.m;
    const double q = l0 * a.c.q + l1 * b.c.q + l2 * c.c.q;
    const double w = kQw[k] * area * G;
    acc.g += w, acc.gu += w * u, acc.gv += w * v, acc.gm += w * m;
    acc.guu += w * u * u, acc.gvv += w * v * v, acc.guv += w * u * v;
    acc.gum += w * u * m, acc.gvm += w * v * m, acc.gq += w * q;
  }
}

// The class of a column: which primitive faces bound it. Empty columns of convex pairs keep the
// faces of their signed gap (a negative class): the rim is straight (planar pairs) or smooth only
// while the faces on both sides stay the same, so a change of the outer faces between two rim cuts
// marks a vertex of the patch outline (e.g. the sharp tip of a box corner's triangular patch).
int column_class(const ColumnValue& c) { return c.in ? c.sig : -1 - c.sig; }

// Where the faces bounding the column change between a and b (both non-empty): bisection.
// far: the closest evaluated column on b's side.
FieldVertex find_kink(const Pair& pr, const FieldVertex& a, const FieldVertex& b, FieldVertex& far, long& columns) {
  const int ka = column_class(a.c);
  double t_a = 0, t_b = 1;
  FieldVertex best = a;
  far = b;
  for (int it = 0; it < 22; ++it) {  // 2^-22 of the segment: a negligible area error
    const double t = 0.5 * (t_a + t_b);
    FieldVertex x{a.u + t * (b.u - a.u), a.v + t * (b.v - a.v), {}};
    x.c = eval_column(pr, x.u, x.v);
    ++columns;
    if (column_class(x.c) == ka) t_a = t, best = x; else t_b = t, far = x;
  }
  return best;
}

// The boundary point on the segment x–y (classes differ, at least one non-empty), with the field
// values of the non-empty side (continuous across a kink). Sets `hidden` when a third class lies
// between them (a feature thinner than the segment), which the caller resolves by subdividing.
// outer_class: for a rim cut, the class of the empty side next to it (kinks: INT_MIN).
FieldVertex boundary(const Pair& pr, const FieldVertex& x, const FieldVertex& y, bool& hidden, Accum& acc,
                     long& columns, int& outer_class) {
  outer_class = std::numeric_limits<int>::min();
  if (x.c.in && y.c.in) {
    FieldVertex far;
    const FieldVertex near = find_kink(pr, x, y, far, columns);
    if (column_class(far.c) != column_class(y.c)) hidden = true;
    return near;
  }
  const FieldVertex& in = x.c.in ? x : y;
  const FieldVertex& out = x.c.in ? y : x;
  const std::array<double, 4> key{in.u, in.v, out.u, out.v};
  auto hit = std::find_if(acc.cuts.begin(), acc.cuts.end(), [&](const Accum::Cut& c) { return c.key == key; });
  if (hit == acc.cuts.end()) {
    FieldVertex outer;
    Accum::Cut c{key, find_cut(pr, in, out, columns, &outer), false, column_class(outer.c)};
    if (column_class(c.at.c) != column_class(in.c)) {
      // A third class between `in` and the rim. A wall nearly parallel to the columns (a slightly
      // tilted box side) makes a sliver as wide as depth × tilt: under 1e-4 of the segment, drop it
      // (cut at the kink); a wider one is resolved by subdividing the triangle.
      FieldVertex far;
      const FieldVertex kink = find_kink(pr, in, c.at, far, columns);
      if (std::hypot(c.at.u - kink.u, c.at.v - kink.v) < 1e-4 * std::hypot(out.u - in.u, out.v - in.v))
        c.at = kink;
      else
        c.hidden = true;
    }
    acc.cuts.push_back(c);
    hit = acc.cuts.end() - 1;
  }
  hidden |= hit->hidden;
  outer_class = hit->outer_class;
  return hit->at;
}

void integrate_quad(const FieldVertex& a, const FieldVertex& b, const FieldVertex& c, const FieldVertex& d, Accum& acc) {
  integrate_triangle(a, b, c, acc);
  integrate_triangle(a, c, d, acc);
}

// Integrates a lattice triangle. The column quantities are linear only where the same faces bound
// the columns, so the triangle is split along the rim (non-empty vs empty) and along kinks (the
// bounding face changes, e.g. under a box edge), both located on the edges by root finding. Where
// three classes meet, the triangle is subdivided a few times, then clipped by the rim only.
void integrate_tri(const Pair& pr, const FieldVertex& a, const FieldVertex& b, const FieldVertex& c, int depth,
                   Accum& acc, long& columns) {
  const int ka = column_class(a.c), kb = column_class(b.c), kc = column_class(c.c);
  if (ka < 0 && kb < 0 && kc < 0) {
    // All empty. With the same outer faces at the three corners the signed gap is linear (planar
    // pairs) and negative throughout; otherwise a sharp tip of the patch may cross the triangle
    // between its corners: look closer, a few levels.
    if ((ka == kb && kb == kc) || depth >= kEmptyDepth) return;
  } else if (ka == kb && kb == kc) {
    integrate_triangle(a, b, c, acc);
    return;
  }
  
  // Two classes: a lone vertex L and a pair (P1, P2).
  const FieldVertex *L = nullptr, *P1 = nullptr, *P2 = nullptr;
  if (ka == kb) L = &c, P1 = &a, P2 = &b;
  else if (kb == kc) L = &a, P1 = &b, P2 = &c;
  else if (ka == kc) L = &b, P1 = &c, P2 = &a;
  FieldVertex p, q;
  bool hidden = L == nullptr || (ka < 0 && kb < 0 && kc < 0);  // three classes at the vertices, or all empty
  if (!hidden) {
    int outer_p, outer_q;
    p = boundary(pr, *L, *P1, hidden, acc, columns, outer_p);
    q = boundary(pr, *L, *P2, hidden, acc, columns, outer_q);
    // Rim cuts with different faces beyond them: the outline has a vertex between them, which the
    // straight clip p–q would cut off (always a loss: the patch is convex for convex pairs).
    if (outer_p != outer_q) hidden = true;
  }
  if (!hidden) {
    if (L->c.in != P1->c.in) acc.rim += std::hypot(p.u - q.u, p.v - q.v);
    if (L->c.in) integrate_triangle(*L, p, q, acc);
    if (P1->c.in) integrate_quad(*P1, *P2, q, p, acc);
    return;
  }
  {
    if (depth < 5) {
      auto mid = [&](const FieldVertex& x, const FieldVertex& y) {
        FieldVertex m{0.5 * (x.u + y.u), 0.5 * (x.v + y.v), {}};
        m.c = eval_column(pr, m.u, m.v);
        ++columns;
        return m;
      };
      const FieldVertex ab = mid(a, b), bc = mid(b, c), ca = mid(c, a);
      integrate_tri(pr, a, ab, ca, depth + 1, acc, columns);
      integrate_tri(pr, ab, b, bc, depth + 1, acc, columns);
      integrate_tri(pr, ca, bc, c, depth + 1, acc, columns);
      integrate_tri(pr, ab, bc, ca, depth + 1, acc, columns);
      return;
    }
    // Tiny triangle at a junction: clip by the rim only.
    const FieldVertex* pv[3] = {&a, &b, &c};
    FieldVertex poly[6];
    int n = 0, cuts[2], nc = 0;
    for (int e = 0; e < 3; ++e) {
      const FieldVertex& x = *pv[e];
      const FieldVertex& y = *pv[(e + 1) % 3];
      if (x.c.in) poly[n++] = x;
      if (x.c.in != y.c.in) {
        if (nc < 2) cuts[nc++] = n;
        poly[n++] = x.c.in ? find_cut(pr, x, y, columns) : find_cut(pr, y, x, columns);
      }
    }
    if (nc == 2) acc.rim += std::hypot(poly[cuts[0]].u - poly[cuts[1]].u, poly[cuts[0]].v - poly[cuts[1]].v);
    for (int k = 1; k + 1 < n; ++k) integrate_triangle(poly[0], poly[k], poly[k + 1], acc);
  }
}

Pair make_pair(const CellPrimitives& cell_i, const Pose& pose_i, const CellPrimitives& cell_j, const Pose& pose_j,
               const Pose& frame) {
  Pair pr;
  for (const auto& p : cell_i) pr.prims.push_back(place(p, pose_i, frame));
  pr.n_i = pr.prims.size();
  for (const auto& p : cell_j) pr.prims.push_back(place(p, pose_j, frame));
  for (const Placed& p : pr.prims)
    if (p.complement || p.kind == PrimitiveKind::Torus || p.kind == PrimitiveKind::Mesh) pr.convex = false;
  return pr;
}

// The lattice of one query, stored sparsely in blocks of kB x kB squares: a thin ring's bounding box
// can hold 1e8 squares of which the ring touches 1e5. Block (bi, bj) holds the squares (i, j) with
// i >> kShift == bi, j >> kShift == bj, and their lower-left corners; a square's right and top corners
// belong to the neighbouring blocks. Corner (i, j) sits at (i s, j s) whichever block holds it.
constexpr int kShift = 3, kB = 1 << kShift, kMask = kB - 1;
struct Block {
  long bi = 0, bj = 0;
  std::array<char, kB * kB> square{}, visited{}, needed{};
  std::array<FieldVertex, kB * kB> corner{};
};

struct Lattice {
  double s = 0;
  std::vector<std::unique_ptr<Block>> blocks;
  std::unordered_map<uint64_t, Block*> index;
  long candidates = 0;  // squares kept
  bool too_large = false;
  static uint64_t key(long bi, long bj) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(bi)) << 32) | static_cast<uint32_t>(bj);
  }
  const Block* find(long bi, long bj) const {
    const auto it = index.find(key(bi, bj));
    return it == index.end() ? nullptr : it->second;
  }
  Block* last = nullptr;  // the last block get() returned: the flood fill asks for the same one ~5 times a square
  Block& get(long bi, long bj) {
    if (last && last->bi == bi && last->bj == bj) return *last;
    Block*& b = index[key(bi, bj)];
    if (!b) {
      blocks.push_back(std::make_unique<Block>());
      b = blocks.back().get();
      b->bi = bi, b->bj = bj;
    }
    last = b;
    return *b;
  }
  // Row-major block order: a fixed summation order, whatever order the blocks were made in.
  void sort() {
    std::sort(blocks.begin(), blocks.end(),
              [](const auto& a, const auto& b) { return a->bj != b->bj ? a->bj < b->bj : a->bi < b->bi; });
  }
};
inline int local(long i, long j) { return static_cast<int>((j & kMask) * kB + (i & kMask)); }

// The octree lattice's limit (candidate squares): a lattice this large means phi hugs zero over a wide area
// without a measurable overlap (cells that share a face). The grown lattice's limit is larger: it holds only the
// patch's squares, and a thin ring at a tight tolerance needs ~1e6 (docs/geometry.md).
constexpr double kMaxSquares = 1 << 20;
constexpr double kMaxGrown = 1 << 22;

// Octree culling on phi = max(phi_i, phi_j) down to footprints of 2^k lattice squares.
Lattice build_lattice(Pair& pr, const Vec3& lo, const Vec3& hi, double s) {
  Lattice lat;
  lat.s = s;
  pr.s0 = lo.z(), pr.s1 = hi.z();
  const double ext = std::max(lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff());
  const int L = std::max(1, static_cast<int>(std::ceil(std::log2(std::max(2 * ext / s, 2.0)))));
  const int kfoot = std::min(L - 1, 3);
  const double F = s * std::ldexp(1.0, kfoot);
  struct Node {
    Vec3 c;
  };
  std::vector<Node> nodes{{Vec3::Zero()}}, next;
  double half = 0.5 * s * std::ldexp(1.0, L);
  auto phi = [&](const Vec3& x) {
    return std::max(cell_sdf(pr.prims, 0, pr.n_i, x), cell_sdf(pr.prims, pr.n_i, pr.prims.size(), x));
  };
  for (;;) {
    next.clear();
    const double halfdiag = half * std::sqrt(3.0);
    for (const Node& n : nodes) {
      if ((n.c.array() + half < lo.array()).any() || (n.c.array() - half > hi.array()).any()) continue;
      if (phi(n.c) >= halfdiag) continue;
      next.push_back(n);
    }
    nodes.swap(next);
    if (nodes.empty() || 2 * half <= F * 1.000001) break;
    next.clear();
    const double q = 0.5 * half;
    for (const Node& n : nodes)
      for (int k = 0; k < 8; ++k) next.push_back({n.c + Vec3((k & 1) ? q : -q, (k & 2) ? q : -q, (k & 4) ? q : -q)});
    nodes.swap(next);
    half = q;
  }
  if (nodes.empty()) return lat;
  const long per = 1L << kfoot;
  std::vector<std::pair<long, long>> feet;
  for (const Node& n : nodes)
    feet.emplace_back(std::lround(n.c.x() / F - 0.5), std::lround(n.c.y() / F - 0.5));
  std::sort(feet.begin(), feet.end());
  feet.erase(std::unique(feet.begin(), feet.end()), feet.end());
  if (static_cast<double>(feet.size()) * per * per > kMaxSquares) {
    lat.too_large = true;
    return lat;
  }
  for (const auto& f : feet)
    for (long dj = 0; dj < per; ++dj)
      for (long di = 0; di < per; ++di) {
        const long i = f.first * per + di, j = f.second * per + dj;
        lat.get(i >> kShift, j >> kShift).square[local(i, j)] = 1;
        for (int c = 0; c < 4; ++c) {
          const long ci = i + (c & 1), cj = j + (c >> 1);
          lat.get(ci >> kShift, cj >> kShift).needed[local(ci, cj)] = 1;
        }
      }
  lat.candidates = static_cast<long>(feet.size()) * per * per;
  lat.sort();
  return lat;
}

// The lattice grown from the seed columns: a square is kept when one of its corners is non-empty
// (or it holds a seed), and its four neighbours are then visited. Corners are evaluated as the fill
// reaches them; the kept set does not depend on the visiting order. The fill is bounded only by the
// overlap box (lo, hi), not by the coarse pass's extent: a patch can reach far beyond every coarse
// non-empty column (a sliver or the sharp tip of a corner's triangle between coarse columns), and a
// clip there would cut it off. The blocks make the cost and memory the patch's squares, not its bounding box's.
Lattice grown_lattice(Pair& pr, const Vec3& lo, const Vec3& hi, double s,
                      const std::vector<std::array<double, 2>>& seeds, long& columns) {
  Lattice lat;
  lat.s = s;
  pr.s0 = lo.z(), pr.s1 = hi.z();
  auto index = [s](double x, bool up) {
    const double t = std::clamp(x / s, -1e15, 1e15);
    return static_cast<long>(up ? std::ceil(t) : std::floor(t));
  };
  // Squares [gi0, gi1) x [gj0, gj1) cover the overlap box.
  const long gi0 = index(lo.x(), false), gi1 = std::max(index(hi.x(), true), gi0 + 1);
  const long gj0 = index(lo.y(), false), gj1 = std::max(index(hi.y(), true), gj0 + 1);
  if (static_cast<double>(gi1 - gi0) > 1e9 || static_cast<double>(gj1 - gj0) > 1e9) {  // block keys are 32-bit
    lat.too_large = true;
    return lat;
  }
  std::vector<std::pair<long, long>> stack;  // absolute square indices
  for (const auto& sd : seeds) {
    const long i = index(sd[0], false), j = index(sd[1], false);
    if (i < gi0 || j < gj0 || i >= gi1 || j >= gj1) continue;
    stack.emplace_back(i, j);
    lat.get(i >> kShift, j >> kShift).square[local(i, j)] = 1;  // kept even if its corners all miss a thin patch
  }
  if (stack.empty()) return lat;
  auto corner = [&](long i, long j) -> const FieldVertex& {
    Block& b = lat.get(i >> kShift, j >> kShift);
    const int k = local(i, j);
    FieldVertex& fv = b.corner[k];
    if (!b.needed[k]) {
      b.needed[k] = 1;
      fv.u = i * s, fv.v = j * s;
      fv.c = eval_column(pr, fv.u, fv.v);
      ++columns;
    }
    return fv;
  };
  while (!stack.empty()) {
    const auto [i, j] = stack.back();
    stack.pop_back();
    Block& b = lat.get(i >> kShift, j >> kShift);  // (blocks never move: the map holds pointers)
    const int k = local(i, j);
    if (b.visited[k]) continue;
    b.visited[k] = 1;
    bool any = false;
    for (int c = 0; c < 4; ++c) any |= corner(i + (c & 1), j + (c >> 1)).c.in;
    if (!any && !b.square[k]) continue;
    b.square[k] = 1;
    if (++lat.candidates > kMaxGrown) {
      lat.too_large = true;
      return lat;
    }
    if (!any) continue;
    if (i > gi0) stack.emplace_back(i - 1, j);
    if (i + 1 < gi1) stack.emplace_back(i + 1, j);
    if (j > gj0) stack.emplace_back(i, j - 1);
    if (j + 1 < gj1) stack.emplace_back(i, j + 1);
  }
  lat.sort();
  return lat;
}

template <class Body>
void for_rows(long rows, long work, const Body& body) {
  // Results never depend on the partitioning (each row writes its own slot): parallel only when
  // there is enough work to pay for the task overhead. work: candidate squares, ~0.1-0.2 µs each.
  if (work < 1000) {
    for (long r = 0; r < rows; ++r) body(r);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<long>(0, rows, 1), [&](const tbb::blocked_range<long>& rg) {
    for (long r = rg.begin(); r != rg.end(); ++r) body(r);
  });
}

// Evaluates every needed corner, block by block (each block writes only its own corners).
void evaluate_corners(const Pair& pr, Lattice& lat, std::vector<long>& block_columns) {
  block_columns.assign(lat.blocks.size(), 0);
  for_rows(static_cast<long>(lat.blocks.size()), lat.candidates, [&](long kb) {
    Block& b = *lat.blocks[kb];
    for (int k = 0; k < kB * kB; ++k) {
      if (!b.needed[k]) continue;
      FieldVertex& fv = b.corner[k];
      fv.u = (b.bi * kB + (k & kMask)) * lat.s, fv.v = (b.bj * kB + (k >> kShift)) * lat.s;
      fv.c = eval_column(pr, fv.u, fv.v);
      ++block_columns[kb];
    }
  });
}
}  // namespace

void centroid_and_inertia(const RawMoments& m, Vec3& centroid, Mat3& inertia) {
  centroid = m.m1 / m.m0;
  const Mat3 C = m.m2 - m.m0 * centroid * centroid.transpose();  // second moments about the centroid
  inertia = C.trace() * Mat3::Identity() - C;                     // J = ∫(|r|² I − r rᵀ) dV
}

double cell_distance(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world) {
  double phi = -kInf;
  for (const auto& cp : cell) {
    const Placed p = place(cp, body_pose, Pose{});
    const double d = sdf_local(p, p.A * x_world + p.b);
    phi = std::max(phi, cp.complement ? -d : d);
  }
  return phi;
}

Vec3 cell_gradient(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world, double h) {
  std::vector<Placed> prims;  // placed once for the six evaluations
  for (const auto& cp : cell) prims.push_back(place(cp, body_pose, Pose{}));
  Vec3 g;
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = Vec3::Unit(k) * h;
    g[k] = (cell_sdf(prims, 0, prims.size(), x_world + e) - cell_sdf(prims, 0, prims.size(), x_world - e)) / (2 * h);
  }
  return g;
}

void cell_bounds_in_frame(const CellPrimitives& cell, const Pose& body_pose, const Pose& frame, Vec3& lo, Vec3& hi) {
  std::vector<Placed> prims;
  for (const auto& cp : cell) prims.push_back(place(cp, body_pose, frame));
  placed_cell_bounds(prims, 0, prims.size(), lo, hi);
}

ColumnResult column_moments(const CellPrimitives& cell_i, const Pose& pose_i, const CellPrimitives& cell_j,
                            const Pose& pose_j, const Pose& frame, double s, const double* clip,
                            const std::vector<std::array<double, 2>>* seeds, double hyper_n) {
  ColumnResult result;
  Pair pr = make_pair(cell_i, pose_i, cell_j, pose_j, frame);
  Vec3 lo_i, hi_i, lo_j, hi_j;
  placed_cell_bounds(pr.prims, 0, pr.n_i, lo_i, hi_i);
  placed_cell_bounds(pr.prims, pr.n_i, pr.prims.size(), lo_j, hi_j);
  Vec3 lo = lo_i.cwiseMax(lo_j), hi = hi_i.cwiseMin(hi_j);
  if (clip && !seeds) {  // (a grown lattice is bounded by the patch itself: the clip is ignored)
    lo.x() = std::max(lo.x(), clip[0]), hi.x() = std::min(hi.x(), clip[1]);
    lo.y() = std::max(lo.y(), clip[2]), hi.y() = std::min(hi.y(), clip[3]);
  }
  if ((lo.array() >= hi.array()).any()) return result;
  if (!lo.allFinite() || !hi.allFinite()) {
    result.bounded = false;
    return result;
  }
  std::vector<long> block_columns;
  Lattice lat;
  if (seeds) {
    lat = grown_lattice(pr, lo, hi, s, *seeds, result.columns);
  } else {
    lat = build_lattice(pr, lo, hi, s);
    if (lat.candidates > 0 && !lat.too_large) evaluate_corners(pr, lat, block_columns);
  }
  result.candidates = lat.candidates;
  result.too_large = lat.too_large;
  if (lat.candidates == 0 || lat.too_large) return result;
  const long nb = static_cast<long>(lat.blocks.size());

  double ub[4] = {kInf, -kInf, kInf, -kInf};
  for (const auto& b : lat.blocks)
    for (int k = 0; k < kB * kB; ++k)
      if (b->needed[k] && b->corner[k].c.in) {
        const FieldVertex& fv = b->corner[k];
        ub[0] = std::min(ub[0], fv.u), ub[1] = std::max(ub[1], fv.u);
        ub[2] = std::min(ub[2], fv.v), ub[3] = std::max(ub[3], fv.v);
        result.inside.push_back({fv.u, fv.v});
      }
  result.u_min = ub[0], result.u_max = ub[1], result.v_min = ub[2], result.v_max = ub[3];
  // Each block's right, top and top-right neighbours hold the corners of its edge squares.
  std::vector<std::array<const Block*, 3>> nbr(nb);
  for (long kb = 0; kb < nb; ++kb) {
    const Block& b = *lat.blocks[kb];
    nbr[kb] = {lat.find(b.bi + 1, b.bj), lat.find(b.bi, b.bj + 1), lat.find(b.bi + 1, b.bj + 1)};
  }
  std::vector<Accum> rows(nb);
  for (Accum& a : rows) a.hyper_n = hyper_n;
  std::vector<long> diag_columns(nb, 0);
  for_rows(nb, lat.candidates, [&](long kb) {
    Accum& acc = rows[kb];
    const Block& b = *lat.blocks[kb];
    auto at = [&](int i, int j) -> const FieldVertex& {
      const Block* o = i < kB ? (j < kB ? &b : nbr[kb][1]) : (j < kB ? nbr[kb][0] : nbr[kb][2]);
      return o->corner[(j & kMask) * kB + (i & kMask)];
    };
    for (int j = 0; j < kB; ++j)
      for (int i = 0; i < kB; ++i) {
        if (!b.square[j * kB + i]) continue;
        const FieldVertex &p00 = at(i, j), &p10 = at(i + 1, j), &p11 = at(i + 1, j + 1), &p01 = at(i, j + 1);
        if (!(p00.c.in || p10.c.in || p11.c.in || p01.c.in)) continue;
        integrate_tri(pr, p00, p10, p11, 0, acc, diag_columns[kb]);
        integrate_tri(pr, p00, p11, p01, 0, acc, diag_columns[kb]);
      }
  });
  // Ordered reduction: bitwise identical for any number of threads.
  Accum tot;
  for (long k = 0; k < nb; ++k) {
    const Accum& a = rows[k];
    tot.g += a.g, tot.gu += a.gu, tot.gv += a.gv, tot.gm += a.gm, tot.guu += a.guu, tot.gvv += a.gvv;
    tot.guv += a.guv, tot.gum += a.gum, tot.gvm += a.gvm, tot.gq += a.gq, tot.area += a.area, tot.rim += a.rim;
    tot.h += a.h, tot.hu += a.hu, tot.hv += a.hv, tot.hm += a.hm;
    result.columns += diag_columns[k];
  }
  for (long c : block_columns) result.columns += c;
  RawMoments& m = result.moments;
  m.m0 = tot.g;
  m.m1 = Vec3(tot.gu, tot.gv, tot.gm);
  m.m2 << tot.guu, tot.guv, tot.gum, tot.guv, tot.gvv, tot.gvm, tot.gum, tot.gvm, tot.gq;
  if (hyper_n != 1) m.h0 = tot.h, m.h1 = Vec3(tot.hu, tot.hv, tot.hm);
  result.area = tot.area;
  result.rim = tot.rim;
  return result;
}

std::vector<ColumnSample> column_samples(const CellPrimitives& cell_i, const Pose& pose_i,
                                         const CellPrimitives& cell_j, const Pose& pose_j, const Pose& frame,
                                         double s) {
  std::vector<ColumnSample> out;
  Pair pr = make_pair(cell_i, pose_i, cell_j, pose_j, frame);
  Vec3 lo_i, hi_i, lo_j, hi_j;
  placed_cell_bounds(pr.prims, 0, pr.n_i, lo_i, hi_i);
  placed_cell_bounds(pr.prims, pr.n_i, pr.prims.size(), lo_j, hi_j);
  const Vec3 lo = lo_i.cwiseMax(lo_j), hi = hi_i.cwiseMin(hi_j);
  if ((lo.array() >= hi.array()).any() || !lo.allFinite() || !hi.allFinite()) return out;
  Lattice lat = build_lattice(pr, lo, hi, s);
  if (lat.candidates == 0 || lat.too_large) return out;
  std::vector<long> block_columns;
  evaluate_corners(pr, lat, block_columns);
  for (const auto& b : lat.blocks)
    for (int k = 0; k < kB * kB; ++k)
      if (b->needed[k] && b->corner[k].c.in) {
        const FieldVertex& fv = b->corner[k];
        out.push_back({fv.u, fv.v, fv.c.lo, fv.c.hi, fv.c.G});
      }
  return out;
}

}  // namespace vcsim::geo
