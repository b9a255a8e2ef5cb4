// Xie & Chakraborty S2 (issue 10): a cylinder rolling and spinning on a plane with line contact, kicked about the
// vertical whenever ω_z reaches 0 (scenarios/validation/xie_s2_cylinder_rolling.yaml), and the scripted impulses
// that make it expressible in a scenario file (docs/scenario-format.md, "Impulses").
//
// References (shared/reference/xie-chakraborty-sandia.md §1.11 S2, checks XC-S2-1...6), all closed forms:
//   rolling speed 1.4 m r²/(m r² + I_axis) = 0.9333 m/s (angular momentum about the contact line);
//   Δω_z = 3 N m s / I_t = 0.1286 rad/s per kick, I_t = m (3 r² + l²)/12 = 23.333 kg m²;
//   the kick period Δω_z I_t/(μ m g e_r,eff): Gonthier's volumetric spin friction saturates at μ f_n r_gyr
//   (docs/contact-models.md, 4.234-4.243), r_gyr = l/√12 = 1.4434 m for the strip, so 0.0707 s (Xie's ellipsoid
//   with e_r = 1 m: 0.102 s; exact Coulomb on a uniform line, e_r = l/4: 0.0816 s);
//   the centre of pressure on the contact line: D = 0, |L| ≤ l/2, L ≈ (I_axis/r + m r) v ω_z/(m g) = 0.1429 ω_z;
//   Σ f_n = m g = 98 N.
// Each check prints "VALIDATION | id | measured | reference | tolerance | ok" for tools/validate.
//
// The CI case runs 0.45 s (slip ends at 0.16 s, four kicks) at geometry_tolerance 3e-3, sampling every step so
// that sample means are time averages. About 8 s of CPU; the full
// 10 s run at the scenario's 1e-3 is tagged [.][long]:  build/tests/validation_s2_test "[long]".
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/validation_support.h"

namespace fs = std::filesystem;

namespace {

using validation::kValidation;

fs::path temp_dir() { return cli::temp_dir("validation_s2_test"); }

std::string simulate(const std::string& name, const std::string& scenario, const std::vector<std::string>& sets = {}) {
  return validation::simulate(temp_dir(), name, scenario, sets);
}

int analyse(const std::string& code) { return validation::analyse(temp_dir(), code); }

// The S2 analysis, shared by the CI and the long case. t_roll: from when the rolling speed is compared.
std::string s2_checks(const std::string& h5, const std::string& tag, double t_roll) {
  return "f = h5py.File('" + h5 + "', 'r')\ntag = '" + tag + "'\nt_roll = " + std::to_string(t_roll) + R"PY(
m, r, l, g, mu = 10.0, 1.0, 5.0, 9.8, 0.3
I_axis, I_t = m * r * r / 2, m * (3 * r * r + l * l) / 12
t = f['time'][:]
v = f['bodies/cylinder/velocity'][:]
w = f['bodies/cylinder/angular_velocity'][:]
p = f['bodies/cylinder/position'][:]
q = f['bodies/cylinder/orientation'][:]
cop = f['contacts/cylinder__ground/center_of_pressure'][:]
F = f['contacts/cylinder__ground/force'][:]
W, X, Y, Z = q.T
axis = np.stack([1 - 2 * (Y * Y + Z * Z), 2 * (X * Y + W * Z), 2 * (X * Z - W * Y)], 1)  # R e_x
perp = np.cross([0, 0, 1], axis)
perp /= np.linalg.norm(perp, axis=1)[:, None]
d = cop - p
L = (d * axis).sum(1)   # along the contact line, from the centre of mass (Xie's L)
D = (d * perp).sum(1)   # across it (Xie's D)
count = f['impulses/spin_kick/count'][:]
last = f['impulses/spin_kick/last_time'][:]
kicks = np.unique(last[~np.isnan(last)])
assert int(count[-1]) == len(kicks), 'two kicks between samples: the firing times are ambiguous'
# Each kick is the paper's 3 N m s about +z (the cumulative tally in the output).
ang = f['impulses/spin_kick/angular'][-1]
report(tag + 'cumulative kick impulse / count (N m s)', ang[2] / max(count[-1], 1), 3.0, abs_tol=1e-12, unit='N m s')

v_roll = 1.4 * m * r * r / (m * r * r + I_axis)
sp = np.hypot(v[:, 0], v[:, 1])
sel = t >= t_roll
# ±1 %: the issue's tolerance (the contact's bristle creep and the compliant sink are far smaller).
report(tag + 'rolling speed after slip (mean from %.2f s)' % t_roll, sp[sel].mean(), v_roll, 1e-2, 'm/s')
report(tag + 'rolling speed, slowest sample from %.2f s' % t_roll, sp[sel].min(), v_roll, 1e-2, 'm/s')

# Kick period against Gonthier's spin-friction limit μ f_n r_gyr (r_gyr = l/√12). ±10 %: the reference's tolerance
# for volumetric models (XC-S2-5); the axial slip that turns the rolling direction takes part of the friction
# budget (C_ω < 1, 4.211), and the sampled crossing is late by up to one step.
T = np.diff(kicks).mean()
r_gyr = l / np.sqrt(12)
dw = 3.0 / I_t
report(tag + 'kick period (mean of %d)' % (len(kicks) - 1), T, dw * I_t / (mu * m * g * r_gyr), 0.10, 's')
print('S2: %d kicks, first at %.4f s, mean period %.5f s -> effective e_r = dw I_t/(mu m g T) = %.4f m '
      '(r_gyr = l/sqrt(12) = %.4f, l/4 = %.4f, Xie e_r = 1)' % (len(kicks), kicks[0], T, dw * I_t / (mu * m * g * T), r_gyr, l / 4))

# XC-S2-1: the centre of pressure stays on the contact line. Limit: max(1 mm, 1/4 of the contact half-width
# sqrt(2 r delta), delta = 0.476 mm) = 7.7 mm; e_eff = 1, so no hysteresis offset is expected.
contact = t >= 0.01
bound(tag + 'max abs(D) (centre of pressure across the contact line)', np.abs(D[contact]).max(), max(1e-3, 0.25 * np.sqrt(2 * r * 4.763e-4)), 'm')
# XC-S2-2: within the cylinder's length.
bound(tag + 'max abs(L) (centre of pressure along the line)', np.abs(L[contact]).max(), l / 2, 'm')
)PY";
}

}  // namespace

TEST_CASE("scripted impulses: time and crossing triggers, world-frame angular impulse", "[impulses]") {
  // A free body (no contacts). Closed forms:
  //  * `at: 0` angular impulse L = (0, 0, 1) N m s on inertia diag(1, 2, 3) kg m² rolled 30° about x:
  //    Δω = R diag(1, 1/2, 1/3) Rᵀ L. By hand: Rᵀ L = (0, sin30°, cos30°) = (0, 0.5, 0.8660254); times the
  //    inverse inertia (0, 0.25, 0.2886751); rotated back by 30°: (0, 0.25 cos30° − 0.2886751 sin30°,
  //    0.25 sin30° + 0.2886751 cos30°) = (0, 0.0721688, 0.375) rad/s;
  //  * `when: velocity.z crosses −1 m/s falling`, linear (0, 0, 2 m): free fall from rest reaches −1 m/s at
  //    1/g = 0.10204 s; the jump to ≈ +1 m/s then falls back below −1 m/s after (2 + overshoot)/g; firings land on
  //    the first step past each crossing, so every interval is 2/g = 0.20408 s to within one step (1e-3 s);
  //  * the same trigger on a second ball with `until: 0.5`: crossings at 1/g + k 2/g = 0.102, 0.306, 0.510 s, so
  //    it fires twice (the third crossing is 10 ms, ten steps, past `until`) and then the ball falls freely.
  const fs::path file = temp_dir() / "impulse_free_body.yaml";
  std::ofstream(file) << R"(simulation: {duration: 1.0, step: 1.0e-3}
gravity: [0, 0, -9.8]
bodies:
  ball:
    mass: 2.0
    inertia: [1, 2, 3]
    orientation: {rpy_deg: [30, 0, 0]}
  ball2:
    mass: 2.0
    inertia: [1, 1, 1]
impulses:
  - name: spin
    body: ball
    at: 0
    angular: [0, 0, 1]
  - name: bounce
    body: ball
    when: {signal: velocity.z, crosses: -1, direction: falling}
    linear: [0, 0, 4]
  - name: bounce_until
    body: ball2
    when: {signal: velocity.z, crosses: -1, direction: falling, until: 0.5}
    linear: [0, 0, 4]
)";
  const std::string h5 = simulate("impulse_free_body", file.string());
  CHECK(analyse("LINE = 'IMPULSES'\nf = h5py.File('" + h5 + R"PY(', 'r')
w0 = f['bodies/ball/angular_velocity'][0]
report('impulse at t = 0: world-frame dw_y', w0[1], 0.0721688, abs_tol=1e-6, unit='rad/s')
report('impulse at t = 0: world-frame dw_z', w0[2], 0.375, abs_tol=1e-6, unit='rad/s')
t = f['time'][:]
c = f['impulses/bounce/count'][:]
lt = f['impulses/bounce/last_time'][:]
fires = t[np.nonzero(np.diff(c))[0] + 1]
times = lt[np.nonzero(np.diff(c))[0] + 1]
assert np.allclose(fires, times), (fires, times)   # last_time is the sample's time at every step (interval 0)
g = 9.8
report('first crossing of v_z = -1 m/s', times[0], 1 / g, abs_tol=1e-3, unit='s')
report('crossing intervals (%d), largest deviation from 2/g' % (len(times) - 1), np.abs(np.diff(times) - 2 / g).max(), 0, abs_tol=2e-3, unit='s')
report('firings in 1 s', c[-1], 1 + int((1 - 1 / g) / (2 / g)), abs_tol=0)
cu = f['impulses/bounce_until/count'][:]
report('until: 0.5 s: firings in 1 s (crossings at 0.102, 0.306; 0.510 s is past until)', cu[-1], 2, abs_tol=0)
report('until: 0.5 s: last firing', f['impulses/bounce_until/last_time'][-1], 1 / g + 2 / g, abs_tol=2e-3, unit='s')
report('impulses_applied attribute', f.attrs['impulses_applied'], 1 + c[-1] + cu[-1], abs_tol=0)
vz = f['bodies/ball/velocity'][:, 2]
bound('sampled v_z - (-1 m/s): samples follow the jump, so never below', -vz.min() - 1, 0.0, 'm/s')
)PY") == 0);
}

TEST_CASE("Xie-Chakraborty S2: cylinder rolling and spinning with line contact (0.45 s)", "[validation][xie]") {
  const std::string h5 = simulate("s2_short", kValidation + "xie_s2_cylinder_rolling.yaml",
                                  {"simulation.duration=0.45", "simulation.geometry_tolerance=3.0e-3", "output.interval=2.5e-4"});
  CHECK(analyse(s2_checks(h5, "Xie S2 (0.45 s) ", 0.25)) == 0);
}

TEST_CASE("Xie-Chakraborty S2: full 10 s run", "[.][long][validation][xie]") {
  const std::string h5 = simulate("s2_full", kValidation + "xie_s2_cylinder_rolling.yaml");
  CHECK(analyse(s2_checks(h5, "Xie S2 ", 0.5) + R"PY(
# XC-S2-6: the normal load carries the weight, ±0.5 %. A mean over a window T differs from m g by m Δv_z/T: the
# undamped vertical mode (e_eff = 1, |v_z| up to ~0.01 m/s) biases a 0.2 s window by ~1 %, a 9.5 s one by 0.02 %.
report('Xie S2 mean normal force while rolling', F[sel, 2].mean(), m * g, 5e-3, 'N')
# XC-S2-4: drift of the rolling speed over the run (< 1 %).
late = t >= t[-1] - 0.5
report('Xie S2 rolling speed over the last 0.5 s', sp[late].mean(), v_roll, 1e-2, 'm/s')
# The moment balance about the horizontal axis normal to the cylinder (reference §1.11 S2, signs derived for this
# layout: axis +x, rolling along −y with ω_x > 0): −L N = (I_axis ω_x + m v r) ω_z, so L = −0.1429 ω_z m.
# e_eff = 1 leaves the pitch mode about the transverse axis (166 rad/s) undamped and every kick excites it (the
# quasi-static L jumps by 18 mm), so single samples of L carry that oscillation, phase-locked to the kicks;
# only the long-time average is free of it (the pitch angular momentum stays bounded): ⟨L⟩ = −0.1429 ⟨ω_z⟩, ±20 %
# (XC-S2-3's tolerance).
coef = -(I_axis / r + m * r) * v_roll / (m * g)
roll = t >= 0.5
report('Xie S2 mean L / mean omega_z (time-averaged moment balance)', L[roll].mean() / w[roll, 2].mean(), coef, 0.2, 'm s')
# Logged, not checked: L in the last sample before each kick (ω_z ≈ 0); the rigid balance says 0, the phase-locked
# pitch oscillation shifts it (docs/validation.md).
before = np.searchsorted(t, kicks) - 1
before = before[before >= 0]
print('S2: mean L in the sample before each kick %.4f m (std %.4f m); rigid moment balance 0' % (L[before].mean(), L[before].std()))
)PY") == 0);
}
