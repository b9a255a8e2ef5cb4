// Cells with a hole (geometry/ruled_faces.h, "Holes"): a plate cut by a complemented infinite cylinder, cylinder,
// box or cone (a drilled hole, a blind hole, a slot, a countersink), against a peg. References computed independently:
//  - a peg pressed sideways into a round hole, or standing across its rim: the lune (the peg's disc less the hole's)
//    swept over a height, its section moments a 1-D integral over x (below);
//  - a peg on a blind hole's floor: a disc swept over the depth, in closed form;
//  - a turned square peg's corner in a square slot's wall: a triangle swept over the plate, in closed form;
//  - tilted pegs at random poses: exact chords along the normal on a 1000² grid (tests/geometry_support.h);
//  - the same moments through fields along four random directions at tolerance 1e-9: a switch of state that the
//    panels missed shows as a difference (one such pose came out 2.4 % high before the panels' nodes and seeds were
//    checked for it);
//  - smoothness: third differences of V along a lowering.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "geometry/cell_impl.h"
#include "geometry/lens_rules.h"
#include "geometry/ruled_faces.h"
#include "tests/geometry_checks.h"

using namespace geometry_support;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kHole = 0.0105, kPeg = 0.01;  // radii (m): 0.5 mm of clearance

// A 0.1 x 0.1 m plate, z in [−0.03, 0], less `hole`.
Cell plate_with(const Primitive& hole) {
  return cell_with_hole(box(Vec3(0.1, 0.1, 0.03), Pose{Vec3(0, 0, -0.015), Quat::Identity()}), hole);
}
Primitive through_hole() {
  Primitive p = primitive(PrimitiveKind::InfiniteCylinder);
  p.radius = kHole;
  return p;
}
Primitive cylinder_hole(double length, double centre_z) {
  Primitive p = rod(PrimitiveKind::Cylinder, kHole, length);
  p.pose.position = Vec3(0, 0, centre_z);
  return p;
}
// A countersink: a frustum from r 6 mm at the plate's bottom face to 12.5 mm at its top face.
Primitive countersink() {
  Primitive p = rod(PrimitiveKind::Cone, 0.006, 0.03, 0.0125);
  p.pose.position = Vec3(0, 0, -0.015);
  return p;
}
// A 14 mm square peg, 60 mm long.
Cell square_peg() { return make_cell({box(Vec3(0.014, 0.014, 0.06))}); }

// The height of `body` (at `pose` but for its z) at which it first touches `plate`, bisected between lo (touching)
// and hi (clear) to 60 halvings.
double touch_height(const Cell& body, Pose pose, const Cell& plate, double lo, double hi) {
  for (int i = 0; i < 60; ++i) {
    pose.position.z() = 0.5 * (lo + hi);
    (interference(body, pose, plate, Pose{}).overlap ? lo : hi) = pose.position.z();
  }
  return hi;
}

// Moments of a plane region's section: ∫1, ∫x, ∫x², ∫y² (∫y and ∫xy vanish where the region is symmetric in y).
struct Section {
  double A = 0, Mx = 0, Sxx = 0, Syy = 0;
};
// The lune: the disc of radius r about (d, 0) less the disc of radius R about the origin. At abscissa x its section is
// |y| ∈ [Y2, Y1], Y1 = √(r² − (x − d)²), Y2 = √(R² − x²) (0 for |x| ≥ R); between the breaks (the circles' crossing,
// ±R, d ± r) each end goes like a square root, so each piece is 400-point Gauss–Legendre under x = m − h cos θ.
Section lune(double r, double R, double d) {
  std::vector<double> t, w;
  gauss_legendre(400, t, w);
  std::vector<double> breaks{d - r, d + r, (d * d + R * R - r * r) / (2 * d), -R, R};
  std::sort(breaks.begin(), breaks.end());
  Section s;
  for (size_t k = 0; k + 1 < breaks.size(); ++k) {
    const double a = std::max(breaks[k], d - r), b = std::min(breaks[k + 1], d + r);
    if (!(b > a)) continue;
    const double m = 0.5 * (a + b), h = 0.5 * (b - a);
    for (size_t i = 0; i < t.size(); ++i) {
      const double theta = 0.5 * kPi * (t[i] + 1), x = m - h * std::cos(theta), dx = h * std::sin(theta) * 0.5 * kPi * w[i];
      const double Y1 = std::sqrt(std::max(0.0, r * r - (x - d) * (x - d)));
      const double Y2 = std::abs(x) < R ? std::sqrt(R * R - x * x) : 0.0;
      if (!(Y1 > Y2)) continue;
      const double len = 2 * (Y1 - Y2);
      s.A += len * dx, s.Mx += x * len * dx, s.Sxx += x * x * len * dx;
      s.Syy += 2.0 / 3 * (Y1 * Y1 * Y1 - Y2 * Y2 * Y2) * dx;
    }
  }
  return s;
}
// A section swept over z in [z0, z1], then turned by Q (about the origin).
MomentsReference prism(const Section& s, double z0, double z1, const Quat& Q = Quat::Identity()) {
  const double t = z1 - z0, V = s.A * t;
  const Vec3 m1(s.Mx * t, 0, s.A * (z1 * z1 - z0 * z0) / 2);
  Mat3 m2 = Mat3::Zero();
  m2(0, 0) = s.Sxx * t, m2(1, 1) = s.Syy * t, m2(2, 2) = s.A * (z1 * z1 * z1 - z0 * z0 * z0) / 3;
  m2(0, 2) = m2(2, 0) = s.Mx * (z1 * z1 - z0 * z0) / 2;
  const Mat3 R = Q.toRotationMatrix();
  return moments_from_raw(V, R * m1, R * m2 * R.transpose());
}

// The public query, served without a lattice.
Interference served(const Cell& peg, const Pose& pose, const Cell& plate, const Pose& plate_pose = {}) {
  const Interference q = interference(peg, pose, plate, plate_pose);
  REQUIRE(q.overlap);
  CHECK(q.spacing == 0);
  return q;
}

// The ruled faces' V through fields along four random directions, each at tolerance 1e-9: largest difference from
// the first relative to V.
double frame_spread(const Cell& peg, const Pose& pose, const Cell& plate, const Vec3& at, unsigned seed) {
  std::mt19937 rng(seed);
  double first = 0, spread = 0;
  for (int k = 0; k < 4; ++k) {
    const Pose frame{at, random_rotation(rng)};
    long lines = 0;
    const auto m = ruled_faces_moments(peg.impl->prims, pose, plate.impl->prims, Pose{}, frame, 1e-9, lines);
    REQUIRE(m);
    if (k == 0) first = m->m0;
    spread = std::max(spread, std::abs(m->m0 - first) / first);
  }
  return spread;
}

}  // namespace

TEST_CASE("holes: a peg pressed sideways into a round hole, against the lune swept through the plate",
          "[geometry][holes]") {
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.08)});
  // The hole as an infinite cylinder, as a cylinder exactly as long as the plate is thick (its planes on the plate's:
  // dropped), and as one reaching beyond both faces.
  const Cell plates[] = {plate_with(through_hole()), plate_with(cylinder_hole(0.03, -0.015)),
                         plate_with(cylinder_hole(0.05, -0.012))};
  std::mt19937 rng(11);
  for (const Cell& plate : plates)
    for (const double depth : {2e-5, 2e-4, 1e-3}) {
      // The whole scene turned at random: the plate at Q, the peg upright in it.
      const Quat Q = random_rotation(rng);
      const double d = kHole - kPeg + depth;
      const Interference q = served(peg, Pose{Q * Vec3(d, 0, -0.015), Q}, plate, Pose{Vec3::Zero(), Q});
      // 1e-6: the query's tolerance is 1e-3, but a lune's faces are a cylinder's side and planes, integrated to the
      // rounding where no ruling crosses a kink (measured 1e-9 .. 4e-7).
      check_moments(moments_of(q), prism(lune(kPeg, kHole, d), -0.03, 0, Q), 1e-6, "peg pressed into a round hole");
    }
}

TEST_CASE("holes: a peg standing across a hole's rim, against the lune swept over its depth", "[geometry][holes]") {
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.08)});
  const Cell plate = plate_with(through_hole());
  for (const double offset : {0.012, 0.015, 0.02})
    for (const double depth : {1e-6, 1e-4}) {
      const Interference q = served(peg, Pose{Vec3(offset, 0, 0.04 - depth), Quat::Identity()}, plate);
      check_moments(moments_of(q), prism(lune(kPeg, kHole, offset), -depth, 0), 1e-6, "peg across a hole's rim");
    }
}

TEST_CASE("holes: a peg on a blind hole's floor, against the disc swept over its depth", "[geometry][holes]") {
  // A hole 20 mm deep from the plate's top face: the floor is a face of the hole, turned inward.
  const Cell plate = plate_with(cylinder_hole(0.02, -0.01));
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.08)});
  for (const Vec3& at : {Vec3(0, 0, 0), Vec3(2e-4, -3e-4, 0)})
    for (const double depth : {1e-6, 1e-4}) {
      const Interference q = served(peg, Pose{at + Vec3(0, 0, 0.02 - depth), Quat::Identity()}, plate);
      const double A = kPi * kPeg * kPeg, z0 = -0.02 - depth, z1 = -0.02, t = depth;
      const Vec3 m1(A * at.x() * t, A * at.y() * t, A * (z1 * z1 - z0 * z0) / 2);
      Mat3 m2 = Mat3::Zero();
      const double S = A * kPeg * kPeg / 4;  // ∫x² over the disc about its centre
      m2(0, 0) = (S + A * at.x() * at.x()) * t, m2(1, 1) = (S + A * at.y() * at.y()) * t;
      m2(0, 1) = m2(1, 0) = A * at.x() * at.y() * t, m2(2, 2) = A * (z1 * z1 * z1 - z0 * z0 * z0) / 3;
      m2(0, 2) = m2(2, 0) = A * at.x() * (z1 * z1 - z0 * z0) / 2, m2(1, 2) = m2(2, 1) = A * at.y() * (z1 * z1 - z0 * z0) / 2;
      check_moments(moments_of(q), moments_from_raw(A * t, m1, m2), 1e-9, "peg on a blind hole's floor");
    }
}

TEST_CASE("holes: a turned square peg's corner in a square slot's wall, against the triangle swept through the plate",
          "[geometry][holes]") {
  const double a = 0.012, b = 0.0212;  // the peg's and the slot's sides
  const Cell plate = plate_with(box(Vec3(b, b, 0.05), Pose{Vec3(0, 0, -0.015), Quat::Identity()}));
  const Cell peg = make_cell({box(Vec3(a, a, 0.08))});
  for (const double theta : {0.3, 0.7})
    for (const double depth : {1e-5, 5e-4}) {
      const Quat turn(Eigen::AngleAxisd(theta, Vec3::UnitZ()));
      const double reach = 0.5 * a * (std::cos(theta) + std::sin(theta));
      const Vec3 centre(0.5 * b + depth - reach, 0.001, -0.015);
      const Interference q = served(peg, Pose{centre, turn}, plate);
      // The corner beyond the wall x = b/2: the vertex furthest out and where its two edges cross the wall.
      std::vector<Vec3> corners;
      for (const Vec3& c : {Vec3(1, 1, 0), Vec3(-1, 1, 0), Vec3(-1, -1, 0), Vec3(1, -1, 0)})
        corners.push_back(centre + turn * (0.5 * a * c));
      int k = 0;
      for (int j = 1; j < 4; ++j)
        if (corners[j].x() > corners[k].x()) k = j;
      const Vec3 v0 = corners[k];
      std::vector<Vec3> tri{v0};
      for (const int j : {(k + 1) % 4, (k + 3) % 4}) {
        const Vec3 vn = corners[j];
        tri.push_back(v0 + (v0.x() - 0.5 * b) / (v0.x() - vn.x()) * (vn - v0));
      }
      // A triangle's ∫1 = A, ∫x = A s / 3, ∫x xᵀ = A / 12 (Σ v vᵀ + s sᵀ), s the vertices' sum; swept over z ∈ [−0.03, 0].
      const Vec3 e1 = tri[1] - tri[0], e2 = tri[2] - tri[0];
      const double A = 0.5 * std::abs(e1.x() * e2.y() - e1.y() * e2.x()), z0 = -0.03, z1 = 0, t = z1 - z0;
      Vec3 s = Vec3::Zero();
      Mat3 vv = Mat3::Zero();
      for (Vec3 v : tri) v.z() = 0, s += v, vv += v * v.transpose();
      const Mat3 plane = A / 12 * (vv + s * s.transpose());
      Vec3 m1 = A * s / 3 * t;
      m1.z() = A * (z1 * z1 - z0 * z0) / 2;
      Mat3 m2 = plane * t;
      m2(2, 2) = A * (z1 * z1 * z1 - z0 * z0 * z0) / 3;
      for (int i = 0; i < 2; ++i) m2(i, 2) = m2(2, i) = A * s[i] / 3 * (z1 * z1 - z0 * z0) / 2;
      check_moments(moments_of(q), moments_from_raw(A * t, m1, m2), 1e-6, "square peg's corner in a slot's wall");
    }
}

TEST_CASE("holes: tilted pegs at random poses, against exact chords and through fields along other directions",
          "[geometry][holes]") {
  struct Fixture {
    const char* name;
    Cell plate;
  };
  const std::vector<Fixture> fixtures{{"through hole", plate_with(through_hole())},
                                      {"blind hole", plate_with(cylinder_hole(0.0202, -0.0099))},
                                      {"countersink", plate_with(countersink())},
                                      {"slot", plate_with(box(Vec3(0.0212, 0.0212, 0.05),
                                                              Pose{Vec3(0, 0, -0.015), Quat::Identity()}))}};
  const std::vector<Cell> pegs{make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)}),
                               make_cell({rod(PrimitiveKind::Cone, kPeg, 0.06, 0.004)})};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const Fixture& fx : fixtures)
    for (const Cell& peg : pegs) {
      int n = 0;
      while (n < 3) {
        const Quat tilt(Eigen::AngleAxisd(0.3 * std::abs(u(rng)), Vec3(u(rng), u(rng), 0).normalized()));
        const Pose pose{Vec3(0.012 * u(rng), 0.012 * u(rng), 0.03 * u(rng)), tilt};
        const Interference q = interference(peg, pose, fx.plate, Pose{});
        if (!(q.volume > 1e-11 && q.volume < 3e-6)) continue;
        ++n;
        CHECK(q.spacing == 0);
        // 1e-3: the query's tolerance; the chords' grid is good to ~1e-5 of V on these poses (1000² against 2000²).
        check_moments(moments_of(q), chords_moments(peg, pose, fx.plate, Pose{}, q, 1000), 1e-3, fx.name);
        // 1e-7: the fields differ, the faces that carry them too; each result is good to 1e-9.
        const double spread = frame_spread(peg, pose, fx.plate, q.centroid, 100 + n);
        std::printf("  through four fields: V within %.1e\n", spread);
        CHECK(spread < 1e-7);
      }
    }
}

TEST_CASE("holes: a cylinder tilted in a square slot, where a piece lives over a narrow range of rulings",
          "[geometry][holes]") {
  // The pose that came out 2.4 % high (in every field direction, its estimate met) before the panels' nodes and the
  // seeds were checked for states the state samples missed: the peg's side rulings run nearly along the slot's walls.
  const Cell plate = plate_with(box(Vec3(0.0212, 0.0212, 0.05), Pose{Vec3(0, 0, -0.015), Quat::Identity()}));
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)});
  const Pose pose{Vec3(-0.0033297354322252316, 0.0036551730772407033, 0.0023054816862243732),
                  Quat(0.92418072041768851, 0.010596703018288099, -0.0061182763428715139, -0.38175944335140788)};
  const Interference q = served(peg, pose, plate);
  check_moments(moments_of(q), chords_moments(peg, pose, plate, Pose{}, q, 1000), 1e-3, "cylinder tilted in a slot");
  CHECK(frame_spread(peg, pose, plate, q.centroid, 3) < 1e-7);
}

TEST_CASE("holes: a square peg turned in a square slot, where the slot's walls run along a face's rulings",
          "[geometry][holes]") {
  // Through four fields this pose came out 2.3e-8 m³ (1.6 %) apart, and the query 1e-3 off, before a face was split
  // where a hole's plane along its rulings starts taking them out whole: the run beyond the slot's wall on the plate's
  // bottom face lay between two samples, its chords' length jumping from negative to positive there.
  const Cell plate = plate_with(box(Vec3(0.0212, 0.0212, 0.05), Pose{Vec3(0, 0, -0.015), Quat::Identity()}));
  const Cell peg = square_peg();
  const Pose pose{Vec3(-0.0051295379541876603, 0.0029585359971207774, -0.026910708578185807),
                  Quat(0.75766038893399767, 0.0012588298668076564, -0.10077603196818251, 0.64482039496940369)};
  const Interference q = served(peg, pose, plate);
  // The column engine at 1e-6 (its error here ~1e-6 of V; exact chords on 4000² grids along x, y and z agree with it
  // within 3e-4, their own grids' error on the slot's corners).
  const Interference ref = interference(peg, pose, plate, Pose{}, column_engine(1e-6));
  check_moments(moments_of(q), moments_of(ref), 1e-3, "square peg in a square slot");
  CHECK(frame_spread(peg, pose, plate, q.centroid, 9) < 1e-7);
}

TEST_CASE("holes: a box in a countersink, where a chord vanishes inside the hole", "[geometry][holes]") {
  // bench_holes seed 2, pose 8 of box–countersink. In one field direction (the first of seed 1) V came out 2.6e-3 low:
  // where a box face's chord shrank to nothing inside the hole, its signed length jumped from −1.1e-3 to 0, and false
  // position at that run's end spent its 100 steps 0.3 mm short. With the length continuous there: 2.0e-5 in that
  // direction; with false position's crawls cut short by bisections (lens::find_edge), 8.4e-15, so the random poses'
  // bound of 1e-7 now holds here too.
  const Cell plate = plate_with(countersink());
  const Cell peg = square_peg();
  const Pose pose{Vec3(0.0056784128981339057, -0.0049501503788939609, 0.026801647419311948),
                  Quat(0.44294031824636976, 0.10980356914601738, -0.035792473558826345, -0.88908152017188014)};
  const Interference q = served(peg, pose, plate);
  check_moments(moments_of(q), chords_moments(peg, pose, plate, Pose{}, q, 1000), 1e-3, "box in a countersink");
  const double spread = frame_spread(peg, pose, plate, q.centroid, 1);
  std::printf("  through four fields: V within %.1e\n", spread);
  CHECK(spread < 1e-7);
}

TEST_CASE("holes: a run's end found where false position crawls towards a zero outside the set", "[geometry][holes]") {
  // f > 0 up to the edge r, then −(x − t)², which touches 0 from outside the set at t: plain false position with the
  // Illinois step crawls towards t and stopped at its 100 steps up to 5e-9 (r 0.3) and 7e-5 (r 0.45) short of r.
  // lens::find_edge bisects after four steps that do not halve the bracket: it reaches the tolerance, within
  // 5 log2(width / tol) steps.
  const double tol = 1e-12;
  const int bound = 5 * static_cast<int>(std::ceil(std::log2(1.0 / tol)));
  for (const double t : {0.5, 0.7, 0.9, 0.99})
    for (const double r : {0.1, 0.3, 0.45}) {
      int calls = 0;
      auto f = [&](double x) {
        ++calls;
        return std::pair<double, long>(x < r ? 0.5 : -(x - t) * (x - t), x < r ? 1 : 2);
      };
      const lens::Edge e = lens::find_edge(f, 0.0, 0.5, 1, 1.0, -(1 - t) * (1 - t), 2, tol);
      CHECK(e.in < r);
      CHECK(e.out >= r);
      CHECK(e.out - e.in <= tol);
      CHECK(e.sig_in == 1);
      CHECK(e.sig_out == 2);
      CHECK(calls <= bound);
    }
  // A simple root: false position's pace is kept (17 steps to 1e-12 for cos x = x, as without the bisections).
  int calls = 0;
  auto g = [&](double x) {
    ++calls;
    return std::pair<double, long>(std::cos(x) - x, 0);
  };
  const lens::Edge e = lens::find_edge(g, 0.0, 1.0, 0, 1.0, std::cos(1.0) - 1, 0, tol);
  CHECK(std::abs(0.5 * (e.in + e.out) - 0.73908513321516064) <= tol);  // the Dottie number
  CHECK(calls <= 17);
}

TEST_CASE("holes: a box in a countersink whose run end search crawled and dropped 8 % of V", "[geometry][holes]") {
  // bench_holes seed 1, countersink/box pose 12. Through one field direction (frame below) the search for the end of a
  // box face's run, between a sample inside (a whole chord, 14 mm) and one outside, crawled towards a chord that
  // vanishes tangentially beyond the edge and stopped at its 100 steps next to the inner sample: the run's other two
  // states, 2.6 mm of rulings, were lost and V came out 8.1 % low. Whether it happened hung on the frame's origin in
  // its last bits; both origins are taken here.
  const Cell plate = plate_with(countersink());
  const Cell peg = square_peg();
  const Pose pose{Vec3(0.0049040406726279222, -0.0022486967726969682, 0.015555120059803831),
                  Quat(0.74829209081106074, -0.13466212339637978, -0.013995779937327354, 0.64940678892042336)};
  const Interference q = served(peg, pose, plate);
  check_moments(moments_of(q), chords_moments(peg, pose, plate, Pose{}, q, 1000), 1e-3, "box in a countersink");
  const Quat turn(0.75550508710267839, 0.034296227854728779, -0.55354579354302802, 0.34874472980638771);
  for (const Vec3& at : {Vec3(0.011484124746075176, -0.0078598164736787199, -0.0074331515209425606),
                         Vec3(0.011484124746075174, -0.0078598164736787164, -0.0074331515209425623)}) {
    long lines = 0;
    const auto m = ruled_faces_moments(peg.impl->prims, pose, plate.impl->prims, Pose{}, Pose{at, turn}, 1e-9, lines);
    REQUIRE(m);
    // 1e-6: the public query's own error here (its tolerance is 1e-3; it met ~4e-10 against the tight result).
    CHECK(std::abs(m->m0 / q.volume - 1) < 1e-6);
  }
  CHECK(frame_spread(peg, pose, plate, q.centroid, 12) < 1e-7);
}

TEST_CASE("holes: a peg clear in its hole overlaps nothing, answered without the column engine", "[geometry][holes]") {
  const Cell plate = plate_with(through_hole());
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)});
  // Upright, 10 µm and 1 µm from the wall: no plane separates the peg from the plate's hull; every face's samples and
  // searches find no chord inside.
  for (const double gap : {1e-5, 1e-6}) {
    const Interference q = interference(peg, Pose{Vec3(kHole - kPeg - gap, 0, -0.015), Quat::Identity()}, plate, Pose{});
    CHECK_FALSE(q.overlap);
    CHECK(q.spacing == 0);
  }
  // 1 µm into the wall: the lune.
  const double d = kHole - kPeg + 1e-6;
  const Interference q = served(peg, Pose{Vec3(d, 0, -0.015), Quat::Identity()}, plate);
  // 1e-4, within the query's 1e-3: this lune runs 1.3 mm along the wall at a width under 1 µm, and the rule on
  // the sides' rulings meets its estimate at ~2e-6 there (deeper lunes above: ≤ 4e-7).
  check_moments(moments_of(q), prism(lune(kPeg, kHole, d), -0.03, 0), 1e-4, "peg 1 um into a hole's wall");
}

TEST_CASE("holes: V(h) is smooth, a tilted peg lowered onto a hole's rim 1000 x 1 um", "[geometry][holes]") {
  const Cell plate = plate_with(through_hole());
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)});
  const Quat tilt(Eigen::AngleAxisd(0.2, Vec3(0.3, 1, 0).normalized()));
  // Lowered from where V reaches 1e-8 m³ (the peg's lowest edge just past the rim; V(h) is not monotone over the
  // whole plate, which the peg can pass through).
  const Vec3 at(0.004, 0.001, 0);
  const double hi = height_for_volume(plate, Pose{}, peg, tilt, at, 1e-8, 0.02, 0.035, 50);
  const std::vector<double> V = lowered_volumes(plate, Pose{}, peg, tilt, at, hi, 1001, 1e-6);
  const Smoothness sm = third_differences(V);
  std::printf("tilted peg onto a hole's rim: V %.3e .. %.3e, %d non-increasing steps, max |d3V| / dV = %.3e\n", V[0],
              V.back(), sm.non_increasing, sm.worst);
  CHECK(sm.non_increasing == 0);
  CHECK(sm.worst < 0.01);  // a staircase, a jump or a kink would be O(1); smooth, O(step²)
}

namespace {

// A 14 mm square peg 1 mm off a blind hole's axis (r 10.5 mm, floor at −0.02), its +x corners near the wall, tilted
// 0.01 rad about (1, 3, 0): its top toward the wall, so that lowered, every height of the wall meets a deeper part of
// the corners and V only grows; one lower corner lowest. `over_floor`: that corner's height over the floor's plane.
Pose corners_in_blind_hole(double over_floor) {
  const Quat q(Eigen::AngleAxisd(0.01, Vec3(1, 3, 0).normalized()));
  double below = 0;  // the lowest corner's depth below the peg's centre
  for (const double sx : {-1.0, 1.0})
    for (const double sy : {-1.0, 1.0}) below = std::max(below, -(q * Vec3(0.007 * sx, 0.007 * sy, -0.03)).z());
  return Pose{Vec3(0.001, 0, -0.02 + below + over_floor), q};
}

}  // namespace

TEST_CASE("holes: the cut at a blind hole's floor adds up to the uncut lens, a square peg lowered past its plane",
          "[geometry][holes]") {
  // The peg's lowest corner is lowered from 0.25 mm over the floor's plane to 0.25 mm under it, 0.5 µm a step. Over
  // the plane the lens is the corners' alone, taken whole; from the step where the peg reaches the plane the public
  // query cuts it there (docs/geometry.md, "The lens's pieces") and the floor's part grows from nothing, like the cube
  // of the depth. Checked: V(h) never falls, and at every step the parts' sum is the uncut lens (the ruled faces with
  // no pieces asked for), so the cut adds no jump. (Third differences do not serve here: the floor's cubic onset is
  // physical, and beside the corners' slow growth it reads as O(1).)
  const Cell plate = plate_with(cylinder_hole(0.02, -0.01)), peg = square_peg();
  const Pose top = corners_in_blind_hole(2.5e-4);
  const std::vector<double> V = lowered_volumes(plate, Pose{}, peg, top.rotation, Vec3(0.001, 0, 0),
                                                top.position.z(), 1001, 5e-7);
  const Smoothness sm = third_differences(V);
  double apart = 0;
  int floor_parts = 0;
  for (int k = 0; k < 1001; ++k) {
    const Pose pose = corners_in_blind_hole(2.5e-4 - k * 5e-7);
    long lines = 0;
    const auto whole = ruled_faces_moments(peg.impl->prims, pose, plate.impl->prims, Pose{},
                                           Pose{pose.position, Quat::Identity()}, 1e-3, lines);
    REQUIRE(whole);
    apart = std::max(apart, std::abs(whole->m0 - V[k]) / V[k]);
    for (const Interference& piece : interference(peg, pose, plate, Pose{}).patches)
      floor_parts += piece.centroid.z() < -0.02;
  }
  std::printf("square peg past a blind hole's floor plane: V %.3e .. %.3e, %d non-increasing steps; a floor's part at "
              "%d of 1001 poses; the parts' sum %.2e off the uncut lens\n", V[0], V.back(), sm.non_increasing,
              floor_parts, apart);
  CHECK(V[0] > 0);  // the corners are in the wall from the start
  CHECK(sm.non_increasing == 0);
  CHECK(floor_parts >= 490);  // the lowering reaches past the plane: the cut was taken
  CHECK(apart < 1e-8);        // both to the tolerance 1e-3; these faces are planes and a cylinder: ~1e-10 apart
}

TEST_CASE("holes: a plane on the bounds of the pair's box is kept in every frame", "[geometry][holes]") {
  // The plate's top face bounds the box the faces are taken within (the plate's bounds cut by the peg's). In frames
  // along the hole's axis it lay on the box's bound only to rounding, and 1 ulp dropped it in some (the frame's origin
  // at the peg's centre or above it): V came out −2.5e-11 for 3.4e-11 m³ (found by the test above). Frames along the
  // hole's axis with origins 1 nm … 10 mm apart, against the public query.
  const Cell plate = plate_with(cylinder_hole(0.02, -0.01)), peg = square_peg();
  for (const double over_floor : {2.25e-4, 1.5e-4, 1e-4}) {
    const Pose pose = corners_in_blind_hole(over_floor);
    const double V = interference(peg, pose, plate, Pose{}).volume;
    for (const Vec3& shift : {Vec3(0, 0, 0), Vec3(1e-9, 0, 0), Vec3(0, 0, 1e-9), Vec3(0.007, 0, 0), Vec3(0, 0, 0.001),
                             Vec3(0, 0, -0.01), Vec3(0, 0, -0.03)}) {
      long lines = 0;
      const auto m = ruled_faces_moments(peg.impl->prims, pose, plate.impl->prims, Pose{},
                                         Pose{pose.position + shift, Quat::Identity()}, 1e-3, lines);
      REQUIRE(m);
      INFO("corner " << over_floor << " m over the floor, frame's origin shifted by " << shift.transpose());
      CHECK(std::abs(m->m0 / V - 1) < 1e-8);
    }
  }
}

TEST_CASE("holes: which cells with holes are the ruled faces' pair", "[geometry][holes]") {
  CellPrimitives plate{CellPrimitive{box(Vec3(0.1, 0.1, 0.03)), false, nullptr},
                       CellPrimitive{through_hole(), true, nullptr}};
  const CellPrimitives peg{CellPrimitive{rod(PrimitiveKind::Cylinder, kPeg, 0.06), false, nullptr}};
  CHECK(ruled_faces_pair(peg, plate));
  CHECK(ruled_faces_pair(plate, peg));
  CHECK_FALSE(ruled_faces_pair(plate, plate));  // a hole in each cell: the query plugs one (plug_subtracted)
  // A second hole 30 mm away: a plane parts them.
  Primitive second = through_hole();
  second.pose.position = Vec3(0.03, 0.01, 0);
  plate.push_back(CellPrimitive{second, true, nullptr});
  CHECK(ruled_faces_pair(peg, plate));
  CHECK(ruled_hole_pair(plate, peg));
  // A counterbore: a wide, shallow hole over the through hole, on its axis: cut across the axis at its floor.
  CellPrimitives counterbored = plate;
  counterbored.pop_back();
  Primitive bore = rod(PrimitiveKind::Cylinder, 0.016, 0.01);
  bore.pose.position = Vec3(0, 0, 0.01);  // the box here spans z in [−0.015, 0.015]
  counterbored.push_back(CellPrimitive{bore, true, nullptr});
  CHECK(ruled_faces_pair(peg, counterbored));
  // The same, its axis 1 mm off the hole's: neither a plane between them nor one across a shared axis.
  counterbored.back().primitive.pose.position.x() = 0.001;
  CHECK_FALSE(ruled_faces_pair(peg, counterbored));
  // Two through holes that cross each other.
  CellPrimitives crossing = counterbored;
  crossing.pop_back();
  Primitive across = through_hole();
  across.pose.position = Vec3(0.015, 0, 0);
  crossing.push_back(CellPrimitive{across, true, nullptr});
  CHECK_FALSE(ruled_faces_pair(peg, crossing));
  // A ball (or a capsule's cap: a ball cut by a plane) against the same cells: the ball mode, where the holes part.
  const CellPrimitives ball{CellPrimitive{sphere(0.012), false, nullptr}};
  CHECK(ruled_ball_pair(ball, plate));
  CHECK(ruled_hole_pair(plate, ball));
  CHECK_FALSE(ruled_ball_pair(ball, crossing));
  // A cell of holes only is unbounded.
  CHECK_FALSE(ruled_faces_pair(peg, CellPrimitives{CellPrimitive{through_hole(), true, nullptr}}));
}

// A plate drilled several times (one cell: a box less its holes), cut by planes between its holes into one-hole cells.
TEST_CASE("holes: a peg pressed into one of three holes, against the lune swept through the plate",
          "[geometry][holes]") {
  // The neighbour 1.5 mm beyond the pressed wall, which the peg reaches to within 0.5 mm: the plane between the two
  // holes goes in the room left beside the peg; a blind hole on the other side stays out of reach. (The bar below and
  // the tilted pegs after it cross the planes: both sides integrated.)
  Primitive near = through_hole(), blind = cylinder_hole(0.02, -0.01);
  near.pose.position = Vec3(0.0225, 0, 0);
  blind.pose.position = Vec3(-0.03, 0.02, -0.01);
  const Cell plate =
      cell_with_holes(box(Vec3(0.1, 0.1, 0.03), Pose{Vec3(0, 0, -0.015), Quat::Identity()}), {through_hole(), near, blind});
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.08)});
  std::mt19937 rng(5);
  for (const double depth : {2e-5, 2e-4, 1e-3}) {
    const Quat Q = random_rotation(rng);
    const double d = kHole - kPeg + depth;
    const Interference q = served(peg, Pose{Q * Vec3(d, 0, -0.015), Q}, plate, Pose{Vec3::Zero(), Q});
    // 1e-6 as for one hole: the sides' cut faces cancel to the rule's error (rounding where no ruling crosses a kink).
    check_moments(moments_of(q), prism(lune(kPeg, kHole, d), -0.03, 0, Q), 1e-6, "peg pressed into one of three holes");
  }
}

TEST_CASE("holes: a bar pressed flat onto a plate over three holes, against its footprint less the discs",
          "[geometry][holes]") {
  // Two through holes and a blind one between them, 20 mm deep, all under the bar's footprint.
  const double r_blind = 0.005, w = 0.08, h = 0.03;
  Primitive left = through_hole(), right = through_hole(), blind = rod(PrimitiveKind::Cylinder, r_blind, 0.02);
  left.pose.position = Vec3(-0.025, 0, 0), right.pose.position = Vec3(0.025, 0, 0);
  blind.pose.position = Vec3(0, 0, -0.01);
  const Cell plate =
      cell_with_holes(box(Vec3(0.1, 0.1, 0.03), Pose{Vec3(0, 0, -0.015), Quat::Identity()}), {left, blind, right});
  const Cell bar = make_cell({box(Vec3(w, h, 0.01))});
  // The section: the bar's rectangle less three whole discs (the holes' centres on the x axis: ∫y = ∫xy = 0).
  auto disc = [](double r, double x) { return Section{kPi * r * r, kPi * r * r * x, kPi * r * r * (r * r / 4 + x * x), kPi * r * r * r * r / 4}; };
  Section s{w * h, 0, w * w * w * h / 12, w * h * h * h / 12};
  for (const Section& hole : {disc(kHole, -0.025), disc(r_blind, 0), disc(kHole, 0.025)})
    s.A -= hole.A, s.Mx -= hole.Mx, s.Sxx -= hole.Sxx, s.Syy -= hole.Syy;
  for (const double depth : {1e-6, 1e-4, 1e-3}) {
    const Interference q = served(bar, Pose{Vec3(0, 0, 0.005 - depth), Quat::Identity()}, plate);
    // 1e-9: flat faces and discs, integrated to the rounding (as the peg on a blind hole's floor).
    check_moments(moments_of(q), prism(s, -depth, 0), 1e-9, "bar over three holes");
    CHECK(q.patches.empty());  // one region, though the planes between the holes cut it in three
  }
}

TEST_CASE("holes: tilted pegs across the plane between two holes, against exact chords", "[geometry][holes]") {
  Primitive left = through_hole(), right = cylinder_hole(0.02, -0.01);
  left.pose.position = Vec3(-0.012, 0, 0), right.pose.position = Vec3(0.012, 0, -0.01);
  const Cell plate =
      cell_with_holes(box(Vec3(0.1, 0.1, 0.03), Pose{Vec3(0, 0, -0.015), Quat::Identity()}), {left, right});
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, 0.004, 0.06)});
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 4; ++k) {  // 4 poses: each reference (the column engine at 1e-6, 2000² chords) takes seconds
    // A thin peg tilted up to ~30° over the 3 mm web between the holes, lowered 0.3 or 1 mm past first touch. (At
    // 0.1 mm, one pose's edge-on-edge sliver of 3e-13 m³, which exact chords find within 1.6e-4 of the query, is missed
    // whole by the column engine at 1e-6 and 1e-8: the reference's defect, docs/geometry.md.)
    const Quat tilt(Eigen::AngleAxisd(0.5 * u(rng), Vec3(u(rng), u(rng), 0).normalized()));
    Pose pose{Vec3(0.003 * u(rng), 0.01 * u(rng), 0), tilt};
    const double hi = touch_height(peg, pose, plate, 0, 0.06);
    pose.position.z() = hi - (k % 2 ? 1e-3 : 3e-4);
    check_served_without_lattice(peg, pose, plate, Pose{}, "a tilted peg over the web between two holes");
  }
}

// A counterbored hole: the through hole and, on its axis, a 16 mm hole 8 mm deep from the top face (reaching 2 mm above
// it). Cut across the axis at the counterbore's floor: below, the plate with the through hole; above, with the
// counterbore (the through hole lies inside it there).
Cell counterbored_plate() {
  Primitive bore = rod(PrimitiveKind::Cylinder, 0.016, 0.01);
  bore.pose.position = Vec3(0, 0, -0.003);
  return cell_with_holes(box(Vec3(0.1, 0.1, 0.03), Pose{Vec3(0, 0, -0.015), Quat::Identity()}), {through_hole(), bore});
}

TEST_CASE("holes: a bolt head on a counterbore's floor, against the annulus swept over its depth", "[geometry][holes]") {
  const Cell plate = counterbored_plate();
  const double R = 0.014;  // the head's radius: between the through hole's and the counterbore's
  const Cell head = make_cell({rod(PrimitiveKind::Cylinder, R, 0.02)});
  const double ring = kPi * (std::pow(R, 4) - std::pow(kHole, 4)) / 4;  // ∫x² = ∫y² over the annulus
  const Section annulus{kPi * (R * R - kHole * kHole), 0, ring, ring};
  for (const double depth : {1e-6, 1e-4, 1e-3}) {
    const Interference q = served(head, Pose{Vec3(0, 0, -0.008 + 0.01 - depth), Quat::Identity()}, plate);
    // 1e-9: flat faces and circles, integrated to the rounding (as the peg on a blind hole's floor).
    check_moments(moments_of(q), prism(annulus, -0.008 - depth, -0.008), 1e-9, "bolt head on a counterbore's floor");
    CHECK(q.patches.empty());
  }
}

TEST_CASE("holes: a peg pressed into the hole below a counterbore, against the lune swept below its floor",
          "[geometry][holes]") {
  const Cell plate = counterbored_plate();
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.08)});
  std::mt19937 rng(8);
  for (const double depth : {2e-5, 2e-4, 1e-3}) {
    const Quat Q = random_rotation(rng);
    const double d = kHole - kPeg + depth;  // the peg's far side at 11.5 mm at most: clear of the counterbore's wall
    const Interference q = served(peg, Pose{Q * Vec3(d, 0, -0.015), Q}, plate, Pose{Vec3::Zero(), Q});
    check_moments(moments_of(q), prism(lune(kPeg, kHole, d), -0.03, -0.008, Q), 1e-6, "peg below a counterbore");
  }
}

TEST_CASE("holes: tilted pegs in a chamfered hole, against exact chords", "[geometry][holes]") {
  // The through hole and a 45° chamfer on its axis: a frustum from the hole's radius 2 mm below the top face to 4 mm
  // wider 2 mm above it.
  const Primitive chamfer = rod(PrimitiveKind::Cone, kHole, 0.004, kHole + 0.004);
  const Cell plate =
      cell_with_holes(box(Vec3(0.1, 0.1, 0.03), Pose{Vec3(0, 0, -0.015), Quat::Identity()}), {through_hole(), chamfer});
  const Cell peg = make_cell({rod(PrimitiveKind::Cylinder, kPeg, 0.06)});
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 4; ++k) {  // 4 poses: each reference (the column engine at 1e-6, 2000² chords) takes seconds
    // A peg tilted up to 0.3 rad, up to 2 mm off the axis, lowered 0.3 or 1 mm past first touch.
    const Quat tilt(Eigen::AngleAxisd(0.3 * u(rng), Vec3(u(rng), u(rng), 0).normalized()));
    Pose pose{Vec3(0.002 * u(rng), 0.002 * u(rng), 0), tilt};
    const double hi = touch_height(peg, pose, plate, -0.02, 0.06);
    pose.position.z() = hi - (k % 2 ? 1e-3 : 3e-4);
    check_served_without_lattice(peg, pose, plate, Pose{}, "a tilted peg in a chamfered hole");
  }
}

// A ball on a hole (geometry/ruled_faces.h, "The ball mode" with "Holes"): before, the column engine, 1–190 ms a query.

namespace {

// A spheroid (semi-axes A, A, C: a ball where C = A) centred on the through hole's axis at height zc, in the plate
// (z in [−0.03, 0]): at height z its section is the annulus a ≤ ρ ≤ ρ_o, ρ_o² = A² (1 − (z − zc)² / C²), so every
// moment is a polynomial in z (of degree ≤ 4: ∫x² dA = π (ρ_o⁴ − a⁴) / 4), integrated exactly by 8-point Gauss–Legendre
// between the heights where ρ_o = a.
MomentsReference rim_ring(double A, double C, double zc, double a) {
  std::vector<double> t, w;
  gauss_legendre(8, t, w);
  const double h = C * std::sqrt(1 - a * a / (A * A));
  const double z0 = std::max(-0.03, zc - h), z1 = std::min(0.0, zc + h);
  double V = 0, mz = 0, xx = 0, zz = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const double z = 0.5 * (z0 + z1) + 0.5 * (z1 - z0) * t[i], dz = 0.5 * (z1 - z0) * w[i];
    const double r2 = A * A * (1 - (z - zc) * (z - zc) / (C * C)), area = kPi * (r2 - a * a);
    V += area * dz, mz += z * area * dz, zz += z * z * area * dz, xx += kPi / 4 * (r2 * r2 - a * a * a * a) * dz;
  }
  Mat3 m2 = Mat3::Zero();
  m2(0, 0) = m2(1, 1) = xx, m2(2, 2) = zz;
  return moments_from_raw(V, Vec3(0, 0, mz), m2);
}

}  // namespace

TEST_CASE("holes: a ball and a spheroid seated on a hole's rim, against the ring swept over its depth",
          "[geometry][holes]") {
  const Cell plate = plate_with(through_hole());
  std::mt19937 rng(31);
  for (const Vec3& axes : {Vec3(0.012, 0.012, 0.012), Vec3(0.012, 0.012, 0.018)}) {
    const Cell body = make_cell({axes.x() == axes.z() ? sphere(axes.x()) : ellipsoid(axes)});
    const double seated = axes.z() * std::sqrt(1 - kHole * kHole / (axes.x() * axes.x()));  // touching the rim
    for (const double depth : {1e-6, 1e-4, 1e-3}) {
      const Quat Q = random_rotation(rng);  // the whole scene turned: the query's frame is not the hole's
      const Interference q = served(body, Pose{Q * Vec3(0, 0, seated - depth), Q}, plate, Pose{Vec3::Zero(), Q});
      MomentsReference ref = rim_ring(axes.x(), axes.z(), seated - depth, kHole);
      ref.c = Q * ref.c, ref.J = Q.toRotationMatrix() * ref.J * Q.toRotationMatrix().transpose();
      // 1e-3: the query's tolerance. Measured: V and J within 3e-7; the centroid within 7.6e-5 of V^⅓ at 1 µm, where
      // the ring is 0.5 µm wide on a 10.5 mm radius (the query holds it to 5e-4 of the ring's radius, 0.2 of V^⅓).
      check_moments(moments_of(q), ref, 1e-3, "a ball on a hole's rim");
      CHECK(q.patches.empty());  // one ring
    }
  }
}

TEST_CASE("holes: a ball on a blind hole's floor and against its wall: the floor's cap and the wall's piece",
          "[geometry][holes]") {
  const Cell plate = plate_with(cylinder_hole(0.02, -0.01));  // floor at z = −0.02
  const double R = 0.009, floor_depth = 2e-4;
  const Cell ball = make_cell({sphere(R)});
  // Its centre 1.6 mm off the axis: 0.1 mm into the wall, 0.2 mm into the floor.
  const Pose pose{Vec3(kHole - R + 1e-4, 0, -0.02 + R - floor_depth), Quat::Identity()};
  const Interference q = interference(ball, pose, plate, Pose{});
  const Interference ref = interference(ball, pose, plate, Pose{}, column_engine(1e-6));
  REQUIRE(q.overlap);
  CHECK(q.spacing == 0);
  check_moments(moments_of(q), moments_of(ref), 1e-3, "a ball on a blind hole's floor and wall");
  REQUIRE(q.patches.size() == 2);
  // The floor's piece is the ball's cap below the floor: V = π h² (3R − h) / 3, its centroid 3 (2R − h)² / (4 (3R − h))
  // below the ball's centre. It is the larger piece here (the wall's lens is ~1e-10 m³).
  const double h = floor_depth, cap = kPi * h * h * (3 * R - h) / 3;
  const Vec3 cap_centroid = pose.position - Vec3(0, 0, 3 * (2 * R - h) * (2 * R - h) / (4 * (3 * R - h)));
  const Interference& floor = q.patches[0];
  // Each piece's share of the error is not controlled by itself (ruled_faces.h), only the sum's: 1e-3 of the whole.
  CHECK(std::abs(floor.volume - cap) <= 1e-3 * q.volume);
  CHECK((floor.centroid - cap_centroid).norm() <= 1e-3 * std::cbrt(cap));
  CHECK(floor.normal_estimate.z() > 1 - 1e-9);
  const Interference& wall = q.patches[1];
  CHECK(std::abs(wall.volume - (ref.volume - cap)) <= 1e-3 * q.volume);
  CHECK(wall.normal_estimate.x() < -0.99);  // pressed toward the axis
}

TEST_CASE("holes: balls, spheroids and capsules at random poses on drilled plates, against exact chords",
          "[geometry][holes]") {
  // A through hole, a countersink and the through hole beside a blind one (two holes, cut between them); the bodies
  // turned at random, up to 14 mm off the axis, lowered 10 µm to 5 mm past first touch.
  Primitive beside = cylinder_hole(0.0202, -0.0099);
  beside.pose.position.x() = 0.0235;
  const std::vector<Cell> plates{plate_with(through_hole()), plate_with(countersink()),
                                 cell_with_holes(box(Vec3(0.1, 0.1, 0.03), Pose{Vec3(0, 0, -0.015), Quat::Identity()}),
                                                 {through_hole(), beside})};
  const std::vector<Cell> bodies{make_cell({sphere(0.009)}), make_cell({ellipsoid(Vec3(0.012, 0.009, 0.015))}),
                                 make_cell({rod(PrimitiveKind::Capsule, 0.009, 0.04)})};
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 3; ++k) {  // 3 poses: each reference (the column engine at 1e-6) takes seconds
    const Cell &plate = plates[k], &body = bodies[k];
    Pose pose{Vec3(0.014 * u(rng), 0.014 * u(rng), 0), random_rotation(rng)};
    const double hi = touch_height(body, pose, plate, -0.04, 0.05);
    // 10 µm … 5 mm: the chords' 2000² grid misses slivers thinner than that (a 6e-14 m³ one came out 1.7 % low, where
    // the query was within 6e-7 of the column engine).
    pose.position.z() = hi - std::pow(10.0, -5 + 0.9 * (k + 0.5 + 0.5 * u(rng)));
    check_served_without_lattice(body, pose, plate, Pose{}, "a ball, spheroid or capsule on a drilled plate");
  }
}

TEST_CASE("holes: V(h) is smooth, a ball lowered onto a hole's rim 2 mm off its axis 1000 x 1 um", "[geometry][holes]") {
  const Cell plate = plate_with(through_hole()), ball = make_cell({sphere(0.012)});
  const Vec3 at(0.002, 0, 0);
  // From where V reaches 1e-8 m³ (its centre between the top face, V large, and 12 mm above it, clear).
  const double hi = height_for_volume(plate, Pose{}, ball, Quat::Identity(), at, 1e-8, 0.0, 0.012, 50);
  const std::vector<double> V = lowered_volumes(plate, Pose{}, ball, Quat::Identity(), at, hi, 1001, 1e-6);
  const Smoothness sm = third_differences(V);
  std::printf("ball on a hole's rim: V %.3e .. %.3e, %d non-increasing steps, max |d3V| / dV = %.3e\n", V[0], V.back(),
              sm.non_increasing, sm.worst);
  CHECK(sm.non_increasing == 0);
  CHECK(sm.worst < 0.01);  // as check_smooth_lowering: O(step²) for a smooth V(h), O(1) for a jump or a kink
}

TEST_CASE("holes: a ball seated on a hole drilled at 30 degrees, on its elliptic rim, against exact chords",
          "[geometry][holes]") {
  // The top face's rays start where the tilted axis meets it (docs/geometry.md, "A ball on a hole"): a hole of r 8 mm
  // at 30° traces an ellipse of semi-axes 8 and 9.2 mm, on which a 12 mm ball seats.
  Primitive hole = through_hole();
  hole.radius = 0.008;
  hole.pose.rotation = Quat(Eigen::AngleAxisd(kPi / 6, Vec3::UnitX()));
  const Cell plate = plate_with(hole), ball = make_cell({sphere(0.012)});
  Pose pose;
  const double hi = touch_height(ball, pose, plate, -0.02, 0.03);
  for (const double depth : {1e-3, 3e-3}) {
    pose.position.z() = hi - depth;
    const Interference q = served(ball, pose, plate);
    // 1e-3: the query's tolerance. The chords' 2000² grid is within ~1e-4 here (7e-5 and 3e-6 of V apart from the
    // query, measured); shallower it is not (at 0.1 mm, 3.4e-3 off the column engine at 1e-6, where the query was
    // 8e-5 off it), so shallower seats are checked on the straight hole's ring above.
    check_moments(moments_of(q), chords_moments(ball, pose, plate, Pose{}, q, 2000), 1e-3,
                  "a ball on a hole drilled at 30 degrees");
  }
}

TEST_CASE("holes: V is smooth where the ring under a seated ball opens into a crescent, moved 1000 x 0.2 um aside",
          "[geometry][holes]") {
  // 0.1 mm below seated, the ball's disc on the top face is 55 µm wider than the hole's: the ring opens at 55 µm off
  // the axis, and the top face's rays then cover an arc, no longer a whole turn.
  const Cell plate = plate_with(through_hole()), ball = make_cell({sphere(0.012)});
  const double centre_z = std::sqrt(0.012 * 0.012 - kHole * kHole) - 1e-4;
  std::vector<double> V;
  for (int i = 0; i <= 1000; ++i)
    V.push_back(interference(ball, Pose{Vec3(2e-7 * i, 0, centre_z), Quat::Identity()}, plate, Pose{}).volume);
  const Smoothness sm = third_differences(V);
  std::printf("a seated ball moved aside: V %.3e .. %.3e, %d non-increasing steps, max |d3V| / dV = %.3e\n", V[0],
              V.back(), sm.non_increasing, sm.worst);
  CHECK(sm.non_increasing == 0);  // the ball leans onto the plate's solid side: V grows
  CHECK(sm.worst < 0.01);         // as check_smooth_lowering: O(step²) for a smooth V, O(1) for a jump or a kink
}

TEST_CASE("holes: a ball grazing a hole's rim 0.1 nm ... 10 um deep, against the ring's closed form",
          "[geometry][holes]") {
  // The ring under a ball centred on the hole, d below seated: V = π (h d² − d³ / 3), h = √(R² − a²) (the annuli of the
  // rim_ring case above, integrated in closed form). Below a few nm its faces' fluxes cancel to 1e-8 of themselves, and
  // the query holds V to the tolerance as if it were (3e-5 of the overlap box)³ (geometry/ruled_faces.cpp): there it
  // went to the column engine, 0.5–37 s a query and 1e3 times off.
  const Cell plate = plate_with(through_hole()), ball = make_cell({sphere(0.012)});
  const double R = 0.012, h = std::sqrt(R * R - kHole * kHole);
  for (int e = -20; e <= -10; ++e) {
    const double d = std::pow(10.0, e / 2.0);
    const Interference q = interference(ball, Pose{Vec3(0, 0, h - d), Quat::Identity()}, plate, Pose{});
    CHECK(q.spacing == 0);  // not the column engine
    // The overlap box: the ball's (24 mm across, reaching h − d − R below) and the plate's (its top at z = 0).
    const double size = std::sqrt(2 * 0.024 * 0.024 + (R - h + d) * (R - h + d)), floor = std::pow(3e-5 * size, 3);
    const double V = kPi * (h * d * d - d * d * d / 3);
    INFO("depth " << d << ": V " << q.volume << ", the ring " << V);
    CHECK(std::abs(q.volume - V) <= 5e-4 * std::max(V, floor));  // the query's share of its tolerance 1e-3 on V
  }
}

// A hole in each cell (geometry/ruled_faces.h, "A hole in each cell"): before, the column engine, 2–12 ms a query.

TEST_CASE("holes: a washer flat on a drilled plate, its hole narrower or wider than the plate's, against the annulus",
          "[geometry][holes]") {
  // A washer (r 16 mm, 3 mm thick) centred on the through hole (r 10.5 mm), sunk d into the plate's top face: the lens
  // is the annulus between max(r_i, r_hole) and 16 mm, d thick, with moments in closed form. Its hole 8 mm: its plug
  // lies over the plate's hole and reaches nothing (the washer's lens as a disc). 12 mm: the plug reaches the plate
  // between 10.5 and 12 mm and is taken away (the difference); as a cylinder exactly as long as the washer is thick
  // too, whose end planes coincide with the washer's (dropped as redundant).
  const Cell plate = plate_with(through_hole());
  const double ro = 0.016, thick = 0.003;
  struct Washer {
    double ri;
    bool flush;
  };
  for (const Washer w : {Washer{0.008, false}, Washer{0.012, false}, Washer{0.012, true}}) {
    Primitive bore = primitive(PrimitiveKind::InfiniteCylinder);
    bore.radius = w.ri;
    if (w.flush) bore = rod(PrimitiveKind::Cylinder, w.ri, thick);
    const Cell washer = cell_with_holes(rod(PrimitiveKind::Cylinder, ro, thick), {bore});
    for (const double d : {1e-6, 1e-4, 1e-3}) {
      const double r = std::max(w.ri, kHole), A = kPi * (ro * ro - r * r), V = A * d;
      Mat3 m2 = Mat3::Zero();
      m2(0, 0) = m2(1, 1) = kPi / 4 * (std::pow(ro, 4) - std::pow(r, 4)) * d, m2(2, 2) = A * d * d * d / 3;
      const MomentsReference ref = moments_from_raw(V, Vec3(0, 0, -A * d * d / 2), m2);
      const Pose pose{Vec3(0, 0, 0.5 * thick - d), Quat::Identity()};
      const Interference q = interference(washer, pose, plate, Pose{});
      char what[96];
      std::snprintf(what, sizeof what, "washer r_i %.0f mm%s, %.0e m deep", w.ri * 1e3, w.flush ? " (flush)" : "", d);
      INFO(what);
      CHECK(q.spacing == 0);  // not the column engine
      // The faces are planes and coaxial cylinders: every chord is exact, the quadrature of the sides' arcs nearly so.
      check_moments(moments_of(q), ref, 1e-6, what);
      CHECK(q.normal_estimate.z() > 0.999);  // from the plate into the washer
    }
  }
}

TEST_CASE("holes: a pipe tilted in a blind hole, on its floor and across its rim, against exact chords",
          "[geometry][holes]") {
  // A pipe (r 10 mm, bore 8 mm, 60 mm long; the bore a cylinder exactly as long) against the plate with a blind hole
  // 20 mm deep: lowered until it touches, then 0.3 or 1 mm further, at random tilts up to 0.3 rad and up to 2 mm off
  // the axis (against the wall or the rim), and standing on the floor 2 mm off the axis (the bore's plug on the floor
  // too: the difference).
  const Cell plate = plate_with(cylinder_hole(0.02, -0.01));
  const Cell pipe =
      cell_with_holes(rod(PrimitiveKind::Cylinder, kPeg, 0.06), {rod(PrimitiveKind::Cylinder, 0.008, 0.06)});
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 3; ++k) {  // each reference (2000² chords) takes seconds
    const Quat tilt(Eigen::AngleAxisd(k == 2 ? 0.0 : 0.3 * u(rng), Vec3(u(rng), u(rng), 0).normalized()));
    Pose pose{Vec3(0.002 * u(rng), 0.002 * u(rng), 0), tilt};
    const double hi = touch_height(pipe, pose, plate, -0.02, 0.06);
    pose.position.z() = hi - (k % 2 ? 1e-3 : 3e-4);
    const char* what = k == 2 ? "a pipe on a blind hole's floor" : "a tilted pipe";
    const Interference q = interference(pipe, pose, plate, Pose{});
    CHECK(q.spacing == 0);
    // Exact chords, not the column engine: on the first pose (V 1.2e-10 m³ on the rim) the column engine at 1e-6 was
    // 2.5e-3 off in V and 5e-3 in the centroid, where the query and chords on 2000² and 4000² grids agreed to 2e-5.
    // 1e-4: the 2000² grid's own error (2e-5 … 3e-5 against 4000² there), with a margin.
    check_moments(moments_of(q), chords_moments(pipe, pose, plate, Pose{}, q, 2000), 1e-4, what);
  }
}

TEST_CASE("holes: V(h) is smooth, a tilted washer lowered onto a drilled plate 1000 x 1 um", "[geometry][holes]") {
  // The washer's hole (12 mm) wider than the plate's (10.5 mm): its plug reaches the plate, so every step takes the
  // difference; tilted 0.1 rad and 1 mm off the axis, its lens grows from a crescent toward a ring.
  Primitive bore = primitive(PrimitiveKind::InfiniteCylinder);
  bore.radius = 0.012;
  const Cell washer = cell_with_holes(rod(PrimitiveKind::Cylinder, 0.016, 0.003), {bore});
  const Cell plate = plate_with(through_hole());
  const Quat tilt(Eigen::AngleAxisd(0.1, Vec3::UnitX()));
  const Vec3 at(0.001, 0, 0);
  // From where V reaches 1e-8 m³ (its centre between 1.5 mm below the top face, V large, and 10 mm above, clear).
  const double hi = height_for_volume(plate, Pose{}, washer, tilt, at, 1e-8, -0.0015, 0.01, 50);
  const std::vector<double> V = lowered_volumes(plate, Pose{}, washer, tilt, at, hi, 1001, 1e-6);
  const Smoothness sm = third_differences(V);
  std::printf("a tilted washer on a drilled plate: V %.3e .. %.3e, %d non-increasing steps, max |d3V| / dV = %.3e\n",
              V[0], V.back(), sm.non_increasing, sm.worst);
  CHECK(sm.non_increasing == 0);
  CHECK(sm.worst < 0.01);  // as check_smooth_lowering: O(step²) for a smooth V(h), O(1) for a jump or a kink
}
