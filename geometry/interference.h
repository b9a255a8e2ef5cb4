// The interference-volume query: the heart of vcsim. For two cells at given poses, the volume V of
// their intersection (undeformed shapes), its centroid, and its inertia tensor (unit density, about
// the centroid) — the three quantities Gonthier's volumetric model is built on (thesis §4.1–4.2).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "geometry/csg.h"
#include "geometry/pose.h"

namespace vcsim::geo {

struct CellImpl;  // normalised, ready-to-query representation (defined in geometry/cells.cpp)
struct MeshLevelSet;  // geometry/mesh.h
struct MeshPairCache;  // geometry/mesh_intersection.h

// One cell: an intersection of primitives and complements of primitives, in the body frame.
struct Cell {
  std::string name;
  std::shared_ptr<const CellImpl> impl;
};

// A body's shape: a set of disjoint cells in the body (centre-of-mass) frame.
struct BodyGeometry {
  std::vector<Cell> cells;
};

// Meshes already loaded, by (path, scale): bodies of the same mesh share one copy, loaded and checked once.
using MeshCache = std::map<std::pair<std::string, double>, std::shared_ptr<const MeshLevelSet>>;

// Normalises a CSG tree to disjoint cells. Throws GeometryError (naming the node's SourceLocation)
// on bad geometry: negative sizes, empty cells, overlapping cells, open meshes, unknown files.
// `meshes`: shared across the bodies of one world (nullptr: shared within this body only).
BodyGeometry make_body_geometry(const CsgNode& root, const std::string& base_dir, MeshCache* meshes = nullptr);

// Re-expresses a geometry in a shifted frame: every primitive pose p becomes offset.inverse() ∘ p.
BodyGeometry transformed(const BodyGeometry& geometry, const Pose& offset);

struct MassProperties {
  double mass = 0;
  Vec3 center_of_mass = Vec3::Zero();  // body frame
  Mat3 inertia = Mat3::Zero();         // about the centre of mass, body axes
};
MassProperties mass_properties(const BodyGeometry& geometry, double density, double tolerance);

struct QueryOptions {
  double tolerance = 1e-3;  // relative accuracy target (see docs/geometry.md)
  double max_voxel = 0;     // optional absolute cap on the finest voxel edge (m); 0: from tolerance
  bool closed_forms = true; // exact fast paths where the pair has a closed form (planar cells, sphere caps)
  // Petersen's hyperelastic foundation: the exponent n of the hypervolume ∫ L^n dA (L: the column's immersed
  // length along the column axis). 1: hypervolume = volume exactly. != 1: always the column engine (the closed
  // forms know only n = 1). See docs/geometry.md, docs/contact-models.md.
  double hyper_exponent = 1;
  // Coherence between the queries of one pair (PairCoherence below): the contact models keep one per cell pair when
  // true. The answers have the same bits either way; false (or VCSIM_WARM_START=0 in the environment of a run,
  // contact/make_contact.cpp) makes every query cold, for comparisons.
  bool coherence = true;
};

// What one pair of cells keeps between queries to start the next from (issue 17, "coherence"): today the leaf pairs
// of two meshes (geometry/mesh_intersection.h's MeshPairCache); other pairs ignore it. Owned by the caller, one per
// cell pair. A query given it read-only uses it when it holds at the query's poses, else answers cold; a query
// given it to refresh rebuilds it when it does not hold. Either way the answer has the bits of a cold query.
class PairCoherence {
 public:
  PairCoherence();
  ~PairCoherence();
  PairCoherence(const PairCoherence& other);
  PairCoherence& operator=(const PairCoherence& other);
  PairCoherence(PairCoherence&&) noexcept;
  PairCoherence& operator=(PairCoherence&&) noexcept;
  MeshPairCache& mesh_pair() { return *mesh_pair_; }
  const MeshPairCache& mesh_pair() const { return *mesh_pair_; }

 private:
  std::unique_ptr<MeshPairCache> mesh_pair_;
};

struct Interference {
  bool overlap = false;
  double volume = 0;                   // m^3
  Vec3 centroid = Vec3::Zero();        // world frame
  Mat3 inertia = Mat3::Zero();         // m^5, unit density, about the centroid, world axes
  Vec3 normal_estimate = Vec3::Zero(); // unit, geometric guess pointing from body j toward body i
  // Cell i's area vector ∫ n dA over its boundary inside cell j (m², world; n its outward normal): the gradient of V
  // under i's translation. Where a path gives it (the ruled faces' pairs, with or without a hole, and their tube and
  // ball modes), normal_estimate is minus its direction; zero on the other paths.
  Vec3 area = Vec3::Zero();
  // Unit normal of a half-space side, from j toward i (zero if neither cell is a half-space): the contact normal
  // against a flat support (geometry/support_plane.h).
  Vec3 plane_normal = Vec3::Zero();
  // Hypervolume ∫ L^n dA (m^(2+n), n = QueryOptions::hyper_exponent) over the patch, columns along
  // normal_estimate, and its L^n-weighted centroid (world), Petersen's point of action. n = 1: the volume and
  // the volume centroid, bit for bit.
  double hypervolume = 0;
  Vec3 hyper_centroid = Vec3::Zero();
  // Diagnostics (added): lattice spacing of the final pass and columns evaluated over both passes.
  double spacing = 0;
  long columns = 0;
  // The column engine's lattice for the tolerance would not fit its budget (2^22 squares): a coarser one served, so
  // the tolerance is not met (a tolerance of 1e-7 on a patch a few cm across).
  bool coarsened = false;
  // Where the interference falls apart into disjoint pieces (a peg tilted in a hole touching its wall at the top and at
  // the bottom), each piece as an interference of its own, largest first; they add up to this one. Empty for one
  // piece, and on every path but the ruled faces' with a hole (may_have_patches).
  std::vector<Interference> patches;
};

// True when the pair's queries may report patches: cells bounded by planes, cylinders and cones, one of them with a
// hole (or each with one: the pieces where one hole's plug is not reached), against such a cell or a ball
// (geometry/ruled_faces.h). Not a lone sphere against a cell whose one hole is an
// infinite cylinder (a grooved block): that pair is a closed form's (the thesis's ball in a groove), one contact.
bool may_have_patches(const Cell& cell_i, const Cell& cell_j);

// World-space bounds of a cell at a pose (for the broad phase); infinite primitives give infinite bounds.
struct Aabb {
  Vec3 min = Vec3::Constant(1e300), max = Vec3::Constant(-1e300);
  bool empty() const { return (min.array() > max.array()).any(); }
};
Aabb world_bounds(const Cell& cell, const Pose& body_pose);

// warm: a pair's coherence, read only (nullptr: none); refresh: the same pair's, rebuilt where it no longer holds
// (may be warm itself). See PairCoherence.
Interference interference(const Cell& cell_i, const Pose& pose_i, const Cell& cell_j, const Pose& pose_j,
                          const QueryOptions& options = {}, const PairCoherence* warm = nullptr,
                          PairCoherence* refresh = nullptr);

// Interference queries that reached the narrow phase since the process started (for benchmarks).
long interference_query_count();
// Of those, the ones the column engine answered on a coarsened lattice (Interference::coarsened).
long coarsened_query_count();

// Writes the voxelized interference region of a pair (a FloatGrid fog volume of fill fractions,
// world coordinates, voxel = the query's lattice spacing) to a .vdb file. Returns false (and writes
// nothing) when the cells do not overlap.
bool dump_interference_vdb(const Cell& cell_i, const Pose& pose_i, const Cell& cell_j, const Pose& pose_j,
                           const QueryOptions& options, const std::string& path);

}  // namespace vcsim::geo
