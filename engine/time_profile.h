// Scalar functions of time for loads, prescribed motion and gravity (docs/scenario-format.md,
// "Time profiles"). Plain data plus free functions so a profile can be copied, stored per component
// and evaluated without virtual calls. Inputs are validated by the scenario loader, not here; the
// functions only avoid crashing on degenerate data (an empty table evaluates to 0).
#pragma once
#include <vector>

namespace vcsim {

struct TimeProfile {
  enum class Kind { Constant, Ramp, Sine, Step, Table };
  Kind kind = Kind::Constant;
  double value = 0;  // Constant
  // Ramp: `from` until `start`, linear to `to` over `over` s (over > 0), then `to`.
  // Step: `from` before `start`, `to` from `start` on (over unused).
  double from = 0, to = 0, start = 0, over = 0;
  // Sine: offset + amplitude sin(2 pi frequency t + phase); frequency in Hz (>= 0), phase in rad.
  double amplitude = 0, frequency = 0, phase = 0, offset = 0;
  // Table: strictly increasing times (>= 2 points) and their values. Before the first time the first
  // value holds. After the last time: hold the last value (rate 0), or with `extrapolate` continue the
  // last segment's polynomial (linear: last slope; cubic: last cubic piece).
  std::vector<double> times, values;
  bool cubic = false;  // natural cubic spline through the points, else piecewise linear
  bool extrapolate = false;
  // Table, cubic: the spline's second derivatives at the knots, filled by prepare_profile. Without
  // them a cubic table evaluates as a linear one.
  std::vector<double> second_derivatives;
};

// Fills derived data (the cubic spline's second derivatives). Call once after filling a Table;
// harmless for other kinds.
void prepare_profile(TimeProfile& p);

double profile_value(const TimeProfile& p, double t);
// d/dt of profile_value, right-continuous: the derivative of the piece that holds at t (0 across a
// Step's jump, the ramp slope at `start`, 0 at `start + over`).
double profile_rate(const TimeProfile& p, double t);

// Times at which the profile or its rate is discontinuous (ramp start and end, step time, every knot
// of a linear table, first and last knot of a cubic one; none for Constant and Sine), sorted and
// unique. An adaptive integrator lands its steps on them rather than straddling a kink.
std::vector<double> profile_breakpoints(const TimeProfile& p);

// Largest |value| (used to bound loads for step-size estimates). Ramp and Step: max(|from|, |to|);
// Sine: |offset| + |amplitude| (exact value for frequency 0); Table: max over knots, the exact
// interior extrema of a cubic spline, and +inf when extrapolating a non-constant last piece.
// These bounds cover all t, so they are upper bounds over t >= 0.
double profile_max_abs(const TimeProfile& p);

// Constant for all t: Constant, or degenerate (ramp/step with from == to, sine with amplitude 0 or
// frequency 0, table with all values equal). Lets callers skip per-step re-evaluation.
bool profile_is_constant(const TimeProfile& p);

TimeProfile constant_profile(double value);

}  // namespace vcsim
