// Runs with the error-controlled integrators (issue 18, docs/integration.md) through the CLI, checked with h5py
// against closed forms: samples from the continuous extension, a contact onset neither skipped nor smeared, rejected
// trials that leave the contact memories alone, timed impulses landing on their time, and the step statistics.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli_support.h"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() { return cli::temp_dir("adaptive_run_test"); }

// Writes `yaml` as NAME.yaml, runs it into NAME.h5 with the --set overrides, REQUIREs success; returns the output.
std::string simulate(const std::string& name, const std::string& yaml, const std::string& sets = "") {
  const fs::path scenario = temp_dir() / (name + ".yaml");
  std::ofstream(scenario) << yaml;
  const std::string out = (temp_dir() / (name + ".h5")).string();
  const cli::Run r = cli::run("run " + scenario.string() + " -q -o " + out + " " + sets);
  INFO(r.output);
  REQUIRE(r.status == 0);
  return out;
}

int analyse(const std::string& code) { return cli::run_python_check(temp_dir(), cli::kCheckPrelude, code); }

// The bristle friction parameters of ball_on_table (Table 5.6), for every contact below.
const std::string kBristle = R"(    sigma0: 1.0e5
    sigma1: 316.228
    sigma2: 0.0
    v_s: 1.0e-3
    tau_dw: 0.3
    v_e: 1.0e-5
)";

// A 2 kg ball (R = 0.1 m) dropped from `height` (its lowest point) onto a box table, volumetric contact of
// ball_on_table, no friction beyond the defaults of that scenario.
std::string ball_drop(double height, const std::string& simulation) {
  return R"(name: drop
simulation:
)" + simulation + R"(
gravity: [0, 0, -9.81]
bodies:
  table:
    fixed: true
    position: [0, 0, -0.05]
    geometry:
      box: {size: [2.0, 2.0, 0.1]}
  ball:
    mass: 2.0
    inertia: [0.008, 0.008, 0.008]
    position: [0, 0, )" + std::to_string(0.1 + height) + R"(]
    geometry:
      sphere: {radius: 0.1}
contacts:
  - bodies: [ball, table]
    model: volumetric
    k_v: 1.0e7
    e_eff: 0.5
    v_small: 1.0e-3
    mu_s: 0.08
    mu_c: 0.05
)" + kBristle;
}

}  // namespace

TEST_CASE("dopri5: samples between steps come from the continuous extension (free flight, closed form)") {
  // No contact: z(t) = z0 − g t²/2 is a quadratic, which dopri5 and its 4th-order extension reproduce to round-off;
  // the steps grow to max_step (0.2 s, here 20 samples per step), so nearly every sample is interpolated.
  const std::string out =
      simulate("flight", ball_drop(100.0, "  duration: 1.0\n  integrator: dopri5\n  max_step: 0.2"),
               "--set output.interval=0.01");
  CHECK(analyse("f = h5py.File('" + out + R"(', 'r')
t = f['time'][:]; z = f['bodies/ball/position'][:, 2]
expect('samples', len(t), 101, 101)
expect('sample times on the grid', np.abs(t - 0.01 * np.arange(101)).max(), 0, 1e-15)
# 1e-12 m: round-off of 100 m positions through a few stages.
expect('|z - closed form| [m]', np.abs(z - (100.1 - 0.5 * 9.81 * t**2)).max(), 0, 1e-12)
expect('largest accepted step [s]', f.attrs['max_step'], 0.19, 0.2)
expect('/step_size at the samples [s]', f['step_size'][1:], 1e-3, 0.2)
expect('accepted steps', f.attrs['accepted_steps'], 5, 12)
)") == 0);
}

TEST_CASE("dopri5: the first contact is neither skipped nor smeared, and a rejected trial leaves the memories alone") {
  // Dropped 0.1 m: the free fall reaches the table at t0 = sqrt(2 h / g) = 0.142784 s at v0 = sqrt(2 g h) =
  // 1.40071 m/s. The first trial step (initial_step 0.1 s, max_step 0.1 s) and its successors would jump through
  // the onset; the run must cut them to the event bound. The impact velocity the contact latches (its memory) must
  // be v0 at the onset: a trial's stage inside the table, had it been committed, would latch a different one.
  const std::string out = simulate(
      "onset", ball_drop(0.1, "  duration: 0.2\n  integrator: dopri5\n  max_step: 0.1\n  initial_step: 0.1"),
      "--set output.interval=0");
  CHECK(analyse("f = h5py.File('" + out + R"(', 'r')
t = f['time'][:]; ic = f['contacts/ball__table/in_contact'][:].ravel(); hs = f['step_size'][:]
t0 = np.sqrt(2 * 0.1 / 9.81); v0 = np.sqrt(2 * 9.81 * 0.1)
first = int(np.argmax(ic == 1))
expect('first in-contact sample after the free-fall onset [s]', t[first] - t0, 0, hs[first])
expect('the step that crossed the onset [s]', hs[first], 0, 5e-4, '(half the contact mode stable step or less)')
expect('rejected trials', f.attrs['rejected_steps'], 1, 1e9)
expect('cut at the onset', f.attrs['event_cuts'], 1, 1e9)
vin = f['contacts/ball__table/impact_velocity'][:, 0]
# The latched v_in is the approach speed at the accepted step that found the overlap: v0 + g (t - t0), within one
# event-bounded step of gravity (5e-4 s x 9.81 = 5e-3 m/s) plus the contact's own deceleration over it.
expect('latched impact velocity / v0', np.abs(vin[first]) / v0, 0.99, 1.01)
)") == 0);
}

TEST_CASE("dopri5: a fast ball is not carried through a thin fixed plate in one step") {
  // Zero gravity, 20 m/s toward a 2 mm plate: in free flight the error estimate is zero and the steps grow to
  // max_step (0.1 s: 2 m of travel). The travel bound must stop the ball in the plate's contact and send it back.
  const std::string yaml = R"(name: plate
simulation:
  duration: 0.5
  integrator: dopri5
  max_step: 0.1
gravity: [0, 0, 0]
bodies:
  plate:
    fixed: true
    geometry:
      box: {size: [1.0, 1.0, 0.002]}
  ball:
    mass: 0.1
    inertia: [4.0e-5, 4.0e-5, 4.0e-5]
    position: [0, 0, 2.0]
    velocity: [0, 0, -20.0]
    geometry:
      sphere: {radius: 0.05}
contacts:
  - bodies: [ball, plate]
    model: volumetric
    k_v: 1.0e10
    e_eff: 0.5
    v_small: 1.0e-3
    mu_s: 0.1
    mu_c: 0.1
)" + kBristle;
  const std::string out = simulate("plate", yaml, "--set output.interval=0");
  CHECK(analyse("f = h5py.File('" + out + R"(', 'r')
z = f['bodies/ball/position'][:, 2]; vz = f['bodies/ball/velocity'][:, 2]
ic = f['contacts/ball__plate/in_contact'][:].ravel()
expect('samples in contact', int(ic.sum()), 1, 10**9)
expect('lowest centre height [m]', z.min(), 0.0, 0.051, '(bounced off the top face)')
# e_eff = 0.5: it leaves at about 10 m/s upward.
expect('final v_z [m/s]', vz[-1], 8, 12)
)") == 0);
}

TEST_CASE("dopri5: a timed impulse fires at its time exactly, the statistics are written") {
  const std::string yaml = ball_drop(100.0, "  duration: 0.5\n  integrator: dopri5") + R"(
impulses:
  - name: kick
    body: ball
    at: 0.123456
    linear: [2.0, 0, 0]
)";
  const std::string out = simulate("impulse", yaml, "--set output.interval=0.05");
  CHECK(analyse("f = h5py.File('" + out + R"(', 'r')
t = f['time'][:]; x = f['bodies/ball/position'][:, 0]; vx = f['bodies/ball/velocity'][:, 0]
expect('firing time [s]', f['impulses/kick/last_time'][-1], 0.123456, 0.123456)
# x(t) = (2 N s / 2 kg) (t − 0.123456) after the kick: 1e-12 of round-off.
after = t > 0.123456
expect('x after the kick - closed form [m]', np.abs(x[after] - 1.0 * (t[after] - 0.123456)).max(), 0, 1e-12)
expect('x before the kick [m]', np.abs(x[~after]).max(), 0, 0)
a = f.attrs
expect('min <= median <= max step', [a['median_step'] - a['min_step'], a['max_step'] - a['median_step']], 0, 1)
expect('accepted steps == steps', a['accepted_steps'] - a['steps'], 0, 0)
expect('/step_size length == samples', len(f['step_size']) - a['samples'], 0, 0)
)") == 0);
}

TEST_CASE("Adaptive settings are refused with a fixed-step integrator, the fixed-step output has no /step_size") {
  const std::string out = simulate("fixed", ball_drop(0.1, "  duration: 0.01\n  step: 1.0e-4\n  integrator: rk4"));
  CHECK(analyse("f = h5py.File('" + out + R"(', 'r')
expect('has /step_size', int('step_size' in f), 0, 0)
expect('has rejected_steps', int('rejected_steps' in f.attrs), 0, 0)
)") == 0);
  const fs::path scenario = temp_dir() / "fixed.yaml";
  const cli::Run r = cli::run("run " + scenario.string() + " -q -o " + (temp_dir() / "bad.h5").string() +
                              " --set simulation.rel_tol=1e-8");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Matchers::Contains("only with an adaptive integrator"));
  CHECK_FALSE(fs::exists(temp_dir() / "bad.h5"));
}
