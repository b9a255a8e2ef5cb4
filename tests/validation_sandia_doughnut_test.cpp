// Sandia's doughnut on a cone (LaFarge & Lewis 1998, Rock-N-Stack; docs/sources.md, "LaFarge & Lewis" and
// benchmark B8): torus R = 0.05 m, tube r = 0.015 m on a fixed cone of half-angle 10°, no friction
// (scenarios/validation/sandia_doughnut_cone*.yaml). The claim checked: the volumetric model's resting state does not
// depend on its resolution (geometry_tolerance), while a per-vertex spring model's (model point_vertices on a torus
// mesh) does: its sink and its number of springs change with the tessellation.
//
// References (closed forms, derived here; docs/validation.md "Sandia doughnut on a cone"):
//  * Torus and cone are bodies of revolution about one axis, so their intersection is too: its meridional section is
//    the tube disk (radius r, centre (R, z_c)) cut by the cone line r = (z_a − z) tan a at distance r − d from the
//    centre; V = 2π x̄ A (Pappus) with A = r² α − (r − d) r sin α (cos α = (r − d)/r) the circular segment and
//    x̄ = R − cos a · 4 r sin³α / (3 (2α − sin 2α)) its centroid's radius. By symmetry the volumetric force is
//    vertical, k_v V. Rest: k_v V(d) = m g, z_c = z_a − (R cos a − r + d)/sin a.
//  * Per-vertex springs (n = 1) on a torus mesh of N_u × N_v vertices (x = ((R + r cos θ) cos φ, ..., r sin θ)):
//    a vertex at (ρ_v, z_v) is inside the cone by −s, s = ρ_v cos a − (z_a − z_v) sin a, and pushed along the cone
//    normal (cos a, sin a): rest where N_u k sin a Σ_θ max(0, −s_θ) = m g (bisection below, independent of vcsim).
//
// Each check prints "VALIDATION | id | measured | reference | tolerance | ok" (tools/validate's table).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/io/scenario_loader.h"
#include "engine/simulation.h"
#include "engine/world.h"

#include "tests/cli_support.h"
#include "closed_forms/doughnut_on_cone.h"
#include "tests/validation_support.h"

using namespace vcsim;
namespace fs = std::filesystem;

namespace {

using validation::kValidation;
using namespace doughnut;  // the scenario's numbers and the Pappus closed form
constexpr double kMass = 0.22206609902451058, kG = 9.8;

using validation::num;
using validation::report;


// Rest depth of the volumetric model: k_v V(d) = m g (bisection; V increases with d).
double volumetric_rest_depth(double k_v) {
  double lo = 0, hi = kr;
  for (int i = 0; i < 200; ++i) ((k_v * ring_volume(0.5 * (lo + hi)) < kMass * kG) ? lo : hi) = 0.5 * (lo + hi);
  return 0.5 * (lo + hi);
}

// Rest height of the torus centre under per-vertex springs k (n = 1) on an nu x nv mesh, and the springs in contact.
double vertex_rest_height(int nu, int nv, double k, int* springs = nullptr) {
  auto depth_sum = [&](double zc, int* count) {
    double s = 0;
    for (int j = 0; j < nv; ++j) {
      const double t = 2 * kPi * j / nv;
      const double rho = kR + kr * std::cos(t), z = zc + kr * std::sin(t);
      const double sd = rho * std::cos(kHalfAngle) - (kApex - z) * std::sin(kHalfAngle);
      if (sd < 0) s -= sd, count && (*count += nu);
    }
    return s;
  };
  double lo = 0.08, hi = 0.11;  // deep (force > weight) .. above contact
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (nu * k * std::sin(kHalfAngle) * depth_sum(mid, nullptr) > kMass * kG ? lo : hi) = mid;
  }
  if (springs) *springs = 0, depth_sum(0.5 * (lo + hi), springs);
  return 0.5 * (lo + hi);
}

// A closed torus mesh, nu segments around the axis and nv around the tube, vertices on the true torus.
void write_torus_obj(const fs::path& path, int nu, int nv) {
  std::ofstream f(path);
  f.precision(17);
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j) {
      const double p = 2 * kPi * i / nu, t = 2 * kPi * j / nv;
      f << "v " << (kR + kr * std::cos(t)) * std::cos(p) << ' ' << (kR + kr * std::cos(t)) * std::sin(p) << ' '
        << kr * std::sin(t) << '\n';
    }
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j) {
      const int a = i * nv + j + 1, b = ((i + 1) % nu) * nv + j + 1, c = ((i + 1) % nu) * nv + (j + 1) % nv + 1,
                d = i * nv + (j + 1) % nv + 1;
      f << "f " << a << ' ' << b << ' ' << c << "\nf " << a << ' ' << c << ' ' << d << '\n';
    }
}

fs::path temp_dir() { return cli::temp_dir("validation_sandia_doughnut_test"); }

// The contact result of contact 0 with the doughnut at rest at height z on the axis.
contact::ContactResult probe(const std::string& scenario, const std::vector<std::string>& sets, double z) {
  BuiltWorld built = build_world(load_scenario(kValidation + scenario, sets));
  World& w = built.world;
  int body = -1;
  for (size_t i = 0; i < w.bodies.size(); ++i)
    if (w.bodies[i].name == "doughnut") body = static_cast<int>(i);
  REQUIRE(body >= 0);
  VecX x = built.initial_state;
  const int off = w.bodies[body].state_offset;
  x.segment<3>(off) = Vec3(0, 0, z);
  x.segment<6>(off + 7).setZero();
  VecX dx(w.state_size());
  std::vector<contact::ContactResult> results;
  w.derivative(0, x, dx, &results);
  return results.at(0);
}

}  // namespace

TEST_CASE("Sandia doughnut: the closed forms are consistent", "[validation][sandia][doughnut]") {
  // Pappus volume against a direct numerical integral of the meridional segment (midpoint rule, 2e5 strips):
  // V = ∫ 2π ρ dA over the part of the tube disk beyond the cone line.
  const double d = 2e-4;
  const double a = kHalfAngle, zc = centre_height(d);
  const Vec3 nrm(std::cos(a), std::sin(a), 0);  // (ρ, z) cone normal, outward
  double v = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {  // strips across the segment, along the line's direction
    const double u = -kr + (i + 0.5) * 2 * kr / n;  // offset along the line
    const double half = std::sqrt(std::max(0.0, kr * kr - u * u));
    const double lo = kr - d;  // segment: distance beyond (r − d) from the centre, inward
    if (half <= lo) continue;
    // points c + s (−n) + u t, s in [lo, half]; ρ = R − s cos a + u sin a... t = (−sin a, cos a)
    const double s_mid = 0.5 * (lo + half), len = half - lo;
    const double rho = kR - s_mid * nrm.x() - u * std::sin(a);
    v += 2 * kPi * rho * len * (2 * kr / n);
  }
  (void)zc;
  CHECK(std::abs(v - ring_volume(d)) < 1e-6 * ring_volume(d));
  // The mesh rest height converges to the smooth one as the mesh refines (n = 1 springs, same k).
  CHECK(vertex_rest_height(400, 200, 1e4) < centre_height(0));
  CHECK(centre_height(0) - vertex_rest_height(400, 200, 1e4) < 1e-4);
}

// The vertical force of the volumetric model at the closed-form rest pose (k_v V = m g), at geometry tolerance tol.
double volumetric_force_at_rest(const char* tol, double* lateral = nullptr) {
  const double k_v = 1e9, z = centre_height(volumetric_rest_depth(k_v));
  const auto r = probe("sandia_doughnut_cone.yaml", {std::string("simulation.geometry_tolerance=") + tol}, z);
  if (lateral) *lateral = std::hypot(r.force.x(), r.force.y());
  return r.force.z();
}

TEST_CASE("Sandia doughnut, volumetric: the resting force converges as the tolerance tightens",
          "[validation][sandia][doughnut]") {
  // The force at the closed-form rest pose approaches m g as geometry_tolerance tightens. The contact band's
  // projection along the normal z is an annulus only ~0.2 mm wide at radius 35 mm; the fine lattice is spaced from
  // the band's measured width (docs/geometry.md, "Thin patches"). Measured 2026-11-23: −0.18 %, −0.079 %, −0.017 %,
  // −0.003 % at 1e-2, 3e-3, 1e-3, 3e-4 (before the width rule, sized from sqrt(area): −67 %, −23 %, −6.4 %, −1.2 %).
  // Checked: the error shrinks at every step, and is within the tolerance itself at 3e-4 (the engine's promise).
  // Since 2026-11-26 the pair takes the tube mode (docs/geometry.md), whose error is already ~1e-9 at 1e-2: a step
  // that cannot shrink further (both below 1e-8) passes.
  const double weight = kMass * kG;
  double prev_err = 1e300;
  for (const char* tol : {"1e-2", "3e-3", "1e-3", "3e-4"}) {
    double lateral = 0;
    const double f = volumetric_force_at_rest(tol, &lateral);
    const double err = std::abs(f - weight) / weight;
    std::printf("VALIDATION | Sandia doughnut volumetric: vertical force at the closed-form rest pose, tolerance %s | "
                "%.6g N | %.6g N | ±0.5 %% | %s (error %.2e)\n", tol, f, weight, err <= 5e-3 ? "ok" : "FAIL", err);
    CHECK((err < prev_err || (err < 1e-8 && prev_err < 1e-8)));
    CHECK(lateral < 1e-3 * weight);  // x, y vanish by symmetry (the lattice is not exactly axisymmetric)
    prev_err = err;
  }
  CHECK(prev_err < 3e-4);
}

TEST_CASE("Sandia doughnut, volumetric: resting force = weight +- 0.5 % at several tolerances (issue 10)",
          "[validation][sandia][doughnut]") {
  // The issue's acceptance (B8 in docs/sources.md): the resting force does not depend on the resolution.
  // Measured 2026-11-23: 2.17243, 2.17454, 2.17587 N at 1e-2, 3e-3, 1e-3 (m g = 2.17625 N; −0.18 % at worst; the
  // same ring moved and turned about its axis gives −0.34 % at 1e-2, tests/geometry_thin_ring_test.cpp).
  // Before the width rule of the fine spacing this failed at every tolerance (−67 % at 1e-2), and at 1e-4 the
  // query collapsed (0.095 N: the lattice limit, 2^20 squares over the ring's bounding box).
  for (const char* tol : {"1e-2", "3e-3", "1e-3"})
    CHECK(std::abs(volumetric_force_at_rest(tol) - kMass * kG) <= 5e-3 * kMass * kG);
}

TEST_CASE("Sandia doughnut, per-vertex springs: the resting state depends on the mesh",
          "[validation][sandia][doughnut]") {
  // Static probe at each mesh's closed-form rest height: the summed vertex forces carry the weight (0.1 %: the
  // normal is a central difference of the exact cone distance, O(h²) = 1e-12), and the number of springs and the
  // rest height change with the resolution, unlike the volumetric model's.
  const fs::path dir = temp_dir();
  const double k = 1e4, weight = kMass * kG;
  double prev = 0;
  for (int nu : {24, 48, 96}) {
    const int nv = nu / 2;
    const fs::path mesh = dir / ("torus_" + std::to_string(nu) + ".obj");
    write_torus_obj(mesh, nu, nv);
    int springs = 0;
    const double z = vertex_rest_height(nu, nv, k, &springs);
    const auto r = probe("sandia_doughnut_cone_point_vertices.yaml",
                         {"bodies.doughnut.geometry.mesh.file=" + mesh.string()}, z);
    const std::string m = std::to_string(nu) + "x" + std::to_string(nv);
    report("Sandia doughnut per-vertex " + m + ": vertical force at its rest height " + num(z, 6) + " m", r.force.z(),
           weight, 1e-3, true, "N");
    CHECK(r.channels.size() > 0);
    std::printf("Sandia doughnut per-vertex %s: rest height %.7f m (sink %.3f mm below the rigid 0.1028175 m), %d "
                "springs\n", m.c_str(), z, 1e3 * (centre_height(0) - z), springs);
    CHECK(z > prev);  // finer mesh, more springs, less sink
    prev = z;
  }
}

TEST_CASE("Sandia doughnut, per-vertex springs: dropped, it settles at its mesh's rest height",
          "[validation][sandia][doughnut]") {
  // 24 x 12 mesh, dropped from 0.13 m, 2 s (settled by ~1.5 s: Sandia damping alpha = 5 s/m). References: the
  // closed-form rest height (± 2 µm: the ring's vertical mode is still decaying at 2 s, amplitude < 1 µm), the
  // weight (± 0.5 %), no spin about the axis (a smooth cone's normals are meridional: zero torque about z).
  const fs::path dir = temp_dir();
  write_torus_obj(dir / "torus_24.obj", 24, 12);
  const std::string out = (dir / "drop24.h5").string();
  const cli::Run r = cli::run("run " + kValidation + "sandia_doughnut_cone_point_vertices.yaml -q -o " + out +
                              " --set bodies.doughnut.geometry.mesh.file=" + (dir / "torus_24.obj").string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  int springs = 0;
  const double z_ref = vertex_rest_height(24, 12, 1e4, &springs);
  const std::string code = R"PY(
import h5py, numpy as np, sys
f = h5py.File(')PY" + out + R"PY(', 'r'); c = f['contacts/doughnut__cone']
print('%.9g %.9g %.9g %d %.3g' % (f['bodies/doughnut/position'][-1, 2], c['force'][-1, 2],
      np.abs(f['bodies/doughnut/angular_velocity'][:, 2]).max(), int(c['active_pairs'][-1, 0]),
      np.abs(f['bodies/doughnut/position'][:, :2]).max()))
)PY";
  const fs::path script = dir / "drop24.py";
  std::ofstream(script) << code;
  const cli::Run py = cli::run_command(cli::kPython + " " + script.string());
  REQUIRE(py.status == 0);
  std::istringstream in(py.output);
  double z = 0, fz = 0, wz = 0, xy = 0;
  int active = 0;
  in >> z >> fz >> wz >> active >> xy;
  report("Sandia doughnut per-vertex 24x12 dropped: rest height", z, z_ref, 2e-6, false, "m");
  report("Sandia doughnut per-vertex 24x12 dropped: vertical force at 2 s", fz, kMass * kG, 5e-3, true, "N");
  report("Sandia doughnut per-vertex 24x12 dropped: springs in contact at rest", active, springs, 0, false, "");
  report("Sandia doughnut per-vertex 24x12 dropped: max abs(spin about the axis)", wz, 0, 1e-6, false, "rad/s");
  CHECK(xy < 1e-6);  // stays on the axis
}

TEST_CASE("Sandia doughnut, volumetric: dropped, it lands on time and settles at Pappus's rest height",
          "[validation][sandia][doughnut]") {
  // The scenario itself (torus sweep, geometry/torus_sweep.h: ~0.13 ms a query), 0.5 s. References:
  //  * first contact when the free fall reaches the rigid contact height: t = √(2 (0.13 − z_rigid) / g), to one
  //    output interval (0.5 ms);
  //  * rest: k_v V(d) = m g with V by Pappus, z = centre_height(d) (± 10 nm: the vertical mode, ω = 460 rad/s, has
  //    decayed by 0.5 s under e_eff = 0.5), and the vertical force = m g (± 1e-4);
  //  * symmetry: the ring stays on the axis (± 1 nm). A coupled tilt-and-slide mode of the frictionless ring grows
  //    from round-off at 39 /s, the same at tolerance 1e-3 and 1e-6 and at steps of 1e-4 and 5e-5 s (so neither the
  //    quadrature nor the step): by 1 s it reaches 0.1 mm (docs/validation.md). It stays below 1e-12 m here.
  const fs::path dir = temp_dir();
  const std::string out = (dir / "drop_volumetric.h5").string();
  const cli::Run r = cli::run("run " + kValidation + "sandia_doughnut_cone.yaml -q -o " + out +
                              " --set simulation.duration=0.5 --set output.interval=0.0005");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string code = R"PY(
import h5py, numpy as np
f = h5py.File(')PY" + out + R"PY(', 'r'); c = f['contacts/doughnut__cone']
t = f['time'][:]; inside = c['in_contact'][:].reshape(len(t), -1).any(axis=1)
print('%.9g %.12g %.9g %.9g %.3g' % (t[np.argmax(inside)], f['bodies/doughnut/position'][-1, 2], c['force'][-1, 2],
      f['bodies/doughnut/velocity'][-1, 2], np.abs(f['bodies/doughnut/position'][:, :2]).max()))
)PY";
  const fs::path script = dir / "drop_volumetric.py";
  std::ofstream(script) << code;
  const cli::Run py = cli::run_command(cli::kPython + " " + script.string());
  INFO(py.output);
  REQUIRE(py.status == 0);
  std::istringstream in(py.output);
  double t_contact = 0, z = 0, fz = 0, vz = 0, xy = 0;
  in >> t_contact >> z >> fz >> vz >> xy;
  const double t_ref = std::sqrt(2 * (0.13 - centre_height(0)) / kG);
  report("Sandia doughnut volumetric dropped: first contact (first sample in contact)", t_contact, t_ref + 0.00025,
         0.00025, false, "s");
  report("Sandia doughnut volumetric dropped: rest height at 0.5 s", z, centre_height(volumetric_rest_depth(1e9)), 1e-8,
         false, "m");
  report("Sandia doughnut volumetric dropped: vertical force at 0.5 s", fz, kMass * kG, 1e-4, true, "N");
  report("Sandia doughnut volumetric dropped: vertical speed at 0.5 s", vz, 0, 1e-6, false, "m/s");
  CHECK(xy < 1e-9);
}
