#include "geometry/exact_interference.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <functional>

#include "geometry/disc_slices.h"
#include "geometry/primitive_planes.h"

namespace vcsim::geo {
namespace {

struct Face {
  Vec3 n;                 // outward unit normal
  std::vector<Vec3> v;    // convex polygon, in order around the face
};

// The point where segment a–b crosses the plane (da, db: signed distances of opposite signs).
// Computed from the lexicographically smaller end so that the two faces sharing an edge get the
// bitwise same point.
Vec3 crossing(const Vec3& a, double da, const Vec3& b, double db) {
  const bool a_first = std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3);
  const Vec3& p = a_first ? a : b;
  const Vec3& q = a_first ? b : a;
  const double dp = a_first ? da : db, dq = a_first ? db : da;
  return p + (q - p) * (dp / (dp - dq));
}

// Keeps the part of a convex polyhedron with n·x <= d; the new face is the polygon of the cut points.
void clip(std::vector<Face>& faces, const Plane& pl) {
  bool cuts = false;  // most planes miss the current polyhedron (the far faces of a table): no copies then
  for (const Face& f : faces)
    for (const Vec3& x : f.v) cuts |= pl.n.dot(x) > pl.d;
  if (!cuts) return;
  std::vector<Vec3> cut;
  bool any_out = false;
  for (Face& f : faces) {
    std::vector<Vec3> kept;
    const size_t m = f.v.size();
    for (size_t k = 0; k < m; ++k) {
      const Vec3& a = f.v[k];
      const Vec3& b = f.v[(k + 1) % m];
      const double da = pl.n.dot(a) - pl.d, db = pl.n.dot(b) - pl.d;
      if (da <= 0) kept.push_back(a);
      if (da == 0) cut.push_back(a);
      if (da > 0) any_out = true;
      if ((da < 0 && db > 0) || (da > 0 && db < 0)) {
        const Vec3 x = crossing(a, da, b, db);
        kept.push_back(x);
        cut.push_back(x);
      }
    }
    f.v.swap(kept);
  }
  if (!any_out) return;  // the plane does not cut: nothing changed
  faces.erase(std::remove_if(faces.begin(), faces.end(), [](const Face& f) { return f.v.size() < 3; }), faces.end());
  if (cut.size() < 3 || faces.empty()) return;
  // Order the cut points around their mean (the cap is convex).
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : cut) mean += p;
  mean /= static_cast<double>(cut.size());
  const Vec3 u = pl.n.unitOrthogonal(), w = pl.n.cross(u);
  std::vector<std::pair<double, Vec3>> ring;
  for (const Vec3& p : cut) ring.emplace_back(std::atan2((p - mean).dot(w), (p - mean).dot(u)), p);
  std::sort(ring.begin(), ring.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  Face cap{pl.n, {}};
  for (const auto& r : ring) cap.v.push_back(r.second);
  faces.push_back(std::move(cap));
}


// Sums slice moments s(τ) (slices across the unit axis a = u × w, τ measured from c; each slice's
// moments taken about the in-plane point q0, which is c + q0 in space) over [lo, hi] split at
// `breaks`, into raw moments about the origin. The sum is taken about P = c + τ0 a + q0, which should
// lie near the region: a thin region's inertia is its second moment minus a nearly equal part, and
// about a far point that difference would magnify the quadrature's error by (distance / thickness)².
// pieces > 1 splits each interval: the end pieces take the maps t² and 1 − (1 − t)² (one onset each), the inner ones
// none; the rule's points each.
template <class SliceAt>
RawMoments integrate_slices(const Vec3& c, const Vec3& a, const Vec3& u, const Vec3& w, std::vector<double> breaks,
                            double tau0, const Vec2& q0, SliceAt slice_at, int pieces = 1,
                            const SliceRule& rule = kFineSlices) {
  std::sort(breaks.begin(), breaks.end());
  // Sums over the slices as scalars (z = τ − τ0; x, y across the axis), assembled into the moments once.
  double A = 0, Az = 0, Azz = 0, X = 0, Y = 0, Xz = 0, Yz = 0, XX = 0, YY = 0, XY = 0;
  for (size_t k = 0; k + 1 < breaks.size(); ++k)
   for (int j = 0; j < pieces; ++j) {
    const double p = breaks[k] + (breaks[k + 1] - breaks[k]) * j / pieces;
    const double q = j + 1 == pieces ? breaks[k + 1] : breaks[k] + (breaks[k + 1] - breaks[k]) * (j + 1) / pieces;
    if (!(q > p)) continue;
    for (int i = 0; i < rule.n; ++i) {
      const double t = rule.x[i];
      double x = t * t * (3 - 2 * t), dx = 6 * t * (1 - t);               // onsets at both ends
      if (pieces > 1 && j == 0) x = t * t, dx = 2 * t;                      // at the left end only
      else if (pieces > 1 && j + 1 == pieces) x = 1 - (1 - t) * (1 - t), dx = 2 * (1 - t);
      else if (pieces > 1) x = t, dx = 1;
      const double tau = p + (q - p) * x;
      const double W = rule.w[i] * (q - p) * dx;
      const SliceMoments s = slice_at(tau);
      if (s.a == 0) continue;
      const double z = tau - tau0, Wa = W * s.a, Wx = W * s.x, Wy = W * s.y;
      A += Wa, Az += Wa * z, Azz += Wa * z * z, X += Wx, Y += Wy, Xz += Wx * z, Yz += Wy * z;
      XX += W * s.xx, YY += W * s.yy, XY += W * s.xy;
    }
  }
  RawMoments m;  // about P; the slices' first moments about the axis through P are x u + y w
  const Vec3 fz = Xz * u + Yz * w;
  m.m0 = A;
  m.m1 = Az * a + X * u + Y * w;
  m.m2 = Azz * a * a.transpose() + a * fz.transpose() + fz * a.transpose() + XX * u * u.transpose() +
         YY * w * w.transpose() + XY * (u * w.transpose() + w * u.transpose());
  const Vec3 P = c + tau0 * a + q0.x() * u + q0.y() * w;
  RawMoments out;
  out.m0 = m.m0;
  out.m1 = m.m1 + m.m0 * P;
  out.m2 = m.m2 + m.m1 * P.transpose() + P * m.m1.transpose() + m.m0 * P * P.transpose();
  return out;
}

// Green's theorem forms (as in add_segment) along the arc C + ρ(cos φ m + sin φ m⊥), φ from −β to β
// (counter-clockwise), in coordinates whose origin is near the arc: `mid` = C + ρ m is the arc's
// midpoint in them. Points are mid + ρ((cos φ − 1) m + sin φ m⊥), with cos φ − 1 = −2 sin²(φ/2), so a
// thin sliver's coordinates keep their digits however large ρ is (a 1 m groove, a 10 µm sliver).
// The forms are trigonometric polynomials of degree 4: 8 Gauss points on pieces of ≤ π/8 are exact to
// rounding.
void add_arc_about(const Vec2& mid, const Vec2& m, double rho, double beta, SliceMoments& out) {
  const Vec2 mp(-m.y(), m.x());
  const int pieces = std::max(1, static_cast<int>(std::ceil(2 * beta / (M_PI / 8))));
  const double len = 2 * beta / pieces;
  for (int k = 0; k < pieces; ++k)
    for (int i = 0; i < 8; ++i) {
      const double phi = -beta + len * (k + kGaussX[i]), wt = kGaussW[i] * len;
      const double sh = std::sin(0.5 * phi), ch = std::cos(0.5 * phi), sp = 2 * sh * ch, cp = 1 - 2 * sh * sh;
      const Vec2 x = mid + rho * (-2 * sh * sh * m + sp * mp);
      const Vec2 dx = rho * (-sp * m + cp * mp);
      out.a += wt * 0.5 * (x.x() * dx.y() - x.y() * dx.x());
      out.x += wt * 0.5 * x.x() * x.x() * dx.y();
      out.y -= wt * 0.5 * x.y() * x.y() * dx.x();
      out.xx += wt * x.x() * x.x() * x.x() * dx.y() / 3;
      out.xy += wt * 0.5 * x.x() * x.x() * x.y() * dx.y();
      out.yy -= wt * x.y() * x.y() * x.y() * dx.x() / 3;
    }
}

// The disc |x| <= r minus the disc |x − e| <= rc (outside = true), or their lens (outside = false),
// with moments about q = e (1 − rc/d): the point of the circle nearest the disc's far side, where a
// shallow groove contact's sliver is.
SliceMoments disc_and_circle(double r, const Vec2& e, double rc, bool outside) {
  const double d = e.norm();
  const Vec2 g = d > 0 ? Vec2(e / d) : Vec2(1, 0);
  const double dr = d - rc;  // q = dr g
  const SliceMoments whole = shifted(disc_moments(r, {}), -dr * g);
  SliceMoments part_outside;
  if (d >= r + rc) {  // apart
    part_outside = whole;
  } else if (d + r <= rc) {  // the disc inside the circle
  } else if (d + rc <= r) {  // the circle inside the disc
    part_outside = difference(whole, shifted(disc_moments(rc, {}), e - dr * g));
  } else {
    // The circles cross where the radical line g·x = b meets them, at ±h off the centre line. The part
    // outside is bounded by the disc's arc around −g (counter-clockwise) and the circle's arc around −g
    // (back, clockwise), whose midpoints are −(r + dr) g and q itself. Products instead of differences
    // of squares keep h exact for slivers.
    const double b = (d * d + r * r - rc * rc) / (2 * d);
    const double h = std::sqrt(std::max((dr + r) * (2 * rc + dr + r) * (r - dr) * (2 * rc + dr - r), 0.0)) / (2 * d);
    if (!outside) {
      // The part inside (a ball against a cylinder's side): the lens, bounded by the disc's arc around +g and the
      // circle's arc around −g, each counter-clockwise about its own centre. Integrated directly: short arcs for
      // a shallow contact, and no difference of two nearly equal parts.
      SliceMoments lens;
      add_arc_about((r - dr) * g, g, r, std::atan2(h, b), lens);
      add_arc_about(Vec2::Zero(), -g, rc, std::atan2(h, d - b), lens);
      return lens;
    }
    add_arc_about(-(r + dr) * g, -g, r, std::atan2(h, -b), part_outside);
    SliceMoments inner;
    add_arc_about(Vec2::Zero(), -g, rc, std::atan2(h, d - b), inner);
    part_outside = difference(part_outside, inner);
  }
  return outside ? part_outside : difference(whole, part_outside);
}

}  // namespace

std::optional<std::vector<Plane>> planar_cell_planes(const CellPrimitives& cell, const Pose& body_pose,
                                                     const Vec3& origin) {
  std::vector<Plane> planes;
  for (const CellPrimitive& cp : cell) {
    const Primitive& pr = cp.primitive;
    const Pose placed = body_pose.compose(pr.pose);
    const Mat3 R = placed.rotation.toRotationMatrix();
    const Vec3 p = placed.position - origin;
    switch (pr.kind) {
      case PrimitiveKind::Box:
        if (cp.complement) return std::nullopt;
        for (int k = 0; k < 3; ++k) {
          const Vec3 a = R.col(k);
          planes.push_back({a, 0.5 * pr.size[k] + a.dot(p)});
          planes.push_back({-a, 0.5 * pr.size[k] - a.dot(p)});
        }
        break;
      case PrimitiveKind::HalfSpace: {  // z <= 0 in its frame
        const Vec3 a = R.col(2);
        if (cp.complement) planes.push_back({-a, -a.dot(p)});
        else planes.push_back({a, a.dot(p)});
        break;
      }
      case PrimitiveKind::Slab: {
        if (cp.complement) return std::nullopt;
        const Vec3 a = R.col(2);
        planes.push_back({a, 0.5 * pr.thickness + a.dot(p)});
        planes.push_back({-a, 0.5 * pr.thickness - a.dot(p)});
        break;
      }
      default: return std::nullopt;
    }
  }
  return planes;
}

RawMoments convex_polyhedron_moments(const std::vector<Plane>& planes, const Vec3& lo, const Vec3& hi) {
  std::vector<Face> faces;
  for (int k = 0; k < 3; ++k) {
    // The two faces normal to axis k, corners in order around each face.
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      Face f{Vec3::Unit(k) * (side ? 1.0 : -1.0), {}};
      for (int c = 0; c < 4; ++c) {
        Vec3 x;
        x[k] = side ? hi[k] : lo[k];
        x[a] = (c == 1 || c == 2) ? hi[a] : lo[a];
        x[b] = (c >= 2) ? hi[b] : lo[b];
        f.v.push_back(x);
      }
      faces.push_back(std::move(f));
    }
  }
  for (const Plane& pl : planes) {
    clip(faces, pl);
    if (faces.empty()) return {};
  }
  // Integrate over pyramids from a reference point inside (the vertex mean) to each face's fan
  // triangles: tetrahedron (0, b, c, e) in reference coordinates has ∫x = V s/4 and
  // ∫x xᵀ = V/20 (b bᵀ + c cᵀ + e eᵀ + s sᵀ), s = b + c + e.
  Vec3 ref = Vec3::Zero();
  size_t nv = 0;
  for (const Face& f : faces)
    for (const Vec3& x : f.v) ref += x, ++nv;
  ref /= static_cast<double>(nv);
  RawMoments m;
  for (const Face& f : faces) {
    const Vec3 b = f.v[0] - ref;
    const double height = f.n.dot(b);  // >= 0: ref is inside the convex polyhedron
    for (size_t k = 1; k + 1 < f.v.size(); ++k) {
      const Vec3 c = f.v[k] - ref, e = f.v[k + 1] - ref;
      const double V = std::abs((c - b).cross(e - b).dot(f.n)) * height / 6.0;
      const Vec3 s = b + c + e;
      m.m0 += V;
      m.m1 += V * s / 4.0;
      m.m2 += V / 20.0 * (b * b.transpose() + c * c.transpose() + e * e.transpose() + s * s.transpose());
    }
  }
  // Shift from the reference point to the origin.
  RawMoments o;
  o.m0 = m.m0;
  o.m1 = m.m1 + m.m0 * ref;
  o.m2 = m.m2 + m.m1 * ref.transpose() + ref * m.m1.transpose() + m.m0 * ref * ref.transpose();
  return o;
}

RawMoments sphere_cap_moments(const Vec3& c, double R, const Plane& pl) {
  RawMoments m;
  const double delta = pl.n.dot(c) - pl.d;  // centre's signed distance to the plane
  if (delta >= R) return m;
  const Mat3 I = Mat3::Identity();
  if (delta <= -R) {  // the whole ball
    m.m0 = 4.0 / 3.0 * M_PI * R * R * R;
    m.m1 = m.m0 * c;
    m.m2 = m.m0 * (c * c.transpose() + R * R / 5.0 * I);
    return m;
  }
  // Cap of height h, τ measured along n from the ball's extreme point x_e = c − R n, where the
  // section radius² is τ (2R − τ). Polynomials in h (not differences of antiderivatives at ±R):
  // exact for the thinnest lenses (tippe-top: h = 8 µm, R = 15 mm).
  const double h = R - delta, h2 = h * h, h3 = h2 * h, h4 = h3 * h, h5 = h4 * h;
  const double V = M_PI * (R * h2 - h3 / 3.0);                                  // ∫ dV
  const double S1 = M_PI * (2.0 * R * h3 / 3.0 - h4 / 4.0);                      // ∫ τ dV
  const double S2 = M_PI * (R * h4 / 2.0 - h5 / 5.0);                            // ∫ τ² dV
  const double P = M_PI / 4.0 * (4.0 * R * R * h3 / 3.0 - R * h4 + h5 / 5.0);   // ∫ u² dV, each transverse axis
  const Vec3 n = pl.n, xe = c - R * n;
  m.m0 = V;
  m.m1 = V * xe + S1 * n;
  m.m2 = V * xe * xe.transpose() + S1 * (xe * n.transpose() + n * xe.transpose()) + S2 * n * n.transpose() +
         P * (I - n * n.transpose());
  return m;
}

namespace {

// A solid of revolution about the unit axis a through c whose slice at height τ ∈ [lo, hi] (along a, from c) is the
// disc of radius² r²(τ) = q0 + 2 q1 τ + q2 τ² (a ball: R², 0, −1; a frustum: (ρ0 + ρ1 τ)²), clipped by every plane.
// Each plane is, in the slice at τ, the line g·x <= β0 + β1 τ; a plane parallel to the slices bounds τ instead.
// Pieces per interval between break points: one 8-point rule per interval leaves up to ~1e-7 of V (a half ball cut
// by a plane: the onset's higher terms; a ball over a table's edge: ≤ 7e-7, docs/geometry.md), two < 1e-9
// (tests/geometry_primitive_planes_test.cpp) at twice the cost. The ball keeps one (ball_on_table's roll over the
// edge keeps its speed); the frustum, the capsule's half balls and the ellipsoid take two.
constexpr int kSlicePieces = 2;

// radius(τ) gives r(τ) itself, computed without the quadratic's cancellation (a cone's tip, a ball's pole).
// linear: (ρ0, ρ1) when r(τ) = ρ0 + ρ1 τ (a frustum, a cylinder), none for a ball.
template <class Radius>
RawMoments sliced_round_moments(const Vec3& c, const Vec3& a, double lo, double hi, double q0, double q1, double q2,
                                const std::vector<Plane>& planes, Radius radius, int pieces, const SliceRule& rule,
                                std::optional<Vec2> linear = std::nullopt) {
  RawMoments out;
  const Vec3 u = a.unitOrthogonal(), w = a.cross(u);
  struct Moving {
    Vec2 g;
    double b0, b1;
    double rest, na, gn;  // the plane before normalising: β(τ) = (rest − na τ) / gn
  };
  std::vector<Moving> lines;
  for (const Plane& pl : planes) {
    const Vec2 g(pl.n.dot(u), pl.n.dot(w));
    const double na = pl.n.dot(a), rest = pl.d - pl.n.dot(c);
    const double gn = g.norm();
    if (gn < 1e-12) {
      if (na > 0) hi = std::min(hi, rest / na);
      else lo = std::max(lo, rest / na);
      continue;
    }
    lines.push_back({g / gn, rest / gn, -na / gn, rest, na, gn});
  }
  if (!(lo < hi)) return out;
  // A line beyond the widest disc at both ends of the range never cuts (r(τ) <= r_max, β(τ) linear): the far
  // faces of a box table cost nothing.
  const double r_max = std::max({radius(lo), radius(hi), q2 < 0 ? std::sqrt(std::max(q0 - q1 * q1 / q2, 0.0)) : 0.0});
  lines.erase(std::remove_if(lines.begin(), lines.end(),
                             [&](const Moving& l) { return l.b0 + l.b1 * lo >= r_max && l.b0 + l.b1 * hi >= r_max; }),
              lines.end());
  if (q1 == 0 && q2 == 0) {
    // A cylinder whose lines do not move along it (on its side against planes parallel to its axis, to 1e-14 of
    // its radius over its length): every slice is the same, and the sum over τ is exact in closed form.
    bool constant = true;
    for (const Moving& l : lines) constant = constant && std::abs(l.b1) * (hi - lo) <= 1e-14 * std::sqrt(q0);
    if (constant) {
      std::vector<Line2> slice;
      for (const Moving& l : lines) slice.push_back({l.g, l.b0 + l.b1 * 0.5 * (lo + hi)});
      const SliceMoments sm = disc_moments(std::sqrt(q0), slice);
      if (sm.a <= 0) return out;
      // About P = c + τm a (the middle of the range): ∫dτ = Δ, ∫(τ − τm) = 0, ∫(τ − τm)² = Δ³/12.
      const double D = hi - lo, tm = 0.5 * (lo + hi);
      const Vec3 f = sm.x * u + sm.y * w;
      RawMoments m;
      m.m0 = sm.a * D;
      m.m1 = D * f;
      m.m2 = sm.a * D * D * D / 12 * a * a.transpose() +
             D * (sm.xx * u * u.transpose() + sm.yy * w * w.transpose() + sm.xy * (u * w.transpose() + w * u.transpose()));
      const Vec3 P = c + tm * a;
      out.m0 = m.m0;
      out.m1 = m.m1 + m.m0 * P;
      out.m2 = m.m2 + m.m1 * P.transpose() + P * m.m1.transpose() + m.m0 * P * P.transpose();
      return out;
    }
  }
  // Heights where a slice changes shape: a line tangent to the disc (β(τ)² = r²(τ)), a vertex of two lines on the
  // circle, a vertex of two lines crossing a third. Between them the slice moments are smooth, and Gauss–Legendre
  // converges fast. Only events on the slice's boundary change it: a tangent point or a vertex that another line cuts
  // off (or, for a third line's crossing, outside the disc) is no break; skipping them keeps the intervals few (a
  // prism's four planes and a box's cut a capsule in ~30 candidate heights, a few of them real).
  std::vector<double> breaks{lo, hi};
  const double slack = 1e-9 * r_max;  // borderline events are kept: an extra break costs time, not accuracy
  auto inside_others = [&](const Vec2& p, double tau, size_t i, size_t j, size_t k) {
    for (size_t m = 0; m < lines.size(); ++m)
      if (m != i && m != j && m != k && lines[m].g.dot(p) > lines[m].b0 + lines[m].b1 * tau + slack) return false;
    return true;
  };
  const size_t none = lines.size();
  std::vector<double> roots;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Moving& l = lines[i];
    // A plane nearly parallel to the slices sweeps across the disc within a short range of τ. Its events there come
    // from quadratics whose coefficients grow like 1 / gn² and cancel (a prism's side 1e-12 from the slices lost them
    // all, and the range's middle slice, past the sweep, was empty). Where it enters and leaves the widest disc,
    // (rest ∓ gn r_max) / na, is exact: those heights bracket whatever is lost inside.
    if (l.na != 0 && 2 * r_max * l.gn < 1e-3 * (hi - lo) * std::abs(l.na))
      for (const double side : {1.0, -1.0}) {
        const double tau = (l.rest - side * l.gn * r_max) / l.na;
        if (tau > lo && tau < hi) breaks.push_back(tau);
      }
    roots.clear();
    if (linear) {
      // β(τ) = ±r(τ) is linear: solved from the plane's own numbers. The quadratic's coefficients (l.b0², ...) grow
      // like 1 / gn² for a plane nearly parallel to the slices (a cylinder resting upright on a table, tilted 1e-12),
      // and their cancellation lost the tangency: the whole region came out empty.
      for (const double side : {1.0, -1.0}) {
        const double den = l.na + side * l.gn * linear->y(), tau = (l.rest - side * l.gn * linear->x()) / den;
        if (den != 0 && tau > lo && tau < hi) roots.push_back(tau);
      }
    } else {
      add_roots(l.b1 * l.b1 - q2, l.b0 * l.b1 - q1, l.b0 * l.b0 - q0, lo, hi, roots);
    }
    for (const double tau : roots)
      if (inside_others(l.g * (l.b0 + l.b1 * tau), tau, i, none, none)) breaks.push_back(tau);
  }
  for (size_t i = 0; i < lines.size(); ++i)
    for (size_t j = i + 1; j < lines.size(); ++j) {
      Eigen::Matrix2d M;
      M << lines[i].g.transpose(), lines[j].g.transpose();
      if (std::abs(M.determinant()) < 1e-12) {
        // Parallel in every slice (planes sharing a direction across the axis): where the two lines meet, the
        // tighter one changes over (the same side) or their strip closes (opposite sides), a kink in the slice.
        const double s = lines[i].g.dot(lines[j].g) > 0 ? -1.0 : 1.0;
        const double slope = lines[i].b1 + s * lines[j].b1, gap = lines[i].b0 + s * lines[j].b0;
        if (slope != 0 && -gap / slope > lo && -gap / slope < hi) breaks.push_back(-gap / slope);
        continue;
      }
      const Eigen::Matrix2d Mi = M.inverse();
      const Vec2 v0 = Mi * Vec2(lines[i].b0, lines[j].b0), v1 = Mi * Vec2(lines[i].b1, lines[j].b1);
      roots.clear();
      add_roots(v1.squaredNorm() - q2, v0.dot(v1) - q1, v0.squaredNorm() - q0, lo, hi, roots);
      for (const double tau : roots)
        if (inside_others(v0 + v1 * tau, tau, i, j, none)) breaks.push_back(tau);
      for (size_t k = 0; k < lines.size(); ++k) {
        if (k == i || k == j) continue;
        const double slope = lines[k].g.dot(v1) - lines[k].b1, gap = lines[k].g.dot(v0) - lines[k].b0;
        if (!(slope != 0 && -gap / slope > lo && -gap / slope < hi)) continue;
        const double tau = -gap / slope;
        const Vec2 vertex = v0 + v1 * tau;
        if (vertex.norm() <= radius(tau) + slack && inside_others(vertex, tau, i, j, k)) breaks.push_back(tau);
      }
    }
  std::sort(breaks.begin(), breaks.end());
  std::vector<Line2> slice(lines.size());
  auto slice_at = [&](double tau) {
    for (size_t l = 0; l < lines.size(); ++l) slice[l] = {lines[l].g, lines[l].b0 + lines[l].b1 * tau};
    return disc_moments(radius(tau), slice);
  };
  // Between break points a slice is empty throughout or nowhere: keep the intervals whose middle slice is not, and
  // take the sums about the middle of what is kept (a thin wedge at a cylinder's rim stays near its own point).
  std::vector<double> kept;
  for (size_t k = 0; k + 1 < breaks.size(); ++k) {
    if (!(breaks[k + 1] > breaks[k]) || slice_at(0.5 * (breaks[k] + breaks[k + 1])).a <= 0) continue;
    if (kept.empty() || kept.back() != breaks[k]) {
      if (!kept.empty()) kept.push_back(std::nan(""));  // a gap: the interval before it ends here
      kept.push_back(breaks[k]);
    }
    kept.push_back(breaks[k + 1]);
  }
  if (kept.empty()) return out;
  const double tau0 = 0.5 * (kept.front() + kept.back());
  // Gaps (NaN) split the kept list into runs of consecutive intervals; integrate each run.
  RawMoments m;
  std::vector<double> run;
  for (size_t k = 0; k <= kept.size(); ++k) {
    if (k < kept.size() && !std::isnan(kept[k])) {
      run.push_back(kept[k]);
      continue;
    }
    if (run.size() >= 2) m += integrate_slices(c, a, u, w, run, tau0, Vec2::Zero(), slice_at, pieces, rule);
    run.clear();
  }
  return m;
}

}  // namespace

RawMoments sliced_sphere_moments(const Vec3& c, double R, const std::vector<Plane>& planes, const Vec3& axis,
                                 int pieces, const SliceRule& rule) {
  return sliced_round_moments(c, axis.normalized(), -R, R, R * R, 0, -1, planes,
                              [R](double tau) { return std::sqrt(std::max((R - tau) * (R + tau), 0.0)); }, pieces,
                              rule);
}

RawMoments frustum_planes_moments(const Vec3& c, const Vec3& axis, double r0, double r1, double length,
                                  const std::vector<Plane>& planes, const SliceRule& rule) {
  const double rho0 = 0.5 * (r0 + r1), rho1 = (r1 - r0) / length;  // r(τ) = ρ0 + ρ1 τ, τ ∈ [−L/2, L/2]
  const double half = 0.5 * length;
  return sliced_round_moments(c, axis.normalized(), -half, half, rho0 * rho0, rho0 * rho1, rho1 * rho1, planes,
                              [=](double tau) {  // from the nearer end, so a cone's tip keeps its digits
                                return std::max(tau > 0 ? r1 - rho1 * (half - tau) : r0 + rho1 * (tau + half), 0.0);
                              }, kSlicePieces, rule, Vec2(rho0, rho1));
}

RawMoments ball_planes_moments(const Vec3& c, double R, const std::vector<Plane>& planes, int pieces,
                               const SliceRule& rule) {
  const Plane* deepest = nullptr;
  double deepest_delta = -R;
  for (const Plane& pl : planes) {
    const double delta = pl.n.dot(c) - pl.d;
    if (delta >= R) return {};  // the plane misses the ball: empty
    if (delta > deepest_delta) deepest_delta = delta, deepest = &pl;
  }
  if (!deepest) return sphere_cap_moments(c, R, Plane{Vec3::UnitZ(), c.z() + 2 * R});  // the whole ball
  // The cap of the deepest plane is the whole region when it stays inside every other plane.
  for (const Plane& other : planes)
    if (&other != deepest && other.n.dot(c) - other.d > -R && cap_clearance(c, R, *deepest, other) < 0)
      return sliced_sphere_moments(c, R, planes, deepest->n, pieces, rule);
  return sphere_cap_moments(c, R, *deepest);
}

RawMoments capsule_planes_moments(const Vec3& c, const Vec3& axis, double radius, double length,
                                  const std::vector<Plane>& planes, const SliceRule& rule) {
  const Vec3 a = axis.normalized();
  RawMoments m = frustum_planes_moments(c, a, radius, radius, length, planes, rule);
  // The two half balls: each end's ball beyond its end plane.
  std::vector<Plane> more = planes;
  more.push_back(Plane{Vec3::Zero(), 0});  // the end plane, set per side below
  for (const double side : {1.0, -1.0}) {
    const Vec3 end = c + side * 0.5 * length * a;
    more.back() = Plane{-side * a, -side * a.dot(end)};  // side·a·x >= side·a·end
    m += ball_planes_moments(end, radius, more, kSlicePieces, rule);
  }
  return m;
}

RawMoments ellipsoid_planes_moments(const Vec3& c, const Mat3& rotation, const Vec3& radii,
                                    const std::vector<Plane>& planes, const SliceRule& rule) {
  // x = c + A u, A = R diag(radii): the unit ball clipped by the mapped planes n'·u <= d'.
  const Mat3 A = rotation * radii.asDiagonal();
  std::vector<Plane> mapped;
  mapped.reserve(planes.size());
  const Plane* deepest = nullptr;
  for (const Plane& pl : planes) {
    const Vec3 g = A.transpose() * pl.n;
    const double gn = g.norm();
    mapped.push_back({g / gn, (pl.d - pl.n.dot(c)) / gn});
    if (!deepest || mapped.back().d < deepest->d) deepest = &mapped.back();
  }
  // Moments about a point p near the region (the middle of the deepest plane's cap), so a thin cap keeps its
  // digits: the ball is centred at −p in those coordinates.
  const Vec3 p = deepest && deepest->d < 1 ? Vec3(deepest->n * 0.5 * (std::max(deepest->d, -1.0) - 1)) : Vec3::Zero();
  std::vector<Plane> about_p = mapped;
  for (Plane& pl : about_p) pl.d -= pl.n.dot(p);
  const RawMoments mu = ball_planes_moments(-p, 1.0, about_p, kSlicePieces, rule);
  // Back to x about the query origin: x = c' + A v with c' = c + A p (eq. A.25's moments transform linearly).
  const double det = radii.prod();
  const Vec3 cp = c + A * p, Am1 = A * mu.m1;
  RawMoments m;
  m.m0 = det * mu.m0;
  m.m1 = det * (Am1 + cp * mu.m0);
  m.m2 = det * (A * mu.m2 * A.transpose() + Am1 * cp.transpose() + cp * Am1.transpose() + mu.m0 * cp * cp.transpose());
  return m;
}

RawMoments sphere_cylinder_moments(const Vec3& c, double R, const Vec3& p, const Vec3& axis, double rc,
                                   bool outside) {
  // Slices across the cylinder's axis: each is the ball's disc and the cylinder's circle, a fixed
  // distance d apart. The slice changes shape where the disc's radius r(τ) = √(R² − τ²) passes |d − rc|
  // (internal tangency) or d + rc (external).
  const Vec3 a = axis.normalized(), u = a.unitOrthogonal(), w = a.cross(u);
  const Vec3 pc = p - c;
  const Vec2 e(pc.dot(u), pc.dot(w));
  const double d = e.norm();
  std::vector<double> breaks{-R, R};
  for (double r_event : {std::abs(d - rc), d + rc})
    if (r_event < R) {
      // ±τ at the event, and the range between them in quarters: one 8-point rule across a groove
      // contact leaves 1e-5 of the inertia, four leave 2e-8 (tests/geometry_exact_test.cpp).
      const double tau = std::sqrt(R * R - r_event * r_event);
      for (int k = 0; k <= 4; ++k) breaks.push_back(-tau + k * tau / 2);
    }
  // About the point of the circle farthest from its centre across the disc: where the groove's
  // sliver is (outside), or the lens's (inside).
  const Vec2 near = d > 0 ? Vec2(e * (1 - rc / d)) : Vec2::Zero();
  return integrate_slices(c, a, u, w, std::move(breaks), 0.0, near, [&](double tau) {
    return disc_and_circle(std::sqrt(std::max(R * R - tau * tau, 0.0)), e, rc, outside);
  });
}

double cap_clearance(const Vec3& c, double R, const Plane& cut, const Plane& other) {
  const Vec3& n = other.n;
  const Vec3 top = c + R * n;  // the ball's extreme point along n
  double reach;
  if (cut.n.dot(top) <= cut.d) {
    reach = n.dot(c) + R;
  } else {
    // Otherwise the maximum is on the rim circle: centre c − δ n_cut, radius sqrt(R² − δ²).
    const double delta = cut.n.dot(c) - cut.d;
    const double rho = std::sqrt(std::max(R * R - delta * delta, 0.0));
    const Vec3 t = n - n.dot(cut.n) * cut.n;
    reach = n.dot(c - delta * cut.n) + rho * t.norm();
  }
  return other.d - reach;
}

}  // namespace vcsim::geo
