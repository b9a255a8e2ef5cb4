// Sandia's doughnut on a cone (scenarios/validation/sandia_doughnut_cone.yaml): torus R = 0.05 m, tube r = 0.015 m
// around z, on a fixed cone of half-angle 10° with its apex at z = 0.3 m. Both are bodies of revolution about one
// axis, so their intersection is too: its meridional section is the tube disk cut by the cone line at distance
// r − d from the disk's centre, and Pappus gives the volume (derivation in tests/validation_sandia_doughnut_test.cpp).
// Shared by the doughnut tests and bench_interference_doughnut (closed_forms/README.md).
#pragma once
#include <cmath>

namespace doughnut {

constexpr double kPi = 3.14159265358979323846;
constexpr double kR = 0.05, kr = 0.015, kHalfAngle = 10 * kPi / 180, kApex = 0.3;

// Interference volume when the tube disk reaches d past the cone line: the circular segment (area r² α −
// (r − d) r sin α, cos α = (r − d)/r) revolved about the axis at its centroid's radius.
inline double ring_volume(double d) {
  const double alpha = std::acos((kr - d) / kr);
  const double area = kr * kr * alpha - (kr - d) * kr * std::sin(alpha);
  const double centroid = 4 * kr * std::pow(std::sin(alpha), 3) / (3 * (2 * alpha - std::sin(2 * alpha)));
  return 2 * kPi * (kR - std::cos(kHalfAngle) * centroid) * area;
}

// Height of the torus centre at that depth.
inline double centre_height(double d) {
  return kApex - (kR * std::cos(kHalfAngle) - kr + d) / std::sin(kHalfAngle);
}

}  // namespace doughnut
