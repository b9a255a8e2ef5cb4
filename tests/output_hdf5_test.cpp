// HDF5 output: layout read back by real h5py (tests/python/check_output.py) and h5dump, and
// crash safety under SIGKILL (issue 2 "Output (HDF5)", issue 8 "Crash-safe output").
//
// Every expected value comes from a closed-form trajectory (projectile + uniform spin, whose
// kinetic + potential energy is conserved); the Python checker re-derives it independently.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/output_hdf5.h"

using namespace vcsim;

namespace {

const std::string kChecker = std::string(VCSIM_SOURCE_DIR) + "/tests/python/check_output.py";
constexpr double kDt = 1e-3;

// The python3 first on PATH may be a virtualenv without h5py; prefer one that has it.
std::string python_with_h5py() {
  static std::string found = [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("VCSIM_PYTHON")) candidates.push_back(env);
    candidates.push_back("/usr/bin/python3");
    candidates.push_back("python3");
    for (const auto& py : candidates)
      if (std::system((py + " -c 'import h5py' >/dev/null 2>&1").c_str()) == 0) return py;
    return std::string();
  }();
  return found;
}

struct CommandResult {
  int status = -1;
  std::string output;
};

CommandResult run(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string make_temp_dir() {
  char tmpl[] = "/tmp/vcsim_h5_test_XXXXXX";
  const char* d = mkdtemp(tmpl);
  REQUIRE(d != nullptr);
  return d;
}

OutputLayout synthetic_layout(int bodies, int pairs) {
  OutputLayout layout;
  layout.scenario_name = "synthetic";
  for (int k = 0; k < bodies; ++k) layout.body_names.push_back("b" + std::to_string(k));
  for (int p = 0; p < pairs; ++p)
    layout.pairs.push_back({"c" + std::to_string(p), "b" + std::to_string(p), "b" + std::to_string(p + 1),
                            {{"volume", 1, "m^3", "interference volume"},
                             {"inertia", 6, "m^5", "interference inertia xx,yy,zz,xy,xz,yz"}}});
  // Non-ASCII text checks the UTF-8 string type (h5py must give back the same str).
  layout.text_attributes = {{"scenario", "name: synthetic\nfriction: {µ: 0.3}  # Gonthier — 2007\n"},
                            {"vcsim_version", "0.1.0"},
                            {"git_revision", "abcdef012345"},
                            {"integrator", "rk4"}};
  layout.number_attributes = {{"step", kDt}, {"duration", 1.0}, {"output_interval", kDt}};
  return layout;
}

// The closed-form trajectory documented in tests/python/check_output.py.
OutputSample synthetic_sample(long i, int bodies, int pairs) {
  const double g = 9.81, h = 10.0, m = 2.0, izz = 0.1;
  OutputSample s;
  s.time = double(i) * kDt;
  const double t = s.time;
  for (int k = 0; k < bodies; ++k) {
    const double v0 = 1.0 + k, w = 0.5 * (k + 1);
    BodySample b;
    b.position = Vec3(v0 * t, double(k), h - 0.5 * g * t * t);
    b.velocity = Vec3(v0, 0.0, -g * t);
    b.orientation = Quat(std::cos(w * t / 2), 0.0, 0.0, std::sin(w * t / 2));
    b.angular_velocity = Vec3(0.0, 0.0, w);
    s.energy.kinetic += 0.5 * m * b.velocity.squaredNorm() + 0.5 * izz * w * w;
    s.energy.potential += m * g * b.position.z();
    s.energy.total += 0.5 * m * v0 * v0 + 0.5 * izz * w * w + m * g * h;  // conserved
    s.bodies.push_back(b);
  }
  for (int p = 0; p < pairs; ++p) {
    const double sn = std::sin((p + 1) * t), sp = std::max(sn, 0.0);
    PairSample c;
    c.in_contact = sn > 0;
    c.force = Vec3(0.0, 0.0, 100.0 * sp);
    c.point = Vec3((1.0 + p) * t, p + 0.5, 0.0);
    c.torque_about_point = Vec3(0.0, 0.0, 0.1 * std::sin(t));
    c.torque_about_body_i = (c.point - s.bodies[p].position).cross(c.force) + c.torque_about_point;
    c.channels = {1e-6 * sp};
    for (int j = 1; j <= 6; ++j) c.channels.push_back(1e-9 * j * t);
    s.pairs.push_back(c);
  }
  return s;
}

std::string checker_cmd(const std::string& files, int bodies, int pairs, const std::string& extra) {
  return python_with_h5py() + " " + kChecker + " " + files + " --expect synthetic --bodies " +
         std::to_string(bodies) + " --pairs " + std::to_string(pairs) + " --dt " + std::to_string(kDt) +
         " " + extra;
}

}  // namespace

TEST_CASE("h5py is available for the output checks", "[output]") {
  // h5py is a hard requirement of the output tests (python3-h5py is a project dependency).
  REQUIRE_FALSE(python_with_h5py().empty());
}

TEST_CASE("output round trip read back by h5py and h5dump", "[output]") {
  REQUIRE_FALSE(python_with_h5py().empty());
  const std::string dir = make_temp_dir();
  const int B = 3, P = 2, N = 300;
  for (bool isolate : {true, false}) {
    const std::string path = dir + (isolate ? "/isolated.h5" : "/inprocess.h5");
    {
      OutputOptions opt;
      opt.isolate_process = isolate;
      opt.chunk_rows = 64;  // several chunks, with flushes (every 37) not aligned to them
      OutputWriter w(path, synthetic_layout(B, P), opt);
      for (long i = 0; i < N; ++i) {
        w.append(synthetic_sample(i, B, P));
        if (i % 37 == 36) w.flush();
      }
      w.set_number_attribute("wall_time_s", 0.25);
      if (!isolate) w.set_text_attribute("status", "failed: test failure message");
      // The destructor closes: status becomes "completed" unless set above.
    }
    const std::string status = isolate ? "completed" : "'failed: test failure message'";
    CommandResult r = run(checker_cmd(path, B, P,
                                      "--samples 300 --status " + status +
                                          " --text-attr scenario --text-attr vcsim_version "
                                          "--text-attr git_revision --text-attr integrator "
                                          "--number-attr step --number-attr wall_time_s"));
    INFO(r.output);
    CHECK(r.status == 0);
    // The scenario text must come back as the identical UTF-8 str.
    CommandResult u = run(python_with_h5py() + " -c \"import h5py; f=h5py.File('" + path +
                          "','r'); print(f.attrs['scenario'] == 'name: synthetic\\nfriction: {µ: 0.3}  "
                          "# Gonthier — 2007\\n', type(f.attrs['scenario']).__name__, "
                          "f['bodies/b0/orientation'].attrs['order'], f['time'].chunks)\"");
    INFO(u.output);
    CHECK(u.output.find("True str w,x,y,z (64,)") != std::string::npos);

    if (run("command -v h5dump").status == 0) {
      CommandResult d = run("h5dump -H " + path);
      INFO(d.output);
      CHECK(d.status == 0);
      CHECK(d.output.find("( 300, 3 ) / ( H5S_UNLIMITED, 3 )") != std::string::npos);
      CHECK(d.output.find("( 300, 6 ) / ( H5S_UNLIMITED, 6 )") != std::string::npos);
      CHECK(d.output.find("DATASET \"angular_velocity\"") != std::string::npos);
    } else {
      WARN("h5dump not installed: skipped the h5dump cross-check");
    }
  }
  run("rm -rf " + dir);
}

TEST_CASE("output rejects bad layouts, samples and paths with clear errors", "[output]") {
  const std::string dir = make_temp_dir();
  for (bool isolate : {true, false}) {
    OutputOptions opt;
    opt.isolate_process = isolate;
    OutputLayout dup = synthetic_layout(2, 1);
    dup.body_names[1] = "b0";
    CHECK_THROWS_WITH(OutputWriter(dir + "/x.h5", dup, opt), Catch::Contains("duplicate body name 'b0'"));
    OutputLayout slash = synthetic_layout(2, 1);
    slash.pairs[0].name = "a/b";
    CHECK_THROWS_WITH(OutputWriter(dir + "/x.h5", slash, opt), Catch::Contains("'a/b'"));
    OutputLayout clash = synthetic_layout(2, 1);
    clash.pairs[0].channels[0].name = "force";
    CHECK_THROWS_WITH(OutputWriter(dir + "/x.h5", clash, opt), Catch::Contains("clashes"));
    CHECK_THROWS_WITH(OutputWriter(dir + "/no/such/dir/x.h5", synthetic_layout(2, 1), opt),
                      Catch::Contains("cannot create the file") && Catch::Contains("/no/such/dir/x.h5"));
    OutputWriter w(dir + "/ok.h5", synthetic_layout(2, 1), opt);
    OutputSample s = synthetic_sample(0, 2, 1);
    s.pairs[0].channels.pop_back();
    CHECK_THROWS_WITH(w.append(s), Catch::Contains("6 channel values, layout expects 7"));
    CHECK_THROWS_WITH(w.append(synthetic_sample(0, 3, 1)), Catch::Contains("layout expects 2 and 1"));
  }
  struct stat st;
  CHECK(stat((dir + "/x.h5").c_str(), &st) != 0);  // no file left behind by a rejected layout
  run("rm -rf " + dir);
}

namespace {

// Forks a writer (in its own process group) that appends samples forever, flushing every 10
// samples (~1 ms apart); `delay_ms` after the file exists it sends `sig` to the writer, or to its
// whole process group (writer and helper), then waits for the writer and its helper to end.
void kill_writer_after(const std::string& path, int bodies, int pairs, bool isolate, int delay_ms,
                       int sig = SIGKILL, bool whole_group = false) {
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    setpgid(0, 0);
    // Catch2's fatal-signal handlers were inherited: restore the default action, as in a real run.
    for (int s : {SIGINT, SIGTERM, SIGSEGV}) signal(s, SIG_DFL);
    close(ready[0]);
    try {
      OutputOptions opt;
      opt.isolate_process = isolate;
      opt.chunk_rows = 256;
      OutputWriter w(path, synthetic_layout(bodies, pairs), opt);
      char c = 1;
      if (write(ready[1], &c, 1) != 1) _exit(3);
      for (long i = 0;; ++i) {
        w.append(synthetic_sample(i, bodies, pairs));
        if (i % 10 == 9) {
          w.flush();
          usleep(1000);
        }
      }
    } catch (...) {
      _exit(4);
    }
  }
  setpgid(child, child);  // also here, so the group exists before we signal it
  close(ready[1]);
  char c = 0;
  REQUIRE(read(ready[0], &c, 1) == 1);
  close(ready[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  REQUIRE(kill(whole_group ? -child : child, sig) == 0);
  int st = 0;
  REQUIRE(waitpid(child, &st, 0) == child);
  REQUIRE(WIFSIGNALED(st));
  REQUIRE(WTERMSIG(st) == sig);
  // The helper was re-parented to us (child subreaper): wait until it has closed the file.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    pid_t p = waitpid(-1, &st, WNOHANG);
    if (p < 0) break;  // ECHILD: nothing left
    if (p == 0) {
      REQUIRE(std::chrono::steady_clock::now() < deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

}  // namespace

TEST_CASE("SIGKILL at random moments leaves a consistent, flagged file", "[output][crash]") {
  REQUIRE_FALSE(python_with_h5py().empty());
  REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  const std::string dir = make_temp_dir();
  const int B = 3, P = 2;
  const int trials = env_int("VCSIM_KILL_TRIALS", 24);  // issue 8 asks for at least 20
  std::mt19937 rng(20240607);  // fixed seed: the same delays on every run
  std::uniform_int_distribution<int> delay(0, 300);
  std::string files;
  for (int k = 0; k < trials; ++k) {
    const std::string path = dir + "/kill_" + std::to_string(k) + ".h5";
    kill_writer_after(path, B, P, /*isolate=*/true, delay(rng));
    files += " " + path;
  }
  // A Ctrl-C reaches the whole process group: the helper must ignore it and still finish the
  // file (here the writer has no SIGINT handler, so it dies like a killed process).
  const std::string sigint_path = dir + "/sigint.h5";
  kill_writer_after(sigint_path, B, P, true, 50, SIGINT, /*whole_group=*/true);
  files += " " + sigint_path;
  // The helper saw its simulation process vanish, wrote every complete sample and flagged it.
  CommandResult r = run(checker_cmd(files, B, P, "--status killed --min-samples 1"));
  INFO(r.output);
  CHECK(r.status == 0);
  std::printf("SIGKILL trials (isolated writer): %d + 1 SIGINT; checker exit %d\n", trials, r.status);
  run("rm -rf " + dir);
}

// Measurement, not a guarantee: the in-process writer (or a writer whose helper is killed too)
// depends on the kill not landing inside H5Fflush. Run with: output_hdf5_test "[stress]".
TEST_CASE("SIGKILL of an in-process writer (measurement)", "[.][stress]") {
  REQUIRE_FALSE(python_with_h5py().empty());
  REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  const std::string dir = make_temp_dir();
  const int B = 3, P = 2;
  const int trials = env_int("VCSIM_KILL_TRIALS", 100);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> delay(0, 300);
  int unequal = 0, unreadable = 0;
  for (int k = 0; k < trials; ++k) {
    const std::string path = dir + "/inp_" + std::to_string(k) + ".h5";
    kill_writer_after(path, B, P, /*isolate=*/false, delay(rng));
    CommandResult r = run(checker_cmd(path, B, P, "--status running"));
    if (r.status != 0) {
      if (r.output.find("\"lengths_equal\": false") != std::string::npos)
        ++unequal;
      else
        ++unreadable;
      std::printf("%s\n", r.output.substr(0, 600).c_str());
    }
    run("rm -f " + path);
  }
  std::printf("in-process SIGKILL: %d trials, %d with unequal lengths, %d other failures\n", trials,
              unequal, unreadable);
  run("rm -rf " + dir);
}
