#include "geometry/column_integration.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "geometry/column_internal.h"
#include "geometry/mesh_closest.h"

namespace vcsim::geo {

using column::Accum;
using column::Block;
using column::FieldVertex;
using column::Lattice;
using column::Pair;
using column::kB;
using column::kMask;
using column::build_lattice;
using column::evaluate_corners;
using column::for_rows;
using column::grown_lattice;
using column::integrate_tri;
using column::make_pair;
using column::missed_lobes;
using lines::kInf;
using lines::Placed;
using lines::cell_sdf;
using lines::place;
using lines::placed_cell_bounds;
using lines::sdf_local;

void centroid_and_inertia(const RawMoments& m, Vec3& centroid, Mat3& inertia) {
  centroid = m.m1 / m.m0;
  const Mat3 C = m.m2 - m.m0 * centroid * centroid.transpose();  // second moments about the centroid
  inertia = C.trace() * Mat3::Identity() - C;                     // J = ∫(|r|² I − r rᵀ) dV
}

double cell_distance(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world) {
  double phi = -kInf;
  for (const auto& cp : cell) {
    const Placed p = place(cp, body_pose, Pose{});
    const double d = sdf_local(p, p.A * x_world + p.b);
    phi = std::max(phi, cp.complement ? -d : d);
  }
  return phi;
}

Vec3 cell_gradient(const CellPrimitives& cell, const Pose& body_pose, const Vec3& x_world, double h) {
  std::vector<Placed> prims;  // placed once for the six evaluations
  for (const auto& cp : cell) prims.push_back(place(cp, body_pose, Pose{}));
  const bool has_mesh =
      std::any_of(prims.begin(), prims.end(), [](const Placed& p) { return p.kind == PrimitiveKind::Mesh; });
  if (has_mesh) {
    // The gradient of the active primitive (the largest signed distance): a mesh's exact, from its closest surface
    // point (geometry/mesh_closest.h), so that no closed-form query builds the mesh's distance grid; any other's by
    // central differences.
    double phi = -kInf;
    Vec3 g = Vec3::Zero();
    for (const Placed& p : prims) {
      const Vec3 x = p.A * x_world + p.b;
      const double sign = p.complement ? -1 : 1;
      double d;
      Vec3 grad;
      if (p.kind == PrimitiveKind::Mesh) {
        const MeshClosest c = mesh_closest(*p.mesh, x);
        d = c.distance;
        grad = p.A.transpose() * c.gradient;  // A: a rotation for meshes (scaled at load)
      } else {
        d = sdf_local(p, x);
        for (int k = 0; k < 3; ++k) {
          const Vec3 e = Vec3::Unit(k) * h;
          grad[k] = (sdf_local(p, p.A * (x_world + e) + p.b) - sdf_local(p, p.A * (x_world - e) + p.b)) / (2 * h);
        }
      }
      if (sign * d > phi) phi = sign * d, g = sign * grad;
    }
    return g;
  }
  Vec3 g;
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = Vec3::Unit(k) * h;
    g[k] = (cell_sdf(prims, 0, prims.size(), x_world + e) - cell_sdf(prims, 0, prims.size(), x_world - e)) / (2 * h);
  }
  return g;
}

void cell_bounds_in_frame(const CellPrimitives& cell, const Pose& body_pose, const Pose& frame, Vec3& lo, Vec3& hi) {
  std::vector<Placed> prims;
  for (const auto& cp : cell) prims.push_back(place(cp, body_pose, frame));
  placed_cell_bounds(prims, 0, prims.size(), lo, hi);
}

namespace {

// A long straight strip (docs/geometry.md, "Known column engine defects"): a cylinder lying along another or across a
// flat end touches along a strip up to 1e3 times longer than wide. The width rule asks for N squares across it, so a
// square lattice holds ~N² × (length / width) squares: past 2^22 at tolerance 1e-5, where the pass reported nothing
// and the query fell back on the coarse pass (20-60 % low). The interpolation over lattice triangles is affine
// invariant, so a lattice of rectangles k times longer along the strip, k its length over its width, is a square
// lattice on the strip mapped to a square: as accurate, k times cheaper. The decision depends on the seeds and the
// cells only, never on the spacing, so the Richardson step's two lattices (s and 2s) are stretched alike.
struct Stretch {
  double theta = 0, cos = 1, sin = 0;  // the strip's long axis in Q's (u, v): (cos θ, sin θ)
  double k = 1;                        // lattice squares k times longer along it; 1: not stretched
  // Non-empty columns spanning the strip (its two end seeds and the stations), passed on as seeds: a stretched
  // lattice may be only a square or two across at the √A pass's spacing, and the next pass must see the same strip.
  std::vector<std::array<double, 2>> along;
};

// Strips at least kStretchLong widths long are stretched, and those at least kStretchAspect long whose square lattice
// would be large: n seeds from the √A pass (N² ≈ n squares over the patch) grow ~n × length / width squares at the
// width rule's spacing, at tolerance 1e-6 (N = 700) past 2^22 from a length of ~9 widths. Shorter strips keep their
// square lattice bit for bit: a brick's edge in a table (5-15 widths long at tolerance 1e-3) needs its squares along
// the edge for the centroid (tests/geometry_column_corners_test.cpp: 1.15e-3 of V^(1/3) when stretched).
constexpr double kStretchAspect = 8, kStretchLong = 32, kStretchSquares = 1 << 21;
constexpr int kStretchStations = 5;  // widths measured along the strip

// The patch's width along (nx, ny) through its non-empty column p: both rim crossings, bracketed by doubling steps
// from h0 and located by find_cut. 0 when it is wider than `widest`.
double probe_width(const Pair& pr, const FieldVertex& p, double nx, double ny, double h0, double widest,
                   long& columns) {
  double w = 0;
  for (const double side : {-1.0, 1.0}) {
    FieldVertex in = p;
    for (double h = h0;; h *= 2) {
      if (h > widest) return 0;
      FieldVertex x{p.u + side * h * nx, p.v + side * h * ny, {}};
      x.c = eval_column(pr, x.u, x.v);
      ++columns;
      if (!x.c.in) {
        const FieldVertex cut = find_cut(pr, in, x, columns);
        w += std::hypot(cut.u - p.u, cut.v - p.v);
        break;
      }
      in = x;
    }
  }
  return w;
}

// Whether the seeds (non-empty columns of a coarser pass) lie along a long straight strip, and how much to stretch:
// their principal axis θ and extents ea (along) and eb (across); the strip's width W, the largest of the exact
// widths measured across it at kStretchStations stations; straight when every seed lies within 2W across (a bent
// band would leave the stretched squares diagonally). k = ea / W.
Stretch strip_stretch(const Pair& pr, const std::vector<std::array<double, 2>>& seeds, long& columns) {
  Stretch st;
  const size_t n = seeds.size();
  if (n < 2) return st;
  double mu = 0, mv = 0;
  for (const auto& sd : seeds) mu += sd[0], mv += sd[1];
  mu /= static_cast<double>(n), mv /= static_cast<double>(n);
  double cuu = 0, cvv = 0, cuv = 0;
  for (const auto& sd : seeds) {
    const double du = sd[0] - mu, dv = sd[1] - mv;
    cuu += du * du, cvv += dv * dv, cuv += du * dv;
  }
  const double theta = 0.5 * std::atan2(2 * cuv, cuu - cvv);  // the axis of the larger variance
  const double c = std::cos(theta), sn = std::sin(theta);
  double a0 = kInf, a1 = -kInf, b0 = kInf, b1 = -kInf;
  for (const auto& sd : seeds) {
    const double a = c * sd[0] + sn * sd[1], b = -sn * sd[0] + c * sd[1];
    a0 = std::min(a0, a), a1 = std::max(a1, a), b0 = std::min(b0, b), b1 = std::max(b1, b);
  }
  const double ea = a1 - a0, eb = b1 - b0;
  if (!(ea > kStretchAspect * eb)) return st;  // compact seeds: every ordinary patch leaves here, untouched
  const double widest = ea / kStretchAspect, h0 = std::max(0.25 * eb, 1e-6 * ea);
  double W = 0;
  int stations = 0;  // widths measured
  std::vector<std::array<double, 2>> along;
  for (int i = -1; i <= kStretchStations; ++i) {
    // The ends (i = -1, kStretchStations: the seeds there, kept as seeds only), then the stations.
    const bool end = i < 0 || i == kStretchStations;
    const double at = i < 0 ? a0 : end ? a1 : a0 + ea * (i + 0.5) / kStretchStations;
    size_t best = 0;
    double gap = kInf;
    for (size_t j = 0; j < n; ++j) {
      const double d = std::abs(c * seeds[j][0] + sn * seeds[j][1] - at);
      if (d < gap) gap = d, best = j;
    }
    FieldVertex p{seeds[best][0], seeds[best][1], {}};
    p.c = eval_column(pr, p.u, p.v);
    ++columns;
    if (!p.c.in) continue;  // a seed on the rim to within rounding (a coarse column in a flat end)
    along.push_back({p.u, p.v});
    if (end) continue;
    const double w = probe_width(pr, p, -sn, c, h0, widest, columns);
    if (!(w > 0)) return st;  // wider than a strip
    W = std::max(W, w);
    ++stations;
  }
  if (stations < kStretchStations - 2) return st;
  const double k = ea / W;
  if (eb > 2 * W || k < kStretchAspect || (k < kStretchLong && static_cast<double>(n) * k < kStretchSquares)) return st;
  st.theta = theta, st.cos = c, st.sin = sn, st.k = k;
  st.along = std::move(along);
  return st;
}

// The lattice pass of column_moments on a placed pair (lo, hi: the overlap box in its lattice coordinates).
ColumnResult lattice_moments(Pair& pr, Vec3 lo, Vec3 hi, double s, const double* clip,
                             const std::vector<std::array<double, 2>>* seeds, double hyper_n, double stretch) {
  ColumnResult result;
  if (clip && !seeds) {  // (a grown lattice is bounded by the patch itself: the clip is ignored)
    lo.x() = std::max(lo.x(), clip[0]), hi.x() = std::min(hi.x(), clip[1]);
    lo.y() = std::max(lo.y(), clip[2]), hi.y() = std::min(hi.y(), clip[3]);
  }
  if ((lo.array() >= hi.array()).any()) return result;
  if (!lo.allFinite() || !hi.allFinite()) {
    result.bounded = false;
    return result;
  }
  std::vector<long> block_columns;
  Lattice lat;
  if (seeds) {
    lat = grown_lattice(pr, lo, hi, s, *seeds, result.columns);
  } else {
    lat = build_lattice(pr, lo, hi, s);
    if (lat.candidates > 0 && !lat.too_large) evaluate_corners(pr, lat, block_columns);
  }
  result.candidates = lat.candidates;
  result.too_large = lat.too_large;
  if (lat.candidates == 0 || lat.too_large) return result;
  const long nb = static_cast<long>(lat.blocks.size());

  double ub[4] = {kInf, -kInf, kInf, -kInf};
  for (const auto& b : lat.blocks)
    for (int k = 0; k < kB * kB; ++k)
      if (b->needed[k] && b->corner[k].c.in) {
        const FieldVertex& fv = b->corner[k];
        ub[0] = std::min(ub[0], fv.u), ub[1] = std::max(ub[1], fv.u);
        ub[2] = std::min(ub[2], fv.v), ub[3] = std::max(ub[3], fv.v);
        result.inside.push_back({fv.u, fv.v});
      }
  // Seeds for the finer passes in lobes this lattice's columns missed (octree lattice: found below its spacing;
  // grown lattice: seeds it could not resolve), so that every lobe is grown (docs/geometry.md, "A second lobe").
  if (!seeds) {
    const auto lobes = missed_lobes(pr, lat, result.columns);
    result.inside.insert(result.inside.end(), lobes.begin(), lobes.end());
  }
  result.inside.insert(result.inside.end(), lat.orphans.begin(), lat.orphans.end());
  result.u_min = ub[0], result.u_max = ub[1], result.v_min = ub[2], result.v_max = ub[3];
  // Each block's right, top and top-right neighbours hold the corners of its edge squares.
  std::vector<std::array<const Block*, 3>> nbr(nb);
  for (long kb = 0; kb < nb; ++kb) {
    const Block& b = *lat.blocks[kb];
    nbr[kb] = {lat.find(b.bi + 1, b.bj), lat.find(b.bi, b.bj + 1), lat.find(b.bi + 1, b.bj + 1)};
  }
  std::vector<Accum> rows(nb);
  for (Accum& a : rows) a.hyper_n = hyper_n, a.stretch = stretch;
  std::vector<long> diag_columns(nb, 0);
  for_rows(nb, lat.candidates, [&](long kb) {
    Accum& acc = rows[kb];
    const Block& b = *lat.blocks[kb];
    auto at = [&](int i, int j) -> const FieldVertex& {
      const Block* o = i < kB ? (j < kB ? &b : nbr[kb][1]) : (j < kB ? nbr[kb][0] : nbr[kb][2]);
      return o->corner[(j & kMask) * kB + (i & kMask)];
    };
    for (int j = 0; j < kB; ++j)
      for (int i = 0; i < kB; ++i) {
        if (!b.square[j * kB + i]) continue;
        const FieldVertex &p00 = at(i, j), &p10 = at(i + 1, j), &p11 = at(i + 1, j + 1), &p01 = at(i, j + 1);
        if (!(p00.c.in || p10.c.in || p11.c.in || p01.c.in)) continue;
        integrate_tri(pr, p00, p10, p11, 0, acc, diag_columns[kb]);
        integrate_tri(pr, p00, p11, p01, 0, acc, diag_columns[kb]);
      }
  });
  // Ordered reduction: bitwise identical for any number of threads.
  Accum tot;
  for (long k = 0; k < nb; ++k) {
    const Accum& a = rows[k];
    tot.g += a.g, tot.gu += a.gu, tot.gv += a.gv, tot.gm += a.gm, tot.guu += a.guu, tot.gvv += a.gvv;
    tot.guv += a.guv, tot.gum += a.gum, tot.gvm += a.gvm, tot.gq += a.gq, tot.area += a.area, tot.rim += a.rim;
    tot.h += a.h, tot.hu += a.hu, tot.hv += a.hv, tot.hm += a.hm;
    result.columns += diag_columns[k];
  }
  for (long c : block_columns) result.columns += c;
  RawMoments& m = result.moments;
  m.m0 = tot.g;
  m.m1 = Vec3(tot.gu, tot.gv, tot.gm);
  m.m2 << tot.guu, tot.guv, tot.gum, tot.guv, tot.gvv, tot.gvm, tot.gum, tot.gvm, tot.gq;
  if (hyper_n != 1) m.h0 = tot.h, m.h1 = Vec3(tot.hu, tot.hv, tot.hm);
  result.area = tot.area;
  result.rim = tot.rim;
  return result;
}

}  // namespace

ColumnResult column_moments(const CellPrimitives& cell_i, const Pose& pose_i, const CellPrimitives& cell_j,
                            const Pose& pose_j, const Pose& frame, double s, const double* clip,
                            const std::vector<std::array<double, 2>>* seeds, double hyper_n) {
  Pair pr = make_pair(cell_i, pose_i, cell_j, pose_j, frame);
  Vec3 lo_i, hi_i, lo_j, hi_j;
  placed_cell_bounds(pr.prims, 0, pr.n_i, lo_i, hi_i);
  placed_cell_bounds(pr.prims, pr.n_i, pr.prims.size(), lo_j, hi_j);
  long probes = 0;
  const Stretch st = seeds ? strip_stretch(pr, *seeds, probes) : Stretch{};
  if (st.k == 1) {
    ColumnResult r = lattice_moments(pr, lo_i.cwiseMax(lo_j), hi_i.cwiseMin(hi_j), s, clip, seeds, hyper_n, 1);
    r.columns += probes;
    return r;
  }
  // A long straight strip: lattice coordinates y, x = R D y with R the turn about z onto the strip's axis and
  // D = diag(k, 1, 1). The pair is placed in the turned frame (exact), then stretched: A D maps y to each primitive,
  // the column direction (z) unchanged, so every column is the same exact interval, only the lattice is affine.
  const Eigen::AngleAxisd turn(st.theta, Vec3::UnitZ());
  const Mat3 R = turn.toRotationMatrix();
  const Pose turned{frame.position, frame.rotation * Quat(turn)};
  pr = make_pair(cell_i, pose_i, cell_j, pose_j, turned);
  placed_cell_bounds(pr.prims, 0, pr.n_i, lo_i, hi_i);
  placed_cell_bounds(pr.prims, pr.n_i, pr.prims.size(), lo_j, hi_j);
  Vec3 lo = lo_i.cwiseMax(lo_j), hi = hi_i.cwiseMin(hi_j);
  lo.x() /= st.k, hi.x() /= st.k;
  for (Placed& p : pr.prims) p.A.col(0) *= st.k;
  std::vector<std::array<double, 2>> ys(seeds->size());
  for (size_t i = 0; i < ys.size(); ++i) {
    const double u = (*seeds)[i][0], v = (*seeds)[i][1];
    ys[i] = {(st.cos * u + st.sin * v) / st.k, -st.sin * u + st.cos * v};
  }
  ColumnResult r = lattice_moments(pr, lo, hi, s, nullptr, &ys, hyper_n, st.k);
  r.columns += probes;
  // Back to Q: ∫ f(x) dA_x = k ∫ f(R D y) dA_y.
  Mat3 T = R;
  T.col(0) *= st.k;
  RawMoments& m = r.moments;
  m.m0 *= st.k, m.h0 *= st.k;
  m.m1 = st.k * (T * m.m1), m.h1 = st.k * (T * m.h1);
  m.m2 = st.k * (T * m.m2 * T.transpose());
  r.area *= st.k;
  double ub[4] = {kInf, -kInf, kInf, -kInf};
  for (auto& y : r.inside) {
    const double u = T(0, 0) * y[0] + T(0, 1) * y[1], v = T(1, 0) * y[0] + T(1, 1) * y[1];
    y = {u, v};
    ub[0] = std::min(ub[0], u), ub[1] = std::max(ub[1], u), ub[2] = std::min(ub[2], v), ub[3] = std::max(ub[3], v);
  }
  if (!r.inside.empty()) r.u_min = ub[0], r.u_max = ub[1], r.v_min = ub[2], r.v_max = ub[3];
  r.inside.insert(r.inside.end(), st.along.begin(), st.along.end());
  return r;
}

std::vector<ColumnSample> column_samples(const CellPrimitives& cell_i, const Pose& pose_i,
                                         const CellPrimitives& cell_j, const Pose& pose_j, const Pose& frame,
                                         double s) {
  std::vector<ColumnSample> out;
  Pair pr = make_pair(cell_i, pose_i, cell_j, pose_j, frame);
  Vec3 lo_i, hi_i, lo_j, hi_j;
  placed_cell_bounds(pr.prims, 0, pr.n_i, lo_i, hi_i);
  placed_cell_bounds(pr.prims, pr.n_i, pr.prims.size(), lo_j, hi_j);
  const Vec3 lo = lo_i.cwiseMax(lo_j), hi = hi_i.cwiseMin(hi_j);
  if ((lo.array() >= hi.array()).any() || !lo.allFinite() || !hi.allFinite()) return out;
  Lattice lat = build_lattice(pr, lo, hi, s);
  if (lat.candidates == 0 || lat.too_large) return out;
  std::vector<long> block_columns;
  evaluate_corners(pr, lat, block_columns);
  for (const auto& b : lat.blocks)
    for (int k = 0; k < kB * kB; ++k)
      if (b->needed[k] && b->corner[k].c.in) {
        const FieldVertex& fv = b->corner[k];
        out.push_back({fv.u, fv.v, fv.c.lo, fv.c.hi, fv.c.G});
      }
  return out;
}

}  // namespace vcsim::geo
