#include "engine/time_profile.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace vcsim {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr double kInf = std::numeric_limits<double>::infinity();

using Kind = TimeProfile::Kind;

std::size_t table_size(const TimeProfile& p) { return std::min(p.times.size(), p.values.size()); }

// Table piece i as y_i + c1 b + c2 b^2 + c3 b^3 with b = t - t_i: one form serves value, rate,
// extrema and extrapolation. Linear tables (or unprepared cubic ones) have c2 = c3 = 0.
struct Piece {
  double t0, y0, c1, c2, c3, h;
  double value(double b) const { return y0 + b * (c1 + b * (c2 + b * c3)); }
  double rate(double b) const { return c1 + b * (2 * c2 + 3 * b * c3); }
};

Piece table_piece(const TimeProfile& p, std::size_t i) {
  const double h = p.times[i + 1] - p.times[i];
  const double slope = (p.values[i + 1] - p.values[i]) / h;
  const std::size_t n = table_size(p);
  if (!p.cubic || p.second_derivatives.size() != n) return {p.times[i], p.values[i], slope, 0, 0, h};
  const double m0 = p.second_derivatives[i], m1 = p.second_derivatives[i + 1];
  return {p.times[i], p.values[i], slope - h * (2 * m0 + m1) / 6, m0 / 2, (m1 - m0) / (6 * h), h};
}

// Value (or rate) of a table at t: first value before the first knot, the right-hand piece at a
// knot, and after the last knot either the held value or the last piece continued.
double table_eval(const TimeProfile& p, double t, bool rate) {
  const std::size_t n = table_size(p);
  if (n == 0) return 0;
  if (n == 1 || t < p.times[0]) return rate ? 0 : p.values[0];
  if (t >= p.times[n - 1] && !p.extrapolate) return rate ? 0 : p.values[n - 1];
  const auto it = std::upper_bound(p.times.begin(), p.times.begin() + n, t);
  const std::size_t i = std::min<std::size_t>(it - p.times.begin() - 1, n - 2);
  const Piece s = table_piece(p, i);
  return rate ? s.rate(t - s.t0) : s.value(t - s.t0);
}

}  // namespace

void prepare_profile(TimeProfile& p) {
  p.second_derivatives.clear();
  const std::size_t n = table_size(p);
  if (p.kind != Kind::Table || !p.cubic || n < 2) return;
  // Natural spline: M_0 = M_{n-1} = 0 and, for the interior knots,
  // h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (slope_i - slope_{i-1}).
  // The system is diagonally dominant, so the Thomas algorithm needs no pivoting.
  std::vector<double>& m = p.second_derivatives;
  m.assign(n, 0.0);
  std::vector<double> diag(n, 0.0), rhs(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double hl = p.times[i] - p.times[i - 1], hr = p.times[i + 1] - p.times[i];
    diag[i] = 2 * (hl + hr);
    rhs[i] = 6 * ((p.values[i + 1] - p.values[i]) / hr - (p.values[i] - p.values[i - 1]) / hl);
    if (i > 1) {  // eliminate the sub-diagonal h_{i-1} using row i-1 (whose super-diagonal is h_{i-1})
      const double w = hl / diag[i - 1];
      diag[i] -= w * hl;
      rhs[i] -= w * rhs[i - 1];
    }
  }
  for (std::size_t i = n - 2; i >= 1; --i)
    m[i] = (rhs[i] - (p.times[i + 1] - p.times[i]) * m[i + 1]) / diag[i];
}

double profile_value(const TimeProfile& p, double t) {
  switch (p.kind) {
    case Kind::Constant: return p.value;
    case Kind::Ramp:
      if (t < p.start) return p.from;
      if (t < p.start + p.over) return p.from + (p.to - p.from) * (t - p.start) / p.over;
      return p.to;
    case Kind::Sine: return p.offset + p.amplitude * std::sin(kTwoPi * p.frequency * t + p.phase);
    case Kind::Step: return t < p.start ? p.from : p.to;
    case Kind::Table: return table_eval(p, t, false);
  }
  return 0;
}

double profile_rate(const TimeProfile& p, double t) {
  switch (p.kind) {
    case Kind::Constant:
    case Kind::Step: return 0;
    case Kind::Ramp:
      return (p.over > 0 && t >= p.start && t < p.start + p.over) ? (p.to - p.from) / p.over : 0;
    case Kind::Sine:
      return kTwoPi * p.frequency * p.amplitude * std::cos(kTwoPi * p.frequency * t + p.phase);
    case Kind::Table: return table_eval(p, t, true);
  }
  return 0;
}

std::vector<double> profile_breakpoints(const TimeProfile& p) {
  std::vector<double> out;
  const std::size_t n = table_size(p);
  switch (p.kind) {
    case Kind::Constant:
    case Kind::Sine: break;
    case Kind::Ramp: out = {p.start, p.start + std::max(p.over, 0.0)}; break;
    case Kind::Step: out = {p.start}; break;
    case Kind::Table:
      if (n == 0) break;
      if (p.cubic) out = {p.times[0], p.times[n - 1]};
      else out.assign(p.times.begin(), p.times.begin() + n);
      break;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double profile_max_abs(const TimeProfile& p) {
  switch (p.kind) {
    case Kind::Constant: return std::abs(p.value);
    case Kind::Ramp:
    case Kind::Step: return std::max(std::abs(p.from), std::abs(p.to));
    case Kind::Sine:
      if (p.frequency == 0) return std::abs(p.offset + p.amplitude * std::sin(p.phase));
      return std::abs(p.offset) + std::abs(p.amplitude);
    case Kind::Table: break;
  }
  const std::size_t n = table_size(p);
  double best = 0;
  for (std::size_t i = 0; i < n; ++i) best = std::max(best, std::abs(p.values[i]));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const Piece s = table_piece(p, i);
    if (i + 2 == n && p.extrapolate && (s.c1 != 0 || s.c2 != 0 || s.c3 != 0)) return kInf;
    // Interior extrema: roots of c1 + 2 c2 b + 3 c3 b^2 in (0, h), by the cancellation-free formula.
    const double a = 3 * s.c3, b = 2 * s.c2, c = s.c1;
    double roots[2] = {-1, -1};
    if (a == 0) {
      if (b != 0) roots[0] = -c / b;
    } else if (const double disc = b * b - 4 * a * c; disc >= 0) {
      const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
      roots[0] = q / a;
      if (q != 0) roots[1] = c / q;
    }
    for (double r : roots)
      if (r > 0 && r < s.h) best = std::max(best, std::abs(s.value(r)));
  }
  return best;
}

bool profile_is_constant(const TimeProfile& p) {
  switch (p.kind) {
    case Kind::Constant: return true;
    case Kind::Ramp:
    case Kind::Step: return p.from == p.to;
    case Kind::Sine: return p.amplitude == 0 || p.frequency == 0;
    case Kind::Table: {
      // Equal values give zero slopes and zero spline moments, so extrapolation stays constant too.
      const std::size_t n = table_size(p);
      for (std::size_t i = 1; i < n; ++i)
        if (p.values[i] != p.values[0]) return false;
      return true;
    }
  }
  return true;
}

TimeProfile constant_profile(double value) {
  TimeProfile p;
  p.kind = Kind::Constant;
  p.value = value;
  return p;
}

}  // namespace vcsim
