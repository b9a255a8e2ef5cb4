// Internal to the column engine (geometry/column_integration.h): what its three stages share.
//  - geometry/column_triangles.cpp: a column's set (eval_column) and the integration of one lattice triangle, clipped
//    along the rim and split along kinks (integrate_tri);
//  - geometry/column_lattice.cpp: the lattice of one pass, culled by the octree (build_lattice, which also looks
//    for lobes the lattice's columns missed) or grown from seed columns (grown_lattice), and its corners' evaluation;
//  - geometry/column_integration.cpp: the public entry points (column_moments, column_samples).
#pragma once
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "geometry/column_integration.h"
#include "geometry/line_sets.h"

namespace vcsim::geo::column {

using lines::Placed;

struct Pair {
  std::vector<Placed> prims;
  size_t n_i = 0;      // prims[0, n_i) belong to cell i
  bool convex = true;  // no complement, no torus, no mesh: one interval per column, signed gap defined
  // Non-convex pairs: what each cell's own chord ends on (ColumnValue::graze, chords). kOneFace: a single primitive
  // with one smooth face (ball, ellipsoid, capsule, torus); kFaces: a cylinder or cone, whose faces line_span names
  // (its curved side, its flat ends); kMany otherwise. A chord with both ends on one smooth face shrinks like √distance at
  // its silhouette.
  enum CellFaces { kMany, kOneFace, kFaces };
  CellFaces faces[2] = {kMany, kMany};
  double s0 = 0, s1 = 0;
  double reach[2][2] = {{0, 0}, {0, 0}};  // each cell's extent along the columns (its chords are not clipped)
};

// What a column contributes: its set's total length G, and mean s and s² over the set
// (m = ∫s/G, q = ∫s²/G). For convex pairs an empty column keeps the signed gap G < 0, which is
// continuous across the rim (quadrics: the "inverted chord"), to locate the rim by false position.
struct ColumnValue {
  bool in = false;
  int sig = 0;  // which primitive faces bound the column (convex pairs): G is smooth where sig is constant
  double G = 0, m = 0, q = 0;
  double lo = 0, hi = 0;  // hull of the set
  // Both ends of the set on one face of one cell (a single interval of that cell's own chord): near the patch's rim
  // that is a silhouette, where G falls to 0 like √distance, not linearly (integrate_triangle).
  bool graze = false;
  bool rim = false;  // a rim cut (find_cut): the innermost column found next to the patch's outline
  // Non-convex pairs of two single-primitive cells (Pair::faces) and a one-interval set: each cell's own interval
  // around it, both ends on one curved face, as its midpoint and half-length². Near a silhouette those two are smooth
  // where the ends (mid ± √h2) are not, so integrate_triangle interpolates them instead of G.
  bool chords = false;
  double mid[2] = {0, 0}, h2[2] = {0, 0};
  int which[2] = {0, 0};  // the interval's index, the cell's interval count and the face: a change is a jump
};

struct FieldVertex {
  double u, v;
  ColumnValue c;
};

struct Accum {
  double g = 0, gu = 0, gv = 0, gm = 0, guu = 0, gvv = 0, guv = 0, gum = 0, gvm = 0, gq = 0, area = 0;
  double rim = 0;  // length of the clipped polygons' rim edges (the patch outline)
  double stretch = 1;  // a stretched lattice's u scale (column_moments, a long straight strip): rim lengths in Q
  double hyper_n = 1;                   // hypervolume exponent; 1: not accumulated
  double h = 0, hu = 0, hv = 0, hm = 0;  // ∫ G^n {1, u, v, m} dA
  // Rim cuts found in this lattice row, keyed by (inside u, v, outside u, v): the edges of a row are
  // shared by two triangles (diagonals, verticals), so each cut is searched for once.
  struct Cut {
    std::array<double, 4> key;
    FieldVertex at;
    bool hidden;
    int outer_class;  // class of the closest empty column evaluated beyond the cut
  };
  std::vector<Cut> cuts;
};

// The column at (u, v) of the query frame.
ColumnValue eval_column(const Pair& pr, double u, double v);

// The rim crossing on the segment from a (non-empty) to b (empty), to 1e-6 of the segment: the innermost bracketing
// column. outer (optional): the closest empty column evaluated.
FieldVertex find_cut(const Pair& pr, const FieldVertex& a, const FieldVertex& b, long& columns,
                     FieldVertex* outer = nullptr);

// Integrates a lattice triangle (corners a, b, c, evaluated) into acc; columns counts the columns it evaluates.
void integrate_tri(const Pair& pr, const FieldVertex& a, const FieldVertex& b, const FieldVertex& c, int depth,
                   Accum& acc, long& columns);

// The two cells' primitives placed in the query frame.
Pair make_pair(const CellPrimitives& cell_i, const Pose& pose_i, const CellPrimitives& cell_j, const Pose& pose_j,
               const Pose& frame);

// The lattice of one query, stored sparsely in blocks of kB x kB squares: a thin ring's bounding box
// can hold 1e8 squares of which the ring touches 1e5. Block (bi, bj) holds the squares (i, j) with
// i >> kShift == bi, j >> kShift == bj, and their lower-left corners; a square's right and top corners
// belong to the neighbouring blocks. Corner (i, j) sits at (i s, j s) whichever block holds it.
constexpr int kShift = 3, kB = 1 << kShift, kMask = kB - 1;
struct Block {
  long bi = 0, bj = 0;
  std::array<char, kB * kB> square{}, visited{}, needed{};
  std::array<FieldVertex, kB * kB> corner{};
};

struct Lattice {
  double s = 0;
  std::vector<std::unique_ptr<Block>> blocks;
  std::unordered_map<uint64_t, Block*> index;
  long candidates = 0;  // squares kept
  bool too_large = false;
  std::vector<Vec3> leaves;  // octree lattice: the octree's leaf cubes (centres, half side leaf_half), kept by the cull
  double leaf_half = 0;
  // Grown lattice: seeds (u, v) with no non-empty corner within a square around them, the patch there being
  // thinner than this lattice resolves; reported as non-empty columns again, so a finer pass grows from them.
  std::vector<std::array<double, 2>> orphans;
  static uint64_t key(long bi, long bj) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(bi)) << 32) | static_cast<uint32_t>(bj);
  }
  const Block* find(long bi, long bj) const {
    const auto it = index.find(key(bi, bj));
    return it == index.end() ? nullptr : it->second;
  }
  Block* last = nullptr;  // the last block get() returned: the flood fill asks for the same one ~5 times a square
  Block& get(long bi, long bj) {
    if (last && last->bi == bi && last->bj == bj) return *last;
    Block*& b = index[key(bi, bj)];
    if (!b) {
      blocks.push_back(std::make_unique<Block>());
      b = blocks.back().get();
      b->bi = bi, b->bj = bj;
    }
    last = b;
    return *b;
  }
  // Row-major block order: a fixed summation order, whatever order the blocks were made in.
  void sort() {
    std::sort(blocks.begin(), blocks.end(),
              [](const auto& a, const auto& b) { return a->bj != b->bj ? a->bj < b->bj : a->bi < b->bi; });
  }
};
inline int local(long i, long j) { return static_cast<int>((j & kMask) * kB + (i & kMask)); }

// Octree culling on phi = max(phi_i, phi_j) down to footprints of 2^k lattice squares (lo, hi: the overlap box).
Lattice build_lattice(Pair& pr, const Vec3& lo, const Vec3& hi, double s);

// The lattice grown from the seed columns (flood fill over squares with a non-empty corner).
Lattice grown_lattice(Pair& pr, const Vec3& lo, const Vec3& hi, double s,
                      const std::vector<std::array<double, 2>>& seeds, long& columns);

template <class Body>
void for_rows(long rows, long work, const Body& body) {
  // Results never depend on the partitioning (each row writes its own slot): parallel only when
  // there is enough work to pay for the task overhead. work: candidate squares, ~0.1-0.2 µs each.
  if (work < 1000) {
    for (long r = 0; r < rows; ++r) body(r);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<long>(0, rows, 1), [&](const tbb::blocked_range<long>& rg) {
    for (long r = rg.begin(); r != rg.end(); ++r) body(r);
  });
}

// Lobes the octree lattice's columns missed: the columns (u, v) through points inside the overlap (phi < 0) found by
// refining the octree's leaf cubes below the lattice spacing, wherever no non-empty corner lies within 1.5 squares
// of a cube's footprint. Call after evaluate_corners; columns counts the columns evaluated (one per point found).
std::vector<std::array<double, 2>> missed_lobes(const Pair& pr, const Lattice& lat, long& columns);

// Evaluates every needed corner, block by block (each block writes only its own corners).
void evaluate_corners(const Pair& pr, Lattice& lat, std::vector<long>& block_columns);

}  // namespace vcsim::geo::column
