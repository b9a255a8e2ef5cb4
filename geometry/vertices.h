// Vertices of a body's polyhedral cells, for the per-vertex point contact model (contact/point_vertices_contact.h).
// Force-free: positions only. Which primitives have vertices: box (its 8 corners) and mesh (its vertices); every
// other primitive (sphere, cylinder, cone, torus, ellipsoid, capsule, half-space, slab, infinite cylinder) has none,
// and the intersections a cell makes (a box minus a sphere) create no new vertices. See docs/contact-models.md.
#pragma once
#include <vector>

#include "geometry/interference.h"

namespace vcsim::geo {

struct BodyVertex {
  Vec3 position = Vec3::Zero();  // in the geometry's (body) frame
  int cell = 0;                  // index of the cell it came from
};

// The vertices of every box and mesh primitive (not complemented) of every cell that lie on the cell's surface:
// a vertex is kept when the cell's other primitives do not cut it away (their signed distance ≤ `slack`, m).
// Exact duplicates (a corner shared by two touching boxes of a union) are kept once. Fixed order: cells, then
// primitives, then the primitive's own vertex order (box corners in binary order of (x, y, z) signs).
std::vector<BodyVertex> body_vertices(const BodyGeometry& geometry, double slack = 1e-9);

// Deepest penetration of a world point into a body: the minimum over the body's cells of the cell's signed
// distance (geometry/column_integration.h, cell_distance), with the index of that cell (-1 for a body without
// cells, distance +inf).
struct PointDepth {
  double distance = 0;  // signed; < 0 inside
  int cell = -1;
};
PointDepth point_depth(const BodyGeometry& geometry, const Pose& body_pose, const Vec3& x_world);

// Outward unit normal of a cell's surface at a world point (the normalised central-difference gradient of its
// signed distance, step h); +z when the gradient vanishes.
Vec3 cell_normal(const Cell& cell, const Pose& body_pose, const Vec3& x_world, double h);

}  // namespace vcsim::geo
