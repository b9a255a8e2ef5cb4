// Closed meshes against planes (issue 16): geometry/mesh_clip.h through the public query, against the same solids
// written as intersections of half-spaces, whose moments the exact polyhedron clip gives (geometry/
// exact_interference.h): a convex bipyramid (one cell of half-spaces), a non-convex star prism and a square tube (a
// cap with a hole), as sums of convex pieces. Exact paths on both sides: 1e-9.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {


// A half-space n·x <= d as a primitive (HalfSpace is z <= 0 in its own frame).
Primitive plane(const Vec3& n, double d) {
  const Vec3 u = n.normalized();
  return halfspace(Pose{u * (d / n.norm()), Quat::FromTwoVectors(Vec3::UnitZ(), u)});
}

std::vector<Primitive> facet_planes(const Solid& s) {
  std::vector<Primitive> out;
  for (const auto& t : s.f) {
    const Vec3 n = (s.v[t[1]] - s.v[t[0]]).cross(s.v[t[2]] - s.v[t[0]]);
    out.push_back(plane(n, n.dot(s.v[t[0]])));
  }
  return out;
}

void check_same(const Interference& x, double V, const Vec3& centroid, const Mat3& J, double tol) {
  REQUIRE(x.overlap);
  INFO("V err " << x.volume / V - 1 << ", centroid err / V^(1/3) " << (x.centroid - centroid).norm() / std::cbrt(V)
                << ", J err " << (x.inertia - J).norm() / J.norm());
  CHECK(x.columns == 0);
  CHECK(std::abs(x.volume / V - 1) < tol);
  CHECK((x.centroid - centroid).norm() < tol * std::cbrt(V));
  CHECK((x.inertia - J).norm() < tol * J.norm());
}

// Sum of several interference results (disjoint pieces) into V, centroid, J about the common centroid.
void combine(const std::vector<Interference>& parts, double& V, Vec3& c, Mat3& J) {
  V = 0;
  c.setZero();
  for (const auto& p : parts)
    if (p.overlap) V += p.volume, c += p.volume * p.centroid;
  c /= V;
  J.setZero();
  for (const auto& p : parts) {
    if (!p.overlap) continue;
    const Vec3 d = p.centroid - c;
    J += p.inertia + p.volume * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
}

}  // namespace

TEST_CASE("A convex mesh against planes equals its facets' half-spaces clipped exactly", "[geometry][mesh]") {
  const Solid s = bipyramid(24, 0.06, 0.04);
  const Cell mesh = mesh_cell(write_obj(s, "bipyramid"));
  const std::vector<Primitive> facets = facet_planes(s);
  std::mt19937 rng(7);
  // 1e-9: both sides exact to rounding. Depths from 20 µm (a resting contact) to deep cuts, random attitudes.
  for (const double depth : {2e-5, 1e-4, 1e-3, 0.02}) {
    for (int trial = 0; trial < 4; ++trial) {
      const Quat q = random_rotation(rng);
      const Aabb b = world_bounds(mesh, Pose{Vec3::Zero(), q});
      double low = 1e300;  // the lowest vertex at this attitude
      for (const Vec3& v : s.v) low = std::min(low, (q * v).z());
      const Pose pose{Vec3(0.3, -0.1, -low - depth), q};
      (void)b;
      const Interference x = interference(mesh, pose, make_cell({halfspace()}), Pose{});
      // The reference: the same solid as its half-spaces, placed by the same pose, with the ground's plane.
      std::vector<Primitive> cut;
      for (Primitive p : facets) {
        p.pose = pose.compose(p.pose);
        cut.push_back(p);
      }
      cut.push_back(halfspace());
      const Cell ref_cell = make_cell(cut);
      // The polyhedron clip needs a bounded overlap box: intersect with a box around the mesh.
      const Interference r = interference(ref_cell, Pose{}, make_cell({box(Vec3::Constant(0.5), Pose{pose.position, Quat::Identity()})}), Pose{});
      INFO("depth " << depth << " trial " << trial << " V " << x.volume << " ref " << r.volume);
      check_same(x, r.volume, r.centroid, r.inertia, 1e-9);
    }
  }
  // The whole solid: no plane reaches it.
  BodyGeometry g;
  g.cells.push_back(mesh);
  const double V = 2.0 / 3 * 0.04 * 24 * 0.5 * 0.06 * 0.06 * std::sin(2 * M_PI / 24);  // 2 pyramids over the N-gon
  CHECK(std::abs(mass_properties(g, 1.0, 1e-3).mass / V - 1) < 1e-12);
}

TEST_CASE("Non-convex meshes against planes: a star prism and a square tube, as sums of convex pieces",
          "[geometry][mesh]") {
  // The star: 12 points alternating between radii 0.05 and 0.02; its prism is the union of 12 wedge prisms.
  const std::vector<Vec3> star = star_polygon(6, 0.05, 0.02);
  const double H = 0.03;
  const Cell star_mesh = mesh_cell(write_obj(star_prism(star, H), "star"));
  // The square tube: outer 0.1 × 0.1, wall 0.01, length 0.08 along z, as a mesh, and as 4 disjoint wall boxes.
  const Solid tube = square_tube(0.05, 0.04, 0.08);
  const Cell tube_mesh = mesh_cell(write_obj(tube, "tube"));
  std::mt19937 rng(11);
  for (int trial = 0; trial < 8; ++trial) {
    const Quat q = trial < 2 ? Quat(Eigen::AngleAxisd(trial * 0.3, Vec3::UnitY())) : random_rotation(rng);
    for (int which = 0; which < 2; ++which) {
      const Solid& s = which == 0 ? star_prism(star, H) : tube;
      double low = 1e300, high = -1e300;
      for (const Vec3& v : s.v) low = std::min(low, (q * v).z()), high = std::max(high, (q * v).z());
      // Cut at 10 % and 60 % of the height: a plane across the star's points gives several pieces, across the
      // tube a cap with a hole.
      for (const double f : {0.1, 0.6}) {
        const Pose pose{Vec3(0.01, 0.02, -low - f * (high - low)), q};
        const Interference x = interference(which == 0 ? star_mesh : tube_mesh, pose, make_cell({halfspace()}), Pose{});
        std::vector<Interference> parts;
        if (which == 0) {
          for (int k = 0; k < 12; ++k) {
            const Vec3 p = star[k], r = star[(k + 1) % 12];
            const Vec3 z = Vec3::UnitZ();
            std::vector<Primitive> wedge = {plane(-z, 0), plane(z, H), plane(p.cross(z), 0),
                                            plane(z.cross(r), 0), plane((r - p).cross(z), (r - p).cross(z).dot(p))};
            for (Primitive& w : wedge) w.pose = pose.compose(w.pose);
            wedge.push_back(halfspace());
            parts.push_back(interference(make_cell(wedge), Pose{}, make_cell({box(Vec3::Constant(0.5), Pose{pose.position, Quat::Identity()})}), Pose{}));
          }
        } else {
          const Primitive walls[4] = {box(Vec3(0.1, 0.01, 0.08), Pose{Vec3(0, 0.045, 0.04), Quat::Identity()}),
                                      box(Vec3(0.1, 0.01, 0.08), Pose{Vec3(0, -0.045, 0.04), Quat::Identity()}),
                                      box(Vec3(0.01, 0.08, 0.08), Pose{Vec3(0.045, 0, 0.04), Quat::Identity()}),
                                      box(Vec3(0.01, 0.08, 0.08), Pose{Vec3(-0.045, 0, 0.04), Quat::Identity()})};
          for (const Primitive& w : walls) parts.push_back(interference(make_cell({w}), pose, make_cell({halfspace()}), Pose{}));
        }
        double V;
        Vec3 c;
        Mat3 J;
        combine(parts, V, c, J);
        INFO((which ? "tube" : "star") << " trial " << trial << " cut " << f << " V " << x.volume << " ref " << V);
        check_same(x, V, c, J, 1e-9);
      }
    }
  }
}

TEST_CASE("One plane through a mesh whose own origin is far away: the cap closes the sum before it is judged",
          "[geometry][mesh]") {
  // The 12-point star prism written 10 m along x and cut through its middle by x <= 10: seen from its file's origin,
  // the whole BVH nodes inside and the clipped triangles sum to V − 10/3 · (cap area) before the cap adds the cone
  // over it, so a test of the sign before the cap lost the region.
  const std::vector<Vec3> star = star_polygon(6, 0.05, 0.02);
  Solid far = star_prism(star, 0.03);
  for (Vec3& v : far.v) v.x() += 10;
  const double area = fan_area(star);
  const Interference x =
      interference(mesh_cell(write_obj(far, "far_star")), Pose{}, make_cell({plane(Vec3::UnitX(), 10)}), Pose{});
  REQUIRE(x.overlap);
  // The star is symmetric about x = 0 (points at k·30° and (6 − k)·30° have the same radius): half its prism.
  CHECK(x.volume == Approx(0.5 * area * 0.03).epsilon(1e-9));  // rounding of ~10 m coordinates against 1e-5 m³
}

TEST_CASE("A mesh over a box table's edge: six planes, against the polyhedron clip", "[geometry][mesh]") {
  const Solid s = bipyramid(16, 0.05, 0.03);
  const Cell mesh = mesh_cell(write_obj(s, "bipyramid16"));
  const Primitive table = box(Vec3(0.4, 0.4, 0.1), Pose{Vec3(0, 0, -0.05), Quat::Identity()});  // edge at x = 0.2
  std::mt19937 rng(3);
  for (int trial = 0; trial < 6; ++trial) {
    const Quat q = random_rotation(rng);
    double low = 1e300;
    for (const Vec3& v : s.v) low = std::min(low, (q * v).z());
    const Pose pose{Vec3(0.2 + 0.01 * (trial - 3), 0.05, -low - 2e-3 * (trial + 1)), q};
    const Interference x = interference(mesh, pose, make_cell({table}), Pose{});
    std::vector<Primitive> cut;
    for (Primitive p : facet_planes(s)) {
      p.pose = pose.compose(p.pose);
      cut.push_back(p);
    }
    const Interference r = interference(make_cell(cut), Pose{}, make_cell({table}), Pose{});
    INFO("trial " << trial << " V " << x.volume << " ref " << r.volume);
    check_same(x, r.volume, r.centroid, r.inertia, 1e-9);
  }
}

TEST_CASE("A 100 000-triangle mesh against a plane: the cap within its faceting error", "[geometry][mesh]") {
  // A UV sphere of radius R with 224 × 224 quads (~100 000 triangles), vertices on the sphere: its volume is below
  // the ball's by ~(π/224)² (chords), so the cap at a depth h >> the sagitta agrees to ~1e-3.
  Solid s;
  const int N = 224;
  const double R = 0.1;
  s.v.emplace_back(0, 0, R);
  for (int i = 1; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      const double th = M_PI * i / N, ph = 2 * M_PI * j / N;
      s.v.emplace_back(R * std::sin(th) * std::cos(ph), R * std::sin(th) * std::sin(ph), R * std::cos(th));
    }
  s.v.emplace_back(0, 0, -R);
  const int S = static_cast<int>(s.v.size()) - 1;
  auto id = [&](int i, int j) { return 1 + (i - 1) * N + (j % N); };
  for (int j = 0; j < N; ++j) s.f.push_back({0, id(1, j), id(1, j + 1)});
  for (int i = 1; i + 1 < N; ++i)
    for (int j = 0; j < N; ++j) {
      s.f.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      s.f.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  for (int j = 0; j < N; ++j) s.f.push_back({S, id(N - 1, j + 1), id(N - 1, j)});
  REQUIRE(s.f.size() > 99000);
  const Cell mesh = mesh_cell(write_obj(s, "uv_sphere"));
  const double h = 0.01;  // the cap's depth below the lowest vertex (the pole)
  const Interference x = interference(mesh, Pose{Vec3(0, 0, R - h), Quat::Identity()}, make_cell({halfspace()}), Pose{});
  const double V = M_PI * h * h * (3 * R - h) / 3;
  INFO("V " << x.volume << " cap " << V);
  CHECK(x.columns == 0);
  CHECK(std::abs(x.volume / V - 1) < 2e-3);  // chords of π/224 rad: ~(π/224)² = 2e-4 of the cap, with margin
}

TEST_CASE("Against a convex mesh (issue 17): a mesh on a mesh slab, two convex meshes, a ball on a convex mesh",
          "[geometry][mesh]") {
  // The slab: a 12-triangle box mesh, 0.4 x 0.4 x 0.1, top at z = 0, and the same box as a primitive.
  Solid slab;
  for (int k = 0; k < 8; ++k) slab.v.emplace_back(k & 1 ? 0.2 : -0.2, k & 2 ? 0.2 : -0.2, k & 4 ? 0.0 : -0.1);
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& q : quads) {
    slab.f.push_back({q[0], q[1], q[2]});
    slab.f.push_back({q[0], q[2], q[3]});
  }
  const Cell slab_mesh = mesh_cell(write_obj(slab, "slab"));
  const Cell slab_box = make_cell({box(Vec3(0.4, 0.4, 0.1), Pose{Vec3(0, 0, -0.05), Quat::Identity()})});
  const Solid s = bipyramid(20, 0.05, 0.03);
  const Cell rock = mesh_cell(write_obj(s, "bipyramid20"));
  std::mt19937 rng(17);
  for (int trial = 0; trial < 6; ++trial) {
    const Quat q = random_rotation(rng);
    double low = 1e300;
    for (const Vec3& v : s.v) low = std::min(low, (q * v).z());
    // Resting depths to deep, and one over the slab's edge (x = 0.2).
    const Pose pose{Vec3(trial == 5 ? 0.2 : 0.05, 0.01, -low - std::pow(10.0, -4.7 + 0.5 * trial)), q};
    const Interference x = interference(rock, pose, slab_mesh, Pose{});
    const Interference r = interference(rock, pose, slab_box, Pose{});  // mesh against planes (tested above)
    INFO("trial " << trial << " V " << x.volume << " ref " << r.volume);
    check_same(x, r.volume, r.centroid, r.inertia, 1e-9);
    // Two convex meshes: the reference is the same rock as its half-spaces against the slab mesh.
    std::vector<Primitive> cut;
    for (Primitive p : facet_planes(s)) {
      p.pose = pose.compose(p.pose);
      cut.push_back(p);
    }
    const Interference r2 = interference(make_cell(cut), Pose{}, slab_box, Pose{});
    check_same(x, r2.volume, r2.centroid, r2.inertia, 1e-9);
  }
  // A ball on the convex rock: the ball clipped by the facets near it, against the ball clipped by all 40 facets
  // written as half-spaces (the facet selection is what is tested; both slice the ball, whose quadrature is good to
  // ~7e-7 and places its break points by the planes it is given: 2e-6).
  const Cell ball = make_cell({sphere(0.02)});
  for (const double depth : {1e-4, 2e-3}) {
    const Pose ball_pose{Vec3(0.0004, 0.0003, 0.03 + 0.02 - depth), Quat::Identity()};  // on the upper apex
    const Interference x = interference(ball, ball_pose, rock, Pose{});
    const Interference r = interference(ball, ball_pose, make_cell(facet_planes(s)), Pose{});
    INFO("ball depth " << depth << " V " << x.volume << " ref " << r.volume);
    check_same(x, r.volume, r.centroid, r.inertia, 2e-6);
  }
}
