// Closed-form interference moments for the cell pairs that have them: the exact fast paths of the
// interference query (geometry/interference.cpp dispatches to them, and falls back to the column
// engine of geometry/column_integration.h for every other pair). See docs/geometry.md.
//  - two planar cells (boxes, half-spaces, slabs, complemented half-spaces): the intersection is a
//    convex polyhedron, clipped exactly and integrated face by face;
//  - a sphere against planar cells: a spherical cap (thesis case T1) in closed form where one plane
//    alone cuts the sphere inside all the others; otherwise (a ball over a table's edge) the ball is
//    sliced across an axis, each slice (a disc clipped by lines) integrated in closed form, and the
//    slices summed by Gauss–Legendre quadrature between the heights where a slice's shape changes;
//  - a sphere against an infinite cylinder or its complement (inside cells whose planes miss the
//    ball): the same slicing, across the cylinder's axis.
// All coordinates are in a frame local to the overlap (translation only), so they stay small.
#pragma once
#include <optional>
#include <vector>

#include "geometry/column_integration.h"
#include "geometry/disc_slices.h"

namespace vcsim::geo {

// The half-space {x : n·x <= d} (n unit).
struct Plane {
  Vec3 n;
  double d;
};

// The planes of a cell, in the world orientation with `origin` as the coordinate origin, when every
// primitive of the cell is planar (box, half-space, slab, complemented half-space); nothing otherwise.
std::optional<std::vector<Plane>> planar_cell_planes(const CellPrimitives& cell, const Pose& body_pose,
                                                     const Vec3& origin);

// Raw moments (about the origin) of the convex polyhedron box ∩ (every plane): the axis-aligned box
// [lo, hi] bounds the region; the planes carve it. Exact up to rounding.
RawMoments convex_polyhedron_moments(const std::vector<Plane>& planes, const Vec3& lo, const Vec3& hi);

// Raw moments (about the origin) of the ball |x − c| <= R cut by one plane: the part with n·x <= d
// (a spherical cap of height h = R − (n·c − d), or the whole ball, or nothing).
RawMoments sphere_cap_moments(const Vec3& c, double R, const Plane& plane);

// Raw moments (about the origin) of the ball |x − c| <= R clipped by every plane, sliced across the
// unit axis `axis` (best: the normal of the deepest plane, so the slices span only the cap).
// pieces: Gauss–Legendre rules per interval between break points (1: ≤ 7e-7 of V; 2: < 1e-9 at twice the cost);
// rule: their points (geometry/disc_slices.h).
RawMoments sliced_sphere_moments(const Vec3& c, double R, const std::vector<Plane>& planes, const Vec3& axis,
                                 int pieces = 1, const SliceRule& rule = kFineSlices);

// Raw moments (about the origin) of the ball |x − c| <= R clipped by every plane: the cap of the deepest plane when
// it stays inside every other plane (closed form), else the ball sliced across the deepest plane's normal.
RawMoments ball_planes_moments(const Vec3& c, double R, const std::vector<Plane>& planes, int pieces = 1,
                               const SliceRule& rule = kFineSlices);

// Raw moments (about the origin) of the ball |x − c| <= R outside (outside = true: a ball in a groove,
// box ∩ complement of the cylinder) or inside the infinite cylinder of radius rc around the line through
// p along `axis`: slices across the axis, each a disc and a circle in closed form, summed by
// Gauss–Legendre quadrature between the heights where a slice changes shape.
RawMoments sphere_cylinder_moments(const Vec3& c, double R, const Vec3& p, const Vec3& axis, double rc,
                                   bool outside);

// How far inside the plane the cap ball ∩ {cut} lies: d − max over the cap of n·x (>= 0: the plane
// does not touch the cap).
double cap_clearance(const Vec3& c, double R, const Plane& cut, const Plane& other);

}  // namespace vcsim::geo
