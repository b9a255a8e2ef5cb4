// A proof that two cells do not overlap: a plane that separates their convex hulls, found by GJK (Gilbert, Johnson
// and Keerthi 1988) on the cells' support functions. A cell (an intersection of primitives) lies in each of its
// primitives, so the least of their support functions bounds the cell's from above; a direction n with
// h_a(n) + h_b(−n) < 0 then separates the cells whatever the search did to find it, and "apart" is never claimed for
// cells that touch. Complemented primitives are left out (they only remove); a cell without a bounded primitive is
// never proven apart.
//
// Why: two convex curved cells a fraction of a millimetre apart usually have overlapping boxes, and the convex lens then
// fails to find a footprint and hands the pair to the column engine, which refines its lattice until it proves the gap
// empty: 1–46 ms a query for balls, cones, capsules and ellipsoids 0.1–2 mm apart (benchmarks/bench_near_misses.cpp).
// Every approach and every bounce of such bodies passes through those poses.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "geometry/column_integration.h"
#include "geometry/pose.h"

namespace vcsim::geo {

// True when cells a and b (posed in the world) are proven apart by a separating plane; false otherwise (touching,
// overlapping, unbounded, or a gap below ~1e-9 of their size, where the search stops).
bool hulls_apart(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b, const Pose& pose_b);

// A point in both cells' hulls (world), when the same search ends with their hulls overlapping; nothing otherwise. Where
// each cell's support is exact (one convex primitive, a capsule's cap) it lies in both cells: the convex lens starts
// there when its own search misses a small footprint in a large box.
std::optional<Vec3> hulls_common_point(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                       const Pose& pose_b);

// True when a plane separates a convex polytope (the hull of `vertices`) from a convex set given by its support
// function and a point where it is reached (exact, or a point that only steers the search: the proof uses the support
// function alone). The same search; a signed prism of a mesh's triangle that cannot reach a solid is skipped this way
// (geometry/mesh_prisms.cpp).
bool polytope_apart(const std::vector<Vec3>& vertices, const std::function<double(const Vec3&)>& support,
                    const std::function<Vec3(const Vec3&)>& support_point);

}  // namespace vcsim::geo
