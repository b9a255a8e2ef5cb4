// The interference query (two-pass column integration) and mass properties. See docs/geometry.md.
#include "geometry/interference.h"

#include <openvdb/openvdb.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <cstdlib>
#include <limits>

#include "geometry/cell_impl.h"
#include "geometry/closed_form_pairs.h"
#include "geometry/convex_lens.h"
#include "geometry/hulls_apart.h"
#include "geometry/line_sets.h"
#include "geometry/ruled_faces.h"
#include "geometry/mesh_intersection.h"
#include "geometry/torus_sweep.h"
#include "geometry/transversal_axis.h"
#include "geometry/located_error.h"
#include "geometry/support_plane.h"
#include "geometry/swept_cores.h"

namespace vcsim::geo {
namespace {

// Lattice squares across sqrt(patch area) at tolerance tol: N = kAcross / sqrt(tol). The linear
// interpolation over the lattice triangles has an O(s²) bias (≈ 1/(3N²) of V for a spherical cap)
// that the Richardson step mostly removes; 0.7 is the smallest value for which every closed-form
// case T1–T7 meets its limits at tol = 1e-3 (docs/geometry.md lists the measured errors).
constexpr double kAcross = 0.7;

Quat axis_rotation(const Vec3& n) {
  // A rotation taking +z to n, continuous except where n.z changes sign through -z.
  if (n.z() >= 0) return Quat::FromTwoVectors(Vec3::UnitZ(), n);
  return Quat::FromTwoVectors(-Vec3::UnitZ(), n) * Quat(0, 1, 0, 0);  // 180° about x maps z to -z
}

// The length the lattice resolves: sqrt(A) for a compact patch, the width for a thin one (docs/geometry.md).
// w = 2A/P (A the area, P the rim length, both measured on a lattice) is the radius of a disc and the width of a
// band. With x = w/√A: ℓ = √A f(x), f(x) = min(1, c x + (1 − c x0)(x/x0)²): 1 for patches as compact as the
// equilateral triangle (x0 = 0.44; the disc is 0.564, the square 0.5), c w for thin bands (x → 0), continuous and
// increasing in between. area: the area the area rule uses (the coarse pass's); A, P: the fine pass's.
constexpr double kWidth = 1.0;  // lattice squares per band width: N (docs/geometry.md lists the measured errors)
double patch_length(double area, double A, double P, double c) {
  const double root = std::sqrt(area), x = 2 * A / P / root, x0 = 0.44;
  return root * std::min(1.0, c * x + (1 - c * x0) * (x / x0) * (x / x0));
}

struct Pass {
  ColumnResult r;
  Pose frame;
  double spacing = 0;
  bool coarsened = false;  // the tolerance's spacing exceeded the lattice's budget: a coarser one served
};

// The coarse pass in frame f1: a lattice over the overlap box finds the patch (r1, spacing s1), zoomed until the patch
// holds a few squares.
bool coarse_pass(const CellPrimitives& a, const Pose& pa, const CellPrimitives& b, const Pose& pb, const Pose& f1,
                 ColumnResult& r1, double& s1, long& columns) {
  Vec3 lo_a, hi_a, lo_b, hi_b;
  cell_bounds_in_frame(a, pa, f1, lo_a, hi_a);
  cell_bounds_in_frame(b, pb, f1, lo_b, hi_b);
  const Vec3 lo = lo_a.cwiseMax(lo_b), hi = hi_a.cwiseMin(hi_b);
  if ((lo.array() >= hi.array()).any() || !lo.allFinite() || !hi.allFinite()) return false;
  s1 = std::max(hi.x() - lo.x(), hi.y() - lo.y()) / 16.0;
  for (int k = 0; k < 10; ++k) {
    r1 = column_moments(a, pa, b, pb, f1, s1);
    columns += r1.columns;
    if (r1.candidates == 0 || !r1.bounded || r1.too_large) break;
    // Look closer until the coarse lattice finds the patch at all (a patch thinner than the
    // spacing slips between its columns).
    if (r1.moments.m0 > 0) break;
    s1 *= 0.25;
  }
  if (!(r1.moments.m0 > 0)) return false;
  while (r1.area < 4 * s1 * s1) {
    // Zoom: a finer coarse lattice grown from the patch just found, over it and one spacing around.
    const double m = 1.5 * s1, zoom[4] = {r1.u_min - m, r1.u_max + m, r1.v_min - m, r1.v_max + m};
    const ColumnResult rz = column_moments(a, pa, b, pb, f1, 0.25 * s1, zoom, &r1.inside);
    columns += rz.columns;
    if (!(rz.moments.m0 > 0)) break;
    r1 = rz;
    s1 *= 0.25;
  }
  return true;
}

// Two passes in a frame with column axis `axis`: a coarse lattice finds the patch and its area;
// the fine lattice, spaced from the area (a continuous function of the poses, so results stay
// smooth), is centred on the coarse centroid. transversal: where the axis grazes or folds a curved face in the
// patch, turn the columns onto a primitive's axis that crosses every face (transversal_axis.h), redo the coarse pass.
bool two_pass(const CellPrimitives& a, const Pose& pa, const CellPrimitives& b, const Pose& pb, const Vec3& origin,
              Quat rot, const QueryOptions& opt, double across, Pass& out, long& columns, bool richardson = true,
              bool transversal = false) {
  const Quat estimate = rot;
  Pose f1{origin, rot};
  ColumnResult r1;
  double s1 = 0;
  if (!coarse_pass(a, pa, b, pb, f1, r1, s1, columns)) return false;
  bool turned = false;
  if (transversal) {
    if (const auto d = transversal_axis(a, pa, b, pb, f1, r1.inside, s1)) {
      ColumnResult r;
      double s = 0;
      if (coarse_pass(a, pa, b, pb, Pose{origin, axis_rotation(*d)}, r, s, columns)) {
        rot = axis_rotation(*d), f1 = Pose{origin, rot};
        r1 = std::move(r), s1 = s;
        turned = true;
      }
    }
  }
  const Vec3 c1 = r1.moments.m1 / r1.moments.m0;
  // Tolerances looser than 1e-2 leave too few lattice squares across the patch for the Richardson
  // step to be reliable: they are treated as 1e-2.
  const double tol = std::min(opt.tolerance, 1e-2);
  double s2 = std::sqrt(r1.area) / (across / std::sqrt(tol));
  if (opt.max_voxel > 0) s2 = std::min(s2, opt.max_voxel);
  // A tolerance the budget cannot meet (1e-7 on a 3 cm patch) gets the finest lattice that fits, and the answer says
  // so (Interference::coarsened). Until 2026-11-28 the overflow returned the coarse pass's estimate: 29 % off.
  // A spacing finer than √(area / budget) cannot fit the grown lattice (its rim adds squares: an overflow is caught
  // after the pass).
  auto within_budget = [&](double s, double area) {
    const double finest = std::sqrt(area / kMaxGrownSquares);
    if (s >= finest) return s;
    out.coarsened = true;
    return finest;
  };
  s2 = within_budget(s2, r1.area);
  out.frame = Pose{f1.apply(c1), rot};
  out.spacing = s2;
  // The patch lies within one coarse spacing of the coarse lattice's non-empty columns (features
  // thinner than the coarse spacing aside); 1.5 spacings of margin.
  const double margin = 1.5 * s1;
  const double clip[4] = {r1.u_min - margin - c1.x(), r1.u_max + margin - c1.x(), r1.v_min - margin - c1.y(),
                          r1.v_max + margin - c1.y()};
  std::vector<std::array<double, 2>> seeds = r1.inside;
  for (auto& sd : seeds) sd[0] -= c1.x(), sd[1] -= c1.y();
  out.r = column_moments(a, pa, b, pb, out.frame, s2, clip, &seeds, opt.hyper_exponent);
  columns += out.r.columns;
  if (out.r.moments.m0 > 0 && out.r.rim > 0) {
    // A thin patch (a ring, a band) is narrower than √A: refine once to the spacing from its measured width,
    // grown from the columns just found (the fine pass resolves a band the coarse pass may only have grazed).
    const double sw = within_budget(patch_length(r1.area, out.r.area, out.r.rim, kWidth) / (across / std::sqrt(tol)),
                                    out.r.area);
    if (sw < s2) {
      s2 = sw;
      seeds = out.r.inside;
      out.r = column_moments(a, pa, b, pb, out.frame, s2, clip, &seeds, opt.hyper_exponent);
      columns += out.r.columns;
    }
  }
  // A patch larger than the coarse pass saw can still overflow: coarser until it fits.
  for (int k = 0; k < 8 && out.r.too_large; ++k) {
    s2 *= 2, out.coarsened = true;
    out.r = column_moments(a, pa, b, pb, out.frame, s2, clip, &seeds, opt.hyper_exponent);
    columns += out.r.columns;
  }
  out.spacing = s2;
  if (richardson && out.r.moments.m0 > 0) {
    // The lattice interpolation error is a clean O(s²) bias (docs/geometry.md): extrapolate with
    // the same lattice at 2s, M = (4 M_s − M_2s) / 3.
    const ColumnResult r2 = column_moments(a, pa, b, pb, out.frame, 2 * s2, clip, &seeds, opt.hyper_exponent);
    columns += r2.columns;
    RawMoments& m = out.r.moments;
    m.m0 = (4 * m.m0 - r2.moments.m0) / 3;
    m.m1 = (4 * m.m1 - r2.moments.m1) / 3;
    m.m2 = (4 * m.m2 - r2.moments.m2) / 3;
    m.h0 = (4 * m.h0 - r2.moments.h0) / 3;  // the same O(s²) interpolation bias (L linear per triangle)
    m.h1 = (4 * m.h1 - r2.moments.h1) / 3;
  }
  if (!(out.r.moments.m0 > 0)) {  // cannot happen unless the patch is below the coarse pass's resolution
    // or the fine lattice overflowed (too_large): a turned axis can see a thinner footprint; the estimate's then.
    if (turned) return two_pass(a, pa, b, pb, origin, estimate, opt, across, out, columns, richardson);
    out.r = r1, out.coarsened = true;
    if (opt.hyper_exponent != 1) {  // the coarse pass ran with n = 1: rerun it for the hypervolume
      out.r = column_moments(a, pa, b, pb, f1, s1, nullptr, nullptr, opt.hyper_exponent);
      columns += out.r.columns;
    }
    out.frame = f1;
    out.spacing = s1;
  }
  return true;
}

}  // namespace

namespace {
std::atomic<long> g_query_count{0};
std::atomic<long> g_coarsened_count{0};
}

long interference_query_count() { return g_query_count.load(std::memory_order_relaxed); }
long coarsened_query_count() { return g_coarsened_count.load(std::memory_order_relaxed); }

namespace {

// The normal guess from j toward i, for the frames of the lens and the column engine: grad phi_j - grad phi_i at the
// centre of the overlap box (each gradient points out of its cell; a degenerate gradient, a sphere's centre,
// contributes ~0), else the box's thinnest axis, away from cell i's box centre.
Vec3 normal_guess(const CellPrimitives& A, const Pose& pose_i, const CellPrimitives& B, const Pose& pose_j,
                  const Vec3& lo, const Vec3& hi, const Vec3& centre_i) {
  const Vec3 c = 0.5 * (lo + hi);
  const double h = 1e-6 * (hi - lo).maxCoeff();
  Vec3 n = cell_gradient(B, pose_j, c, h) - cell_gradient(A, pose_i, c, h);
  if (n.norm() < 0.5) {
    int k;
    (hi - lo).minCoeff(&k);
    n = Vec3::Unit(k);
    if ((centre_i - c)[k] < 0) n = -n;
  }
  return n.normalized();
}

// The normal estimate: minus cell i's area vector where the path gives it (world axes), else the guess n. The area
// vector is the patch's own direction (a peg's end in a hole's floor: the floor's normal, where the gradients at the
// overlap box's middle gave the hole's wall, and the contact normal came out along the floor).
void set_normal_estimate(Interference& out, const Vec3& n, const Vec3& area) {
  out.area = area;
  out.normal_estimate = area.norm() > 0 ? Vec3(-area.normalized()) : n;
}

// The interference from raw moments in `frame` (z along the normal estimate n).
Interference framed_interference(const RawMoments& m, const Pose& frame, const Vec3& n, long columns) {
  Interference out;
  out.columns = columns;
  if (!(m.m0 > 0)) return out;  // the cells' boxes overlap, the cells do not
  Vec3 centroid;
  Mat3 J;
  centroid_and_inertia(m, centroid, J);
  const Mat3 R = frame.rotation.toRotationMatrix();
  out.overlap = true;
  out.volume = m.m0;
  out.centroid = frame.apply(centroid);
  out.inertia = R * J * R.transpose();
  set_normal_estimate(out, n, R * m.area);
  out.hypervolume = out.volume;
  out.hyper_centroid = out.centroid;
  return out;
}

// Two convex cells bounded by planes, cylinders and cones: the surface form over their ruled faces
// (geometry/ruled_faces.h); other convex cells, or where that cannot meet the tolerance: the lens quadrature
// (geometry/convex_lens.h), columns along the normal, when its own error estimate meets the tolerance. Nothing when
// neither applies or meets the tolerance.
std::optional<Interference> ruled_or_lens(const CellPrimitives& A, const Pose& pose_i, const CellPrimitives& B,
                                          const Pose& pose_j, const Vec3& lo, const Vec3& hi, const Vec3& centre_i,
                                          const QueryOptions& options, long& columns) {
  const bool ruled = ruled_faces_pair(A, B) || ruled_ball_pair(A, B), lens = convex_lens_pair(A, B);
  if (!options.closed_forms || options.hyper_exponent != 1 || !(ruled || lens)) return std::nullopt;
  const Vec3 n = normal_guess(A, pose_i, B, pose_j, lo, hi, centre_i);
  const Pose frame{0.5 * (lo + hi), axis_rotation(n)};
  std::optional<RawMoments> m;
  std::vector<RawMoments> pieces;
  if (ruled) m = ruled_faces_moments(A, pose_i, B, pose_j, frame, options.tolerance, columns, &pieces);
  if (!m && lens) m = convex_lens_moments(A, pose_i, B, pose_j, frame, options.tolerance, columns);
  if (!m) return std::nullopt;
  Interference out = framed_interference(*m, frame, n, columns);
  for (const RawMoments& piece : pieces) out.patches.push_back(framed_interference(piece, frame, n, 0));
  return out;
}

// The column engine (geometry/column_integration.h) for any pair of cells: two passes over a lattice in a frame along
// the normal guess.
Interference column_interference(const CellPrimitives& A, const Pose& pose_i, const CellPrimitives& B,
                                 const Pose& pose_j, const Vec3& lo, const Vec3& hi, const Vec3& centre_i,
                                 const QueryOptions& options) {
  Interference out;
  const Vec3 c = 0.5 * (lo + hi), n = normal_guess(A, pose_i, B, pose_j, lo, hi, centre_i);
  Pass pass;
  // The hypervolume's L is defined along the normal: its columns keep it.
  if (!two_pass(A, pose_i, B, pose_j, c, axis_rotation(n), options, kAcross, pass, out.columns, true,
                options.hyper_exponent == 1))
    return out;
  Vec3 centroid;
  Mat3 J;
  centroid_and_inertia(pass.r.moments, centroid, J);
  const Mat3 R = pass.frame.rotation.toRotationMatrix();
  out.overlap = true;
  out.volume = pass.r.moments.m0;
  out.centroid = pass.frame.apply(centroid);
  out.inertia = R * J * R.transpose();
  out.normal_estimate = n;
  out.spacing = pass.spacing;
  out.coarsened = pass.coarsened;
  if (pass.coarsened) g_coarsened_count.fetch_add(1, std::memory_order_relaxed);
  if (options.hyper_exponent == 1) {
    out.hypervolume = out.volume;
    out.hyper_centroid = out.centroid;
  } else if (pass.r.moments.h0 > 0) {
    out.hypervolume = pass.r.moments.h0;
    out.hyper_centroid = pass.frame.apply(pass.r.moments.h1 / pass.r.moments.h0);
  } else {
    out.hyper_centroid = out.centroid;  // a patch too thin to carry any L^n: no force, point kept sensible
  }
  return out;
}

void set_moments(Interference& out, const RawMoments& m, const Vec3& origin) {
  out.overlap = m.m0 > 0;
  if (!out.overlap) return;
  Vec3 c;
  centroid_and_inertia(m, c, out.inertia);
  out.volume = m.m0;
  out.centroid = origin + c;
}

}  // namespace

namespace {

// declined (optional): set, and nothing returned, where the column engine would answer.
Interference pair_paths(const CellPrimitives& A, const Pose& pose_i, const CellPrimitives& B, const Pose& pose_j,
                        const Vec3& lo, const Vec3& hi, const Vec3& centre_i, const QueryOptions& options,
                        const PairCoherence* warm, PairCoherence* refresh, bool* declined = nullptr);

// A half-space is z <= 0 in its frame: this turns it over.
const Quat kFlip(0, 1, 0, 0);  // half a turn about x

// A lone capsule's three disjoint pieces (its cylinder, and each cap: a ball cut by its end plane), in its body's frame;
// nothing for any other cell.
std::vector<CellPrimitives> capsule_pieces(const CellPrimitives& cell) {
  if (cell.size() != 1 || cell[0].complement || cell[0].primitive.kind != PrimitiveKind::Capsule) return {};
  const Primitive& capsule = cell[0].primitive;
  const double h = 0.5 * capsule.length;
  auto piece = [&](PrimitiveKind kind, const Pose& offset) {
    CellPrimitive cp;
    cp.primitive.kind = kind;
    cp.primitive.radius = capsule.radius;
    cp.primitive.pose = capsule.pose.compose(offset);
    return cp;
  };
  std::vector<CellPrimitives> pieces;
  for (double side : {1.0, -1.0}) {
    const Vec3 end(0, 0, side * h);
    pieces.push_back({piece(PrimitiveKind::Sphere, Pose{end, Quat::Identity()}),
                      piece(PrimitiveKind::HalfSpace, Pose{end, side > 0 ? kFlip : Quat::Identity()})});
  }
  if (h > 0) {
    pieces.push_back({piece(PrimitiveKind::Cylinder, Pose{})});
    pieces.back()[0].primitive.length = capsule.length;
  }
  return pieces;
}

void primitives_bounds(const CellPrimitives& cell, const Pose& pose, Vec3& lo, Vec3& hi) {
  std::vector<lines::Placed> placed;
  for (const CellPrimitive& cp : cell) placed.push_back(lines::place(cp, pose, Pose{}));
  lines::placed_cell_bounds(placed, 0, placed.size(), lo, hi);
}

// A query's answer as raw moments about `origin` (world axes): ∫ r rᵀ about the centroid is ½ tr(J) I − J.
RawMoments raw_moments(const Interference& q, const Vec3& origin) {
  RawMoments m;
  if (!q.overlap) return m;
  const Vec3 d = q.centroid - origin;
  m.m0 = q.volume, m.m1 = q.volume * d;
  m.m2 = 0.5 * q.inertia.trace() * Mat3::Identity() - q.inertia + q.volume * d * d.transpose();
  m.area = q.area;
  return m;
}

// The cell without its holes (complemented primitives).
CellPrimitives without_holes(CellPrimitives cell) {
  cell.erase(std::remove_if(cell.begin(), cell.end(), [](const CellPrimitive& p) { return p.complement; }), cell.end());
  return cell;
}

// A hole in each cell, each cell's solid with the other a pair the ruled faces take with its holes: plug_subtracted's
// pairs. Not a ring torus on a holed cell: the tube mode's error there is not always held to the tolerance (a torus
// against a box cut by a counterbore's cylinder, one random pose: 1.7 % low at 1e-5), and the difference multiplies
// it by ρ (10 % off at ρ 12), so those stay with the column engine.
bool holes_in_both(const CellPrimitives& a, const CellPrimitives& b) {
  const auto holed = [](const CellPrimitives& c) {
    return std::any_of(c.begin(), c.end(), [](const CellPrimitive& p) { return p.complement; });
  };
  return holed(a) && holed(b) && (ruled_hole_pair(without_holes(a), b) || ruled_hole_pair(a, without_holes(b)));
}

// The cell with its hole `h` (a complemented primitive) filled in: the hole's plug, the cell's other holes kept. A
// through hole (an infinite cylinder) becomes a cylinder just longer than the cell across: bounded, so that the
// plug's hull is bounded by it and the hulls' plane can prove the plug apart (a washer around it, not touching it).
CellPrimitives plug_of(const CellPrimitives& cell, size_t h) {
  CellPrimitives plug = cell;
  plug[h].complement = false;
  Primitive& hole = plug[h].primitive;
  if (hole.kind != PrimitiveKind::InfiniteCylinder) return plug;
  CellPrimitives rest = cell;
  rest.erase(rest.begin() + h);
  Vec3 lo, hi;
  cell_bounds_in_frame(rest, Pose{}, Pose{}, lo, hi);
  const Vec3 axis = hole.pose.rotation * Vec3::UnitZ(), p = hole.pose.position;
  double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner((k & 1) ? hi.x() : lo.x(), (k & 2) ? hi.y() : lo.y(), (k & 4) ? hi.z() : lo.z());
    t0 = std::min(t0, axis.dot(corner - p)), t1 = std::max(t1, axis.dot(corner - p));
  }
  if (!std::isfinite(t0) || !std::isfinite(t1)) return plug;  // an unbounded cell: the plug stays as it is
  hole.kind = PrimitiveKind::Cylinder;
  hole.length = 1.02 * (t1 - t0);
  hole.pose.position = p + 0.5 * (t0 + t1) * axis;
  return plug;
}

// A hole in each cell (holes_in_both: a pipe in a bore, a washer on a drilled plate): the lens is that of the cell
// without the hole (`solid`) less that of the hole's plug (plug_of), each through every path again, one hole fewer
// (docs/geometry.md, "A hole in each cell"). Their errors add, ε(V₁ + V₂) on V₁ − V₂: each is taken at the tolerance
// over kMaxCancel (the ruled faces cost ~10 % more at 1e-5 than at 1e-3), which holds the difference to the tolerance
// while ρ = (V₁ + V₂)/(V₁ − V₂) ≤ kMaxCancel. The holes are tried in turn, A's first; the first whose plug the other
// cell does not reach (a pipe's bore clear of the plate it is pressed into: the solid's answer, pieces and all) or
// whose ρ ≤ kTakeFirst is taken, else the least ρ. The next hole is tried, at the cost of two more queries, only where
// ρ is large: a pipe standing on a blind hole's floor, its bore's plug on the floor too (ρ 4.6), would take the plate's
// hole plugged, the whole pipe inside it, twice in vain. Nothing (the column engine on the whole pair) where a term
// would take the column engine, ρ > kMaxCancel (a plug under nearly all of the lens) or V₁ ≤ V₂. Where the plug is
// reached, the lens's pieces are not told apart (one patch), and its normal is the area vector's where both terms give
// one, else the cells' gradients at the centroid.
std::optional<Interference> plug_subtracted(const CellPrimitives& A, const Pose& pose_i, const CellPrimitives& B,
                                            const Pose& pose_j, const QueryOptions& options) {
  constexpr double kMaxCancel = 100, kTakeFirst = 10;
  QueryOptions each = options;
  each.tolerance = std::max(options.tolerance / kMaxCancel, 1e-10);  // below ~1e-10 the paths' estimates do not hold
  double least = options.tolerance / each.tolerance;
  std::optional<Interference> best;
  for (const bool in_a : {true, false}) {  // holes_in_both: each cell has a primitive that is no hole
    const CellPrimitives& holed = in_a ? A : B;
    Vec3 lo_other, hi_other;  // the other cell's box, the same for every term
    primitives_bounds(in_a ? B : A, in_a ? pose_j : pose_i, lo_other, hi_other);
    for (size_t h = 0; h < holed.size(); ++h) {
      if (!holed[h].complement) continue;
      CellPrimitives solid = holed;
      solid.erase(solid.begin() + h);
      bool declined = false;
      const auto query = [&](const CellPrimitives& cell) {
        Vec3 lo_cell, hi_cell;
        primitives_bounds(cell, in_a ? pose_i : pose_j, lo_cell, hi_cell);
        const Vec3 lo = lo_cell.cwiseMax(lo_other), hi = hi_cell.cwiseMin(hi_other);
        if ((lo.array() >= hi.array()).any()) return Interference{};
        const Vec3 centre_i = in_a ? 0.5 * (lo_cell + hi_cell) : 0.5 * (lo_other + hi_other);
        return in_a ? pair_paths(cell, pose_i, B, pose_j, lo, hi, centre_i, each, nullptr, nullptr, &declined)
                    : pair_paths(A, pose_i, cell, pose_j, lo, hi, centre_i, each, nullptr, nullptr, &declined);
      };
      const Interference plugged = query(plug_of(holed, h));
      if (declined) continue;
      const Interference whole = query(solid);
      if (declined) continue;
      if (!plugged.overlap) return whole;
      const double ratio = (whole.volume + plugged.volume) / (whole.volume - plugged.volume);
      if (!(ratio > 0 && ratio <= least)) continue;
      least = ratio;
      const Vec3 origin = whole.centroid;
      const RawMoments w = raw_moments(whole, origin), p = raw_moments(plugged, origin);
      RawMoments m;
      m.m0 = w.m0 - p.m0, m.m1 = w.m1 - p.m1, m.m2 = w.m2 - p.m2;
      Interference out;
      out.columns = whole.columns + plugged.columns;
      set_moments(out, m, origin);
      out.hypervolume = out.volume;  // n = 1 here
      out.hyper_centroid = out.centroid;
      const double step = 1e-6 * std::cbrt(whole.volume);
      const Vec3 n = cell_gradient(B, pose_j, out.centroid, step) - cell_gradient(A, pose_i, out.centroid, step);
      const bool area_known = w.area.norm() > 0 && p.area.norm() > 0;  // a closed form gives none
      set_normal_estimate(out, n.norm() > 0 ? Vec3(n.normalized()) : whole.normal_estimate,
                          area_known ? Vec3(w.area - p.area) : Vec3::Zero());
      best = out;
      if (ratio <= kTakeFirst) return best;
    }
  }
  return best;
}

// The piece of a lone capsule that alone can meet `other` (its other pieces proven apart from it), a cap counted as
// its whole ball where the half cut off is proven apart too; nothing when the cell is not a lone capsule or when two
// pieces can meet `other` (a contact across the cap/side junction: the whole capsule is one lens, cheaper than two).
// All pieces apart: an empty cell (no primitives).
// reach: every piece not proven apart (the cell itself when it is no lone capsule), for the sum over pieces.
std::optional<CellPrimitives> capsule_piece_in_reach(const CellPrimitives& cell, const Pose& pose,
                                                     const CellPrimitives& other, const Pose& other_pose,
                                                     std::vector<CellPrimitives>& reach) {
  reach.clear();
  const std::vector<CellPrimitives> pieces = capsule_pieces(cell);
  if (pieces.empty()) {
    reach.push_back(cell);
    return std::nullopt;
  }
  for (const CellPrimitives& piece : pieces)
    if (!hulls_apart(piece, pose, other, other_pose)) reach.push_back(piece);
  if (reach.size() > 1) return std::nullopt;
  std::optional<CellPrimitives> in_reach = reach.empty() ? CellPrimitives{} : reach[0];
  if (in_reach->size() == 2) {  // a cap
    CellPrimitives cut_off = *in_reach;
    cut_off[1].primitive.pose = cut_off[1].primitive.pose.compose(Pose{Vec3::Zero(), kFlip});
    if (hulls_apart(cut_off, pose, other, other_pose)) in_reach->pop_back();
  }
  return in_reach;
}

// A lone capsule whose contact crosses its cap/side junction (against a cell of planes, cylinders and cones, a ball or
// another capsule): the sum over the pairs of pieces in reach (reach_a, reach_b: capsule_piece_in_reach's, each
// piece proven apart from the other whole cell already left out; two capsules' pieces are also tried pairwise), each the
// ruled faces' pair (a side against a side or a ruled cell), their ball mode (a cap against a side or a ruled cell) or
// a closed form (a cap against a ball or a cap: two balls clipped by planes). The convex lens over the whole capsule
// splits its rows at the junction, where the two faces are tangent: 0.3–0.5 ms a query on a cone against a capsule.
// Each piece meets the tolerance on its own V, so the sum meets it on theirs. Nothing when neither cell is a lone
// capsule or a pair of pieces has none of these paths (a cap against an ellipsoid: the lens takes the whole pair).
std::optional<Interference> capsule_pieces_summed(const CellPrimitives& A, const Pose& pose_i, const CellPrimitives& B,
                                                  const Pose& pose_j, const std::vector<CellPrimitives>& reach_a,
                                                  const std::vector<CellPrimitives>& reach_b, const Vec3& lo,
                                                  const Vec3& hi, const Vec3& centre_i, const QueryOptions& options,
                                                  long& columns) {
  const bool two_capsules = !capsule_pieces(A).empty() && !capsule_pieces(B).empty();
  const Vec3 n = normal_guess(A, pose_i, B, pose_j, lo, hi, centre_i);
  const Pose frame{0.5 * (lo + hi), axis_rotation(n)};
  const Mat3 R = frame.rotation.toRotationMatrix();
  RawMoments sum;
  bool area_known = true;
  for (const CellPrimitives& a : reach_a)
    for (const CellPrimitives& b : reach_b) {
      if (two_capsules && hulls_apart(a, pose_i, b, pose_j)) continue;
      std::optional<RawMoments> m;
      if (ruled_faces_pair(a, b) || ruled_ball_pair(a, b)) {
        m = ruled_faces_moments(a, pose_i, b, pose_j, frame, options.tolerance, columns);
      } else if (const auto world = closed_form_moments(a, pose_i, b, pose_j, frame.position, lo - frame.position,
                                                        hi - frame.position, options.tolerance)) {
        m = RawMoments{};  // about frame's origin in world axes: turned into the frame's
        m->m0 = world->m0, m->m1 = R.transpose() * world->m1, m->m2 = R.transpose() * world->m2 * R;
        area_known = area_known && !(m->m0 > 0);  // a closed form gives no area vector
      }
      if (!m) return std::nullopt;
      sum += *m;
    }
  if (!area_known) sum.area = Vec3::Zero();  // a part of it is no estimate
  return framed_interference(sum, frame, n, columns);
}

// Every path after the broad phase, for two cells given as primitives; lo, hi: the overlap of their boxes; centre_i:
// the middle of cell i's box (the column engine's side test).
Interference pair_paths(const CellPrimitives& A, const Pose& pose_i, const CellPrimitives& B, const Pose& pose_j,
                        const Vec3& lo, const Vec3& hi, const Vec3& centre_i, const QueryOptions& options,
                        const PairCoherence* warm, PairCoherence* refresh, bool* declined) {
  // A ring torus near a ball, a capsule or a torus, boxes overlapping: a proof that they are apart costs microseconds
  // where the column engine spent up to 60 ms not finding an overlap (geometry/swept_cores.h).
  if (swept_cores_apart(A, pose_i, B, pose_j)) return {};
  // Coordinates local to the overlap keep every number small, far from the world origin too.
  const Vec3 origin = 0.5 * (lo + hi);
  // The closed forms know only n = 1 (the volume): any other hypervolume exponent takes the column engine.
  std::optional<RawMoments> m;
  if (options.closed_forms && options.hyper_exponent == 1) {
    m = closed_form_moments(A, pose_i, B, pose_j, origin, lo - origin, hi - origin, options.tolerance,
                            warm ? &warm->mesh_pair() : nullptr,
                            refresh ? &refresh->mesh_pair() : nullptr);
    // Every path left searches the overlap: first a plane between the cells' hulls, which costs microseconds where the
    // lens and the column engine spent 1-46 ms finding nothing between convex cells 0.1-2 mm apart
    // (geometry/hulls_apart.h). Not with closed forms off: that is the column engine alone, the tests' reference.
    if (!m && hulls_apart(A, pose_i, B, pose_j)) return {};
    // A ring torus against planes, cylinders and cones: the surface form over the other cell's faces, with a field
    // tangent to the tube (geometry/ruled_faces.h), before the torus sweep: the sweep's bands start at each meridian
    // disc's deepest point, which a cell thinner than the tube can miss (a 6 mm rod across a 15 mm tube: 0.2–97 %
    // low; docs/geometry.md, "The torus sweep").
    if (!m && ruled_torus_pair(A, B)) {
      long lines = 0;
      m = ruled_faces_moments(A, pose_i, B, pose_j, Pose{origin, Quat::Identity()}, options.tolerance, lines);
    }
    // No closed form, but a ring torus on either side: its meridian sweep (geometry/torus_sweep.h).
    if (!m) m = torus_sweep_moments(A, pose_i, B, pose_j, origin, options.tolerance);
    if (!m) m = torus_sweep_moments(B, pose_j, A, pose_i, origin, options.tolerance);
  }
  // Convex cells without a closed form, one a lone capsule whose contact is on one piece: that piece's pair (a side
  // against a cylinder, cone or box is the ruled faces' pair, tens of µs; a cap is often a ball's closed form), not the
  // lens over the whole capsule, whose rows and kinks multiply at the cap/side junction. So too a capsule against a cell
  // with holes (a round-ended peg in a drilled plate), whose pieces the ruled faces and their ball mode take.
  const auto holed = [](const CellPrimitives& c) {
    return std::any_of(c.begin(), c.end(), [](const CellPrimitive& p) { return p.complement; });
  };
  const bool capsule_on_holes =
      (!capsule_pieces(A).empty() && holed(B)) || (!capsule_pieces(B).empty() && holed(A));
  if (!m && options.closed_forms && options.hyper_exponent == 1 && (convex_lens_pair(A, B) || capsule_on_holes)) {
    std::vector<CellPrimitives> reach_a, reach_b;
    const std::optional<CellPrimitives> a = capsule_piece_in_reach(A, pose_i, B, pose_j, reach_a);
    const std::optional<CellPrimitives> b = capsule_piece_in_reach(B, pose_j, a ? *a : A, pose_i, reach_b);
    if ((a && a->empty()) || (b && b->empty())) return {};  // every piece apart
    if (a || b) {
      const CellPrimitives &a1 = a ? *a : A, &b1 = b ? *b : B;
      Vec3 lo_a, hi_a, lo_b, hi_b;
      primitives_bounds(a1, pose_i, lo_a, hi_a);
      primitives_bounds(b1, pose_j, lo_b, hi_b);
      const Vec3 lo1 = lo_a.cwiseMax(lo_b), hi1 = hi_a.cwiseMin(hi_b);
      if ((lo1.array() >= hi1.array()).any()) return {};
      return pair_paths(a1, pose_i, b1, pose_j, lo1, hi1, 0.5 * (lo_a + hi_a), options, nullptr, nullptr, declined);
    }
    long columns = 0;
    if (reach_a.size() > 1 || reach_b.size() > 1)  // a capsule's contact across its junction
      if (const auto q = capsule_pieces_summed(A, pose_i, B, pose_j, reach_a, reach_b, lo, hi, centre_i, options,
                                               columns))
        return *q;
  }
  if (!m) {
    long columns = 0;  // the lens's, when it could not meet the tolerance
    if (const auto q = ruled_or_lens(A, pose_i, B, pose_j, lo, hi, centre_i, options, columns)) return *q;
    if (options.closed_forms && options.hyper_exponent == 1 && holes_in_both(A, B))
      if (const auto q = plug_subtracted(A, pose_i, B, pose_j, options)) return *q;
    if (declined) {
      *declined = true;
      return {};
    }
    Interference out = column_interference(A, pose_i, B, pose_j, lo, hi, centre_i, options);
    out.columns += columns;
    return out;
  }
  Interference out;
  set_moments(out, *m, origin);
  if (!out.overlap) return out;
  out.hypervolume = out.volume;  // n = 1 here (see above)
  out.hyper_centroid = out.centroid;
  // The geometric normal estimate at the interference centroid (grad phi_j − grad phi_i: each
  // gradient points out of its cell, so the difference points from j toward i).
  const double h = 1e-6 * (hi - lo).maxCoeff();
  const Vec3 n = cell_gradient(B, pose_j, out.centroid, h) - cell_gradient(A, pose_i, out.centroid, h);
  if (n.norm() > 0) out.normal_estimate = n.normalized();
  if (m->area.norm() > 0) set_normal_estimate(out, out.normal_estimate, m->area);  // the tube mode's, world axes
  return out;
}

Interference interference_moments(const Cell& cell_i, const Pose& pose_i, const Cell& cell_j, const Pose& pose_j,
                                  const QueryOptions& options, const PairCoherence* warm, PairCoherence* refresh) {
  const Aabb bi = world_bounds(cell_i, pose_i), bj = world_bounds(cell_j, pose_j);
  const Vec3 lo = bi.min.cwiseMax(bj.min), hi = bi.max.cwiseMin(bj.max);
  if ((lo.array() >= hi.array()).any()) return {};  // broad phase: separated
  if (!lo.allFinite() || !hi.allFinite()) return {};  // two unbounded cells: not supported (documented)
  g_query_count.fetch_add(1, std::memory_order_relaxed);
  return pair_paths(cell_i.impl->prims, pose_i, cell_j.impl->prims, pose_j, lo, hi, 0.5 * (bi.min + bi.max), options,
                    warm, refresh);
}

}  // namespace

PairCoherence::PairCoherence() : mesh_pair_(std::make_unique<MeshPairCache>()) {}
PairCoherence::~PairCoherence() = default;
PairCoherence::PairCoherence(const PairCoherence& other)
    : mesh_pair_(std::make_unique<MeshPairCache>(*other.mesh_pair_)) {}
PairCoherence& PairCoherence::operator=(const PairCoherence& other) {
  *mesh_pair_ = *other.mesh_pair_;
  return *this;
}
PairCoherence::PairCoherence(PairCoherence&&) noexcept = default;
PairCoherence& PairCoherence::operator=(PairCoherence&&) noexcept = default;

Interference interference(const Cell& cell_i, const Pose& pose_i, const Cell& cell_j, const Pose& pose_j,
                          const QueryOptions& options, const PairCoherence* warm, PairCoherence* refresh) {
  if (!options.coherence) warm = nullptr, refresh = nullptr;
  Interference q = interference_moments(cell_i, pose_i, cell_j, pose_j, options, warm, refresh);
  if (q.overlap) q.plane_normal = support_plane_normal(cell_i, pose_i, cell_j, pose_j);
  for (Interference& patch : q.patches) patch.plane_normal = q.plane_normal;
  return q;
}

bool may_have_patches(const Cell& cell_i, const Cell& cell_j) {
  const CellPrimitives &a = cell_i.impl->prims, &b = cell_j.impl->prims;
  const auto lone_sphere = [](const CellPrimitives& c) {
    return c.size() == 1 && c[0].primitive.kind == PrimitiveKind::Sphere;
  };
  const auto grooved = [](const CellPrimitives& c) {  // one hole, an infinite cylinder
    int holes = 0, rods = 0;
    for (const CellPrimitive& p : c) {
      holes += p.complement;
      rods += p.complement && p.primitive.kind == PrimitiveKind::InfiniteCylinder;
    }
    return holes == 1 && rods == 1;
  };
  if ((lone_sphere(a) && grooved(b)) || (lone_sphere(b) && grooved(a))) return false;
  // A hole in each cell: where the plug is not reached, the pieces are those of the cell without its hole
  // (plug_subtracted).
  return ruled_hole_pair(a, b) || holes_in_both(a, b);
}

MassProperties mass_properties(const BodyGeometry& geometry, double density, double tolerance) {
  RawMoments total;  // body frame, about the body origin
  QueryOptions opt;
  opt.tolerance = tolerance;
  for (const Cell& cell : geometry.cells) {
    const Aabb b = world_bounds(cell, Pose{});
    if (!b.min.allFinite() || !b.max.allFinite())
      throw GeometryError(cell.impl->cell_where,
                          "a bounded cell to compute mass properties, but cell '" + cell.name + "' is unbounded");
    // "Everything": a box enclosing the cell's bounds.
    CellPrimitive all;
    all.primitive.kind = PrimitiveKind::Box;
    all.primitive.size = (b.max - b.min) * 1.5 + Vec3::Constant(1e-9);
    all.primitive.pose.position = 0.5 * (b.min + b.max);
    // Exact where the cell has a closed form against a box (every primitive and mesh, issue 16), else the column
    // engine at the given tolerance.
    Vec3 o = 0.5 * (b.min + b.max);
    const Vec3 half = 0.5 * all.primitive.size;
    std::optional<RawMoments> exact = closed_form_moments(cell.impl->prims, Pose{}, {all}, Pose{}, o, -half, half, 0.0);
    RawMoments m;
    if (exact) {
      m = *exact;
    } else {
      Pass pass;
      long columns = 0;
      if (!two_pass(cell.impl->prims, Pose{}, {all}, Pose{}, o, Quat::Identity(), opt, kAcross, pass, columns))
        continue;
      o = pass.frame.position;
      m = pass.r.moments;
    }
    // Shift the raw moments from the query frame (translated by o) to the body origin.
    RawMoments s;
    s.m0 = m.m0;
    s.m1 = m.m1 + m.m0 * o;
    s.m2 = m.m2 + m.m1 * o.transpose() + o * m.m1.transpose() + m.m0 * o * o.transpose();
    total += s;
  }
  MassProperties mp;
  if (!(total.m0 > 0)) return mp;
  Vec3 com;
  Mat3 J;
  centroid_and_inertia(total, com, J);
  mp.mass = density * total.m0;
  mp.center_of_mass = com;
  mp.inertia = density * J;
  return mp;
}

bool dump_interference_vdb(const Cell& cell_i, const Pose& pose_i, const Cell& cell_j, const Pose& pose_j,
                           const QueryOptions& options, const std::string& path) {
  // The column engine's lattice gives the voxel size (the closed forms have none).
  QueryOptions column_options = options;
  column_options.closed_forms = false;
  const Interference x = interference(cell_i, pose_i, cell_j, pose_j, column_options);
  if (!x.overlap) return false;
  static std::once_flag init;
  std::call_once(init, [] { openvdb::initialize(); });
  // Re-run the fine lattice in the query's frame and splat every column into world voxels of the
  // lattice spacing (fill fraction of each voxel along the column, clamped to 1).
  const double s = x.spacing;
  const Quat rot = axis_rotation(x.normal_estimate);
  const Pose frame{x.centroid, rot};
  const auto samples = column_samples(cell_i.impl->prims, pose_i, cell_j.impl->prims, pose_j, frame, s);
  auto grid = openvdb::FloatGrid::create(0.0f);
  grid->setTransform(openvdb::math::Transform::createLinearTransform(s));
  grid->setGridClass(openvdb::GRID_FOG_VOLUME);
  grid->setName("interference");
  auto acc = grid->getAccessor();
  for (const ColumnSample& c : samples) {
    const double fill = c.length / std::max(c.hi - c.lo, 1e-300);  // fraction of the hull that is solid
    for (double z = c.lo + 0.5 * s; z < c.hi + 0.5 * s; z += s) {
      const double seg = std::min(z + 0.5 * s, c.hi) - std::max(z - 0.5 * s, c.lo);
      if (seg <= 0) continue;
      const Vec3 w = frame.apply(Vec3(c.u, c.v, z));
      const openvdb::Coord ijk = openvdb::Coord::round(grid->transform().worldToIndex(openvdb::Vec3d(w.x(), w.y(), w.z())));
      const float v = static_cast<float>(std::min(1.0, acc.getValue(ijk) + fill * seg / s));
      acc.setValue(ijk, v);
    }
  }
  openvdb::io::File file(path);
  file.write({grid});
  file.close();
  return true;
}

}  // namespace vcsim::geo
