// Patches: an interference that falls apart into disjoint pieces (Interference::patches, from the ruled faces with a
// hole: geometry/ruled_faces.h; docs/geometry.md, "The lens's pieces"), each pushed as its own volumetric contact
// (contact/volumetric_contact.h, patches_in_slots; docs/contact-models.md, "Patches"), with the area vector as the
// normal (docs/contact-models.md, "Contact normal"). A peg tilted across a hole through a plate touches the wall at the
// top on one side and at the bottom on the other. References, computed independently:
//  - each piece: exact chords (tests/geometry_support.h) of the peg against the plate's top or bottom half, where that
//    piece lies whole;
//  - the pieces told apart without a false split: a piece that is not a closed surface's inside has a V that depends on
//    the field's direction, so every piece is taken through three fields at tolerance 1e-9 and must agree;
//  - the forces by symmetry: the peg's axis through the plate's centre makes the two pieces point-symmetric about it,
//    so their normal forces cancel and leave a couple, k_v V b per piece (b its centroid's height above the centre).
//    One patch for both (the model before patches) gives a net force of the order of k_v V instead;
//  - a peg dropped into a one-cell plate at 2° of tilt, which stopped on the energy check before (J_v's axis as the
//    normal, one patch): it now settles on the floor with the energy never rising;
//  - a square peg on a blind hole's floor with two corners in its wall: the floor's part is the square swept over the
//    depth below the floor; each corner's, its section outside the circle (Gauss–Legendre over x) swept from the floor
//    to the plate's top face;
//  - a 14 mm square peg turned 45° on a square pocket's floor with one corner in a wall: the square and the corner's
//    triangle (d²), swept;
//  - square pegs dropped into a one-cell round hole, which stopped on the energy check about one drop in four before
//    the cut at the floor (one U-shaped patch in the concave corner), and pegs into a square pocket: each now ends on
//    the floor, the energy never rising.
//  - a steel ball dropped off the axis of a drilled hole: it settles centred on the rim, sunk where k_v V carries its
//    weight, V the ring's closed form.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "contact/cellular_contact.h"
#include "contact/model_params.h"
#include "geometry/ruled_faces.h"
#include "tests/cli_support.h"
#include "tests/geometry_checks.h"
#include "tests/peg_drop_check.h"

using namespace geometry_support;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kHole = 0.0105, kPeg = 0.01, kThick = 0.03;  // radii and plate thickness (m)
constexpr double kMid = -0.015;                                 // the plate's middle plane (z, m)

Primitive through_hole() {
  Primitive p = primitive(PrimitiveKind::InfiniteCylinder);
  p.radius = kHole;
  return p;
}
// The 0.1 x 0.1 m plate between z0 and z1 less the through hole: [−0.03, 0] whole, or either half.
Cell plate_between(double z0, double z1) {
  return cell_with_hole(box(Vec3(0.1, 0.1, z1 - z0), Pose{Vec3(0, 0, 0.5 * (z0 + z1)), Quat::Identity()}),
                        through_hole());
}
// The peg (r 10 mm, 60 mm long) with its centre on the plate's middle plane, `off` along x, tilted by `tilt` toward
// the azimuth `psi` (its top leaning that way).
Pose jammed(double tilt, double psi, double off = 0) {
  const Quat turn(Eigen::AngleAxisd(psi, Vec3::UnitZ()));
  return Pose{Vec3(off, 0, kMid), turn * Quat(Eigen::AngleAxisd(tilt, Vec3::UnitY()))};
}

}  // namespace

TEST_CASE("patches: a peg tilted across a through hole gives two patches, each the plate half's interference",
          "[geometry][patches]") {
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)});
  const Cell plate = plate_between(-kThick, 0), top = plate_between(kMid, 0), bottom = plate_between(-kThick, kMid);
  REQUIRE(may_have_patches(peg, plate));
  REQUIRE(!may_have_patches(peg, make_cell({box(Vec3(0.1, 0.1, 0.03))})));
  // The peg's side reaches x = 15 mm tan θ + 10 mm / cos θ at the plate's faces: 0.17 mm into the 10.5 mm wall at 2.5°,
  // 0.30 mm at 3°; off the axis by 0.1 mm, one end deeper and the other shallower.
  struct Case {
    double tilt_deg, psi_deg, off;
  };
  for (const Case c : {Case{2.5, 0, 0}, Case{3, 40, 0}, Case{3, 0, 1e-4}, Case{2.5, 200, -1e-4}}) {
    const Pose pose = jammed(c.tilt_deg * kPi / 180, c.psi_deg * kPi / 180, c.off);
    char what[96];
    std::snprintf(what, sizeof what, "tilt %.1f deg toward %.0f deg, %.1f mm off", c.tilt_deg, c.psi_deg, c.off * 1e3);
    INFO(what);
    for (const double tolerance : {1e-3, 1e-7}) {
      QueryOptions o;
      o.tolerance = tolerance;
      const Interference q = interference(peg, pose, plate, Pose{}, o);
      REQUIRE(q.patches.size() == 2);
      // The pieces add up to the whole (what the contact model sums is what the query measured).
      const Interference &a = q.patches[0], &b = q.patches[1];
      // (To rounding: the panels are summed in another order, and their shares are of the order of V each.)
      CHECK(std::abs(a.volume + b.volume - q.volume) <= 1e-10 * q.volume);
      CHECK((a.volume * a.centroid + b.volume * b.centroid - q.volume * q.centroid).norm() <= 1e-10 * q.volume * 0.1);
      CHECK(a.volume >= b.volume);  // largest first
      for (const Interference& piece : q.patches) {
        const bool upper = piece.centroid.z() > kMid;
        const MomentsReference ref = chords_moments(peg, pose, upper ? top : bottom, Pose{}, piece, 1000);
        // Each piece's own error is not held to the tolerance, only the sum's: at 1e-3 a piece of about half the
        // whole may carry twice that. At 1e-7 the chords' grid (about 1e-5 of V on such pieces) limits it.
        check_moments(moments_of(piece), ref, tolerance == 1e-3 ? 2e-3 : 5e-5, upper ? "upper piece" : "lower piece");
        // Its normal estimate points from the wall into the peg: inward, away from the side where the piece lies.
        const Vec3 radial = Vec3(piece.centroid.x(), piece.centroid.y(), 0).normalized();
        CHECK(piece.normal_estimate.dot(-radial) > 0.99);
      }
    }
  }
}

TEST_CASE("patches: a pipe tilted across a through hole gives two patches, as the solid peg does", "[geometry][patches]") {
  // A hole in each cell (geometry/ruled_faces.h, subtract_plug): the pipe's bore (r 8 mm) lies clear of the wall, so
  // its plug reaches nothing and the lens is the solid peg's, pieces and all.
  Primitive bore = primitive(PrimitiveKind::InfiniteCylinder);
  bore.radius = 0.008;
  const Cell pipe = cell_with_holes(rod(PrimitiveKind::Cylinder, kPeg, 0.06), {bore});
  const Cell plate = plate_between(-kThick, 0), top = plate_between(kMid, 0), bottom = plate_between(-kThick, kMid);
  REQUIRE(may_have_patches(pipe, plate));
  for (const double psi_deg : {0.0, 40.0}) {
    const Pose pose = jammed(3 * kPi / 180, psi_deg * kPi / 180);
    const Interference q = interference(pipe, pose, plate, Pose{});
    REQUIRE(q.patches.size() == 2);
    for (const Interference& piece : q.patches) {
      const bool upper = piece.centroid.z() > kMid;
      const MomentsReference ref = chords_moments(pipe, pose, upper ? top : bottom, Pose{}, piece, 1000);
      // As for the peg above: a piece's own error is not held to the tolerance (1e-3), only the sum's.
      check_moments(moments_of(piece), ref, 2e-3, upper ? "the pipe's upper piece" : "the pipe's lower piece");
    }
  }
}

TEST_CASE("patches: each piece is the same through any field direction (no piece split off a connected lens)",
          "[geometry][patches]") {
  // Pegs (round and square) tilted 2-4° at random in a through hole, a blind hole and a square slot, at random heights
  // and offsets, each through three field directions (z and two random ones) at tolerance 1e-9. A piece cut from a
  // connected lens (a false split) is not the inside of a closed surface, and its flux changes with the field's
  // direction: so wherever two fields take a lens apart, each piece one finds must be a piece, or a sum of pieces, that
  // the other finds. Joins are allowed (the grouping errs that way: docs/geometry.md, "The lens's pieces"), and counted.
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1, 1);
  Primitive blind = rod(PrimitiveKind::Cylinder, kHole, 0.02);
  blind.pose.position = Vec3(0, 0, -0.01);  // 20 mm deep
  const Primitive slot = box(Vec3(0.021, 0.021, 0.2));
  const Primitive plate_box = box(Vec3(0.1, 0.1, kThick), Pose{Vec3(0, 0, kMid), Quat::Identity()});
  const Cell plates[3] = {cell_with_hole(plate_box, through_hole()), cell_with_hole(plate_box, blind),
                          cell_with_hole(plate_box, slot)};
  const Cell pegs[2] = {make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)}), make_cell({box(Vec3(0.02, 0.02, 0.06))})};
  int split = 0, joined = 0, coarsened = 0, poses = 0;
  for (int k = 0; k < 120; ++k) {
    const Cell& plate = plates[k % 3];
    const Cell& peg = pegs[(k / 3) % 2];
    const double tilt = (2 + 2 * std::abs(u(rng))) * kPi / 180, psi = kPi * u(rng);
    Pose pose = jammed(tilt, psi, 4e-4 * u(rng));
    pose.position.z() += 0.01 * u(rng);
    const Vec3 directions[3] = {Vec3::UnitZ(), Vec3(u(rng), u(rng), u(rng)).normalized(),
                                Vec3(u(rng), u(rng), u(rng)).normalized()};
    std::vector<RawMoments> pieces[3];
    double V = 0;
    bool served = true;
    for (int f = 0; f < 3; ++f) {
      long lines = 0;
      const Pose frame{pose.position, Quat::FromTwoVectors(Vec3::UnitZ(), directions[f])};
      const auto whole = ruled_faces_moments(peg.impl->prims, pose, plate.impl->prims, Pose{}, frame, 1e-9, lines,
                                             &pieces[f]);
      served = served && whole.has_value();
      if (whole) V = whole->m0;
      for (RawMoments& m : pieces[f]) m.m1 = frame.rotation * m.m1;  // world axes, about the frames' common origin
    }
    if (!served) continue;
    ++poses;
    bool apart = false, whole_somewhere = false;
    for (int f = 0; f < 3; ++f) (pieces[f].empty() ? whole_somewhere : apart) = true;
    split += apart;
    joined += apart && whole_somewhere;
    for (int f = 1; f < 3; ++f) {
      if (pieces[0].empty() || pieces[f].empty()) continue;
      INFO("pose " << k << ", field " << f << ": pieces " << pieces[0].size() << " and " << pieces[f].size());
      // Relative to the whole: at 1e-9 the wholes themselves differ between fields by up to ~5e-8 of V on slots'
      // corners (docs/geometry.md, "Holes"), and a piece carries its share of that. A false split is off by the flux
      // of the sheet it lacks, of the order of the piece itself.
      const double tol_V = 1e-6 * V, tol_m1 = 1e-6 * V * std::cbrt(V);
      // The finer decomposition against the coarser: each coarse piece is the sum of a set of fine ones, and the sets
      // take every fine piece once (a join is a coarsening; a false split is not).
      const std::vector<RawMoments>& fine = pieces[0].size() >= pieces[f].size() ? pieces[0] : pieces[f];
      const std::vector<RawMoments>& coarse = pieces[0].size() >= pieces[f].size() ? pieces[f] : pieces[0];
      coarsened += fine.size() != coarse.size();
      REQUIRE(fine.size() <= 8);
      unsigned used = 0;
      for (const RawMoments& c : coarse) {
        bool found = false;
        for (unsigned set = 1; set < (1u << fine.size()) && !found; ++set) {
          if (set & used) continue;
          double v = 0;
          Vec3 m1 = Vec3::Zero();
          for (size_t j = 0; j < fine.size(); ++j)
            if (set >> j & 1) v += fine[j].m0, m1 += fine[j].m1;
          if (std::abs(v - c.m0) < tol_V && (m1 - c.m1).norm() < tol_m1) found = true, used |= set;
        }
        CHECK(found);
      }
      CHECK(used == (1u << fine.size()) - 1);
    }
  }
  std::printf("patches: of %d served poses, %d taken apart; %d whole through another field; %d pairs of fields with "
              "different pieces, each a coarsening\n", poses, split, joined, coarsened);
  CHECK(poses >= 100);
  CHECK(split >= 15);  // the test must see pieces to test them
}

TEST_CASE("patches: a peg jammed across its hole is pushed by two patches, whose forces cancel and leave a couple",
          "[contact][patches]") {
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)});
  const Cell plate = plate_between(-kThick, 0), top = plate_between(kMid, 0), bottom = plate_between(-kThick, kMid);
  const double k_v = 1e10;
  // No relaxation: the law's force from the first evaluation. At rest the friction is zero whatever its parameters.
  const contact::ModelParams p = contact::resolve_parameters("volumetric", {{"k_v", k_v}, {"tau_r", 0}, {"mu", 0.3}});
  contact::CellularContact model(p, BodyGeometry{{peg}}, BodyGeometry{{plate}}, QueryOptions{});
  REQUIRE(model.patch_slots() == contact::kPatchSlots);
  REQUIRE(model.num_states() == contact::kPatchSlots * contact::kVolumetricStates);
  for (const double psi_deg : {0.0, 40.0}) {
    INFO("toward " << psi_deg << " deg");
    const Pose pose = jammed(3 * kPi / 180, psi_deg * kPi / 180);
    const contact::BodyKinematics bi{pose}, bj{Pose{}};  // at rest: the force is k_v V, no damping, no friction
    std::vector<double> s(model.num_states()), ds(model.num_states());
    model.initial_states(s.data());
    contact::ContactResult r;
    model.evaluate(0, bi, bj, s.data(), ds.data(), r);
    REQUIRE(r.in_contact);
    // The pieces from exact chords against either half: the couple about the plate's centre, each piece's force
    // k_v V_k horizontal at its centroid, and toward the axis (to cos 3°, the tilt between the wall and the peg's side).
    const Interference q = interference(peg, pose, plate, Pose{});
    REQUIRE(q.patches.size() == 2);
    const Vec3 centre(0, 0, kMid), tilt_axis(-std::sin(psi_deg * kPi / 180), std::cos(psi_deg * kPi / 180), 0);
    double V = 0, couple = 0;
    for (const Interference& piece : q.patches) {
      const Cell& half = piece.centroid.z() > kMid ? top : bottom;
      const MomentsReference ref = chords_moments(peg, pose, half, Pose{}, piece, 1000);
      V += ref.V;
      const Vec3 radial = Vec3(ref.c.x(), ref.c.y(), 0).normalized();
      couple += (ref.c - centre).cross(-k_v * ref.V * radial).dot(tilt_axis);
    }
    const Vec3 about_centre = r.couple + (r.point - centre).cross(r.force);
    std::printf("jammed toward %.0f deg: |F| %.3e N of k_v V %.3e N; couple %.4e N m, by the pieces %.4e N m\n",
                psi_deg, r.force.norm(), k_v * V, about_centre.dot(tilt_axis), couple);
    // Point symmetry: the pieces' V agree to the query's tolerance (1e-3 each), their normals to its J's.
    CHECK(r.force.norm() < 5e-3 * k_v * V);
    // The couple straightens the peg (against its tilt); within 5 %: the normals lean by up to the 3° between the wall
    // and the peg's side, which moves the couple by ~ tan 3° x (10.5 mm / 15 mm) = 4 %.
    CHECK(about_centre.dot(tilt_axis) < 0);
    CHECK(std::abs(about_centre.dot(tilt_axis) / couple - 1) < 0.05);
  }
}

TEST_CASE("patches: a peg dropped tilted into a one-cell plate's hole settles on its floor, the energy never rising",
          "[contact][patches][scene]") {
  // benchmarks/scenes/peg_in_hole_one_cell.yaml: the plate is one cell (a box less a blind hole), model volumetric;
  // 0.45 mm off the axis and tilted 2°, the peg slides down the hole's wall and wedges across it on the way down. Before,
  // the run stopped on the energy check at 0.072 s; with the area normal and one patch the peg ended lying 39° over the
  // hole's rim, its lower end 0.7 mm in. The checks: tests/peg_drop_check.h.
  check_peg_settles_in_hole("peg_in_hole_one_cell");
}

TEST_CASE("patches: a pipe dropped tilted into a one-cell plate's hole settles on its floor, the energy never rising",
          "[contact][patches][scene]") {
  // benchmarks/scenes/pipe_in_hole.yaml: the peg above with an 8 mm bore, a hole in each cell (before: the column engine
  // at every query). The checks: tests/peg_drop_check.h.
  check_peg_settles_in_hole("pipe_in_hole");
}

TEST_CASE("patches: a peg dropped 2 mm off a chamfered hole's axis is guided in and settles on its floor",
          "[contact][patches][scene]") {
  // benchmarks/scenes/peg_in_chamfered_hole.yaml: one cell, a box less a blind hole and a 45° chamfer on its axis (two
  // holes, cut across the axis at the chamfer's lower end: docs/geometry.md, "Several holes"). 2 mm off the axis, four
  // times the clearance, the peg lands on the chamfer and must slide into the hole. Before, every query of this pair
  // was the column engine's (2–4 ms). The checks: tests/peg_drop_check.h.
  check_peg_settles_in_hole("peg_in_chamfered_hole");
}

namespace {

// A piece's closed form: its volume and centroid.
struct PieceReference {
  double V;
  Vec3 c;
};

// A peg sunk into a blind hole's floor with corners in its wall, at tolerances 1e-3 and 1e-7: the query's pieces are
// the floor's part (largest, first) and one per corner, each against its closed form; the floor's normal estimate
// straight up (the peg's bottom face alone), each corner's horizontal and leaning toward the hole's axis by at least
// `inward` (the cosine). A corner's error is the sum's share (the tolerance holds for the query's whole, not each piece):
// a corner of 1/10 of V may carry up to ten times the tolerance relative to itself.
void check_floor_and_corners(const Cell& peg, const Pose& pose, const Cell& plate, const PieceReference& floor_ref,
                             const std::vector<PieceReference>& corner_refs, double inward, const char* what) {
  double V = floor_ref.V;
  for (const PieceReference& r : corner_refs) V += r.V;
  for (const double tolerance : {1e-3, 1e-7}) {
    INFO(what << ", tolerance " << tolerance);
    QueryOptions o;
    o.tolerance = tolerance;
    const Interference q = interference(peg, pose, plate, Pose{}, o);
    REQUIRE(q.patches.size() == 1 + corner_refs.size());
    CHECK(std::abs(q.volume - V) <= tolerance * V);
    const Interference& floor = q.patches[0];
    CHECK(std::abs(floor.volume - floor_ref.V) <= tolerance * floor_ref.V);
    CHECK((floor.centroid - floor_ref.c).norm() <= tolerance * std::cbrt(floor_ref.V));
    CHECK(floor.normal_estimate.dot(Vec3::UnitZ()) > 1 - 1e-9);
    double worst = 0;
    for (size_t k = 1; k < q.patches.size(); ++k) {
      const Interference& corner = q.patches[k];
      const PieceReference& r = *std::min_element(corner_refs.begin(), corner_refs.end(), [&](auto& x, auto& y) {
        return (x.c - corner.centroid).norm() < (y.c - corner.centroid).norm();
      });
      CHECK(std::abs(corner.volume - r.V) <= 10 * tolerance * r.V);
      CHECK((corner.centroid - r.c).norm() <= 10 * tolerance * std::cbrt(r.V));
      CHECK(corner.normal_estimate.dot(-Vec3(r.c.x(), r.c.y(), 0).normalized()) > inward);
      CHECK(std::abs(corner.normal_estimate.z()) < 1e-9);
      worst = std::max(worst, std::abs(corner.volume / r.V - 1));
    }
    std::printf("%s, tol %.0e: V %.2e off, the floor's %.2e, the corners' up to %.2e\n", what, tolerance,
                q.volume / V - 1, floor.volume / floor_ref.V - 1, worst);
  }
}

}  // namespace

TEST_CASE("patches: a square peg on a blind hole's floor with two corners in its wall: the floor's part and each corner's",
          "[geometry][patches]") {
  // The plate less a hole 20 mm deep (floor at z_f = −0.02). A 14 mm square peg, upright, e = 1 mm off the axis along x,
  // sunk δ = 0.1 mm below the floor: its corners (e + a/2, ±a/2) lie 10.63 mm from the axis, 0.13 mm into the wall. One
  // connected lens (the floor's slab joins the corners), cut at the floor's plane into three pieces.
  Primitive blind = rod(PrimitiveKind::Cylinder, kHole, 0.02);
  blind.pose.position = Vec3(0, 0, -0.01);
  const Cell plate = cell_with_hole(box(Vec3(0.1, 0.1, kThick), Pose{Vec3(0, 0, kMid), Quat::Identity()}), blind);
  const double a = 0.014, e = 0.001, delta = 1e-4, z_f = -0.02;
  // Below the floor the plate is whole under the peg: the floor's part is the square swept over [z_f − δ, z_f].
  const PieceReference floor{a * a * delta, Vec3(e, 0, z_f - delta / 2)};
  // The corner at +y: x from where the circle leaves the square's edge y = a/2 (x0 = √(R² − a²/4)) to the side
  // x = e + a/2, y from the circle (√(R² − x²)) to a/2; swept over the hole's depth [z_f, 0]. Smooth on the interval
  // (x < R): 40-point Gauss–Legendre is exact to rounding. The corner at −y is its mirror image.
  std::vector<double> t, w;
  gauss_legendre(40, t, w);
  const double x0 = std::sqrt(kHole * kHole - a * a / 4), x1 = e + a / 2;
  double A = 0, Mx = 0, My = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const double x = x0 + 0.5 * (x1 - x0) * (t[i] + 1), dx = 0.5 * (x1 - x0) * w[i];
    const double Y = std::sqrt(kHole * kHole - x * x);
    A += (a / 2 - Y) * dx, Mx += x * (a / 2 - Y) * dx, My += 0.5 * (a * a / 4 - Y * Y) * dx;
  }
  const std::vector<PieceReference> corners{{-A * z_f, Vec3(Mx / A, My / A, z_f / 2)},
                                            {-A * z_f, Vec3(Mx / A, -My / A, z_f / 2)}};
  // The corners' normal estimates: inward, between the peg's two side faces.
  check_floor_and_corners(make_cell({box(Vec3(a, a, 0.06))}), Pose{Vec3(e, 0, z_f - delta + 0.03), Quat::Identity()},
                          plate, floor, corners, 0.7, "square peg on a round hole's floor");
}

TEST_CASE("patches: a square peg turned 45° on a square pocket's floor with a corner in its wall: two pieces",
          "[geometry][patches]") {
  // A pocket 21 mm square and 20 mm deep (floor at z_f = −0.02); a 14 mm square peg turned 45°, e = 0.7 mm off the axis
  // along x, sunk δ = 0.1 mm below the floor. Its corner at x = e + a/√2 lies d = e + a/√2 − 10.5 mm = 0.0995 mm into
  // the wall: a right-angled triangle of depth d and area d², swept from the floor to the plate's top face. Its other
  // corners stay 0.6 mm clear. Closed forms: the floor's part a² δ at (e, 0, z_f − δ/2); the corner's d² |z_f| at
  // (10.5 mm + d/3, 0, z_f/2), its normal estimate along −x (its two faces' areas cancel along y).
  Primitive pocket = box(Vec3(0.021, 0.021, 0.02));
  pocket.pose.position = Vec3(0, 0, -0.01);
  const Cell plate = cell_with_hole(box(Vec3(0.1, 0.1, kThick), Pose{Vec3(0, 0, kMid), Quat::Identity()}), pocket);
  const double a = 0.014, e = 0.0007, delta = 1e-4, z_f = -0.02, d = e + a / std::sqrt(2.0) - 0.0105;
  const Pose pose{Vec3(e, 0, z_f - delta + 0.03), Quat(Eigen::AngleAxisd(kPi / 4, Vec3::UnitZ()))};
  check_floor_and_corners(make_cell({box(Vec3(a, a, 0.06))}), pose, plate, {a * a * delta, Vec3(e, 0, z_f - delta / 2)},
                          {{d * d * -z_f, Vec3(0.0105 + d / 3, 0, z_f / 2)}}, 1 - 1e-9,
                          "turned square peg on a square pocket's floor");
}

namespace {

// A steel peg dropped from 5 mm over a plate that is one cell (a 0.1 x 0.1 x 0.03 m box less a blind `hole` 20 mm deep:
// floor at z = −0.02), its centre (x, y) off the hole's axis, tilted and turned (degrees); 0.4 s, RK3 at 1e-4 s, the
// volumetric model (k_v 1e10 N/m³, bristle friction). The run and the energy checked by check_peg_drop
// (tests/peg_drop_check.h), then `checks`.
void drop_into_one_cell(const std::string& name, const std::string& hole, const std::string& peg, double x, double y,
                        double tilt_deg, double turn_deg, const std::string& checks) {
  INFO(name);
  const std::filesystem::path dir = cli::temp_dir(name);
  const std::string scene = (dir / "drop.yaml").string();
  std::FILE* f = std::fopen(scene.c_str(), "w");
  REQUIRE(f);
  std::fprintf(f, R"(name: %s
simulation: {duration: 0.4, step: 1.0e-4, integrator: rk3, geometry_tolerance: 1.0e-3}
gravity: [0, 0, -9.81]
output: {interval: 1.0e-3}
bodies:
  plate:
    fixed: true
    geometry:
      intersection:
        - box: {size: [0.1, 0.1, 0.03]}
          position: [0, 0, -0.015]
        - complement:
            %s
            position: [0, 0, -0.01]
  peg:
    density: 7800
    position: [%.6g, %.6g, 0.035]
    orientation: {rpy_deg: [0, %g, %g]}
    geometry:
      %s
contacts:
  - bodies: [peg, plate]
    model: volumetric
    k_v: 1.0e10
    e_eff: 0.5
    v_small: 1.0e-3
    tau_r: 1.0
    mu_s: 0.3
    mu_c: 0.25
    sigma0: 1.0e5
    sigma1: 316.228
    sigma2: 0.0
    v_s: 1.0e-3
    tau_dw: 0.3
    v_e: 1.0e-5
)",
               name.c_str(), hole.c_str(), x, y, tilt_deg, turn_deg, peg.c_str());
  std::fclose(f);
  check_peg_drop(dir, scene, checks);
  std::filesystem::remove_all(dir);
}

}  // namespace

TEST_CASE("patches: square pegs dropped into a one-cell round hole end upright on its floor, the energy never rising",
          "[contact][patches][scene]") {
  // A 20 mm square peg, 60 mm long, in a round hole r 14.5 mm. Its half-diagonal is 14.14 mm: resting on the floor it
  // touches the wall with its lower corners, a concave corner of the cell. Before the cut at the floor's plane these
  // three drops stopped on the energy guard in each of four builds of the geometry (one U-shaped patch whose normal
  // jumped between the floor's and the wall's: docs/contact-models.md, "A patch in a concave corner"); over 240 such
  // drops the energy rose by at most 3.6e-6 J after it. Checked besides the run and the energy: the peg ends upright
  // (< 3°) with its lowest corner on the floor (0.1 mm: it may still rock) and every lower corner inside the hole
  // (r ≤ 14.5 mm, plus 0.1 mm of wall penetration).
  const std::string upright_on_the_floor = R"PY(
corners = [p + R @ np.array([sx * 0.01, sy * 0.01, -0.03]) for sx in (-1, 1) for sy in (-1, 1)]
expect('tilt of the peg (deg)', np.degrees(np.arccos(min(1, R[2, 2]))), 0, 3)
expect("height of the lowest corner (m)", min(c[2] for c in corners), -0.0201, -0.0199)
expect('largest radius of a lower corner (m)', max(np.hypot(c[0], c[1]) for c in corners), 0, 0.0146)
)PY";
  struct Drop {
    double off_mm, tilt_deg, turn_deg;
  };
  for (const Drop d : {Drop{0.10, 1.5, 10}, Drop{0.25, 1, 20}, Drop{0.40, 1.5, 20}}) {
    char name[64];
    std::snprintf(name, sizeof name, "square_peg_%.2f_%.1f_%.0f", d.off_mm, d.tilt_deg, d.turn_deg);
    drop_into_one_cell(name, "cylinder: {radius: 0.0145, length: 0.02}", "box: {size: [0.02, 0.02, 0.06]}",
                       d.off_mm * 1e-3, 0, d.tilt_deg, d.turn_deg, upright_on_the_floor);
  }
}

TEST_CASE("patches: pegs dropped into a one-cell square pocket end on its floor, the energy never rising",
          "[contact][patches][scene]") {
  // A pocket 21 mm square: a 14 mm square peg turned 45° (its corners reach 9.9 mm from its axis, onto the walls) and
  // a round peg r 10 mm. Before the cut at the floor's plane these two stopped on the energy guard (5 of 81 such drops
  // did; none after, the energy rising by at most 8.9e-8 J). Checked besides the run and the energy: the peg ends within
  // 5° of upright, its centre 30 mm over the floor to within its tilt's lift (at 5°: 0.6 mm) and inside the pocket.
  const std::string on_the_floor = R"PY(
expect('tilt of the peg (deg)', np.degrees(np.arccos(min(1, R[2, 2]))), 0, 5)
expect("height of the peg's centre (m)", p[2], 0.0099, 0.0106)
expect('offset of the centre from the pocket axis (m)', max(abs(p[0]), abs(p[1])), 0, 0.0035)
)PY";
  const double c = 0.1e-3 / std::sqrt(2.0);
  drop_into_one_cell("pocket_square_peg", "box: {size: [0.021, 0.021, 0.02]}", "box: {size: [0.014, 0.014, 0.06]}", c,
                     c, 3, 45, on_the_floor);
  drop_into_one_cell("pocket_round_peg", "box: {size: [0.021, 0.021, 0.02]}",
                     "cylinder: {radius: 0.01, length: 0.06}", 0.25e-3 * std::cos(20 * kPi / 180),
                     0.25e-3 * std::sin(20 * kPi / 180), 2, 20, on_the_floor);
}

TEST_CASE("patches: a ball dropped beside a drilled hole's axis settles in its seat, sunk where k_v V carries its weight",
          "[contact][patches][scene]") {
  // benchmarks/scenes/ball_on_hole.yaml: a steel ball (r 12 mm) on a through hole (r 10.5 mm) of a one-cell plate, the
  // ball mode with a hole (before, the column engine). Dropped 1 mm off the axis it rocks across the seat and settles
  // centred by ~0.1 s. At rest (statics; the scene has no relaxation) k_v V = m g, and V is the ring where the ball
  // meets the hole's edge: sunk d below the seat (centre at s = √(R² − a²) above the top face), the ring's sections
  // are annuli of area π (s² − u²) over u ∈ [−s, d − s] (u the height from the centre), so
  // V = π (s² d − ((d − s)³ + s³) / 3).
  // Tolerances: the query's 1e-3 on V moves d (56 µm) by 1e-3 · d / 2, 28 nm: 0.1 µm allowed; centred to 1 µm (the
  // ring's pull toward the axis is 1.8 N per mm: the rocking has died away by 0.2 s).
  namespace fs = std::filesystem;
  const fs::path dir = cli::temp_dir("ball_on_hole");
  const std::string out = (dir / "ball.h5").string();
  const cli::Run r = cli::run_command(cli::kVcsim + " run " + cli::kSource +
                                      "/benchmarks/scenes/ball_on_hole.yaml --set simulation.duration=0.2 -q -o " + out);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const double R = 0.012, a = 0.0105, m = 7800 * 4.0 / 3 * M_PI * R * R * R, g = 9.81, V = m * g / 1e10;
  const double s = std::sqrt(R * R - a * a);
  double lo = 0, hi = 1e-3;  // the sinking d where the ring's V(d) = V: V grows with d
  for (int it = 0; it < 80; ++it) {
    const double d = 0.5 * (lo + hi);
    (M_PI * (s * s * d - (std::pow(d - s, 3) + s * s * s) / 3) < V ? lo : hi) = d;
  }
  const double z = s - 0.5 * (lo + hi);
  char bounds[200];
  std::snprintf(bounds, sizeof bounds, "%.17g, %.17g", z - 1e-7, z + 1e-7);
  const int status = cli::run_python_check(dir, cli::kCheckPrelude, "f = h5py.File('" + out + "')\n" +
      "p = f['bodies/ball/position'][-1]\n"
      "expect('rest height of the ball centre (m)', p[2], " + bounds + ")\n"
      "expect('offset of the ball centre from the axis (m)', np.hypot(p[0], p[1]), 0, 1e-6)\n"
      "E = f['energy/total'][:]\n"
      // What the bristles can hold: ½ μ_s² m g / σ0 = 2.5e-7 J.
      "expect('largest rise of the total energy above its running minimum (J)',\n"
      "       np.max(E - np.minimum.accumulate(E)), 0, 1e-6)\n");
  CHECK(status == 0);
  fs::remove_all(dir);
}
