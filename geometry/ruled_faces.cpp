#include "geometry/ruled_faces.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "geometry/lens_rules.h"
#include "geometry/line_sets.h"

namespace vcsim::geo {
namespace {

using lines::kInf;
constexpr double kPi = 3.14159265358979323846;

// One convex constraint of a cell, in the query frame Q: the region between two planes, or inside a quadric of
// revolution ρ ≤ c + k z (k = 0: a cylinder; k ≠ 0: one nappe of a cone). A hole's constraints (the complemented
// primitive's: a drilled hole, a slot) are met together: the points inside all of them are taken out of the cell.
struct Constraint {
  enum Kind { Slab, Quadric } kind = Slab;
  bool hole = false;
  int cell = 0;  // 0: cell a (and the tube mode's cuts), 1: cell b
  Vec3 p = Vec3::Zero();                        // a point on the axis (quadric: where ρ = c); the slab's origin
  Vec3 a = Vec3::UnitZ();                       // the slab's normal, the quadric's axis
  Vec3 e1 = Vec3::UnitX(), e2 = Vec3::UnitY();  // e1 × e2 = a
  double lo = -kInf, hi = kInf;                 // slab: lo ≤ a·(x − p) ≤ hi
  double c = 0, k = 0;                          // quadric: ρ ≤ c + k a·(x − p)
};

// The chord of a constraint along x = o + t w (w not necessarily unit): exact, and for a quadric the line misses an
// "inverted" chord (hi < lo) whose negative length grows with the distance from tangency, so that the chord's ends
// stay continuous across a tangency. A line along a quadric's generators or in a slab's planes is all or nothing.
struct Chord {
  double lo = -kInf, hi = kInf;
};
Chord chord(const Constraint& q, const Vec3& o, const Vec3& w) {
  Chord s;
  const Vec3 d = o - q.p;
  const double z0 = q.a.dot(d), zw = q.a.dot(w);
  if (q.kind == Constraint::Slab) {
    if (std::abs(zw) < 1e-15) {  // in the planes' direction (a box's faces along a ruling of another face)
      const double slack = 1e-12 * (1 + std::abs(z0));  // a ruling on the box's edge counts as inside
      if (z0 < q.lo - slack || z0 > q.hi + slack) s.lo = kInf, s.hi = -kInf;
      return s;
    }
    double t1 = (q.lo - z0) / zw, t2 = (q.hi - z0) / zw;
    if (t1 > t2) std::swap(t1, t2);
    s.lo = t1, s.hi = t2;
    return s;
  }
  const Vec3 dr = d - z0 * q.a, wr = w - zw * q.a;
  const double rc = q.c + q.k * z0, rw = q.k * zw;
  // ρ² − (c + k z)² = A t² + 2 B t + C along the line.
  const double A = wr.squaredNorm() - rw * rw, B = dr.dot(wr) - rc * rw, C = dr.squaredNorm() - rc * rc;
  // Along the generators (within 1e-12 rad): a cylinder's all or nothing, a cone's ray. Closer to parallel than
  // that, the status at one point of the ruling stands for all of it to 1e-12 of the lens's length; further, the
  // stable roots below stay exact (one far away, one where the ruling crosses).
  const double tiny = 1e-24 * w.squaredNorm();
  if (std::abs(A) <= tiny) {
    if (std::abs(B) <= 1e-300 || q.k == 0) {
      if (C > 1e-10 * rc * rc) s.lo = kInf, s.hi = -kInf;  // on the arc's ends (face_domain): inside
      return s;
    }
    const double t = -C / (2 * B);
    (B > 0 ? s.hi : s.lo) = t;
    return s;
  }
  const double disc = B * B - A * C;
  if (A > 0) {
    if (disc < 0) {
      const double mid = -B / A, half = std::sqrt(-disc) / A;
      s.lo = mid + half, s.hi = mid - half;
      return s;
    }
    const double sq = std::sqrt(disc), qq = -(B + std::copysign(sq, B));
    double r1 = qq / A, r2 = qq != 0 ? C / qq : -B / A;
    if (r1 > r2) std::swap(r1, r2);
    s.lo = r1, s.hi = r2;
    return s;
  }
  // A < 0 (a cone, the line steeper than its generators): two rays, one in each nappe; keep this nappe's
  // (c + k z ≥ 0 where the ray leaves the surface).
  if (disc < 0) return s;  // only through the apex itself (rounding): the whole line
  const double sq = std::sqrt(disc), qq = -(B + std::copysign(sq, B));
  double r1 = qq / A, r2 = qq != 0 ? C / qq : -B / A;
  if (r1 > r2) std::swap(r1, r2);
  if (rc + rw * r1 >= 0) s.hi = r1;
  else s.lo = r2;
  return s;
}

// The constraints of a placed primitive (x_prim = A x_Q + b), appended; false for a primitive this form does not take.
bool add_constraints(const lines::Placed& pl, int cell, std::vector<Constraint>& out) {
  const Mat3 At = pl.A.transpose();  // its columns: the primitive's axes in Q
  const Vec3 centre = -At * pl.b;
  auto axis = [&](int k) {
    Constraint c;
    c.hole = pl.complement, c.cell = cell;
    c.p = centre;
    c.a = At.col(k), c.e1 = At.col((k + 1) % 3), c.e2 = At.col((k + 2) % 3);
    return c;
  };
  auto slab = [&](int k, double lo, double hi) {
    Constraint c = axis(k);
    c.lo = lo, c.hi = hi;
    out.push_back(c);
  };
  auto quadric = [&](double c0, double k) {
    Constraint c = axis(2);
    c.kind = Constraint::Quadric;
    c.c = c0, c.k = k;
    out.push_back(c);
  };
  switch (pl.kind) {
    case PrimitiveKind::Box:
      for (int k = 0; k < 3; ++k) slab(k, -pl.half_size[k], pl.half_size[k]);
      return true;
    case PrimitiveKind::Cylinder:
      slab(2, -pl.half_length, pl.half_length);
      quadric(pl.r, 0);
      return true;
    case PrimitiveKind::Cone:  // radius r at z = −h, r2 at z = +h
      slab(2, -pl.half_length, pl.half_length);
      quadric(0.5 * (pl.r + pl.r2), (pl.r2 - pl.r) / (2 * pl.half_length));
      return true;
    case PrimitiveKind::InfiniteCylinder: quadric(pl.r, 0); return true;
    case PrimitiveKind::HalfSpace: slab(2, -kInf, 0); return true;
    case PrimitiveKind::Slab: slab(2, -pl.half_thickness, pl.half_thickness); return true;
    default: return false;
  }
}

// A face: the surface of one constraint where it bounds the region, swept by its rulings.
//  - a plane a·(x − p) = level (outward sign·a): rulings x = p + level a + σ v + t u (u, v: e1, e2, or turned 45°
//    where a cylinder's axis runs along e1);
//  - a quadric's side: rulings x = p + c e_r(σ) + t (a + k e_r(σ)), e_r = cos σ e1 + sin σ e2, t = a·(x − p);
//    n dA = (c + k t)(e_r − k a) dσ dt;
//  - a plane a hole crosses, in the ball mode (`polar`): rays x = centre + t (cos σ u + sin σ v), t ≥ 0, from where
//    the hole's axis meets it; n dA = sign a t dσ dt. The lens there is a ring about the hole (a ball seated on its
//    rim), which parallel rulings cross near its tangents, 0.5 µm wide at 1 µm deep: the rays cross it square.
struct Face {
  int constraint = 0;
  bool side = false;
  bool polar = false;
  Vec3 centre = Vec3::Zero();  // polar: on the hole's axis, inside the hole
  double sign = 1, level = 0;  // sign: −1 where the face bounds the cell from the other side (a side of a hole)
  Vec3 u = Vec3::UnitX(), v = Vec3::UnitY();  // a plane's rulings run along u, offset along v (u × v = a)
  double d0 = 0, d1 = 0;                      // the family's domain in σ
  // A plane the curved modes' field lies in (through the torus's axis, or through the ball's centre along its pole),
  // whose flux is zero: its rulings' integrands are rounding noise, which no error estimate would accept. So is a
  // plane parallel to the field along z, or a cylinder along it: either way only its area vector is integrated.
  bool no_flux = false;
  // This face's share of cell a's area vector ∫ n dA over its boundary inside b: 1 on a's faces, or −1 on b's (they
  // give minus it), 0 on the other cell's.
  double area_weight = 0;
  bool angular() const { return side || polar; }  // σ is an angle: a whole turn is one periodic panel
};

struct Ruling {
  Vec3 o, w;
  Vec3 n0 = Vec3::Zero(), n1 = Vec3::Zero();  // n dA = (n0 + n1 t) dσ dt
};

// A piece of a chord cut by a hole; each end names the chord end that sets it: 2 × constraint, + 1 for its hi.
struct Piece {
  double lo, hi;
  int end_lo, end_hi;
};

// One ruling's state: the chord's ends over every constraint but the face's own, which constraints set them. Where a
// hole's chord [glo, ghi] overlaps it (`cut`), what is left: up to two pieces, and a signed length, continuous across
// the states: the pieces' total, or, where the hole takes it all, a negative distance (length() below). (The hole's
// fields are set only where a hole is met: the plain state stays as small as it was.)
struct Eval {
  double lo = -kInf, hi = kInf;
  int arg_lo = -1, arg_hi = -1;
  bool cut = false;
  double glo, ghi;   // the hole's chord, where a hole is met
  int g_lo, g_hi;    // the constraints that set its ends
  bool lower() const { return glo > lo; }  // a piece below the hole's chord
  bool upper() const { return ghi < hi; }  // a piece above it
  int count() const { return cut ? lower() + upper() : 1; }
  // Which side of the hole's chord piece k lies on: 0 below (or the uncut chord), 1 above.
  int side(int k) const { return cut && !(k == 0 && lower()) ? 1 : 0; }
  Piece at(int k) const {
    if (!cut) return Piece{lo, hi, 2 * arg_lo, 2 * arg_hi + 1};
    if (k == 0 && lower()) return Piece{lo, glo, 2 * arg_lo, 2 * g_lo};
    return Piece{ghi, hi, 2 * g_hi + 1, 2 * arg_hi + 1};
  }
  double length() const {
    if (!cut) return hi - lo;
    if (lower() || upper()) return (lower() ? glo - lo : 0.0) + (upper() ? hi - ghi : 0.0);
    // Taken whole: minus the lesser of how far a piece is from coming out of the hole and the chord's own length, so
    // that it meets 0 both where a piece comes out and where the chord itself vanishes inside the hole (a jump there
    // held false position at a run's end for its 100 steps: a box in a countersink, 2.6e-3 of V lost).
    return std::max(std::max(glo - lo, hi - ghi), -(hi - lo));
  }
  long sig() const {
    if (!(length() > 0)) return 0;
    if (!cut) return 1 + (arg_lo + 1) + 64L * (arg_hi + 1);
    long s = 1L << 40, scale = 1;  // apart from the uncut states; 129 > every end + 1 (64 constraints)
    for (int k = 0; k < count(); ++k) {
      const Piece p = at(k);
      s += scale * (p.end_lo + 1), scale *= 129;
      s += scale * (p.end_hi + 1), scale *= 129;
    }
    return s;
  }
  // One quadric sets both ends of what is left: its length goes like a square root where it vanishes.
  bool tangency() const {
    if (!cut) return arg_lo == arg_hi;
    return count() == 1 && at(0).end_lo / 2 == at(0).end_hi / 2;
  }
};

// ∫1, x, y, z, xx, xy, xz, yy, yz, zz about ref (the first kMoments, which the tolerance is met on); then cell a's
// area vector ∫ n dA over its faces inside b (the query's normal estimate; its error is not controlled).
constexpr int kMoments = 10, kArea = 10;
using Moments = std::array<double, 13>;

struct Panel {
  int face = 0;
  double a = 0, b = 0;
  int turn_nodes = 0;  // > 0: a whole turn of a side, by the periodic trapezoid rule on this many nodes
  int intervals = 16;  // the Clenshaw–Curtis rule's (16, then 32 reusing its nodes)
  long sig = 0;        // the state of its rulings (Eval::sig)
  bool mixed = false;  // a node of its rule found another state (integrate)
  Moments value{}, error{};
  std::array<Moments, 17> at{};  // the 16-interval rule's node values, kept for the 32-interval one
  // With a hole, to tell the lens's connected pieces apart: the boxes of its rulings' chord pieces at the rule's nodes,
  // by their side of the hole's chord (0: below it, or the uncut chord; 1: above it). A panel with both is two sheets,
  // which may belong to two of the lens's pieces.
  std::array<Vec3, 2> lo{Vec3::Constant(kInf), Vec3::Constant(kInf)}, hi{Vec3::Constant(-kInf), Vec3::Constant(-kInf)};
  bool two() const { return (lo[0].array() <= hi[0].array()).all() && (lo[1].array() <= hi[1].array()).all(); }
};

struct Problem {
  std::vector<Constraint> cons;
  std::vector<Face> faces;
  Vec3 box_lo, box_hi;
  double size = 0;  // the overlap box's diagonal
  Vec3 ref = Vec3::Zero();
  double best_length = 0;
  long lines = 0;
  bool failed = false;
  bool frozen = false;  // ref fixed: the integration has begun
  bool holes = false;   // a cell has a hole (a complemented primitive): chords are cut (Eval)
  // The tube mode: the other cell is a lone ring torus. Its chord (exact, a quartic's roots) joins the constraints'
  // as constraint number cons.size(); it has no faces, since the field the moments take is tangent to its tube.
  bool tube = false;
  std::vector<lines::Placed> torus;  // the torus alone, placed in Q
  double alpha_cut = 0;              // the tube angle where the field is cut, opposite the lens
  // The tube angles (unwrapped from the cut) the integration met: a lens that reaches around more than half the tube
  // may cross the cut (or hold the tube's centre circle), where the field is not smooth: declined.
  mutable double alpha_min = kInf, alpha_max = -kInf;
  // The tube mode's other field, F_φ ê_φ along the ring (ring_moments), for a lens that holds part of the tube's
  // centre circle (a cone or a cylinder deep across the tube), where the tube field is singular. Its cut is a meridian
  // plane opposite the lens; a lens reaching more than half around the ring is declined.
  bool ring_field = false;
  double phi_cut = 0;
  mutable double phi_min = kInf, phi_max = -kInf;
  double chord_tolerance = 0.03;  // from the query's tolerance: the curved fields' chords' budget (kronrod_chord)
  bool crossed_twice = false;     // a ruling went through the tube twice (declined; the caller may split the torus)
  Vec3 twice_direction = Vec3::Zero();                         // that ruling's direction,
  Vec3 twice_exit = Vec3::Zero(), twice_entry = Vec3::Zero();  // where it leaves the tube and enters it again
  // The ball mode: the other cell is a ball or an ellipsoid, alone or cut by planes (a capsule's cap). It is the unit
  // ball in coordinates y with x = ball_centre + ball_map y (an ellipsoid's axes scaled, a ball's radius). Its chord
  // (a quadratic's roots) joins the constraints' as number cons.size(), without faces, as the torus's does; its
  // cutting planes are ordinary constraints.
  bool ball = false;
  Vec3 ball_centre = Vec3::Zero();
  Mat3 ball_map = Mat3::Identity(), ball_inverse = Mat3::Identity();
  Vec3 ball_axis = Vec3::UnitZ();  // in y, from the centre toward ref: the field's regular pole
  mutable double theta_max = 0;    // the largest polar angle the integration met (the field is singular at π)
  std::vector<Vec3> lens_points;   // with a hole: the ends of the chords met before the integration
  bool curved() const { return tube || ball; }
  int curved_arg() const { return static_cast<int>(cons.size()); }
  Moments tube_moments(const Ruling& r, double lo, double hi) const;
  Moments ring_moments(const Ruling& r, double lo, double hi) const;
  Moments ball_moments(const Ruling& r, double lo, double hi) const;

  // The searches' functions, bounded: a ruling nearly along a cylinder has one root far away, and an unbounded value
  // would stall false position for many steps. Linear near 0 (the root), ±1 beyond the scale s, which the caller takes
  // from the bracket's inner end (so that the function is smooth over the bracket, not a step).
  static double saturated(double v, double s) { return v / (std::abs(v) + s); }
  // For a chord's length, which goes like a square root at a tangency: its signed square, bounded likewise.
  static double saturated_square(double L, double s) { return L * std::abs(L) / (L * L + s * s); }
  double scale(double v) const { return std::isfinite(v) && v != 0 ? std::abs(v) : 1e-3 * size; }
  // The function whose root is where a chord appears or vanishes. Where one quadric sets both ends (a tangency) the
  // length goes like a square root: its signed square is then smooth. Where two constraints' ends cross, the length
  // is linear: itself. (False position on the wrong one crawls: 45–75 steps where these take ~8.)
  static double edge_value(const Eval& v, double sc, bool tangency) {
    const double L = v.length();
    if (!std::isfinite(L)) return L > 0 ? 1.0 : -1.0;
    return tangency ? saturated_square(L, sc) : saturated(L, sc);
  }

  Ruling ruling(const Face& f, double s) const {
    const Constraint& q = cons[f.constraint];
    Ruling r;
    if (f.polar) {
      r.o = f.centre;
      r.w = std::cos(s) * f.u + std::sin(s) * f.v;
      r.n1 = f.sign * q.a;
      return r;
    }
    if (!f.side) {
      r.o = q.p + f.level * q.a + s * f.v;
      r.w = f.u;
      r.n0 = f.sign * q.a;
      return r;
    }
    const Vec3 er = std::cos(s) * q.e1 + std::sin(s) * q.e2;
    r.o = q.p + q.c * er;
    r.w = q.a + q.k * er;
    const Vec3 n = f.sign * (er - q.k * q.a);
    r.n0 = q.c * n, r.n1 = q.k * n;
    return r;
  }

  Eval evaluate(const Face& f, double s, Chord* ends = nullptr) { return evaluate(f, ruling(f, s), ends); }
  Eval evaluate(const Face& f, const Ruling& r, Chord* ends = nullptr) {
    ++lines;
    if (holes) return evaluate_cut(f, r, ends);
    Eval e;
    for (int i = 0; i < static_cast<int>(cons.size()); ++i) {
      if (i == f.constraint) continue;
      const Chord c = chord(cons[i], r.o, r.w);
      if (ends) ends[i] = c;
      if (c.lo > e.lo) e.lo = c.lo, e.arg_lo = i;
      if (c.hi < e.hi) e.hi = c.hi, e.arg_hi = i;
    }
    if (ball) {
      const Chord c = ball_chord(r);
      if (ends) ends[curved_arg()] = c;
      if (c.lo > e.lo) e.lo = c.lo, e.arg_lo = curved_arg();
      if (c.hi < e.hi) e.hi = c.hi, e.arg_hi = curved_arg();
    }
    if (tube && e.lo < e.hi) {
      Chord c{kInf, -kInf};
      if (!std::isfinite(e.lo) || !std::isfinite(e.hi)) {
        failed = true;
      } else {
        const double wn = r.w.norm();
        const lines::TorusChord tc = lines::torus_chord(torus[0], r.o, r.w / wn, e.lo * wn, e.hi * wn);
        if (tc.set.n > 1) {  // a ruling through the tube twice: not taken
          failed = crossed_twice = true;
          twice_direction = r.w;
          twice_exit = r.o + tc.set.v[0][1] / wn * r.w, twice_entry = r.o + tc.set.v[1][0] / wn * r.w;
        }
        if (tc.set.n >= 1) {
          c = Chord{tc.set.v[0][0] / wn, tc.set.v[0][1] / wn};
        } else {  // a miss: an inverted chord about the nearest point, -2√(d² − r²) long (like a missed quadric's)
          // Where that point is an end of [lo, hi] (the cell cuts the torus's chord away), d² − r² falls to 0 linearly
          // there, as the chord's length does on the other side: the half-length is then the Newton distance to the
          // surface, (d² − r²) / (2 |slope|), linear across the edge (a square root made the edges' false position
          // crawl: 25–45 steps), and √(d² − r²) where the slope vanishes, continuous where the least point leaves the end.
          const double c2 = tc.clearance2, root = std::sqrt(c2), denominator = 2 * std::abs(tc.clearance2_slope) + root;
          const double h = (denominator > 0 ? c2 / denominator : 0.0) / wn, mid = tc.s_near / wn;
          c = Chord{mid + h, mid - h};
        }
      }
      if (ends) ends[curved_arg()] = c;
      if (c.lo > e.lo) e.lo = c.lo, e.arg_lo = curved_arg();
      if (c.hi < e.hi) e.hi = c.hi, e.arg_hi = curved_arg();
    }
    keep_longest(e.length(), r, 0.5 * (e.lo + e.hi));
    return e;
  }
  // The ball's chord: exact; a miss keeps an inverted chord about the nearest point, −2√(d² − 1) long in y.
  Chord ball_chord(const Ruling& r) const {
    const Vec3 d = ball_inverse * (r.o - ball_centre), wy = ball_inverse * r.w;
    const double A = wy.squaredNorm(), B = wy.dot(d), C = d.squaredNorm() - 1;
    const double disc = B * B - A * C, mid = -B / A, half = std::sqrt(std::abs(disc)) / A;
    return disc >= 0 ? Chord{mid - half, mid + half} : Chord{mid + half, mid - half};
  }
  // ref: the middle of the longest chord (or piece) met before the integration begins, a point of the lens. In the
  // ball mode with a hole, also every such chord's ends: the points the pole is chosen by (see moments()).
  void keep_longest(double length, const Ruling& r, double middle) {
    if (frozen || !(length > 0) || !std::isfinite(length)) return;
    if (length > best_length) best_length = length, ref = r.o + middle * r.w;
    if (ball && holes)
      for (const double end : {middle - 0.5 * length, middle + 0.5 * length}) lens_points.push_back(r.o + end * r.w);
  }
  // With a hole: the chord over the cell's constraints (on a hole's own face, over the hole's other constraints too:
  // the face is where the hole meets the cell), less the hole's chord, the intersection of its constraints' chords.
  [[gnu::noinline]] Eval evaluate_cut(const Face& f, const Ruling& r, Chord* ends) {
    Eval e;
    const bool on_hole = cons[f.constraint].hole;
    Chord g;
    int g_lo = -1, g_hi = -1;
    bool hole_met = false;
    for (int i = 0; i < static_cast<int>(cons.size()); ++i) {
      if (i == f.constraint) continue;
      const Chord c = chord(cons[i], r.o, r.w);
      if (ends) ends[i] = c;
      if (cons[i].hole && !on_hole) {
        hole_met = true;
        if (c.lo > g.lo) g.lo = c.lo, g_lo = i;
        if (c.hi < g.hi) g.hi = c.hi, g_hi = i;
        continue;
      }
      if (c.lo > e.lo) e.lo = c.lo, e.arg_lo = i;
      if (c.hi < e.hi) e.hi = c.hi, e.arg_hi = i;
    }
    if (ball) {  // the ball is the other cell: a constraint of the chord, not of the hole
      const Chord c = ball_chord(r);
      if (ends) ends[curved_arg()] = c;
      if (c.lo > e.lo) e.lo = c.lo, e.arg_lo = curved_arg();
      if (c.hi < e.hi) e.hi = c.hi, e.arg_hi = curved_arg();
    }
    // A ray starts on the hole's axis, inside the hole: what lies behind it is another ray's.
    if (f.polar && e.lo < 0) e.lo = 0, e.arg_lo = f.constraint;
    e.glo = g.lo, e.ghi = g.hi, e.g_lo = g_lo, e.g_hi = g_hi;
    if (hole_met && e.lo < e.hi && g.lo < g.hi && g.lo < e.hi && g.hi > e.lo) {
      e.cut = true;
      for (int k = 0; k < e.count(); ++k) {
        const Piece p = e.at(k);
        keep_longest(p.hi - p.lo, r, 0.5 * (p.lo + p.hi));
      }
      return e;
    }
    keep_longest(e.length(), r, 0.5 * (e.lo + e.hi));
    return e;
  }

  // The moments of one ruling's chord, about ref, with the field (z − ref_z) e_z (3-point Gauss–Legendre: the
  // integrand is a polynomial of degree 4 in t).
  // box: grown by the ends of the chord's pieces, each into its side's box (Panel::lo, hi). parts: the moments by side
  // of the hole's chord (an uncut chord's all in parts[0]).
  Moments ruling_moments(const Face& f, double s, long* sig = nullptr, Panel* box = nullptr, Moments* parts = nullptr) {
    const Ruling r = ruling(f, s);
    const Eval e = evaluate(f, r);
    if (sig) *sig = e.sig();
    Moments m{};
    if (!(e.length() > 0)) return m;
    if (!std::isfinite(e.length())) {
      failed = true;
      return m;
    }
    if (box) {
      for (int k = 0; k < e.count(); ++k)
        for (const double t : {e.at(k).lo, e.at(k).hi}) {
          const Vec3 x = r.o + t * r.w;
          const int j = e.side(k);
          box->lo[j] = box->lo[j].cwiseMin(x), box->hi[j] = box->hi[j].cwiseMax(x);
        }
    }
    if (parts && e.cut) {  // each piece by itself, by its side of the hole (the tube mode has no holes)
      parts[0] = parts[1] = Moments{};
      for (int k = 0; k < e.count(); ++k) {
        if (!f.no_flux) add_piece_moments(r, e.at(k).lo, e.at(k).hi, parts[e.side(k)]);
        add_area(f, r, e.at(k).lo, e.at(k).hi, parts[e.side(k)]);
      }
      for (size_t c = 0; c < m.size(); ++c) m[c] = parts[0][c] + parts[1][c];
      return m;
    }
    if (!f.no_flux) {
      if (tube) m = ring_field ? ring_moments(r, e.lo, e.hi) : tube_moments(r, e.lo, e.hi);
      else for (int k = 0; k < e.count(); ++k) add_piece_moments(r, e.at(k).lo, e.at(k).hi, m);
    }
    if (!e.cut) add_area(f, r, e.lo, e.hi, m);
    else for (int k = 0; k < e.count(); ++k) add_area(f, r, e.at(k).lo, e.at(k).hi, m);
    if (parts) parts[0] = m, parts[1] = Moments{};
    return m;
  }
  // The face's share of the area vector over a piece [lo, hi] of a ruling: ∫ (n0 + n1 t) dt.
  static void add_area(const Face& f, const Ruling& r, double lo, double hi, Moments& m) {
    if (f.area_weight == 0) return;
    const double L = f.area_weight * (hi - lo), M = 0.5 * (hi + lo) * L;
    for (int c = 0; c < 3; ++c) m[kArea + c] += L * r.n0[c] + M * r.n1[c];
  }
  // A piece [lo, hi] of a ruling's chord: the ball mode's field, or the polynomial one.
  void add_piece_moments(const Ruling& r, double lo, double hi, Moments& m) const {
    if (!ball) return add_chord_moments(r, lo, hi, m);
    const Moments b = ball_moments(r, lo, hi);
    for (size_t c = 0; c < m.size(); ++c) m[c] += b[c];
  }
  void add_chord_moments(const Ruling& r, double lo, double hi, Moments& m) const {
    const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
    static const double node = std::sqrt(0.6);
    const double ts[3] = {mid - half * node, mid, mid + half * node};
    const double ws[3] = {half * 5.0 / 9, half * 8.0 / 9, half * 5.0 / 9};
    for (int i = 0; i < 3; ++i) {
      const Vec3 y = r.o + ts[i] * r.w - ref;
      const double J = ws[i] * (r.n0.z() + r.n1.z() * ts[i]), z = y.z(), jz = J * z, jzz = 0.5 * J * z * z;
      m[0] += jz;
      m[1] += jz * y.x(), m[2] += jz * y.y(), m[3] += jzz;
      m[4] += jz * y.x() * y.x(), m[5] += jz * y.x() * y.y(), m[6] += jzz * y.x();
      m[7] += jz * y.y() * y.y(), m[8] += jzz * y.y(), m[9] += J * z * z * z / 3;
    }
  }
};

// The curved modes' ten integrands at a point of a ruling: the flux of F = Σ_j A_j B_j (scaled by `flux`, F's direction
// dotted with n dA) for each moment's g about ref. Each coordinate of x − ref is a[k]·(1, ρ, z) in the point's
// meridian plane, so g = 1, y_k or y_k y_l has its coefficients A over (1, ρ, z, ρ², ρz, z²) from the a's, and B holds
// the field's integrated monomials, shared by all ten.
void meridian_moments(double flux, const std::array<double, 6>& B, const Vec3 a[3], Moments& m) {
  const Vec3 b(B[0], B[1], B[2]);
  Mat3 M;
  M << B[0], B[1], B[2], B[1], B[3], B[4], B[2], B[4], B[5];
  const Vec3 Ma[3] = {M * a[0], M * a[1], M * a[2]};
  m[0] = flux * B[0];
  for (int k = 0; k < 3; ++k) m[1 + k] = flux * a[k].dot(b);
  m[4] = flux * a[0].dot(Ma[0]), m[5] = flux * a[0].dot(Ma[1]), m[6] = flux * a[0].dot(Ma[2]);
  m[7] = flux * a[1].dot(Ma[1]), m[8] = flux * a[1].dot(Ma[2]), m[9] = flux * a[2].dot(Ma[2]);
}

// A curved mode's moments along one chord [lo, hi], whose field is no polynomial along a ruling: Gauss–Kronrod 7,
// halved where the difference from its 3 Gauss nodes exceeds the piece's share (by length) of `tolerance` (√ of the
// query's) times the whole chord's V. That difference is the 3-point rule's error; the 7-point rule's, exact to degree
// 11 where the 3-point one is to degree 5, is about its square (on the apex pose, √tol gave V within 8e-6 of the column
// engine). Near the tube's centre circle the field turns quickly but is small, so the budget is the whole chord's,
// not each piece's. integrand(t, m): the ten moments' integrands at the chord's parameter t.
template <class Integrand>
Moments kronrod_chord(double lo, double hi, double tolerance, const Integrand& integrand) {
  static const double xk[7] = {-0.9604912687080203, -0.7745966692414834, -0.4342437493468026, 0.0,
                               0.4342437493468026,  0.7745966692414834,  0.9604912687080203};
  static const double wk[7] = {0.1046562260264673, 0.2684880898683334, 0.4013974147759622, 0.4509165386584741,
                               0.4013974147759622, 0.2684880898683334, 0.1046562260264673};
  static const double wg[7] = {0, 5.0 / 9, 0, 8.0 / 9, 0, 5.0 / 9, 0};
  Moments total{};
  double scale = -1;
  struct Piece {
    double a, b;
    int depth;
  };
  Piece pending[16];  // depth-first, at most one piece per depth (≤ 6) plus its sibling
  int n = 0;
  pending[n++] = {lo, hi, 0};
  while (n > 0) {
    const Piece pc = pending[--n];
    const double mid = 0.5 * (pc.a + pc.b), half = 0.5 * (pc.b - pc.a);
    Moments k{}, v;
    double g0 = 0;
    for (int i = 0; i < 7; ++i) {
      integrand(mid + half * xk[i], v);
      for (int c = 0; c < kMoments; ++c) k[c] += half * wk[i] * v[c];
      g0 += half * wg[i] * v[0];
    }
    if (scale < 0) scale = std::abs(k[0]);
    if (pc.depth < 6 && std::abs(k[0] - g0) > tolerance * scale * (pc.b - pc.a) / (hi - lo) + 1e-300) {
      pending[n++] = {pc.a, mid, pc.depth + 1}, pending[n++] = {mid, pc.b, pc.depth + 1};
      continue;
    }
    for (int c = 0; c < kMoments; ++c) total[c] += k[c];
  }
  return total;
}

// The 3-point Gauss–Legendre rule on one chord, for chords where the integrand is nearly a quadratic.
template <class Integrand>
Moments gauss_chord(double lo, double hi, const Integrand& integrand) {
  static const double node = std::sqrt(0.6);
  const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
  Moments total{}, v;
  for (const auto& [x, w] : {std::pair{-node, 5.0 / 9}, std::pair{0.0, 8.0 / 9}, std::pair{node, 5.0 / 9}}) {
    integrand(mid + half * x, v);
    for (int c = 0; c < kMoments; ++c) total[c] += half * w * v[c];
  }
  return total;
}

// The tube mode's field. In the torus's frame, with s and α the polar coordinates about the tube's centre circle in
// each meridian plane (ρ = R + s cos α, z = s sin α), the field F = F_α ê_α with
//   ρ F_α = H(α) = ∫ from α_0 to α of s ρ g dα'
// has ∇·F = (1 / (s ρ)) ∂(ρ F_α)/∂α = g and is tangent to every tube s = const, the torus's surface among them. So
// ∫ g over torus ∩ cell = ∫ F·n over the cell's faces inside the torus alone. It is smooth away from the cut
// α = α_c (α unwrapped into [α_c, α_c + 2π)), which is put opposite the lens; α_0 = α_c + π, ref's. g is each
// moment's integrand about ref (1, x, y, z, x², ...), a polynomial of degree ≤ 2 in (ρ, z) at fixed φ: s ρ g is a
// trigonometric polynomial of degree ≤ 3 in α, integrated in closed form. ê_α lies in the meridian plane, so F has no
// flux through one either. Along a ruling F is no polynomial: Gauss–Kronrod on the chord, halved until its estimate
// meets the tolerance.
Moments Problem::tube_moments(const Ruling& r, double lo, double hi) const {
  const lines::Placed& T = torus[0];
  const double R = T.major;
  const Mat3 Rt = T.A.transpose();     // Q ← torus frame
  const Vec3 shift = -Rt * T.b - ref;  // the torus centre about ref, in Q
  // The ruling and its n dA in the torus's frame.
  const Vec3 o = T.A * r.o + T.b, w = T.A * r.w, n0 = T.A * r.n0, n1 = T.A * r.n1;
  // ∫ u^i v^j dα (u = cos α, v = sin α) for the pairs that occur; order: 00, 10, 20, 30, 01, 11, 21, 02, 12.
  auto antiderivatives = [](double a, double u, double v, double* I) {
    I[0] = a, I[1] = v, I[2] = 0.5 * (a + u * v), I[3] = v - v * v * v / 3, I[4] = -u, I[5] = 0.5 * v * v,
    I[6] = -u * u * u / 3, I[7] = 0.5 * (a - u * v), I[8] = v * v * v / 3;
  };
  // H is measured from ref's tube angle (α_c + π), not from the cut: that adds C(s, φ) / ρ ê_α, which has no
  // divergence and no flux through a tube, and keeps F small across the lens, so the faces' shares do not cancel.
  double I0[9];
  antiderivatives(alpha_cut + kPi, -std::cos(alpha_cut), -std::sin(alpha_cut), I0);
  // F·(n0 + n1 t) for the ten moments at t. Each moment's g about ref is 1, y_k or y_k y_l with y_k = a_k·(1, ρ, z)
  // at this φ, so with s ρ g = s Σ c_ij u^i v^j (ρ = R + s u, z = s v), H / s = Σ_j A_j B_j over g's six
  // coefficients A in (1, ρ, z, ρ², ρz, z²): B holds the integrated trigonometric monomials, shared by all ten.
  auto integrand = [&](double t, Moments& m) {
    const Vec3 x = o + t * w;
    const double rho = std::sqrt(x.x() * x.x() + x.y() * x.y()), cphi = x.x() / rho, sphi = x.y() / rho;
    const double du = rho - R, z = x.z(), s = std::sqrt(du * du + z * z), u = du / s, v = z / s;
    double alpha = std::atan2(z, du);
    alpha = alpha_cut + (alpha - alpha_cut) - 2 * kPi * std::floor((alpha - alpha_cut) / (2 * kPi));
    alpha_min = std::min(alpha_min, alpha), alpha_max = std::max(alpha_max, alpha);
    double I[9];
    antiderivatives(alpha, u, v, I);
    for (int k = 0; k < 9; ++k) I[k] -= I0[k];
    const double s2 = s * s, s3 = s2 * s, R2 = R * R;
    const double B0 = R * I[0] + s * I[1], B1 = R2 * I[0] + 2 * R * s * I[1] + s2 * I[2],
                 B2 = s * R * I[4] + s2 * I[5],
                 B3 = R2 * R * I[0] + 3 * R2 * s * I[1] + 3 * R * s2 * I[2] + s3 * I[3],
                 B4 = s * R2 * I[4] + 2 * s2 * R * I[5] + s3 * I[6], B5 = s2 * R * I[7] + s3 * I[8];
    // F_α = s (H / s) / ρ along ê_α = (−v cos φ, −v sin φ, u).
    const Vec3 n = n0 + t * n1;
    const double flux = (u * n.z() - v * (cphi * n.x() + sphi * n.y())) * s / rho;
    Vec3 a[3];
    for (int k = 0; k < 3; ++k) a[k] = Vec3(shift[k], Rt(k, 0) * cphi + Rt(k, 1) * sphi, Rt(k, 2));
    meridian_moments(flux, {B0, B1, B2, B3, B4, B5}, a, m);
  };
  return kronrod_chord(lo, hi, chord_tolerance, integrand);
}

// The tube mode's field along the ring. In the torus's frame, with ρ, φ and z its cylindrical coordinates,
//   F = F_φ ê_φ,   F_φ = ρ ∫ from φ_0 to φ of g(ρ, φ′, z) dφ′   ⇒   ∇·F = (1 / ρ) ∂F_φ/∂φ = g.
// ê_φ is tangent to the torus's surface, so again only the cell's faces inside the torus carry flux, and F is smooth
// wherever ρ > 0 (everywhere in a ring torus) away from the cut φ = φ_c, a meridian plane opposite ref (φ_0 = φ_c + π,
// ref's), which the tube field's singular centre circle does not trouble. It has flux through meridian planes, so the
// torus's cuts (split_moments) are faces here. g about ref is 1, y_k or y_k y_l with y_k = p_k + c_k cos φ + e_k sin φ
// at fixed (ρ, z): integrated in closed form. Along a ruling, Gauss–Kronrod as for the tube field.
Moments Problem::ring_moments(const Ruling& r, double lo, double hi) const {
  const lines::Placed& T = torus[0];
  const Mat3 Rt = T.A.transpose();     // Q ← torus frame
  const Vec3 shift = -Rt * T.b - ref;  // the torus centre about ref, in Q
  const Vec3 o = T.A * r.o + T.b, w = T.A * r.w, n0 = T.A * r.n0, n1 = T.A * r.n1;
  const double phi0 = phi_cut + kPi, c0 = std::cos(phi0), s0 = std::sin(phi0);
  auto integrand = [&](double t, Moments& m) {
    const Vec3 x = o + t * w;
    const double rho = std::sqrt(x.x() * x.x() + x.y() * x.y()), cphi = x.x() / rho, sphi = x.y() / rho;
    double phi = std::atan2(x.y(), x.x());
    phi = phi_cut + (phi - phi_cut) - 2 * kPi * std::floor((phi - phi_cut) / (2 * kPi));
    phi_min = std::min(phi_min, phi), phi_max = std::max(phi_max, phi);
    // ∫ from φ_0 of 1, cos, sin, cos², cos sin, sin².
    const double d = phi - phi0, Jc = sphi - s0, Js = c0 - cphi, Jcs = 0.5 * (sphi * sphi - s0 * s0);
    const double quarter = 0.5 * (sphi * cphi - s0 * c0), Jcc = 0.5 * d + quarter, Jss = 0.5 * d - quarter;
    const Vec3 n = n0 + t * n1;
    const double flux = rho * (cphi * n.y() - sphi * n.x());  // ρ ê_φ · n
    Vec3 p, c, e;
    for (int k = 0; k < 3; ++k) p[k] = shift[k] + Rt(k, 2) * x.z(), c[k] = rho * Rt(k, 0), e[k] = rho * Rt(k, 1);
    const Vec3 first = p * d + c * Jc + e * Js;  // ∫ y dφ′
    m[0] = flux * d;
    for (int k = 0; k < 3; ++k) m[1 + k] = flux * first[k];
    auto second = [&](int k, int l) {  // ∫ y_k y_l dφ′
      return p[k] * p[l] * d + (p[k] * c[l] + p[l] * c[k]) * Jc + (p[k] * e[l] + p[l] * e[k]) * Js +
             c[k] * c[l] * Jcc + (c[k] * e[l] + e[k] * c[l]) * Jcs + e[k] * e[l] * Jss;
    };
    m[4] = flux * second(0, 0), m[5] = flux * second(0, 1), m[6] = flux * second(0, 2);
    m[7] = flux * second(1, 1), m[8] = flux * second(1, 2), m[9] = flux * second(2, 2);
  };
  return kronrod_chord(lo, hi, chord_tolerance, integrand);
}

// The ball mode's field: the tube mode's with the tube's centre circle shrunk to the ball's centre c. In the unit
// ball's coordinates y (x = c + M y, M = ball_map) and polar coordinates (s, θ, φ) about its centre with the pole along
// ball_axis, the field F = F_θ ê_θ with
//   sin θ F_θ = ∫ from 0 to θ of s sin θ' g dθ'
// has ∇·F = (1 / (s sin θ)) ∂(sin θ F_θ)/∂θ = g and is tangent to every sphere about c, the ball's surface among them:
// the moments of ball ∩ cell are the flux of F through the cell's faces (and the ball's own cutting planes) inside the
// ball. Measured from the pole θ = 0, F is regular there (F_θ ~ s g θ / 2) and singular only on the opposite ray,
// which misses the lens: the pole points from c at ref, a point of the lens, and the lens is convex, so the ray could
// meet it only if c were in the lens (declined). In the meridian plane ρ = s sin θ and z = s cos θ, so g, a
// polynomial of degree ≤ 2 in (ρ, z) at fixed φ, integrates in closed form (the J below, written without cancellation
// near the pole, where a shallow contact's every point lies). In x the moments are det M times those in y, and a face's
// n dA in y is det M⁻¹ Mᵀ n dA: F · Mᵀ n dA over the faces in x, the determinants cancelling (M turns no face over).
Moments Problem::ball_moments(const Ruling& r, double lo, double hi) const {
  const Vec3 shift = ball_centre - ref, e = ball_axis, Me = ball_map * e;
  auto integrand = [&](double t, Moments& m) {
    const Vec3 y = ball_inverse * (r.o + t * r.w - ball_centre);
    const double z = y.dot(e);
    const Vec3 radial = y - z * e;
    const double rho = radial.norm(), s = std::sqrt(rho * rho + z * z);
    m = Moments{};
    if (!(rho > 0)) return;  // on the axis: F vanishes at the pole (the far ray is declined)
    const double S = rho / s, C = z / s, theta = std::atan2(rho, z);
    theta_max = std::max(theta_max, theta);
    const double om = S * S / (1 + C);  // 1 − cos θ
    // θ − sin θ cos θ = (x − sin x) / 2, x = 2θ: its series where it would cancel (terms fall by x²/20 or faster).
    double twice_j20;
    if (theta < 0.5) {
      const double x = 2 * theta, x2 = x * x;
      double series = 1;
      for (int k = 9; k >= 2; --k) series = 1 - x2 / ((2 * k) * (2 * k + 1)) * series;
      twice_j20 = 0.5 * x * x2 / 6 * series;
    } else {
      twice_j20 = theta - S * C;
    }
    // ∫₀^θ sin^i cos^j, divided by sin θ (F_θ = s / sin θ · Σ A_j B_j): (1,0) (2,0) (1,1) (3,0) (2,1) (1,2).
    const double j10 = S / (1 + C), j20 = 0.5 * twice_j20 / S, j11 = 0.5 * S, j30 = om * S * (2 + C) / (3 * (1 + C)),
                 j21 = S * S / 3, j12 = S * (1 + C + C * C) / (3 * (1 + C));
    const double s2 = s * s;
    // B_j = ∫₀^θ sin θ' m_j dθ' / sin θ for g's monomials m_j in (1, ρ, z, ρ², ρz, z²).
    const double B0 = j10, B1 = s * j20, B2 = s * j11, B3 = s2 * j30, B4 = s2 * j21, B5 = s2 * j12;
    const Vec3 er = radial / rho, Mer = ball_map * er;
    const Vec3 n = r.n0 + t * r.n1;
    // F_θ ê_θ · Mᵀ n over Σ A_j B_j; ê_θ = cos θ e_ρ − sin θ e.
    const double flux = s * (C * Mer.dot(n) - S * Me.dot(n));
    // Each coordinate of x − ref = shift + ρ M e_ρ + z M e: coefficients of (1, ρ, z).
    Vec3 a[3];
    for (int k = 0; k < 3; ++k) a[k] = Vec3(shift[k], Mer[k], Me[k]);
    meridian_moments(flux, {B0, B1, B2, B3, B4, B5}, a, m);
  };
  // A chord short beside its distance ρ from the pole's axis (the thin ring about a ball on a hole's rim: its pieces
  // are microns long, 10 mm out) lies where the integrand is analytic well beyond its ends: 3-point Gauss–Legendre is
  // then within ~(L / 2ρ)⁶ ≤ 2e-8 of it, where Gauss–Kronrod would spend 7 points to show as much.
  const Vec3 mid = ball_inverse * (r.o + 0.5 * (lo + hi) * r.w - ball_centre);
  const double length = (ball_inverse * r.w).norm() * (hi - lo), rho = (mid - mid.dot(e) * e).norm();
  if (length < 0.1 * rho) return gauss_chord(lo, hi, integrand);
  return kronrod_chord(lo, hi, chord_tolerance, integrand);
}

// Arcs of the circle as intervals of [0, 2π), sorted.
using Arcs = std::vector<std::array<double, 2>>;
Arcs arc(double from, double to) {  // the arc from `from` to `to` (to − from ≤ 2π), wrapped into [0, 2π)
  if (to - from >= 2 * kPi) return {{0, 2 * kPi}};
  const double s = from - 2 * kPi * std::floor(from / (2 * kPi)), e = s + (to - from);
  if (e <= 2 * kPi) return {{s, e}};
  return {{0, e - 2 * kPi}, {s, 2 * kPi}};
}
Arcs intersect(const Arcs& x, const Arcs& y) {
  Arcs out;
  for (const auto& a : x)
    for (const auto& b : y)
      if (std::max(a[0], b[0]) < std::min(a[1], b[1])) out.push_back({std::max(a[0], b[0]), std::min(a[1], b[1])});
  std::sort(out.begin(), out.end());
  return out;
}

// The tube mode: a ball about x of that radius (a plane's disc) lies clear of the torus (farther than r from its centre
// circle), so the face there carries no flux and its samples and searches are spared.
bool clear_of_torus(const Problem& pb, const Vec3& x, double radius) {
  const lines::Placed& T = pb.torus[0];
  const Vec3 xt = T.A * x + T.b;
  return std::hypot(std::hypot(xt.x(), xt.y()) - T.major, xt.z()) - radius > T.r;
}
// The plane a·x = a·p + level misses the torus: its centre circle's distances from it span h ± R |a × axis|.
bool plane_clear_of_torus(const Problem& pb, const Vec3& a, const Vec3& p, double level) {
  const lines::Placed& T = pb.torus[0];
  const Vec3 centre = -T.A.transpose() * T.b, axis = T.A.row(2).transpose();
  return std::abs(a.dot(centre - p) - level) - T.major * a.cross(axis).norm() > T.r;
}

// The angles about p, in the plane of e1 and e2, of the overlap box's shadow: true where it holds p (every angle),
// else the arc [from, to] (to > from) that bounds it.
bool box_shadow(const Problem& pb, const Vec3& p, const Vec3& e1, const Vec3& e2, double& from, double& to) {
  std::array<double, 8> ang;
  for (int c = 0; c < 8; ++c) {
    const Vec3 x((c & 1) ? pb.box_hi.x() : pb.box_lo.x(), (c & 2) ? pb.box_hi.y() : pb.box_lo.y(),
                 (c & 4) ? pb.box_hi.z() : pb.box_lo.z());
    ang[c] = std::atan2(e2.dot(x - p), e1.dot(x - p));
  }
  std::sort(ang.begin(), ang.end());
  double gap = ang[0] + 2 * kPi - ang[7];
  int after = 7;
  for (int c = 0; c + 1 < 8; ++c)
    if (ang[c + 1] - ang[c] > gap) gap = ang[c + 1] - ang[c], after = c;
  if (!(gap > kPi)) return true;
  from = ang[(after + 1) % 8], to = ang[after];  // the shadow lies in a half-plane: the corners' angles bound it
  if (to <= from) to += 2 * kPi;
  return false;
}

// The ball mode's plane of the holed cell, at `level` along q's normal: where the hole's axis crosses it, strictly
// inside the hole (its every constraint), the rays' centre (Face::polar). None for a box hole (a slot: no axis), an
// axis within 75° of the plane, or a hole that does not reach the plane (a blind hole from the other side).
std::optional<Vec3> polar_centre(const Problem& pb, const Constraint& q, double level) {
  if (!pb.ball || !pb.holes || q.hole) return std::nullopt;
  const Constraint* axis = nullptr;
  for (const Constraint& h : pb.cons)
    if (h.hole && h.kind == Constraint::Quadric) axis = &h;
  if (!axis || axis->cell != q.cell || std::abs(axis->a.dot(q.a)) < 0.25) return std::nullopt;
  const Vec3 centre = axis->p + (q.a.dot(q.p - axis->p) + level) / axis->a.dot(q.a) * axis->a;
  const double margin = 1e-9 * pb.size;
  for (const Constraint& h : pb.cons) {
    if (!h.hole) continue;
    const double z = h.a.dot(centre - h.p);
    const bool inside = h.kind == Constraint::Slab ? z > h.lo + margin && z < h.hi - margin
                                                   : h.c + h.k * z - (centre - h.p - z * h.a).norm() > margin;
    if (!inside) return std::nullopt;
  }
  return centre;
}

// The family's domains of a face (appended to pb.faces), from the overlap box: σ across a plane, the angles a side
// can reach. Constraints along the rulings (a box's faces along a plane's rulings; a slab's planes or a cylinder
// parallel to a cylinder's side) would make a ruling all in or all out: their σ ranges are found in closed form
// here, and the chords inside them are whole.
void add_face(Problem& pb, Face f) {
  const Constraint& q = pb.cons[f.constraint];
  const Vec3 centre = 0.5 * (pb.box_lo + pb.box_hi), half = 0.5 * (pb.box_hi - pb.box_lo);
  auto range = [&](const Vec3& d, double& lo, double& hi) {
    const double m = d.dot(centre - q.p), h = d.cwiseAbs().dot(half);
    lo = m - h, hi = m + h;
  };
  double alo, ahi;
  range(q.a, alo, ahi);
  if (!f.side) {
    // The plane misses the box. A plane that bounds the box (a plate's top face, where the box is the plate's bounds
    // cut by the peg's) lies on it only to rounding: without the slack, 1 ulp dropped such a face in one frame and kept
    // it in another (a square peg's corners in a blind hole's wall: V −2.5e-11 for 3.4e-11 m³ with the frame's origin at
    // the peg's centre).
    const double slack = 1e-12 * pb.size;
    if (f.level < alo - slack || f.level > ahi + slack) return;
    if (pb.tube && plane_clear_of_torus(pb, q.a, q.p, f.level)) return;
    if (const std::optional<Vec3> centre = polar_centre(pb, q, f.level)) {
      for (const Constraint& c : pb.cons) {  // the cell's other planes parallel to this one hold it, or no ray is in
        if (&c == &q || c.hole || c.kind != Constraint::Slab || c.a.cross(q.a).squaredNorm() > 1e-24) continue;
        const double at = c.a.dot(*centre - c.p);
        if (at < c.lo - slack || at > c.hi + slack) return;
      }
      f.polar = true, f.centre = *centre, f.u = q.e1, f.v = q.e2;
      double from, to;
      const bool whole = box_shadow(pb, f.centre, f.u, f.v, from, to);
      f.d0 = whole ? 0.0 : from, f.d1 = whole ? 2 * kPi : to;
      pb.faces.push_back(f);
      return;
    }
    // Rulings along a cylinder's axis would be all in or all out of it: turn them by 45° (the chord then has ends).
    f.u = q.e1, f.v = q.e2;
    for (const Constraint& c : pb.cons)
      if (c.kind == Constraint::Quadric && c.k == 0 && c.a.cross(f.u).squaredNorm() < 1e-10)
        f.u = (q.e1 + q.e2) / std::sqrt(2.0), f.v = (q.e2 - q.e1) / std::sqrt(2.0);
    range(f.v, f.d0, f.d1);
    std::vector<double> splits;  // where a hole's plane along the rulings starts or stops taking them out whole
    for (const Constraint& c : pb.cons) {
      if (c.hole && !q.hole) {  // a hole takes rulings' pieces out; it bounds only its own faces
        const double slope = c.a.dot(f.v), at0 = c.a.dot(q.p + f.level * q.a - c.p);
        if (c.kind == Constraint::Slab && std::abs(c.a.dot(f.u)) < 1e-15 && std::abs(slope) >= 1e-12)
          for (const double level : {c.lo, c.hi})
            if (std::isfinite(level)) splits.push_back((level - at0) / slope);
        continue;
      }
      if (c.kind == Constraint::Quadric && c.a.cross(q.a).squaredNorm() < 1e-24) {
        // A cylinder or cone along the plane's normal cuts it in a disc (a cap): σ within its radius.
        const Vec3 at_level = q.p + f.level * q.a;
        const double radius = c.c + c.k * c.a.dot(at_level - c.p), centre = f.v.dot(c.p - q.p);
        if (!(radius > 0)) return;
        if (pb.tube && clear_of_torus(pb, c.p + c.a.dot(at_level - c.p) * c.a, radius)) return;
        f.d0 = std::max(f.d0, centre - radius), f.d1 = std::min(f.d1, centre + radius);
        continue;
      }
      if (&c == &q || c.kind != Constraint::Slab || std::abs(c.a.dot(f.u)) >= 1e-15) continue;
      const double slope = c.a.dot(f.v), at0 = c.a.dot(q.p + f.level * q.a - c.p);
      if (std::abs(slope) < 1e-12) {
        if (at0 < c.lo - 1e-12 * pb.size || at0 > c.hi + 1e-12 * pb.size) return;
        continue;
      }
      double s1 = (c.lo - at0) / slope, s2 = (c.hi - at0) / slope;
      if (s1 > s2) std::swap(s1, s2);
      f.d0 = std::max(f.d0, s1), f.d1 = std::min(f.d1, s2);
    }
    std::sort(splits.begin(), splits.end());
    const double end = f.d1;
    for (const double x : splits)
      if (x > f.d0 && x < end) f.d1 = x, pb.faces.push_back(f), f.d0 = x;
    f.d1 = end;
    if (f.d0 < f.d1) pb.faces.push_back(f);
    return;
  }
  // A side: the angles of the box's shadow on the axis's plane (all of them when the shadow holds the axis).
  double from, to;
  bool whole = box_shadow(pb, q.p, q.e1, q.e2, from, to);
  Arcs arcs = whole ? Arcs{{0, 2 * kPi}} : arc(from, to);
  // A hole's cylinder or slab along the rulings takes them out whole or not at all: the face is split where that
  // changes, so that no state jumps inside a piece. A hole that is that cylinder alone keeps only the arcs outside it.
  std::vector<double> splits;
  const long hole_constraints = std::count_if(pb.cons.begin(), pb.cons.end(), [](const Constraint& c) { return c.hole; });
  if (q.k == 0) {
    for (const Constraint& o : pb.cons) {
      if (&o == &q) continue;
      const bool takes_out = o.hole && !q.hole;
      if (o.kind == Constraint::Quadric && o.k == 0 && q.a.cross(o.a).squaredNorm() <= 1e-24) {  // as chord()
        // A parallel cylinder: |P + c e_r(σ)|² ≤ r² with P the axes' offset, i.e.
        // cos(σ − σ_P) ≤ K = (r² − |P|² − c²) / (2 c |P|).
        const Vec3 d = q.p - o.p, P = d - o.a.dot(d) * o.a;
        const double Pn = P.norm();
        if (!(Pn > 0)) {  // coaxial: every ruling in, or none
          const bool inside = q.c <= o.c;
          if (!takes_out && !inside) return;
          if (takes_out && inside && hole_constraints == 1) return;
          continue;
        }
        const double K = (o.c * o.c - Pn * Pn - q.c * q.c) / (2 * q.c * Pn);
        if (K < -1) {  // no ruling inside
          if (takes_out) continue;
          return;
        }
        if (K >= 1) {  // every ruling inside
          if (takes_out && hole_constraints == 1) return;
          continue;
        }
        const double mid = std::atan2(q.e2.dot(P), q.e1.dot(P)) + kPi, h = kPi - std::acos(K);
        if (!takes_out) {
          arcs = intersect(arcs, arc(mid - h, mid + h)), whole = false;
        } else if (hole_constraints == 1) {
          arcs = intersect(arcs, arc(mid + h, mid - h + 2 * kPi)), whole = false;
        } else {
          splits.push_back(mid - h), splits.push_back(mid + h);
        }
      } else if (o.kind == Constraint::Slab && std::abs(o.a.dot(q.a)) < 1e-15) {
        // A slab along the rulings: lo ≤ g0 + c ρ cos(σ − σ_s) ≤ hi.
        const double al = o.a.dot(q.e1), be = o.a.dot(q.e2), rho = std::hypot(al, be), g0 = o.a.dot(q.p - o.p);
        const double m_lo = (o.lo - g0) / (q.c * rho), m_hi = (o.hi - g0) / (q.c * rho);
        if (m_hi < -1 || m_lo > 1) return;
        const double A = std::acos(std::clamp(m_hi, -1.0, 1.0)), B = std::acos(std::clamp(m_lo, -1.0, 1.0));
        const double s = std::atan2(be, al);
        if (takes_out) {
          for (const double m : {m_lo, m_hi})
            if (std::abs(m) < 1) splits.push_back(s + std::acos(m)), splits.push_back(s - std::acos(m));
          continue;
        }
        if (A == 0 && B == kPi) continue;
        Arcs allowed = arc(s + A, s + B);
        if (A > 0 && B < kPi) {
          const Arcs other = arc(s - B, s - A);
          allowed.insert(allowed.end(), other.begin(), other.end());
        } else {
          allowed = arc(s - B, s + B);
          if (B == kPi) allowed = arc(s + A, s + 2 * kPi - A);
        }
        arcs = intersect(arcs, allowed), whole = false;
      }
    }
  }
  if (whole && splits.empty()) {
    f.d0 = 0, f.d1 = 2 * kPi;
    pb.faces.push_back(f);
    return;
  }
  if (!splits.empty()) {
    Arcs pieces;
    for (double& x : splits) x -= 2 * kPi * std::floor(x / (2 * kPi));
    std::sort(splits.begin(), splits.end());
    for (const auto& a : arcs) {
      double from = a[0];
      for (const double x : splits)
        if (x > from && x < a[1]) pieces.push_back({from, x}), from = x;
      pieces.push_back({from, a[1]});
    }
    arcs = pieces;
  }
  // One arc across σ = 0 comes as two pieces, [0, e] and [s, 2π]: joined, so that the join is no domain end.
  if (arcs.size() > 1 && arcs.front()[0] == 0 && arcs.back()[1] == 2 * kPi) {
    arcs.back()[1] = 2 * kPi + arcs.front()[1];
    arcs.erase(arcs.begin());
  }
  for (const auto& a : arcs) {
    f.d0 = a[0], f.d1 = a[1];
    if (f.d0 < f.d1) pb.faces.push_back(f);
  }
}

// The switch between two rulings' states, located on one continuous function: the chord's signed length (squared,
// keeping its sign: smooth across a tangency, where the length goes like a square root) when the chord appears or
// vanishes, otherwise the gap between the two constraints that set the changed end. Bisection on the state where
// no such function applies (an all-or-nothing ruling). Every switch between x0 and x1 is appended to `breaks`.
void locate_switches(Problem& pb, const Face& f, double x0, long sig0, double x1, long sig1, double tol,
                     std::vector<double>& breaks, int depth = 0) {
  if (sig0 == sig1 || pb.failed) return;
  // Switches closer than 1e-6 of the face's width are one break: where a ruling grazes the torus, its chord's ends are
  // a quartic's near-double roots, known only to ~1e-8 of the size, and where a cone's or a disc's end lies that close
  // the state flips at random (a cone's base rim crossing a torus's surface: 20 switches within 2e-8 m, which exhausted
  // the depth below and declined the pair). Where the torus's section is tangent to a disc's rim the flips spread over
  // ~√(rounding × radius), 1e-3 of the face: once the depth is spent, a cluster that narrow is one break too. Either
  // way the two states there differ by rounding only, and the panel's error estimate still halves it as it needs.
  const bool spent = depth > 12 || breaks.size() > 64;
  if (std::abs(x1 - x0) <= (spent ? 1e8 : 1e5) * tol) {
    breaks.push_back(0.5 * (x0 + x1));
    return;
  }
  if (spent) {
    pb.failed = true;
    return;
  }
  std::vector<Chord> ends0(pb.cons.size() + 1), ends1(pb.cons.size() + 1), ends(pb.cons.size() + 1);
  const Eval e0 = pb.evaluate(f, x0, ends0.data()), e1 = pb.evaluate(f, x1, ends1.data());
  // Modes: 1 the chord appears; 2, 3 its lo or hi end changes constraint; with a hole, 4 a piece's end changes (d0 to
  // d1, a piece's lo end when `lowest`), 5 a piece appears beside another (the hole's chord enters the chord).
  int mode = 0, c0 = -1, c1 = -1, d0 = -1, d1 = -1;
  bool lowest = false;
  if ((e0.length() > 0) != (e1.length() > 0)) {
    mode = 1;
  } else if (!e0.cut && !e1.cut) {
    if (e0.arg_lo != e1.arg_lo) mode = 2, c0 = e0.arg_lo, c1 = e1.arg_lo;
    else if (e0.arg_hi != e1.arg_hi) mode = 3, c0 = e0.arg_hi, c1 = e1.arg_hi;
  } else if (e0.count() != e1.count()) {
    mode = 5;
  } else {
    for (int k = 0; k < e0.count() && mode == 0; ++k) {
      const Piece p0 = e0.at(k), p1 = e1.at(k);
      if (p0.end_lo != p1.end_lo) mode = 4, d0 = p0.end_lo, d1 = p1.end_lo, lowest = true;
      else if (p0.end_hi != p1.end_hi) mode = 4, d0 = p0.end_hi, d1 = p1.end_hi;
    }
    c0 = d0 < 0 ? -1 : d0 / 2, c1 = d1 < 0 ? -1 : d1 / 2;
  }
  if ((mode == 2 || mode == 3 || mode == 4) && (c0 < 0 || c1 < 0)) mode = 0;  // an end no constraint sets
  // The function is positive at x0: where the chord exists (mode 1), where it has two pieces (mode 5).
  const double s0 = (mode == 1 && !(e0.length() > 0)) || (mode == 5 && e0.count() < e1.count()) ? -1.0 : 1.0;
  const Eval& inner = e0.length() > 0 ? e0 : e1;  // the side where the chord exists
  auto end_value = [](const std::vector<Chord>& at, int d) { return d % 2 ? at[d / 2].hi : at[d / 2].lo; };
  // A piece's lo end is the greatest of its candidates, its hi end the least.
  auto swap_gap = [&](const std::vector<Chord>& at) {
    return (lowest ? 1 : -1) * (end_value(at, d0) - end_value(at, d1));
  };
  auto two_pieces = [&](const Eval& e, double sc) {
    return s0 * std::min({Problem::saturated(e.glo - e.lo, sc), Problem::saturated(e.hi - e.ghi, sc),
                          Problem::saturated_square(e.ghi - e.glo, sc)});
  };
  const double sc = pb.scale(mode == 1   ? std::max(e0.length(), e1.length())
                             : mode == 2 ? ends0[c0].lo - ends0[c1].lo
                             : mode == 3 ? ends0[c1].hi - ends0[c0].hi
                             : mode == 4 ? swap_gap(ends0)
                             : mode == 5 ? std::max(e0.length(), e1.length())
                                         : 0.0);
  auto value = [&](const Eval& e, const std::vector<Chord>& at) {
    double v = 0;  // mode 0 reads no chord end (c0, c1 may be −1): the state's sign below
    if (mode == 1) v = s0 * Problem::edge_value(e, sc, inner.tangency());
    else if (mode == 2) v = Problem::saturated(at[c0].lo - at[c1].lo, sc);
    else if (mode == 3) v = Problem::saturated(at[c1].hi - at[c0].hi, sc);
    else if (mode == 4) v = Problem::saturated(swap_gap(at), sc);
    else if (mode == 5) v = two_pieces(e, sc);
    if (!std::isfinite(v) || mode == 0) v = e.sig() == sig0 ? 1.0 : -1.0;
    return v;
  };
  auto g = [&](double x) {
    const Eval e = pb.evaluate(f, x, ends.data());
    return std::pair<double, long>(value(e, ends), e.sig());
  };
  double g0 = value(e0, ends0), g1 = value(e1, ends1);
  if (!(g0 > 0) || g1 > 0) {  // several switches between the two: bisection on the state
    mode = 0;
    g0 = 1, g1 = -1;
  }
  const lens::Edge e = lens::find_edge(g, x0, g0, sig0, x1, g1, sig1, tol);
  breaks.push_back(0.5 * (e.in + e.out));
  if (e.sig_in != sig0) locate_switches(pb, f, x0, sig0, e.in, e.sig_in, tol, breaks, depth + 1);
  if (e.sig_out != sig1) locate_switches(pb, f, e.out, e.sig_out, x1, sig1, tol, breaks, depth + 1);
}

// A run: an interval of a face's rulings that lie (partly) in the lens.
struct Run {
  double a, b;
};

// Where a ruling's chord ends on another constraint's surface, that point lies on the curve where the two cells'
// boundaries meet, so on that constraint's face too: the face must have a run there. Found runs seed each other this
// way, and since the lens's boundary is connected, one found run leads to all (a small patch that the sampling of one
// face misses, the tip of a cone through a cylinder's side, is found from the other cell's faces).
struct Seed {
  int constraint;
  Vec3 x;
};

// The family parameter of a face at a point on its surface (a side's angle within [d0, d0 + 2π)).
double face_parameter(const Problem& pb, const Face& f, const Vec3& x) {
  const Constraint& q = pb.cons[f.constraint];
  if (!f.angular()) return f.v.dot(x - q.p);
  const double theta = f.polar ? std::atan2(f.v.dot(x - f.centre), f.u.dot(x - f.centre))
                               : std::atan2(q.e2.dot(x - q.p), q.e1.dot(x - q.p));
  return f.d0 + (theta - f.d0 - 2 * kPi * std::floor((theta - f.d0) / (2 * kPi)));
}

// The panels of [a, b] on a face: split at every switch of state between the points xs (sorted, within [a, b]), each
// change located. Each panel seeds the faces of the constraints that end its chords (one ruling in its middle: the
// state, so those constraints, is the panel's). A whole turn without a switch is one periodic panel. False when no
// switch was found.
bool cut_panels(Problem& pb, int face, double a, double b, const std::vector<double>& xs, double tol, bool turn,
                std::vector<Panel>& out, std::vector<Seed>* seeds) {
  const Face& f = pb.faces[face];
  std::vector<long> sigs;
  for (const double x : xs) sigs.push_back(pb.evaluate(f, x).sig());
  std::vector<double> breaks;
  for (size_t j = 0; j + 1 < xs.size(); ++j) locate_switches(pb, f, xs[j], sigs[j], xs[j + 1], sigs[j + 1], tol, breaks);
  const bool split = !breaks.empty();
  breaks.push_back(a), breaks.push_back(b);
  std::sort(breaks.begin(), breaks.end());
  for (size_t k = 0; k + 1 < breaks.size(); ++k) {
    if (!(breaks[k + 1] > breaks[k])) continue;
    Panel p{face, breaks[k], breaks[k + 1]};
    if (!split && turn) p.turn_nodes = 16;  // its rulings' moments are smooth and periodic
    const double s = 0.5 * (breaks[k] + breaks[k + 1]);
    const Eval e = pb.evaluate(f, s);
    p.sig = e.sig();
    out.push_back(p);
    if (!seeds || !(e.length() > 0) || !std::isfinite(e.length())) continue;
    const Ruling ru = pb.ruling(f, s);
    for (int j = 0; j < e.count(); ++j) {
      const Piece piece = e.at(j);
      if (piece.end_lo >= 0) seeds->push_back({piece.end_lo / 2, ru.o + piece.lo * ru.w});
      if (piece.end_hi >= 0) seeds->push_back({piece.end_hi / 2, ru.o + piece.hi * ru.w});
    }
  }
  return split;
}

struct FaceRuns {
  static constexpr int kSamples = 16;
  Problem& pb;
  int face_index;
  double width, tol;

  const Face& face() const { return pb.faces[face_index]; }
  double length(double s) {
    const double L = pb.evaluate(face(), s).length();
    return std::isfinite(L) ? L : -pb.size;
  }
  // The searches' function for a run's ends: the chord's signed length, squared (smooth across a tangency) and bounded.
  double edge(double in, const Eval& v_in, double out, const Eval& v_out) {
    const double sc = pb.scale(v_in.length());
    const bool tangency = v_in.tangency();
    auto f = [&](double s) {
      const Eval v = pb.evaluate(face(), s);
      return std::pair<double, long>(Problem::edge_value(v, sc, tangency), v.sig());
    };
    return lens::find_edge(f, in, Problem::edge_value(v_in, sc, tangency), v_in.sig(), out,
                           Problem::edge_value(v_out, sc, tangency), v_out.sig(), tol)
        .in;
  }

  // Runs from 16 samples: runs of positive samples and, with `search`, a Brent search beside every non-positive
  // local maximum (a run narrower than the sampling). A whole circle starts at its lowest sample (then no run wraps
  // around). The samples are kept for the searches.
  std::vector<double> x;
  std::vector<Eval> e;
  void from_samples(std::vector<Run>& runs) {
    Face& f = pb.faces[face_index];
    x.assign(kSamples + 1, 0.0), e.assign(kSamples + 1, Eval{});
    for (int j = 0; j <= kSamples; ++j) {
      x[j] = f.d0 + width * j / kSamples;
      e[j] = pb.evaluate(f, x[j]);
    }
    if (f.angular() && width >= 2 * kPi - 1e-12) {
      int low = 0;
      for (int j = 1; j < kSamples; ++j)
        if (e[j].length() < e[low].length()) low = j;
      if (e[low].length() > 0) {
        runs.push_back({f.d0, f.d1});  // in the lens all around
        return;
      }
      std::vector<double> x2(kSamples + 1);
      std::vector<Eval> e2(kSamples + 1);
      for (int j = 0; j <= kSamples; ++j) {
        const int k = (low + j) % kSamples;
        x2[j] = x[k] + (low + j >= kSamples ? 2 * kPi : 0.0), e2[j] = e[k];
      }
      x.swap(x2), e.swap(e2);
      f.d0 = x[0], f.d1 = x[kSamples];  // the seeds' angles are taken into this turn
    }
    for (int j = 0; j <= kSamples; ++j) {
      const double Lj = e[j].length();
      if (Lj > 0) {
        if (j > 0 && e[j - 1].length() > 0) continue;  // inside a run
        int k = j;
        while (k < kSamples && e[k + 1].length() > 0) ++k;
        const double a = j == 0 ? x[0] : edge(x[j], e[j], x[j - 1], e[j - 1]);
        const double b = k == kSamples ? x[kSamples] : edge(x[k], e[k], x[k + 1], e[k + 1]);
        runs.push_back({a, b});
      }
    }
  }
  void from_searches(std::vector<Run>& runs) {
    const Face& f = face();
    for (int j = 0; j <= kSamples && x.size() == kSamples + 1; ++j) {
      const double Lj = e[j].length();
      if (Lj > 0) continue;
      const double Lm = j > 0 ? e[j - 1].length() : -kInf, Lp = j < kSamples ? e[j + 1].length() : -kInf;
      if (!(Lj >= Lm && Lj >= Lp) || (j > 0 && Lm > 0) || (j < kSamples && Lp > 0)) continue;
      const int jl = std::max(j - 1, 0), jh = std::min(j + 1, kSamples);
      // To 1e-7 of the domain: a run narrower than that (~10 nm) holds nothing the tolerance can see.
      double best = 0;
      auto L = [&](double s) { return length(s); };
      const double at = lens::brent_max(L, x[jl], x[jh], 1e-7 * width, best);
      if (!(best > 0)) continue;
      bool known = false;  // neighbouring brackets can hold the same run
      for (const Run& r : runs) known = known || (at >= r.a && at <= r.b);
      if (known) continue;
      const Eval v = pb.evaluate(f, at);
      runs.push_back({edge(at, v, x[jl], e[jl]), edge(at, v, x[jh], e[jh])});
    }
  }

  // The run around σ (a seed), unless σ lies in a known run or no ruling near it meets the lens.
  bool around(double sigma, std::vector<Run>& runs) {
    const Face& f = face();
    const double slack = 1e-9 * width;
    for (const Run& r : runs)
      if (sigma >= r.a - slack && sigma <= r.b + slack) return false;
    double at = std::clamp(sigma, f.d0, f.d1);
    if (!(length(at) > 0)) {  // on the boundary curve: the run is beside it
      const double h = width / 64;
      double best = 0;
      auto L = [&](double s) { return length(s); };
      at = lens::brent_max(L, std::max(f.d0, at - h), std::min(f.d1, at + h), 1e-7 * width, best);
      if (!(best > 0)) return false;
      for (const Run& r : runs)
        if (at >= r.a - slack && at <= r.b + slack) return false;
    }
    const Eval v = pb.evaluate(f, at);
    double ends[2];
    for (int side = 0; side < 2; ++side) {  // outwards, doubling, to a ruling outside the lens or the domain's end
      const double dir = side ? 1.0 : -1.0, limit = side ? f.d1 : f.d0;
      double step = width / 256, in = at;
      Eval v_in = v;
      for (;;) {
        const double out = std::clamp(in + dir * step, f.d0, f.d1);
        const Eval v_out = pb.evaluate(f, out);
        if (!(v_out.length() > 0)) {
          ends[side] = edge(in, v_in, out, v_out);
          break;
        }
        if (out == limit) {
          ends[side] = limit;
          break;
        }
        in = out, v_in = v_out, step *= 2;
      }
    }
    for (const Run& r : runs)  // a run the sampling found, reached from a seed that fell in its rounding
      if (ends[0] < r.b && ends[1] > r.a) return false;
    runs.push_back({ends[0], ends[1]});
    return true;
  }

  // A run split where the state changes (sampled at 9 points, each change located).
  void panels(const Run& r, std::vector<Panel>& out, std::vector<Seed>& seeds) {
    constexpr int kStates = 8;
    std::vector<double> xs(kStates + 1);
    for (int j = 0; j <= kStates; ++j) {
      // Just inside the ends, where the state is the run's own.
      const double t = static_cast<double>(j) / kStates;
      xs[j] = r.a + (r.b - r.a) * (j == 0 ? 1e-9 : j == kStates ? 1 - 1e-9 : t);
    }
    const bool turn = face().angular() && r.b - r.a >= 2 * kPi - 1e-12;
    cut_panels(pb, face_index, r.a, r.b, xs, tol, turn, out, &seeds);
  }
};

// Every face's pieces. The lens's boundary is connected and the seeds cross from piece to piece, so one run found
// by sampling leads to all; Brent searches beside the samples run only where no sample of any face lies in the lens.
void all_panels(Problem& pb, std::vector<Panel>& panels) {
  const int n = static_cast<int>(pb.faces.size());
  std::vector<FaceRuns> faces;
  for (int i = 0; i < n; ++i) {
    const double width = pb.faces[i].d1 - pb.faces[i].d0;
    faces.push_back(FaceRuns{pb, i, width, 1e-11 * width, {}, {}});
  }
  std::vector<std::vector<Run>> runs(n);
  bool any = false;
  for (int i = 0; i < n; ++i) {
    faces[i].from_samples(runs[i]);
    any = any || !runs[i].empty();
  }
  // The curved modes search every face: their faces' pieces meet only across the torus or the ball, which has no faces
  // to seed.
  // So do the cells with a hole: their lens need not be connected (a peg tilted in a hole touches its wall twice).
  for (int i = 0; i < n && (!any || pb.curved() || pb.holes); ++i) {
    faces[i].from_searches(runs[i]);
    any = any || !runs[i].empty();
  }
  std::vector<Seed> seeds;
  for (int i = 0; i < n; ++i)
    for (const Run& r : runs[i]) faces[i].panels(r, panels, seeds);
  for (size_t k = 0; k < seeds.size() && k < 4096 && !pb.failed; ++k) {
    const Seed sd = seeds[k];
    // The seed's face: the constraint's face whose plane it lies on (a slab's nearer plane) or whose arc holds it.
    int best = -1;
    double best_gap = kInf;
    for (int i = 0; i < n; ++i) {
      const Face& f = pb.faces[i];
      if (f.constraint != sd.constraint) continue;
      const Constraint& q = pb.cons[f.constraint];
      double gap = 0;
      if (!f.side) {
        gap = std::abs(q.a.dot(sd.x - q.p) - f.level);
      } else {
        const double s = face_parameter(pb, f, sd.x);
        gap = s > f.d1 ? s - f.d1 : 0.0;
      }
      if (gap < best_gap) best_gap = gap, best = i;
    }
    if (best < 0 || best_gap > 1e-6 * pb.size) continue;
    const double sigma = face_parameter(pb, pb.faces[best], sd.x);
    if (faces[best].around(sigma, runs[best])) {
      faces[best].panels(runs[best].back(), panels, seeds);
      continue;
    }
    // With a hole, a seed in a known run may show a state its samples missed (a ruling nearly along the hole's wall
    // leaves a piece over a narrow range of rulings): its panel is split at the switches about it.
    if (!pb.holes) continue;
    for (size_t i = 0; i < panels.size(); ++i) {
      const Panel p = panels[i];
      if (p.face != best || sigma <= p.a || sigma >= p.b) continue;
      const long sig = pb.evaluate(pb.faces[best], sigma).sig();
      if (sig == p.sig || sig == 0) break;
      std::vector<Panel> parts;
      const std::vector<double> xs{p.a + 1e-9 * (p.b - p.a), sigma, p.b - 1e-9 * (p.b - p.a)};
      if (cut_panels(pb, best, p.a, p.b, xs, faces[best].tol, false, parts, &seeds)) {
        panels[i] = parts[0];
        panels.insert(panels.end(), parts.begin() + 1, parts.end());
      }
      break;
    }
  }
}

// A panel's integral by the nested Clenshaw–Curtis rules (8 and 16 intervals) under the sine map; the difference is
// the error estimate.
void integrate(Problem& pb, Panel& p) {
  const Face& f = pb.faces[p.face];
  Panel* const box = pb.holes ? &p : nullptr;  // the lens's pieces are told apart with a hole only
  if (box && (p.turn_nodes > 0 || p.intervals == 16)) p.lo = Panel{}.lo, p.hi = Panel{}.hi;
  if (p.turn_nodes > 0) {  // smooth and periodic: the trapezoid rule converges geometrically; its odd nodes' share
    const int n = p.turn_nodes;  // is the estimate
    const double h = (p.b - p.a) / n;
    Moments all{}, even{};
    for (int k = 0; k < n; ++k) {
      const Moments v = pb.ruling_moments(f, p.a + k * h, nullptr, box);
      for (size_t c = 0; c < v.size(); ++c) {
        all[c] += h * v[c];
        if (k % 2 == 0) even[c] += 2 * h * v[c];
      }
    }
    p.value = all;
    for (size_t c = 0; c < all.size(); ++c) p.error[c] = std::abs(all[c] - even[c]);
    return;
  }
  // The rule with n intervals and the one with n / 2 (its even nodes); the ends have weight 0 under the sine map.
  const int n = p.intervals;
  const lens::Mapped fine(lens::cc_rule(n), p.a, p.b), coarse(lens::cc_rule(n / 2), p.a, p.b);
  Moments i_fine{}, i_coarse{};
  long sig = p.sig;
  long* const node_sig = pb.holes ? &sig : nullptr;  // integrate_settled reads p.mixed with a hole only
  p.mixed = false;
  for (int k = 1; k < n; ++k) {
    Moments v;
    if (n == 16) {
      v = p.at[k] = pb.ruling_moments(f, fine.x[k], node_sig, box);
    } else {  // 32: the 16-interval rule's nodes are its even ones
      v = k % 2 == 0 ? p.at[k / 2] : pb.ruling_moments(f, fine.x[k], node_sig, box);
    }
    p.mixed = p.mixed || sig != p.sig;
    for (size_t c = 0; c < v.size(); ++c) {
      i_fine[c] += fine.w[k] * v[c];
      if (k % 2 == 0) i_coarse[c] += coarse.w[k / 2] * v[c];
    }
  }
  p.value = i_fine;
  for (size_t c = 0; c < i_fine.size(); ++c) p.error[c] = std::abs(i_fine[c] - i_coarse[c]);
}

// A panel integrated; where a node of its rule found another state than the panel's (a switch the state samples
// missed: with a hole, a piece that lives over a narrow range of rulings, where a ruling runs nearly along the hole's
// wall), it is split at the switches between its nodes and each part integrated so again. Without this, an estimate
// from nodes on either side of such a switch could pass a piece 2–5 % off (a cylinder tilted in a square slot).
void integrate_settled(Problem& pb, std::vector<Panel>& panels, size_t i, int depth = 0) {
  integrate(pb, panels[i]);
  if (!pb.holes || !panels[i].mixed || panels[i].turn_nodes > 0 || depth > 8 || pb.failed) return;
  // Not the panel itself (2 kB) but what the cut needs: `panels` grows below.
  const int face = panels[i].face;
  const double a = panels[i].a, b = panels[i].b;
  const Face& f = pb.faces[face];
  const double switch_tol = 1e-11 * (f.d1 - f.d0);
  // A panel no wider than the switches are located to is not cut again: its nodes straddle a switch only by roundoff.
  // (A square peg flat on a round hole's floor cut such panels, 1e-16 of their face wide, down to the depth limit: up to
  // 30 000 panels in one query; docs/geometry.md, "States the samples missed".)
  if (b - a <= switch_tol) return;
  const lens::Mapped fine(lens::cc_rule(panels[i].intervals), a, b);
  std::vector<double> xs{a + 1e-9 * (b - a)};
  for (int k = 1; k < panels[i].intervals; ++k) xs.push_back(fine.x[k]);
  xs.push_back(b - 1e-9 * (b - a));
  std::vector<Panel> parts;
  if (!cut_panels(pb, face, a, b, xs, switch_tol, false, parts, nullptr) || pb.failed) return;
  for (size_t k = 0; k < parts.size(); ++k) {
    const size_t at = k == 0 ? i : panels.size();
    if (k == 0) panels[i] = parts[0];
    else panels.push_back(parts[k]);
    integrate_settled(pb, panels, at, depth + 1);
  }
}

// Proves a and b disjoint by a separating plane: h_a(d) + h_b(−d) < 0 for some d, h of a cell the least of its
// primitives' supports (a bound for their intersection). d is searched about −z (the normal estimate points from b
// toward a), then about +z, by alternating Brent searches on two tilts. Where no face found the lens, this tells an overlap the
// sampling missed (the query then goes to the convex lens) from none.
bool separated(const std::vector<lines::Placed>& placed, size_t a_end) {
  auto cell_support = [&](size_t begin, size_t end, const Vec3& d) {
    double h = kInf;
    for (size_t k = begin; k < end; ++k)
      if (!placed[k].complement) h = std::min(h, lines::support(placed[k], d));
    return h;
  };
  for (double side : {-1.0, 1.0}) {  // about −z first, then +z (an estimate that points the wrong way)
    double tilt[2] = {0, 0};
    auto gap = [&](const double* t) {
      const Vec3 d = Vec3(t[0], t[1], side).normalized();
      return cell_support(0, a_end, d) + cell_support(a_end, placed.size(), -d);
    };
    double best = gap(tilt);
    for (int round = 0; round < 4 && best >= 0; ++round)
      for (int k = 0; k < 2 && best >= 0; ++k) {
        double t[2] = {tilt[0], tilt[1]}, neg = 0;
        auto f = [&](double x) {
          t[k] = x;
          const double g = gap(t);
          return std::isfinite(g) ? -g : -1e300;
        };
        const double at = lens::brent_max(f, tilt[k] - 2, tilt[k] + 2, 1e-6, neg);
        if (-neg < best) best = -neg, tilt[k] = at;
      }
    if (best < 0) return true;
  }
  return false;
}

// The number of holes (complemented primitives) of a cell whose primitives are all boxes, cylinders, cones or
// frustums, half-spaces, slabs or infinite cylinders, at least one not complemented; −1 for any other cell.
int ruled_holes(const CellPrimitives& cell) {
  int holes = 0;
  for (const CellPrimitive& cp : cell) {
    holes += cp.complement;
    switch (cp.primitive.kind) {
      case PrimitiveKind::Box: case PrimitiveKind::Cylinder: case PrimitiveKind::Cone:
      case PrimitiveKind::InfiniteCylinder: case PrimitiveKind::HalfSpace: case PrimitiveKind::Slab: break;
      default: return -1;
    }
  }
  return holes < static_cast<int>(cell.size()) ? holes : -1;
}
bool ruled_cell(const CellPrimitives& cell) { return ruled_holes(cell) == 0; }

// One ball or ellipsoid, not complemented, cut by nothing but the kinds ruled_cell takes (a capsule's cap: a ball and
// a half-space).
bool is_ball(PrimitiveKind k) { return k == PrimitiveKind::Sphere || k == PrimitiveKind::Ellipsoid; }
bool ball_cell(const CellPrimitives& cell) {
  int balls = 0;
  for (const CellPrimitive& cp : cell) {
    if (cp.complement) return false;
    if (is_ball(cp.primitive.kind)) ++balls;
    else if (!ruled_cell({cp})) return false;
  }
  return balls == 1;
}

bool lone_ring_torus(const CellPrimitives& cell) {
  return cell.size() == 1 && !cell[0].complement && cell[0].primitive.kind == PrimitiveKind::Torus &&
         cell[0].primitive.major_radius > cell[0].primitive.minor_radius;
}


// What a tube-mode decline says may cure it.
struct Cure {
  // A ruling crossed the tube twice: the normal of the meridian plane through the middle of the gap between its two
  // intervals (the one across the ruling where that middle lies on the axis), which split_moments cuts the torus by.
  // The plane across the ruling alone does not do: a ruling whose first interval is a sliver at the last cut (a cone's
  // side across the ring) has both intervals on one side of it, and the cuts closed in on one plane.
  std::optional<Vec3> split;
  bool wraps = false;  // the lens reached more than half around the tube: the ring field may serve it
};

// How far x lies outside a constraint (< 0 inside): a slab's distance beyond its nearer plane, a quadric's ρ − (c + k z).
// Signed and continuous, not a distance for a cone; enough to tell inside from outside.
double outside(const Constraint& q, const Vec3& x) {
  const Vec3 d = x - q.p;
  const double z = q.a.dot(d);
  if (q.kind == Constraint::Slab) return std::max(q.lo - z, z - q.hi);
  return (d - z * q.a).norm() - (q.c + q.k * z);
}

// Whether the tube's centre circle runs through the cell and the piece's cuts (constraints first_cut on, half-spaces
// through the torus's axis), deeper than 1e-9 of the overlap box. The tube field is singular there, and a lens that
// holds part of the circle crosses the field's cut: the jump, 2π s per unit of the tube's cross-section, is as large as
// the tube's own. Its faces' tube angles need not show it: in each meridian disc they subtend less than π where a
// plane cuts a cap off a disc that keeps its centre. A thin wedge between two cuts has no other meridian to widen them
// (a torus on a counterbore's plug: a 0.025 rad wedge −2.9e-9 m³ where it holds +4.9e-9, the pair 1.7 % low;
// docs/geometry.md, "The tube mode"). The circle is sampled over the cuts' arc, its best point refined.
bool holds_centre_circle(const Problem& pb, int first_cut) {
  if (pb.holes) return false;  // the tube mode's cells have none
  const lines::Placed& T = pb.torus[0];
  const Vec3 centre = -T.A.transpose() * T.b, e1 = T.A.row(0).transpose(), e2 = T.A.row(1).transpose();
  const double R = T.major;
  // The cuts' arc: each keeps the half circle about its inner normal's angle β; together [max β − π/2, min β + π/2].
  double lo = 0, hi = 2 * kPi, first = 0;
  bool any = false;
  for (size_t i = first_cut; i < pb.cons.size(); ++i) {
    const Constraint& q = pb.cons[i];
    const Vec3 inward = std::isfinite(q.hi) ? Vec3(-q.a) : Vec3(q.a);  // lo ≤ a·(x − centre) ≤ hi, one end 0
    double beta = std::atan2(inward.dot(e2), inward.dot(e1));
    if (!any) first = beta, lo = beta - 0.5 * kPi, hi = beta + 0.5 * kPi, any = true;
    beta = first + std::remainder(beta - first, 2 * kPi);
    lo = std::max(lo, beta - 0.5 * kPi), hi = std::min(hi, beta + 0.5 * kPi);
  }
  if (!(hi > lo)) return false;
  auto depth = [&](double phi) {
    const Vec3 x = centre + R * (std::cos(phi) * e1 + std::sin(phi) * e2);
    double out = -kInf;
    for (const Constraint& q : pb.cons) out = std::max(out, outside(q, x));
    return out;
  };
  const double deep = -1e-9 * pb.size;
  constexpr int kSamples = 64;
  const double step = (hi - lo) / kSamples;
  double best = kInf, at = lo;
  for (int k = 0; k <= kSamples; ++k)
    if (const double d = depth(lo + k * step); d < best) best = d, at = lo + k * step;
  if (best < deep) return true;
  // Golden section about the best sample: the depth is a maximum of smooth functions, one valley at this scale.
  double a = std::max(lo, at - step), b = std::min(hi, at + step);
  const double g = 0.5 * (std::sqrt(5.0) - 1);
  double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = depth(x1), f2 = depth(x2);
  for (int k = 0; k < 60 && std::min(f1, f2) >= deep; ++k) {
    if (f1 < f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = depth(x1);
    else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = depth(x2);
  }
  return std::min(f1, f2) < deep;
}

// A plane at or beyond a parallel plane of its own cell bounds nothing: dropped, so that no two planes of a cell
// coincide (a cylinder with flats written as a box as tall as the cylinder, a hole's plug cut as long as its plate is
// thick: coincident planes, which the rulings cannot take). So too a hole's plane at or beyond its cell's own (a hole
// drilled through a plate, given as a cylinder as long as the plate is thick): it bounds nothing inside the cell. Of
// two coincident planes the first stays. A slab left with no plane is dropped whole.
void drop_redundant_planes(Problem& pb) {
  const double eps = 1e-9 * pb.size;
  for (Constraint& h : pb.cons) {
    if (h.kind != Constraint::Slab) continue;
    for (const Constraint& c : pb.cons) {
      if (&c == &h || c.hole || c.cell != h.cell || c.kind != Constraint::Slab) continue;
      const double dot = c.a.dot(h.a);
      if (std::abs(dot) < 1 - 1e-12) continue;
      const double off = h.a.dot(c.p - h.p), e1 = off + dot * c.lo, e2 = off + dot * c.hi;
      const double bottom = std::min(e1, e2), top = std::max(e1, e2);
      if (h.hi >= top - eps) h.hi = kInf;
      if (h.lo <= bottom + eps) h.lo = -kInf;
    }
  }
  pb.cons.erase(std::remove_if(pb.cons.begin(), pb.cons.end(),
                               [](const Constraint& c) {
                                 return c.kind == Constraint::Slab && c.lo == -kInf && c.hi == kInf;
                               }),
                pb.cons.end());
}

// A panel with two sheets (chord pieces on both sides of the hole's chord): each sheet's moments by the panel's own rule
// (its nodes evaluated again, once, after the integration has converged).
void piece_values(Problem& pb, const Panel& p, std::array<Moments, 2>& part) {
  const Face& f = pb.faces[p.face];
  part = {};
  Moments node[2];
  auto add = [&](double x, double w) {
    node[0] = node[1] = Moments{};  // a node whose chord is empty leaves them as they are
    pb.ruling_moments(f, x, nullptr, nullptr, node);
    for (int j = 0; j < 2; ++j)
      for (size_t c = 0; c < node[j].size(); ++c) part[j][c] += w * node[j][c];
  };
  if (p.turn_nodes > 0) {
    const double h = (p.b - p.a) / p.turn_nodes;
    for (int k = 0; k < p.turn_nodes; ++k) add(p.a + k * h, h);
    return;
  }
  const lens::Mapped fine(lens::cc_rule(p.intervals), p.a, p.b);
  for (int k = 1; k < p.intervals; ++k) add(fine.x[k], fine.w[k]);
}

// The lens's connected pieces, with a hole (a peg tilted in its hole touches the wall twice). The sheets are each
// panel's chord pieces on either side of the hole's chord (sheet 2i + j: panel i's side j; by side, not by order along
// the ruling, so that a panel whose nodes see one piece here and two there keeps them apart). Returns each sheet's
// piece number (−1: no ruling in the lens) and the pieces' count. Two sheets are joined where their boxes, each grown by
// a quarter of its diagonal, meet (the sheets of one piece meet along curves that both sides' rulings end on; the
// quarter covers the curve between two nodes), and so are the single sheets of one face's panels that share an end.
// The growth errs toward joining: a false join gives two pieces one patch, a false split one patch two normals.
int lens_pieces(const std::vector<Panel>& panels, std::vector<int>& piece) {
  const int n = 2 * static_cast<int>(panels.size());
  std::vector<int> parent(n);
  for (int i = 0; i < n; ++i) parent[i] = i;
  auto root = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  auto join = [&](int a, int b) { parent[root(a)] = root(b); };
  // A panel of no width (where the switches about a seed coincide) holds nothing, and its nodes' states are not one
  // sheet's: it would join the sheets either side of the hole.
  auto empty = [&](int s) {
    const Panel& p = panels[s / 2];
    return !(p.b > p.a) || (p.lo[s % 2].array() > p.hi[s % 2].array()).any();
  };
  // The sheets' boxes, each grown by a quarter of its diagonal (two grown boxes meet exactly where the pair's test,
  // lo_a − (g_a + g_b) ≤ hi_b on every axis, holds), swept along x: on a deep pose, testing
  // every pair of sheets took 68 % of a run's time (a square peg flat on a round hole's floor).
  struct Grown {
    Vec3 lo, hi;
    int sheet;
  };
  std::vector<Grown> boxes;
  for (int a = 0; a < n; ++a) {
    if (empty(a)) continue;
    const Panel& p = panels[a / 2];
    const Vec3 g = Vec3::Constant(0.25 * (p.hi[a % 2] - p.lo[a % 2]).norm());
    boxes.push_back(Grown{p.lo[a % 2] - g, p.hi[a % 2] + g, a});
  }
  std::sort(boxes.begin(), boxes.end(), [](const Grown& x, const Grown& y) {
    return x.lo.x() < y.lo.x() || (x.lo.x() == y.lo.x() && x.sheet < y.sheet);
  });
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size() && boxes[j].lo.x() <= boxes[i].hi.x(); ++j)
      if ((boxes[i].lo.array() <= boxes[j].hi.array()).all() && (boxes[j].lo.array() <= boxes[i].hi.array()).all())
        join(boxes[i].sheet, boxes[j].sheet);
  // Single sheets of one face whose panels share an end: consecutive in (face, start) order.
  std::vector<int> single;
  for (int a = 0; a < n; ++a)
    if (!empty(a) && !panels[a / 2].two()) single.push_back(a);
  std::sort(single.begin(), single.end(), [&](int x, int y) {
    const Panel &p = panels[x / 2], &q = panels[y / 2];
    return p.face < q.face || (p.face == q.face && (p.a < q.a || (p.a == q.a && x < y)));
  });
  for (size_t i = 0; i + 1 < single.size(); ++i) {
    const Panel &p = panels[single[i] / 2], &q = panels[single[i + 1] / 2];
    if (p.face == q.face && p.b == q.a) join(single[i], single[i + 1]);
  }
  piece.assign(n, -1);
  std::vector<int> number(n, -1);
  int count = 0;
  for (int a = 0; a < n; ++a) {
    if (empty(a)) continue;
    int& k = number[root(a)];
    if (k < 0) k = count++;
    piece[a] = k;
  }
  return count;
}

// The moments; in the tube mode `cuts` are half-spaces through the torus's axis added to a's constraints (faces only
// for the ring field: the tube field lies in the meridian planes, so they carry none of its flux).
// pieces: where the lens falls apart (a cell with a hole), each connected piece's moments, largest first (else left
// empty).
std::optional<RawMoments> moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                  const Pose& pose_b, const Pose& frame, double tolerance, long& lines,
                                  const std::vector<Constraint>& cuts = {}, bool ring_field = false,
                                  Cure* cure = nullptr, std::vector<RawMoments>* pieces = nullptr) {
  Problem pb;
  pb.tube = ruled_cell(a) && lone_ring_torus(b);
  pb.ring_field = pb.tube && ring_field;
  pb.ball = (ruled_holes(a) == 0 || ruled_holes(a) == 1) && ball_cell(b);
  // A tenth of √tol along the tube field's chords: at √tol a cone across the tube (bench_every_pair seed 3, pose 0)
  // came out 5.2e-4 off in V and 1.3e-3 in J at 1e-3, against exact chords, falling only like the tolerance; at a
  // tenth, 6e-6 and 2.3e-5. Most chords meet either budget at their first rule: the pairs' medians did not move.
  pb.chord_tolerance = (pb.tube ? 0.1 : 1.0) * std::sqrt(tolerance);
  if (!pb.curved() && !ruled_faces_pair(a, b)) return std::nullopt;
  std::vector<lines::Placed> placed;
  for (const CellPrimitive& cp : a) placed.push_back(lines::place(cp, pose_a, frame));
  const size_t a_end = placed.size();
  for (const CellPrimitive& cp : b) placed.push_back(lines::place(cp, pose_b, frame));
  for (size_t k = 0; k < placed.size(); ++k) {
    if (pb.tube && k >= a_end) {
      pb.torus.push_back(placed[k]);
      continue;
    }
    if (pb.ball && is_ball(placed[k].kind)) {  // x_prim = A x + b = D y: x = −Aᵀ b + Aᵀ D y
      const lines::Placed& p = placed[k];
      const Vec3 axes = p.kind == PrimitiveKind::Sphere ? Vec3::Constant(p.r) : p.radii;
      pb.ball_centre = -p.A.transpose() * p.b;
      pb.ball_map = p.A.transpose() * axes.asDiagonal();
      pb.ball_inverse = axes.cwiseInverse().asDiagonal() * p.A;
      continue;
    }
    if (!add_constraints(placed[k], k < a_end ? 0 : 1, pb.cons)) return std::nullopt;
    pb.holes = pb.holes || placed[k].complement;
  }
  Vec3 alo, ahi, blo, bhi;
  lines::placed_cell_bounds(placed, 0, a_end, alo, ahi);
  lines::placed_cell_bounds(placed, a_end, placed.size(), blo, bhi);
  pb.box_lo = alo.cwiseMax(blo), pb.box_hi = ahi.cwiseMin(bhi);
  if (!pb.box_lo.allFinite() || !pb.box_hi.allFinite()) return std::nullopt;  // unbounded
  if ((pb.box_lo.array() >= pb.box_hi.array()).any()) return RawMoments{};
  pb.size = (pb.box_hi - pb.box_lo).norm();
  drop_redundant_planes(pb);  // the cells' own planes, before the tube mode's cuts
  const int first_cut = static_cast<int>(pb.cons.size());
  pb.cons.insert(pb.cons.end(), cuts.begin(), cuts.end());
  // Coincident planes (a flat end on a flat end) leave the rulings on one lying in the other: the lens takes those.
  for (size_t i = 0; i < pb.cons.size(); ++i)
    for (size_t j = i + 1; j < pb.cons.size(); ++j) {
      const Constraint &p = pb.cons[i], &q = pb.cons[j];
      if (p.kind != Constraint::Slab || q.kind != Constraint::Slab) continue;
      const double dot = p.a.dot(q.a);
      if (std::abs(dot) < 1 - 1e-12) continue;
      const double off = p.a.dot(q.p - p.p);
      for (double lp : {p.lo, p.hi})
        for (double lq : {q.lo, q.hi})
          if (std::isfinite(lp) && std::isfinite(lq) && std::abs(lp - (off + dot * lq)) < 1e-9 * pb.size)
            return std::nullopt;
    }

  if (pb.tube && !pb.ring_field && holds_centre_circle(pb, first_cut)) {  // the ring field serves such a lens
    if (cure) cure->wraps = true;
    return std::nullopt;
  }

  // The faces: every plane of every slab, every quadric's side; those the box excludes are dropped.
  std::vector<Face> faces;
  int flat[2] = {0, 0};  // per cell, the faces with n_z ≡ 0
  for (int i = 0; i < static_cast<int>(pb.cons.size()); ++i) {
    const Constraint& q = pb.cons[i];
    std::vector<Face> fs;
    const double outward = q.hole ? -1.0 : 1.0;  // a hole's faces bound the cell from the hole's inside
    if (q.kind == Constraint::Quadric) {
      Face f;
      f.constraint = i, f.side = true, f.sign = outward;
      fs.push_back(f);
    } else {
      for (double sign : {1.0, -1.0}) {
        const double level = sign > 0 ? q.hi : q.lo;
        if (!std::isfinite(level)) continue;
        Face f;
        f.constraint = i, f.sign = outward * sign, f.level = level;
        fs.push_back(f);
      }
    }
    if (i >= first_cut && !pb.ring_field) continue;
    for (Face& f : fs) {
      // n_z ≡ 0 on a plane parallel to the normal or a cylinder along it: no share of any moment (of the field along
      // z; the tube mode's field is not), only of the area vector.
      f.no_flux = !pb.curved() && ((!f.side && std::abs(q.a.z()) < 1e-15) ||
                                   (f.side && q.k == 0 && std::abs(q.a.z()) > 1 - 1e-15));
      flat[q.cell] += f.no_flux;
      faces.push_back(f);
    }
  }
  // The area vector from one cell's faces (b's give minus a's): the one with fewer faces that carry it alone, which
  // are integrated for it; in the curved modes the ruled cell, the only one with faces all round.
  const int area_cell = pb.curved() || flat[0] <= flat[1] ? 0 : 1;
  for (Face& f : faces) {
    const Constraint& q = pb.cons[f.constraint];
    if (f.no_flux && q.cell != area_cell) continue;
    if (f.constraint < first_cut && q.cell == area_cell) f.area_weight = area_cell == 0 ? 1.0 : -1.0;
    add_face(pb, f);
  }

  // The panels' storage is kept per thread between queries: a deep pose holds ~100 panels of ~2 kB, and a vector
  // grown afresh each query was mapped and page-faulted anew (a box deep in a blind hole: 29 % of its time in the
  // kernel). No query nests in another on one thread (the ruled faces spawn no tasks).
  static thread_local std::vector<Panel> kept;
  std::vector<Panel>& panels = kept;
  panels.clear();
  all_panels(pb, panels);
  // A ruling through the tube twice, met while the panels were found or later, while they were refined: the caller
  // splits the torus across it.
  auto declined = [&] {
    lines += pb.lines;
    if (pb.crossed_twice && cure) {
      const lines::Placed& T = pb.torus[0];
      const Vec3 axis = T.A.row(2).transpose(), centre = -T.A.transpose() * T.b;
      const Vec3 exit = pb.twice_exit - centre, entry = pb.twice_entry - centre;
      const Vec3 across = pb.twice_direction - pb.twice_direction.dot(axis) * axis;
      const Vec3 through_gap = axis.cross(0.5 * (exit + entry));
      if (through_gap.norm() > 1e-9 * T.major)
        cure->split = through_gap.normalized();
      else if (across.norm() > 1e-9 * pb.twice_direction.norm() && across.dot(exit) * across.dot(entry) < 0)
        cure->split = across.normalized();
    }
    return std::nullopt;
  };
  if (pb.failed) return declined();
  RawMoments out;
  if (panels.empty()) {  // no overlap, proved; or one that 16 samples per face missed: the lens looks for it
    lines += pb.lines;
    // With a hole there is often no plane between the cells (a peg clear in its hole) and no lens to look further:
    // what every face's samples and the searches beside their maxima find is the answer (docs/geometry.md, "Holes").
    if (pb.holes || separated(placed, a_end)) return out;
    return std::nullopt;
  }
  // ref (the middle of the longest chord found) now lies in the lens: every face's share is of the order of V.
  pb.frozen = true;
  if (pb.tube) {  // the field's cut: the tube angle opposite ref's, or the ring angle
    const Vec3 xt = pb.torus[0].A * pb.ref + pb.torus[0].b;
    pb.alpha_cut = std::atan2(xt.z(), std::hypot(xt.x(), xt.y()) - pb.torus[0].major) + kPi;
    pb.phi_cut = std::atan2(xt.y(), xt.x()) + kPi;
  }
  if (pb.ball) {  // the field's regular pole toward ref; its singular ray misses the lens unless the centre is in it
    // With a hole the lens need not be convex (a ring about a ball on a hole's rim, whose far side lies 2β from any
    // of its points): the pole is the direction, of ref's and either way along each hole's axes, whose widest angle
    // to the points met so far is least (a ring's axis keeps every point of it at β). theta_max still declines a lens
    // the singular ray comes near.
    Vec3 to_ref = pb.ball_inverse * (pb.ref - pb.ball_centre);
    if (pb.holes) {
      std::vector<Vec3> poles{to_ref};
      for (const Constraint& q : pb.cons)  // a box hole's three slabs give its three axes
        if (q.hole) poles.push_back(pb.ball_inverse * q.a), poles.push_back(-poles.back());
      double best = -kInf;
      for (const Vec3& pole : poles) {
        if (!(pole.norm() > 1e-9)) continue;
        const Vec3 e = pole.normalized();
        double nearest = kInf;  // the least cos θ over the points
        for (const Vec3& x : pb.lens_points) {
          const Vec3 y = pb.ball_inverse * (x - pb.ball_centre);
          nearest = std::min(nearest, e.dot(y) / y.norm());
        }
        if (nearest > best) best = nearest, to_ref = pole;
      }
    }
    bool in_cell = true, in_hole = pb.holes;
    for (const Constraint& q : pb.cons) {
      const Chord c = chord(q, pb.ball_centre, q.e1);
      bool& inside = q.hole ? in_hole : in_cell;
      inside = inside && c.lo <= 0 && c.hi >= 0;
    }
    if ((in_cell && !in_hole) || !(to_ref.norm() > 1e-9)) {
      lines += pb.lines;
      return std::nullopt;
    }
    pb.ball_axis = to_ref.normalized();
  }
  // Planes holding the field (a capsule's cut through its cap's centre, with ref on it; a box's face through a torus's
  // axis): their flux is zero.
  if (pb.curved()) {
    const Vec3 centre = pb.tube ? Vec3(-pb.torus[0].A.transpose() * pb.torus[0].b) : pb.ball_centre;
    const Vec3 along = pb.tube ? Vec3(pb.torus[0].A.row(2).transpose()) : Vec3(pb.ball_map * pb.ball_axis);
    for (Face& f : pb.faces) {
      const Constraint& q = pb.cons[f.constraint];
      f.no_flux = !f.side && std::abs(q.a.dot(along)) < 1e-12 * along.norm() &&
                  std::abs(q.a.dot(centre - q.p) - f.level) < 1e-12 * pb.size;
      // The ring field has no flux through planes across the axis instead.
      if (pb.ring_field) f.no_flux = !f.side && q.a.cross(along).norm() < 1e-12 * along.norm();
    }
  }
  // A lens reaching more than half around the tube (around the ring, for the ring field) may cross the field's cut.
  // The tube field's wrap asks for the ring field (Cure::wraps).
  auto wrapped = [&] {
    const bool tube_wrap = pb.tube && !pb.ring_field && pb.alpha_max - pb.alpha_min > kPi;
    if (tube_wrap && cure) cure->wraps = true;
    return tube_wrap || (pb.ring_field && pb.phi_max - pb.phi_min > kPi);
  };
  for (size_t i = 0, n = panels.size(); i < n; ++i) integrate_settled(pb, panels, i);
  if (wrapped()) {  // the panels' first rules show it already: no refinement for a piece about to be declined
    lines += pb.lines;
    return std::nullopt;
  }
  // Halve the worst piece until the estimates meet the tolerance: on V, on the first moments (relative to V times
  // the lens's radius of gyration) and on the second (relative to their trace about ref).
  auto totals = [&](Moments& t, Moments& err) {
    t = {}, err = {};
    for (const Panel& p : panels)
      for (size_t c = 0; c < t.size(); ++c) t[c] += p.value[c], err[c] += p.error[c];
  };
  const double share = 0.5 * tolerance;
  // A lens below (3e-5 of the overlap box)³ is held to the tolerance as if its V were that (1e-18 m³ on a 3 cm pair: a
  // ring 7 nm deep under a 12 mm ball, whose force k_v V is 1e-6 N at k_v 1e12 N/m³). There its faces' fluxes are up
  // to 1e8 times V and cancel (the curved modes' fields do not vanish on the faces), their chords' rounding nears V
  // (~1e-18 m / d of each flux), the relative tolerance was not met in 512 rounds, and the column engine then took
  // 0.5–37 s for a V 1e3 times off (a ball grazing a hole's rim; docs/geometry.md, "A ball on a hole").
  const double floor_volume = std::pow(3e-5 * pb.size, 3);
  for (int round = 0;; ++round) {
    Moments t, err;
    totals(t, err);
    const double V = std::abs(t[0]), trace = std::abs(t[4]) + std::abs(t[7]) + std::abs(t[9]);
    const double first = std::sqrt(V * trace);
    auto normalised = [&](const Moments& m) {
      double worst = m[0] / V;
      for (int c = 1; c < 4; ++c) worst = std::max(worst, m[c] / first);
      for (int c = 4; c < kMoments; ++c) worst = std::max(worst, m[c] / trace);
      return worst;
    };
    if (pb.failed) return declined();
    if (!(V > 0)) {
      lines += pb.lines;
      return out;  // nothing in the lens (rulings touching it only)
    }
    if (normalised(err) <= share * std::max(1.0, floor_volume / V)) break;
    // Below the floor, rounds that do not settle it are rounding: the estimate stands (its error is then of the order of
    // the chords' rounding, ~1e-22 m³ for a ring 0.1 nm deep under a 12 mm ball, where V is ~2e-22 m³). So too after
    // 512 rounds for a lens within 1e3 of the floor, where the column engine is no better.
    if ((V < floor_volume && round >= 64) || (V < 1e3 * floor_volume && round >= 512)) break;
    // The rounds grow like tol^-½ (a frustum on a torus: 22 at 1e-6, 68 at 1e-7, 242 at 1e-8); a cap of 64 handed
    // tolerances under 1e-6 to the column engine, seconds a query.
    if (round >= 512) return declined();
    auto worst = std::max_element(panels.begin(), panels.end(), [&](const Panel& x, const Panel& y) {
      return normalised(x.error) < normalised(y.error);
    });
    const size_t w = worst - panels.begin();
    if (worst->turn_nodes > 0 && worst->turn_nodes < 512) {
      worst->turn_nodes *= 2;
      integrate(pb, *worst);
      continue;
    }
    // A turn the trapezoid rule has not met on 512 nodes is not smooth at its scale (a ring 0.1 nm deep, where its
    // chords' rounding shows): halved as any panel from here, where the doubling went on without end.
    if (worst->turn_nodes > 0) {
      worst->turn_nodes = 0;
      integrate_settled(pb, panels, w);
      continue;
    }
    // A smooth piece converges geometrically in the rule's order: 32 intervals first (15 new rulings, where halving
    // takes 30), then halving.
    if (worst->intervals == 16) {
      worst->intervals = 32;
      integrate_settled(pb, panels, w);
      continue;
    }
    Panel right = *worst;
    const double mid = 0.5 * (worst->a + worst->b);
    worst->b = mid, right.a = mid;
    worst->intervals = right.intervals = 16;
    panels.push_back(right);
    integrate_settled(pb, panels, w);
    integrate_settled(pb, panels, panels.size() - 1);
  }
  lines += pb.lines;
  if (wrapped()) return std::nullopt;  // refinement can still widen the range
  // Near the singular ray (a lens reaching far around the ball from its pole) the chords' rules would not converge.
  if (pb.ball && pb.theta_max > 0.75 * kPi) return std::nullopt;
  // About frame's origin: x = ref + y.
  auto raw = [&](const Moments& t) {
    const Vec3 m1(t[1], t[2], t[3]);
    Mat3 m2;
    m2 << t[4], t[5], t[6], t[5], t[7], t[8], t[6], t[8], t[9];
    const Vec3& c = pb.ref;
    RawMoments r;
    r.m0 = t[0];
    r.area = Vec3(t[kArea], t[kArea + 1], t[kArea + 2]);
    r.m1 = m1 + t[0] * c;
    r.m2 = m2 + m1 * c.transpose() + c * m1.transpose() + t[0] * c * c.transpose();
    return r;
  };
  Moments t, err;
  totals(t, err);
  out = raw(t);
  if (pieces && pb.holes) {
    std::vector<int> piece;
    const int count = lens_pieces(panels, piece);
    std::vector<Moments> sums(count, Moments{});
    auto add_to = [&](int sheet, const Moments& m) {
      if (piece[sheet] >= 0)
        for (size_t c = 0; c < m.size(); ++c) sums[piece[sheet]][c] += m[c];
    };
    for (size_t i = 0; i < panels.size() && count >= 2; ++i) {
      const int sheet = 2 * static_cast<int>(i);
      if (!panels[i].two() || piece[sheet] == piece[sheet + 1]) {  // one sheet, or two in one piece: the panel's value
        add_to(piece[sheet] >= 0 ? sheet : sheet + 1, panels[i].value);
        continue;
      }
      std::array<Moments, 2> part;
      piece_values(pb, panels[i], part);
      add_to(sheet, part[0]);
      add_to(sheet + 1, part[1]);
    }
    // Each piece's V is its own boundary's flux: a piece that is not one (a split where the growth above failed to
    // join) could come out ≤ 0. Then the lens is taken whole.
    bool whole = count < 2;
    for (const Moments& m : sums) whole = whole || !(m[0] > 1e-9 * t[0]);
    if (!whole) {
      std::vector<int> order(count);
      for (int k = 0; k < count; ++k) order[k] = k;
      std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return sums[x][0] > sums[y][0]; });
      for (int k : order) pieces->push_back(raw(sums[k]));
    }
  }
  return out;
}

// The tube mode's moments, the torus cut by meridian planes where moments() asks for it, each piece taken by itself
// (the pieces' moments add up): where a ruling crosses the tube twice (a rod across the ring's hole, a cylinder's end
// disc across it), a cut between its two intervals. A piece whose rulings of another direction still cross it twice
// (a cylinder through the hole: its side's rulings and its end disc's) is cut again, up to kMaxCuts deep. A piece whose
// lens reaches more than half around the tube (a cone or a cylinder deep across it, holding part of the tube's centre
// circle) is taken again with the ring field.
constexpr int kMaxCuts = 6;
// pieces: moments()'s (a cell with a hole, which the tube mode never has).
std::optional<RawMoments> split_moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                        const Pose& pose_b, const Pose& frame, double tolerance, long& lines,
                                        std::vector<Constraint> cuts, bool ring_field = false,
                                        std::vector<RawMoments>* pieces = nullptr) {
  Cure cure;
  std::optional<RawMoments> m =
      moments(a, pose_a, b, pose_b, frame, tolerance, lines, cuts, ring_field, &cure, pieces);
  if (!m && cure.wraps) return split_moments(a, pose_a, b, pose_b, frame, tolerance, lines, cuts, true);
  if (m || !cure.split || cuts.size() >= kMaxCuts) return m;
  const lines::Placed torus = lines::place(b[0], pose_b, frame);
  Constraint cut;
  cut.p = -torus.A.transpose() * torus.b;  // the torus's centre in the frame
  cut.a = *cure.split;
  cut.e1 = torus.A.row(2).transpose();  // the axis, in the plane
  cut.e2 = cut.a.cross(cut.e1);
  RawMoments sum;
  cuts.push_back(cut);
  for (const double side : {-1.0, 1.0}) {
    cuts.back().lo = side < 0 ? -kInf : 0.0, cuts.back().hi = side < 0 ? 0.0 : kInf;
    const std::optional<RawMoments> piece =
        split_moments(a, pose_a, b, pose_b, frame, tolerance, lines, cuts, ring_field);
    if (!piece) return std::nullopt;
    sum += *piece;
  }
  return sum;
}

// A blind hole's floor: the one end face of the hole (a box's, a cylinder's or a cone's) whose centre lies inside its
// cell while the opposite end's does not (a pocket's walls have both ends' centres inside, a hole through the cell
// neither). Returned as the half-space beyond the floor's plane, in the holed cell's body frame (a HalfSpace holds its
// local z < 0; here z points into the hole). Nothing for a hole through its cell, a closed cavity, or two such ends.
std::optional<Pose> beyond_hole_floor(const CellPrimitives& cell) {
  const auto hole = std::find_if(cell.begin(), cell.end(), [](const CellPrimitive& cp) { return cp.complement; });
  if (hole == cell.end()) return std::nullopt;
  const Primitive& h = hole->primitive;
  const bool box = h.kind == PrimitiveKind::Box;
  if (!box && h.kind != PrimitiveKind::Cylinder && h.kind != PrimitiveKind::Cone) return std::nullopt;
  const Vec3 half = box ? Vec3(0.5 * h.size) : Vec3(0, 0, 0.5 * h.length);
  const double margin = 1e-9 * (2 * half.norm() + std::max(h.radius, h.radius_top));
  auto inside = [&](const Vec3& x) {
    for (const CellPrimitive& cp : cell) {
      if (cp.complement) continue;
      const lines::Placed p = lines::place(cp, Pose{}, Pose{});
      if (!(lines::sdf_local(p, p.A * x + p.b) < -margin)) return false;
    }
    return true;
  };
  std::optional<Pose> floor;
  for (int k = box ? 0 : 2; k < 3; ++k) {
    const Vec3 end = half[k] * Vec3::Unit(k);
    const bool lower = inside(h.pose.apply(-end)), upper = inside(h.pose.apply(end));
    if (lower == upper) continue;
    if (floor) return std::nullopt;  // two floors: a corner pocket open on two sides
    const Vec3 at = lower ? Vec3(-end) : end;
    floor = h.pose.compose(Pose{at, Quat::FromTwoVectors(Vec3::UnitZ(), -at.normalized())});
  }
  return floor;
}

// How far a cell (at its pose) reaches beyond the plane through p along its unit normal n, both in the world: its
// extent along n bounded by each primitive's support (an intersection reaches no further than any of its members).
// ≤ 0: the cell lies on the plane's other side.
double reach_beyond(const CellPrimitives& cell, const Pose& pose, const Vec3& p, const Vec3& n) {
  double reach = kInf;
  for (const CellPrimitive& cp : cell)
    if (!cp.complement) reach = std::min(reach, lines::support(lines::place(cp, pose, Pose{}), n) - n.dot(p));
  return reach;
}

// Whether a cell (at its pose) reaches both sides of the plane through p with unit normal n, both in the world.
bool straddles(const CellPrimitives& cell, const Pose& pose, const Vec3& p, const Vec3& n) {
  return reach_beyond(cell, pose, p, n) > 0 && reach_beyond(cell, pose, p, -n) > 0;
}

// A blind hole's floor meets its wall in a concave corner: a peg resting on the floor with its corners on the wall
// makes one connected lens, a U whose area vector lies between the floor's normal and the wall's, and whose one normal
// jumps between them (docs/contact-models.md, "A patch in a concave corner"). Cut at the floor's plane, each side is a
// pair the ruled faces take as they are: beyond it the cell without its hole (convex), on the hole's side a hole that
// the plane now ends flush (dropped, as a hole through its cell), whose pieces the corners are. The two add up to the
// lens; the pieces are the floor's part and the wall's pieces. Nothing (the caller takes the lens whole) when the pair
// has no such floor, the other cell lies on one side of its plane, or either side is declined.
std::optional<RawMoments> split_at_hole_floor(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& lines,
                                              std::vector<RawMoments>& pieces) {
  const bool hole_in_a = ruled_holes(a) == 1;
  const CellPrimitives& holed = hole_in_a ? a : b;
  const std::optional<Pose> beyond = beyond_hole_floor(holed);
  if (!beyond) return std::nullopt;
  const Pose plane = (hole_in_a ? pose_a : pose_b).compose(*beyond);
  if (!straddles(hole_in_a ? b : a, hole_in_a ? pose_b : pose_a, plane.position, plane.rotation * Vec3::UnitZ()))
    return std::nullopt;
  CellPrimitive cut;
  cut.primitive.kind = PrimitiveKind::HalfSpace;
  cut.primitive.pose = *beyond;
  CellPrimitives floor_side, hole_side = holed;
  for (const CellPrimitive& cp : holed)
    if (!cp.complement) floor_side.push_back(cp);
  floor_side.push_back(cut);
  cut.primitive.pose = beyond->compose(Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(kPi, Vec3::UnitX()))});
  hole_side.push_back(cut);
  auto side = [&](const CellPrimitives& cell, std::vector<RawMoments>* side_pieces) {
    return hole_in_a ? split_moments(cell, pose_a, b, pose_b, frame, tolerance, lines, {}, false, side_pieces)
                     : split_moments(a, pose_a, cell, pose_b, frame, tolerance, lines, {}, false, side_pieces);
  };
  const std::optional<RawMoments> floor_part = side(floor_side, nullptr);
  if (!floor_part) return std::nullopt;
  std::vector<RawMoments> parts;
  const std::optional<RawMoments> wall_part = side(hole_side, &parts);
  if (!wall_part) return std::nullopt;
  if (parts.empty() && wall_part->m0 > 0) parts.push_back(*wall_part);
  if (floor_part->m0 > 0) parts.push_back(*floor_part);
  if (parts.size() >= 2) {
    std::stable_sort(parts.begin(), parts.end(), [](const RawMoments& x, const RawMoments& y) { return x.m0 > y.m0; });
    pieces = std::move(parts);
  }
  RawMoments sum = *floor_part;
  sum += *wall_part;
  return sum;
}

// How far a hole reaches along unit n inside its cell, whose other primitives lie in the box [lo, hi] (the cell's
// frame): an upper bound on n·x over the hole's points in the box. A through hole (an infinite cylinder) is bounded
// there by its axis clipped to the box grown by its radius; −∞ for one that misses the box; +∞ for a hole that is a
// half-space or a slab, or a box unbounded where the axis runs.
double hole_reach(const CellPrimitive& hole, const Vec3& n, const Vec3& lo, const Vec3& hi) {
  const Primitive& h = hole.primitive;
  if (h.kind == PrimitiveKind::HalfSpace || h.kind == PrimitiveKind::Slab) return kInf;
  if (h.kind != PrimitiveKind::InfiniteCylinder) return lines::support(lines::place(hole, Pose{}, Pose{}), n);
  const Vec3 a = h.pose.rotation * Vec3::UnitZ(), c = h.pose.position;
  double t0 = -kInf, t1 = kInf;  // the axis c + t a inside [lo − r, hi + r]
  for (int k = 0; k < 3; ++k) {
    const double below = lo[k] - h.radius - c[k], above = hi[k] + h.radius - c[k];
    if (a[k] == 0) {
      if (below > 0 || above < 0) return -kInf;
      continue;
    }
    t0 = std::max(t0, std::min(below / a[k], above / a[k]));
    t1 = std::min(t1, std::max(below / a[k], above / a[k]));
  }
  if (!(t0 <= t1)) return -kInf;
  if (!std::isfinite(t0) || !std::isfinite(t1)) return kInf;
  const double along = a.dot(n), across = std::sqrt(std::max(0.0, n.squaredNorm() - along * along));
  return std::max(n.dot(c + t0 * a), n.dot(c + t1 * a)) + h.radius * across;
}

// A plane n·x = d across a cell (its frame) and the holes each side keeps: `below` in n·x < d, `above` in n·x > d.
struct HoleSplit {
  Vec3 n = Vec3::Zero();
  double d = 0;
  std::vector<int> below, above;  // indices into the cell
};

// A hole of revolution (a cylinder, a cone or frustum, an infinite cylinder) along a unit axis a: its range [t0, t1] of
// t = a·x and its radius at each end (linear between); nothing for another kind or an axis not along ±a.
struct AxialHole {
  double t0, t1, r0, r1;
  double radius(double t) const {
    return t1 > t0 && std::isfinite(t1 - t0) ? r0 + (r1 - r0) * (t - t0) / (t1 - t0) : r0;
  }
};
std::optional<AxialHole> axial_hole(const Primitive& h, const Vec3& a) {
  if (h.kind != PrimitiveKind::Cylinder && h.kind != PrimitiveKind::Cone && h.kind != PrimitiveKind::InfiniteCylinder)
    return std::nullopt;
  const double along = (h.pose.rotation * Vec3::UnitZ()).dot(a);
  if (!(std::abs(std::abs(along) - 1) < 1e-12)) return std::nullopt;
  if (h.kind == PrimitiveKind::InfiniteCylinder) return AxialHole{-kInf, kInf, h.radius, h.radius};
  const double tc = a.dot(h.pose.position), half = 0.5 * h.length;
  const double bottom = h.radius, top = h.kind == PrimitiveKind::Cone ? h.radius_top : h.radius;  // at local z = ∓half
  return along > 0 ? AxialHole{tc - half, tc + half, bottom, top} : AxialHole{tc - half, tc + half, top, bottom};
}

// Holes on one axis that overlap (a counterbore over its hole, a chamfer or a countersink over a drilled hole, a
// stepped bore): a plane across the axis at one hole's end, where each side keeps the holes that reach into it, less
// those another kept hole contains there (same axis, the other one present over the side's whole range of t with a
// radius at least as large; both radii linear in t, so their ends decide). Each side must keep fewer holes than
// `holes`. `size`: the cell's, for the rounding allowances.
std::optional<HoleSplit> split_across_axis(const CellPrimitives& cell, const std::vector<int>& holes, double size) {
  const double eps = 1e-12 * size;
  for (int first : holes) {
    const Primitive& f = cell[first].primitive;
    const Vec3 a = f.pose.rotation * Vec3::UnitZ();
    const std::optional<AxialHole> fa = axial_hole(f, a);
    if (!fa) continue;
    // The cell's range of t: each of its other primitives bounds it.
    double t_lo = -kInf, t_hi = kInf;
    for (const CellPrimitive& cp : cell) {
      if (cp.complement) continue;
      const lines::Placed placed = lines::place(cp, Pose{}, Pose{});
      t_hi = std::min(t_hi, lines::support(placed, a)), t_lo = std::max(t_lo, -lines::support(placed, -a));
    }
    for (const double d : {fa->t0, fa->t1}) {
      if (!(d > t_lo + eps && d < t_hi - eps)) continue;  // an end outside the cell cuts nothing
      HoleSplit split{a, d, {}, {}};
      bool progress = true;
      for (const bool below : {true, false}) {
        const double lo = below ? t_lo : d, hi = below ? d : t_hi;
        // The holes reaching into this side, widest first, so that of two equal holes one is kept.
        std::vector<std::pair<double, int>> reaching;
        for (int h : holes) {
          const double h_lo = -hole_reach(cell[h], -a, Vec3::Constant(-kInf), Vec3::Constant(kInf)),
                       h_hi = hole_reach(cell[h], a, Vec3::Constant(-kInf), Vec3::Constant(kInf));
          if (below ? h_lo < d - eps : h_hi > d + eps) {
            const std::optional<AxialHole> ah = axial_hole(cell[h].primitive, a);
            reaching.push_back({ah ? -std::max(ah->r0, ah->r1) : -kInf, h});
          }
        }
        std::sort(reaching.begin(), reaching.end());
        std::vector<int>& kept = below ? split.below : split.above;
        for (const auto& [order, h] : reaching) {
          const std::optional<AxialHole> ah = axial_hole(cell[h].primitive, a);
          const Vec3 offset_h = cell[h].primitive.pose.position - a * a.dot(cell[h].primitive.pose.position);
          const bool contained = ah && std::any_of(kept.begin(), kept.end(), [&](int g) {
            const std::optional<AxialHole> ag = axial_hole(cell[g].primitive, a);
            if (!ag) return false;
            const Vec3 offset_g = cell[g].primitive.pose.position - a * a.dot(cell[g].primitive.pose.position);
            if (!((offset_h - offset_g).norm() <= eps)) return false;  // not the same axis
            const double from = std::max(lo, ah->t0), to = std::min(hi, ah->t1);
            if (!(from < to)) return true;  // h has nothing on this side
            return ag->t0 <= from + eps && ag->t1 >= to - eps && ag->radius(from) >= ah->radius(from) - eps &&
                   ag->radius(to) >= ah->radius(to) - eps;
          });
          if (!contained) kept.push_back(h);
        }
        progress = progress && kept.size() < holes.size();
      }
      if (progress) return split;
    }
  }
  return std::nullopt;
}

// The plane that parts the holes `holes` of `cell` (≥ 2) into two groups with the widest gap between their reaches
// (hole_reach), among normals from the holes' centres (each pair's difference, and that less its part along either
// hole's axis, so that parallel through holes part); where no gap exceeds 1e-9 of the cell's size, holes on one axis
// cut across it (split_across_axis); else nothing (crossing holes: the column engine takes them).
//
// `other` (optional): the extent [lo, hi] along n (the cell's frame) of the cell it meets. A plane the other cell lies
// wholly on one side of leaves one side to integrate: where a gap allows, the plane goes between the other cell and
// the farther hole, and such a gap wins over any wider one.
using Extent = std::function<std::pair<double, double>(const Vec3& n)>;
std::optional<HoleSplit> split_holes(const CellPrimitives& cell, const std::vector<int>& holes,
                                     const Extent& other = nullptr) {
  Vec3 lo = Vec3::Constant(-kInf), hi = Vec3::Constant(kInf);
  for (const CellPrimitive& cp : cell) {
    if (cp.complement) continue;
    Vec3 l, h;
    lines::primitive_bounds(lines::place(cp, Pose{}, Pose{}), l, h);
    lo = lo.cwiseMax(l), hi = hi.cwiseMin(h);
  }
  const double size = (hi - lo).norm();
  if (!std::isfinite(size)) return std::nullopt;
  auto axis = [&](int i) {
    const Primitive& h = cell[i].primitive;
    return h.kind == PrimitiveKind::Box ? Vec3::Zero() : Vec3(h.pose.rotation * Vec3::UnitZ());
  };
  std::vector<Vec3> normals;
  for (std::size_t i = 0; i < holes.size(); ++i)
    for (std::size_t j = i + 1; j < holes.size(); ++j) {
      const Vec3 d = cell[holes[j]].primitive.pose.position - cell[holes[i]].primitive.pose.position;
      normals.push_back(d);
      for (int k : {holes[i], holes[j]}) normals.push_back(d - axis(k) * axis(k).dot(d));
    }
  std::optional<HoleSplit> best;
  double widest = 1e-9 * size;
  bool best_clear = false;  // the best plane leaves the other cell on one side
  struct Reach {
    double lo, hi;
    int index;
  };
  std::vector<Reach> reach(holes.size());
  for (Vec3 n : normals) {
    if (!(n.norm() > 1e-12 * size)) continue;
    n.normalize();
    for (std::size_t k = 0; k < holes.size(); ++k)
      reach[k] = {-hole_reach(cell[holes[k]], -n, lo, hi), hole_reach(cell[holes[k]], n, lo, hi), holes[k]};
    std::sort(reach.begin(), reach.end(), [](const Reach& x, const Reach& y) { return x.lo < y.lo; });
    const std::pair<double, double> o = other ? other(n) : std::pair<double, double>{kInf, -kInf};
    double top = -kInf;  // the highest reach of the holes so far
    for (std::size_t k = 0; k + 1 < reach.size(); ++k) {
      top = std::max(top, reach[k].hi);
      const double next = reach[k + 1].lo, gap = next - top;
      if (!(gap > 1e-9 * size) || !std::isfinite(gap)) continue;
      // Where the other cell leaves room in the gap, the plane goes in the middle of that room.
      double from = top, to = next;
      if (o.second < next - 1e-9 * size) from = std::max(top, o.second);
      else if (o.first > top + 1e-9 * size) to = std::min(next, o.first);
      const bool clear = to - from < gap || o.second <= top || o.first >= next;
      if (best_clear && !clear) continue;
      if (!(clear && !best_clear) && !(gap > widest)) continue;
      widest = gap, best_clear = clear;
      best = HoleSplit{n, 0.5 * (from + to), {}, {}};
      for (std::size_t m = 0; m < reach.size(); ++m) (m <= k ? best->below : best->above).push_back(reach[m].index);
    }
  }
  return best ? best : split_across_axis(cell, holes, size);
}

// Whether planes can part every hole of `holes` from the others, splitting again where a group keeps several.
bool holes_parted(const CellPrimitives& cell, const std::vector<int>& holes) {
  if (holes.size() < 2) return true;
  const std::optional<HoleSplit> split = split_holes(cell, holes);
  return split && holes_parted(cell, split->below) && holes_parted(cell, split->above);
}

std::vector<int> hole_indices(const CellPrimitives& cell) {
  std::vector<int> holes;
  for (std::size_t i = 0; i < cell.size(); ++i)
    if (cell[i].complement) holes.push_back(static_cast<int>(i));
  return holes;
}

// A cell the ruled faces take against one without holes: no hole, one, or several that planes part.
bool ruled_or_holed(const CellPrimitives& cell) {
  const int holes = ruled_holes(cell);
  return holes == 0 || holes == 1 || (holes >= 2 && holes_parted(cell, hole_indices(cell)));
}

// A cell with several holes (a plate drilled in a row, a counterbored hole), the other with none: cut by a plane
// between its holes or across their axis (split_holes), each side is the cell with the holes it keeps and that
// half-space (the others lie beyond the plane, or inside a kept hole there). A side with one hole is the pair the
// ruled faces take; one with more is cut again. A side the other cell does not reach is empty. The sides add up to the
// lens (their cut faces cancel within the tolerance); pieces: each side's, but one piece on each side is one. Nothing
// where a side is declined, or the holes cannot be parted.
std::optional<RawMoments> split_between_holes(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& lines,
                                              std::vector<RawMoments>* pieces) {
  const bool holed_a = ruled_holes(a) >= 2;
  const CellPrimitives& holed = holed_a ? a : b;
  const Pose& pose_h = holed_a ? pose_a : pose_b;
  const CellPrimitives& other = holed_a ? b : a;
  const Pose& pose_o = holed_a ? pose_b : pose_a;
  const Extent extent = [&](const Vec3& n) {  // the other cell's, along n of the holed cell's frame
    const Vec3 n_world = pose_h.rotation * n;
    const double shift = n_world.dot(pose_h.position);
    return std::pair<double, double>{-reach_beyond(other, pose_o, Vec3::Zero(), -n_world) - shift,
                                     reach_beyond(other, pose_o, Vec3::Zero(), n_world) - shift};
  };
  const std::optional<HoleSplit> split = split_holes(holed, hole_indices(holed), extent);
  if (!split) return std::nullopt;
  const Vec3 n_world = pose_h.rotation * split->n, p_world = pose_h.apply(split->d * split->n);
  RawMoments sum;
  std::vector<RawMoments> parts;
  int sides_with_one_piece = 0;
  for (const bool below : {true, false}) {
    // The other cell must reach into this side: beyond the plane against its normal for the side below.
    if (!(reach_beyond(other, pose_o, p_world, below ? -n_world : n_world) > 0)) continue;
    CellPrimitives side;
    const std::vector<int>& keep = below ? split->below : split->above;
    for (std::size_t i = 0; i < holed.size(); ++i)
      if (!holed[i].complement || std::find(keep.begin(), keep.end(), int(i)) != keep.end()) side.push_back(holed[i]);
    CellPrimitive cut;  // a HalfSpace holds its local z < 0: z along n below the plane, along −n above it
    cut.primitive.kind = PrimitiveKind::HalfSpace;
    cut.primitive.pose = Pose{split->d * split->n, Quat::FromTwoVectors(Vec3::UnitZ(), below ? split->n : -split->n)};
    side.push_back(cut);
    std::vector<RawMoments> side_pieces;
    const std::optional<RawMoments> m =
        holed_a ? ruled_faces_moments(side, pose_a, b, pose_b, frame, tolerance, lines, pieces ? &side_pieces : nullptr)
                : ruled_faces_moments(a, pose_a, side, pose_b, frame, tolerance, lines, pieces ? &side_pieces : nullptr);
    if (!m) return std::nullopt;
    sum += *m;
    if (side_pieces.empty() && m->m0 > 0) side_pieces.push_back(*m);
    sides_with_one_piece += side_pieces.size() == 1;
    parts.insert(parts.end(), side_pieces.begin(), side_pieces.end());
  }
  // One piece on each side: taken as one region that the plane cuts (a bar across the web between two holes, a peg
  // pressed past it), so one piece. Where a side has several, they are kept apart, and so is its neighbour's piece,
  // whether or not it meets one of them at the plane (not told apart; docs/geometry.md, "Several holes").
  if (pieces && parts.size() >= 2 && !(parts.size() == 2 && sides_with_one_piece == 2)) {
    std::stable_sort(parts.begin(), parts.end(), [](const RawMoments& x, const RawMoments& y) { return x.m0 > y.m0; });
    *pieces = std::move(parts);
  }
  return sum;
}

}  // namespace

bool ruled_faces_pair(const CellPrimitives& a, const CellPrimitives& b) {
  const int ha = ruled_holes(a), hb = ruled_holes(b);
  if (ha < 0 || hb < 0) return false;
  if (ha + hb <= 1) return true;
  // Several holes in one cell, none in the other: parted by planes (split_between_holes).
  return (hb == 0 && ruled_or_holed(a)) || (ha == 0 && ruled_or_holed(b));
}

bool ruled_hole_pair(const CellPrimitives& a, const CellPrimitives& b) {
  return (ruled_faces_pair(a, b) || ruled_ball_pair(a, b)) && std::max(ruled_holes(a), ruled_holes(b)) >= 1;
}

bool ruled_torus_pair(const CellPrimitives& a, const CellPrimitives& b) {
  return (ruled_cell(a) && lone_ring_torus(b)) || (lone_ring_torus(a) && ruled_cell(b));
}

bool ruled_ball_pair(const CellPrimitives& a, const CellPrimitives& b) {
  return (ruled_or_holed(a) && ball_cell(b)) || (ball_cell(a) && ruled_or_holed(b));
}

std::optional<RawMoments> ruled_faces_moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& lines,
                                              std::vector<RawMoments>* pieces) {
  if ((lone_ring_torus(a) && ruled_cell(b)) || (ball_cell(a) && ruled_holes(b) >= 0)) {
    std::optional<RawMoments> m = ruled_faces_moments(b, pose_b, a, pose_a, frame, tolerance, lines, pieces);
    if (m) m->area = -m->area;  // b's boundary inside a: minus a's
    if (m && pieces)
      for (RawMoments& piece : *pieces) piece.area = -piece.area;
    return m;
  }
  const auto plain = [](const CellPrimitives& c) { return ruled_holes(c) == 0 || ball_cell(c); };
  if ((ruled_holes(a) >= 2 && plain(b)) || (ruled_holes(b) >= 2 && plain(a)))
    return split_between_holes(a, pose_a, b, pose_b, frame, tolerance, lines, pieces);
  if (pieces && ruled_hole_pair(a, b))
    if (std::optional<RawMoments> m = split_at_hole_floor(a, pose_a, b, pose_b, frame, tolerance, lines, *pieces))
      return m;
  return split_moments(a, pose_a, b, pose_b, frame, tolerance, lines, {}, false, pieces);
}

}  // namespace vcsim::geo
