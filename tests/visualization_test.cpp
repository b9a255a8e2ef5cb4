// Seeing the results (issue 6): `vcsim plot`, `vcsim export` and `vcsim animate` on a real run of the
// default scenario, checked from the outside (PNG/GIF headers read here, VTK files read by python3-vtk9's
// own reader), and their errors on bad input (exit status 2 and a message naming the problem).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "tests/cli_support.h"

using namespace cli;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir() { return cli::temp_dir("viz_test"); }

Run vcsim(const std::string& args) { return run_command(kVcsim + " " + args); }

// Runs a python script; its output is returned for the failure report.
Run python(const std::string& name, const std::string& code) {
  const fs::path script = temp_dir() / name;
  std::ofstream(script) << code;
  return run_command(kPython + " " + script.string());
}

// A short run of the default scenario: the ball falls, hits the table at ~0.143 s and bounces
// (101 samples over 0.2 s). Made once per process.
const std::string& ball_run() {
  static const std::string path = [] {
    const std::string out = (temp_dir() / "ball.h5").string();
    const Run r = vcsim("run " + kSource + "/scenarios/ball_on_table.yaml -o " + out +
                        " -q --set simulation.duration=0.2 --set simulation.step=1e-4 --set output.interval=0.002");
    INFO(r.output);
    REQUIRE(r.status == 0);
    return out;
  }();
  return path;
}

// Width and height from a PNG's IHDR chunk; {0, 0} if the file is not a PNG.
std::pair<int, int> png_size(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  unsigned char h[24] = {};
  in.read(reinterpret_cast<char*>(h), 24);
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (!in || std::memcmp(h, sig, 8) != 0 || std::memcmp(h + 12, "IHDR", 4) != 0) return {0, 0};
  auto be32 = [&](int o) { return int(h[o]) << 24 | int(h[o + 1]) << 16 | int(h[o + 2]) << 8 | int(h[o + 3]); };
  return {be32(16), be32(20)};
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("plot: the figures of a real run exist, are non-empty PNGs of the requested size") {
  const fs::path dir = temp_dir() / "plots";
  fs::remove_all(dir);
  const Run r = vcsim("plot " + ball_run() + " -o " + dir.string() + " --size 960x720");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::set<std::string> expected = {"trajectory.png",
                                          "body_ball.png",
                                          "energy.png",
                                          "contact_ball__table_wrench.png",
                                          "contact_ball__table_state.png",
                                          "contact_ball__table_channels.png"};
  std::set<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) found.insert(e.path().filename().string());
  CHECK(found == expected);
  for (const auto& name : expected) {
    const fs::path p = dir / name;
    INFO(p);
    REQUIRE(fs::exists(p));
    CHECK(fs::file_size(p) > 10000);  // a drawn figure, not an empty canvas
    CHECK(png_size(p) == std::make_pair(960, 720));
    CHECK(r.output.find(p.string()) != std::string::npos);  // every figure is listed on stdout
  }

  // Default size, and the default directory next to the file.
  const fs::path copy = temp_dir() / "copy.h5";
  fs::copy_file(ball_run(), copy, fs::copy_options::overwrite_existing);
  const Run d = vcsim("plot " + copy.string());
  INFO(d.output);
  REQUIRE(d.status == 0);
  CHECK(png_size(temp_dir() / "copy-plots" / "energy.png") == std::make_pair(1200, 900));
}

TEST_CASE("export: ParaView files parse with VTK's reader, with the right points and time steps") {
  const fs::path dir = temp_dir() / "vtk";
  fs::remove_all(dir);
  const Run r = vcsim("export " + ball_run() + " -o " + dir.string() + " --frames 11 -q");
  INFO(r.output);
  REQUIRE(r.status == 0);
  REQUIRE(fs::exists(dir / "ball_on_table.pvd"));

  // The .pvd is parsed as XML (VTK has no .pvd reader); every .vtp with vtkXMLPolyDataReader.
  const Run py = python("check_vtk.py", R"(
import sys, os, math
import xml.etree.ElementTree as ET
try:
    import vtk
except ImportError:
    sys.exit("python3-vtk9 is missing: run tools/install-deps")
import h5py, numpy as np

d = sys.argv[1] if len(sys.argv) > 1 else ")" + dir.string() + R"("
h5 = ")" + ball_run() + R"("
root = ET.parse(os.path.join(d, "ball_on_table.pvd")).getroot()
assert root.get("type") == "Collection"
sets = list(root.iter("DataSet"))
times = sorted({float(s.get("timestep")) for s in sets})
assert len(times) == 11, times
with h5py.File(h5) as f:
    t = f["time"][:]
    pos = f["bodies/ball/position"][:]
    ic = f["contacts/ball__table/in_contact"][:]
assert abs(times[0] - t[0]) < 1e-12 and abs(times[-1] - t[-1]) < 1e-12, (times, t[-1])

def read(path):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    assert r.GetErrorCode() == 0, path
    return r.GetOutput()

names = {s.get("part"): s.get("name") for s in sets}
assert sorted(names.values()) == ["ball", "contacts", "table"], names
points = {}
contact_frames = 0
for s in sets:
    ts = float(s.get("timestep"))
    out = read(os.path.join(d, s.get("file")))
    name = s.get("name")
    if name == "contacts":
        assert out.GetNumberOfVerts() == out.GetNumberOfPoints()
        k = int(np.argmin(abs(t - ts)))
        assert out.GetNumberOfPoints() == int(ic[k]), (ts, out.GetNumberOfPoints(), ic[k])
        if out.GetNumberOfPoints():
            contact_frames += 1
            F = out.GetPointData().GetArray("force").GetTuple3(0)
            n = out.GetPointData().GetArray("normal").GetTuple3(0)
            assert F[2] > 0 and n[2] > 0.99, (F, n)  # the table pushes the ball up
        tv = out.GetFieldData().GetArray("TimeValue").GetValue(0)
        assert abs(tv - ts) < 1e-9, (tv, ts)
        continue
    npts = out.GetNumberOfPoints()
    assert npts > 0 and out.GetNumberOfPolys() > 0, (s.get("file"), npts)
    points.setdefault(name, set()).add(npts)
    if name == "ball":
        k = int(np.argmin(abs(t - ts)))
        b = out.GetBounds()
        centre = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
        assert max(abs(centre[i] - pos[k][i]) for i in range(3)) < 2e-3, (centre, pos[k])
        assert all(abs((b[2*i+1] - b[2*i]) - 0.2) < 4e-3 for i in range(3)), b
        p = out.GetFieldData().GetArray("position").GetTuple3(0)
        assert max(abs(p[i] - pos[k][i]) for i in range(3)) < 1e-12, (p, pos[k])
        assert out.GetFieldData().GetArray("orientation").GetNumberOfComponents() == 4
for name, counts in points.items():
    assert len(counts) == 1, (name, counts)  # the same mesh in every frame
assert contact_frames >= 1
# The meshes enclose the right volumes (ball R = 0.1 m, table 2 x 2 x 0.1 m).
for name, volume in (("ball", 4 / 3 * math.pi * 0.1**3), ("table", 0.4)):
    tri = vtk.vtkTriangleFilter()
    tri.SetInputData(read(os.path.join(d, "bodies", name + ".vtp")))
    mp = vtk.vtkMassProperties()
    mp.SetInputConnection(tri.GetOutputPort())
    mp.Update()
    assert abs(mp.GetVolume() / volume - 1) < 0.02, (name, mp.GetVolume(), volume)
print("ok", len(times), "time steps;", {k: min(v) for k, v in points.items()}, "points")
)");
  INFO(py.output);
  CHECK(py.status == 0);

  // More frames than samples: one time step per sample.
  const fs::path all = temp_dir() / "vtk_all";
  const Run r2 = vcsim("export " + ball_run() + " -o " + all.string() + " --frames 100000 -q --resolution 16");
  INFO(r2.output);
  REQUIRE(r2.status == 0);
  const std::string pvd = read_text(all / "ball_on_table.pvd");
  size_t contacts = 0;
  for (size_t p = pvd.find("name=\"contacts\""); p != std::string::npos; p = pvd.find("name=\"contacts\"", p + 1))
    ++contacts;
  CHECK(contacts == 101);
}

TEST_CASE("export: an unbounded fixed cell (half-space ground) becomes a finite block around the scene") {
  const std::string yaml = (temp_dir() / "ground.yaml").string();
  std::ofstream(yaml) << R"(name: ground_test
simulation: {duration: 0.05, step: 1.0e-3, integrator: rk4}
output: {interval: 0.01}
bodies:
  ground:
    fixed: true
    geometry: {halfspace: {}}
  box:
    mass: 1.0
    inertia: [0.01, 0.01, 0.01]
    position: [1.0, 2.0, 0.5]
    velocity: [0.5, 0, 0]
    geometry: {box: {size: [0.4, 0.2, 0.1]}}
)";
  const std::string h5 = (temp_dir() / "ground.h5").string();
  const Run r = vcsim("run " + yaml + " -o " + h5 + " -q");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const fs::path dir = temp_dir() / "ground_vtk";
  const Run e = vcsim("export " + h5 + " -o " + dir.string() + " -q");
  INFO(e.output);
  REQUIRE(e.status == 0);
  const Run py = python("check_ground.py", R"(
import vtk
r = vtk.vtkXMLPolyDataReader()
r.SetFileName(")" + (dir / "frames" / "ground.vtp").string() + R"(")
r.Update()
b = r.GetOutput().GetBounds()
print(b)
# Top face on z = 0; x and y cover the box's path (x 0.8..1.225, y 1.9..2.1) with a margin, and stay finite.
assert abs(b[5]) < 1e-3, b
assert b[0] < 0.8 and b[1] > 1.25 and b[2] < 1.9 and b[3] > 2.1, b
assert max(b[1] - b[0], b[3] - b[2], b[5] - b[4]) < 5, b
)");
  INFO(py.output);
  CHECK(py.status == 0);
}

TEST_CASE("animate: a GIF (and PNG frames) from the default camera, without a viewer") {
  const fs::path gif = temp_dir() / "anim.gif", frames = temp_dir() / "anim_frames";
  fs::remove_all(frames);
  const Run r = vcsim("animate " + ball_run() + " -o " + gif.string() + " --frames 6 --size 320x240 --png-dir " +
                      frames.string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  REQUIRE(fs::exists(gif));
  const std::string g = read_text(gif);
  REQUIRE(g.size() > 1000);
  CHECK(g.substr(0, 6) == "GIF89a");
  const int w = (unsigned char)g[6] | (unsigned char)g[7] << 8, h = (unsigned char)g[8] | (unsigned char)g[9] << 8;
  CHECK(w == 320);
  CHECK(h == 240);
  int pngs = 0;
  for (const auto& e : fs::directory_iterator(frames)) {
    ++pngs;
    CHECK(png_size(e.path()) == std::make_pair(320, 240));
  }
  CHECK(pngs == 6);
  // No temporary export left behind.
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    CHECK(e.path().filename().string().find("vcsim_animate_" + std::to_string(getpid())) == std::string::npos);

  if (run_command("command -v ffmpeg").status == 0) {
    const fs::path mp4 = temp_dir() / "anim.mp4";
    const Run m = vcsim("animate " + ball_run() + " -o " + mp4.string() + " --frames 4 --size 320x240");
    INFO(m.output);
    CHECK(m.status == 0);
    CHECK(fs::exists(mp4));
    CHECK(read_text(mp4).substr(4, 4) == "ftyp");
  }
}

TEST_CASE("plot, export, animate: bad input gets a clear error and exit status 2") {
  const fs::path missing = temp_dir() / "missing.h5";
  const fs::path text = temp_dir() / "text.h5";
  std::ofstream(text) << "this is not HDF5\n";
  const fs::path other = temp_dir() / "other.h5";
  const Run mk = python("make_other.py", "import h5py\nwith h5py.File('" + other.string() +
                                             "', 'w') as f:\n    f['time'] = [0.0, 1.0]\n    f.attrs['x'] = 1\n");
  INFO(mk.output);
  REQUIRE(mk.status == 0);

  struct Case {
    fs::path file;
    std::string message;
  };
  const Case cases[] = {{missing, "no such file"},
                        {text, "not an HDF5 file"},
                        {other, "HDF5 file is not a vcsim output"},
                        {temp_dir(), "is a directory"}};
  for (const std::string cmd : {"plot", "export", "animate"}) {
    for (const Case& c : cases) {
      const fs::path out = temp_dir() / ("bad_out_" + cmd);
      fs::remove_all(out);
      const std::string args = cmd + " " + c.file.string() + " -o " + out.string() + (cmd == "animate" ? ".gif" : "");
      const Run r = vcsim(args);
      INFO("vcsim " << args << "\n" << r.output);
      CHECK(r.status == 2);
      CHECK(r.output.find(c.file.string() + ": error: " + c.message) != std::string::npos);
      CHECK(r.output.find("Traceback") == std::string::npos);
      CHECK(!fs::exists(out));
      CHECK(!fs::exists(out.string() + ".gif"));
    }
  }
  // A missing argument is a usage error (status 2 too).
  CHECK(vcsim("export").status == 2);
  CHECK(vcsim("animate " + ball_run() + " --camera sideways").status == 2);
}
