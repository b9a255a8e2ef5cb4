// A cylinder's or cone's side the other cell cannot reach (geometry/unreachable_sides.h): the pair is the other cell
// against the end planes, which a closed form answers. Expected values: closed forms (a disc times a depth, a
// frustum), the column engine at tolerance 1e-6 (an independent method), point sampling for the proof's soundness,
// and a run on a box table with the same top face.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <utility>

#include "geometry/line_sets.h"
#include "geometry/unreachable_sides.h"
#include "tests/cli_support.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

CellPrimitives prims_of(const Primitive& p) { return {CellPrimitive{p, false, nullptr}}; }

}  // namespace

TEST_CASE("unreachable sides: a cylinder standing on a wider cylinder's end is a disc times the depth",
          "[geometry][unreachable_sides]") {
  // a: R 0.05, L 0.4, top at z = 0.2. b: r 0.03, L 0.3, upright, its axis 5 mm off a's, its bottom d below a's top.
  // The overlap is b's disc over [0.2 − d, 0.2]: V = π r² d, centroid on b's axis at 0.2 − d / 2, and about it
  // Jxx = Jyy = V (r² / 4 + d² / 12), Jzz = V r² / 2 (a short cylinder).
  const Primitive pa = rod(PrimitiveKind::Cylinder, 0.05, 0.4), pb = rod(PrimitiveKind::Cylinder, 0.03, 0.3);
  const Cell a = make_cell({pa}), b = make_cell({pb});
  const double r = 0.03;
  for (double d : {1e-6, 1e-4, 1e-2}) {
    const Vec3 axis(0.004, 0.003, 0);
    const Pose at{axis + Vec3(0, 0, 0.2 + 0.15 - d), Quat::Identity()};
    const auto replaced = without_unreachable_sides(prims_of(pa), Pose{}, prims_of(pb), at);
    REQUIRE(replaced);
    CHECK((*replaced)[0].primitive.kind == PrimitiveKind::Slab);
    CHECK(!without_unreachable_sides(prims_of(pb), at, prims_of(pa), Pose{}));  // a's disc is wider than b's side
    const Interference q = interference(a, Pose{}, b, at);
    INFO("depth " << d);
    REQUIRE(q.overlap);
    CHECK(q.columns == 0);  // a closed form, not the lens
    const double V = M_PI * r * r * d;
    // Tolerances: the closed form is exact, but the depth is a difference of coordinates ~0.35 m, so its rounding
    // is ~1e-16 × 0.35 / d of V (measured 1e-12 at d = 1e-6).
    const double rounding = 1e-15 * 0.35 / d;
    CHECK(rel(q.volume, V) < rounding);
    CHECK((q.centroid - (axis + Vec3(0, 0, 0.2 - d / 2))).norm() < 1e-12 * 0.2);
    CHECK(rel(q.inertia(0, 0), V * (r * r / 4 + d * d / 12)) < rounding);
    CHECK(rel(q.inertia(2, 2), V * r * r / 2) < rounding);
    CHECK(std::abs(q.inertia(0, 1)) < 1e-9 * q.inertia(2, 2));
  }
}

TEST_CASE("unreachable sides: a frustum's top pressed into a cylinder's end is a frustum", "[geometry][unreachable_sides]") {
  // a: a frustum of radius 0.05 at z = −0.1 and 0.01 at z = +0.1. b: a cylinder r 0.02 whose bottom lies d below a's
  // top, 5 mm off its axis: b covers a's top (0.01 + 0.005 < 0.02), so the overlap is a's frustum from z = 0.1 − d
  // (radius r1 = 0.01 + 0.2 d) to 0.1 (r2 = 0.01): V = π d (r1² + r1 r2 + r2²) / 3, its centroid on a's axis
  // d (r1² + 2 r1 r2 + 3 r2²) / (4 (r1² + r1 r2 + r2²)) above the bottom plane.
  const Primitive pa = rod(PrimitiveKind::Cone, 0.05, 0.2, 0.01), pb = rod(PrimitiveKind::Cylinder, 0.02, 0.3);
  const Cell a = make_cell({pa}), b = make_cell({pb});
  for (double d : {1e-6, 1e-4, 1e-2}) {
    const Pose at{Vec3(0.004, 0.003, 0.1 + 0.15 - d), Quat::Identity()};
    REQUIRE(without_unreachable_sides(prims_of(pb), at, prims_of(pa), Pose{}));
    const Interference q = interference(a, Pose{}, b, at);
    INFO("depth " << d);
    REQUIRE(q.overlap);
    CHECK(q.columns == 0);
    const double r1 = 0.01 + 0.2 * d, r2 = 0.01, s = r1 * r1 + r1 * r2 + r2 * r2;
    CHECK(rel(q.volume, M_PI * d * s / 3) < 1e-9);  // the frustum slices' quadrature: < 1e-9 (docs/geometry.md)
    const Vec3 centroid(0, 0, 0.1 - d + d * (r1 * r1 + 2 * r1 * r2 + 3 * r2 * r2) / (4 * s));
    CHECK((q.centroid - centroid).norm() < 1e-9 * d + 1e-15);
  }
}

TEST_CASE("unreachable sides: a tilted cylinder's rim on a wide cylinder's end, against the column engine",
          "[geometry][unreachable_sides]") {
  // a: R 0.5, so a rim 1–3 cm from its axis is far from its side. b: r 0.03, L 0.3, turned 0.7 rad about (1, 2, 3),
  // lowered until its lowest point is d below a's top. Reference: the column engine at tolerance 1e-6 on the same
  // cells (closed forms off), an independent method; its own error is below 1e-6.
  const Primitive pa = rod(PrimitiveKind::Cylinder, 0.5, 0.4), pb = rod(PrimitiveKind::Cylinder, 0.03, 0.3);
  const Cell a = make_cell({pa}), b = make_cell({pb});
  const Quat q(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  const Vec3 axis = q * Vec3::UnitZ();
  const Vec3 across = (Vec3::UnitZ() - axis.z() * axis).normalized();  // the rim's lowest point: −0.15 axis − r across
  const Vec3 lowest = -0.15 * (axis.z() > 0 ? axis : Vec3(-axis)) - 0.03 * across;
  QueryOptions column;
  column.closed_forms = false;
  column.tolerance = 1e-6;
  for (double d : {1e-5, 1e-3}) {
    const Pose at{Vec3(0.01, 0.02, 0.2 - d) - lowest, q};
    REQUIRE(without_unreachable_sides(prims_of(pa), Pose{}, prims_of(pb), at));
    const Interference fast = interference(a, Pose{}, b, at), ref = interference(a, Pose{}, b, at, column);
    INFO("depth " << d);
    REQUIRE(fast.overlap);
    REQUIRE(ref.overlap);
    CHECK(fast.columns == 0);
    CHECK(rel(fast.volume, ref.volume) < 1e-5);  // the reference's tolerance, with margin
    CHECK((fast.centroid - ref.centroid).norm() < 1e-5 * std::cbrt(ref.volume));
  }
}

TEST_CASE("unreachable sides: a side within reach is kept, and every dropped side is truly out of reach",
          "[geometry][unreachable_sides]") {
  // b's disc crosses a's rim: a's side bounds the overlap and must stay.
  const Primitive pa = rod(PrimitiveKind::Cylinder, 0.05, 0.4);
  const Primitive pb = rod(PrimitiveKind::Cylinder, 0.03, 0.3);
  CHECK(!without_unreachable_sides(prims_of(pa), Pose{}, prims_of(pb), Pose{Vec3(0.03, 0, 0.35 - 1e-4), Quat::Identity()}));

  // Soundness: random shapes at random attitudes dipping into a's top. Wherever a side is dropped, no point of b
  // within a's end planes may lie outside a's side (sampled: 4000 points of b's bounds ∩ the slab per pose).
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(0, 1);
  int dropped = 0, kept = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Primitive pb2;
    switch (trial % 5) {
      case 0: pb2 = rod(PrimitiveKind::Cylinder, 0.005 + 0.03 * u(rng), 0.02 + 0.2 * u(rng)); break;
      case 1: pb2 = rod(PrimitiveKind::Cone, 0.005 + 0.03 * u(rng), 0.02 + 0.2 * u(rng), 0.02 * u(rng)); break;
      case 2: pb2 = box(Vec3(0.01 + 0.05 * u(rng), 0.01 + 0.05 * u(rng), 0.01 + 0.05 * u(rng))); break;
      case 3: pb2 = sphere(0.005 + 0.04 * u(rng)); break;
      default: pb2 = rod(PrimitiveKind::Capsule, 0.005 + 0.02 * u(rng), 0.02 + 0.1 * u(rng)); break;
    }
    const Pose at{Vec3(0.06 * (u(rng) - 0.5), 0.06 * (u(rng) - 0.5), 0.2 + 0.1 * (u(rng) - 0.3)), random_rotation(rng)};
    const auto replaced = without_unreachable_sides(prims_of(pa), Pose{}, prims_of(pb2), at);
    if (!replaced) {
      ++kept;
      continue;
    }
    ++dropped;
    const lines::Placed placed = lines::place(CellPrimitive{pb2, false, nullptr}, at, Pose{});
    const Aabb bounds = world_bounds(make_cell({pb2}), at);
    int outside = 0;
    for (int k = 0; k < 4000; ++k) {
      const Vec3 x = bounds.min + (bounds.max - bounds.min).cwiseProduct(Vec3(u(rng), u(rng), u(rng)));
      if (std::abs(x.z()) > 0.2 || lines::sdf_local(placed, placed.A * x + placed.b) > 0) continue;
      if (std::hypot(x.x(), x.y()) > 0.05) ++outside;
    }
    INFO("trial " << trial);
    CHECK(outside == 0);
  }
  std::printf("unreachable sides: %d of 300 random poses dropped a's side, %d kept it\n", dropped, kept);
  CHECK(dropped > 20);  // both outcomes exercised
  CHECK(kept > 20);
}

TEST_CASE("unreachable sides: a cylinder rocking down on a post runs exactly as on a box table with the same top",
          "[geometry][unreachable_sides]") {
  // benchmarks/scenes/cylinder_on_post.yaml, 0.3 s: the cylinder lands on its rim at ~20 ms and rocks down flat. Its
  // part below the post's top never reaches the post's side, so the post is its end planes, as a 0.1 m box's top
  // face is: every dataset must have the same bits (an independent path: the box is planes from the start).
  namespace fs = std::filesystem;
  const fs::path dir = cli::temp_dir("unreachable_sides_test");
  const std::string scene = cli::kSource + "/benchmarks/scenes/cylinder_on_post.yaml";
  const std::string post = (dir / "post.h5").string(), table = (dir / "table.h5").string();
  for (const auto& [out, extra] : {std::pair<std::string, std::string>{post, ""},
                                   {table, " --set 'bodies.post.geometry={box: {size: [0.1, 0.1, 0.4]}}'"}}) {
    const cli::Run r = cli::run_command(cli::kVcsim + " run " + scene + " --set simulation.duration=0.3 -q -o " + out +
                                        extra);
    INFO(r.output);
    REQUIRE(r.status == 0);
  }
  const int status = cli::run_python_check(dir, cli::kCheckPrelude, R"PY(
post_file, post = dataset_bytes(')PY" + post + R"PY(')
_, table = dataset_bytes(')PY" + table + R"PY(')
volume = np.frombuffer(post['contacts/body__post/volume'], dtype=post_file['contacts/body__post/volume'].dtype)
expect('output samples in contact', int((volume > 0).sum()), 200, 1e9)
expect_true('the same datasets', post.keys() == table.keys())
diff = [k for k in post if table.get(k) != post[k]]
expect_true('bitwise identical to the box table', not diff, diff[:5])
)PY");
  CHECK(status == 0);
  fs::remove_all(dir);
}
