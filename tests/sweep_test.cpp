// `vcsim sweep` (issue 9) driven as a user drives it: the e_eff^2 law over a restitution sweep, one table
// whatever the number of processes or MPI ranks, kill and --resume, random parameters, bad sweep files, and
// `vcsim plot` of a sweep table. Tables are read back with the HDF5 C library (h5py for the external links).
#include <catch2/catch.hpp>

#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_support.h"

using namespace cli;
namespace fs = std::filesystem;

namespace {

fs::path dir() { return temp_dir("sweep_test"); }

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path p = dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

// One table read back: every column of /runs as doubles (status as strings).
struct Table {
  std::vector<std::string> columns;
  std::map<std::string, std::vector<double>> num;
  std::vector<std::string> status;
  bool ok = false;
};

std::string read_str_attr(hid_t obj, const char* name) {
  std::string out;
  if (H5Aexists(obj, name) <= 0) return out;
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char* p = nullptr;
  if (H5Aread(a, t, &p) >= 0 && p) out = p, free(p);
  H5Tclose(t);
  H5Aclose(a);
  return out;
}

Table read_table(const std::string& path) {
  Table tb;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return tb;
  const hid_t g = H5Gopen2(f, "runs", H5P_DEFAULT);
  if (g >= 0) {
    std::string cols = read_str_attr(g, "columns"), c;
    std::stringstream ss(cols);
    while (std::getline(ss, c, ',')) tb.columns.push_back(c);
    for (const auto& name : tb.columns) {
      const hid_t d = H5Dopen2(g, name.c_str(), H5P_DEFAULT);
      const hid_t sp = H5Dget_space(d);
      const hsize_t n = H5Sget_simple_extent_npoints(sp);
      if (name == "status") {
        const hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        H5Tset_cset(t, H5T_CSET_UTF8);
        std::vector<char*> p(n);
        H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data());
        for (char* s : p) tb.status.push_back(s ? s : ""), free(s);
        H5Tclose(t);
      } else {
        std::vector<double> v(n);
        H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        tb.num[name] = v;
      }
      H5Sclose(sp);
      H5Dclose(d);
    }
    H5Gclose(g);
    tb.ok = !tb.columns.empty();
  }
  H5Fclose(f);
  return tb;
}

// Bitwise equality of every column (NaN equals NaN), and the same statuses.
bool identical(const Table& a, const Table& b, std::string& why) {
  if (a.columns != b.columns) return why = "different columns", false;
  if (a.status != b.status) return why = "different statuses", false;
  for (const auto& [name, va] : a.num) {
    const auto& vb = b.num.at(name);
    if (va.size() != vb.size() || std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)) != 0)
      return why = "column " + name + " differs", false;
  }
  return true;
}

bool mpirun_available() { return run_command("command -v mpirun").status == 0; }

}  // namespace

TEST_CASE("Sweep: rebound apex heights follow e_eff^2 (scenarios/sweeps/ball_e_eff.yaml)") {
  const std::string out = (dir() / "e_eff.h5").string();
  const Run r = run("sweep " + kSource + "/scenarios/sweeps/ball_e_eff.yaml -o " + out);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("summary    5 runs: 5 completed, 0 failed") != std::string::npos);
  const Table t = read_table(out);
  REQUIRE(t.ok);
  REQUIRE(t.num.at("e_eff").size() == 5);
  // Physics (see the sweep file): the ball (R = 0.1 m) falls from a centre height z0 = 2 m, meets the table
  // top (z = 0) at v0 = sqrt(2 g (z0 - R)), leaves at e v0 (e_eff is the normal-velocity restitution), and
  // its centre rises (e v0)^2 / (2 g) = e^2 (z0 - R) above the contact height R.
  const double g = 9.81, R = 0.1, z0 = 2.0;
  const double expected_contact = std::sqrt(2 * (z0 - R) / g);
  for (size_t i = 0; i < 5; ++i) {
    const double e = t.num.at("e_eff")[i];
    const double height = t.num.at("apex_z")[i] - R, expected = e * e * (z0 - R);
    const double err = height / expected - 1;
    std::printf("e_eff %.2f: rebound %.6f m, e^2 (z0 - R) = %.6f m, error %+.3f%%\n", e, height, expected, 100 * err);
    // 1% (issue 9). The residual is gravity acting during the ~1.7 ms contact: -0.39% at e = 0.5, -0.05% at
    // e = 0.9 (it shrinks with e, as g T / (e v0)); the 1 ms sampling of the apex costs < 1.3e-6 m.
    CHECK(std::abs(err) < 0.01);
    // The first sample in contact is the first 1 ms sample after the closed-form impact time.
    CHECK(t.num.at("first_contact")[i] >= expected_contact);
    CHECK(t.num.at("first_contact")[i] < expected_contact + 1e-3 + 1e-9);
    // e = 0.5 rebounds to 25% of the drop: fails "apex_z > 0.1 + 0.3 * 1.9"; the others pass.
    CHECK(t.num.at("pass")[i] == (e > 0.55 ? 1 : 0));
  }
  // vcsim plot of a sweep table: outcome against parameter.
  const fs::path plots = dir() / "e_eff_plots";
  const Run p = run("plot " + out + " -o " + plots.string());
  INFO(p.output);
  CHECK(p.status == 0);
  for (const char* o : {"apex_z", "max_force", "first_contact", "dissipated"})
    CHECK(fs::file_size(plots / (std::string("sweep_") + o + ".png")) > 10000);
}

TEST_CASE("Sweep: a 16-run battery-box misalignment sweep gives one table for 1 process, 2 processes and mpirun -np 2") {
  // 4 x 4 grid of initial roll and pitch; 0.5 s covers the free flight (0.35-0.39 s) and the first impacts on
  // the lead-ins, ~0.15 s of wall time per run.
  const std::string sweep = write_file("bb.yaml", "base: " + kSource + R"(/scenarios/battery_box.yaml
fixed: {simulation.duration: 0.5}
parameters:
  - {path: "bodies.box.orientation.rpy_deg[0]", name: roll_deg, grid: {from: -3, to: 3, count: 4}}
  - {path: "bodies.box.orientation.rpy_deg[1]", name: pitch_deg, grid: {from: -3, to: 3, count: 4}}
outcomes:
  first_contact: {event: first_contact}
  max_force: {max_force: box__worksite}
  pose: {final_pose: box}
  dissipated: {energy_dissipated: true}
pass: "max_force < 790"
)");
  const std::string a = (dir() / "bb1.h5").string(), b = (dir() / "bb2.h5").string(), m = (dir() / "bbm.h5").string();
  const auto t0 = std::chrono::steady_clock::now();
  const Run r1 = run("sweep " + sweep + " -o " + a + " --jobs 1 -q");
  const auto t1 = std::chrono::steady_clock::now();
  const Run r2 = run("sweep " + sweep + " -o " + b + " --jobs 2 -q");
  const auto t2 = std::chrono::steady_clock::now();
  INFO(r1.output << "\n" << r2.output);
  REQUIRE(r1.status == 0);
  REQUIRE(r2.status == 0);
  std::printf("battery-box sweep: 1 process %.1f s, 2 processes %.1f s\n",
              std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
  const Table ta = read_table(a), tb = read_table(b);
  REQUIRE(ta.ok);
  REQUIRE(ta.status.size() == 16);
  for (const auto& s : ta.status) CHECK(s == "completed");
  std::string why;
  CHECK(identical(ta, tb, why));
  INFO(why);
  // The grid: roll slowest, -3, -1, 1, 3 deg.
  CHECK(ta.num.at("roll_deg")[0] == -3);
  CHECK(ta.num.at("pitch_deg")[1] == -1);
  CHECK(ta.num.at("roll_deg")[15] == 3);
  // Mirror symmetry of the scene about the x-z plane: roll -> -roll mirrors y, so the first contact time and
  // the largest force of run (roll, pitch) and (-roll, pitch) agree (to the geometry tolerance: 1e-3 relative).
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int k = 4 * i + j, mirror = 4 * (3 - i) + j;
      CHECK(ta.num.at("first_contact")[k] == ta.num.at("first_contact")[mirror]);
      CHECK(ta.num.at("max_force")[k] == Approx(ta.num.at("max_force")[mirror]).epsilon(1e-3));
    }

  REQUIRE(mpirun_available());  // tools/install-deps installs openmpi-bin
  // As root, OpenMPI needs --allow-run-as-root; --oversubscribe lets 2 ranks start whatever the slot count.
  const Run rm = run_command("mpirun --allow-run-as-root --oversubscribe -np 2 " + kVcsim + " sweep " + sweep +
                             " -o " + m + " -q");
  INFO(rm.output);
  REQUIRE(rm.status == 0);
  CHECK(rm.output.find("2 MPI ranks") != std::string::npos);  // one campaign shared by two ranks
  const Table tm = read_table(m);
  REQUIRE(tm.ok);
  CHECK(identical(ta, tm, why));
  INFO(why);
  // Both ranks ran runs (dynamic load balancing: rank 0 runs one itself and hands the others out on request).
  const Run ranks = run_command(kPython + " -c \"import h5py; print(sorted(set(h5py.File('" + m +
                                "','r')['log/rank'][:].tolist())))\"");
  CHECK(ranks.output.find("[0, 1]") != std::string::npos);
}

TEST_CASE("Sweep: a campaign killed halfway resumes without redoing finished runs, with the same table") {
  // 12 runs (~0.6 s each) of the restitution drop, two at a time, series kept. Long enough that the kill lands
  // halfway even when a loaded machine starves this test's polling for a second (at ~0.15 s a run, a fresh-clone
  // `tools/test` once saw all 12 finish before the kill).
  const std::string sweep = write_file("resume.yaml", "base: " + kSource + R"(/scenarios/ball_on_table.yaml
fixed:
  simulation.duration: 1.2
  simulation.step: 2.5e-6
  contacts[0].k_v: 1.0e10
  bodies.ball.position: [0, 0, 2.0]
  bodies.ball.velocity: [0, 0, 0]
  bodies.ball.angular_velocity: [0, 0, 0]
keep_series: true
parameters:
  - {path: "contacts[0].e_eff", name: e_eff, grid: {from: 0.3, to: 0.85, count: 12}}
outcomes:
  first_contact: {event: first_contact}
  apex_z: {max: bodies.ball.position.z, from: first_contact}
)");
  const std::string ref = (dir() / "ref.h5").string(), out = (dir() / "killed.h5").string();
  const fs::path work = dir() / "killed.runs";
  const auto ref_start = std::chrono::steady_clock::now();
  const Run rr = run("sweep " + sweep + " -o " + ref + " --jobs 2 -q");
  INFO(rr.output);
  REQUIRE(rr.status == 0);
  // The whole reference campaign bounds how long 4 of its runs may take, whatever the build (a sanitizer build
  // runs ~30x slower) or the machine's load.
  const auto ref_wall = std::chrono::steady_clock::now() - ref_start;

  const fs::path log1 = dir() / "first.log";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(log1.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(kVcsim.c_str(), kVcsim.c_str(), "sweep", sweep.c_str(), "-o", out.c_str(), "--jobs", "2", (char*)nullptr);
    _exit(127);
  }
  auto results = [&] {
    std::set<std::string> s;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(work, ec))
      if (e.path().extension() == ".result") s.insert(e.path().filename().string());
    return s;
  };
  const auto start = std::chrono::steady_clock::now();
  while (results().size() < 4 && std::chrono::steady_clock::now() - start < 2 * ref_wall + std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the runs die with the driver (PDEATHSIG)
  const std::set<std::string> finished = results();
  std::map<std::string, std::pair<ino_t, long>> stamp;
  for (const auto& f : finished) {
    struct stat sb {};
    ::stat((work / f).c_str(), &sb);
    stamp[f] = {sb.st_ino, long(sb.st_mtim.tv_sec) * 1000000000L + sb.st_mtim.tv_nsec};
  }
  std::printf("killed the campaign after %zu of 12 runs\n", finished.size());
  REQUIRE(finished.size() >= 4);
  REQUIRE(finished.size() < 12);  // halfway, not after the end
  CHECK_FALSE(fs::exists(out));   // the table is only written at the end

  const Run r = run("sweep " + sweep + " -o " + out + " --jobs 2 --resume");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("resume     " + std::to_string(finished.size()) + " of 12 runs already finished; running " +
                      std::to_string(12 - finished.size())) != std::string::npos);
  // No finished run was started again, and its record was not rewritten.
  for (const auto& f : finished) {
    const long index = std::stol(f.substr(4, 6));
    CHECK(r.output.find("run " + std::to_string(index) + " start") == std::string::npos);
    struct stat sb {};
    ::stat((work / f).c_str(), &sb);
    CHECK(sb.st_ino == stamp[f].first);
    CHECK(long(sb.st_mtim.tv_sec) * 1000000000L + sb.st_mtim.tv_nsec == stamp[f].second);
  }
  int started = 0;
  for (size_t p = 0; (p = r.output.find(" start", p)) != std::string::npos; ++p) ++started;
  CHECK(started == int(12 - finished.size()));
  const Table a = read_table(ref), b = read_table(out);
  REQUIRE(a.ok);
  std::string why;
  CHECK(identical(a, b, why));
  INFO(why);
  // keep_series: /series/run_NNNNNN are external links to each run's full output.
  CHECK(run_command(kPython + " -c \"import h5py; f = h5py.File('" + out +
                    "', 'r'); assert len(f['series']) == 12; s = f['series/run_000003']; "
                    "assert s.attrs['status'] == 'completed' and len(s['time']) == 1201\"")
            .status == 0);
}

TEST_CASE("Sweep: random parameters are seeded per run, Latin hypercube strata, same table for any --jobs") {
  const std::string sweep = write_file("random.yaml", "base: " + kSource + R"(/scenarios/free_fall.yaml
seed: 7
samples: 10
fixed: {simulation.duration: 0.1}
parameters:
  - {path: "gravity[2]", name: gz, list: [-9.81, -1.62]}
  - {path: "bodies.ball.velocity[0]", name: vx, uniform: {min: 1, max: 2}}
  - {path: "bodies.ball.velocity[1]", name: vy, normal: {mean: 0, std: 0.5}}
  - {path: "bodies.ball.velocity[2]", name: vz, lhs: {min: 0, max: 10}}
outcomes:
  x: {final: bodies.ball.position.x}
  top: {max: bodies.ball.position.z}
)");
  const Run chk = run("sweep " + sweep + " --check");
  INFO(chk.output);
  REQUIRE(chk.status == 0);
  CHECK(chk.output.find("20 runs") != std::string::npos);
  const std::string a = (dir() / "rand1.h5").string(), b = (dir() / "rand2.h5").string();
  REQUIRE(run("sweep " + sweep + " -o " + a + " --jobs 1 -q").status == 0);
  REQUIRE(run("sweep " + sweep + " -o " + b + " --jobs 2 -q").status == 0);
  const Table ta = read_table(a), tb = read_table(b);
  REQUIRE(ta.ok);
  std::string why;
  CHECK(identical(ta, tb, why));
  INFO(why);
  const auto& vx = ta.num.at("vx");
  const auto& vz = ta.num.at("vz");
  REQUIRE(vx.size() == 20);
  for (int g = 0; g < 2; ++g) {
    std::set<int> strata;
    for (int s = 0; s < 10; ++s) {
      const int i = 10 * g + s;
      CHECK(ta.num.at("gz")[i] == (g == 0 ? -9.81 : -1.62));
      CHECK((vx[i] > 1 && vx[i] < 2));
      strata.insert(int(vz[i]));  // LHS over [0, 10) in 10 samples: one value in each unit stratum
    }
    CHECK(strata.size() == 10);
  }
  // The outcomes are the closed form of the free flight: x(T) = x0 + vx T.
  const double T = 0.1;
  const double x0 = ta.num.at("x")[0] - vx[0] * T;
  for (int i = 0; i < 20; ++i) CHECK(ta.num.at("x")[i] == Approx(x0 + vx[i] * T).margin(1e-9));
}

TEST_CASE("Sweep: bad sweep files get file:line:column errors, exit status 2, and nothing is written") {
  const std::string base = "base: " + kSource + "/scenarios/bouncing_ball.yaml\n";
  const std::string outcomes = "outcomes:\n  top: {max: bodies.ball.position.z}\n";
  struct Case {
    std::string name, text, expect;
  };
  const std::vector<Case> cases = {
      {"no_such_path", base + "parameters:\n  - {path: bodies.bal.mass, list: [1, 2]}\n" + outcomes,
       "no_such_path.yaml:3:12: error: parameters[0].path: expected a path of a value in"},
      {"no_such_key", base + "parameters:\n  - path: contacts[0].e_ef\n    list: [0.5]\n" + outcomes,
       "no_such_key.yaml:3:11: error: parameters[0].path: expected a path of a value in"},
      {"bad_index", base + "parameters:\n  - {path: 'contacts[3].e_eff', list: [0.5]}\n" + outcomes,
       "bad_index.yaml:3:12: error: parameters[0].path"},
      {"empty_list", base + "parameters:\n  - {path: \"contacts[0].e_eff\", list: []}\n" + outcomes,
       "empty_list.yaml:3:39: error: parameters[0].list: expected a non-empty list of values; got an empty range"},
      {"empty_grid", base + "parameters:\n  - {path: \"contacts[0].e_eff\", grid: {from: 0.5, to: 0.5, count: 3}}\n" + outcomes,
       "empty_grid.yaml:3:39: error: parameters[0].grid: expected a non-empty range, to > from"},
      {"empty_uniform", base + "seed: 1\nsamples: 4\nparameters:\n  - {path: \"contacts[0].e_eff\", uniform: {min: 0.6, max: 0.4}}\n" + outcomes,
       "empty_uniform.yaml:5:42: error: parameters[0].uniform: expected a non-empty range, max > min"},
      {"unknown_distribution", base + "parameters:\n  - path: contacts[0].e_eff\n    gaussian: {mean: 0.5, std: 0.1}\n" + outcomes,
       "unknown_distribution.yaml:4:5: error: parameters[0].gaussian: expected path, name or a distribution (grid, list, "
       "uniform, normal, lhs); got unknown distribution or key 'gaussian'"},
      {"bad_value", base + "parameters:\n  - {path: \"contacts[0].e_eff\", list: [0.5, 1.5]}\n" + outcomes,
       "bad_value.yaml:3:45: error: parameters[0].list[1]: expected a value that contacts[0].e_eff accepts; got 1.5"},
      {"no_seed", base + "samples: 3\nparameters:\n  - {path: \"contacts[0].e_eff\", uniform: {min: 0.4, max: 0.6}}\n" + outcomes,
       "no_seed.yaml:1:1: error: expected required key 'seed'"},
      {"bad_fixed", base + "fixed: {simulation.duraton: 1}\nparameters:\n  - {path: \"contacts[0].e_eff\", list: [0.5]}\n" + outcomes,
       "bad_fixed.yaml:2:9: error: fixed.simulation.duraton: expected an override of"},
      {"bad_outcome", base + "parameters:\n  - {path: \"contacts[0].e_eff\", list: [0.5]}\noutcomes:\n  top: {max: bodies.bal.position.z}\n",
       "bad_outcome.yaml:5:14: error: outcomes.top.max: expected a body of the scenario (table, ball); got 'bal'; did you mean 'ball'?"},
      {"bad_event", base + "parameters:\n  - {path: \"contacts[0].e_eff\", list: [0.5]}\noutcomes:\n  t: {event: first_kontact}\n",
       "bad_event.yaml:5:14: error: outcomes.t.event: expected an event"},
      {"bad_pass", base + "parameters:\n  - {path: \"contacts[0].e_eff\", list: [0.5]}\n" + outcomes + "pass: \"top < 0.2 && tpo > 1\"\n",
       "bad_pass.yaml:6:7: error: pass: expected a parameter or outcome column"},
      {"no_base", "parameters:\n  - {path: \"contacts[0].e_eff\", list: [0.5]}\n" + outcomes,
       "no_base.yaml:1:1: error: expected required key 'base'"},
      {"typo_key", base + "paramters:\n  - {path: \"contacts[0].e_eff\", list: [0.5]}\n" + outcomes,
       "typo_key.yaml:2:1: error: paramters: expected a key of a sweep"},
  };
  for (const auto& c : cases) {
    const std::string file = write_file(c.name + ".yaml", c.text);
    const std::string out = (dir() / (c.name + ".h5")).string();
    const Run r = run("sweep " + file + " -o " + out);
    INFO(c.name << ":\n" << c.text << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(c.expect) != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);  // one line
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(dir() / (c.name + ".runs")));
  }
  const Run missing = run("sweep /nonexistent/sweep.yaml");
  CHECK(missing.status == 2);
  CHECK(missing.output.find("/nonexistent/sweep.yaml: error: expected a readable sweep file") != std::string::npos);
}

TEST_CASE("Sweep: a run that fails is a failed row with its error, the others complete, exit status 1") {
  // k = 1e12 N/m^1.5 with a 1 ms step blows up at the first impact (the energy guard stops that run).
  const std::string sweep = write_file("failing.yaml", "base: " + kSource + R"(/scenarios/bouncing_ball.yaml
fixed: {simulation.duration: 0.3, simulation.integrator: rk4, simulation.step: 1.0e-3}
parameters:
  - {path: "contacts[0].k", name: k, list: [1.0e6, 1.0e12]}
outcomes:
  fc: {event: first_contact}
  top: {max: bodies.ball.position.z, from: fc}
pass: "top > 0"
)");
  const std::string out = (dir() / "failing.h5").string();
  const Run r = run("sweep " + sweep + " -o " + out + " -q");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("summary    2 runs: 1 completed, 1 failed; pass (top > 0): 1 of 2") != std::string::npos);
  const Table t = read_table(out);
  REQUIRE(t.ok);
  REQUIRE(t.status.size() == 2);
  CHECK(t.status[0] == "completed");
  CHECK(t.status[1].rfind("failed: exit status 1: error: energy explosion", 0) == 0);
  CHECK(std::isnan(t.num.at("top")[1]));
  CHECK(t.num.at("pass")[1] == 0);
  // Run 0 is the drop of the bouncing ball: first contact at sqrt(2 x 0.1 m / g) = 0.1428 s (next 1 ms sample).
  CHECK(t.num.at("fc")[0] == Approx(0.143).margin(1e-9));
  CHECK(t.num.at("pass")[0] == 1);
}

TEST_CASE("Sweep: event outcomes: the tippe-top inverts, a falling ball is never at rest") {
  // The tippe-top (scenarios/tippe_top.yaml) turns over at ~1.6 s: its symmetry axis (body z, initially 0.1 rad
  // from up) must cross the horizontal before then and point down at 2.5 s.
  const std::string sweep = write_file("events.yaml", "base: " + kSource + R"(/scenarios/tippe_top.yaml
fixed: {simulation.duration: 2.5}
parameters:
  - {path: "contacts[0].mu_c", name: mu_c, list: [0.3]}
outcomes:
  inverted: {event: inverted, body: top}
  pose: {final_pose: top}
  rest: {event: at_rest, body: top}
)");
  const std::string out = (dir() / "events.h5").string();
  const Run r = run("sweep " + sweep + " -o " + out + " -q");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const Table t = read_table(out);
  REQUIRE(t.ok);
  const double inv = t.num.at("inverted")[0];
  CHECK(inv > 0.1);
  CHECK(inv < 1.6);
  const double qx = t.num.at("pose_qx")[0], qy = t.num.at("pose_qy")[0];
  CHECK(1 - 2 * (qx * qx + qy * qy) < 0);  // z component of the body z axis at the end: pointing down
  CHECK(std::isnan(t.num.at("rest")[0]));   // still spinning: never at rest

  const std::string fall = write_file("fall.yaml", "base: " + kSource + R"(/scenarios/free_fall.yaml
parameters:
  - {path: "bodies.ball.velocity[0]", name: vx, list: [0, 1]}
outcomes:
  rest: {event: at_rest, body: ball}
  vz: {final: bodies.ball.velocity.z}
)");
  const std::string fo = (dir() / "fall.h5").string();
  REQUIRE(run("sweep " + fall + " -o " + fo + " -q").status == 0);
  const Table f = read_table(fo);
  REQUIRE(f.ok);
  for (int i = 0; i < 2; ++i) {
    CHECK(std::isnan(f.num.at("rest")[i]));
    CHECK(f.num.at("vz")[i] == Approx(-9.81 * 1.0).margin(1e-9));  // free fall for 1 s from rest vertically
  }
}
