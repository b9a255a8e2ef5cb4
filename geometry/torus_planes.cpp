// A torus against planes (docs/geometry.md): the torus is swept by its meridian discs around the ring, each disc
// clipped by the planes' lines and integrated in closed form (geometry/disc_slices.h), and the discs summed by
// Gauss–Legendre quadrature between the angles where a disc's shape changes.
#include <algorithm>
#include <cmath>
#include <functional>

#include "geometry/disc_slices.h"
#include "geometry/primitive_planes.h"

namespace vcsim::geo {
namespace {


// ∫ over a slice of {1, x, y, x², xy, y², x³, x²y, xy²}: the weights of a torus's meridian disc (weight ρ = R + x).
struct CubicMoments {
  double a = 0, x = 0, y = 0, xx = 0, xy = 0, yy = 0, xxx = 0, xxy = 0, xyy = 0;
};

// Green's theorem with ∫ xⁱ yʲ dA = ∮ xⁱ⁺¹ yʲ / (i + 1) dy, at a boundary point (x, y) with weight w·dy.
void add_cubic_forms(double x, double y, double wdy, CubicMoments& m) {
  const double x2 = x * x, x3 = x2 * x;
  m.a += wdy * x;
  m.x += wdy * x2 / 2;
  m.y += wdy * x * y;
  m.xx += wdy * x3 / 3;
  m.xy += wdy * x2 * y / 2;
  m.yy += wdy * x * y * y;
  m.xxx += wdy * x3 * x / 4;
  m.xxy += wdy * x3 * y / 3;
  m.xyy += wdy * x2 * y * y / 2;
}

// The disc of radius r clipped by lines, its boundary's forms by Gauss–Legendre: 3 points on segments (the forms
// are polynomials of degree <= 5 there: exact), 8 points on arc pieces of <= π/8 (trigonometric forms of degree
// <= 5: exact to rounding).
CubicMoments disc_cubic_moments(double r, const std::vector<Line2>& lines) {
  CubicMoments m;
  bool whole;
  const std::vector<DiscPiece> pieces = clipped_disc_boundary(r, lines, &whole);
  if (pieces.empty()) return uncut_disc<CubicMoments>(r, whole);
  static const double g3x[3] = {0.5 - 0.5 * 0.7745966692414834, 0.5, 0.5 + 0.5 * 0.7745966692414834};
  static const double g3w[3] = {5.0 / 18, 8.0 / 18, 5.0 / 18};
  for (size_t k = 0; k < pieces.size(); ++k) {
    const Vec2 p = pieces[k].p, d = pieces[k].q - p;
    for (int i = 0; i < 3; ++i) add_cubic_forms(p.x() + g3x[i] * d.x(), p.y() + g3x[i] * d.y(), g3w[i] * d.y(), m);
    if (!pieces[k].ends_on_circle) continue;
    double t1, t2;
    arc_after(pieces, k, t1, t2);
    const int parts = std::max(1, static_cast<int>(std::ceil((t2 - t1) / (M_PI / 8))));
    const double h = (t2 - t1) / parts;
    for (int j = 0; j < parts; ++j)
      for (int i = 0; i < 8; ++i) {
        const double t = t1 + h * (j + kGaussX[i]);
        const double c = std::cos(t), s = std::sin(t);
        add_cubic_forms(r * c, r * s, kGaussW[i] * h * r * c, m);
      }
  }
  return m;
}

// A plane in a meridian half-plane at angle θ, with disc coordinates x = ρ − R, y = z: the plane n·X <= d is the line
// α x + n3 y <= δ − α R, α = n1 cos θ + n2 sin θ, δ = d − n·c (n1, n2, n3: n along e1, e2 and the axis).
struct Ring {
  double n1, n2, n3, delta;
};

// The angles around the ring where the clipped meridian disc changes shape (sorted, from −π to π): the quadrature
// of torus_planes_moments integrates smoothly between them.
std::vector<double> slice_breaks(const std::vector<Ring>& rings, double R, double r) {
  // Angles where a plane's line is tangent to the meridian circle: (δ − αR)² = r²(α² + n3²), a quadratic in α,
  // with α = K cos(θ − θ0).
  std::vector<double> breaks{-M_PI, M_PI};
  for (const Ring& g : rings) {
    const double K = std::hypot(g.n1, g.n2), theta0 = std::atan2(g.n2, g.n1);
    if (K < 1e-12) continue;
    std::vector<double> alphas;
    add_roots(R * R - r * r, -g.delta * R, g.delta * g.delta - r * r * g.n3 * g.n3, -K, K, alphas);
    for (const double al : alphas)
      for (const double sgn : {1.0, -1.0}) {
        double t = theta0 + sgn * std::acos(std::clamp(al / K, -1.0, 1.0));
        while (t > M_PI) t -= 2 * M_PI;
        while (t < -M_PI) t += 2 * M_PI;
        breaks.push_back(t);
      }
  }
  // With several cutting planes (a torus over a table's edge), the angles where the vertex of two lines crosses
  // the circle or a third line: sign changes of those functions of θ, sampled at 32 angles in each panel between
  // the tangencies above and bisected. Per panel, not over the whole turn: a small lens at a box's edge spans a few
  // hundredths of a radian, and 256 angles around the turn stepped over both of its vertex crossings (a torus 1e-9
  // m³ into a box's edge 3.5e-3 high, 2e-7 m³ into another 5.2 % high, against exact chords on a 2000² grid).
  if (rings.size() >= 2) {
    std::sort(breaks.begin(), breaks.end());
    const std::vector<double> panels = breaks;
    const size_t nr = rings.size();
    auto line_at = [&](const Ring& g, double ct, double st, Vec2& n, double& b) {
      n = Vec2(g.n1 * ct + g.n2 * st, g.n3);
      b = g.delta - n.x() * R;
    };
    // The vertex of lines i and j at θ (false where they are parallel).
    auto vertex = [&](size_t i, size_t j, double ct, double st, Vec2& v) {
      Vec2 ni, nj;
      double bi, bj;
      line_at(rings[i], ct, st, ni, bi);
      line_at(rings[j], ct, st, nj, bj);
      const double det = ni.x() * nj.y() - ni.y() * nj.x();
      if (std::abs(det) < 1e-12) return false;
      v = Vec2(bi * nj.y() - bj * ni.y(), ni.x() * bj - nj.x() * bi) / det;
      return true;
    };
    // A sign change of f between two samples, refined by false position (Illinois) to 1e-14 rad: a break misplaced by
    // δ moves V by ~δ², and bisection to rounding took 60 steps a root.
    auto refine = [](const std::function<double(double)>& f, double lo, double flo, double hi, double fhi) {
      int side = 0;
      for (int it = 0; it < 100 && hi - lo > 1e-14; ++it) {
        double m = (lo * fhi - hi * flo) / (fhi - flo);
        if (!(m > lo && m < hi)) m = 0.5 * (lo + hi);
        const double fm = f(m);
        if (!std::isfinite(fm) || fm == 0) return m;
        if ((fm < 0) == (flo < 0)) {
          lo = m, flo = fm;
          if (side == -1) fhi *= 0.5;
          side = -1;
        } else {
          hi = m, fhi = fm;
          if (side == 1) flo *= 0.5;
          side = 1;
        }
      }
      return 0.5 * (lo + hi);
    };
    constexpr int N = 32;
    std::vector<double> ts(N + 1), cs(N + 1), ss(N + 1), fc(N + 1), fm(N + 1);
    std::vector<Vec2> vs(N + 1);
    std::vector<char> has(N + 1);
    for (size_t p = 0; p + 1 < panels.size(); ++p) {
      const double from = panels[p], step = (panels[p + 1] - panels[p]) / N;
      if (!(step > 0)) continue;
      for (int k = 0; k <= N; ++k) {  // the samples' angles, shared by every function below
        ts[k] = k == N ? panels[p + 1] : from + step * k;
        cs[k] = std::cos(ts[k]), ss[k] = std::sin(ts[k]);
      }
      for (size_t i = 0; i < nr; ++i)
        for (size_t j = i + 1; j < nr; ++j) {
          for (int k = 0; k <= N; ++k) {
            has[k] = vertex(i, j, cs[k], ss[k], vs[k]);
            fc[k] = has[k] ? vs[k].squaredNorm() - r * r : std::nan("");
          }
          auto circle = [&](double t) {
            Vec2 v;
            return vertex(i, j, std::cos(t), std::sin(t), v) ? v.squaredNorm() - r * r : std::nan("");
          };
          for (int k = 1; k <= N; ++k)
            if (std::isfinite(fc[k - 1]) && std::isfinite(fc[k]) && (fc[k - 1] < 0) != (fc[k] < 0))
              breaks.push_back(refine(circle, ts[k - 1], fc[k - 1], ts[k], fc[k]));
          for (size_t m = 0; m < nr; ++m) {
            if (m == i || m == j) continue;
            auto crossing = [&](double t) {
              Vec2 v, n;
              double b;
              const double ct = std::cos(t), st = std::sin(t);
              if (!vertex(i, j, ct, st, v)) return std::nan("");
              line_at(rings[m], ct, st, n, b);
              return n.dot(v) - b;
            };
            for (int k = 0; k <= N; ++k) {
              Vec2 n;
              double b;
              line_at(rings[m], cs[k], ss[k], n, b);
              fm[k] = has[k] ? n.dot(vs[k]) - b : std::nan("");
            }
            // Every crossing, the vertex inside the disc or not: dropping those outside it (where the clipped disc
            // keeps its shape) moved V by up to 1e-6 on random poses at a box's edge, the breaks also splitting the
            // Gauss–Legendre pieces.
            for (int k = 1; k <= N; ++k)
              if (std::isfinite(fm[k - 1]) && std::isfinite(fm[k]) && (fm[k - 1] < 0) != (fm[k] < 0))
                breaks.push_back(refine(crossing, ts[k - 1], fm[k - 1], ts[k], fm[k]));
          }
        }
    }
  }
  std::sort(breaks.begin(), breaks.end());
  return breaks;
}

}  // namespace

RawMoments torus_planes_moments(const Vec3& c, const Vec3& axis, double major, double minor,
                                const std::vector<Plane>& planes) {
  const Vec3 a = axis.normalized(), e1 = a.unitOrthogonal(), e2 = a.cross(e1);
  const double R = major, r = minor;
  std::vector<Ring> rings;
  bool flat = true;  // every plane perpendicular to the axis: the slice is the same at every θ
  for (const Plane& pl : planes) {
    const Ring g{pl.n.dot(e1), pl.n.dot(e2), pl.n.dot(a), pl.d - pl.n.dot(c)};
    const double reach = R * std::hypot(g.n1, g.n2) + r;  // the torus's support along n, from c
    if (g.delta >= reach) continue;                      // holds the whole torus: no effect
    if (g.delta <= -reach) return {};                    // misses it: empty
    rings.push_back(g);
    flat = flat && std::hypot(g.n1, g.n2) < 1e-12;
  }
  std::vector<Line2> lines;
  // slice_at(θ) → the meridian disc's clipped moments; empty `lines` entries (a plane along the meridian) either
  // keep everything (δ >= 0) or nothing.
  auto slice_at = [&](double theta) {
    lines.clear();
    const double ct = std::cos(theta), st = std::sin(theta);
    for (const Ring& g : rings) {
      const double alpha = g.n1 * ct + g.n2 * st, gn = std::hypot(alpha, g.n3);
      if (gn < 1e-14) {
        if (g.delta < 0) return CubicMoments{};
        continue;
      }
      lines.push_back({Vec2(alpha / gn, g.n3 / gn), (g.delta - alpha * R) / gn});
    }
    return disc_cubic_moments(r, lines);
  };
  // The weights ∫ρ, ∫ρ², ∫ρ³, ∫ρy, ∫ρ²y, ∫ρy² from the disc's moments (ρ = R + x).
  RawMoments m;  // about c, in world axes
  auto add = [&](const CubicMoments& s, double theta, double w) {
    const double rho1 = R * s.a + s.x, rho2 = R * R * s.a + 2 * R * s.x + s.xx;
    const double rho3 = R * R * R * s.a + 3 * R * R * s.x + 3 * R * s.xx + s.xxx;
    const double rho_y = R * s.y + s.xy, rho2_y = R * R * s.y + 2 * R * s.xy + s.xxy, rho_yy = R * s.yy + s.xyy;
    const double ct = std::cos(theta), st = std::sin(theta);
    const Vec3 radial = ct * e1 + st * e2;
    m.m0 += w * rho1;
    m.m1 += w * (rho2 * radial + rho_y * a);
    m.m2 += w * (rho3 * radial * radial.transpose() + rho2_y * (radial * a.transpose() + a * radial.transpose()) +
                 rho_yy * a * a.transpose());
  };
  if (flat) {
    // ∫dθ over the ring in closed form: ∫cos = ∫sin = ∫cos sin = 0, ∫cos² = ∫sin² = π.
    const CubicMoments s = slice_at(0);
    const double rho1 = R * s.a + s.x, rho2_y = R * R * s.y + 2 * R * s.xy + s.xxy, rho_yy = R * s.yy + s.xyy;
    const double rho3 = R * R * R * s.a + 3 * R * R * s.x + 3 * R * s.xx + s.xxx, rho_y = R * s.y + s.xy;
    (void)rho2_y;
    m.m0 = 2 * M_PI * rho1;
    m.m1 = 2 * M_PI * rho_y * a;
    m.m2 = M_PI * rho3 * (e1 * e1.transpose() + e2 * e2.transpose()) + 2 * M_PI * rho_yy * a * a.transpose();
  } else {
    const std::vector<double> breaks = slice_breaks(rings, R, r);
    for (size_t k = 0; k + 1 < breaks.size(); ++k) {
      const double p = breaks[k], q = breaks[k + 1];
      if (!(q > p) || slice_at(0.5 * (p + q)).a <= 0) continue;  // empty between tangencies: empty throughout
      const int parts = std::max(1, static_cast<int>(std::ceil((q - p) / (M_PI / 4))));
      for (int j = 0; j < parts; ++j) {
        // Pieces next to a break point take the map 3t² − 2t³ (the slice's (θ − θ*)^(3/2) onset); inner ones not.
        const double pj = p + (q - p) * j / parts, qj = p + (q - p) * (j + 1) / parts;
        for (int i = 0; i < 8; ++i) {
          const double t = kGaussX[i];
          const bool map_lo = j == 0, map_hi = j == parts - 1;
          double u = t, du = 1;
          if (map_lo && map_hi) u = t * t * (3 - 2 * t), du = 6 * t * (1 - t);
          else if (map_lo) u = t * t, du = 2 * t;                       // onset at p only
          else if (map_hi) u = 1 - (1 - t) * (1 - t), du = 2 * (1 - t);  // onset at q only
          const double theta = pj + (qj - pj) * u;
          add(slice_at(theta), theta, kGaussW[i] * (qj - pj) * du);
        }
      }
    }
  }
  // From about c to about the origin.
  RawMoments out;
  out.m0 = m.m0;
  out.m1 = m.m1 + m.m0 * c;
  out.m2 = m.m2 + m.m1 * c.transpose() + c * m.m1.transpose() + m.m0 * c * c.transpose();
  return out;
}

}  // namespace vcsim::geo
