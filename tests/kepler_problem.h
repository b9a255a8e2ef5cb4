// The circular Kepler orbit x'' = −x/|x|³, x(0) = (1, 0), v(0) = (0, 1): nonlinear and smooth, with the closed form
// x(t) = (cos t, sin t), v(t) = (−sin t, cos t). State (x, y, vx, vy); positions are the kinematic components.
// Shared by the integrator tests.
#pragma once
#include <cmath>

#include "integrators/explicit_rk.h"

namespace kepler_orbit {

inline vcsim::integ::OdeSystem system() {
  vcsim::integ::OdeSystem s;
  s.derivative = [](double, const vcsim::integ::VecX& x, vcsim::integ::VecX& dx) {
    const double r3 = std::pow(x[0] * x[0] + x[1] * x[1], 1.5);
    dx.resize(4);
    dx << x[2], x[3], -x[0] / r3, -x[1] / r3;
  };
  s.kinematic = {true, true, false, false};
  return s;
}

inline vcsim::integ::VecX exact(double t) {
  vcsim::integ::VecX x(4);
  x << std::cos(t), std::sin(t), -std::sin(t), std::cos(t);
  return x;
}

}  // namespace kepler_orbit
