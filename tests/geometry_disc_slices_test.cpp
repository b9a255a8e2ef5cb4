// A disc clipped by lines (geometry/disc_slices.h): the boundary solved from a captured shape against the polygon clip.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "geometry/disc_slices.h"

using namespace vcsim::geo;

namespace {

Line2 line(double angle, double b) { return {Vec2(std::cos(angle), std::sin(angle)), b}; }

// The largest distance between two boundaries' corresponding piece ends; infinite when their pieces differ in number.
double boundary_gap(const DiscBoundary& a, const DiscBoundary& b) {
  if (a.size() != b.size()) return INFINITY;
  double gap = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].ends_on_circle != b[k].ends_on_circle) return INFINITY;
    gap = std::max({gap, (a[k].p - b[k].p).norm(), (a[k].q - b[k].q).norm()});
  }
  return gap;
}

}  // namespace

TEST_CASE("disc slices: a shape captured at one slice gives the polygon clip's boundary at slices of the same shape",
          "[geometry][disc_slices]") {
  // A torus's meridian slices between two breaks keep one shape, and all but the first take their boundary from it
  // (docs/geometry.md, "One shape per span"). Here: random lines cutting the unit disc, then each line turned by up to
  // 1e-3 rad and moved by up to 1e-3; where the clip keeps the same pieces, the shaped boundary must match it. The
  // clip interpolates its vertices along the polygon's edges and the shape solves them as 2 × 2 systems: the two
  // agree to rounding (measured ≤ 8.0e-15 here, 1 313 slices; the bound allows 1e-12).
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  const double r = 1;
  int compared = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Line2> lines;
    const int n = 2 + trial % 4;
    for (int k = 0; k < n; ++k) lines.push_back(line(M_PI * U(rng), 0.8 * U(rng)));
    DiscShape shape;
    DiscBoundary captured;
    bool whole;
    clipped_disc_boundary(r, lines, &whole, captured, &shape);
    if (!shape.known) continue;
    std::vector<Line2> moved;
    for (const Line2& l : lines) moved.push_back(line(std::atan2(l.g.y(), l.g.x()) + 1e-3 * U(rng), l.b + 1e-3 * U(rng)));
    DiscBoundary clipped, shaped;
    clipped_disc_boundary(r, moved, &whole, clipped);
    const bool fits = shaped_disc_boundary(r, moved, shape, shaped);
    if (boundary_gap(captured, clipped) > 0.1) continue;  // a piece appeared or vanished: a break between the two
    if (!fits) continue;  // a vertex left the disc or a piece turned around within the move: declined, as it must
    ++compared;
    CAPTURE(trial, n);
    CHECK(boundary_gap(shaped, clipped) < 1e-12);
  }
  CHECK(compared > 1000);
}

TEST_CASE("disc slices: a captured shape declines slices where it no longer fits", "[geometry][disc_slices]") {
  const double r = 1;
  // Two lines whose vertex (0.5, 0.5) is inside the disc: the boundary runs from the circle along one line to the
  // vertex, then along the other back to the circle.
  const std::vector<Line2> two{line(0, 0.5), line(M_PI / 2, 0.5)};
  DiscShape shape;
  DiscBoundary pieces;
  bool whole;
  clipped_disc_boundary(r, two, &whole, pieces, &shape);
  REQUIRE(shape.known);
  REQUIRE(pieces.size() == 2);
  DiscBoundary out;
  SECTION("the same lines: the same boundary") {
    REQUIRE(shaped_disc_boundary(r, two, shape, out));
    CHECK(boundary_gap(out, pieces) < 1e-15);
  }
  SECTION("the vertex moved outside the disc (x = y = 0.75: |v| = 1.06)") {
    CHECK_FALSE(shaped_disc_boundary(r, {line(0, 0.75), line(M_PI / 2, 0.75)}, shape, out));
  }
  SECTION("a third line holding the whole disc outside") {
    // Not in the shape (a plane through a torus's axis jumps there without a break: docs/geometry.md).
    std::vector<Line2> three = two;
    three.push_back(line(1.0, -1.5));
    DiscShape shape3;
    clipped_disc_boundary(r, {two[0], two[1], line(1.0, 2.0)}, &whole, pieces, &shape3);
    REQUIRE(shape3.known);
    CHECK_FALSE(shaped_disc_boundary(r, three, shape3, out));
    clipped_disc_boundary(r, three, &whole, out);
    CHECK(out.empty());
    CHECK_FALSE(whole);
  }
  SECTION("another number of lines") {
    CHECK_FALSE(shaped_disc_boundary(r, {two[0]}, shape, out));
  }
  SECTION("a line no longer reaching the disc") {
    CHECK_FALSE(shaped_disc_boundary(r, {line(0, 0.5), line(M_PI / 2, 1.2)}, shape, out));
  }
}
