// A concave mesh split into exact convex pieces (geometry/convex_pieces.h, the mesh key `split: convex`), against
// closed forms: each solid's volume, and its membership (inside or not) at 20 000 random points, which must lie in
// exactly one piece when inside and in none outside. The pieces are disjoint (a point is in at most one) and cover
// the solid (every inside point is in one), so the split is the solid, not an approximation of it.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <random>

#include "geometry/convex_pieces.h"
#include "geometry/interference.h"
#include "geometry/located_error.h"
#include "tests/geometry_support.h"

using namespace geometry_support;

namespace {

std::shared_ptr<const MeshLevelSet> load(const Solid& s, const std::string& name) {
  return load_mesh_level_set(write_obj(s, name), 1.0, SourceLocation{});
}

// Which pieces hold x (every plane of the piece does), and whether x is within `margin` of any piece's plane, where
// the sample says nothing (a point on a shared face is in both pieces' closures).
int pieces_holding(const std::vector<ConvexPiece>& pieces, const Vec3& x, double margin, bool& near_face) {
  int n = 0;
  for (const ConvexPiece& p : pieces) {
    bool in = true;
    for (const Plane& pl : p.planes) {
      const double s = pl.n.dot(x) - pl.d;
      near_face = near_face || std::abs(s) < margin;
      in = in && s <= 0;
    }
    if (in) {
      ++n;
      CHECK((x.array() >= p.lo.array() - margin).all());  // its bounds hold it
      CHECK((x.array() <= p.hi.array() + margin).all());
    }
  }
  return n;
}

// The split of `mesh` against the solid's closed-form volume and membership.
void check_split(const MeshLevelSet& mesh, const std::vector<ConvexPiece>& pieces, double volume,
                 const std::function<bool(const Vec3&)>& inside) {
  double total = 0;
  for (const ConvexPiece& p : pieces) total += p.volume;
  CHECK(total == Approx(volume).epsilon(1e-12));  // rounding of sums of a few dozen tetrahedra
  const Vec3 lo = mesh.lo - 0.1 * (mesh.hi - mesh.lo), hi = mesh.hi + 0.1 * (mesh.hi - mesh.lo);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  const double margin = 1e-9 * (mesh.hi - mesh.lo).maxCoeff();
  int tested = 0, in_solid = 0;
  for (int k = 0; k < 20000; ++k) {
    const Vec3 x = lo + Vec3(u(rng), u(rng), u(rng)).cwiseProduct(hi - lo);
    bool near_face = false;
    const int n = pieces_holding(pieces, x, margin, near_face);
    if (near_face) continue;
    ++tested;
    const bool in = inside(x);
    in_solid += in;
    INFO("x = (" << x.transpose() << "), inside by the closed form: " << in << ", pieces holding it: " << n);
    CHECK(n == (in ? 1 : 0));
  }
  CHECK(tested > 19000);
  CHECK(in_solid > 1000);  // the samples reach the solid
}

}  // namespace

TEST_CASE("Convex pieces: an L prism is two pieces", "[geometry][mesh][convex_pieces]") {
  const Solid L = prism({Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(2, 1, 0), Vec3(1, 1, 0), Vec3(1, 2, 0), Vec3(0, 2, 0)},
                        0.5, 3);
  const auto mesh = load(L, "pieces_L");
  const auto pieces = convex_pieces(*mesh, SourceLocation{});
  CHECK(pieces.size() == 2);  // one reflex edge, one cut
  check_split(*mesh, pieces, 3 * 0.5, [](const Vec3& x) {
    const bool in_plan = (x.x() >= 0 && x.x() <= 2 && x.y() >= 0 && x.y() <= 1) ||
                         (x.x() >= 0 && x.x() <= 1 && x.y() >= 0 && x.y() <= 2);
    return in_plan && x.z() >= 0 && x.z() <= 0.5;
  });
}

TEST_CASE("Convex pieces: a 12-point star prism", "[geometry][mesh][convex_pieces]") {
  const std::vector<Vec3> star = star_polygon(6, 0.05, 0.02);
  const double H = 0.03;
  const auto mesh = load(star_prism(star, H), "pieces_star");
  const auto pieces = convex_pieces(*mesh, SourceLocation{});
  CHECK(pieces.size() >= 6);  // six reflex edges, no piece can hold two of the star's points
  CHECK(pieces.size() <= 24);
  const double area = fan_area(star);
  check_split(*mesh, pieces, area * H, [&](const Vec3& x) {
    if (x.z() < 0 || x.z() > H) return false;
    bool in = false;  // even-odd crossings of a ray along +x with the star's edges
    for (int k = 0; k < 12; ++k) {
      const Vec3 &a = star[k], &b = star[(k + 1) % 12];
      if ((a.y() > x.y()) != (b.y() > x.y()) && x.x() < a.x() + (x.y() - a.y()) * (b.x() - a.x()) / (b.y() - a.y()))
        in = !in;
    }
    return in;
  });
}

TEST_CASE("Convex pieces: a square tube (a hole through) and a hollow cube (a void inside)",
          "[geometry][mesh][convex_pieces]") {
  {
    const double a = 0.05, b = 0.04, L = 0.08;
    const auto mesh = load(square_tube(a, b, L), "pieces_tube");
    const auto pieces = convex_pieces(*mesh, SourceLocation{});
    CHECK(pieces.size() >= 4);
    check_split(*mesh, pieces, (4 * a * a - 4 * b * b) * L, [&](const Vec3& x) {
      const double r = std::max(std::abs(x.x()), std::abs(x.y()));
      return r >= b && r <= a && x.z() >= 0 && x.z() <= L;
    });
  }
  {
    // The cube [-1, 1]³ with the void [-0.4, 0.5]³: the inner box's faces turned inward.
    Solid hollow = box_solid(Vec3(-1, -1, -1), Vec3(1, 1, 1));
    Solid inner = box_solid(Vec3(-0.4, -0.4, -0.4), Vec3(0.5, 0.5, 0.5));
    const int offset = static_cast<int>(hollow.v.size());
    for (const Vec3& v : inner.v) hollow.v.push_back(v);
    for (const auto& f : inner.f) hollow.f.push_back({f[0] + offset, f[2] + offset, f[1] + offset});
    const auto mesh = load(hollow, "pieces_hollow");
    const auto pieces = convex_pieces(*mesh, SourceLocation{});
    CHECK(pieces.size() >= 6);
    check_split(*mesh, pieces, 8 - 0.9 * 0.9 * 0.9, [](const Vec3& x) {
      const bool in_cube = (x.cwiseAbs().array() <= 1).all();
      const bool in_void = (x.array() >= -0.4).all() && (x.array() <= 0.5).all();
      return in_cube && !in_void;
    });
  }
}

// A polycube (unit cubes of an n x n x n grid) as a closed mesh: two triangles per face between a filled and an
// empty cell, outward, vertices shared on the integer grid. Some random fillings touch along an edge or at a vertex
// only (not a manifold): the loader refuses those, and the test draws another.
Solid polycube(const std::vector<char>& filled, int n) {
  auto at = [&](int x, int y, int z) {
    return x >= 0 && y >= 0 && z >= 0 && x < n && y < n && z < n && filled[(x * n + y) * n + z];
  };
  Solid s;
  std::map<std::array<int, 3>, int> index;
  auto vertex = [&](std::array<int, 3> p) {
    auto [it, fresh] = index.emplace(p, static_cast<int>(s.v.size()));
    if (fresh) s.v.emplace_back(p[0], p[1], p[2]);
    return it->second;
  };
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z) {
        if (!at(x, y, z)) continue;
        for (int axis = 0; axis < 3; ++axis)
          for (int side : {-1, 1}) {
            std::array<int, 3> c{x, y, z}, d{0, 0, 0};
            d[axis] = side;
            if (at(x + d[0], y + d[1], z + d[2])) continue;
            // The face's corners, counter-clockwise seen from outside (along +axis when side = 1).
            const int u = (axis + 1) % 3, w = (axis + 2) % 3;
            std::array<int, 3> base = c;
            base[axis] += side > 0 ? 1 : 0;
            std::array<std::array<int, 3>, 4> q;
            for (int k = 0; k < 4; ++k) {
              q[k] = base;
              q[k][u] += (k == 1 || k == 2);
              q[k][w] += (k >= 2);
            }
            std::array<int, 4> id;
            for (int k = 0; k < 4; ++k) id[k] = vertex(q[k]);
            if (side > 0) s.f.push_back({id[0], id[1], id[2]}), s.f.push_back({id[0], id[2], id[3]});
            else s.f.push_back({id[0], id[2], id[1]}), s.f.push_back({id[0], id[3], id[2]});
          }
      }
  return s;
}

TEST_CASE("Convex pieces: random polycubes, against their cells", "[geometry][mesh][convex_pieces]") {
  std::mt19937 rng(17);
  const int n = 3;
  int split = 0;
  for (int trial = 0; trial < 400 && split < 25; ++trial) {
    std::vector<char> filled(n * n * n);
    int count = 0;
    for (char& f : filled) count += f = (rng() % 3 != 0);
    if (count == 0) continue;
    std::shared_ptr<const MeshLevelSet> mesh;
    try {
      mesh = load(polycube(filled, n), "pieces_polycube");
    } catch (const GeometryError&) {
      continue;  // not a manifold (cubes meeting at an edge or a corner only), or in several touching parts
    }
    ++split;
    INFO("trial " << trial << ": " << count << " cubes");
    check_split(*mesh, convex_pieces(*mesh, SourceLocation{}), count, [&](const Vec3& x) {
      const int i = int(std::floor(x.x())), j = int(std::floor(x.y())), k = int(std::floor(x.z()));
      return i >= 0 && j >= 0 && k >= 0 && i < n && j < n && k < n && filled[(i * n + j) * n + k];
    });
  }
  CHECK(split >= 10);  // enough manifold fillings were drawn (24 of 400: 14–23 cubes, 5–8 pieces each)
}

TEST_CASE("Convex pieces: two disjoint boxes in one file are two pieces, a convex mesh is one",
          "[geometry][mesh][convex_pieces]") {
  Solid two = box_solid(Vec3(0, 0, 0), Vec3(1, 1, 1));
  const Solid other = box_solid(Vec3(2, 0.5, 0), Vec3(3, 2, 0.5));
  const int offset = static_cast<int>(two.v.size());
  for (const Vec3& v : other.v) two.v.push_back(v);
  for (const auto& f : other.f) two.f.push_back({f[0] + offset, f[1] + offset, f[2] + offset});
  const auto mesh = load(two, "pieces_two_boxes");
  const auto pieces = convex_pieces(*mesh, SourceLocation{});
  CHECK(pieces.size() == 2);
  check_split(*mesh, pieces, 1 + 0.75, [](const Vec3& x) {
    return ((x.array() >= 0).all() && (x.array() <= 1).all()) ||
           (x.x() >= 2 && x.x() <= 3 && x.y() >= 0.5 && x.y() <= 2 && x.z() >= 0 && x.z() <= 0.5);
  });
  const auto bipyramid_mesh = load(bipyramid(8, 0.1, 0.05), "pieces_bipyramid");
  const auto one = convex_pieces(*bipyramid_mesh, SourceLocation{});
  REQUIRE(one.size() == 1);
  CHECK(one[0].planes.size() == 16);
  // Two pyramids of height h over the regular 8-gon of circumradius r: 2 · (1/3) · (8/2) r² sin(2π/8) · h.
  CHECK(one[0].volume == Approx(2.0 / 3 * 4 * 0.01 * std::sin(M_PI / 4) * 0.05).epsilon(1e-12));
}

TEST_CASE("Convex pieces: a body's mesh with split: convex becomes one cell per piece, the same solid",
          "[geometry][mesh][convex_pieces]") {
  const Solid L = prism({Vec3(0, 0, 0), Vec3(0.2, 0, 0), Vec3(0.2, 0.1, 0), Vec3(0.1, 0.1, 0), Vec3(0.1, 0.2, 0),
                         Vec3(0, 0.2, 0)},
                        0.05, 3);
  CsgNode node;
  node.primitive.kind = PrimitiveKind::Mesh;
  node.primitive.mesh_file = write_obj(L, "pieces_body_L");
  node.primitive.pose = Pose{Vec3(0.3, -0.1, 0.02), Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()))};
  node.name = "bracket";
  const BodyGeometry whole = make_body_geometry(node, "");
  node.primitive.mesh_split_convex = true;
  const BodyGeometry split = make_body_geometry(node, "");
  REQUIRE(whole.cells.size() == 1);
  REQUIRE(split.cells.size() == 2);
  CHECK(split.cells[0].name == "bracket[0]");
  // The same mass properties: the mesh's divergence sums against the pieces' polyhedron clips (both exact).
  const MassProperties a = mass_properties(whole, 1000, 1e-6), b = mass_properties(split, 1000, 1e-6);
  CHECK(b.mass == Approx(1000 * 0.03 * 0.05).epsilon(1e-12));
  CHECK(a.mass == Approx(b.mass).epsilon(1e-12));
  CHECK((a.center_of_mass - b.center_of_mass).norm() < 1e-12);
  CHECK((a.inertia - b.inertia).norm() < 1e-10 * a.inertia.norm());
  // A box pressed into the bracket's inner corner meets both pieces: two patches, two normals (the point of the split),
  // whose moments add up to the whole mesh's.
  const Cell probe = make_cell({box(Vec3(0.12, 0.12, 0.2))});
  const Vec3 centre(0.1 + 0.06 - 0.001, 0.1 + 0.06 - 0.001, 0.02);  // its inner corner 1 mm into both legs
  const Pose corner = node.primitive.pose.compose(Pose{centre, Quat::Identity()});
  const Interference w = interference(whole.cells[0], Pose{}, probe, corner);
  const Interference p0 = interference(split.cells[0], Pose{}, probe, corner);
  const Interference p1 = interference(split.cells[1], Pose{}, probe, corner);
  REQUIRE(p0.overlap);
  REQUIRE(p1.overlap);
  // Each strip is 1 mm deep: 0.1 x 0.001 (or 0.101 x 0.001, the corner in one of them) by 0.05 high.
  CHECK(p0.volume + p1.volume == Approx(w.volume).epsilon(1e-9));
  CHECK(w.volume == Approx((0.1 + 0.101) * 0.001 * 0.05).epsilon(1e-9));
}

TEST_CASE("Convex pieces: clear errors", "[geometry][mesh][convex_pieces]") {
  // A curved concave surface (a bowl of 1 080 triangles) would need hundreds of slivers: refused, naming the file.
  const std::string bowl = std::string(VCSIM_SOURCE_DIR) + "/benchmarks/meshes/bowl_1000.obj";
  const SourceLocation where{"scene.yaml", 12, 9, "bodies.bowl.geometry[0]"};
  try {
    convex_pieces(*load_mesh_level_set(bowl, 1.0, where), where);
    FAIL("no error");
  } catch (const GeometryError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("scene.yaml:12:9: error: bodies.bowl.geometry[0]") == 0);
    CHECK(what.find("bowl_1000.obj") != std::string::npos);
    CHECK(what.find("split: none") != std::string::npos);
  }
  // split: convex on a subtracted mesh.
  CsgNode diff;
  diff.op = CsgNode::Op::Difference;
  CsgNode block;
  block.primitive.kind = PrimitiveKind::Box;
  block.primitive.size = Vec3(1, 1, 1);
  CsgNode hole;
  hole.primitive.kind = PrimitiveKind::Mesh;
  hole.primitive.mesh_file = write_obj(prism({Vec3(0, 0, 0), Vec3(0.2, 0, 0), Vec3(0.2, 0.1, 0), Vec3(0.1, 0.1, 0),
                                              Vec3(0.1, 0.2, 0), Vec3(0, 0.2, 0)},
                                             0.05, 3),
                                       "pieces_hole_L");
  hole.primitive.mesh_split_convex = true;
  hole.where = SourceLocation{"scene.yaml", 20, 11, "bodies.part.geometry.difference[1]"};
  diff.children = {block, hole};
  try {
    make_body_geometry(diff, "");
    FAIL("no error");
  } catch (const GeometryError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("scene.yaml:20:11") == 0);
    CHECK(what.find("subtracted") != std::string::npos);
  }
}
