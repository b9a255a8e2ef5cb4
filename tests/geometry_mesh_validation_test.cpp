// Bad meshes stop the load (issue 16): each defect gets a GeometryError naming the file, the defect and where it is
// (triangle or vertex indices); the CLI turns it into exit status 2 (tests/error_catalogue_test.cpp runs one end to
// end). A mesh whose triangles all face inward is flipped, with a warning.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "geometry/located_error.h"
#include "geometry/mesh.h"
#include "tests/scratch_dir.h"

using namespace vcsim;
using namespace vcsim::geo;

namespace {

std::string write(const std::string& name, const std::string& obj) {
  const std::string path = (scratch::dir("mesh_validation") / name).string();
  std::ofstream(path) << obj;
  return path;
}

std::string load_error(const std::string& name, const std::string& obj) {
  const std::string path = write(name, obj);
  try {
    load_mesh_level_set(path, 1.0, SourceLocation{"scene.yaml", 3, 5, "bodies.b.geometry.mesh.file"});
  } catch (const GeometryError& e) {
    const std::string m = e.what();
    CHECK(m.find(path) != std::string::npos);  // names the file
    return m;
  }
  FAIL("no error for " << name);
  return "";
}

// A tetrahedron (outward) and a second one far away, as OBJ records with 1-based indices from `base`.
const std::string kTetra = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n";
const std::string kTetraFaces = "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

}  // namespace

TEST_CASE("Bad meshes: each defect named with its place", "[geometry][mesh][errors]") {
  // Open: the fourth face missing.
  CHECK_THAT(load_error("open.obj", kTetra + "f 1 3 2\nf 1 2 4\nf 1 4 3\n"),
             Catch::Contains("used by 1 triangle") && Catch::Contains("the mesh is open there"));
  // Inconsistent orientation: one face flipped (its edges run the same way as its neighbours').
  CHECK_THAT(load_error("flipped.obj", kTetra + "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 4 3\n"),
             Catch::Contains("consistently oriented") && Catch::Contains("triangles") &&
                 Catch::Contains("one of them is flipped"));
  // Non-manifold edge: a third triangle hung on the edge 1-2 (closed otherwise by a second tetrahedron's faces).
  CHECK_THAT(load_error("fin.obj", kTetra + "v 0.5 -1 0.3\n" + kTetraFaces + "f 1 2 5\nf 2 1 5\n"),
             Catch::Contains("not a manifold there") || Catch::Contains("consistently oriented"));
  // Degenerate: a zero-area triangle (three collinear points) in an otherwise closed fan.
  CHECK_THAT(load_error("degenerate.obj", kTetra + "v 0.5 0 0\nf 1 5 2\n" + kTetraFaces),
             Catch::Contains("zero area") && Catch::Contains("triangle 0"));
  // Non-manifold vertex: two tetrahedra touching at one vertex (vertex 4, index 3).
  CHECK_THAT(load_error("bowtie.obj", kTetra + "v 1 1 2\nv 0 1 2\nv 1 0 2\n" + kTetraFaces +
                                          "f 4 5 6\nf 4 7 5\nf 4 6 7\nf 5 7 6\n"),
             Catch::Contains("separate fans") && Catch::Contains("vertex 3"));
  // Self-intersecting: two closed tetrahedra passing through each other (each closed and manifold on its own).
  CHECK_THAT(load_error("crossing.obj", kTetra + "v 0.2 0.2 -0.5\nv 1.2 0.2 -0.5\nv 0.2 1.2 -0.5\nv 0.2 0.2 0.5\n" +
                                            kTetraFaces + "f 5 7 6\nf 5 6 8\nf 5 8 7\nf 6 7 8\n"),
             Catch::Contains("does not intersect itself") && Catch::Contains("cross"));
}

TEST_CASE("A mesh whose triangles all face inward is flipped, and keeps its volume", "[geometry][mesh][errors]") {
  const std::string path = write("inward.obj", kTetra + "f 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n");
  const auto m = load_mesh_level_set(path, 1.0, SourceLocation{"scene.yaml", 3, 5, "m"});
  CHECK(std::abs(m->volume - 1.0 / 6) < 1e-15);
  // The stored triangles face outward: positive signed volume.
  double v = 0;
  for (const auto& t : m->triangles) v += m->vertices[t[0]].dot(m->vertices[t[1]].cross(m->vertices[t[2]])) / 6;
  CHECK(std::abs(v - 1.0 / 6) < 1e-15);
}
