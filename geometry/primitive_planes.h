// Closed forms for a curved convex primitive clipped by planes (issue 16): a cylinder, cone or frustum at any
// tilt, a capsule, an ellipsoid and a torus against a half-space, a slab, a box face or any planar cell. These
// are the exact fast paths of the interference query for "a body on a floor, a table, a slope or a box face";
// geometry/interference.cpp dispatches to them. Every function takes the primitive already placed in a frame
// local to the overlap (translation only: small numbers), and the planes {x : n·x <= d} of every planar
// primitive of both cells in the same frame. An empty plane list gives the whole primitive (mass properties).
// Results are raw moments about that frame's origin (M0 = ∫dV, M1 = ∫x dV, M2 = ∫x xᵀ dV), exact to rounding
// where the region has a closed form and by Gauss–Legendre quadrature between break points (to ~1e-12
// relative) where it is a one-dimensional integral of closed-form slices; `rule` (geometry/disc_slices.h) may trade
// that for speed. See docs/geometry.md.
#pragma once
#include <vector>

#include "geometry/exact_interference.h"

namespace vcsim::geo {

// A frustum (r0 = r1: a cylinder; one radius 0: a cone) with its axis through c along the unit vector `axis`:
// radius r0 at c − (length/2)·axis and r1 at c + (length/2)·axis, clipped by every plane. Sliced across the
// axis: each slice is a disc clipped by lines, integrated in closed form (Green's theorem); the slices are
// summed by Gauss–Legendre between the heights where a line becomes tangent to the disc or a vertex of two
// lines crosses the circle. Handles the cylinder on its side, on its rim edge and on its end face.
RawMoments frustum_planes_moments(const Vec3& c, const Vec3& axis, double r0, double r1, double length,
                                  const std::vector<Plane>& planes, const SliceRule& rule = kFineSlices);

// A capsule (the segment c ± (length/2)·axis swept by a ball of `radius`) clipped by every plane: the cylinder
// between the end planes plus the two half balls, each in closed form or sliced.
RawMoments capsule_planes_moments(const Vec3& c, const Vec3& axis, double radius, double length,
                                  const std::vector<Plane>& planes, const SliceRule& rule = kFineSlices);

// An ellipsoid {c + R diag(radii) u : |u| <= 1} (R = rotation, columns the principal axes) clipped by every
// plane: the affine image of the unit ball clipped by the mapped planes (a spherical cap or a sliced ball),
// moments mapped back exactly.
RawMoments ellipsoid_planes_moments(const Vec3& c, const Mat3& rotation, const Vec3& radii,
                                    const std::vector<Plane>& planes, const SliceRule& rule = kFineSlices);

// A ring torus (major > minor > 0) centred at c with its symmetry axis along the unit vector `axis`, clipped
// by every plane: a one-dimensional integral around the ring of the meridian disc clipped by lines (weight ρ,
// the distance from the axis), summed by Gauss–Legendre between the angles where the clipped disc changes shape (a
// line tangent to the disc, two lines' vertex on the circle or on a third line: zeros of trigonometric polynomials
// of degree 2, found exactly).
RawMoments torus_planes_moments(const Vec3& c, const Vec3& axis, double major, double minor,
                                const std::vector<Plane>& planes, const SliceRule& rule = kFineSlices);

}  // namespace vcsim::geo
