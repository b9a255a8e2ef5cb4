// A ring torus against any cell, by sweeping the torus's meridian discs (the Sandia doughnut on its cone, a ring
// on a peg, a torus on a ball or in a box corner, two chain links). No closed form exists for these pairs; the column engine pays
// for the thin annular contact band with a lattice fine enough to resolve its width (0.5–5 s per query).
//
// The torus is the disc of radius r at distance R from the axis, revolved: dV = ρ dA dφ, ρ the distance from the
// axis. For each ring angle φ the meridian plane holds one disc; it is cut into chords along the other cell's
// outward gradient q (transverse to its surface), and each chord meets the other cell in exact intervals
// (geometry/line_sets.h: quadrics closed form, a torus a closed-form quartic, meshes sphere-traced). Along a chord
// ρ, x and x xᵀ are polynomials, integrated exactly. What is left is smooth in the chord offset a and in φ:
//  - a: the chords that meet the other cell form runs whose ends are located by bisection; each run is integrated
//    by Gauss–Legendre under a = m − h cos θ (the ends, where a chord's length vanishes like a power, become smooth);
//  - φ: the contact bands are the angles whose deepest disc point (c − r q) lies inside the other cell; their ends
//    are located by bisection on that depth, each band integrated the same way; a band that closes around the
//    whole ring by the periodic trapezoid rule (spectrally accurate).
// The result is continuous in the poses (no lattice) and its error falls geometrically with the node counts, which
// the tolerance sets (docs/geometry.md, "The torus sweep").
#pragma once
#include <optional>

#include "geometry/column_integration.h"

namespace vcsim::geo {

// Raw moments about `origin` (world orientation) of torus_cell ∩ other when torus_cell holds one ring torus
// (R > r, not complemented); nothing otherwise. tolerance: the relative accuracy target of QueryOptions.
std::optional<RawMoments> torus_sweep_moments(const CellPrimitives& torus_cell, const Pose& torus_pose,
                                              const CellPrimitives& other, const Pose& other_pose,
                                              const Vec3& origin, double tolerance);

}  // namespace vcsim::geo
