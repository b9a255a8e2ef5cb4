// Validation suite (issue 10): vcsim against the other seed studies. Boos 2011 (quasi-static sphere and flat
// cylinder on plates), Xie & Chakraborty (S1 box sliding, S3 cube corner -> edge -> face), LaFarge & Lewis
// (Sandia point law), point against volumetric. References: docs/sources.md (sources, published values, OCR
// decisions); the decisions and the full table are in docs/validation.md.
//
// Every expected value is a closed form (cited by equation) or a published figure, never a number read off this
// code's output; every tolerance says why it is what it is.
//
// Each check prints one line "VALIDATION | id | measured | reference | tolerance | ok" on stdout: tools/validate
// collects them into docs/validation.md's table.
//
// Untagged tests are CI-fast (each well under 20 s on 2 shared cores); "[.][long]" ones are the full-length
// versions, run by hand:  build/tests/validation_test "[long]".
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/io/scenario_loader.h"
#include "engine/simulation.h"
#include "engine/world.h"

#include "tests/cli_support.h"
#include "tests/validation_support.h"

using namespace vcsim;
namespace fs = std::filesystem;

namespace {

constexpr double kPi = 3.14159265358979323846;
using validation::kValidation;

using validation::num;
using validation::report;

// A scenario loaded and built in-process, probed at prescribed poses (displacement control: Boos's rig drives the
// specimen to a position and measures the force, Boos §3.1).
class Probe {
 public:
  explicit Probe(const std::string& scenario, const std::vector<std::string>& overrides = {})
      : built_(build_world(load_scenario(kValidation + scenario, overrides))) {}
  World& world() { return built_.world; }
  int body(const std::string& name) {
    for (size_t i = 0; i < world().bodies.size(); ++i)
      if (world().bodies[i].name == name) return static_cast<int>(i);
    FAIL("no body " << name);
    return -1;
  }
  // Contact result with `body` placed at (position, rotation), at rest.
  contact::ContactResult at(const std::string& name, const Vec3& position, const Quat& rotation) {
    VecX x = built_.initial_state;
    const int off = world().bodies[body(name)].state_offset;
    x.segment<3>(off) = position;
    x[off + 3] = rotation.w();
    x[off + 4] = rotation.x();
    x[off + 5] = rotation.y();
    x[off + 6] = rotation.z();
    x.segment<6>(off + 7).setZero();
    VecX dx(world().state_size());
    std::vector<contact::ContactResult> results;
    world().derivative(0, x, dx, &results);
    return results.at(0);
  }
  // The value of a contact channel (first component) in a result of contact 0.
  double channel(const contact::ContactResult& r, const std::string& name, int component = 0) {
    size_t off = 0;
    for (const auto& ch : world().contacts.at(0).pair->channels()) {
      if (ch.name == name) return r.channels.at(off + component);
      off += ch.width;
    }
    FAIL("no channel " << name);
    return 0;
  }

 private:
  BuiltWorld built_;
};

fs::path temp_dir() { return cli::temp_dir("validation_test"); }

std::string simulate(const std::string& name, const std::string& scenario, const std::vector<std::string>& sets = {}) {
  return validation::simulate(temp_dir(), name, kValidation + scenario, sets);
}

int analyse(const std::string& code) { return validation::analyse(temp_dir(), code); }

// ---- Boos closed forms (Boos eqs 3.11-3.21) ----

// Spherical cap, eq 3.11.
double cap_volume(double R, double d) { return kPi / 3 * d * d * (3 * R - d); }

// Cylindrical wedge: a flat face of radius r tilted by γ whose lowest rim point is δ below the plate. Derived in
// docs/validation.md: V = tanγ ∫_{r−b}^{r} (u − (r − b)) 2√(r² − u²) du with b = δ/sinγ (the depth is measured
// vertically; Boos's b = δ/tanγ differs by 1 − cosγ = 1.6e-5 at 0.32°), i.e.
// V = tanγ r³ [(2/3) sin³φ − φ cosφ + sinφ cos²φ], φ = acos((r − b)/r) — Boos eqs 3.19-3.21 rearranged. b ≤ 2r.
double wedge_volume(double r, double gamma, double d) {
  const double b = d / std::sin(gamma), phi = std::acos((r - b) / r);
  const double s = std::sin(phi), c = std::cos(phi);
  return std::tan(gamma) * r * r * r * (2.0 / 3.0 * s * s * s - phi * c + s * c * c);
}

constexpr double kSphereR = 9.52e-3;  // Boos §3: 316 SS ball, Ø 19.05 mm
constexpr double kCylR = 5e-3, kCylHalfLength = 5e-3;

}  // namespace

// ------------------------------------------------------------------------------------------------------------
// 1. Boos sphere on plates: F(δ) = k_V (π/3) δ² (3R − δ) within 0.5 %.

TEST_CASE("Boos sphere, displacement control: F = k_V (pi/3) d^2 (3R - d)", "[validation][boos]") {
  // δ from the table of displacements derived at Boos's 1, 5, 10, 20 N (docs/sources.md, "Boos 2011"), one
  // plate each; the reference force is the closed form at the probed δ (its value is the table's load to the
  // table's 4 digits). Tolerance 0.5 % (issue 10): the volume enters the force linearly, geometry_tolerance 1e-3
  // bounds V to ~1e-3.
  struct Plate {
    const char* name;
    double k_v;
    std::vector<double> d;  // m
  };
  for (const Plate& p : {Plate{"Al", 7.59e13, {0.664e-6, 1.484e-6, 2.099e-6, 2.968e-6}},
                         Plate{"Mg", 3.82e13, {0.936e-6, 2.092e-6, 2.959e-6, 4.184e-6}}}) {
    Probe probe("boos_sphere.yaml", {"contacts[0].k_v=" + num(p.k_v)});
    const double loads[] = {1, 5, 10, 20};
    for (size_t i = 0; i < p.d.size(); ++i) {
      const double d = p.d[i];
      const auto r = probe.at("ball", Vec3(0, 0, kSphereR - d), Quat::Identity());
      const double ref = p.k_v * cap_volume(kSphereR, d);
      // The table's δ are the published load levels: the closed form reproduces them to the table's rounding.
      CHECK(std::abs(ref - loads[i]) < 2e-3 * loads[i]);
      report(std::string("Boos sphere ") + p.name + " F(δ=" + num(d * 1e6, 4) + " µm), displacement control",
             r.force.z(), ref, 5e-3, "N");
      CHECK(std::abs(r.force.x()) < 1e-9 * ref);
    }
  }
}

TEST_CASE("Boos sphere, load control: vcsim run settles at the closed-form depth", "[validation][boos]") {
  // A constant load pushes the ball in (scenarios/validation/boos_sphere.yaml); at rest F_ext = k_V V(δ). The
  // reference δ(F) is the root of the closed form (bisection in the script); tolerance 0.5 % on the force, i.e.
  // F_ext against k_V V(δ_measured), as the issue states it. 2 loads x 2 plates (~1.5 s each); [long] does 6 loads.
  std::string cases;
  for (auto [plate, k] : {std::pair<const char*, double>{"Al", 7.59e13}, {"Mg", 3.82e13}})
    for (double F : {5.0, 20.0}) {
      const std::string out = simulate(std::string("boos_sphere_") + plate + "_" + num(F), "boos_sphere.yaml",
                                       {"bodies.ball.force=[0,0,-" + num(F) + "]", "contacts[0].k_v=" + num(k)});
      cases += "    ('" + out + "', '" + plate + "', " + num(k) + ", " + num(F) + "),\n";
    }
  REQUIRE(analyse(R"PY(
R = 9.52e-3
for out, plate, k, F in [
)PY" + cases + R"PY(]:
    with h5py.File(out, 'r') as f:
        d = R - f['bodies/ball/position'][-1, 2]
        fn = f['contacts/ball__plate/normal_force'][-1, 0]
    report('Boos sphere %s load %g N: k_V V(δ measured)' % (plate, F), k * np.pi / 3 * d * d * (3 * R - d), F, 5e-3, 'N')
    report('Boos sphere %s load %g N: contact normal_force at rest' % (plate, F), fn, F, 1e-3, 'N')
)PY") == 0);
}

// ------------------------------------------------------------------------------------------------------------
// 2. Boos flat cylinder r = 5 mm, k_V = 8.82e12: perpendicular slope k_V π r²; misaligned 0.32°: k_V V_wedge.

TEST_CASE("Boos flat cylinder perpendicular: F = k_V pi r^2 d", "[validation][boos]") {
  // δ from the 20 N level (28.9 nm, V6 in docs/sources.md) to 10 µm: the force is linear with slope
  // k_V π r² = 6.9272e8 N/m (eq 3.13). Tolerance 0.5 % (issue 10).
  const double k_v = 8.82e12;
  Probe probe("boos_cylinder.yaml");
  for (double d : {28.87e-9, 0.1e-6, 1e-6, 10e-6}) {
    const auto r = probe.at("cylinder", Vec3(0, 0, kCylHalfLength - d), Quat::Identity());
    report("Boos cylinder ⊥ slope F/δ at δ=" + num(d * 1e6, 4) + " µm", r.force.z() / d, k_v * kPi * kCylR * kCylR,
           5e-3, "N/m");
  }
}

TEST_CASE("Boos flat cylinder misaligned 0.32 deg: F = k_V V_wedge(d)", "[validation][boos]") {
  // Boos's fitted misalignment for Al (γ = 0.32°, Boos §3.3.1) at the δ of 1, 5, 10, 20 N (docs/sources.md V6:
  // 0.955, 1.820, 2.404, 3.175 µm) and 20 µm (still partial contact: 2r tanγ = 55.9 µm). Reference k_V V_wedge
  // (closed form above). Tolerance 1 % (issue 10); the crescent-shaped patch is the hardest case of the column
  // lattice (measured volume error ~0.2 % at geometry_tolerance 1e-3).
  const double k_v = 8.82e12, gamma = 0.32 * kPi / 180;
  Probe probe("boos_cylinder.yaml");
  const Quat q(Eigen::AngleAxisd(gamma, Vec3::UnitX()));
  const double touch = kCylR * std::sin(gamma) + kCylHalfLength * std::cos(gamma);  // lowest rim point at z = 0
  const double loads[] = {1, 5, 10, 20, -1};
  const double ds[] = {0.955e-6, 1.820e-6, 2.404e-6, 3.175e-6, 20e-6};
  for (int i = 0; i < 5; ++i) {
    const auto r = probe.at("cylinder", Vec3(0, 0, touch - ds[i]), q);
    const double ref = k_v * wedge_volume(kCylR, gamma, ds[i]);
    if (loads[i] > 0) CHECK(std::abs(ref - loads[i]) < 2e-3 * loads[i]);  // the published δ(F) levels
    report("Boos cylinder 0.32° wedge F(δ=" + num(ds[i] * 1e6, 4) + " µm)", r.force.norm(), ref, 1e-2, "N");
  }
}

// ------------------------------------------------------------------------------------------------------------
// 3. Xie & Chakraborty S1: unit cube sliding on its face (scenarios/validation/xie_s1_box_sliding.yaml).

TEST_CASE("Xie-Chakraborty S1: box sliding with surface contact", "[validation][xie]") {
  // Closed forms (docs/sources.md, S1): a = μ g = 1.176 m/s², s(4) = 5·4 − 0.588·16 = 10.592 m,
  // stop at 5/1.176 = 4.2517 s, rest at 5²/(2·1.176) = 10.6293 m, CoP ahead of the CM by μ h_cm = 0.060 m, path
  // on y = 0.75 x. Tolerances: ±1 % on a, s(4) and the stop (issue 10); CoP ±1 mm (moment balance is exact; the
  // 0.1 mm sink lowers h_cm by 1e-4 m, 0.2 % of the lead) and cross-track ≤ 2 mm (XC-S1-5); straightness 1 mm
  // (XC-S1-1); Σ N = m g ± 0.5 % (XC-S1-6); rest distance ±0.05 m (XC-S1-4). The whole 4.5 s run (9000 steps).
  const std::string out = simulate("xie_s1", "xie_s1_box_sliding.yaml");
  REQUIRE(analyse(R"PY(
with h5py.File(')PY" + out + R"PY(', 'r') as f:
    t = f['time'][:]; x = f['bodies/cube/position'][:]; v = f['bodies/cube/velocity'][:]
    g = f['contacts/cube__ground']; cop = g['center_of_pressure'][:]; N = g['normal_force'][:, 0]
    dim = g['contact_dimension'][:, 0]
sp = np.hypot(v[:, 0], v[:, 1]); u = np.array([0.8, 0.6])
sl = (t > 0.05) & (sp > 0.05)                       # sliding, after the onset transient
slope, icpt = np.polyfit(t[sl], sp[sl], 1)
report('Xie S1 deceleration', -slope, 1.176, 1e-2, 'm/s²')
i4 = np.argmin(abs(t - 4.0))
report('Xie S1 distance at 4 s', np.hypot(*x[i4, :2]), 10.592, 1e-2, 'm')
report('Xie S1 stop time (root of the sliding speed line)', -icpt / slope, 5 / 1.176, 1e-2, 's')
report('Xie S1 rest distance', np.hypot(*x[-1, :2]), 25 / (2 * 1.176), None, 'm', abs_tol=0.05)
report('Xie S1 speed at rest (4.5 s)', sp[-1], 0, None, 'm/s', abs_tol=1e-3)
d = cop[:, :2] - x[:, :2]
report('Xie S1 CoP lead ahead of the CM (mean while sliding)', np.mean(d[sl] @ u), 0.060, None, 'm', abs_tol=1e-3)
report('Xie S1 CoP cross-track (max while sliding)', np.max(abs(d[sl, 0] * 0.6 - d[sl, 1] * 0.8)), 0, None, 'm', abs_tol=2e-3)
report('Xie S1 path straightness (max distance from y = 0.75 x)', np.max(abs(x[:, 1] * 0.8 - x[:, 0] * 0.6)), 0, None, 'm', abs_tol=1e-3)
report('Xie S1 normal force (mean while sliding)', np.mean(N[sl]), 9.8, 5e-3, 'N')
report('Xie S1 contact dimension while sliding (2 = surface)', np.min(dim[sl]), 2, None, '', abs_tol=0)
)PY") == 0);
}

// ------------------------------------------------------------------------------------------------------------
// Xie & Chakraborty S3: cube vertex -> edge -> face, then sliding (scenarios/validation/xie_s3_cube_tipping.yaml).

TEST_CASE("Xie-Chakraborty S3: cube corner -> edge -> face, then sliding", "[validation][xie]") {
  // Stepped in-process (RK4 + accept_step + the scenario's scripted impulses, as engine/simulation.cpp does).
  // The scenario carries the paper's two impulses (docs/sources.md, "Xie & Chakraborty"); checked below to be
  // the velocity jumps Δv = (√2/2, −√2/2, 0) m/s, Δω = I⁻¹ (0.5, 0.5, 0) = (3, 3, 0) rad/s at t = 1.0 s, then
  // Δv = (10, −10, 0) m/s at 1.8 s.
  // References: modes in the order vertex (0), edge (1), face (2) with the edge reached before 1.0 s and the face
  // before 1.8 s (XC-S3-2); rest heights √2/2 − h_edge and 0.5 − h_face with the closed-form sinks
  // h_edge = √(m g/k_v) (right-angle edge: V = h² per metre), h_face = m g/(k_v A), ±1 mm (issue 10); sliding
  // deceleration μ g = 1.96 m/s² ± 2 % (issue 10), heading along (1, −1)/√2 within 0.1° (XC-S3-4).
  const Scenario sc = load_scenario(kValidation + "xie_s3_cube_tipping.yaml");
  BuiltWorld bw = build_world(sc);
  World& w = bw.world;
  VecX x = bw.initial_state;
  // The file runs dopri5; stepping by hand here needs a fixed step: RK4 at 1e-4 s (ω h = 0.1 for the face mode).
  integ::Stepper stepper(integ::Method::RK4, w.state_size());
  const integ::OdeSystem sys = w.ode_system();
  int cube = -1;
  for (size_t i = 0; i < w.bodies.size(); ++i)
    if (w.bodies[i].name == "cube") cube = static_cast<int>(i);
  const int off = w.bodies[cube].state_offset;
  size_t dim_off = 0;
  for (const auto& ch : w.contacts[0].pair->channels()) {
    if (ch.name == "contact_dimension") break;
    dim_off += ch.width;
  }
  const double h = 1e-4, m = 1, g = 9.8, k_v = 1e7, mu = 0.2;
  const long n = std::lround(sc.duration / h), every = std::lround(0.01 / h);
  std::vector<double> ts, zs, dims, vx, vy;
  VecX dx(w.state_size());
  std::vector<contact::ContactResult> res;
  ImpulseScript script(sc, w);
  script.start(x);
  REQUIRE(sc.impulses.size() == 2);
  for (long k = 0; k <= n; ++k) {
    const double t = k * h;
    if (k == std::lround(1.0 / h) || k == std::lround(1.8 / h)) {
      // The impulse the scenario applied after the step that ended here is the paper's Δv, Δω (1e-9: round-off of
      // the printed √2/2 and of I⁻¹ = 6 / kg m²; the cube's inertia is isotropic, so body and world I agree).
      const bool first_kick = k == std::lround(1.0 / h);
      const Vec3 dv_ref = first_kick ? Vec3(std::sqrt(0.5), -std::sqrt(0.5), 0) : Vec3(10, -10, 0);
      const Vec3 dw_ref = first_kick ? Vec3(3, 3, 0) : Vec3::Zero();
      const auto& tally = script.tallies()[first_kick ? 0 : 1];
      CHECK(tally.count == 1);
      CHECK(std::abs(tally.last_time - t) < 1e-9);
      CHECK((tally.linear / m - dv_ref).norm() < 1e-9);
      CHECK((w.bodies[cube].inertia_body_inverse * tally.angular - dw_ref).norm() < 1e-9);
    }
    if (k % every == 0) {
      w.derivative(t, x, dx, &res);
      ts.push_back(t);
      zs.push_back(x[off + 2]);
      dims.push_back(res[0].channels.at(dim_off));
      vx.push_back(x[off + 7]);
      vy.push_back(x[off + 8]);
    }
    if (k == n) break;
    stepper.step(sys, t, h, x);
    REQUIRE(x.allFinite());
    w.accept_step((k + 1) * h, x);
    script.apply((k + 1) * h, h, x);
  }
  CHECK(script.tallies()[0].count == 1);  // time triggers fire once
  CHECK(script.tallies()[1].count == 1);
  auto first = [&](double d) {
    for (size_t i = 1; i < ts.size(); ++i)  // from 0.01 s: at t = 0 the vertex only touches (V ~ 1e-48)
      if (dims[i] == d) return ts[i];
    return 1e9;
  };
  std::string seq;
  for (size_t i = 1; i < ts.size(); ++i) {
    const char c = dims[i] < 0 ? '-' : char('0' + int(dims[i]));
    if (seq.empty() || seq.back() != c) seq += c;
  }
  std::printf("S3 mode sequence (0 vertex, 1 edge, 2 face, - none): %s; first vertex %.2f s, edge %.2f s, face %.2f s\n",
              seq.c_str(), first(0), first(1), first(2));
  const bool order = first(0) < first(1) && first(1) < first(2) && first(1) < 1.0 && first(2) < 1.8;
  std::printf("VALIDATION | Xie S3 mode order vertex -> edge -> face | %s (edge %.2f s, face %.2f s) | 0 -> 1 -> 2, edge < 1.0 s, face < 1.8 s | order | %s\n",
              seq.c_str(), first(1), first(2), order ? "ok" : "FAIL");
  CHECK(order);
  auto mean_between = [&](const std::vector<double>& v, double a, double b) {
    double s = 0;
    int c = 0;
    for (size_t i = 0; i < ts.size(); ++i)
      if (ts[i] >= a && ts[i] <= b) s += v[i], ++c;
    return s / c;
  };
  const double edge_ref = std::sqrt(0.5) - std::sqrt(m * g / k_v), face_ref = 0.5 - m * g / k_v;
  report("Xie S3 rest height on the edge (0.8-1.0 s)", mean_between(zs, 0.8, 1.0), edge_ref, 1e-3 / edge_ref, "m");
  report("Xie S3 rest height on a face (1.6-1.8 s)", mean_between(zs, 1.6, 1.8), face_ref, 1e-3 / face_ref, "m");
  // Deceleration: least-squares slope of the speed while sliding after the second impulse (1.9 s to the end).
  double st = 0, ss = 0, stt = 0, sts = 0;
  int c = 0;
  double max_heading = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i] < 1.9) continue;
    const double sp = std::hypot(vx[i], vy[i]);
    st += ts[i], ss += sp, stt += ts[i] * ts[i], sts += ts[i] * sp, ++c;
    max_heading = std::max(max_heading, std::abs(std::atan2(vy[i], vx[i]) + kPi / 4) * 180 / kPi);
  }
  const double slope = (c * sts - st * ss) / (c * stt - st * st);
  report("Xie S3 sliding deceleration after 1.8 s", -slope, mu * g, 2e-2, "m/s²");
  std::printf("VALIDATION | Xie S3 heading while sliding (max deviation from (1, -1)) | %.3g ° | 0 ° | ±0.1 ° | %s\n",
              max_heading, max_heading <= 0.1 ? "ok" : "FAIL");
  CHECK(max_heading <= 0.1);
}

// ------------------------------------------------------------------------------------------------------------
// 5. Sandia point law (LaFarge & Lewis 1998): F = k δ^n + λ δ^n δ̇, λ = 1.5 α k, exact restitution.

namespace {
// The exact Hunt-Crossley rebound speed (docs/sources.md, "LaFarge & Lewis"): with χ = λ/k = 1.5 α, integrating
// m v dv = −k x^n (1 + χ v) dx over the closed contact gives ln[(1 + χ v_in)/(1 − χ v_out)] = χ (v_in + v_out),
// independent of n and of k/m. Solved for v_out in (0, v_in) by bisection.
double hunt_crossley_rebound(double chi, double v_in) {
  auto g = [&](double vo) { return std::log((1 + chi * v_in) / (1 - chi * vo)) - chi * (v_in + vo); };
  // g(0) = ln(1 + χ v_in) − χ v_in < 0 and g(v_in) = 2 atanh(χ v_in) − 2 χ v_in > 0: one root in between.
  double lo = 0, hi = v_in;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
}  // namespace

TEST_CASE("Sandia point law: restitution follows the exact Hunt-Crossley relation", "[validation][sandia]") {
  // A 1 kg sphere hits a half-space at v_i = 1 m/s without gravity or friction (point model, alpha set, tau_r = 0),
  // for n = 1 (Sandia's polyhedra) and n = 1.5, α v_i = 0.1, 0.3, 0.5. Reference: the exact relation above, and
  // its tabulated values e = 0.90902, 0.76800, 0.66296 (docs/sources.md), not 1 − α v_i.
  // k = 1e5 N/m^n: contact ≈ π √(m/k) = 9.9 ms (n = 1); RK4 at h = 1e-5 s resolves it with ~1000 steps, so the
  // integration error is far below the 1e-3 tolerance (the reference's own RK4 check agreed to 5 digits).
  const double table[] = {0.90902, 0.76800, 0.66296};
  int row = 0;
  for (double av : {0.1, 0.3, 0.5}) {
    const double e_exact = hunt_crossley_rebound(1.5 * av, 1.0);
    CHECK(std::abs(e_exact - table[row]) < 1e-5);  // our root against the reference table
    for (double n : {1.0, 1.5}) {
      const std::string yaml = R"(
simulation: {duration: 0.04, step: 1.0e-5, integrator: rk4}
gravity: [0, 0, 0]
bodies:
  ground: {fixed: true, geometry: {halfspace: {}}}
  ball:
    mass: 1.0
    inertia: [0.004, 0.004, 0.004]
    position: [0, 0, 0.1001]
    velocity: [0, 0, -1.0]
    geometry: {sphere: {radius: 0.1}}
contacts:
  - bodies: [ball, ground]
    model: point
    k: 1.0e5
    n: )" + num(n) + R"(
    alpha: )" + num(av) + R"(
    tau_r: 0.0
    mu_s: 0.0
    mu_c: 0.0
    sigma0: 1.0e4
    sigma1: 100.0
)";
      const Scenario sc = load_scenario_text(yaml, "sandia.yaml");
      BuiltWorld bw = build_world(sc);
      World& w = bw.world;
      VecX x = bw.initial_state;
      integ::Stepper stepper(*integ::method_from_name(sc.integrator), w.state_size());
      const integ::OdeSystem sys = w.ode_system();
      const int off = w.bodies[1].name == "ball" ? w.bodies[1].state_offset : w.bodies[0].state_offset;
      const long steps = std::lround(sc.duration / sc.step);
      for (long k = 0; k < steps; ++k) {
        stepper.step(sys, k * sc.step, sc.step, x);
        w.accept_step((k + 1) * sc.step, x);
      }
      REQUIRE(x[off + 2] > 0.1);  // separated again
      report("Sandia restitution α v_i = " + num(av, 2) + ", n = " + num(n, 2), x[off + 9], e_exact, 1e-3, "m/s");
    }
    ++row;
  }
}
