// Exact orientation predicates on integer coordinates (geometry/mesh_intersection.cpp). Points are snapped to a
// grid whose coordinates are at most 2^39 in magnitude, so differences are below 2^40 and a 3×3 determinant of
// differences below 2^123: exact in a 128-bit integer. Ties (an exact zero) are broken by Simulation of Simplicity
// with one rule, "mesh B is translated by δ = (ε, ε², ε³), ε → 0⁺", so every predicate gets the same answer wherever
// it is asked and the two surfaces are in general position (no vertex on a face, no edge through an edge).
#pragma once
#include <cmath>
#include <cstdint>

namespace vcsim::geo::exact {

using Int = __int128;

struct Point {
  std::int64_t x, y, z;
};

struct Vec {
  Int x, y, z;
};

inline Vec cross(const Point& u, const Point& v) {
  return {Int(u.y) * v.z - Int(u.z) * v.y, Int(u.z) * v.x - Int(u.x) * v.z, Int(u.x) * v.y - Int(u.y) * v.x};
}

inline Point minus(const Point& a, const Point& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }

// det[b − a, c − a, d − a]: > 0 when d lies on the side of the plane abc that (b − a) × (c − a) points to.
inline Int orient(const Point& a, const Point& b, const Point& c, const Point& d) {
  const Point u = minus(b, a), v = minus(c, a), w = minus(d, a);
  const Vec n = cross(u, v);
  return n.x * w.x + n.y * w.y + n.z * w.z;
}

// The sign of orient(a, b, c, d) from doubles when rounding cannot have flipped it, else 0 (ask the exact one).
// The coordinate differences are exact in doubles (below 2^41); the products and sums round, by at most 8 units in the
// last place of the permanent (Shewchuk's orient3d bound is 7.8e-16 of it; 1e-14 leaves room).
inline int orient_sign_filtered(const Point& a, const Point& b, const Point& c, const Point& d) {
  const double ux = double(b.x - a.x), uy = double(b.y - a.y), uz = double(b.z - a.z);
  const double vx = double(c.x - a.x), vy = double(c.y - a.y), vz = double(c.z - a.z);
  const double wx = double(d.x - a.x), wy = double(d.y - a.y), wz = double(d.z - a.z);
  const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  const double det = nx * wx + ny * wy + nz * wz;
  const double permanent = (std::abs(uy * vz) + std::abs(uz * vy)) * std::abs(wx) +
                           (std::abs(uz * vx) + std::abs(ux * vz)) * std::abs(wy) +
                           (std::abs(ux * vy) + std::abs(uy * vx)) * std::abs(wz);
  const double bound = 1e-14 * permanent;
  return det > bound ? 1 : (det < -bound ? -1 : 0);
}

// The sign of the first non-zero component (x, then y, then z) of v; 0 when v = 0.
inline int leading_sign(const Vec& v) {
  if (v.x != 0) return v.x > 0 ? 1 : -1;
  if (v.y != 0) return v.y > 0 ? 1 : -1;
  if (v.z != 0) return v.z > 0 ? 1 : -1;
  return 0;
}

inline int sign(Int v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

// Side of A's point p against B's triangle (a, b, c): orient(a+δ, b+δ, c+δ, p) = orient(a, b, c, p) − δ·N.
inline int side_of_a_point(Int value, const Point& a, const Point& b, const Point& c) {
  if (value != 0) return sign(value);
  const Vec n = cross(minus(b, a), minus(c, a));
  return -leading_sign(n);
}

// Side of B's point a against A's triangle (p, q, r): orient(p, q, r, a+δ) = orient(p, q, r, a) + δ·N.
inline int side_of_b_point(Int value, const Point& p, const Point& q, const Point& r) {
  if (value != 0) return sign(value);
  return leading_sign(cross(minus(q, p), minus(r, p)));
}

// orient(p, q, a+δ, b+δ) for A's edge pq and B's edge ab: orient(p, q, a, b) + δ·((b − a) × (q − p)). Parallel
// edges stay 0 for every δ; they never decide a crossing (the edge is then parallel to the face), and +1 keeps the
// answer the same for both faces of the edge.
inline int edge_edge_sign(const Point& p, const Point& q, const Point& a, const Point& b) {
  if (const int fast = orient_sign_filtered(p, q, a, b)) return fast;
  const Int value = orient(p, q, a, b);
  if (value != 0) return sign(value);
  const int s = leading_sign(cross(minus(b, a), minus(q, p)));
  return s != 0 ? s : 1;
}

// a/b < c/d for b, d > 0 and a, c >= 0 below 2^125: the cross products a·d and c·b compared in 256 bits.
inline bool fraction_less(Int a, Int b, Int c, Int d) {
  using U = unsigned __int128;
  auto mul = [](U x, U y, U& hi, U& lo) {
    const U mask = (U(1) << 64) - 1;
    const U x0 = x & mask, x1 = x >> 64, y0 = y & mask, y1 = y >> 64;
    const U p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
    const U mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
    lo = (p00 & mask) | (mid << 64);
    hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  };
  U h1, l1, h2, l2;
  mul(U(a), U(d), h1, l1);
  mul(U(c), U(b), h2, l2);
  return h1 != h2 ? h1 < h2 : l1 < l2;
}

}  // namespace vcsim::geo::exact
