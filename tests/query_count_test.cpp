// A geometric query is computed once per state (issue 16): the accepted step's interferences are reused by the
// output sample and by the first stage of the next Runge–Kutta step, which see the same poses. A ball placed at
// rest in the table (in contact at every stage), sampled at every step, for N steps: its contact episode opens when
// the world is built (docs/contact-models.md, "Initial contact state"), so the t = 0 interference is already
// accepted and serves the t = 0 sample, the first stage and the second stage (at rest, its positions are the initial
// ones: x0 + c2 h v0 = x0). The output's interference_queries is then exactly s·N − 1 for an s-stage method (stages
// 2..s and the accepted state of every step, but the first step's second), where recomputing everything gave
// (s + 2)·N + 1.
#include <catch2/catch.hpp>

#include <string>

#include "tests/cli_support.h"

namespace {

long queries(const std::string& integrator, int steps) {
  const auto dir = cli::temp_dir("query_count_test");
  const std::string out = (dir / (integrator + ".h5")).string();
  // Centre 2.5 mm into the table: k_v V ≈ m g (V = π R h² − π h³/3 = 1.94e-6 m³ at h = 2.5 mm, k_v V = 19.4 N).
  const cli::Run r = cli::run("run " + cli::kSource + "/scenarios/ball_on_table.yaml -o " + out +
                              " --set bodies.ball.position=[0,0,0.0975] --set bodies.ball.velocity=[0,0,0]"
                              " --set bodies.ball.angular_velocity=[0,0,0] --set simulation.integrator=" +
                              integrator + " --set simulation.duration=" + std::to_string(steps * 5.0e-5) +
                              " --set output.interval=5.0e-5");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const cli::Run q = cli::run_command(cli::kPython + " -c \"import h5py; print(int(h5py.File('" + out +
                                      "','r').attrs['interference_queries']))\"");
  INFO(q.output);
  REQUIRE(q.status == 0);
  return std::stol(q.output);
}

}  // namespace

TEST_CASE("one interference query per state: s per s-stage step", "[engine][queries]") {
  const int n = 200;
  CHECK(queries("rk3", n) == 3L * n - 1);
  CHECK(queries("rk4", n) == 4L * n - 1);
  CHECK(queries("euler", n) == 1L * n - 1);
}
