// Boos 2011 impact damping at 0.1-1 mm/s (issue 10; Boos §3.3, eqs 2.6-2.9; docs/sources.md, V8/V9;
// scenarios/validation/boos_sphere_impact.yaml). Which reference, and why:
//  * Boos's impacts were DRIVEN (the rig imposes the approach speed), so he measured no free rebound; his result is
//    the fit a = 8.68/v_i (Mg) of F/F_QS = 1 + a v_cn (eq 2.6), i.e. a = d/(e v_i) (eq 2.7) with e = 0.114 held
//    constant. The Al pair (18.7/v_i against e = 0.134) is inconsistent in the thesis (⚠ docs/sources.md,
//    "Boos 2011"), so only Mg is compared with Boos's number.
//  * What the model promises is its exact restitution relation: for a force g(δ)(1 + a δ̇), m v dv/(1 + a v) =
//    −g(δ) dδ integrates to the same value over compression and restitution, so with a = d/(e v_i) and d solving
//    (1 + d/e)/(1 − d) = exp(d (1 + 1/e)) (Boos 2.8 = Gonthier 3.22/3.23) a free ball rebounds at exactly e v_i,
//    whatever v_i, k_V, R, m and the shape of g (here the spherical cap, g = k_V π δ²(3R − δ)/3).
// So: (1) free impacts at 0.1-1 mm/s must rebound at e_eff v_i (the closed form, to RK4 accuracy), dissipating
// (1 − e²) of the kinetic energy; (2) a driven impact (a 1e4 kg ball: its speed drops < 0.2 % in the window) must
// show F/F_QS = 1 + a v_cn exactly, whose value at v_cn = v_i, 1 + d/e, is compared with Boos's 1 + 8.68 = 9.68
// within his ±10 % scatter (Figs 3.10-3.11).
// d is computed here by bisection on eq 2.8, independently of contact/normal_force.cpp.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/validation_support.h"

namespace fs = std::filesystem;

namespace {

const std::string kScenario = cli::kSource + "/scenarios/validation/boos_sphere_impact.yaml";

fs::path temp_dir() { return cli::temp_dir("validation_boos_damping_test"); }

std::string simulate(const std::string& name, const std::vector<std::string>& sets) {
  return validation::simulate(temp_dir(), name, kScenario, sets);
}

// Python helpers of these checks, after validation::kPrelude.
const std::string kPythonHelpers = R"PY(
def d_of_e(e):
    # Boos eq 2.8: ln(1 + d/e) - ln(1 - d) = d (1 + 1/e), root in (0, 1), by bisection
    f = lambda d: math.log(1 + d / e) - math.log(1 - d) - d * (1 + 1 / e)
    lo, hi = 1e-12, 1 - 1e-15
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) < 0: lo = mid   # f < 0 below the root (f ~ -d²(1/e² - 1)/2 near 0), +inf at 1
        else: hi = mid
    return 0.5 * (lo + hi)
)PY";

int analyse(const std::string& code) { return validation::analyse(temp_dir(), code, kPythonHelpers); }

struct Impact {
  std::string plate;
  double k_v, e, v;
};

}  // namespace

TEST_CASE("Boos impact damping: free impacts at 0.1-1 mm/s rebound at e_eff v_i", "[validation][boos]") {
  // Mg (Boos's fitted e = 0.114, k_V = 3.82e13) at 0.1, 0.3, 0.58 (his single test) and 1 mm/s; Al (e = 0.134,
  // k_V = 7.59e13) at the ends of the range.
  const std::vector<Impact> impacts = {{"Mg", 3.82e13, 0.114, 1e-4}, {"Mg", 3.82e13, 0.114, 3e-4},
                                       {"Mg", 3.82e13, 0.114, 5.8e-4}, {"Mg", 3.82e13, 0.114, 1e-3},
                                       {"Al", 7.59e13, 0.134, 1e-4},  {"Al", 7.59e13, 0.134, 1e-3}};
  for (const Impact& c : impacts) {
    char name[64], v[32], k[32], e[32];
    std::snprintf(name, sizeof name, "free_%s_%g", c.plate.c_str(), c.v);
    std::snprintf(v, sizeof v, "%.17g", c.v);
    std::snprintf(k, sizeof k, "%.17g", c.k_v);
    std::snprintf(e, sizeof e, "%.17g", c.e);
    const std::string h5 = simulate(name, {std::string("bodies.ball.velocity=[0,0,-") + v + "]",
                                           std::string("contacts[0].k_v=") + k, std::string("contacts[0].e_eff=") + e});
    INFO(name);
    CHECK(analyse("f = h5py.File('" + h5 + "', 'r')\nplate, v_i, e = '" + c.plate + "', " + v + ", " + e + R"PY(
vz = f['bodies/ball/velocity'][:, 2]
inc = f['contacts/ball__plate/in_contact'][:]
assert inc[-1] == 0 and inc.any(), 'the ball must have touched and left the plate within the run'
# Rebound speed over impact speed: e_eff. ±1e-3 relative: RK4 at omega h <= 0.03 is far more accurate; the
# reference's V9 tolerance (the impact speed is latched at the first accepted step in contact, 1 nm after touching).
report('Boos %s free impact at %.2g mm/s: restitution v_out/v_in' % (plate, v_i * 1e3), vz[-1] / v_i, e, 1e-3)
# Dissipated energy fraction 1 - e^2 (the same statement in energy; also against the model's impact-speed latch).
ke = f['energy/kinetic'][:]
report('Boos %s free impact at %.2g mm/s: dissipated fraction of KE' % (plate, v_i * 1e3), 1 - ke[-1] / ke[0], 1 - e * e, 1e-3)
vin = f['contacts/ball__plate/impact_velocity'][:]
print('latched impact speed %.9g m/s (v_i %.9g)' % (np.abs(vin[inc.astype(bool)]).max(), v_i))
)PY") == 0);
  }
}

TEST_CASE("Boos impact damping: driven impact F/F_QS = 1 + a v_cn against Boos's Mg fit", "[validation][boos]") {
  // A 1e4 kg ball driven in at 0.58 mm/s (Boos's single Mg test): over 2 ms it sinks 1.2 µm and its speed changes
  // by < 0.2 % (impulse ≲ 0.01 N s against M v = 5.8 N s), i.e. the rig's displacement control.
  const std::string h5 = simulate("driven_Mg", {"simulation.duration=2.0e-3", "simulation.step=1.0e-5",
                                                "bodies.ball.mass=1.0e4", "bodies.ball.inertia=[1,1,1]"});
  CHECK(analyse("f = h5py.File('" + h5 + R"PY(', 'r')
R, k_v, e, v_i = 9.52e-3, 3.82e13, 0.114, 5.8e-4
d = d_of_e(e)
a = d / (e * v_i)                      # Boos eq 2.7 (a > 0 in compression)
z = f['bodies/ball/position'][:, 2]
vz = f['bodies/ball/velocity'][:, 2]
fn = f['contacts/ball__plate/normal_force'][:, 0]
delta = R - z
sel = delta > 0.05e-6                  # from 50 nm on (the cap volume is resolved to rounding, not a mesh)
F_qs = k_v * math.pi / 3 * delta[sel] ** 2 * (3 * R - delta[sel])   # eq 2.6 with eq 3.11, v_cn = 0
ratio = fn[sel] / F_qs
pred = 1 + a * (-vz[sel])              # v_cn = d(delta)/dt = -v_z
# The law itself, sample by sample (1e-6: the closed-form cap volume and double rounding).
report('Boos Mg driven 0.58 mm/s: max abs(F/F_QS / (1 + a v_cn) - 1)', np.abs(ratio / pred - 1).max(), 0, abs_tol=1e-6)
# Against Boos: his fit a = 8.68/v_i makes F/F_QS = 1 + 8.68 at v_cn = v_i; ±10 %: the scatter of his fits
# (Figs 3.10-3.11). The model's 1 + d/e = 9.77 differs from 9.68 by his use of d ~ 1 - e^2 (eq 2.9).
report('Boos Mg driven 0.58 mm/s: F/F_QS at v_cn = v_i (1 + d/e) vs Boos 1 + 8.68', 1 + a * (-vz[sel][-1]), 1 + 8.68, 0.10)
report('Boos Mg driven 0.58 mm/s: damping a v_i = d/e vs (1 - e^2)/e (eq 2.9)', a * v_i, (1 - e * e) / e, 0.02)
print('d(0.114) = %.6f, a = %.5g s/m (Boos fit 8.68/v_i = %.5g, slides 1.6e4)' % (d, a, 8.68 / v_i))
)PY") == 0);
}
