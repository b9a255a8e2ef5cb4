// The plane of a half-space cell, for the contact normal against a flat support.
//
// Why: when one side of a contact is a plane, the resultant of a Winkler foundation (pressure k L along the local
// surface normal, L the depth measured along the plane's normal) is exactly along the plane's normal, whichever
// side is compliant: k ∫ L ν dS = k (∫ L dA) n_plane − k ∫ ∇(L²/2) dA, and the last integral vanishes because
// L = 0 on the patch's rim. The principal axis of the region's inertia tensor does not have this property for
// wedge-shaped regions (a box edge on a plane, thesis T6): it tilts toward the bisector of the edge's faces.
// docs/contact-models.md, "Contact normal".
#pragma once
#include "geometry/interference.h"

namespace vcsim::geo {

// The outward unit normal of a cell that is one half-space (or the complement of one), posed at `pose`; zero for
// any other cell.
Vec3 half_space_normal(const Cell& cell, const Pose& pose);

// The normal of the pair's plane side, from body j toward body i: cell j's outward normal when j is a half-space,
// else minus cell i's when i is; zero otherwise.
Vec3 support_plane_normal(const Cell& cell_i, const Pose& pose_i, const Cell& cell_j, const Pose& pose_j);

}  // namespace vcsim::geo
