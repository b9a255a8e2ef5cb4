// The peer run for benchmarks/scenes/rock_on_table.yaml: MuJoCo (Debian's libmujoco-dev) dropping the same rock
// (benchmarks/meshes/rock_700.obj, which MuJoCo takes as its convex hull; the rock is convex) on the same 1 x 1 x
// 0.1 m table, RK4 at the given step: the same mass (aluminium, 2700 kg/m^3, from the mesh's volume), attitude
// (rpy 8, -5, 20 degrees), position and velocities as the scene. MuJoCo's default soft contact, condim 3, mu 0.3.
//
// Usage: mujoco_rock MESH.obj STEP DURATION REPEATS
// Prints one JSON object: the wall time of each repeat, the rock's final height and the contacts at the end.
#include <mujoco/mujoco.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Reads an OBJ (v / f records, triangles) and writes it as a binary STL, which every MuJoCo reads.
bool obj_to_stl(const std::string& obj, const std::string& stl, double& volume) {
  std::ifstream in(obj);
  if (!in) return false;
  std::vector<std::array<float, 3>> v;
  std::vector<std::array<int, 3>> f;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "v") {
      double x, y, z;
      ls >> x >> y >> z;
      v.push_back({float(x), float(y), float(z)});
    } else if (tag == "f") {
      int a, b, c;
      ls >> a >> b >> c;
      f.push_back({a - 1, b - 1, c - 1});
    }
  }
  std::ofstream out(stl, std::ios::binary);
  char header[80] = "vcsim benchmark rock";
  out.write(header, 80);
  const std::uint32_t n = static_cast<std::uint32_t>(f.size());
  out.write(reinterpret_cast<const char*>(&n), 4);
  volume = 0;
  for (const auto& t : f) {
    const float zero[3] = {0, 0, 0};
    out.write(reinterpret_cast<const char*>(zero), 12);
    for (int k = 0; k < 3; ++k) out.write(reinterpret_cast<const char*>(v[t[k]].data()), 12);
    const std::uint16_t attr = 0;
    out.write(reinterpret_cast<const char*>(&attr), 2);
    const auto &a = v[t[0]], &b = v[t[1]], &c = v[t[2]];
    volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
               a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s MESH.obj STEP DURATION REPEATS\n", argv[0]);
    return 2;
  }
  const double step = std::atof(argv[2]), duration = std::atof(argv[3]);
  const int repeats = std::atoi(argv[4]);
  double volume = 0;
  if (!obj_to_stl(argv[1], "mujoco_rock.stl", volume)) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  // rpy (8, -5, 20) degrees as R = Rz Ry Rx, the scene's convention, written as MuJoCo's "xyz" euler sequence
  // (extrinsic x, y, z), which is the same rotation.
  char xml[2048];
  std::snprintf(xml, sizeof xml, R"(<mujoco model="rock_on_table">
  <compiler angle="degree" eulerseq="XYZ"/>
  <option timestep="%.9g" integrator="RK4" gravity="0 0 -9.81"/>
  <asset><mesh name="rock" file="mujoco_rock.stl"/></asset>
  <worldbody>
    <geom name="table" type="box" size="0.5 0.5 0.05" pos="0 0 -0.05" condim="3" friction="0.3"/>
    <body name="rock" pos="0 0 0.0472" euler="8 -5 20">
      <freejoint/>
      <geom name="rock" type="mesh" mesh="rock" mass="%.9g" condim="3" friction="0.3"/>
    </body>
  </worldbody>
</mujoco>)",
                step, 2700 * volume);  // the mass from the mesh's own volume (MuJoCo 2.2's differs by 11 %)
  if (FILE* f = std::fopen("mujoco_rock.xml", "w")) {
    std::fputs(xml, f);
    std::fclose(f);
  }
  char error[1000] = "";
  mjModel* m = mj_loadXML("mujoco_rock.xml", nullptr, error, sizeof error);
  if (!m) {
    std::fprintf(stderr, "MuJoCo: %s\n", error);
    return 1;
  }
  mjData* d = mj_makeData(m);
  std::vector<double> walls;
  for (int r = 0; r < repeats; ++r) {
    mj_resetData(m, d);
    d->qvel[0] = 0.05;  // the scene's velocity (0.05, 0, 0) m/s and spin (0, 0, 1) rad/s
    d->qvel[5] = 1.0;
    const long steps = std::lround(duration / step);
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < steps; ++k) mj_step(m, d);
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("{\"engine\": \"MuJoCo %d\", \"step\": %g, \"duration\": %g, \"mass_kg\": %.6g, \"wall_s\": [", mj_version(),
              step, duration, m->body_mass[1]);
  for (size_t k = 0; k < walls.size(); ++k) std::printf("%s%.6f", k ? ", " : "", walls[k]);
  std::printf("], \"final_z_m\": %.6g, \"contacts_at_end\": %d}\n", d->qpos[2], d->ncon);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
