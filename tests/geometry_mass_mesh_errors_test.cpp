// Mass properties vs closed forms, a mesh vs the analytic sphere, and clear errors for bad geometry.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include "geometry/located_error.h"
#include "geometry/interference.h"
#include "geometry/mesh.h"
#include "tests/scratch_dir.h"

#include <openvdb/openvdb.h>

using namespace vcsim;
using namespace vcsim::geo;

namespace {

CsgNode prim(PrimitiveKind kind, const std::string& key_path) {
  CsgNode n;
  n.op = CsgNode::Op::Primitive;
  n.primitive.kind = kind;
  n.where.file = "scene.yaml";
  n.where.line = 12;
  n.where.column = 7;
  n.where.key_path = key_path;
  return n;
}
CsgNode sphere(double r, const Vec3& at, const std::string& key = "bodies.b.geometry") {
  CsgNode n = prim(PrimitiveKind::Sphere, key);
  n.primitive.radius = r;
  n.primitive.pose.position = at;
  return n;
}
CsgNode op(CsgNode::Op o, std::vector<CsgNode> children, const std::string& key = "bodies.b.geometry") {
  CsgNode n;
  n.op = o;
  n.children = std::move(children);
  n.where.file = "scene.yaml";
  n.where.line = 10;
  n.where.column = 5;
  n.where.key_path = key;
  return n;
}

double rel(const Mat3& a, const Mat3& b) { return (a - b).norm() / b.norm(); }

// Mass-property limit from issue 3.
constexpr double kMassLimit = 1e-4;
constexpr double kMassTolerance = 2e-6;  // the query tolerance that meets it (measured, printed below)

void check_mass(const char* label, const MassProperties& mp, double m, const Vec3& com, const Mat3& I) {
  const double em = std::abs(mp.mass / m - 1), ec = (mp.center_of_mass - com).norm() / std::cbrt(m / 1000.0);
  const double ei = rel(mp.inertia, I);
  std::printf("%-22s mass err %.2e  com err/size %.2e  inertia err %.2e\n", label, em, ec, ei);
  CHECK(em < kMassLimit);
  CHECK(ec < kMassLimit);
  CHECK(ei < kMassLimit);
}

std::string temp_dir() { return scratch::dir("geo_test").string(); }

// Icosphere of radius R: icosahedron subdivided n times, vertices projected onto the sphere.
TriangleMesh icosphere(double R, int n) {
  TriangleMesh m;
  const double t = (1 + std::sqrt(5.0)) / 2;
  for (const Vec3& v : {Vec3(-1, t, 0), Vec3(1, t, 0), Vec3(-1, -t, 0), Vec3(1, -t, 0), Vec3(0, -1, t), Vec3(0, 1, t),
                        Vec3(0, -1, -t), Vec3(0, 1, -t), Vec3(t, 0, -1), Vec3(t, 0, 1), Vec3(-t, 0, -1), Vec3(-t, 0, 1)})
    m.vertices.push_back(v.normalized() * R);
  m.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int s = 0; s < n; ++s) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      m.vertices.push_back((m.vertices[a] + m.vertices[b]).normalized() * R);
      return mid[key] = static_cast<int>(m.vertices.size()) - 1;
    };
    std::vector<std::array<int, 3>> next;
    for (const auto& tr : m.triangles) {
      const int a = midpoint(tr[0], tr[1]), b = midpoint(tr[1], tr[2]), c = midpoint(tr[2], tr[0]);
      next.push_back({tr[0], a, c});
      next.push_back({tr[1], b, a});
      next.push_back({tr[2], c, b});
      next.push_back({a, b, c});
    }
    m.triangles = next;
  }
  return m;
}

// Volume of the closed polyhedron translated by t, clipped to the half-space z <= 0: divergence
// theorem with the origin on the plane, so the (planar) cut face contributes nothing.
double polyhedron_cap_volume(const TriangleMesh& m, const Vec3& t) {
  double v = 0;
  for (const auto& tr : m.triangles) {
    Vec3 poly[4];
    int n = 0;
    for (int e = 0; e < 3; ++e) {
      const Vec3 a = m.vertices[tr[e]] + t, b = m.vertices[tr[(e + 1) % 3]] + t;
      if (a.z() <= 0) poly[n++] = a;
      if ((a.z() <= 0) != (b.z() <= 0)) poly[n++] = a + (b - a) * (a.z() / (a.z() - b.z()));
    }
    for (int k = 1; k + 1 < n; ++k) v += poly[0].dot(poly[k].cross(poly[k + 1])) / 6;
  }
  return v;
}

void write_obj(const TriangleMesh& m, const std::string& path, size_t drop_faces = 0) {
  std::ofstream out(path);
  for (const Vec3& v : m.vertices) out << "v " << v.x() << " " << v.y() << " " << v.z() << "\n";
  for (size_t k = drop_faces; k < m.triangles.size(); ++k)
    out << "f " << m.triangles[k][0] + 1 << " " << m.triangles[k][1] + 1 << " " << m.triangles[k][2] + 1 << "\n";
}

}  // namespace

TEST_CASE("Mass properties match closed forms", "[geometry][mass]") {
  const double rho = 7800;
  {
    const double R = 0.1;
    const Vec3 c(0.01, -0.02, 0.03);
    const BodyGeometry g = make_body_geometry(sphere(R, c), "");
    const double m = rho * 4.0 / 3 * M_PI * R * R * R;
    check_mass("sphere", mass_properties(g, rho, kMassTolerance), m, c, Mat3::Identity() * 0.4 * m * R * R);
  }
  {
    CsgNode n = prim(PrimitiveKind::Box, "bodies.b.geometry");
    n.primitive.size = Vec3(0.3, 0.2, 0.1);
    n.primitive.pose.rotation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
    const BodyGeometry g = make_body_geometry(n, "");
    const Vec3 s = n.primitive.size;
    const double m = rho * s.prod();
    const Mat3 Rm = n.primitive.pose.rotation.toRotationMatrix();
    const Mat3 I = Rm * Vec3(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(), s.x() * s.x() + s.y() * s.y())
                             .asDiagonal() * (m / 12) * Rm.transpose();
    check_mass("rotated box", mass_properties(g, rho, kMassTolerance), m, Vec3::Zero(), I);
  }
  {
    CsgNode n = prim(PrimitiveKind::Cylinder, "bodies.b.geometry");
    n.primitive.radius = 0.05;
    n.primitive.length = 0.3;
    const BodyGeometry g = make_body_geometry(n, "");
    const double R = 0.05, L = 0.3, m = rho * M_PI * R * R * L;
    const double Ix = m * (3 * R * R + L * L) / 12;
    check_mass("cylinder", mass_properties(g, rho, kMassTolerance), m, Vec3::Zero(),
               Vec3(Ix, Ix, m * R * R / 2).asDiagonal());
  }
  {
    // Two cells: a cube and a separate sphere; parallel-axis theorem for the combination.
    CsgNode cube = prim(PrimitiveKind::Box, "bodies.b.geometry.union[0]");
    cube.primitive.size = Vec3::Constant(0.2);
    const Vec3 cs(0.3, 0.05, 0);
    const BodyGeometry g = make_body_geometry(op(CsgNode::Op::Union, {cube, sphere(0.05, cs)}), "");
    REQUIRE(g.cells.size() == 2);
    const double m1 = rho * 0.008, m2 = rho * 4.0 / 3 * M_PI * std::pow(0.05, 3), m = m1 + m2;
    const Vec3 com = (m2 * cs) / m;
    auto shift = [](double mass, const Vec3& r) { return mass * (r.squaredNorm() * Mat3::Identity() - r * r.transpose()); };
    const Mat3 I = Mat3::Identity() * (m1 * 0.08 / 12) + shift(m1, -com) + Mat3::Identity() * (0.4 * m2 * 0.0025) +
                   shift(m2, cs - com);
    check_mass("two-cell body", mass_properties(g, rho, kMassTolerance), m, com, I);
  }
}

TEST_CASE("Icosphere mesh vs analytic sphere against a half-space", "[geometry][mesh]") {
  const double R = 0.1, h = 0.01;
  const std::string dir = temp_dir();
  const TriangleMesh ico = icosphere(R, 5);  // 20480 triangles
  write_obj(ico, dir + "/ico.obj");
  CsgNode mesh_node = prim(PrimitiveKind::Mesh, "bodies.ball.geometry");
  mesh_node.primitive.mesh_file = "ico.obj";
  const BodyGeometry mg = make_body_geometry(mesh_node, dir);
  const BodyGeometry sg = make_body_geometry(sphere(R, Vec3::Zero()), "");
  const BodyGeometry table = make_body_geometry(prim(PrimitiveKind::HalfSpace, "bodies.table.geometry"), "");
  const Pose pi{Vec3(0.01, 0.02, R - h), Quat::Identity()};
  const Interference xm = interference(mg.cells[0], pi, table.cells[0], Pose{});
  const Interference xs = interference(sg.cells[0], pi, table.cells[0], Pose{});
  const double diff = std::abs(xm.volume / xs.volume - 1);
  const double Vpoly = polyhedron_cap_volume(ico, pi.position);
  const double diff_poly = std::abs(xm.volume / Vpoly - 1);
  std::printf("mesh: icosphere (20480 triangles, polyhedron volume %.6e vs sphere %.6e) cap V %.6e vs analytic "
              "sphere %.6e: diff %.2e; vs the polyhedron's own cap %.6e: diff %.2e; centroid diff %.2e m\n",
              polyhedron_volume(ico), 4.0 / 3 * M_PI * R * R * R, xm.volume, xs.volume, diff, Vpoly, diff_poly,
              (xm.centroid - xs.centroid).norm());
  CHECK(diff < 0.01);  // issue 3 acceptance limit
  // Against the exact cap of the polyhedron itself, only the level-set sampling error remains
  // (voxel = extent/200 = 1 mm, a 10 mm deep cap): 0.3% covers O(voxel²·curvature) and the float grid.
  CHECK(diff_poly < 3e-3);
  CHECK(xm.normal_estimate.z() > 0.99);
  std::filesystem::remove_all(dir);
}

TEST_CASE("Bad geometry gives clear errors", "[geometry][errors]") {
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const GeometryError& e) {
      std::printf("error: %s\n", e.what());
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  // Negative radius: file:line:column, key path, what was expected.
  std::string m = message([] { make_body_geometry(sphere(-0.1, Vec3::Zero()), ""); });
  CHECK(m.find("scene.yaml:12:7") != std::string::npos);
  CHECK(m.find("bodies.b.geometry.sphere.radius") != std::string::npos);
  CHECK(m.find("> 0") != std::string::npos);
  // Empty intersection cell: two disjoint spheres intersected.
  m = message([] {
    make_body_geometry(op(CsgNode::Op::Intersection, {sphere(0.1, Vec3::Zero()), sphere(0.1, Vec3(0.5, 0, 0))}), "");
  });
  CHECK(m.find("empty") != std::string::npos);
  // Overlapping cells: a union of two overlapping, named spheres.
  m = message([] {
    CsgNode a = sphere(0.1, Vec3::Zero(), "bodies.b.geometry.union[0]"), b = sphere(0.1, Vec3(0.15, 0, 0), "bodies.b.geometry.union[1]");
    a.name = "left";
    b.name = "right";
    make_body_geometry(op(CsgNode::Op::Union, {a, b}), "");
  });
  CHECK(m.find("'left'") != std::string::npos);
  CHECK(m.find("'right'") != std::string::npos);
  CHECK(m.find("overlap") != std::string::npos);
  // Open mesh: an icosahedron with one face removed.
  const std::string dir = temp_dir();
  write_obj(icosphere(0.1, 0), dir + "/open.obj", 1);
  m = message([&] {
    CsgNode n = prim(PrimitiveKind::Mesh, "bodies.b.geometry");
    n.primitive.mesh_file = "open.obj";
    make_body_geometry(n, dir);
  });
  CHECK(m.find("open.obj") != std::string::npos);
  CHECK(m.find("closed mesh") != std::string::npos);
  std::filesystem::remove_all(dir);
  // Unknown primitive kind (not reachable from YAML, but the handling is total).
  m = message([] {
    CsgNode n = prim(static_cast<PrimitiveKind>(99), "bodies.b.geometry");
    make_body_geometry(n, "");
  });
  CHECK(m.find("known primitive") != std::string::npos);
  // The subtraction that makes the overlapping union valid is accepted.
  CHECK_NOTHROW(make_body_geometry(
      op(CsgNode::Op::Union, {sphere(0.1, Vec3::Zero()),
                              op(CsgNode::Op::Difference, {sphere(0.1, Vec3(0.15, 0, 0)), sphere(0.1, Vec3::Zero())})}),
      ""));
}

TEST_CASE("dump_interference_vdb writes a fog volume that OpenVDB reads back", "[geometry][vdb]") {
  const double R = 0.1, h = 5e-3;
  const BodyGeometry ball = make_body_geometry(sphere(R, Vec3::Zero()), "");
  const BodyGeometry table = make_body_geometry(prim(PrimitiveKind::HalfSpace, "bodies.table.geometry"), "");
  const Pose pi{Vec3(100.0, 20.0, R - h), Quat::Identity()};
  const std::string dir = temp_dir(), path = dir + "/pair.vdb";
  QueryOptions o;
  REQUIRE(dump_interference_vdb(ball.cells[0], pi, table.cells[0], Pose{}, o, path));
  openvdb::initialize();
  openvdb::io::File file(path);
  file.open();
  auto grid = openvdb::gridPtrCast<openvdb::FloatGrid>(file.readGrid("interference"));
  file.close();
  REQUIRE(grid);
  double sum = 0;
  for (auto it = grid->cbeginValueOn(); it; ++it) sum += *it;
  const double voxel = grid->voxelSize()[0];
  const double V = M_PI * h * h * (3 * R - h) / 3;
  std::printf("vdb: %zu active voxels of %.3g m, fill sum x voxel^3 = %.4e vs cap %.4e\n",
              static_cast<size_t>(grid->activeVoxelCount()), voxel, sum * voxel * voxel * voxel, V);
  // Splatting columns into voxels of the lattice spacing: the sum of fill fractions is the volume
  // to within the partial voxels at the rim (a few percent at this resolution).
  CHECK(sum * voxel * voxel * voxel == Approx(V).epsilon(0.05));
  // World coordinates: the region sits under the ball, 100 m from the origin.
  const auto bbox = grid->evalActiveVoxelBoundingBox();
  const auto centre = grid->indexToWorld(bbox.getCenter());
  CHECK(centre.x() == Approx(100.0).margin(0.01));
  std::filesystem::remove_all(dir);
}
