// The column engine's first stage (geometry/column_internal.h): the set along one column, and the integration of
// one lattice triangle, clipped along the rim and split along kinks, with the column quantities linear in between.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "geometry/column_internal.h"

namespace vcsim::geo::column {

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

IntervalList cell_set(const Pair& pr, size_t begin, size_t end, double u, double v) {
  return lines::cell_line_set(pr.prims, begin, end, Vec3(u, v, 0), Vec3::UnitZ(), pr.s0, pr.s1);
}

namespace {

// Whether line_span's face `face` of a convex primitive is curved (a chord with both ends on it shrinks like
// √distance at its silhouette) rather than a plane.
bool curved_face(const Placed& p, int face) {
  switch (p.kind) {
    case PrimitiveKind::Sphere:
    case PrimitiveKind::Ellipsoid:
    case PrimitiveKind::InfiniteCylinder: return true;
    case PrimitiveKind::Cylinder:
    case PrimitiveKind::Cone: return face == 0;
    case PrimitiveKind::Capsule: return face != 1;
    default: return false;
  }
}

}  // namespace

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
    c.graze = sig_lo == sig_hi && curved_face(pr.prims[sig_lo / 8], sig_lo % 8);
    c.lo = lo, c.hi = hi;
    c.m = 0.5 * (lo + hi);
    c.q = c.m * c.m + c.G * c.G / 12.0;
    return c;
  }
  const IntervalList cells[2] = {cell_set(pr, 0, pr.n_i, u, v), cell_set(pr, pr.n_i, pr.prims.size(), u, v)};
  const IntervalList set = intersect(cells[0], cells[1]);
  if (set.n == 1) {
    c.chords = pr.faces[0] != Pair::kMany && pr.faces[1] != Pair::kMany;
    for (int e = 0; e < 2; ++e) {
      if (pr.faces[e] == Pair::kMany) continue;
      const IntervalList& cell = cells[e];
      int k = 0;
      while (k < cell.n && !(cell.v[k][0] <= set.v[0][0] && set.v[0][1] <= cell.v[k][1])) ++k;
      int face = 0;
      if (pr.faces[e] == Pair::kFaces) {
        const Placed& p = pr.prims[e ? pr.n_i : 0];
        const Span sp = line_span(p, p.A.col(0) * u + p.A.col(1) * v + p.b, p.A.col(2));
        face = sp.face_lo == sp.face_hi && curved_face(p, sp.face_lo) ? sp.face_lo : -1;
      }
      if (k == cell.n || face < 0) {
        c.chords = false;
        continue;
      }
      std::array<double, 2> chord = cell.v[k];
      if (chord == set.v[0]) c.graze = true;
      if (!c.chords) continue;
      const double slack = 1e-9 * (pr.reach[e][1] - pr.reach[e][0]);  // the ends' last bits depend on the range
      if (chord[0] <= pr.s0 + slack || chord[1] >= pr.s1 - slack) {
        // Clipped to the overlap box: the cell's whole chord around the set, from its own extent along the column.
        const IntervalList all = lines::cell_line_set(pr.prims, e ? pr.n_i : 0, e ? pr.prims.size() : pr.n_i,
                                                      Vec3(u, v, 0), Vec3::UnitZ(), pr.reach[e][0], pr.reach[e][1]);
        int m = 0;
        while (m < all.n && !(all.v[m][0] <= set.v[0][0] + slack && set.v[0][1] <= all.v[m][1] + slack)) ++m;
        if (m == all.n || all.v[m][0] <= pr.reach[e][0] || all.v[m][1] >= pr.reach[e][1]) {
          c.chords = false;
          continue;
        }
        chord = all.v[m];
      }
      // The clipped list's count and index identify the interval: all corners of a lattice share the box's span.
      c.which[e] = (k * lines::kMaxIntervals + cell.n) * 8 + face;
      c.mid[e] = 0.5 * (chord[0] + chord[1]);
      c.h2[e] = 0.25 * (chord[1] - chord[0]) * (chord[1] - chord[0]);
    }
  }
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

// The rim crossing on the segment from a (column non-empty) to b (empty): false position with the
// Illinois modification on the signed gap when it is available, bisection otherwise. Returns the
// innermost bracketing point, with the column seen from inside (for a vertical wall G stays finite).
// outer (optional): the closest evaluated empty column (b when the search stopped on the rim).
FieldVertex find_cut(const Pair& pr, const FieldVertex& a, const FieldVertex& b, long& columns, FieldVertex* outer) {
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
  best.c.rim = true;
  return best;
}

namespace {

// Subdivision levels for all-empty triangles whose corners see different outer faces.
constexpr int kEmptyDepth = 3;

// Degree-3 exact rule on a triangle (barycentric points and weights summing to 1).
constexpr double kQw[4] = {-27.0 / 48.0, 25.0 / 48.0, 25.0 / 48.0, 25.0 / 48.0};
constexpr double kQb[4][3] = {{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.6, 0.2, 0.2}, {0.2, 0.6, 0.2}, {0.2, 0.2, 0.6}};


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

// Whether the three corners hold the same interval of each cell (ColumnValue::chords), so that its midpoint and
// half-length² can be interpolated between them.
bool chords_hold(const FieldVertex& a, const FieldVertex& b, const FieldVertex& c) {
  if (!(a.c.chords && b.c.chords && c.c.chords)) return false;
  for (int e = 0; e < 2; ++e)
    if (a.c.which[e] != b.c.which[e] || a.c.which[e] != c.c.which[e]) return false;
  return true;
}

// ∫ over a triangle of G·{1, u, v, m, u², v², uv, um, vm, q} with each cell's chord midpoint and half-length²
// interpolated linearly (ColumnValue::chords): G = min(hi_i, hi_j) − max(lo_i, lo_j), an end being mid ± √h2, so a
// chord shrinking like √distance at a silhouette, and the ends' min and max switching cells, are followed inside
// the triangle. The degree-3 rule, on a 4 × 4 split of a triangle at the rim, where G is least smooth (no column is
// evaluated; the split changes V by ~1e-5 of it on two tori).
void integrate_chords(const FieldVertex& a, const FieldVertex& b, const FieldVertex& c, double area, Accum& acc) {
  const int n = a.c.rim || b.c.rim || c.c.rim ? 4 : 1;
  const double sub = area / (n * n);
  const auto add = [&](const std::array<double, 3>& p0, const std::array<double, 3>& p1, const std::array<double, 3>& p2) {
    for (int k = 0; k < 4; ++k) {
      double l[3];
      for (int i = 0; i < 3; ++i) l[i] = kQb[k][0] * p0[i] + kQb[k][1] * p1[i] + kQb[k][2] * p2[i];
      const double u = l[0] * a.u + l[1] * b.u + l[2] * c.u, v = l[0] * a.v + l[1] * b.v + l[2] * c.v;
      double lo = -kInf, hi = kInf;
      for (int e = 0; e < 2; ++e) {
        const double mid = l[0] * a.c.mid[e] + l[1] * b.c.mid[e] + l[2] * c.c.mid[e];
        const double h = std::sqrt(std::max(l[0] * a.c.h2[e] + l[1] * b.c.h2[e] + l[2] * c.c.h2[e], 0.0));
        lo = std::max(lo, mid - h), hi = std::min(hi, mid + h);
      }
      const double G = std::max(hi - lo, 0.0), m = 0.5 * (lo + hi), q = m * m + G * G / 12;
      const double w = kQw[k] * sub * G;
      acc.g += w, acc.gu += w * u, acc.gv += w * v, acc.gm += w * m;
      acc.guu += w * u * u, acc.gvv += w * v * v, acc.guv += w * u * v;
      acc.gum += w * u * m, acc.gvm += w * v * m, acc.gq += w * q;
    }
  };
  // Barycentric grid (i, j) / n: the upward and downward sub-triangles.
  const auto at = [&](int i, int j) { return std::array<double, 3>{1 - double(i + j) / n, double(i) / n, double(j) / n}; };
  for (int i = 0; i < n; ++i)
    for (int j = 0; i + j < n; ++j) {
      add(at(i, j), at(i + 1, j), at(i, j + 1));
      if (i + j + 1 < n) add(at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
    }
}

// ∫ over a triangle of G·{1, u, v, m, u², v², uv, um, vm, q} with G, m, q interpolated linearly.
void integrate_triangle(const FieldVertex& a, const FieldVertex& b, const FieldVertex& c, Accum& acc) {
  const double area = 0.5 * std::abs((b.u - a.u) * (c.v - a.v) - (c.u - a.u) * (b.v - a.v));
  if (area == 0) return;
  acc.area += area;
  if (acc.hyper_n == 1 && chords_hold(a, b, c)) return integrate_chords(a, b, c, area, acc);
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
  // At a silhouette (a rim cut whose set is one cell's own chord), or where every corner's set is one cell's chord,
  // G² is the smooth field (a chord² is linear across its silhouette; a ball's is a quadratic in u, v), so G² is
  // interpolated instead: a linear G across a √-shaped rim loses O(s^1.5) per unit of rim, which the Richardson
  // step (built for s²) leaves. ∫G is then exact for the interpolated G² (triangle_power_integral, n = ½) and
  // scales the rule's weights.
  const auto silhouette = [](const FieldVertex& x) { return x.c.rim && x.c.graze; };
  bool graze = (a.c.graze && b.c.graze && c.c.graze) || silhouette(a) || silhouette(b) || silhouette(c);
  double scale = 1;
  if (graze) {
    double sum = 0;
    for (int k = 0; k < 4; ++k)
      sum += kQw[k] * std::sqrt(std::max(kQb[k][0] * a.c.G * a.c.G + kQb[k][1] * b.c.G * b.c.G +
                                             kQb[k][2] * c.c.G * c.c.G, 0.0));
    const double exact = triangle_power_integral(a.c.G * a.c.G, b.c.G * b.c.G, c.c.G * c.c.G, 0.5, 1.0);
    scale = exact / sum;
    graze = sum > 0;  // else G is 0 at every corner: the linear rule
  }
  for (int k = 0; k < 4; ++k) {
    const double l0 = kQb[k][0], l1 = kQb[k][1], l2 = kQb[k][2];
    const double u = l0 * a.u + l1 * b.u + l2 * c.u, v = l0 * a.v + l1 * b.v + l2 * c.v;
    const double G = graze ? scale * std::sqrt(std::max(l0 * a.c.G * a.c.G + l1 * b.c.G * b.c.G +
                                                            l2 * c.c.G * c.c.G, 0.0))
                           : l0 * a.c.G + l1 * b.c.G + l2 * c.c.G;
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
}  // namespace

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
    if (L->c.in != P1->c.in) acc.rim += std::hypot(acc.stretch * (p.u - q.u), p.v - q.v);
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
    if (nc == 2) {
      const FieldVertex &p0 = poly[cuts[0]], &p1 = poly[cuts[1]];
      acc.rim += std::hypot(acc.stretch * (p0.u - p1.u), p0.v - p1.v);
    }
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
  for (int e = 0; e < 2; ++e) {
    const size_t begin = e ? pr.n_i : 0, end = e ? pr.prims.size() : pr.n_i;
    if (end - begin != 1 || pr.prims[begin].complement) continue;
    const PrimitiveKind k = pr.prims[begin].kind;
    if (k == PrimitiveKind::Sphere || k == PrimitiveKind::Ellipsoid || k == PrimitiveKind::Capsule ||
        k == PrimitiveKind::Torus)
      pr.faces[e] = Pair::kOneFace;
    else if (k == PrimitiveKind::Cylinder || k == PrimitiveKind::Cone)
      pr.faces[e] = Pair::kFaces;  // bounded: the whole chord has finite ends
    else
      continue;
    Vec3 lo, hi;
    placed_cell_bounds(pr.prims, begin, end, lo, hi);
    const double margin = 1e-3 * (hi.z() - lo.z());
    pr.reach[e][0] = lo.z() - margin, pr.reach[e][1] = hi.z() + margin;
  }
  return pr;
}

}  // namespace vcsim::geo::column
