// Interference moments by column integration: the engine behind geo::interference().
//
// The overlap of two cells is swept by columns along the z axis of a query frame Q (chosen along
// the contact normal, with its origin on the overlap, so every number stays small). Along each
// column the intersection with every primitive is an exact interval (closed form for quadrics and
// planes; bracketed root finding on the signed distance for the torus and meshes), so the integrals
// along the column (∫ds, ∫s ds, ∫s² ds) are exact. Only the transverse plane is discretised, on a
// lattice of spacing s anchored at Q's origin:
//  - a 3-D octree on the 1-Lipschitz signed distance phi = max(phi_i, phi_j) culls the lattice to the
//    footprint of the overlap (rigorous: a node is dropped only if phi(centre) >= half-diagonal);
//  - each lattice square is split into two triangles; where the rim of the contact patch crosses a
//    triangle edge, the crossing is located by root finding on the column set (so the clipped
//    polygon follows the true rim, including vertical walls such as box faces);
//  - the column quantities are interpolated linearly over the clipped polygons and integrated exactly.
// The result is continuous and piecewise smooth in the poses (no staircase), and the cost grows
// with the patch area over s² plus the rim length over s. The torus's intervals are closed form too
// (a quartic whose critical points come from a cubic); meshes are sphere-traced. See docs/geometry.md.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "geometry/csg.h"
#include "geometry/pose.h"

namespace vcsim::geo {

struct MeshLevelSet;  // geometry/mesh.h

// One primitive of a cell: the region is the primitive, or its complement.
struct CellPrimitive {
  Primitive primitive;  // primitive.pose is in the body frame
  bool complement = false;
  std::shared_ptr<const MeshLevelSet> mesh;  // set when primitive.kind == Mesh
};
using CellPrimitives = std::vector<CellPrimitive>;

// Raw moments of a region about a frame's origin: M0 = ∫dV, M1 = ∫x dV, M2 = ∫x xᵀ dV.
// With columns along z of length L(u, v) (the total length of the column set), the hypervolume moments of
// Petersen's hyperelastic foundation (exponent n): H0 = ∫ L^n dA and H1 = ∫ (u, v, m) L^n dA, m the mean z of
// the column set. Filled by the column engine only (column_moments with hyper_n != 1); 0 elsewhere.
struct RawMoments {
  double m0 = 0;
  Vec3 m1 = Vec3::Zero();
  Mat3 m2 = Mat3::Zero();
  double h0 = 0;
  Vec3 h1 = Vec3::Zero();
  // The first cell's area vector ∫ n dA over its boundary inside the second (m², the moments' axes): V's gradient
  // under the first cell's translation, pointing from it into the other. Only the ruled faces give it; zero elsewhere.
  Vec3 area = Vec3::Zero();
  RawMoments& operator+=(const RawMoments& o) {
    m0 += o.m0;
    m1 += o.m1;
    m2 += o.m2;
    h0 += o.h0;
    h1 += o.h1;
    area += o.area;
    return *this;
  }
};

// Adds the moments of the signed tetrahedron (0, a, b, c) to m: the divergence theorem's term for one triangle of a
// closed surface seen from the origin (geometry/mesh_clip.cpp, geometry/mesh_intersection.cpp).
inline void add_tetrahedron(const Vec3& a, const Vec3& b, const Vec3& c, RawMoments& m) {
  const double V = a.dot(b.cross(c)) / 6;
  const Vec3 s = a + b + c;
  m.m0 += V;
  m.m1 += V / 4 * s;
  m.m2 += V / 20 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
}

// Centroid (in the moments' frame) and inertia tensor about the centroid, unit density (eq. A.25:
// J = M0 (tr C I − C) with C the central second-moment matrix per unit volume).
void centroid_and_inertia(const RawMoments& m, Vec3& centroid, Mat3& inertia);

// Signed distance (1-Lipschitz exact or conservative) of a cell posed in the world at world point x.
double cell_distance(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world);

// Central-difference gradient (step h) of the cell's signed distance at world point x: points out of the cell.
Vec3 cell_gradient(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world, double h);

// Conservative axis-aligned bounds of a cell in a frame (infinite where unbounded).
void cell_bounds_in_frame(const CellPrimitives& cell, const Pose& body_pose, const Pose& frame, Vec3& lo, Vec3& hi);

// The lattices' budgets (candidate squares). An octree-culled lattice this large means phi hugs zero over a wide area
// without a measurable overlap (cells that share a face). A grown lattice holds only the patch's squares, so its
// budget is larger (a thin ring at a tight tolerance needs ~1e6, docs/geometry.md). A pass over budget reports
// too_large and computes nothing.
constexpr double kMaxLatticeSquares = 1 << 20;
constexpr double kMaxGrownSquares = 1 << 22;

struct ColumnResult {
  bool bounded = true;      // false when the overlap box is unbounded (two infinite cells)
  RawMoments moments;       // in the query frame
  double area = 0;          // projected area of the patch (∫ [column non-empty] dA)
  double rim = 0;           // length of the patch's outline in projection (the clipped polygons' rim edges)
  long columns = 0;         // columns evaluated (cost diagnostics)
  long candidates = 0;      // lattice squares the octree could not rule out
  bool too_large = false;   // the lattice would exceed its budget (kMaxLatticeSquares, kMaxGrownSquares)
  double u_min = 0, u_max = 0, v_min = 0, v_max = 0;  // bounds of the non-empty lattice columns
  // (u, v) of every non-empty lattice column, then the seeds of lobes the lattice missed (columns found non-empty by
  // the octree pass's search below its spacing; a grown pass's seeds it could not resolve), for the next pass.
  std::vector<std::array<double, 2>> inside;
};

// Moments of cell_i ∩ cell_j in `frame` (columns along the frame's z axis) with lattice spacing s.
// clip (optional, {u_min, u_max, v_min, v_max} in the frame): the transverse region known to hold
// the whole patch (from a coarser pass), which saves the octree from thin-lens rings.
// seeds (optional): non-empty columns (u, v) found by a coarser pass. The lattice is then grown from
// them square by square (flood fill over squares with a non-empty corner, plus one ring) instead of
// culled by the octree, and stored in sparse blocks, so the cost and memory are the patch's squares,
// not its bounding box's (a thin ring). The fill is bounded by the overlap box only; clip is then
// ignored. Every connected part of the patch must hold a seed. Seeds along a long straight strip (a cylinder lying
// along another) get a lattice of rectangles, s across the strip and k s along it, k its length over its measured
// width; the moments come back in the frame exactly, and `inside` then also holds the columns that measured it
// (docs/geometry.md, "Known column engine defects").
// hyper_n: when != 1, also accumulates the hypervolume moments h0, h1 with exponent hyper_n (> 0): over each
// clipped lattice triangle, L interpolated linearly like the other column quantities and ∫ L^n dA integrated
// exactly for that linear L (so the rim, where L -> 0 and L^n has an infinite slope for n < 1, costs no accuracy).
ColumnResult column_moments(const CellPrimitives& cell_i, const Pose& pose_i, const CellPrimitives& cell_j,
                            const Pose& pose_j, const Pose& frame, double spacing, const double* clip = nullptr,
                            const std::vector<std::array<double, 2>>* seeds = nullptr, double hyper_n = 1);

// Per-lattice-point fill data, for writing a voxelized view (dump_interference_vdb).
struct ColumnSample {
  double u, v;    // lattice point in the query frame
  double lo, hi;  // hull of the column set along z (empty columns are not reported)
  double length;  // total length of the column set
};
std::vector<ColumnSample> column_samples(const CellPrimitives& cell_i, const Pose& pose_i,
                                         const CellPrimitives& cell_j, const Pose& pose_j, const Pose& frame,
                                         double spacing);

}  // namespace vcsim::geo
