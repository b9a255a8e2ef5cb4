#include "geometry/torus_sweep.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "geometry/line_sets.h"

namespace vcsim::geo {
namespace {

using lines::IntervalList;
using lines::Placed;

constexpr double kPi = 3.14159265358979323846;

// Gauss–Legendre nodes and weights on [0, 1] (Newton on P_n from the Chebyshev guess; exact to rounding).
struct Rule {
  std::vector<double> x, w;
};
Rule gauss_legendre(int n) {
  Rule r;
  for (int i = 0; i < n; ++i) {
    double z = std::cos(kPi * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = z;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = p2;
      }
      if (n == 1) p0 = 1, p1 = z;
      dp = n * (z * p1 - p0) / (z * z - 1);
      const double dz = p1 / dp;
      z -= dz;
      if (std::abs(dz) < 1e-16) break;
    }
    r.x.push_back(0.5 * (1 - z));
    r.w.push_back(1.0 / ((1 - z * z) * dp * dp));
  }
  return r;
}

// Node counts from the tolerance. Measured against Pappus's closed form for the doughnut on its cone and the
// closed-form torus–plane pairs (tests/geometry_torus_sweep_test.cpp): 8 nodes per run reach 1e-4 on the shallow
// lenses of resting contacts; each decade of tolerance adds 4.
int nodes_for(double tolerance) {
  const double digits = -std::log10(std::clamp(tolerance, 1e-12, 1e-1));
  return std::clamp(static_cast<int>(std::ceil(4 * digits - 4)), 6, 48);
}

struct Sweep {
  std::vector<Placed> clip;   // every primitive but the torus, both cells: a chord's set is their intersection
  size_t other_begin = 0;     // clip[other_begin, end): the other cell (its distance gives q and the depth)
  double R = 0, r = 0;
  Rule rule;
  int a_samples = 17;  // odd: a = 0, the chord through the disc's deepest point, is a sample

  Vec3 radial(double phi) const { return Vec3(std::cos(phi), std::sin(phi), 0); }

  double other_sdf(const Vec3& x) const { return lines::cell_sdf(clip, other_begin, clip.size(), x); }

  // The chord direction at ring angle φ: the other cell's outward gradient at the disc's centre, in the meridian
  // plane (the axis if it has no component there).
  Vec3 chord_direction(double phi) const {
    const Vec3 er = radial(phi), c = R * er;
    const double h = 1e-7 * (R + r);
    Vec3 g;
    for (int k = 0; k < 3; ++k) {
      const Vec3 e = Vec3::Unit(k) * h;
      g[k] = other_sdf(c + e) - other_sdf(c - e);
    }
    Vec3 q = g.dot(er) * er + g.z() * Vec3::UnitZ();
    if (q.norm() < 1e-9 * g.norm() || q.norm() == 0) return Vec3::UnitZ();
    return q.normalized();
  }

  // Signed distance into the other cell of the disc point deepest along −q: < 0 where the section is in contact.
  double depth(double phi) const { return other_sdf(R * radial(phi) - r * chord_direction(phi)); }

  IntervalList chord_set(const Vec3& c, const Vec3& p, const Vec3& q, double a) const {
    const double half = std::sqrt(std::max(r * r - a * a, 0.0));
    return lines::cell_line_set(clip, 0, clip.size(), c + a * p, q, -half, half);
  }

  // Moments of the meridian section at φ, weighted by ρ: its contribution per unit φ.
  RawMoments section(double phi) const {
    RawMoments m;
    const Vec3 er = radial(phi), c = R * er, q = chord_direction(phi);
    const Vec3 p = Vec3(-er.y(), er.x(), 0).cross(q);  // e_φ × q: in the meridian plane, ⟂ q
    const double rho_p = p.dot(er), rho_q = q.dot(er);
    // Runs of chord offsets whose chords meet the other cell, from samples at a = −r cos(π j / (n − 1)).
    const int n = a_samples;
    std::vector<double> a(n);
    std::vector<char> hit(n);
    for (int j = 0; j < n; ++j) {
      a[j] = j == (n - 1) / 2 ? 0.0 : -r * std::cos(kPi * j / (n - 1));
      hit[j] = chord_set(c, p, q, a[j]).n > 0;
    }
    auto edge = [&](double in, double out) {  // bisection between a hitting and a missing offset
      const double tol = 1e-9 * r;
      while (std::abs(out - in) > tol) {
        const double mid = 0.5 * (in + out);
        (chord_set(c, p, q, mid).n > 0 ? in : out) = mid;
      }
      return in;
    };
    for (int j = 0; j < n;) {
      if (!hit[j]) {
        ++j;
        continue;
      }
      int k = j;
      while (k + 1 < n && hit[k + 1]) ++k;
      const double lo = j == 0 ? -r : edge(a[j], a[j - 1]), hi = k == n - 1 ? r : edge(a[k], a[k + 1]);
      const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
      for (size_t i = 0; i < rule.x.size(); ++i) {
        const double theta = kPi * rule.x[i];
        const double ai = mid - half * std::cos(theta), wi = rule.w[i] * kPi * half * std::sin(theta);
        const IntervalList set = chord_set(c, p, q, ai);
        const Vec3 o = c + ai * p;
        const double rho0 = R + ai * rho_p;  // ρ(s) = rho0 + rho_q s along the chord
        double i0 = 0, i1 = 0, i2 = 0;       // ∫ρ, ∫ρ s, ∫ρ s² over the chord's set
        for (int t = 0; t < set.n; ++t) {
          const double s0 = set.v[t][0], s1 = set.v[t][1];
          const double j0 = s1 - s0, j1 = (s1 * s1 - s0 * s0) / 2, j2 = (s1 * s1 * s1 - s0 * s0 * s0) / 3,
                       j3 = (s1 * s1 * s1 * s1 - s0 * s0 * s0 * s0) / 4;
          i0 += rho0 * j0 + rho_q * j1;
          i1 += rho0 * j1 + rho_q * j2;
          i2 += rho0 * j2 + rho_q * j3;
        }
        m.m0 += wi * i0;
        m.m1 += wi * (i0 * o + i1 * q);
        m.m2 += wi * (i0 * o * o.transpose() + i1 * (o * q.transpose() + q * o.transpose()) + i2 * q * q.transpose());
      }
      j = k + 1;
    }
    return m;
  }
};

// The first root of f between a (f < 0) and b (f >= 0), by bisection to `tol`.
template <class F>
double boundary(const F& f, double a, double b, double tol) {
  while (std::abs(b - a) > tol) {
    const double m = 0.5 * (a + b);
    (f(m) < 0 ? a : b) = m;
  }
  return 0.5 * (a + b);
}

}  // namespace

std::optional<RawMoments> torus_sweep_moments(const CellPrimitives& torus_cell, const Pose& torus_pose,
                                              const CellPrimitives& other, const Pose& other_pose,
                                              const Vec3& origin, double tolerance) {
  const CellPrimitive* torus = nullptr;
  for (const CellPrimitive& cp : torus_cell) {
    if (cp.primitive.kind != PrimitiveKind::Torus) continue;
    if (torus || cp.complement || !(cp.primitive.major_radius > cp.primitive.minor_radius)) return std::nullopt;
    torus = &cp;
  }
  if (!torus) return std::nullopt;
  // Q: the torus's own frame (axis z, centre at the origin).
  const Pose frame = torus_pose.compose(torus->primitive.pose);
  Sweep sw;
  sw.R = torus->primitive.major_radius, sw.r = torus->primitive.minor_radius;
  for (const CellPrimitive& cp : torus_cell)
    if (&cp != torus) sw.clip.push_back(lines::place(cp, torus_pose, frame));
  sw.other_begin = sw.clip.size();
  for (const CellPrimitive& cp : other) sw.clip.push_back(lines::place(cp, other_pose, frame));
  sw.rule = gauss_legendre(nodes_for(tolerance));

  // The overlap's angular extent about the axis: all of it, unless its bounding box keeps clear of the axis.
  Vec3 lo, hi;
  lines::placed_cell_bounds(sw.clip, 0, sw.clip.size(), lo, hi);
  const double reach = sw.R + sw.r;
  lo = lo.cwiseMax(Vec3(-reach, -reach, -sw.r)), hi = hi.cwiseMin(Vec3(reach, reach, sw.r));
  RawMoments total;
  if ((lo.array() >= hi.array()).any()) return total;
  double phi_lo = 0, phi_hi = 2 * kPi;
  bool whole = true;
  if (lo.x() > 0 || hi.x() < 0 || lo.y() > 0 || hi.y() < 0) {
    // The box lies in an open half-plane through the axis: its corners' angles bound it (span < π).
    const double mid = std::atan2(0.5 * (lo.y() + hi.y()), 0.5 * (lo.x() + hi.x()));
    double dmin = 0, dmax = 0;
    for (int k = 0; k < 4; ++k) {
      const double ang = std::atan2((k & 2) ? hi.y() : lo.y(), (k & 1) ? hi.x() : lo.x());
      const double d = std::remainder(ang - mid, 2 * kPi);
      dmin = std::min(dmin, d), dmax = std::max(dmax, d);
    }
    phi_lo = mid + dmin, phi_hi = mid + dmax, whole = false;
  }

  // Contact bands: the angles where the depth is negative. Sampled; a run of negative samples is a band whose ends
  // are found by bisection; a clear sample that is a local minimum is refined (golden section), since a band
  // narrower than the sampling still dips below zero there.
  constexpr int kSamples = 64;
  const int ns = whole ? kSamples : kSamples + 1;
  const double step = (phi_hi - phi_lo) / kSamples;
  auto depth = [&](double x) { return sw.depth(x); };
  std::vector<double> d(ns);
  for (int k = 0; k < ns; ++k) d[k] = depth(phi_lo + k * step);
  const auto clear = std::find_if(d.begin(), d.end(), [](double v) { return v >= 0; });
  std::vector<std::array<double, 2>> bands;
  bool ring = false;
  if (clear == d.end()) {
    ring = whole;  // every section is in contact
    if (!whole) bands.push_back({phi_lo, phi_hi});
  } else {
    // Walk the samples from a clear one (angles unwrapped, so no band straddles the walk's start).
    const int first = whole ? static_cast<int>(clear - d.begin()) : 0;
    const int last = whole ? first + ns : ns - 1;  // inclusive: a whole ring comes back to its first sample
    auto value = [&](int k) { return d[k % ns]; };
    auto angle = [&](int k) { return phi_lo + k * step; };
    const double phi_tol = 1e-10 * (phi_hi - phi_lo);
    for (int k = first; k <= last; ++k) {
      if (value(k) < 0) {
        int e = k;
        while (e + 1 <= last && value(e + 1) < 0) ++e;
        const double start = k == first ? angle(k) : boundary(depth, angle(k), angle(k - 1), phi_tol);
        const double end = e == last ? angle(e) : boundary(depth, angle(e), angle(e + 1), phi_tol);
        bands.push_back({start, end});
        k = e;
      } else if (k > first && k < last && value(k) <= value(k - 1) && value(k) <= value(k + 1)) {
        double a = angle(k - 1), b = angle(k + 1);  // golden section for the minimum
        const double g = 0.5 * (std::sqrt(5.0) - 1);
        double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = depth(x1), f2 = depth(x2);
        while (b - a > phi_tol && std::min(f1, f2) >= 0) {
          if (f1 < f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = depth(x1);
          else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = depth(x2);
        }
        if (std::min(f1, f2) < 0) {
          const double centre = f1 < f2 ? x1 : x2;
          bands.push_back({boundary(depth, centre, angle(k - 1), phi_tol), boundary(depth, centre, angle(k + 1), phi_tol)});
        }
      }
    }
  }

  // Sections integrated over each band (cos substitution: the ends, where the lens vanishes like a power, become
  // smooth) or around the whole ring (periodic trapezoid).
  auto add = [&](double phi, double w) {
    const RawMoments m = sw.section(phi);
    total.m0 += w * m.m0, total.m1 += w * m.m1, total.m2 += w * m.m2;
  };
  const int n_ring = 2 * static_cast<int>(sw.rule.x.size());
  if (ring)
    for (int k = 0; k < n_ring; ++k) add(2 * kPi * k / n_ring, 2 * kPi / n_ring);
  for (const auto& b : bands) {
    const double mid = 0.5 * (b[0] + b[1]), half = 0.5 * (b[1] - b[0]);
    for (size_t i = 0; i < sw.rule.x.size(); ++i) {
      const double theta = kPi * sw.rule.x[i];
      add(mid - half * std::cos(theta), sw.rule.w[i] * kPi * half * std::sin(theta));
    }
  }
  // From the torus frame to world axes about `origin`: x = Rq x_Q + t.
  const Mat3 Rq = frame.rotation.toRotationMatrix();
  const Vec3 t = frame.position - origin;
  RawMoments out;
  out.m0 = total.m0;
  const Vec3 m1 = Rq * total.m1;
  out.m1 = m1 + total.m0 * t;
  out.m2 = Rq * total.m2 * Rq.transpose() + m1 * t.transpose() + t * m1.transpose() + total.m0 * t * t.transpose();
  return out;
}

}  // namespace vcsim::geo
