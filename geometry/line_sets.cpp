#include "geometry/line_sets.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "geometry/mesh.h"

namespace vcsim::geo::lines {

// ---- signed distances (exact, or a conservative 1-Lipschitz bound for the ellipsoid) ----

// The distance from the z axis. √(x² + y²) rather than std::hypot: 3–4× cheaper, and the coordinates here never
// come near overflow or underflow (the distance queries are a third of the torus sweep's time).
static double radial(const Vec3& x) { return std::sqrt(x.x() * x.x() + x.y() * x.y()); }

double sdf_local(const Placed& p, const Vec3& x) {
  switch (p.kind) {
    case PrimitiveKind::Sphere: return x.norm() - p.r;
    case PrimitiveKind::Box: {
      const Vec3 q = x.cwiseAbs() - p.half_size;
      return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    }
    case PrimitiveKind::Cylinder: {
      const double dx = radial(x) - p.r, dz = std::abs(x.z()) - p.half_length;
      return std::hypot(std::max(dx, 0.0), std::max(dz, 0.0)) + std::min(std::max(dx, dz), 0.0);
    }
    case PrimitiveKind::Cone: {
      // Capped cone (frustum) of radii r (z = -h) and r2 (z = +h): exact distance (Quilez).
      const double h = p.half_length, r1 = p.r, r2 = p.r2;
      const double qx = radial(x), qy = x.z();
      const double k1x = r2, k1y = h, k2x = r2 - r1, k2y = 2 * h;
      const double cax = qx - std::min(qx, qy < 0 ? r1 : r2), cay = std::abs(qy) - h;
      const double t = std::clamp(((k1x - qx) * k2x + (k1y - qy) * k2y) / (k2x * k2x + k2y * k2y), 0.0, 1.0);
      const double cbx = qx - k1x + k2x * t, cby = qy - k1y + k2y * t;
      const double s = (cbx < 0 && cay < 0) ? -1.0 : 1.0;
      return s * std::sqrt(std::min(cax * cax + cay * cay, cbx * cbx + cby * cby));
    }
    case PrimitiveKind::Capsule: {
      const double z = std::clamp(x.z(), -p.half_length, p.half_length);
      return Vec3(x.x(), x.y(), x.z() - z).norm() - p.r;
    }
    case PrimitiveKind::Ellipsoid: {
      // (|x/r| - 1) min(r) never exceeds the true distance in magnitude: a valid bound.
      const double k = x.cwiseProduct(p.inv_radii).norm();
      return (k - 1) * p.radii.minCoeff();
    }
    case PrimitiveKind::Torus: {
      const double d = radial(x) - p.major;
      return std::sqrt(d * d + x.z() * x.z()) - p.r;
    }
    case PrimitiveKind::HalfSpace: return x.z();
    case PrimitiveKind::Slab: return std::abs(x.z()) - p.half_thickness;
    case PrimitiveKind::InfiniteCylinder: return radial(x) - p.r;
    case PrimitiveKind::Mesh: return mesh_distance(*p.mesh, x);
  }
  return kInf;
}

// ---- exact line intersections: the set {s : o + s w inside the primitive} ----

// Intersects a span with {s : lo <= o + s w <= hi} (one slab of a box, cylinder caps...).
static void clip_slab(double o, double w, double lo, double hi, int face, Span& s) {
  if (std::abs(w) < 1e-15) {
    if (o < lo || o > hi) s.lo = kInf, s.hi = -kInf;
    return;
  }
  double t1 = (lo - o) / w, t2 = (hi - o) / w;
  if (t1 > t2) std::swap(t1, t2);
  if (t1 > s.lo) s.lo = t1, s.face_lo = face;
  if (t2 < s.hi) s.hi = t2, s.face_hi = face;
}

Span line_span(const Placed& p, const Vec3& o, const Vec3& w) {
  Span s;
  s.lo = -kInf, s.hi = kInf;
  switch (p.kind) {
    case PrimitiveKind::Sphere: clip_quadratic(1.0, o.dot(w), o.squaredNorm() - p.r * p.r, 0, s); break;
    case PrimitiveKind::Ellipsoid: {
      const Vec3 os = o.cwiseProduct(p.inv_radii), ws = w.cwiseProduct(p.inv_radii);
      clip_quadratic(ws.squaredNorm(), os.dot(ws), os.squaredNorm() - 1, 0, s);
      break;
    }
    case PrimitiveKind::Box:
      for (int k = 0; k < 3; ++k) clip_slab(o[k], w[k], -p.half_size[k], p.half_size[k], k, s);
      break;
    case PrimitiveKind::Cylinder:
      clip_quadratic(w.x() * w.x() + w.y() * w.y(), o.x() * w.x() + o.y() * w.y(),
                     o.x() * o.x() + o.y() * o.y() - p.r * p.r, 0, s);
      clip_slab(o.z(), w.z(), -p.half_length, p.half_length, 1, s);
      break;
    case PrimitiveKind::InfiniteCylinder:
      clip_quadratic(w.x() * w.x() + w.y() * w.y(), o.x() * w.x() + o.y() * w.y(),
                     o.x() * o.x() + o.y() * o.y() - p.r * p.r, 0, s);
      break;
    case PrimitiveKind::HalfSpace: clip_slab(o.z(), w.z(), -kInf, 0.0, 0, s); break;
    case PrimitiveKind::Slab: clip_slab(o.z(), w.z(), -p.half_thickness, p.half_thickness, 0, s); break;
    case PrimitiveKind::Capsule: {
      // Convex: the chord is the hull of the chords of its cylinder and its two end spheres.
      Span body = s;
      clip_quadratic(w.x() * w.x() + w.y() * w.y(), o.x() * w.x() + o.y() * w.y(),
                     o.x() * o.x() + o.y() * o.y() - p.r * p.r, 0, body);
      clip_slab(o.z(), w.z(), -p.half_length, p.half_length, 1, body);
      Span out;
      auto merge = [&out](const Span& c) {
        if (c.lo >= c.hi) return;
        if (c.lo < out.lo) out.lo = c.lo, out.face_lo = c.face_lo;
        if (c.hi > out.hi) out.hi = c.hi, out.face_hi = c.face_hi;
      };
      merge(body);
      for (int end = 0; end < 2; ++end) {
        Span cap = s;
        const Vec3 oc = o - Vec3(0, 0, end ? p.half_length : -p.half_length);
        clip_quadratic(1.0, oc.dot(w), oc.squaredNorm() - p.r * p.r, 2 + end, cap);
        merge(cap);
      }
      return out;
    }
    case PrimitiveKind::Cone: {
      // Frustum: rho <= c + k z on |z| <= h. Convex, so the chord is one interval: solve the
      // quadratic inequality, keep the root interval that lies within the slab.
      const double h = p.half_length, k = (p.r2 - p.r) / (2 * h), c = 0.5 * (p.r + p.r2);
      clip_slab(o.z(), w.z(), -h, h, 1, s);
      if (s.lo >= s.hi) return s;
      const double rc = c + k * o.z(), kw = k * w.z();
      const double a = w.x() * w.x() + w.y() * w.y() - kw * kw;
      const double beta = o.x() * w.x() + o.y() * w.y() - rc * kw;
      const double gamma = o.x() * o.x() + o.y() * o.y() - rc * rc;
      auto inside = [&](double t) {
        const Vec3 x = o + t * w;
        return x.x() * x.x() + x.y() * x.y() <= std::pow(c + k * x.z(), 2);
      };
      if (std::abs(a) < 1e-14) {
        // Linear: 2 beta t + gamma <= 0.
        if (std::abs(beta) < 1e-300) {
          if (gamma > 0) s.lo = kInf, s.hi = -kInf;
        } else if (beta > 0) {
          const double t = -gamma / (2 * beta);
          if (t < s.hi) s.hi = t, s.face_hi = 0;
        } else {
          const double t = -gamma / (2 * beta);
          if (t > s.lo) s.lo = t, s.face_lo = 0;
        }
        return s;
      }
      const double disc = beta * beta - a * gamma;
      if (a > 0) {
        clip_quadratic(a, beta, gamma, 0, s);
        return s;
      }
      // a < 0: the solution set is two rays, one per nappe; only one nappe meets the slab.
      if (disc < 0) return s;  // every point of the line satisfies the inequality (inside both nappes' span)
      const double sq = std::sqrt(disc);
      double t1 = (-beta + sq) / a, t2 = (-beta - sq) / a;
      if (t1 > t2) std::swap(t1, t2);
      // Rays (-inf, t1] and [t2, inf): keep the one whose part inside the slab is inside the cone.
      const double mid_low = std::min(t1, s.hi), mid_high = std::max(t2, s.lo);
      if (s.lo <= t1 && inside(0.5 * (s.lo + std::min(t1, s.hi)))) {
        if (mid_low < s.hi) s.hi = mid_low, s.face_hi = 0;
      } else if (t2 <= s.hi && inside(0.5 * (std::max(t2, s.lo) + s.hi))) {
        if (mid_high > s.lo) s.lo = mid_high, s.face_lo = 0;
      } else {
        s.lo = kInf, s.hi = -kInf;
      }
      return s;
    }
    case PrimitiveKind::Torus:
    case PrimitiveKind::Mesh: break;
  }
  return s;
}


// ---- support functions ----

// max over the primitive of w·x, x and w in its own frame (axis z, centred); +∞ where it is unbounded along w.
static double support_local(const Placed& p, const Vec3& w) {
  const double across = std::sqrt(w.x() * w.x() + w.y() * w.y());
  switch (p.kind) {
    case PrimitiveKind::Sphere: return p.r * w.norm();
    case PrimitiveKind::Cylinder: return p.half_length * std::abs(w.z()) + p.r * across;
    case PrimitiveKind::Cone:  // the hull of its two end discs: radius r at z = −h, r2 at z = +h
      return std::max(-p.half_length * w.z() + p.r * across, p.half_length * w.z() + p.r2 * across);
    case PrimitiveKind::Capsule: return p.half_length * std::abs(w.z()) + p.r * w.norm();
    case PrimitiveKind::Ellipsoid: return w.cwiseProduct(p.radii).norm();
    case PrimitiveKind::Box: return w.cwiseAbs().dot(p.half_size);
    case PrimitiveKind::Torus: return p.major * across + p.r * w.norm();  // the ring's disc swept by the tube's ball
    case PrimitiveKind::Mesh: {
      double s = 0;
      for (int i = 0; i < 3; ++i) s += std::max(p.mesh->lo[i] * w[i], p.mesh->hi[i] * w[i]);
      return s;
    }
    case PrimitiveKind::Slab: return across == 0 ? p.half_thickness * std::abs(w.z()) : kInf;
    case PrimitiveKind::HalfSpace: return across == 0 && w.z() >= 0 ? 0.0 : kInf;
    case PrimitiveKind::InfiniteCylinder: return w.z() == 0 ? p.r * across : kInf;
  }
  return kInf;
}

double support(const Placed& p, const Vec3& v) {
  const Vec3 w = p.A * v;
  const double s = support_local(p, w);
  return std::isfinite(s) ? s - w.dot(p.b) : kInf;
}

Vec3 support_point(const Placed& p, const Vec3& v) {
  const Vec3 w = p.A * v;
  const double across = std::sqrt(w.x() * w.x() + w.y() * w.y()), len = w.norm();
  const Vec3 radial = across > 0 ? Vec3(w.x() / across, w.y() / across, 0) : Vec3::Zero();
  const Vec3 unit = len > 0 ? Vec3(w / len) : Vec3::Zero();
  const double end = std::copysign(p.half_length, w.z());
  Vec3 local;
  switch (p.kind) {
    case PrimitiveKind::Sphere: local = p.r * unit; break;
    case PrimitiveKind::Cylinder: local = p.r * radial + end * Vec3::UnitZ(); break;
    case PrimitiveKind::Cone:  // the rim of the end disc that supports it (r at z = −h, r2 at z = +h)
      local = -p.half_length * w.z() + p.r * across > p.half_length * w.z() + p.r2 * across
                  ? Vec3(p.r * radial - p.half_length * Vec3::UnitZ())
                  : Vec3(p.r2 * radial + p.half_length * Vec3::UnitZ());
      break;
    case PrimitiveKind::Capsule: local = end * Vec3::UnitZ() + p.r * unit; break;
    case PrimitiveKind::Ellipsoid: {
      // x = D² w / |D w|, D = diag(radii): the gradient of |D w|.
      const Vec3 dw = w.cwiseProduct(p.radii);
      local = dw.norm() > 0 ? Vec3(dw.cwiseProduct(p.radii) / dw.norm()) : Vec3::Zero();
      break;
    }
    case PrimitiveKind::Box:
      local = Vec3(std::copysign(p.half_size.x(), w.x()), std::copysign(p.half_size.y(), w.y()),
                   std::copysign(p.half_size.z(), w.z()));
      break;
    case PrimitiveKind::Torus: local = p.major * radial + p.r * unit; break;
    case PrimitiveKind::Mesh:
      for (int i = 0; i < 3; ++i) local[i] = w[i] >= 0 ? p.mesh->hi[i] : p.mesh->lo[i];
      break;
    default: return Vec3::Constant(kInf);  // unbounded
  }
  return p.A.transpose() * (local - p.b);
}

// Axis-aligned bounds of a primitive in Q (infinite where the primitive is unbounded).
void primitive_bounds(const Placed& p, Vec3& lo, Vec3& hi) {
  lo = Vec3::Constant(-kInf);
  hi = Vec3::Constant(kInf);
  Vec3 e;
  switch (p.kind) {
    case PrimitiveKind::Sphere: e = Vec3::Constant(p.r); break;
    case PrimitiveKind::Box: e = p.half_size; break;
    case PrimitiveKind::Cylinder: e = Vec3(p.r, p.r, p.half_length); break;
    case PrimitiveKind::Cone: {
      const double r = std::max(p.r, p.r2);
      e = Vec3(r, r, p.half_length);
      break;
    }
    case PrimitiveKind::Capsule: e = Vec3(p.r, p.r, p.half_length + p.r); break;
    case PrimitiveKind::Ellipsoid: e = p.radii; break;
    case PrimitiveKind::Torus: e = Vec3(p.major + p.r, p.major + p.r, p.r); break;
    case PrimitiveKind::Mesh: {
      // The mesh bounds are not centred on the primitive origin.
      const Mat3 At = p.A.transpose();
      mapped_box_bounds(At, -At * p.b, p.mesh->lo, p.mesh->hi, lo, hi);
      return;
    }
    default: return;  // half-space, slab, infinite cylinder: unbounded
  }
  // x_Q = A^T (x_p - b): the box |x_p| <= e maps to centre -A^T b, half-extents |A^T| e.
  const Mat3 At = p.A.transpose();
  const Vec3 centre = -At * p.b;
  const Vec3 half = At.cwiseAbs() * e;
  lo = centre - half;
  hi = centre + half;
}

IntervalList intersect(const IntervalList& a, const IntervalList& b) {
  IntervalList out;
  for (int i = 0; i < a.n; ++i)
    for (int j = 0; j < b.n; ++j) out.push(std::max(a.v[i][0], b.v[j][0]), std::min(a.v[i][1], b.v[j][1]));
  return out;
}

IntervalList subtract(const IntervalList& a, const IntervalList& b) {
  IntervalList cur = a;
  for (int j = 0; j < b.n; ++j) {
    IntervalList out;
    for (int i = 0; i < cur.n; ++i) {
      out.push(cur.v[i][0], std::min(cur.v[i][1], b.v[j][0]));
      out.push(std::max(cur.v[i][0], b.v[j][1]), cur.v[i][1]);
    }
    cur = out;
  }
  return cur;
}

namespace {
// ∛x for x ≥ 0: the exponent divided by 3 in the bits, then two Halley steps (within 7e-15 relative; the critical
// point it serves is polished by a Newton step after). libm's cbrt took 131 instructions a call through frexp and
// ldexp, 13 % of a deep two-tori query's.
double cube_root(double x) {
  if (!(x >= std::numeric_limits<double>::min()) || !(x <= std::numeric_limits<double>::max())) return std::cbrt(x);
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = bits / 3 + 0x2A9F7893782DA1CEull;  // ∛x to within 3.2 %
  double y;
  std::memcpy(&y, &bits, sizeof y);
  for (int k = 0; k < 2; ++k) {
    const double y3 = y * y * y;
    y *= (y3 + 2 * x) / (2 * y3 + x);
  }
  return y;
}

// The torus's quartic along one line (primitive frame) and its critical points, sorted.
struct TorusQuartic {
  double ow, P, Q, S, crit[3];
  int nc = 0;
  double operator()(double t) const { const double t2 = t * t; return (t2 + P) * t2 + Q * t + S; }
  double slope(double t) const { return (4 * t * t + 2 * P) * t + Q; }
  double curvature(double t) const { return 12 * t * t + 2 * P; }
};
TorusQuartic torus_quartic(const Placed& p, const Vec3& o, const Vec3& w, Vec3& op) {
  TorusQuartic F;
  const double R = p.major, r = p.r;
  F.ow = o.dot(w);
  op = o - F.ow * w;
  const double c = op.squaredNorm() + R * R - r * r, alpha = w.x() * w.x() + w.y() * w.y();
  const double beta = op.x() * w.x() + op.y() * w.y(), gamma = op.x() * op.x() + op.y() * op.y();
  F.P = 2 * c - 4 * R * R * alpha, F.Q = -8 * R * R * beta, F.S = c * c - 4 * R * R * gamma;
  // Critical points: t³ + pc t + qc = 0.
  const double pc = 0.5 * F.P, qc = 0.25 * F.Q;
  const double D = 0.25 * qc * qc + pc * pc * pc / 27;
  if (D < 0) {  // three real roots (pc < 0): trigonometric form
    const double m = 2 * std::sqrt(-pc / 3);
    const double th = std::acos(std::clamp(3 * qc / (pc * m), -1.0, 1.0)) / 3;
    // cos(θ − 2πk/3) from one sine and cosine (θ in [0, π/3]).
    const double c = std::cos(th), s = std::sin(th), half_root3 = 0.8660254037844386;
    F.crit[F.nc++] = m * c;
    F.crit[F.nc++] = m * (-0.5 * c + half_root3 * s);
    F.crit[F.nc++] = m * (-0.5 * c - half_root3 * s);
  } else {  // one real root: Cardano in the cancellation-free form
    const double A = -std::copysign(cube_root(std::abs(qc) * 0.5 + std::sqrt(D)), qc);
    F.crit[F.nc++] = A == 0 ? 0.0 : A - pc / (3 * A);
  }
  for (int k = 0; k < F.nc; ++k) {  // a Newton step polishes the closed form (a second moved V by ≤ 4e-14: torus pairs)
    const double t = F.crit[k], d = 3 * t * t + pc;
    if (d != 0) F.crit[k] = t - (t * (t * t + pc) + qc) / d;
  }
  for (int i = 1; i < F.nc; ++i)  // sorted (three at most)
    for (int j = i; j > 0 && F.crit[j] < F.crit[j - 1]; --j) std::swap(F.crit[j], F.crit[j - 1]);
  return F;
}

// The points along [s0, s1] between which F is monotone: the segment's ends, clipped to the torus's reach (|p| ≤ R + r
// on it), and F's critical points between them; with F's values there. n = 0 where the segment misses the reach.
struct QuarticBrackets {
  double x[5], fx[5];
  int n = 0;
  bool starts_at_s0 = false, ends_at_s1 = false;  // the first (last) point is s0 (s1), not the reach's end
};
QuarticBrackets quartic_brackets(const TorusQuartic& F, const Vec3& op, double R, double r, double s0, double s1) {
  QuarticBrackets b;
  const double reach2 = (R + r) * (R + r) - op.squaredNorm();
  if (reach2 <= 0) return b;
  const double reach = std::sqrt(reach2);
  const double ta = std::max(s0 + F.ow, -reach), tb = std::min(s1 + F.ow, reach);
  if (!(ta < tb)) return b;
  b.starts_at_s0 = ta == s0 + F.ow, b.ends_at_s1 = tb == s1 + F.ow;
  b.x[b.n++] = ta;
  for (int k = 0; k < F.nc; ++k)
    if (F.crit[k] > b.x[b.n - 1] && F.crit[k] < tb) b.x[b.n++] = F.crit[k];
  b.x[b.n++] = tb;
  for (int k = 0; k < b.n; ++k) b.fx[k] = F(b.x[k]);
  return b;
}
}  // namespace

// Intervals of a ring torus (major R > minor r) along x = o + s w (|w| = 1) on [s0, s1], in closed form.
// With t = s + o·w the line is p(t) = o' + t w, o' ⟂ w, and the torus is F(t) ≤ 0 for the quartic
//   F = (|p|² + R² − r²)² − 4R² (p_x² + p_y²) = t⁴ + P t² + Q t + S,
// which has the sign of the distance ((d² − r²)((ρ + R)² + z² − r²), d the distance to the tube's centre circle,
// the second factor ≥ R² − r² > 0). F' = 4 (t³ + P/2 t + Q/4) is a depressed cubic solved in closed form: F is
// monotone between its real roots, so each sign change between consecutive critical points brackets exactly one
// root, found by Newton's method kept in the bracket. Exact to rounding (~1e-16 of R), grazing chords included, and
// ~20x cheaper than sphere tracing along a column that runs close to the tube's wall.
static IntervalList torus_intervals(const Placed& p, const Vec3& o, const Vec3& w, double s0, double s1) {
  IntervalList out;
  const double r = p.r;
  Vec3 op;
  const TorusQuartic F = torus_quartic(p, o, w, op);
  const QuarticBrackets B = quartic_brackets(F, op, p.major, r, s0, s1);
  if (B.n == 0) return out;
  const double ow = F.ow, ta = B.x[0];
  const int n = B.n;
  const double* x = B.x;
  const double* fx = B.fx;
  // An end clipped to [s0, s1] is returned as s0 or s1 itself, which t − ow need not give back to the bit: callers tell
  // a chord's surface ends from its clipped ends by comparing them (the torus sweep's chord signatures, which flickered
  // against another torus and misplaced its sections' breakpoints).
  const double clipped_lo = B.starts_at_s0 ? s0 : ta - ow, clipped_hi = B.ends_at_s1 ? s1 : B.x[n - 1] - ow;
  double open = fx[0] < 0 ? ta : kInf;
  for (int k = 0; k + 1 < n; ++k) {
    if ((fx[k] < 0) == (fx[k + 1] < 0)) continue;
    // One root in (x[k], x[k+1]), F monotone there: Halley's method from the false-position point (cubic; F'' is
    // cheap), kept in the bracket (bisection where a step leaves it). Done when the step itself is below rounding,
    // tested before the bracket guard: once an iterate lands on the root, a step of ~1e-19 no longer fits strictly
    // inside the shrunken bracket and used to be replaced by bisections. 4.4 iterations a root where Newton with that
    // test after the guard took 8–9 (bench_every_pair's torus pairs).
    double a = x[k], b = x[k + 1], fa = fx[k];
    double t = a + (b - a) * fa / (fa - fx[k + 1]);
    // Next to a critical point F is a parabola, which false position serves badly: its zero from the critical end
    // (the one with the smaller |F| where both are), where it falls in the bracket. 3.4-3.6 iterations a root where
    // false position's start took 4.7-5.2 (two tori, a cylinder against a torus).
    const bool a_critical = k > 0, b_critical = k + 2 < n;
    if (a_critical || b_critical) {
      const bool from_a = a_critical && (!b_critical || std::abs(fx[k]) <= std::abs(fx[k + 1]));
      const double c = from_a ? a : b, fc = from_a ? fx[k] : fx[k + 1], g = -2 * fc / F.curvature(c);
      if (g > 0) {
        const double zero = c + (from_a ? 1 : -1) * std::sqrt(g);
        if (zero > a && zero < b) t = zero;
      }
    }
    if (!(t > a && t < b)) t = 0.5 * (a + b);
    for (int it = 0; it < 100; ++it) {
      const double ft = F(t);
      if (ft == 0) { a = b = t; break; }
      if ((ft < 0) == (fa < 0)) a = t; else b = t;
      const double d = F.slope(t), d2 = F.curvature(t), den = 2 * d * d - ft * d2;
      const double step = den != 0 ? 2 * ft * d / den : kInf;
      if (std::abs(step) <= 1e-15 * (std::abs(t) + r)) { a = b = t - step; break; }
      t -= step;
      if (!(t > a && t < b)) t = 0.5 * (a + b);
      if (b - a <= 1e-15 * (std::abs(a) + std::abs(b) + r)) { a = b = t; break; }
    }
    const double root = 0.5 * (a + b);
    if (fx[k] < 0) out.push(open == ta ? clipped_lo : open - ow, root - ow), open = kInf;
    else open = root;
  }
  if (open < kInf) out.push(open == ta ? clipped_lo : open - ow, clipped_hi);
  return out;
}

namespace {
// Where on [s0, s1] (primitive frame, o and w placed) the torus's quartic is least, and d² − r² there.
TorusLeast least_level(const Placed& p, const Vec3& o, const Vec3& w, double s0, double s1) {
  // F is least at an end or a critical point; there d² − r² = F / ((ρ + R)² + z² − r²) (the factorisation above).
  Vec3 op;
  const TorusQuartic F = torus_quartic(p, o, w, op);
  double best = s0 + F.ow, f_best = F(best);
  int end = -1;
  auto consider = [&](double t, int at) {
    const double ft = F(t);
    if (ft < f_best) best = t, f_best = ft, end = at;
  };
  consider(s1 + F.ow, 1);
  for (int k = 0; k < F.nc; ++k)
    if (F.crit[k] > s0 + F.ow && F.crit[k] < s1 + F.ow) consider(F.crit[k], 0);
  const Vec3 x = op + best * w;
  const double rho = radial(x), second = (rho + p.major) * (rho + p.major) + x.z() * x.z() - p.r * p.r;
  return {f_best / second, end < 0 ? s0 : end > 0 ? s1 : best - F.ow, end, end != 0 ? F.slope(best) / second : 0.0};
}
}  // namespace

TorusChord torus_chord(const Placed& p, const Vec3& oq, const Vec3& wq, double s0, double s1) {
  TorusChord c;
  const Vec3 o = p.A * oq + p.b, w = p.A * wq;
  c.set = torus_intervals(p, o, w, s0, s1);
  if (c.set.n > 0) return c;
  const TorusLeast least = least_level(p, o, w, s0, s1);
  c.s_near = least.s, c.clearance2 = std::max(least.level, 0.0), c.clearance2_slope = least.slope;
  return c;
}

ChordShape torus_chord_shape(const Placed& p, const Vec3& oq, const Vec3& wq, double s0, double s1) {
  Vec3 op;
  const TorusQuartic F = torus_quartic(p, p.A * oq + p.b, p.A * wq, op);
  const QuarticBrackets B = quartic_brackets(F, op, p.major, p.r, s0, s1);
  ChordShape c;
  if (B.n == 0) return c;
  c.n = B.fx[0] < 0;
  for (int k = 0; k + 1 < B.n; ++k) c.n += B.fx[k] >= 0 && B.fx[k + 1] < 0;
  c.starts_at_s0 = B.fx[0] < 0 && B.starts_at_s0;
  c.ends_at_s1 = B.fx[B.n - 1] < 0 && B.ends_at_s1;
  return c;
}

TorusLeast torus_least_level(const Placed& p, const Vec3& oq, const Vec3& wq, double s0, double s1) {
  return least_level(p, p.A * oq + p.b, p.A * wq, s0, s1);
}

// Intervals of a non-quadric primitive (torus, mesh) along x = o + s w on [s0, s1], by sphere
// tracing on its 1-Lipschitz distance (never steps over the surface) and bisection of each sign
// change. A crossing thinner than the minimum step (a grazing touch) can be missed.
static IntervalList traced_intervals(const Placed& p, const Vec3& o, const Vec3& w, double s0, double s1) {
  IntervalList out;
  const double min_step = p.kind == PrimitiveKind::Mesh ? 0.25 * p.mesh->voxel : 1e-3 * p.r;
  auto f = [&](double s) { return sdf_local(p, o + s * w); };
  double s = s0, fs = f(s0);
  double open = fs < 0 ? s0 : kInf;
  while (s < s1) {
    const double next = std::min(s1, s + std::max(std::abs(fs), min_step));
    const double fn = f(next);
    if ((fs < 0) != (fn < 0)) {
      double a = s, b = next;  // f(a) and f(b) have opposite signs
      const bool a_in = fs < 0;
      for (int it = 0; it < 40; ++it) {
        const double m = 0.5 * (a + b);
        if ((f(m) < 0) == a_in) a = m; else b = m;
      }
      const double cross = 0.5 * (a + b);
      if (a_in) out.push(open, cross), open = kInf;
      else open = cross;
    }
    s = next, fs = fn;
  }
  if (open < kInf) out.push(open, s1);
  return out;
}

IntervalList cell_line_set(const std::vector<Placed>& prims, size_t begin, size_t end, const Vec3& oq, const Vec3& wq,
                           double s0, double s1) {
  IntervalList set;
  if (end == begin + 1) {  // one convex primitive (the torus sweep's usual other cell): the same bits as below,
    const Placed& p = prims[begin];  // without the list algebra
    if (!p.complement && p.kind != PrimitiveKind::Torus && p.kind != PrimitiveKind::Mesh) {
      const Span sp = line_span(p, p.A * oq + p.b, p.A * wq);
      set.push(std::max(s0, sp.lo), std::min(s1, sp.hi));
      return set;
    }
    if (!p.complement && p.kind == PrimitiveKind::Torus && p.major > p.r)  // a ring torus's set lies in [s0, s1]
      return torus_intervals(p, p.A * oq + p.b, p.A * wq, s0, s1);
  }
  set.push(s0, s1);
  for (size_t k = begin; k < end; ++k) {
    const Placed& p = prims[k];
    const Vec3 o = p.A * oq + p.b, w = p.A * wq;
    IntervalList one;
    if (p.kind == PrimitiveKind::Torus && p.major > p.r) {
      one = torus_intervals(p, o, w, s0, s1);
    } else if (p.kind == PrimitiveKind::Torus || p.kind == PrimitiveKind::Mesh) {
      one = traced_intervals(p, o, w, s0, s1);
    } else {
      const Span sp = line_span(p, o, w);
      one.push(std::max(sp.lo, s0 - 1.0), std::min(sp.hi, s1 + 1.0));
    }
    set = p.complement ? subtract(set, one) : intersect(set, one);
    if (set.n == 0) break;
  }
  return set;
}

Placed place(const CellPrimitive& cp, const Pose& body_pose, const Pose& frame) {
  const Primitive& pr = cp.primitive;
  Placed p;
  p.kind = pr.kind;
  p.complement = cp.complement;
  p.r = pr.radius;
  p.r2 = pr.radius_top;
  p.half_length = 0.5 * pr.length;
  p.half_thickness = 0.5 * pr.thickness;
  p.half_size = 0.5 * pr.size;
  p.radii = pr.radii;
  if (pr.kind == PrimitiveKind::Ellipsoid) p.inv_radii = pr.radii.cwiseInverse();
  p.mesh = cp.mesh.get();
  if (pr.kind == PrimitiveKind::Torus) p.major = pr.major_radius, p.r = pr.minor_radius;
  // x_Q -> world -> body -> primitive.
  const Pose prim_in_world = body_pose.compose(pr.pose);
  const Mat3 Rq = frame.rotation.toRotationMatrix();
  const Mat3 Rp = prim_in_world.rotation.toRotationMatrix();
  p.A = Rp.transpose() * Rq;
  p.b = Rp.transpose() * (frame.position - prim_in_world.position);
  return p;
}

void placed_cell_bounds(const std::vector<Placed>& prims, size_t begin, size_t end, Vec3& lo, Vec3& hi) {
  lo = Vec3::Constant(-kInf);
  hi = Vec3::Constant(kInf);
  for (size_t k = begin; k < end; ++k) {
    if (prims[k].complement) continue;
    Vec3 l, h;
    primitive_bounds(prims[k], l, h);
    lo = lo.cwiseMax(l);
    hi = hi.cwiseMin(h);
  }
}

double cell_sdf(const std::vector<Placed>& prims, size_t begin, size_t end, const Vec3& xq) {
  double phi = -kInf;
  for (size_t k = begin; k < end; ++k) {
    const Placed& p = prims[k];
    const double d = sdf_local(p, p.A * xq + p.b);
    phi = std::max(phi, p.complement ? -d : d);
  }
  return phi;
}

}  // namespace vcsim::geo::lines
