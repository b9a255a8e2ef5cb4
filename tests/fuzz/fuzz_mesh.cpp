// libFuzzer target (issue 8): the mesh reader (OBJ, ASCII and binary STL), the closedness check, and for a mesh that
// loads, its split into convex pieces (split: convex, geometry/convex_pieces.h), on arbitrary bytes. The first byte picks the format (even: .obj, odd: .stl); the rest is the file.
// Anything but a GeometryError escaping, and any sanitizer report or hang, is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "geometry/convex_pieces.h"
#include "geometry/located_error.h"
#include "geometry/mesh.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const std::string base = "/tmp/vcsim_fuzz_mesh_" + std::to_string(getpid());
  const std::string path = base + ((data[0] & 1) ? ".stl" : ".obj");
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data + 1, 1, size - 1, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    const vcsim::geo::SourceLocation where{"fuzz.yaml", 1, 1, "bodies.b.geometry.mesh.file"};
    const auto mesh = vcsim::geo::read_mesh(path, where);
    vcsim::geo::check_closed(mesh, path, where);
    vcsim::geo::polyhedron_volume(mesh);
    const auto loaded = vcsim::geo::load_mesh_level_set(path, 1.0, where);
    vcsim::geo::convex_pieces(*loaded, where, 64);
  } catch (const vcsim::geo::GeometryError&) {
  }
  return 0;
}
