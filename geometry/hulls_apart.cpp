#include "geometry/hulls_apart.h"

#include <array>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <vector>

#include "geometry/line_sets.h"

namespace vcsim::geo {
namespace {

using lines::kInf;
using lines::Placed;

// A ball cut by a plane (a capsule's cap, geometry/interference.cpp): its support exactly. The least of the ball's and
// the half-space's would be the whole ball's wherever the half-space is unbounded, and a cap would never be proven
// apart from what its ball's other half reaches.
struct Cap {
  bool set = false;
  Vec3 centre = Vec3::Zero(), rim_centre = Vec3::Zero(), out = Vec3::Zero();  // out: the plane's normal, leaving the cap
  double r = 0, rim_r = 0;

  // The support point along n: the ball's, unless it lies beyond the plane; then the rim circle's.
  Vec3 point(const Vec3& n) const {
    const Vec3 on_ball = centre + r * n.normalized();
    if (out.dot(on_ball - rim_centre) <= 0) return on_ball;
    const Vec3 t = n - n.dot(out) * out;
    return t.norm() > 0 ? Vec3(rim_centre + rim_r * t.normalized()) : rim_centre;
  }
};

// A cell's bounded, non-complemented primitives, placed in the world, then moved to coordinates near the pair.
struct Hull {
  std::vector<Placed> prims;
  Cap cap;

  // An upper bound of the cell's support function: the least of its primitives' (each contains the cell).
  double support(const Vec3& n, size_t* active = nullptr) const {
    if (cap.set) return n.dot(cap.point(n));
    double h = kInf;
    for (size_t k = 0; k < prims.size(); ++k) {
      const double s = lines::support(prims[k], n);
      if (s < h) {
        h = s;
        if (active) *active = k;
      }
    }
    return h;
  }

  // Coordinates from `o` (world axes) instead of the world origin: x_prim = A (x + o) + b.
  void move_origin(const Vec3& o) {
    for (Placed& p : prims) p.b += p.A * o;
    cap.centre -= o, cap.rim_centre -= o;
  }

  // A point of the active primitive that supports it along n (it steers the search; the proof uses support() alone).
  Vec3 support_point(const Vec3& n) const {
    if (cap.set) return cap.point(n);
    size_t k = 0;
    support(n, &k);
    return lines::support_point(prims[k], n);
  }
};

bool make_hull(const CellPrimitives& cell, const Pose& pose, Hull& hull) {
  const Placed* ball = nullptr;
  const Placed* plane = nullptr;
  std::vector<Placed> all;
  for (const CellPrimitive& cp : cell) all.push_back(lines::place(cp, pose, Pose{}));
  for (const Placed& p : all) {
    if (p.complement) continue;
    if (p.kind == PrimitiveKind::Sphere) ball = &p;
    if (p.kind == PrimitiveKind::HalfSpace) plane = &p;
    Vec3 lo, hi;
    lines::primitive_bounds(p, lo, hi);
    if (lo.allFinite() && hi.allFinite()) hull.prims.push_back(p);
  }
  if (all.size() == 2 && ball && plane) {
    // x_prim = A x + b: the ball's centre is −Aᵀb; the half-space z_prim <= 0 leaves along its frame's z.
    Cap& c = hull.cap;
    c.centre = -ball->A.transpose() * ball->b, c.r = ball->r;
    c.out = plane->A.row(2).transpose();
    const double height = (plane->A * c.centre + plane->b).z();  // the centre's height above the plane
    if (std::abs(height) < c.r) {  // the plane cuts the ball (else the cap is the whole ball, or empty)
      c.rim_centre = c.centre - height * c.out, c.rim_r = std::sqrt(c.r * c.r - height * height);
      c.set = true;
    }
  }
  return !hull.prims.empty();
}

// The point of the simplex (1–4 points of the Minkowski difference) closest to the origin; the simplex is reduced to
// the smallest face holding it. False when the origin lies inside a tetrahedron (the hulls overlap). Ericson,
// Real-Time Collision Detection, 5.1.5 (triangle) and 5.1.6 (tetrahedron), with the query point at the origin.
struct Simplex {
  std::array<Vec3, 4> p;
  int n = 0;
};

// Cell a's support points behind each point of the simplex (w = a − b), carried through its reductions: the reduced
// simplex keeps a subset of the same points, matched exactly.
void carry_a_points(const Simplex& before, const std::array<Vec3, 4>& a_before, const Simplex& after,
                    std::array<Vec3, 4>& a_after) {
  std::array<Vec3, 4> out = a_before;
  for (int k = 0; k < after.n; ++k)
    for (int j = 0; j < before.n; ++j)
      if (after.p[k] == before.p[j]) out[k] = a_before[j];
  a_after = out;
}

Simplex simplex(std::initializer_list<Vec3> points) {
  Simplex s;
  for (const Vec3& x : points) s.p[s.n++] = x;
  return s;
}

Vec3 closest_on_triangle(const Vec3& a, const Vec3& b, const Vec3& c, Simplex& keep) {
  const Vec3 ab = b - a, ac = c - a;
  const double d1 = -ab.dot(a), d2 = -ac.dot(a);
  if (d1 <= 0 && d2 <= 0) {
    keep = simplex({a});
    return a;
  }
  const double d3 = -ab.dot(b), d4 = -ac.dot(b);
  if (d3 >= 0 && d4 <= d3) {
    keep = simplex({b});
    return b;
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    keep = simplex({a, b});
    return a + d1 / (d1 - d3) * ab;
  }
  const double d5 = -ab.dot(c), d6 = -ac.dot(c);
  if (d6 >= 0 && d5 <= d6) {
    keep = simplex({c});
    return c;
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    keep = simplex({a, c});
    return a + d2 / (d2 - d6) * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    keep = simplex({b, c});
    return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  }
  const double denom = 1 / (va + vb + vc);
  keep = simplex({a, b, c});
  return a + ab * (vb * denom) + ac * (vc * denom);
}

bool closest_on_simplex(Simplex& s, Vec3& v) {
  switch (s.n) {
    case 1: v = s.p[0]; return true;
    case 2: {
      const Vec3 a = s.p[0], ab = s.p[1] - a;
      const double t = -a.dot(ab), len2 = ab.squaredNorm();
      if (t <= 0 || len2 == 0) {
        s = simplex({a});
      } else if (t >= len2) {
        s = simplex({s.p[1]});
      } else {
        v = a + t / len2 * ab;
        return true;
      }
      v = s.p[0];
      return true;
    }
    case 3: {
      Simplex keep;
      v = closest_on_triangle(s.p[0], s.p[1], s.p[2], keep);
      s = keep;
      return true;
    }
    default: {
      // The faces the origin lies outside of (opposite the fourth point); none: inside.
      static constexpr int kFace[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
      double best = kInf;
      bool outside_any = false;
      Simplex result;
      for (const auto& f : kFace) {
        const Vec3 &a = s.p[f[0]], &b = s.p[f[1]], &c = s.p[f[2]], &d = s.p[f[3]];
        const Vec3 normal = (b - a).cross(c - a);
        const double side_o = -normal.dot(a), side_d = normal.dot(d - a);
        if (side_o * side_d >= 0 && side_d != 0) continue;  // the origin on d's side of this face
        outside_any = true;
        Simplex keep;
        const Vec3 q = closest_on_triangle(a, b, c, keep);
        if (q.squaredNorm() < best) best = q.squaredNorm(), v = q, result = keep;
      }
      if (!outside_any) return false;
      s = result;
      return true;
    }
  }
}

// GJK on the Minkowski difference M = a − b, whose support along n is h_a(n) + h_b(−n): v is the point of the current
// simplex closest to the origin, and n = −v the candidate separating direction. Apart: a plane clears the margin.
// Overlap: the origin lies inside a tetrahedron of M; `common` is then the point of a's hull that its barycentric
// weights give (the same point of b's hull).
enum class Gjk { Apart, Overlap, Unknown };

// The search itself, on any two convex sets with support(n) and support_point(n), in coordinates near both; v: the
// first guess of the direction from b to a.
template <class SetA, class SetB>
Gjk gjk_search(const SetA& ha, const SetB& hb, Vec3 v, double size, Vec3* common) {
  // Rounding in the support functions is ~1e-16 of the coordinates: a plane must clear them by more than that.
  const double margin = 1e-12 * size;
  if (!(v.norm() > 1e-9 * size)) v = Vec3::UnitX() * size;
  Simplex s;
  std::array<Vec3, 4> a_points;
  for (int it = 0; it < 64; ++it) {
    const Vec3 n = -v / v.norm();
    const double gap = -(ha.support(n) + hb.support(-n));  // the sets' distance along n, a lower bound of it
    if (gap > margin) return Gjk::Apart;
    if (!std::isfinite(gap)) return Gjk::Unknown;
    const Vec3 a_point = ha.support_point(n), w = a_point - hb.support_point(-n);
    // No progress toward the origin along n: v is as close as this search gets, and no plane cleared the margin.
    if (v.squaredNorm() - v.dot(w) <= 1e-9 * v.squaredNorm()) return Gjk::Unknown;
    a_points[s.n] = a_point, s.p[s.n++] = w;
    const Simplex before = s;  // only for carrying a's points, when asked for the common point
    if (!closest_on_simplex(s, v)) {  // the origin inside: the hulls overlap
      if (common) {
        // 0 = Σ λ_k w_k with Σ λ_k = 1: μ = λ_1..3 from the edges out of w_0.
        Mat3 E;
        for (int k = 0; k < 3; ++k) E.col(k) = s.p[k + 1] - s.p[0];
        const Vec3 mu = E.fullPivLu().solve(-s.p[0]);
        *common = (1 - mu.sum()) * a_points[0] + mu[0] * a_points[1] + mu[1] * a_points[2] + mu[2] * a_points[3];
      }
      return Gjk::Overlap;
    }
    if (common) carry_a_points(before, a_points, s, a_points);
    if (!(v.norm() > 1e-9 * size)) return Gjk::Unknown;  // touching, to the search's precision
  }
  return Gjk::Unknown;
}

Gjk gjk(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b, const Pose& pose_b, Vec3* common) {
  // A frame at the middle of the two cells' boxes keeps the numbers small far from the world origin.
  Hull ha, hb;
  if (!make_hull(a, pose_a, ha) || !make_hull(b, pose_b, hb)) return Gjk::Unknown;
  Vec3 lo_a, hi_a, lo_b, hi_b;
  lines::placed_cell_bounds(ha.prims, 0, ha.prims.size(), lo_a, hi_a);
  lines::placed_cell_bounds(hb.prims, 0, hb.prims.size(), lo_b, hi_b);
  const Vec3 middle = 0.25 * (lo_a + hi_a + lo_b + hi_b);
  ha.move_origin(middle), hb.move_origin(middle);
  const double size = std::max((hi_a - lo_a).maxCoeff(), (hi_b - lo_b).maxCoeff());
  const Gjk result = gjk_search(ha, hb, 0.5 * (lo_a + hi_a - lo_b - hi_b), size, common);
  if (result == Gjk::Overlap && common) *common += middle;
  return result;
}

// A convex polytope by its vertices.
struct Polytope {
  const Vec3* vertices;
  int count;
  double support(const Vec3& n) const { return n.dot(support_point(n)); }
  Vec3 support_point(const Vec3& n) const {
    int best = 0;
    for (int k = 1; k < count; ++k)
      if (n.dot(vertices[k]) > n.dot(vertices[best])) best = k;
    return vertices[best];
  }
};

// A convex set given by functions, seen from `origin`.
struct SupportFunctions {
  const std::function<double(const Vec3&)>& h;
  const std::function<Vec3(const Vec3&)>& point;
  Vec3 origin;
  double support(const Vec3& n) const { return h(n) - n.dot(origin); }
  Vec3 support_point(const Vec3& n) const { return point(n) - origin; }
};

}  // namespace

bool hulls_apart(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b, const Pose& pose_b) {
  return gjk(a, pose_a, b, pose_b, nullptr) == Gjk::Apart;
}

std::optional<Vec3> hulls_common_point(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                       const Pose& pose_b) {
  Vec3 x;
  if (gjk(a, pose_a, b, pose_b, &x) != Gjk::Overlap || !x.allFinite()) return std::nullopt;
  return x;
}

bool polytope_apart(const std::vector<Vec3>& vertices, const std::function<double(const Vec3&)>& support,
                    const std::function<Vec3(const Vec3&)>& support_point) {
  if (vertices.empty()) return true;
  Vec3 lo = vertices[0], hi = vertices[0];
  for (const Vec3& x : vertices) lo = lo.cwiseMin(x), hi = hi.cwiseMax(x);
  const Vec3 middle = 0.5 * (lo + hi);
  thread_local std::vector<Vec3> moved;  // scratch: a mesh's prisms ask this hundreds of times a query
  moved.resize(vertices.size());
  for (size_t k = 0; k < vertices.size(); ++k) moved[k] = vertices[k] - middle;
  const Polytope a{moved.data(), static_cast<int>(moved.size())};
  const SupportFunctions b{support, support_point, middle};
  // The first guess, a point of a − b: the polytope's middle less the midpoint of two of the set's points.
  const Vec3 inside_b = 0.5 * (b.support_point(Vec3::UnitZ()) + b.support_point(-Vec3::UnitZ()));
  return gjk_search(a, b, -inside_b, (hi - lo).maxCoeff(), nullptr) == Gjk::Apart;
}

}  // namespace vcsim::geo
