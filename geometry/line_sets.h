// Exact sets along a straight line: where a line meets a primitive or a cell (an intersection of primitives and
// complements). The shared kernel of the column engine (geometry/column_integration.cpp) and of the swept
// quadratures (geometry/torus_sweep.cpp). Quadrics and planes are closed form, the ring torus a closed-form quartic,
// meshes sphere-traced on their level set. Everything is expressed in a query frame Q.
#pragma once
#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "geometry/column_integration.h"

namespace vcsim::geo::lines {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A primitive expressed for queries in the query frame Q: x_prim = A x_Q + b (A a rotation).
struct Placed {
  PrimitiveKind kind;
  bool complement;
  double r = 0, r2 = 0, half_length = 0, half_thickness = 0, major = 0;
  Vec3 half_size = Vec3::Zero(), radii = Vec3::Zero();
  Vec3 inv_radii = Vec3::Zero();  // an ellipsoid's 1/radii: chords and distances multiply where they divided
  Mat3 A;
  Vec3 b;
  const MeshLevelSet* mesh = nullptr;
};

// Places a cell primitive (posed in its body, the body posed in the world) for queries in `frame`.
Placed place(const CellPrimitive& cp, const Pose& body_pose, const Pose& frame);

// Signed distance in the primitive's own frame (exact, or a conservative 1-Lipschitz bound for the ellipsoid).
double sdf_local(const Placed& p, const Vec3& x);

struct Span {
  double lo = kInf, hi = -kInf;  // empty when lo >= hi
  int face_lo = 0, face_hi = 0;
};

// Intersects a span with the solution set of a s^2 + 2 beta s + gamma <= 0 (a >= 0), the chord of a quadric: a miss
// leaves an inverted chord (below). Inline: the convex lens evaluates it per column on its own forms.
inline void clip_quadratic(double a, double beta, double gamma, int face, Span& s) {
  if (a < 1e-14) {  // the line runs parallel to the curved surface's generators
    if (gamma > 0) s.lo = kInf, s.hi = -kInf;
    return;
  }
  const double disc = beta * beta - a * gamma;
  if (disc < 0) {
    // A miss, kept as an "inverted" chord (hi < lo) whose negative length grows continuously with
    // the distance from tangency: the column gap used to look for contacts between samples.
    const double mid = -beta / a, half = std::sqrt(-disc) / a;
    if (mid + half > s.lo) s.lo = mid + half, s.face_lo = face;
    if (mid - half < s.hi) s.hi = mid - half, s.face_hi = face;
    return;
  }
  const double sq = std::sqrt(disc);
  // Numerically stable roots.
  const double q = -(beta + std::copysign(sq, beta));
  double r1 = q / a, r2 = (q != 0) ? gamma / q : -beta / a;
  if (r1 > r2) std::swap(r1, r2);
  if (r1 > s.lo) s.lo = r1, s.face_lo = face;
  if (r2 < s.hi) s.hi = r2, s.face_hi = face;
}

// The chord of a convex primitive (not the torus or a mesh) along x = o + s w, primitive frame. A quadric that
// misses keeps an "inverted" chord (hi < lo) whose negative length grows with the distance from tangency.
Span line_span(const Placed& p, const Vec3& o, const Vec3& w);

// The support function max over the primitive of v·x, v and x in Q (+∞ where it is unbounded along v). Exact for every
// primitive (a torus's: its ring's disc swept by the tube's ball), a mesh's bounded by its box's.
double support(const Placed& p, const Vec3& v);

// A point of the primitive where v·x reaches support(p, v) (one of them where several do: a face's corner, a rim's
// point), in Q; not finite where the primitive is unbounded along v. A mesh's is its box's corner.
Vec3 support_point(const Placed& p, const Vec3& v);

// Axis-aligned bounds of a primitive in Q (infinite where the primitive is unbounded).
void primitive_bounds(const Placed& p, Vec3& lo, Vec3& hi);

constexpr int kMaxIntervals = 16;  // more intervals along one line are dropped (documented)
struct IntervalList {
  int n = 0;
  std::array<std::array<double, 2>, kMaxIntervals> v;
  void push(double lo, double hi) {
    if (lo < hi && n < kMaxIntervals) v[n++] = {lo, hi};
  }
};
IntervalList intersect(const IntervalList& a, const IntervalList& b);
IntervalList subtract(const IntervalList& a, const IntervalList& b);

// The set {s in [s0, s1] : o + s w in the cell prims[begin, end)}, o and w (unit) in Q.
IntervalList cell_line_set(const std::vector<Placed>& prims, size_t begin, size_t end, const Vec3& o, const Vec3& w,
                           double s0, double s1);

// A ring torus's chord along x = o + s w (|w| = 1, in Q) on [s0, s1], exact (a quartic's roots). Where the line
// misses, a continuation for searches: s_near, the point of [s0, s1] where the torus's quartic is least, and there
// clearance2 = d² − r² (d the distance to the tube's centre circle), which falls to 0 at a tangency.
struct TorusChord {
  IntervalList set;
  double s_near = 0, clearance2 = 0;
  double clearance2_slope = 0;  // d(d² − r²)/ds at s_near: 0 between the ends, where the quartic is least
};
TorusChord torus_chord(const Placed& p, const Vec3& o, const Vec3& w, double s0, double s1);

// The shape of that chord without its ends' positions: how many intervals, whether the first starts at s0 and the last
// ends at s1. From the quartic's signs at the segment's ends and its critical points, with no root solved (the torus
// sweep's chord signatures, most of its chords against another torus).
struct ChordShape {
  int n = 0;
  bool starts_at_s0 = false, ends_at_s1 = false;
};
ChordShape torus_chord_shape(const Placed& p, const Vec3& o, const Vec3& w, double s0, double s1);

// d² − r² at the point of the segment x = o + s w, s in [s0, s1], where the torus's quartic is least: negative where the
// segment enters the torus, positive where it misses (torus_chord's clearance2), continuous, and 0 where it becomes
// tangent or where an end of the segment touches. Also that point's s, and which end it is (−1 at s0, +1 at s1, 0
// between them): a search over a family of segments takes its slope from there (the torus sweep's first chords).
struct TorusLeast {
  double level = 0, s = 0;
  int end = 0;
  double slope = 0;  // d(d² − r²)/ds there to first order (the quartic's slope over its cofactor): 0 between the ends
};
TorusLeast torus_least_level(const Placed& p, const Vec3& o, const Vec3& w, double s0, double s1);

// Bounds in Q of the cell prims[begin, end) (complements ignored: they only remove).
void placed_cell_bounds(const std::vector<Placed>& prims, size_t begin, size_t end, Vec3& lo, Vec3& hi);

// Signed distance bound (max over the primitives, complements negated) of the cell prims[begin, end) at x in Q.
double cell_sdf(const std::vector<Placed>& prims, size_t begin, size_t end, const Vec3& xq);

}  // namespace vcsim::geo::lines
