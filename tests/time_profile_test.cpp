// Time profiles (engine/time_profile) against closed forms worked out by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "engine/time_profile.h"

using namespace vcsim;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();

TimeProfile ramp(double from, double to, double start, double over) {
  TimeProfile p;
  p.kind = TimeProfile::Kind::Ramp;
  p.from = from, p.to = to, p.start = start, p.over = over;
  return p;
}

TimeProfile step(double from, double to, double start) {
  TimeProfile p = ramp(from, to, start, 0);
  p.kind = TimeProfile::Kind::Step;
  return p;
}

TimeProfile sine(double amplitude, double frequency, double phase, double offset) {
  TimeProfile p;
  p.kind = TimeProfile::Kind::Sine;
  p.amplitude = amplitude, p.frequency = frequency, p.phase = phase, p.offset = offset;
  return p;
}

TimeProfile table(std::vector<double> times, std::vector<double> values, bool cubic,
                  bool extrapolate = false) {
  TimeProfile p;
  p.kind = TimeProfile::Kind::Table;
  p.times = std::move(times), p.values = std::move(values);
  p.cubic = cubic, p.extrapolate = extrapolate;
  prepare_profile(p);
  return p;
}

double left_of(double t) { return std::nextafter(t, -kInf); }

}  // namespace

TEST_CASE("Constant profile", "[time_profile]") {
  const TimeProfile p = constant_profile(-2.5);
  CHECK(profile_value(p, 0) == -2.5);
  CHECK(profile_value(p, 1e6) == -2.5);
  CHECK(profile_rate(p, 3) == 0);
  CHECK(profile_breakpoints(p).empty());
  CHECK(profile_max_abs(p) == 2.5);
  CHECK(profile_is_constant(p));
}

TEST_CASE("Ramp: from, linear, to, slope only inside", "[time_profile]") {
  const TimeProfile p = ramp(2, 5, 1, 3);  // slope (5 - 2) / 3 = 1 on [1, 4)
  const double tol = 1e-14;  // a few roundings of O(1) numbers
  CHECK(profile_value(p, 0) == 2);
  CHECK(profile_rate(p, 0) == 0);
  CHECK(profile_value(p, 1) == Approx(2).margin(tol));
  CHECK(profile_rate(p, 1) == Approx(1).margin(tol));  // right-continuous at the start
  CHECK(profile_value(p, 2.5) == Approx(3.5).margin(tol));
  CHECK(profile_rate(p, 2.5) == Approx(1).margin(tol));
  CHECK(profile_value(p, left_of(4)) == Approx(5).margin(tol));
  CHECK(profile_value(p, 4) == 5);
  CHECK(profile_rate(p, 4) == 0);  // right-continuous at the end
  CHECK(profile_value(p, 10) == 5);
  CHECK(profile_breakpoints(p) == std::vector<double>{1, 4});
  CHECK(profile_max_abs(p) == 5);
  CHECK(profile_max_abs(ramp(-7, 5, 1, 3)) == 7);
  CHECK_FALSE(profile_is_constant(p));
  CHECK(profile_is_constant(ramp(3, 3, 1, 2)));
}

TEST_CASE("Sine matches std::sin and its derivative", "[time_profile]") {
  const double A = 1.5, f = 0.7, phi = 0.3, c = -0.2;
  const TimeProfile p = sine(A, f, phi, c);
  for (double t : {0.0, 0.13, 0.5, 1.0, 2.7, 10.0, 123.4}) {
    const double arg = 2 * kPi * f * t + phi;
    // Same formula, possibly different operation order: round-off grows with the argument (~1e3 here).
    const double tol = 1e-12;
    CHECK(profile_value(p, t) == Approx(c + A * std::sin(arg)).margin(tol));
    CHECK(profile_rate(p, t) == Approx(2 * kPi * f * A * std::cos(arg)).margin(tol));
  }
  CHECK(profile_breakpoints(p).empty());
  CHECK(profile_max_abs(p) == Approx(1.7).margin(1e-15));  // |c| + |A|, one rounding
  CHECK_FALSE(profile_is_constant(p));
  CHECK(profile_is_constant(sine(0, 2, 0.3, 4)));
  const TimeProfile still = sine(2, 0, kPi / 6, 1);  // 1 + 2 sin(pi/6) = 2 for every t
  CHECK(profile_is_constant(still));
  CHECK(profile_value(still, 5) == Approx(2).margin(1e-15));  // sin(pi/6) rounds to within 1 ulp of 0.5
  CHECK(profile_max_abs(still) == Approx(2).margin(1e-15));
}

TEST_CASE("Step: from before the step time, to from it on, rate 0", "[time_profile]") {
  const TimeProfile p = step(-1, 3, 2);
  CHECK(profile_value(p, 0) == -1);
  CHECK(profile_value(p, left_of(2)) == -1);
  CHECK(profile_value(p, 2) == 3);
  CHECK(profile_value(p, 9) == 3);
  CHECK(profile_rate(p, left_of(2)) == 0);
  CHECK(profile_rate(p, 2) == 0);
  CHECK(profile_breakpoints(p) == std::vector<double>{2});
  CHECK(profile_max_abs(p) == 3);
  CHECK_FALSE(profile_is_constant(p));
  CHECK(profile_is_constant(step(4, 4, 1)));
}

TEST_CASE("Linear table: interpolation, hold before, hold or extrapolate after", "[time_profile]") {
  // Knots (1, 3), (2, 5), (4, 4): slopes 2 then -0.5.
  const TimeProfile hold = table({1, 2, 4}, {3, 5, 4}, false);
  const TimeProfile extra = table({1, 2, 4}, {3, 5, 4}, false, true);
  const double tol = 1e-14;  // a few roundings of O(1) numbers
  for (const TimeProfile* p : {&hold, &extra}) {
    CHECK(profile_value(*p, 0) == 3);  // before the first knot: first value, no slope
    CHECK(profile_rate(*p, 0) == 0);
    CHECK(profile_value(*p, 1) == 3);
    CHECK(profile_rate(*p, 1) == Approx(2).margin(tol));
    CHECK(profile_value(*p, 1.5) == Approx(4).margin(tol));
    CHECK(profile_value(*p, 2) == Approx(5).margin(tol));
    CHECK(profile_rate(*p, 2) == Approx(-0.5).margin(tol));  // right-continuous at a knot
    CHECK(profile_value(*p, 3) == Approx(4.5).margin(tol));
    CHECK(profile_breakpoints(*p) == std::vector<double>{1, 2, 4});
    CHECK_FALSE(profile_is_constant(*p));
  }
  CHECK(profile_value(hold, 4) == 4);
  CHECK(profile_rate(hold, 4) == 0);
  CHECK(profile_value(hold, 6) == 4);
  CHECK(profile_rate(hold, 6) == 0);
  CHECK(profile_value(extra, 4) == Approx(4).margin(tol));
  CHECK(profile_rate(extra, 4) == Approx(-0.5).margin(tol));
  CHECK(profile_value(extra, 6) == Approx(3).margin(tol));  // 4 - 0.5 * 2
  CHECK(profile_rate(extra, 6) == Approx(-0.5).margin(tol));
  CHECK(profile_max_abs(hold) == 5);
  CHECK(profile_max_abs(extra) == kInf);  // the last slope is nonzero
  CHECK(profile_max_abs(table({0, 1, 2}, {1, -6, -6}, false, true)) == 6);  // flat last segment
}

TEST_CASE("Tables of equal values and degenerate tables are constant", "[time_profile]") {
  for (bool cubic : {false, true}) {
    const TimeProfile p = table({0, 1, 3}, {2, 2, 2}, cubic, true);
    CHECK(profile_is_constant(p));
    CHECK(profile_value(p, 10) == 2);
    CHECK(profile_rate(p, 10) == 0);
    CHECK(profile_max_abs(p) == 2);
  }
  const TimeProfile empty = table({}, {}, true);
  CHECK(profile_value(empty, 1) == 0);
  CHECK(profile_rate(empty, 1) == 0);
  CHECK(profile_breakpoints(empty).empty());
  CHECK(profile_max_abs(empty) == 0);
  CHECK(profile_is_constant(empty));
  const TimeProfile single = table({1}, {-4}, true, true);
  CHECK(profile_value(single, 5) == -4);
  CHECK(profile_rate(single, 5) == 0);
  CHECK(profile_max_abs(single) == 4);
}

TEST_CASE("Cubic table reproduces straight lines and hand-derived splines", "[time_profile]") {
  const double tol = 1e-13;  // round-off of O(1) numbers through the tridiagonal solve
  // A natural spline through collinear points is that line: all moments are 0.
  const TimeProfile line = table({0, 0.5, 2, 3}, {1, 2, 5, 7}, true, true);
  for (double t : {0.0, 0.25, 0.5, 1.1, 2.0, 2.9, 3.0, 4.5}) {
    CHECK(profile_value(line, t) == Approx(1 + 2 * t).margin(tol));
    CHECK(profile_rate(line, t) == Approx(2).margin(tol));
  }
  // Two points: a straight line.
  const TimeProfile two = table({1, 3}, {0, 4}, true);
  CHECK(profile_value(two, 2.5) == Approx(3).margin(tol));
  CHECK(profile_rate(two, 2.5) == Approx(2).margin(tol));
  // (0,0), (1,1), (2,0): 4 M1 = 6 ((0 - 1) - (1 - 0)) gives M1 = -3, so on [0, 1]
  // S = 1.5 t - 0.5 t^3, S' = 1.5 - 1.5 t^2: S(0.5) = 0.6875, S'(0) = 1.5, maximum S(1) = 1.
  const TimeProfile hat = table({0, 1, 2}, {0, 1, 0}, true);
  REQUIRE(hat.second_derivatives.size() == 3);
  CHECK(hat.second_derivatives[1] == Approx(-3).margin(tol));
  CHECK(profile_value(hat, 0.5) == Approx(0.6875).margin(tol));
  CHECK(profile_value(hat, 1.5) == Approx(0.6875).margin(tol));  // symmetric
  CHECK(profile_rate(hat, 0) == Approx(1.5).margin(tol));
  CHECK(profile_rate(hat, 1) == Approx(0).margin(tol));
  CHECK(profile_max_abs(hat) == Approx(1).margin(tol));
  CHECK(profile_breakpoints(hat) == std::vector<double>{0, 2});
  CHECK_FALSE(profile_is_constant(hat));
}

TEST_CASE("Cubic table of sin approximates sin and cos to the spline error bound", "[time_profile]") {
  const int n = 21;
  const double h = kPi / (n - 1);
  std::vector<double> ts, ys;
  for (int i = 0; i < n; ++i) ts.push_back(i * h), ys.push_back(std::sin(i * h));
  const TimeProfile p = table(ts, ys, true);
  // sin'' = 0 at 0 and pi, so the natural end conditions are exact and the Hall & Meyer bounds for a
  // spline with exact end conditions apply: |f - S| <= 5/384 h^4 max|f''''| ~ 7.9e-6 and
  // |f' - S'| <= 1/24 h^3 max|f''''| ~ 1.6e-4 (h = pi/20, max|sin''''| = 1).
  const double value_tol = 5.0 / 384 * std::pow(h, 4);
  const double rate_tol = 1.0 / 24 * std::pow(h, 3);
  for (int k = 0; k <= 1000; ++k) {
    const double t = kPi * k / 1000;
    CHECK(std::abs(profile_value(p, t) - std::sin(t)) <= value_tol);
    if (k < 1000) CHECK(std::abs(profile_rate(p, t) - std::cos(t)) <= rate_tol);  // at pi the table holds
  }
  for (int i = 0; i < n; ++i) {
    CHECK(profile_value(p, ts[i]) == ys[i]);  // exactly through every knot (b = 0 in the piece formula)
    if (i > 0 && i + 1 < n) {
      // C1: the rate just left of a knot (previous piece) equals the rate at it (next piece). The
      // left point is one ulp away, so the difference is |S''| * 1 ulp ~ 1e-16, far below 1e-9.
      CHECK(std::abs(profile_rate(p, left_of(ts[i])) - profile_rate(p, ts[i])) <= 1e-9);
      CHECK(std::abs(profile_value(p, left_of(ts[i])) - ys[i]) <= 1e-12);  // C0 the same way
    }
  }
  CHECK(profile_breakpoints(p) == std::vector<double>{0, kPi});
  // Extrema at pi/2 (a knot) with value 1; between knots the spline stays within value_tol of sin.
  CHECK(profile_max_abs(p) >= 1);
  CHECK(profile_max_abs(p) <= 1 + value_tol);
}

TEST_CASE("Cubic table has natural ends and hand-derived interior moments", "[time_profile]") {
  // Samples of t^2 at 0..3 (h = 1): 4 M1 + M2 = 6 (3 - 1), M1 + 4 M2 = 6 (5 - 3), so M1 = M2 = 2.4,
  // while the ends are forced to M = 0 (t^2 itself has second derivative 2 there).
  const TimeProfile p = table({0, 1, 2, 3}, {0, 1, 4, 9}, true);
  const double d = 1e-6;
  const auto second = [&](double t) { return (profile_rate(p, t + d) - profile_rate(p, t)) / d; };
  // S'' is linear on a piece with slope 2.4 away from the end, so a difference over [t, t + d] sees
  // about 2.4 * d / 2 ~ 1.2e-6 from the curvature plus ~1e-10 round-off (rates ~ O(1), eps / d).
  const double tol = 1e-5;
  CHECK(std::abs(second(0)) <= tol);
  CHECK(std::abs(second(3 - 2 * d)) <= tol);
  CHECK(std::abs(second(1) - 2.4) <= tol);
  CHECK(std::abs(second(left_of(2) - d) - 2.4) <= tol);
}

TEST_CASE("Cubic table maximum includes the overshoot between knots", "[time_profile]") {
  // (0,0), (1,1), (2,1), (3,0), h = 1: 4 M1 + M2 = -6 and M1 + 4 M2 = -6, so M1 = M2 = -1.2.
  // Middle piece: S = 1 + 0.6 b - 0.6 b^2 with its maximum 1.15 at b = 0.5 (t = 1.5), above every knot.
  // Outer piece: S' = 1.2 - 0.6 b^2 vanishes only at b = sqrt 2, outside [0, 1].
  const TimeProfile plateau = table({0, 1, 2, 3}, {0, 1, 1, 0}, true);
  const double tol = 1e-13;  // round-off of O(1) numbers
  CHECK(profile_value(plateau, 1.5) == Approx(1.15).margin(tol));
  CHECK(profile_rate(plateau, 1.5) == Approx(0).margin(tol));
  CHECK(profile_max_abs(plateau) == Approx(1.15).margin(tol));
  // The same data negated: the extremum is a minimum, and max_abs takes its magnitude.
  CHECK(profile_max_abs(table({0, 1, 2, 3}, {0, -1, -1, 0}, true)) == Approx(1.15).margin(tol));
  // The linear table through the same points never exceeds its knots.
  CHECK(profile_max_abs(table({0, 1, 2, 3}, {0, 1, 1, 0}, false)) == 1);

  // An irregular table, against dense sampling at spacing dx = 1e-5. Near an extremum S' = 0, so a
  // sample within dx/2 of it is low by at most max|S''| (dx/2)^2 / 2; with |S''| <= 20 here (S'' is linear
  // between the moments, and the largest is checked below) that is 2.5e-10, so sampling may fall
  // short by at most that.
  const TimeProfile p = table({0, 0.7, 1.5, 3, 3.4}, {0.2, -1, 2, 1.8, -0.5}, true);
  double max_moment = 0;
  for (double m : p.second_derivatives) max_moment = std::max(max_moment, std::abs(m));
  REQUIRE(max_moment <= 20);
  double sampled = 0;
  const double dx = 1e-5;
  for (int k = 0; k * dx <= 3.4; ++k) sampled = std::max(sampled, std::abs(profile_value(p, k * dx)));
  const double exact = profile_max_abs(p);
  CHECK(exact > 2);  // the spline overshoots the largest |knot value| (2) between knots
  CHECK(sampled <= exact + 1e-12);  // the exact maximum bounds every sample (up to round-off)
  CHECK(exact - sampled <= max_moment * dx * dx / 8 + 1e-12);

  // Extrapolating the last cubic piece is unbounded unless that piece is constant.
  CHECK(profile_max_abs(table({0, 1, 2, 3}, {0, 1, 1, 0}, true, true)) == kInf);
}

TEST_CASE("Cubic table: hold or continue the last piece after the end", "[time_profile]") {
  // (0,0), (1,1), (2,0) as above; last piece on [1, 2]: S = 1 - 1.5 b^2 + 0.5 b^3 (M1 = -3, M2 = 0).
  const TimeProfile hold = table({0, 1, 2}, {0, 1, 0}, true);
  const TimeProfile extra = table({0, 1, 2}, {0, 1, 0}, true, true);
  const double tol = 1e-13;  // round-off of O(1) numbers
  CHECK(profile_value(hold, -1) == 0);
  CHECK(profile_rate(hold, -1) == 0);
  CHECK(profile_value(hold, 2) == 0);
  CHECK(profile_rate(hold, 2) == 0);
  CHECK(profile_value(hold, 3) == 0);
  // b = 2 at t = 3: 1 - 6 + 4 = -1; rate -3 b + 1.5 b^2 = 0. At t = 2 (b = 1): value 0, rate -1.5.
  CHECK(profile_value(extra, 2) == Approx(0).margin(tol));
  CHECK(profile_rate(extra, 2) == Approx(-1.5).margin(tol));
  CHECK(profile_value(extra, 3) == Approx(-1).margin(tol));
  CHECK(profile_rate(extra, 3) == Approx(0).margin(tol));
}
