// The column engine's axis where the normal estimate folds a curved face (docs/geometry.md, "Known column engine
// defects"): a primitive's own axis that every curved face of the overlap crosses transversally.
#pragma once
#include <array>
#include <optional>
#include <vector>

#include "geometry/column_integration.h"

namespace vcsim::geo {

// The overlap of cells a and b is sampled along columns (u, v) of `frame` (found non-empty by a coarse pass along the
// frame's z, the normal estimate): the ends of each column's set lie on the cells' faces. An axis's margin is the
// least |n·axis| over the sampled normals of each curved face, negative where a face's normals fall on both sides of
// perpendicular (a silhouette inside the overlap: there the chord grows like √distance and the lattice's error falls
// like s^1.5, which the Richardson step does not remove; a face nearly parallel to the columns is almost as bad).
// When z's margin is below ~6°, returns the axis (world, oriented along the frame's z) of a cylinder, cone, capsule or
// torus of either cell with the widest margin, if that is at least ~3° and twice z's. Otherwise nullopt: keep z
// (also when a mesh is in either cell). Planar faces (and cylinders' and cones' caps) have one normal: not counted.
std::optional<Vec3> transversal_axis(const CellPrimitives& a, const Pose& pa, const CellPrimitives& b, const Pose& pb,
                                     const Pose& frame, const std::vector<std::array<double, 2>>& columns,
                                     double spacing);

}  // namespace vcsim::geo
