// `vcsim export` (and the first half of `vcsim animate`): from a vcsim HDF5 output to ParaView files.
//
// The scenario is re-loaded from the YAML text stored in the output (root attribute `scenario`), so
// the bodies get exactly the geometry they were simulated with. Each body's cells are meshed once
// (geo::body_surface_mesh: sampled signed distance -> OpenVDB level set -> volumeToMesh), in the
// centre-of-mass frame; unbounded cells (half-spaces, slabs, ...) are clipped to the scene's box.
// Output, in the output directory (docs/visualization.md):
//   <scenario>.pvd                  time collection: one part per body, plus one for the contacts
//   bodies/<body>.vtp               each body's mesh in its own (centre-of-mass) frame
//   frames/<body>_NNNN.vtp          a free body's mesh in the world at output frame NNNN
//   frames/<body>.vtp               a fixed body's mesh in the world (every frame points to it)
//   frames/contacts_NNNN.vtp        contact points (vertices) with force/normal/... point data
// All .vtp files are VTK XML PolyData, appended raw binary, zlib-compressed.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace vcsim::viz {

// A file that is missing, not HDF5, not a vcsim output, or whose scenario does not load: bad input
// (exit status 2). what() is one line naming the file.
struct BadOutputFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ExportOptions {
  std::string input;       // vcsim HDF5 output
  std::string output_dir;  // default: <input without .h5>-vtk
  int frames = 100;        // at most this many output frames, evenly spaced in time (first and last kept)
  int resolution = 64;     // voxels along each body's largest extent (geo::SurfaceMeshOptions)
  double adaptivity = 0.01;  // volumeToMesh adaptivity, 0..1 (0.01: ~6x fewer triangles, same look)
  bool compress = true;    // zlib-compressed appended data
  bool quiet = false;      // no progress lines on stderr
};

struct ExportSummary {
  std::string output_dir;
  std::string pvd;          // path of the .pvd collection
  std::string scenario_name;
  int frames = 0;
  std::vector<double> frame_times;
  std::vector<std::string> bodies;  // bodies with a mesh
  std::vector<long> triangles;      // per body
  long files = 0;
  double mesh_seconds = 0, write_seconds = 0;
};

// Throws BadOutputFile on bad input, std::runtime_error on other failures (e.g. unwritable directory).
ExportSummary export_vtk(const ExportOptions& options);

// Checks that `path` exists, is HDF5 and is a vcsim output; throws BadOutputFile otherwise.
void check_output_file(const std::string& path);

}  // namespace vcsim::viz
