// The command line as a user meets it: exit statuses, no output on bad input, a readable file after
// a real run, after SIGINT and after SIGKILL (checked with h5py, not with our own reader).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/cli_support.h"

using namespace cli;
namespace fs = std::filesystem;

namespace {


fs::path temp_dir() { return cli::temp_dir("cli_test"); }

int python(const std::string& code) {
  const fs::path script = temp_dir() / "check.py";
  std::ofstream(script) << code;
  return std::system((kPython + " " + script.string()).c_str());
}

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST_CASE("Help, version and check") {
  CHECK(run("--help").status == 0);
  CHECK(run("run --help").status == 0);
  CHECK(run("--version").output.find("vcsim") != std::string::npos);
  const Run r = run("check " + kSource + "/scenarios/free_fall.yaml");
  CHECK(r.status == 0);
  CHECK(run("frobnicate").status == 2);
}

TEST_CASE("Bad input: message, exit status 2, and no output file") {
  const std::string out = (temp_dir() / "never.h5").string();
  const std::string bad_mass = write_file("bad_mass.yaml", R"(simulation: {duration: 1, step: 0.001}
bodies:
  ball:
    mass: -2.0
    inertia: [1, 1, 1]
)");
  const std::string bad_step = write_file("bad_step.yaml", R"(simulation: {duration: 1, step: 2}
bodies: {}
)");
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"run " + bad_mass + " -o " + out, "bad_mass.yaml:4:11: error: bodies.ball.mass"},
      {"run " + bad_step + " -o " + out, "simulation.step"},
      {"run /nonexistent/file.yaml -o " + out, "/nonexistent/file.yaml"},
      {"run " + kSource + "/scenarios/free_fall.yaml --set bodies.bal.mass=1 -o " + out, "did you mean"},
      {"run " + kSource + "/scenarios/free_fall.yaml --set simulation.integrator=rk45 -o " + out, "integrator"},
  };
  for (const auto& c : cases) {
    const Run r = run(c.args);
    INFO(c.args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(c.expect) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("A run writes an HDF5 file that h5py reads, matching the closed form") {
  const std::string out = (temp_dir() / "free_fall.h5").string();
  const Run r = run("run " + kSource + "/scenarios/free_fall.yaml -q -o " + out);
  INFO(r.output);
  REQUIRE(r.status == 0);
  // free_fall.yaml: x0 = (0, 0, 10), v0 = (0.3, 0, 0), g = -9.81, 1 s, samples every 10 ms.
  // rk4 integrates the parabola exactly, so 1e-9 m only covers round-off.
  CHECK(python("import h5py, numpy as np\n"
               "f = h5py.File('" + out + "', 'r')\n"
               "t = f['time'][:]; p = f['bodies/ball/position'][:]\n"
               "assert len(t) == 101 and f.attrs['status'] == 'completed', (len(t), f.attrs['status'])\n"
               "exact = np.stack([0.3 * t, 0 * t, 10 - 0.5 * 9.81 * t**2], axis=1)\n"
               "assert np.abs(p - exact).max() < 1e-9, np.abs(p - exact).max()\n"
               "assert 'scenario' in f.attrs and 'git_revision' in f.attrs\n") == 0);
}

TEST_CASE("The energy line allows for the energy the friction bristles hold, and says how much") {
  // Xie S1 (box sliding to rest, Coulomb μ = 0.12, σ0 = 1e4 1/m, 1 kg): while it slides the bristle sits at
  // z = μ/σ0 (σ0 z f_n = μ f_n, ż = 0), holding ½ σ0 f_n z² = μ² m g/(2 σ0) = 7.056e-6 J with f_n = m g; the
  // bristles are outside the energy bookkeeping (docs/conventions.md), so the total may rise by that much when
  // the box sticks. ±1 %: f_n varies with the box's small pitch oscillation (measured samples are within 1e-4).
  const std::string out = (temp_dir() / "xie_s1.h5").string();
  // The fixed step, whose budget is round-off (an adaptive run's is rel_tol, which hides the bristles' 7e-6 J).
  const Run r = run("run " + kSource + "/scenarios/validation/xie_s1_box_sliding.yaml -o " + out +
                    " --set simulation.integrator=rk4 --set simulation.step=5e-4");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("never increased beyond round-off plus the") != std::string::npos);
  CHECK(python("import h5py\n"
               "f = h5py.File('" + out + "', 'r')\n"
               "held, rise, E0 = f.attrs['max_bristle_energy_J'], f.attrs['max_energy_increase_J'], f['energy/total'][0]\n"
               "expected = 0.12 ** 2 * 1.0 * 9.8 / (2 * 1e4)\n"
               "assert abs(held / expected - 1) < 1e-2, (held, expected)\n"
               "assert 0 <= rise <= held + 1e-9 * max(1, abs(E0)), (rise, held)\n") == 0);
}

namespace {

pid_t spawn(const std::string& args_line, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", ("exec " + kVcsim + " " + args_line + " > " + log + " 2>&1").c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

// A long contact-free run: the spinning top in space for 10^4 s, sampled every step.
std::string long_run_args(const std::string& out) {
  return "run " + kSource + "/scenarios/spinning_top_space.yaml -q -o " + out +
         " --set simulation.duration=10000 --set output.interval=0";
}

// Waits until the run has created its output file (start-up, loading and the world build take a
// variable time on a loaded machine), then `ms` more: fixed delays from the fork killed runs that had
// not written a sample yet.
void wait_for_output(const std::string& out, int ms) {
  for (int k = 0; k < 1200 && !(fs::exists(out) && fs::file_size(out) > 0); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

TEST_CASE("SIGINT stops cleanly with a complete, flagged file") {
  const std::string out = (temp_dir() / "interrupted.h5").string();
  const pid_t pid = spawn(long_run_args(out), (temp_dir() / "sigint.log").string());
  wait_for_output(out, 1000);
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 1);
  CHECK(python("import h5py\n"
               "f = h5py.File('" + out + "', 'r')\n"
               "n = len(f['time'])\n"
               "assert n > 10 and f.attrs['status'] == 'interrupted', (n, f.attrs['status'])\n"
               "for k in ['position', 'orientation', 'velocity', 'angular_velocity']:\n"
               "    assert len(f['bodies/top/' + k]) == n\n") == 0);
}

TEST_CASE("SIGKILL halfway leaves a readable file with consistent lengths") {
  for (int trial = 0; trial < 3; ++trial) {
    const std::string out = (temp_dir() / ("killed" + std::to_string(trial) + ".h5")).string();
    const pid_t pid = spawn(long_run_args(out), (temp_dir() / "sigkill.log").string());
    wait_for_output(out, 500 + 400 * trial);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the writer process finishes the file
    INFO("trial " << trial);
    CHECK(python("import h5py, numpy as np\n"
                 "f = h5py.File('" + out + "', 'r')\n"
                 "n = len(f['time'])\n"
                 "assert n > 10, n\n"
                 "lens = set()\n"
                 "f.visititems(lambda k, d: lens.add(d.shape[0]) if isinstance(d, h5py.Dataset) else None)\n"
                 "assert lens == {n}, lens\n"
                 "assert np.all(np.diff(f['time'][:]) > 0)\n"
                 "q = f['bodies/top/orientation'][:]\n"
                 "assert np.abs(np.linalg.norm(q, axis=1) - 1).max() < 1e-12\n") == 0);
  }
}

TEST_CASE("Every scenario in scenarios/ validates") {
  for (const auto& entry : fs::directory_iterator(kSource + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    const Run r = run("check " + entry.path().string());
    INFO(entry.path() << "\n" << r.output);
    CHECK(r.status == 0);
  }
}
