// The column engine's lattices (geometry/column_internal.h): culled by the octree on the pair's signed distance, or
// grown square by square from seed columns, stored sparsely in blocks; and the evaluation of their corners.
#include <algorithm>
#include <cmath>

#include "geometry/column_internal.h"

namespace vcsim::geo::column {

using lines::cell_sdf;

namespace {
// Whether a corner (i, j) with i0 <= i <= i1, j0 <= j <= j1 has been evaluated and is non-empty.
bool any_inside(const Lattice& lat, long i0, long i1, long j0, long j1) {
  for (long bj = j0 >> kShift; bj <= (j1 >> kShift); ++bj)
    for (long bi = i0 >> kShift; bi <= (i1 >> kShift); ++bi) {
      const Block* b = lat.find(bi, bj);
      if (!b) continue;
      for (long j = std::max(j0, bj * kB); j <= std::min(j1, bj * kB + kMask); ++j)
        for (long i = std::max(i0, bi * kB); i <= std::min(i1, bi * kB + kMask); ++i) {
          const int k = local(i, j);
          if (b->needed[k] && b->corner[k].c.in) return true;
        }
    }
  return false;
}

// The missed-lobe search's depth (its cubes go down to 1/2^kLobeDepth of the lattice spacing) and its budget of
// signed-distance evaluations per pass (a near-touch of the two cells away from the patch keeps cubes at every
// level; the budget bounds what that costs).
constexpr int kLobeDepth = 5;
constexpr long kLobeBudget = 20000;

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
  for (const Node& n : nodes) lat.leaves.push_back(n.c);
  lat.leaf_half = half;
  const long per = 1L << kfoot;
  std::vector<std::pair<long, long>> feet;
  for (const Node& n : nodes)
    feet.emplace_back(std::lround(n.c.x() / F - 0.5), std::lround(n.c.y() / F - 0.5));
  std::sort(feet.begin(), feet.end());
  feet.erase(std::unique(feet.begin(), feet.end()), feet.end());
  if (static_cast<double>(feet.size()) * per * per > kMaxLatticeSquares) {
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
    if (++lat.candidates > kMaxGrownSquares) {
      lat.too_large = true;
      return lat;
    }
    if (!any) continue;
    if (i > gi0) stack.emplace_back(i - 1, j);
    if (i + 1 < gi1) stack.emplace_back(i + 1, j);
    if (j > gj0) stack.emplace_back(i, j - 1);
    if (j + 1 < gj1) stack.emplace_back(i, j + 1);
  }
  for (const auto& sd : seeds) {
    const long i = index(sd[0], false), j = index(sd[1], false);
    if (i < gi0 || j < gj0 || i >= gi1 || j >= gj1) continue;
    if (!any_inside(lat, i - 1, i + 2, j - 1, j + 2)) lat.orphans.push_back(sd);
  }
  lat.sort();
  return lat;
}

std::vector<std::array<double, 2>> missed_lobes(const Pair& pr, const Lattice& lat, long& columns) {
  std::vector<std::array<double, 2>> found, tried;
  const double s = lat.s, margin = 1.5 * s, finest = s * std::ldexp(1.0, -kLobeDepth);
  auto explained = [&](const Vec3& c, double half) {
    const double u0 = c.x() - half - margin, u1 = c.x() + half + margin;
    const double v0 = c.y() - half - margin, v1 = c.y() + half + margin;
    for (const auto& f : found)
      if (f[0] >= u0 && f[0] <= u1 && f[1] >= v0 && f[1] <= v1) return true;
    return any_inside(lat, static_cast<long>(std::ceil(u0 / s)), static_cast<long>(std::floor(u1 / s)),
                      static_cast<long>(std::ceil(v0 / s)), static_cast<long>(std::floor(v1 / s)));
  };
  auto phi = [&](const Vec3& x) {
    return std::max(cell_sdf(pr.prims, 0, pr.n_i, x), cell_sdf(pr.prims, pr.n_i, pr.prims.size(), x));
  };
  std::vector<Vec3> nodes = lat.leaves, next;
  double half = lat.leaf_half;
  long budget = kLobeBudget;
  while (!nodes.empty() && budget > 0) {
    next.clear();
    const double halfdiag = half * std::sqrt(3.0), q = 0.5 * half;
    for (const Vec3& c : nodes) {
      // A cube no wider than two squares with a non-empty corner near its footprint is the lobe the lattice found.
      const bool near_found = explained(c, half);
      if (near_found && half <= s) continue;
      if (--budget < 0) break;
      const double d = phi(c);
      if (d >= halfdiag) continue;  // the cube holds no point of the overlap
      if (!near_found && (d < 0 || half <= s)) {
        // A point of the overlap far from every non-empty column (d < 0), or a cube no wider than two squares that
        // may hold one: the column through it, exact along z, sees a lobe however thin it is along the columns.
        const std::array<double, 2> uv{c.x(), c.y()};
        if (std::find(tried.begin(), tried.end(), uv) == tried.end()) {
          tried.push_back(uv);
          ++columns;
          if (eval_column(pr, c.x(), c.y()).in) {
            found.push_back(uv);
            continue;
          }
        }
        if (d < 0) continue;
      }
      if (q < 0.5 * finest) continue;
      for (int k = 0; k < 8; ++k) next.push_back(c + Vec3((k & 1) ? q : -q, (k & 2) ? q : -q, (k & 4) ? q : -q));
    }
    nodes.swap(next);
    half = q;
  }
  return found;
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
