// The column engine's lattices (geometry/column_internal.h): culled by the octree on the pair's signed distance, or
// grown square by square from seed columns, stored sparsely in blocks; and the evaluation of their corners.
#include <algorithm>
#include <cmath>

#include "geometry/column_internal.h"

namespace vcsim::geo::column {

using lines::cell_sdf;

namespace {
// The octree lattice's limit (candidate squares): a lattice this large means phi hugs zero over a wide area
// without a measurable overlap (cells that share a face). The grown lattice's limit is larger: it holds only the
// patch's squares, and a thin ring at a tight tolerance needs ~1e6 (docs/geometry.md).
constexpr double kMaxSquares = 1 << 20;
constexpr double kMaxGrown = 1 << 22;

}  // namespace

// Octree culling on phi = max(phi_i, phi_j) down to footprints of 2^k lattice squares.
Lattice build_lattice(Pair& pr, const Vec3& lo, const Vec3& hi, double s) {
  Lattice lat;
  lat.s = s;
  pr.s0 = lo.z(), pr.s1 = hi.z();
  const double ext = std::max(lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff());
  const int L = std::max(1, static_cast<int>(std::ceil(std::log2(std::max(2 * ext / s, 2.0)))));
  const int kfoot = std::min(L - 1, 3);
  const double F = s * std::ldexp(1.0, kfoot);
  struct Node {
    Vec3 c;
  };
  std::vector<Node> nodes{{Vec3::Zero()}}, next;
  double half = 0.5 * s * std::ldexp(1.0, L);
  auto phi = [&](const Vec3& x) {
    return std::max(cell_sdf(pr.prims, 0, pr.n_i, x), cell_sdf(pr.prims, pr.n_i, pr.prims.size(), x));
  };
  for (;;) {
    next.clear();
    const double halfdiag = half * std::sqrt(3.0);
    for (const Node& n : nodes) {
      if ((n.c.array() + half < lo.array()).any() || (n.c.array() - half > hi.array()).any()) continue;
      if (phi(n.c) >= halfdiag) continue;
      next.push_back(n);
    }
    nodes.swap(next);
    if (nodes.empty() || 2 * half <= F * 1.000001) break;
    next.clear();
    const double q = 0.5 * half;
    for (const Node& n : nodes)
      for (int k = 0; k < 8; ++k) next.push_back({n.c + Vec3((k & 1) ? q : -q, (k & 2) ? q : -q, (k & 4) ? q : -q)});
    nodes.swap(next);
    half = q;
  }
  if (nodes.empty()) return lat;
  const long per = 1L << kfoot;
  std::vector<std::pair<long, long>> feet;
  for (const Node& n : nodes)
    feet.emplace_back(std::lround(n.c.x() / F - 0.5), std::lround(n.c.y() / F - 0.5));
  std::sort(feet.begin(), feet.end());
  feet.erase(std::unique(feet.begin(), feet.end()), feet.end());
  if (static_cast<double>(feet.size()) * per * per > kMaxSquares) {
    lat.too_large = true;
    return lat;
  }
  for (const auto& f : feet)
    for (long dj = 0; dj < per; ++dj)
      for (long di = 0; di < per; ++di) {
        const long i = f.first * per + di, j = f.second * per + dj;
        lat.get(i >> kShift, j >> kShift).square[local(i, j)] = 1;
        for (int c = 0; c < 4; ++c) {
          const long ci = i + (c & 1), cj = j + (c >> 1);
          lat.get(ci >> kShift, cj >> kShift).needed[local(ci, cj)] = 1;
        }
      }
  lat.candidates = static_cast<long>(feet.size()) * per * per;
  lat.sort();
  return lat;
}

// The lattice grown from the seed columns: a square is kept when one of its corners is non-empty
// (or it holds a seed), and its four neighbours are then visited. Corners are evaluated as the fill
// reaches them; the kept set does not depend on the visiting order. The fill is bounded only by the
// overlap box (lo, hi), not by the coarse pass's extent: a patch can reach far beyond every coarse
// non-empty column (a sliver or the sharp tip of a corner's triangle between coarse columns), and a
// clip there would cut it off. The blocks make the cost and memory the patch's squares, not its bounding box's.
Lattice grown_lattice(Pair& pr, const Vec3& lo, const Vec3& hi, double s,
                      const std::vector<std::array<double, 2>>& seeds, long& columns) {
  Lattice lat;
  lat.s = s;
  pr.s0 = lo.z(), pr.s1 = hi.z();
  auto index = [s](double x, bool up) {
    const double t = std::clamp(x / s, -1e15, 1e15);
    return static_cast<long>(up ? std::ceil(t) : std::floor(t));
  };
  // Squares [gi0, gi1) x [gj0, gj1) cover the overlap box.
  const long gi0 = index(lo.x(), false), gi1 = std::max(index(hi.x(), true), gi0 + 1);
  const long gj0 = index(lo.y(), false), gj1 = std::max(index(hi.y(), true), gj0 + 1);
  if (static_cast<double>(gi1 - gi0) > 1e9 || static_cast<double>(gj1 - gj0) > 1e9) {  // block keys are 32-bit
    lat.too_large = true;
    return lat;
  }
  std::vector<std::pair<long, long>> stack;  // absolute square indices
  for (const auto& sd : seeds) {
    const long i = index(sd[0], false), j = index(sd[1], false);
    if (i < gi0 || j < gj0 || i >= gi1 || j >= gj1) continue;
    stack.emplace_back(i, j);
    lat.get(i >> kShift, j >> kShift).square[local(i, j)] = 1;  // kept even if its corners all miss a thin patch
  }
  if (stack.empty()) return lat;
  auto corner = [&](long i, long j) -> const FieldVertex& {
    Block& b = lat.get(i >> kShift, j >> kShift);
    const int k = local(i, j);
    FieldVertex& fv = b.corner[k];
    if (!b.needed[k]) {
      b.needed[k] = 1;
      fv.u = i * s, fv.v = j * s;
      fv.c = eval_column(pr, fv.u, fv.v);
      ++columns;
    }
    return fv;
  };
  while (!stack.empty()) {
    const auto [i, j] = stack.back();
    stack.pop_back();
    Block& b = lat.get(i >> kShift, j >> kShift);  // (blocks never move: the map holds pointers)
    const int k = local(i, j);
    if (b.visited[k]) continue;
    b.visited[k] = 1;
    bool any = false;
    for (int c = 0; c < 4; ++c) any |= corner(i + (c & 1), j + (c >> 1)).c.in;
    if (!any && !b.square[k]) continue;
    b.square[k] = 1;
    if (++lat.candidates > kMaxGrown) {
      lat.too_large = true;
      return lat;
    }
    if (!any) continue;
    if (i > gi0) stack.emplace_back(i - 1, j);
    if (i + 1 < gi1) stack.emplace_back(i + 1, j);
    if (j > gj0) stack.emplace_back(i, j - 1);
    if (j + 1 < gj1) stack.emplace_back(i, j + 1);
  }
  lat.sort();
  return lat;
}

// Evaluates every needed corner, block by block (each block writes only its own corners).
void evaluate_corners(const Pair& pr, Lattice& lat, std::vector<long>& block_columns) {
  block_columns.assign(lat.blocks.size(), 0);
  for_rows(static_cast<long>(lat.blocks.size()), lat.candidates, [&](long kb) {
    Block& b = *lat.blocks[kb];
    for (int k = 0; k < kB * kB; ++k) {
      if (!b.needed[k]) continue;
      FieldVertex& fv = b.corner[k];
      fv.u = (b.bi * kB + (k & kMask)) * lat.s, fv.v = (b.bj * kB + (k >> kShift)) * lat.s;
      fv.c = eval_column(pr, fv.u, fv.v);
      ++block_columns[kb];
    }
  });
}

}  // namespace vcsim::geo::column
