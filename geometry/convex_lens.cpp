#include "geometry/convex_lens.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "geometry/hulls_apart.h"
#include "geometry/lens_faces.h"
#include "geometry/lens_rules.h"
#include "geometry/line_sets.h"

namespace vcsim::geo {
namespace {

using lines::kInf;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // a search hint: none
using lines::Placed;
using lines::Span;
using namespace lens;

// A column of the lens: the signed gap G = min(hi) − max(lo) over every primitive's chord (negative outside the
// footprint, continuous across its rim for quadrics), and which faces bound it.
struct Column {
  double G = -kInf, lo = 0, hi = 0;
  double E = -kInf;  // for the searches: G, finite (negative) also where G is −∞ (below)
  double margin = kInf;  // how far inside the faces parallel to the column it runs (parallel_margin)
  // min(G, margin): positive exactly where G is, and continuous also across a parallel face, where G jumps. The
  // searches for maxima and for the footprint's extent use it.
  double S = -kInf;
  long sig = 0;
};

// Moments of columns: ∫G, ∫G u, ∫G v, ∫G m (m the column's mid z), ∫G u², ∫G uv, ∫G u m, ∫G v², ∫G v m, ∫∫z².
struct Sums {
  std::array<double, 10> s{};
  void add(double w, double u, double v, const Column& c) {
    if (!(c.G > 0)) return;
    const double g = w * c.G, m = 0.5 * (c.lo + c.hi), q = (c.lo * c.lo + c.lo * c.hi + c.hi * c.hi) / 3;
    const double t[10] = {g, g * u, g * v, g * m, g * u * u, g * u * v, g * u * m, g * v * v, g * v * m, g * q};
    for (int k = 0; k < 10; ++k) s[k] += t[k];
  }
  void add(double w, const Sums& o) {
    for (int k = 0; k < 10; ++k) s[k] += w * o.s[k];
  }
};

// What a row looks like: the faces along it (consecutive duplicates removed) and the faces just beyond its ends.
// The row integral F(u) is smooth while this stays the same; where it changes (a footprint corner, a kink curve
// starting or ending) F has a kink or a power-law point, located by bisection on the shape.
struct RowShape {
  std::vector<long> sigs;
  long out_lo = 0, out_hi = 0;
  bool empty = true;
  bool operator==(const RowShape& o) const {
    return empty == o.empty && (empty || (sigs == o.sigs && out_lo == o.out_lo && out_hi == o.out_hi));
  }
};

struct Row {
  double u = 0, mid = 0;  // mid: a column inside the row (for the next row's start)
  double v0 = 0, v1 = 0;  // its edges
  Sums sums;
  RowShape shape;
  bool ok = true;
};

// Splits at face switches (in a row) and at row shape changes (across rows) before giving up: a footprint with more
// corners and kink curves than this is left to the column engine.
constexpr int kMaxSwitches = 16;
constexpr double kPi = 3.14159265358979323846;
using Vec2 = Eigen::Vector2d;
using Mat2 = Eigen::Matrix2d;

// Points known inside the footprint, ascending in u. The footprint is convex, so the segment between two of them lies
// inside it: a row between two starts from their interpolation, inside without a search however far the footprint
// drifts along the rows (a cone's tip on a capsule: 1e-2 m over an extent of 2.7e-3 m).
struct InsidePoints {
  std::vector<Vec2> p;
  std::vector<Vec2>::const_iterator first_from(double u) const {
    return std::lower_bound(p.begin(), p.end(), u, [](const Vec2& q, double x) { return q.x() < x; });
  }
  void add(double u, double y) {
    const auto at = first_from(u);
    if (at == p.end() || at->x() != u) p.insert(at, Vec2(u, y));
  }
  // The interpolation at u; beyond the outermost points (a tip's last 1e-7 of the box) the nearest's y.
  double at(double u) const {
    const auto hi = first_from(u);
    if (hi == p.begin()) return p.front().y();
    if (hi == p.end()) return p.back().y();
    const auto lo = hi - 1;
    return lo->y() + (hi->y() - lo->y()) * (u - lo->x()) / (hi->x() - lo->x());
  }
};

// A sphere's or an ellipsoid's chords along the lens's columns, in the primitive's frame scaled to the unit ball: the
// column at (u, v) is x = p0 u + p1 v + q + s p2, so a chord takes no division (line_span's scaling takes six, and
// chords were 40 % of an ellipsoid pair's query).
struct UnitBallColumns {
  bool on = false;
  Vec3 p0, p1, q, p2;
  double a = 0;  // |p2|²
  Span at(double u, double v) const {
    const Vec3 x = p0 * u + p1 * v + q;
    Span s;
    s.lo = -kInf, s.hi = kInf;
    lines::clip_quadratic(a, x.dot(p2), x.squaredNorm() - 1, 0, s);
    return s;
  }
};
UnitBallColumns unit_ball_columns(const Placed& p) {
  UnitBallColumns f;
  if (p.complement || (p.kind != PrimitiveKind::Sphere && p.kind != PrimitiveKind::Ellipsoid)) return f;
  const Vec3 scale = p.kind == PrimitiveKind::Sphere ? Vec3(Vec3::Constant(1 / p.r)) : p.inv_radii;
  f.on = true;
  f.p0 = scale.cwiseProduct(p.A.col(0)), f.p1 = scale.cwiseProduct(p.A.col(1)), f.p2 = scale.cwiseProduct(p.A.col(2));
  f.q = scale.cwiseProduct(p.b), f.a = f.p2.squaredNorm();
  return f;
}

struct Lens {
  std::vector<Placed> prims;
  std::vector<UnitBallColumns> balls;  // per primitive (on for spheres and ellipsoids)
  Vec3 lo, hi;  // the overlap of the two cells' boxes
  double size = 0, tolerance = 0;
  // Errors allowed whatever a piece's own integral: 1e-3 of the share of a row (set per row) or of V (below), so a
  // sliver next to a kink or a tip does not have to be integrated to the tolerance relative to itself.
  double row_floor = 0;
  long evaluations = 0;
  int switches_left = 0;  // face switches a row may still split at
  double v_reach = 0;     // how far across the rows the footprint reaches from a point inside it (set once known)

  Column at(double u, double v) {
    ++evaluations;
    Column c;
    double lo_z = -kInf, hi_z = kInf, lo_rest = -kInf, hi_rest = kInf;  // rest: without the faces missed beside
    long slo = 0, shi = 0;
    for (size_t k = 0; k < prims.size(); ++k) {
      Span s, rest;
      if (balls[k].on) {  // no face parallel to the column
        s = rest = balls[k].at(u, v);
      } else {
        const Placed& p = prims[k];
        const Vec3 o = p.A.col(0) * u + p.A.col(1) * v + p.b, w = p.A.col(2);
        s = lines::line_span(p, o, w);
        const double margin = parallel_margin(p, o, w);
        c.margin = std::min(c.margin, margin);
        rest = margin >= 0 ? s : chord_without_parallel_faces(p, o, w);
      }
      if (s.lo > lo_z) lo_z = s.lo, slo = static_cast<long>(k) * 8 + s.face_lo;
      if (s.hi < hi_z) hi_z = s.hi, shi = static_cast<long>(k) * 8 + s.face_hi;
      lo_rest = std::max(lo_rest, rest.lo), hi_rest = std::min(hi_rest, rest.hi);
    }
    c.lo = lo_z, c.hi = hi_z, c.sig = slo * 4096 + shi;
    c.G = std::isfinite(hi_z - lo_z) ? hi_z - lo_z : -kInf;
    c.E = c.G;
    if (c.G == -kInf) {
      // A column parallel to a cylinder's side and outside it misses it everywhere: no chord, not even an inverted
      // one. The edge searches need E to grow toward the footprint there: minus the largest distance of the
      // column's point at z = 0 from the primitives (negative, finite). One signature for every such column (the
      // faces that won the max and min say nothing there).
      double miss = 0;
      for (const Placed& p : prims) miss = std::max(miss, lines::sdf_local(p, p.A.col(0) * u + p.A.col(1) * v + p.b));
      c.E = -std::max(miss, 1e-300);
      c.sig = -1;
    }
    // S = min(gap without the faces missed beside, margin): concave like G (each chord's ends are), positive exactly
    // where G is, and continuous across a parallel face too.
    const double rest = std::isfinite(hi_rest - lo_rest) ? hi_rest - lo_rest : -kInf;
    c.S = std::min(rest, c.margin);
    if (!(c.S > -kInf)) c.S = c.E;
    return c;
  }

  // The edge of the row at u between an inside column (y_in) and the box's side `y_out`. Where a face parallel to
  // the columns lies between, G jumps there: its margin (continuous, concave along the row) is searched first, and
  // the edge is that face when G is still positive just inside it; otherwise the rim lies before and G (finite
  // there) is searched between.
  // `hint`: a guess of the edge (a neighbouring row's), NaN for none: the bracket starts there, widened outward
  // by steps growing 4× until a column outside is found. `precision`: relative to the box.
  Edge row_edge(double u, double y_in, Column c_in, double y_box, double hint, double precision = 1e-10) {
    const double tol = precision * size, dir = y_box > y_in ? 1.0 : -1.0;
    double y_out = y_box;
    Column c_out;
    bool bracketed = false;
    if (std::isfinite(hint) && dir * (hint - y_in) > 0) {
      double step = std::max(1e-3 * std::abs(hint - y_in), 1e-9 * size);
      for (double y = hint; dir * (y_box - y) > 0; y += dir * step, step *= 4) {
        const Column c = at(u, y);
        if (!(c.G > 0)) {
          y_out = y, c_out = c, bracketed = true;
          break;
        }
        y_in = y, c_in = c;
      }
    }
    if (!bracketed) {
      c_out = at(u, y_out);
      if (c_out.G > 0) return Edge{y_out, y_out, c_out.sig, c_out.sig};  // the row reaches the box: cut there
    }
    if (c_out.margin <= 0 && c_in.margin > 0) {
      auto margin = [&](double y) { return std::pair<double, long>(at(u, y).margin, 0); };
      const Edge m = find_edge(margin, y_in, c_in.margin, 0, y_out, c_out.margin, 0, tol);
      const Column c_m = at(u, m.in);
      if (c_m.G > 0) return Edge{m.in, m.out, c_m.sig, -1};  // -1: the signature of columns beside a missed face
      y_out = m.in, c_out = c_m;
    }
    auto column = [&](double y) {
      const Column c = at(u, y);
      return std::pair<double, long>(c.E, c.sig);
    };
    return find_edge(column, y_in, c_in.E, c_in.sig, y_out, c_out.E, c_out.sig, tol);
  }

  // Where the faces bounding the row at u switch between ya (signature sa) and yb (sb): false position on the
  // difference of the two faces' chord ends (or, at a capsule's junction, on the end's height past its plane) when one
  // end changes hands, else bisection.
  double face_switch(double u, double ya, long sa, double yb, long sb) {
    const double tol = 1e-10 * size;
    const long loa = sa / 4096, lob = sb / 4096, hia = sa % 4096, hib = sb % 4096;
    const bool lo_changes = loa != lob, hi_changes = hia != hib;
    if (sa >= 0 && sb >= 0 && lo_changes != hi_changes) {
      // The changed end is max (lo) or min (hi) over faces: where it changes hands the two faces' ends are equal,
      // a sign change of their difference, continuous: false position. Each face alone where it can be isolated,
      // else its whole primitive (enough when the two faces belong to different primitives).
      const long fa = lo_changes ? loa : hia, fb = lo_changes ? lob : hib;
      const Placed& pa = prims[static_cast<size_t>(fa / 8)];
      Placed qa, qb;
      const bool alone = face_alone(pa, static_cast<int>(fa % 8), qa) &&
                         face_alone(prims[static_cast<size_t>(fb / 8)], static_cast<int>(fb % 8), qb);
      if (!alone) qa = pa, qb = prims[static_cast<size_t>(fb / 8)];
      // A capsule's side and one of its end balls are tangent along the junction circle: their ends' difference
      // touches 0 there without changing sign. Their switch is where the capsule's chord end crosses the junction's
      // plane z = ±h (its frame) instead, a sign change too (bisection to 1e-10 of the box took ~33 columns a switch,
      // a quarter of a cone–capsule query's).
      const bool junction = fa / 8 == fb / 8 && pa.kind == PrimitiveKind::Capsule && (fa % 8 == 0) != (fb % 8 == 0);
      const int cap = static_cast<int>(fa % 8 == 0 ? fb % 8 : fa % 8);  // 2: the ball at z = −h, 3: at z = +h
      auto end = [&](const Placed& q, double y) {
        ++evaluations;
        const Span s = lines::line_span(q, q.A.col(0) * u + q.A.col(1) * y + q.b, q.A.col(2));
        return lo_changes ? s.lo : s.hi;
      };
      auto crossing = [&](double y) {
        if (!junction) return end(qa, y) - end(qb, y);
        const double z = pa.A(2, 0) * u + pa.A(2, 1) * y + pa.b.z() + end(pa, y) * pa.A(2, 2);
        return cap == 2 ? -pa.half_length - z : z - pa.half_length;  // past the plane, towards the cap
      };
      if (junction || alone || fa / 8 != fb / 8) {
        const double da = crossing(ya), db = crossing(yb);
        if (std::isfinite(da) && std::isfinite(db) && (da > 0) != (db > 0)) {
          if (da == 0) return ya;
          const double sign = da > 0 ? 1.0 : -1.0;
          auto d = [&](double y) { return std::pair<double, long>(sign * crossing(y), 0); };
          const Edge e = find_edge(d, ya, sign * da, 0, yb, sign * db, 0, tol);
          return 0.5 * (e.in + e.out);
        }
      }
    }
    while (std::abs(yb - ya) > tol) {
      const double ym = 0.5 * (ya + yb);
      (at(u, ym).sig == sa ? ya : yb) = ym;
    }
    return 0.5 * (ya + yb);
  }

  // ∫ over [a, b] of the row at u, added to `sums`: the 9-node rule against the 5-node one, then 17 against 9, then
  // halves (at most `depth` levels); a change of faces between neighbouring nodes splits it there first. The error
  // allowed: a quarter of the tolerance relative to the piece's own integral (the pieces add up to the row), or
  // row_floor. `given`: the 9-node rule's interior columns on [a, b] when already evaluated (the row's shape).
  bool segment(double u, double a, double b, int depth, Sums& sums, const std::array<Column, 8>* given = nullptr) {
    // The sine map gives the segment's ends weight 0: only the interior nodes are evaluated (an end sits on a face
    // switch or on the row's edge, where its faces are ambiguous anyway).
    std::array<Column, 17> col;
    std::array<double, 17> y;
    const Mapped m16(cc_rule(16), a, b);
    for (int k = 2; k < 16; k += 2) y[k] = m16.x[k], col[k] = given ? (*given)[k / 2] : at(u, y[k]);
    int step = 2;
    for (;;) {
      // A change of faces between neighbouring nodes: split there, each side on its own. Not in a sliver narrower
      // than the switch search's precision, which would find the same switch again and again (a ball on a
      // cylinder's rim: rows spent their 16 splits within 1e-11 m); its share is far below row_floor anyway.
      for (int k = step; k + 2 * step <= 16 && b - a > 1e-9 * size; k += step) {
        if (col[k].sig == col[k + step].sig || !(col[k].G > 0) || !(col[k + step].G > 0)) continue;
        if (switches_left-- <= 0) return false;
        const double c = face_switch(u, y[k], col[k].sig, y[k + step], col[k + step].sig);
        return segment(u, a, c, depth, sums) && segment(u, c, b, depth, sums);
      }
      const Mapped& fine = step == 2 ? Mapped(cc_rule(8), a, b) : m16;
      const Mapped coarse(cc_rule(step == 2 ? 4 : 8), a, b);
      Sums f, c;
      for (int k = step, j = 1; k < 16; k += step, ++j) f.add(fine.w[j], u, y[k], col[k]);
      for (int k = 2 * step, j = 1; k < 16; k += 2 * step, ++j) c.add(coarse.w[j], u, y[k], col[k]);
      // The half-order rule's error over 8: the finer rule's (p ≥ 3: G is smooth between face switches, and the
      // sine map makes the square-root ends smooth).
      const double error = std::abs(f.s[0] - c.s[0]) / 8;
      if (error <= std::max(0.25 * tolerance * std::abs(f.s[0]), row_floor)) {
        sums.add(1.0, f);
        return true;
      }
      if (step == 1) {
        if (depth == 0) return false;
        const double mid = 0.5 * (a + b);
        return segment(u, a, mid, depth - 1, sums) && segment(u, mid, b, depth - 1, sums);
      }
      step = 1;
      for (int k = 1; k < 16; k += 2) y[k] = m16.x[k], col[k] = at(u, y[k]);
    }
  }

  // The row at u: its edges and shape, then (when `integrate`) its integral. y_guess: a column likely inside (one
  // interpolated between points known inside; searched around when it is not).
  // near: a row close by whose edges start the searches (none: from the box's sides).
  Row row(double u, double y_guess, bool integrate = true, const Row* near = nullptr) {
    Row r;
    r.u = u, r.mid = y_guess;
    double y_in = y_guess;
    Column c_in = at(u, y_in);
    if (!(c_in.G > 0)) {
      // Near the guess first, then over the whole row: outside the footprint E need not be concave, and Brent over
      // the whole row alone settled on a side maximum of a row that crosses the footprint (as in row_max below).
      auto E = [&](double y) { return at(u, y).E; };
      double g;
      if (v_reach > 0) {
        y_in = positive_max(E, std::max(lo.y(), y_guess - 2 * v_reach), std::min(hi.y(), y_guess + 2 * v_reach),
                            1e-7 * size, g);
        c_in = at(u, y_in);
      }
      if (!(c_in.G > 0)) {
        y_in = brent_max(E, lo.y(), hi.y(), 1e-7 * size, g);
        c_in = at(u, y_in);
      }
      if (!(c_in.G > 0)) return r;  // a row at the footprint's tip: empty
    }
    const bool hints = near && !near->shape.empty;
    const Edge e0 = row_edge(u, y_in, c_in, lo.y(), hints ? near->v0 : kNaN);
    const Edge e1 = row_edge(u, y_in, c_in, hi.y(), hints ? near->v1 : kNaN);
    r.v0 = e0.in, r.v1 = e1.in;
    r.mid = 0.5 * (e0.in + e1.in);
    // The shape: the faces at the edges, beyond them, and at the 9-node rule's interior nodes.
    std::array<Column, 8> nodes;
    const Mapped m8(cc_rule(8), e0.in, e1.in);
    r.shape.empty = false;
    r.shape.out_lo = e0.sig_out, r.shape.out_hi = e1.sig_out;
    r.shape.sigs.push_back(e0.sig_in);
    for (int k = 1; k < 8; ++k) {
      nodes[k] = at(u, m8.x[k]);
      if (nodes[k].G > 0 && nodes[k].sig != r.shape.sigs.back()) r.shape.sigs.push_back(nodes[k].sig);
    }
    if (e1.sig_in != r.shape.sigs.back()) r.shape.sigs.push_back(e1.sig_in);
    if (!integrate) return r;
    row_floor = 1e-3 * 0.25 * tolerance * std::abs(c_in.G * (e1.in - e0.in));
    switches_left = kMaxSwitches;
    // Faces that bound the row's ends but none of its nodes (a ring of a cone's side around its flat top, thinner
    // than the nodes' spacing) would go unseen: split where the faces change between each edge and the inside.
    const double c0 = e0.sig_in == c_in.sig ? e0.in : face_switch(u, e0.in, e0.sig_in, y_in, c_in.sig);
    const double c1 = e1.sig_in == c_in.sig ? e1.in : face_switch(u, y_in, c_in.sig, e1.in, e1.sig_in);
    const bool whole = c0 == e0.in && c1 == e1.in;
    r.ok = (c0 == e0.in || segment(u, e0.in, c0, 3, r.sums)) && segment(u, c0, c1, 3, r.sums, whole ? &nodes : nullptr) &&
           (c1 == e1.in || segment(u, c1, e1.in, 3, r.sums));
    return r;
  }
};

// The two cells' primitives placed in `frame`, and the overlap of their boxes there. False when the boxes miss.
bool place_lens(Lens& lens, const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b, const Pose& pose_b,
                const Pose& frame, double tolerance) {
  lens.tolerance = tolerance;
  for (const CellPrimitive& p : a) lens.prims.push_back(lines::place(p, pose_a, frame));
  const size_t na = lens.prims.size();
  for (const CellPrimitive& p : b) lens.prims.push_back(lines::place(p, pose_b, frame));
  for (const Placed& p : lens.prims) lens.balls.push_back(unit_ball_columns(p));
  Vec3 lo_a, hi_a, lo_b, hi_b;
  lines::placed_cell_bounds(lens.prims, 0, na, lo_a, hi_a);
  lines::placed_cell_bounds(lens.prims, na, lens.prims.size(), lo_b, hi_b);
  lens.lo = lo_a.cwiseMax(lo_b), lens.hi = hi_a.cwiseMin(hi_b);
  if ((lens.lo.array() >= lens.hi.array()).any() || !lens.lo.allFinite() || !lens.hi.allFinite()) return false;
  lens.size = std::max(lens.hi.x() - lens.lo.x(), lens.hi.y() - lens.lo.y());
  return true;
}

}  // namespace

bool convex_lens_pair(const CellPrimitives& a, const CellPrimitives& b) {
  for (const CellPrimitives* cell : {&a, &b})
    for (const CellPrimitive& p : *cell)
      if (p.complement || p.primitive.kind == PrimitiveKind::Torus || p.primitive.kind == PrimitiveKind::Mesh)
        return false;
  return true;
}

std::optional<RawMoments> convex_lens_moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& columns) {
  if (!convex_lens_pair(a, b)) return std::nullopt;
  long evaluations = 0;
  auto finish = [&](std::optional<RawMoments> m) {
    columns += evaluations;
    return m;
  };
  Lens first;
  if (!place_lens(first, a, pose_a, b, pose_b, frame, tolerance)) return std::nullopt;

  // The deepest column, by alternating searches along v and u (G is concave on the footprint and falls off outside
  // it): only a start, 1e-6 of the box is plenty.
  double u = 0.5 * (first.lo.x() + first.hi.x()), v = 0.5 * (first.lo.y() + first.hi.y()), g_best = -kInf;
  auto alternate = [&](int rounds) {
    for (int round = 0; round < rounds; ++round) {
      v = brent_max([&](double y) { return first.at(u, y).S; }, first.lo.y(), first.hi.y(), 1e-6 * first.size, g_best);
      u = brent_max([&](double x) { return first.at(x, v).S; }, first.lo.x(), first.hi.x(), 1e-6 * first.size, g_best);
    }
  };
  alternate(3);
  if (!(g_best > 0)) {
    // Outside the footprint S need not be concave (a cap's plane, a quadric's inverted chord), and a small lens in
    // a large box can be missed from the box's centre: restart from the best node of a 17 × 17 grid over the box.
    constexpr int kGrid = 17;
    double best = -kInf;
    for (int i = 0; i < kGrid; ++i)
      for (int j = 0; j < kGrid; ++j) {
        const double x = first.lo.x() + (i + 0.5) / kGrid * (first.hi.x() - first.lo.x());
        const double y = first.lo.y() + (j + 0.5) / kGrid * (first.hi.y() - first.lo.y());
        const double s = first.at(x, y).S;
        if (s > best) best = s, u = x, v = y;
      }
    alternate(6);
  }
  if (!(g_best > 0)) {
    // Still missed (a cone's tip in an ellipsoid, V 5e-9 m³ in a box of 40 mm): from a point of both hulls, which GJK
    // finds in microseconds (geometry/hulls_apart.h).
    if (const std::optional<Vec3> x = hulls_common_point(a, pose_a, b, pose_b)) {
      const Vec3 local = frame.inverse().apply(*x);
      const double s = first.at(local.x(), local.y()).S;
      if (s > 0) u = local.x(), v = local.y(), g_best = s;  // inside: where the footprint is, not its deepest column
    }
  }
  if (!(g_best > 0)) {  // not found: the column engine decides
    evaluations += first.evaluations;
    return finish(std::nullopt);
  }

  // Columns along the lens's own normal: the difference of the outward normals of the two faces bounding the deepest
  // column, at its ends (the query's normal, from the cells' gradients at the overlap box's centre, can be far off;
  // slanted columns see the silhouettes and kink curves of a thin lens). The moments do not depend on the axis.
  Quat tilt = Quat::Identity();
  {
    const Column deep = first.at(u, v);
    const long faces[2] = {deep.sig / 4096, deep.sig % 4096};  // lo, hi
    const double ends[2] = {deep.lo, deep.hi};
    Vec3 normal = Vec3::Zero();
    for (int e = 0; e < 2 && deep.sig >= 0; ++e) {
      const Placed& p = first.prims[static_cast<size_t>(faces[e] / 8)];
      const Vec3 x = p.A * Vec3(u, v, ends[e]) + p.b;
      const double h = 1e-6 * first.size;
      Vec3 grad;  // of the primitive's distance, central differences
      for (int i = 0; i < 3; ++i)
        grad[i] = lines::sdf_local(p, x + h * Vec3::Unit(i)) - lines::sdf_local(p, x - h * Vec3::Unit(i));
      if (grad.norm() > 0) normal += (e ? 1.0 : -1.0) * p.A.transpose() * grad.normalized();
    }
    if (normal.allFinite() && normal.norm() > 0.5 && normal.z() > 0) tilt = Quat::FromTwoVectors(Vec3::UnitZ(), normal);
    const Vec3 middle = tilt.conjugate() * Vec3(u, v, 0.5 * (deep.lo + deep.hi));
    u = middle.x(), v = middle.y();
  }
  evaluations += first.evaluations;
  const Pose tilted = frame.compose(Pose{Vec3::Zero(), tilt});
  Lens second;
  if (!place_lens(second, a, pose_a, b, pose_b, tilted, tolerance)) return finish(std::nullopt);
  g_best = second.at(u, v).S;
  if (!(g_best > 0)) {
    evaluations += second.evaluations;
    return finish(std::nullopt);
  }

  // Rows along the footprint's long axis: a cylinder lying across a flat end gives a strip cut by a disc, whose rows
  // across would change shape at the strip's corners (kinks of F to locate) but along it do not. The axis: the
  // principal axis of eight rim points around the deepest column (false position along each ray).
  Mat2 spread = Mat2::Zero();
  double reach[8];
  for (int k = 0; k < 8; ++k) {
    const Vec2 d(std::cos(k * kPi / 4), std::sin(k * kPi / 4));
    double t_out = kInf;  // where the ray leaves the box
    for (int i = 0; i < 2; ++i)
      if (d[i] != 0) t_out = std::min(t_out, ((d[i] > 0 ? second.hi[i] : second.lo[i]) - (i ? v : u)) / d[i]);
    auto along = [&](double t) {
      const Column c = second.at(u + t * d.x(), v + t * d.y());
      return std::pair<double, long>(c.S, 0);
    };
    const double e_out = along(t_out).first;
    const double t = e_out > 0 ? t_out : find_edge(along, 0, g_best, 0, t_out, e_out, 0, 1e-4 * second.size).in;
    spread += t * t * d * d.transpose();
    reach[k] = t;
  }
  evaluations += second.evaluations;
  const double axis = 0.5 * std::atan2(2 * spread(0, 1), spread(0, 0) - spread(1, 1));  // of the largest spread
  // A scale of V for the outer error floor: the deepest gap over half the octagon of the rim points.
  double octagon = 0;
  for (int k = 0; k < 8; ++k) octagon += 0.5 * reach[k] * reach[(k + 1) % 8] * std::sin(kPi / 4);
  const double v_floor = 1e-3 * 0.5 * tolerance * 0.5 * g_best * octagon;
  const double turn = axis - 0.5 * kPi;  // v' along the axis
  const Pose turned = tilted.compose(Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(turn, Vec3::UnitZ()))});
  Lens lens;
  if (!place_lens(lens, a, pose_a, b, pose_b, turned, tolerance)) return finish(std::nullopt);
  {
    const double c = std::cos(turn), s = std::sin(turn), u_old = u;
    u = c * u_old + s * v, v = -s * u_old + c * v;
  }
  const Vec3 &lo = lens.lo, &hi = lens.hi;

  // The rim points' spread across the rows: where a row's searches look first, around a point inside the footprint.
  double& v_reach = lens.v_reach;
  for (int k = 0; k < 8; ++k) v_reach = std::max(v_reach, std::abs(std::sin(k * kPi / 4 - turn) * reach[k]));

  // The footprint's extent in u: where the row's highest column reaches zero (its value near the tip good to
  // ~1e-14 of the box, the argument to 1e-7).
  InsidePoints inside;  // the deepest column, each row maximum the extent searches find, each row's middle
  inside.add(u, v);
  // A row found crossing the footprint: the lowest and highest columns seen inside it, and the nearest seen beyond
  // them (−∞ and +∞ for none: located when needed).
  struct Crossing {
    double u = 0, in_lo = 0, in_hi = 0, out_lo = -kInf, out_hi = kInf;
  };
  std::vector<Crossing> track;  // this side's crossings, from the deepest column's row to the one nearest the tip
  std::vector<Vec2> seen;       // the columns the row searches below evaluated on the current row: (y, S)
  double y_peak = v;  // the last row maximum found inside the footprint
  auto row_max = [&](double x) {
    // First near the last maximum (the footprint is convex, so it moves little from row to row): cheap, and where
    // it finds a positive column the row crosses the footprint for certain. Outside the footprint S need not be
    // concave (a cone's tip beside a ball), so finding nothing there does not make the row clear.
    seen.clear();
    auto S = [&](double y) {
      const double s = lens.at(x, y).S;
      seen.emplace_back(y, s);
      return s;
    };
    double best;
    double y = positive_max(S, std::max(lo.y(), y_peak - 2 * v_reach), std::min(hi.y(), y_peak + 2 * v_reach),
                            1e-7 * lens.size, best);
    if (!(best > 0) && track.size() >= 2) {
      // Then where the row must cross if it does. The footprint is convex: the segment from a column of this row
      // inside to one inside an earlier crossing passes the last crossing inside, so this row's stretch lies
      // between the lines from each earlier crossing's columns inside through the last one's columns beyond (a side
      // with none seen beyond is located first). Where those bounds have crossed, the row is clear for certain.
      // The footprint can drift along the rows far beyond the rim points' spread: a cone's tip on a capsule, where
      // Brent over the whole row, which stood here, settled on a side maximum and kept 73 % of V.
      Crossing &b = track.back(), &before = track[track.size() - 2];
      auto beyond = [&](double& out, double& in, double side, double hint) {  // hint: the crossing before's
        if (std::isfinite(out)) return;
        const Edge e = lens.row_edge(b.u, in, lens.at(b.u, in), side, std::isfinite(hint) ? hint : kNaN, 1e-7);
        in = e.in, out = e.out;
      };
      beyond(b.out_lo, b.in_lo, lo.y(), before.out_lo), beyond(b.out_hi, b.in_hi, hi.y(), before.out_hi);
      double w0 = lo.y(), w1 = hi.y();
      for (size_t k = 0; k + 1 < track.size(); ++k) {
        const Crossing& a = track[k];
        const double t = (x - a.u) / (b.u - a.u);  // > 1: x lies beyond both
        w0 = std::max(w0, (1 - t) * a.in_lo + t * b.out_lo), w1 = std::min(w1, (1 - t) * a.in_hi + t * b.out_hi);
      }
      double in_window = -kInf;  // 8 samples: 16 cost an ellipsoid on a ball 3 % more columns and found nothing more
      const double y_window = w0 < w1 ? positive_max(S, w0, w1, 1e-7 * lens.size, in_window, 8) : y;
      if (in_window > best) best = in_window, y = y_window;
    }
    if (best > 0) {
      y_peak = y;
      Crossing c{x, y, y};
      for (const Vec2& p : seen)
        if (p.y() > 0) c.in_lo = std::min(c.in_lo, p.x()), c.in_hi = std::max(c.in_hi, p.x());
      for (const Vec2& p : seen) {
        if (p.y() > 0) continue;
        if (p.x() < c.in_lo) c.out_lo = std::max(c.out_lo, p.x());
        if (p.x() > c.in_hi) c.out_hi = std::min(c.out_hi, p.x());
      }
      track.push_back(c);
      inside.add(x, y);
    }
    return std::pair<double, long>(best, 0);
  };
  // Bracketed from the rim point reaching furthest that way (inside), stepping outward by steps growing 4× until a
  // row misses the footprint, or the box's side.
  auto extent = [&](double dir) {
    y_peak = v;  // each side's search starts from the deepest column, not from where the other side's ended
    track.assign(1, Crossing{u, v, v});
    double u_in = u, g_in = g_best;
    for (int k = 0; k < 8; ++k) {
      const double c = std::cos(k * kPi / 4 - turn) * reach[k];  // the rim point's u in the turned frame, less u
      if (dir * c > dir * (u_in - u)) u_in = u + c, y_peak = v + std::sin(k * kPi / 4 - turn) * reach[k];
    }
    if (u_in != u) g_in = row_max(u_in).first;
    if (!(g_in > 0)) u_in = u, g_in = g_best;
    const double box = dir > 0 ? hi.x() : lo.x();
    double u_out = box, g_out = -kInf;
    for (double step = 1e-2 * std::abs(u_in - u) + 1e-6 * lens.size, x = u_in + dir * step; dir * (box - x) > 0;
         step *= 4, x = u_in + dir * step) {
      g_out = row_max(x).first;
      if (!(g_out > 0)) {
        u_out = x;
        break;
      }
      u_in = x, g_in = g_out;
    }
    if (u_out == box) {
      g_out = row_max(box).first;
      if (g_out > 0) return box;
    }
    // To 1e-7 of the box, not 1e-10: a tip placed δ inside moves V by ~δ^2.5 of it, and the last three digits took
    // 10-15 % of a query's columns (bench_every_pair, the lens's pairs).
    return find_edge(row_max, u_in, g_in, 0, u_out, g_out, 0, 1e-7 * lens.size).in;
  };
  const double u0 = extent(-1), u1 = extent(1);

  Row last;  // the row evaluated last: its edges start the next row's searches
  std::vector<Row> kept;  // rows the tip check below evaluated at the outer rule's nodes
  auto row_at = [&](double x) {
    for (const Row& k : kept)
      if (k.u == x) return k;
    Row r = lens.row(x, inside.at(x), true, last.shape.empty ? nullptr : &last);
    if (!r.shape.empty) last = r, inside.add(r.u, r.mid);
    return r;
  };
  Sums total;
  int kinks_left = kMaxSwitches;
  const double kink_precision = 1e-4 * (u1 - u0);
  // The u where the shape changes between rows ra and rb (bisection; a kink misplaced by δ costs ~δ² of V).
  auto kink_between = [&](const Row& ra, const Row& rb) {
    double ua = ra.u, ub = rb.u;
    while (std::abs(ub - ua) > kink_precision) {
      const double um = 0.5 * (ua + ub);
      (lens.row(um, inside.at(um), false, &ra).shape == ra.shape ? ua : ub) = um;
    }
    return 0.5 * (ua + ub);
  };
  // The outer integral over [s0, s1]: rows at the sine-mapped Clenshaw–Curtis nodes, 9 then 17. Where neighbouring
  // rows differ in shape, F has a kink between them: located, and each side integrated on its own. Otherwise the
  // 9-node rule against the 5-node one, then 17 against 9, then halves (at most `depth` levels). The error allowed:
  // half the tolerance relative to the segment's own integral (the segments add up to V), or v_floor. False when
  // the segment cannot meet it.
  std::function<bool(double, double, int)> outer = [&](double s0, double s1, int depth) {
    std::array<Row, 17> rows;
    const Mapped m16(cc_rule(16), s0, s1);
    for (int k = 2; k < 16; k += 2) rows[k] = row_at(m16.x[k]);
    for (int step = 2;; step = 1) {
      for (int k = step; k + 2 * step <= 16; k += step) {
        if (rows[k].shape == rows[k + step].shape) continue;
        // A kink already located at the segment's end shows again between rows closer to it than its precision.
        if (rows[k].u - s0 < 2 * kink_precision || s1 - rows[k + step].u < 2 * kink_precision) continue;
        // Once the kinks allowed are spent, the rules below judge the segment as it is (it meets the tolerance or is
        // halved, else the lens declines): where a face's switch runs along the footprint's rim, within the edge
        // search's precision, rows' shapes flip at random though F hardly kinks (a ball on a cylinder's rim: 16
        // "kinks" within 5 % of the footprint, and the column engine took 6 ms).
        if (kinks_left <= 0) break;
        --kinks_left;
        const double c = kink_between(rows[k], rows[k + step]);
        return outer(s0, c, depth) && outer(c, s1, depth);
      }
      const Mapped fine(cc_rule(16 / step), s0, s1), coarse(cc_rule(8 / step), s0, s1);
      Sums f, c;
      bool rows_ok = true;
      for (int k = step, j = 1; k < 16; k += step, ++j) f.add(fine.w[j], rows[k].sums), rows_ok &= rows[k].ok;
      for (int k = 2 * step, j = 1; k < 16; k += 2 * step, ++j) c.add(coarse.w[j], rows[k].sums);
      // The half-order rule's error over 8: the finer rule's, with p ≥ 3 (F smooth between kinks, ends sine-mapped).
      const double error = rows_ok ? std::abs(f.s[0] - c.s[0]) / 8 : kInf;
      if (error <= std::max(0.5 * tolerance * std::abs(f.s[0]), v_floor)) {
        total.add(1.0, f);
        return true;
      }
      if (step == 1) {
        if (depth == 0) return false;
        const double mid = 0.5 * (s0 + s1);
        return outer(s0, mid, depth - 1) && outer(mid, s1, depth - 1);
      }
      for (int k = 1; k < 16; k += 2) rows[k] = row_at(m16.x[k]);
    }
  };
  // Kinks of F right at the footprint's tips (a corner where a disc's rim meets a strip's edge) lie between the tip
  // and the first node, where no two rows compare and where the sine map hides them from the estimate. A row next to
  // each tip (1e-5 of the extent in: a kink nearer than that moves V by ~1e-7 of it) is compared with the first row
  // of the 9-node rule.
  std::vector<double> cuts{u0};
  {
    const Mapped m8(cc_rule(8), u0, u1);
    const double span = u1 - u0;
    for (int side = 0; side < 2; ++side) {
      const Row inner = row_at(m8.x[side ? 7 : 1]);  // the outer rule's second and second-last rows (kept)
      kept.push_back(inner);
      const double x = side ? u1 - 1e-5 * span : u0 + 1e-5 * span;
      const Row tip = lens.row(x, inside.at(x), false, &inner);
      if (inner.shape.empty || tip.shape.empty || inner.shape == tip.shape || kinks_left <= 0) continue;
      --kinks_left;
      cuts.push_back(kink_between(tip, inner));
    }
  }
  cuts.push_back(u1);
  std::sort(cuts.begin(), cuts.end());
  bool ok_outer = true;
  for (size_t i = 0; i + 1 < cuts.size() && ok_outer; ++i) ok_outer = outer(cuts[i], cuts[i + 1], 4);
  const double V = total.s[0];
  evaluations += lens.evaluations;
  if (!ok_outer || !(V > 0)) return finish(std::nullopt);

  // Back from the turned frame to `frame`.
  const Mat3 R = tilt.toRotationMatrix() * Eigen::AngleAxisd(turn, Vec3::UnitZ()).toRotationMatrix();
  const auto& s = total.s;
  Mat3 m2;
  m2 << s[4], s[5], s[6], s[5], s[7], s[8], s[6], s[8], s[9];
  RawMoments m;
  m.m0 = s[0];
  m.m1 = R * Vec3(s[1], s[2], s[3]);
  m.m2 = R * m2 * R.transpose();
  return finish(m);
}

}  // namespace vcsim::geo
