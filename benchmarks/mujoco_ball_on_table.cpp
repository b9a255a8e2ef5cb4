// The peer run of the benchmark suite: MuJoCo (Debian's libmujoco-dev 2.2.2) simulating the same
// ball on a table as scenarios/ball_on_table.yaml: 2 kg solid ball, R = 0.1 m, centre 0.2 m above the
// top of a 2 x 2 x 0.1 m table whose edge is at y = 0.3 m, v = (0, 0.3, 0) m/s, omega = (0, 0, 3)
// rad/s. Point contact with condim 6 (sliding, torsional and rolling friction), RK4.
//
// MuJoCo has no k_v, e_eff or bristles: its soft contact is set by solref (time constant, damping
// ratio). We keep MuJoCo's defaults and match what it can express: sliding friction mu = 0.05
// (the thesis's mu_C), a torsional coefficient giving the same spin-down torque as the volumetric
// model (mu_C r_gyr with r_gyr = 12.9 mm, docs/validation numbers in benchmarks/README.md) and a
// rolling coefficient of 0 (MuJoCo's rolling friction is a user constant, not derived from geometry;
// 0 is what a user without a measurement would set).
//
// Usage: mujoco_ball_on_table STEP DURATION REPEATS
// Prints one JSON object: wall times of each repeat and the trajectory events used by the
// comparison (v_y at 0.35 s, when the spin stops, when the centre crosses the edge, the last instant
// in contact and where).
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string model_xml(double step) {
  char buf[2048];
  std::snprintf(buf, sizeof buf, R"(<mujoco model="ball_on_table">
  <option timestep="%.9g" integrator="RK4" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="table" type="box" size="1 1 0.05" pos="0 -0.7 -0.05" condim="6"
          friction="0.05 0.000645 0"/>
    <body name="ball" pos="0 0 0.2">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.1" mass="2" condim="6" friction="0.05 0.000645 0"/>
    </body>
  </worldbody>
</mujoco>)",
                step);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s STEP DURATION REPEATS\n", argv[0]);
    return 2;
  }
  const double step = std::atof(argv[1]), duration = std::atof(argv[2]);
  const int repeats = std::atoi(argv[3]);
  // mj_loadXML reads a file; write the model next to the working directory.
  const std::string path = "mujoco_ball_on_table.xml";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fputs(model_xml(step).c_str(), f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return 1;
  }
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  if (!m) {
    std::fprintf(stderr, "MuJoCo: %s\n", error);
    return 1;
  }
  mjData* d = mj_makeData(m);
  std::vector<double> walls;
  double vy_035 = NAN, t_spin_stop = NAN, t_edge = NAN, t_loss = NAN, y_loss = NAN, t_first_contact = NAN;
  for (int r = 0; r < repeats; ++r) {
    mj_resetData(m, d);
    // Free joint qvel: linear velocity (world), angular velocity (body frame = world at start).
    d->qvel[1] = 0.3;
    d->qvel[5] = 3.0;
    const long steps = std::lround(duration / step);
    bool touched = false;
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < steps; ++k) {
      mj_step(m, d);
      if (r != 0) continue;  // events from the first repeat only; the others only time
      const double t = d->time;
      if (std::isnan(vy_035) && t >= 0.35) vy_035 = d->qvel[1];
      if (d->ncon > 0 && !touched) touched = true, t_first_contact = t;
      if (touched && t > 0.5 && std::isnan(t_spin_stop) && std::abs(d->qvel[5]) < 0.01) t_spin_stop = t;
      if (std::isnan(t_edge) && d->qpos[1] >= 0.3) t_edge = t;
      if (d->ncon > 0) t_loss = t, y_loss = d->qpos[1];  // the last contact is the final loss
    }
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  auto num = [](double x) { return std::isnan(x) ? std::string("null") : std::to_string(x); };
  std::printf("{\"engine\": \"MuJoCo %d\", \"step\": %g, \"duration\": %g, \"wall_s\": [", mj_version(), step,
              duration);
  for (size_t k = 0; k < walls.size(); ++k) std::printf("%s%.6f", k ? ", " : "", walls[k]);
  std::printf("], \"first_contact_s\": %s, \"vy_at_0.35_s\": %s, \"spin_stop_s\": %s, \"centre_over_edge_s\": %s, "
              "\"contact_lost_s\": %s, \"y_at_contact_loss_m\": %s}\n",
              num(t_first_contact).c_str(), num(vy_035).c_str(), num(t_spin_stop).c_str(), num(t_edge).c_str(),
              num(t_loss).c_str(), num(y_loss).c_str());
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
