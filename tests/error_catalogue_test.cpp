// Error catalogue (issue 8, "Clear errors"): malformed scenarios run through the vcsim binary exactly as
// a user runs them. Each must exit with status 2, print ONE line that is exactly
//   FILE:LINE:COLUMN: error: KEY.PATH: expected ...; got ...
// (or "FILE: --set TEXT: error: ..." for a bad override), and leave no output file behind.
//
// Every expected line and column below was counted by hand in the inline YAML (1-based; the column
// is where the offending value or key starts). Cases are listed in docs/reliability.md.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "contact/parameters.h"
#include "tests/cli_support.h"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() { return cli::temp_dir("error_catalogue"); }

// The valid base scenario every case edits. Lines:
//  1 simulation:            8     geometry:             15     model: point
//  2   duration: 1.0         9       sphere: {radius: 0.1} 16     k: 1.0e6
//  3   step: 0.001          10   table:                 17     e_eff: 0.5
//  4 bodies:                11     fixed: true          18     mu_s: 0.3
//  5   ball:                12     geometry: {halfspace: {}}  19 mu_c: 0.2
//  6     mass: 2.0          13 contacts:                20     sigma0: 1.0e5
//  7     inertia: [0.008, 0.008, 0.008]   14   - bodies: [ball, table]   21 sigma1: 316
const std::string kBase = R"(simulation:
  duration: 1.0
  step: 0.001
bodies:
  ball:
    mass: 2.0
    inertia: [0.008, 0.008, 0.008]
    geometry:
      sphere: {radius: 0.1}
  table:
    fixed: true
    geometry: {halfspace: {}}
contacts:
  - bodies: [ball, table]
    model: point
    k: 1.0e6
    e_eff: 0.5
    mu_s: 0.3
    mu_c: 0.2
    sigma0: 1.0e5
    sigma1: 316
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// A tetrahedron with its fourth face missing: three edges are used by one triangle only.
const std::string kOpenTetrahedron = "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n";

struct Case {
  std::string name;                         // the scenario file is <name>.yaml in the temp directory
  std::string yaml;
  std::string expected;  // the whole message; "@" stands for the scenario file's path, "%" for its directory
  std::vector<std::string> overrides = {};  // --set arguments
};

std::string quote(const std::string& s) { return "'" + s + "'"; }

std::vector<Case> catalogue() {
  const std::string B = kBase;
  const std::string body_keys =
      "mass, inertia, density, center_of_mass, position, orientation, velocity, angular_velocity, fixed, force, "
      "torque, geometry, material, motion";
  std::string point_params;  // the point model's parameter table, in its order (contact/parameters.cpp)
  for (const auto& p : vcsim::contact::model_parameters("point")) point_params += (point_params.empty() ? "" : ", ") + p.name;
  // A volumetric contact between the ball and the half-space (lines 15.. replaced).
  const std::string impulse = "impulses:\n  - body: ball\n    at: 0.5\n    linear: [0, 0, 1]\n";  // valid
  const std::string volumetric = replace(B, "    model: point\n    k: 1.0e6\n", "    model: volumetric\n    k_v: -1.0e7\n");
  return {
      // ---- YAML syntax ----
      {"syntax_indent", "a: 1\n  b: 2\n", "@:2:4: error: expected valid YAML; got a syntax error: illegal map value"},
      {"syntax_flow", replace(B, "[0.008, 0.008, 0.008]", "[0.008, 0.008, 0.008"),
       "@:8:13: error: expected valid YAML; got a syntax error: end of sequence flow not found"},
      {"syntax_tab", replace(B, "    mass: 2.0", "\tmass: 2.0"),
       "@:6:2: error: expected valid YAML; got a syntax error: end of map not found (line 6 is indented with a tab; YAML allows only spaces)"},
      {"empty_document", "# nothing here\n",
       "@:1:1: error: expected a map of scenario sections (simulation, bodies, ...); got an empty document"},
      {"top_level_list", "- simulation\n- bodies\n",
       "@:1:1: error: expected a map of scenario sections (simulation, bodies, ...); got a list of 2 items"},
      // ---- unknown keys and duplicates ----
      {"unknown_key", replace(B, "    mass: 2.0", "    masss: 2.0"),
       "@:6:5: error: bodies.ball.masss: expected a key of a body (" + body_keys +
           "); got unknown key 'masss'; did you mean 'mass'?"},
      {"unknown_section", replace(B, "simulation:", "simulaton:"),
       "@:1:1: error: simulaton: expected a key of the scenario (name, description, simulation, gravity, output, bodies, contacts, materials, material_pairs, impulses, loads); got unknown key 'simulaton'; did you mean 'simulation'?"},
      {"duplicate_key", replace(B, "  step: 0.001\n", "  step: 0.001\n  step: 0.002\n"),
       "@:4:3: error: simulation.step: expected each key once; got a second 'step'"},
      {"duplicate_body", replace(B, "  table:\n    fixed: true\n    geometry: {halfspace: {}}\n",
                                 "  table:\n    fixed: true\n    geometry: {halfspace: {}}\n  ball:\n    fixed: true\n"),
       "@:13:3: error: bodies.ball: expected unique body names; got 'ball' again (first defined at line 5)"},
      {"unknown_contact_parameter", replace(B, "    k: 1.0e6\n", "    kk: 1.0e6\n"),
       "@:16:5: error: contacts[0].kk: expected bodies, model or a parameter of the 'point' model (" + point_params +
           "); got unknown key 'kk'; did you mean 'k'?"},
      // ---- wrong types ----
      {"type_word_for_number", replace(B, "mass: 2.0", "mass: heavy"),
       "@:6:11: error: bodies.ball.mass: expected a mass in kg > 0; got 'heavy'"},
      {"type_quoted_number", replace(B, "step: 0.001", "step: \"0.001\""),
       "@:3:9: error: simulation.step: expected a time step in s > 0; got the quoted string \"0.001\""},
      {"type_yes_for_bool", replace(B, "fixed: true", "fixed: yes"),
       "@:11:12: error: bodies.table.fixed: expected true or false; got 'yes'"},
      {"type_short_vector", replace(B, "    mass: 2.0\n", "    mass: 2.0\n    velocity: [0, 1]\n"),
       "@:7:15: error: bodies.ball.velocity: expected a velocity in m/s (a list of 3 numbers); got a list of 2 items"},
      {"type_bodies_list", "simulation: {duration: 1, step: 0.1}\nbodies:\n  - ball\n",
       "@:3:3: error: bodies: expected a map of body names to body definitions; got a list of 1 item"},
      {"type_nan", replace(B, "duration: 1.0", "duration: .nan"),
       "@:2:13: error: simulation.duration: expected a duration in s > 0 (finite); got '.nan'"},
      // ---- contacts ----
      {"contact_missing_body", replace(B, "[ball, table]", "[ball, tabel]"),
       "@:14:20: error: contacts[0].bodies[1]: expected a body defined under 'bodies' (ball, table); got 'tabel'; "
       "did you mean 'table'?"},
      {"contact_same_body", replace(B, "[ball, table]", "[ball, ball]"),
       "@:14:13: error: contacts[0].bodies: expected two different bodies; got 'ball' twice"},
      {"contact_twice", B + "  - {bodies: [table, ball], model: point, k: 1.0e6, e_eff: 0.5, mu_s: 0.3, mu_c: 0.2, "
                            "sigma0: 1.0e5, sigma1: 316}\n",
       "@:22:14: error: contacts[1].bodies: expected each body pair in one contact only; got table/ball again"},
      {"contact_unknown_model", replace(B, "model: point", "model: volumetrik"),
       "@:15:12: error: contacts[0].model: expected a contact model (point, point_vertices, volumetric, cellular); got 'volumetrik'; "
       "did you mean 'volumetric'?"},
      {"contact_missing_parameter", replace(B, "    k: 1.0e6\n", ""),
       "@:14:5: error: contacts[0]: expected required parameter k [N/m^n]: Hertz stiffness k of f_n = k |x|^n (eqs "
       "2.1-2.4, 3.19)"},
      {"contact_restitution_range", replace(B, "e_eff: 0.5", "e_eff: 1.5"),
       "@:17:12: error: contacts[0].e_eff: expected e_eff in (0, 1] (e_eff = 0 is impossible, eq 3.24; use 0.01 for plastic); got 1.5"},
      {"point_model_on_box", replace(B, "sphere: {radius: 0.1}", "box: {size: [0.1, 0.1, 0.1]}"),
       "@:14:5: error: contacts[0]: expected model point: the point model handles sphere-sphere, sphere-half_space, sphere with an infinite cylinder (inside its complement or outside it) and ellipsoid-half_space; got box and half_space"},
      // ---- zero or negative stiffness, mass, radius ----
      {"stiffness_zero", replace(B, "k: 1.0e6", "k: 0"),
       "@:16:8: error: contacts[0].k: expected k > 0 and finite; got 0"},
      {"stiffness_negative_kv", volumetric,
       "@:16:10: error: contacts[0].k_v: expected k_v > 0 and finite; got -1e+07"},
      {"mass_zero", replace(B, "mass: 2.0", "mass: 0"),
       "@:6:11: error: bodies.ball.mass: expected a mass in kg > 0; got 0"},
      {"mass_negative", replace(B, "mass: 2.0", "mass: -2"),
       "@:6:11: error: bodies.ball.mass: expected a mass in kg > 0; got -2"},
      {"radius_zero", replace(B, "radius: 0.1", "radius: 0"),
       "@:9:24: error: bodies.ball.geometry.sphere.radius: expected a length in m > 0; got 0"},
      {"radius_negative", replace(B, "radius: 0.1", "radius: -0.1"),
       "@:9:24: error: bodies.ball.geometry.sphere.radius: expected a length in m > 0; got -0.1"},
      {"box_size_negative", replace(B, "sphere: {radius: 0.1}", "box: {size: [0.1, -0.1, 0.1]}"),
       "@:9:25: error: bodies.ball.geometry.box.size[1]: expected a length > 0 m; got -0.1"},
      {"torus_not_a_ring", replace(B, "sphere: {radius: 0.1}", "torus: {major_radius: 0.1, minor_radius: 0.2}"),
       "@:9:48: error: bodies.ball.geometry.torus.minor_radius: expected minor_radius < major_radius (a ring torus); got 0.2 >= 0.1"},
      {"density_negative", replace(B, "    mass: 2.0\n    inertia: [0.008, 0.008, 0.008]\n", "    density: -7800\n"),
       "@:6:14: error: bodies.ball.density: expected a density in kg/m^3 > 0; got -7800"},
      // ---- inertia ----
      {"inertia_not_positive_definite", replace(B, "[0.008, 0.008, 0.008]", "[0.008, -0.008, 0.008]"),
       "@:7:14: error: bodies.ball.inertia: expected a symmetric positive definite inertia; got principal moments "
       "-0.008, 0.008, 0.008 kg m^2"},
      {"inertia_indefinite_matrix", replace(B, "[0.008, 0.008, 0.008]", "[[1, 2, 0], [2, 1, 0], [0, 0, 1]]"),
       "@:7:14: error: bodies.ball.inertia: expected a symmetric positive definite inertia; got principal moments -1, 1, 3 kg m^2"},
      {"inertia_triangle", replace(B, "[0.008, 0.008, 0.008]", "[1, 1, 3]"),
       "@:7:14: error: bodies.ball.inertia: expected principal moments satisfying the triangle inequality "
       "I1 + I2 >= I3; got 1 + 1 < 3 kg m^2"},
      {"inertia_asymmetric", replace(B, "[0.008, 0.008, 0.008]", "[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]]"),
       "@:7:14: error: bodies.ball.inertia: expected a symmetric inertia matrix; got I[0][1] = 0.1 but I[1][0] = 0"},
      {"quaternion_not_unit", replace(B, "    mass: 2.0\n", "    mass: 2.0\n    orientation: {quaternion: [1, 0.1, 0, 0]}\n"),
       "@:7:31: error: bodies.ball.orientation.quaternion: expected a unit quaternion [w, x, y, z] (norm within 1e-6 "
       "of 1); got norm 1.00498756211"},
      // ---- geometry checked when the world is built ----
      {"csg_empty_cell", replace(B, "      sphere: {radius: 0.1}\n",
                                 "      intersection:\n        - sphere: {radius: 0.1}\n"
                                 "        - sphere: {radius: 0.1}\n          position: [0.5, 0, 0]\n"),
       "@:10:11: error: bodies.ball.geometry.intersection[0]: expected a cell with a non-zero volume, but cell "
       "'cell[0]' (an intersection of 2 primitives and complements) is empty"},
      {"csg_overlapping_cells", replace(B, "      sphere: {radius: 0.1}\n",
                                        "      - sphere: {radius: 0.1}\n        name: left\n"
                                        "      - sphere: {radius: 0.1}\n        name: right\n        position: [0.15, 0, 0]\n"),
       // Two R = 0.1 spheres 0.15 apart overlap in a lens of pi (4R + d)(2R - d)^2 / 12 = 3.5997e-4 m^3, which the
       // geometry check now has in closed form (two spherical caps).
       "@:11:9: error: bodies.ball.geometry[1]: expected disjoint cells (their overlap would be counted twice), "
       "but cells 'left' and 'right' overlap by 0.000359974 m^3; subtract one from the other"},
      {"csg_difference_one_child", replace(B, "      sphere: {radius: 0.1}\n", "      difference:\n        - sphere: {radius: 0.1}\n"),
       "@:10:9: error: bodies.ball.geometry.difference: expected a list of at least 2 geometry nodes; got a list of 1 item"},
      {"mesh_not_closed", replace(B, "sphere: {radius: 0.1}", "mesh: {file: open_tetrahedron.obj}"),
       "@:9:7: error: bodies.ball.geometry.mesh.file: expected a closed mesh (every edge shared by exactly two triangles), but in '%/open_tetrahedron.obj' the edge (0.1, 0, 0)-(0, 0.1, 0) (vertices 1 and 2) is used by 1 triangle (0): the mesh is open there"},
      {"mesh_missing_file", replace(B, "sphere: {radius: 0.1}", "mesh: {file: no_such_mesh.obj}"),
       "@:9:7: error: bodies.ball.geometry.mesh.file: expected a readable mesh file (OBJ or STL), but '%/no_such_mesh.obj' cannot be opened"},
      // ---- scripted impulses (lines 22-25 appended to the base: impulses: / - body: ball / at: 0.5 / linear) ----
      {"impulse_negative_time", B + replace(impulse, "at: 0.5", "at: -0.5"),
       "@:24:9: error: impulses[0].at: expected a time >= 0 s; got -0.5 s"},
      {"impulse_on_fixed_body", B + replace(impulse, "body: ball", "body: table"),
       "@:23:11: error: impulses[0].body: expected a body that is not fixed (a fixed body cannot take an impulse); got 'table'"},
      {"impulse_without_trigger", B + replace(impulse, "    at: 0.5\n", ""),
       "@:23:5: error: impulses[0]: expected exactly one trigger, 'at' (a time in s) or 'when' ({signal, crosses, "
       "direction}); got neither"},
      {"impulse_two_triggers", B + replace(impulse, "    at: 0.5\n", "    at: 0.5\n    when: {signal: velocity.z, crosses: 0}\n"),
       "@:23:5: error: impulses[0]: expected exactly one trigger, 'at' (a time in s) or 'when' ({signal, crosses, "
       "direction}); got both"},
      {"impulse_unknown_signal", B + replace(impulse, "at: 0.5", "when: {signal: angular_velocity.w, crosses: 0}"),
       "@:24:20: error: impulses[0].when.signal: expected a state signal (position.x, position.y, position.z, "
       "velocity.x, velocity.y, velocity.z, angular_velocity.x, angular_velocity.y, angular_velocity.z); got "
       "'angular_velocity.w'; did you mean 'angular_velocity.x'?"},
      {"impulse_bad_direction", B + replace(impulse, "at: 0.5", "when: {signal: velocity.z, crosses: 0, direction: down}"),
       "@:24:55: error: impulses[0].when.direction: expected falling, rising or either; got 'down'"},
      {"impulse_negative_until", B + replace(impulse, "at: 0.5", "when: {signal: velocity.z, crosses: 0, until: -1}"),
       "@:24:51: error: impulses[0].when.until: expected a time >= 0 s; got -1 s"},
      {"impulse_without_vector", B + replace(impulse, "    linear: [0, 0, 1]\n", ""),
       "@:23:5: error: impulses[0]: expected 'linear' (N s) and/or 'angular' (N m s), world frame; got neither"},
      // ---- time stepping ----
      {"step_larger_than_duration", replace(B, "step: 0.001", "step: 2"),
       "@:3:9: error: simulation.step: expected a time step <= duration (1 s); got 2 s"},
      {"step_zero", replace(B, "step: 0.001", "step: 0"),
       "@:3:9: error: simulation.step: expected a time step in s > 0; got 0"},
      {"duration_negative", replace(B, "duration: 1.0", "duration: -1"),
       "@:2:13: error: simulation.duration: expected a duration in s > 0; got -1"},
      // 1 s / 1e-13 s = 1e13 steps: a run that would never end in practice.
      {"too_many_steps", replace(B, "step: 0.001", "step: 1.0e-13"),
       "@:3:9: error: simulation.step: expected at most 1e12 steps (duration / step); got 1e+13 steps"},
      // ~0.49/tol lattice points per query: 1e-12 would be 5e11 points per query (docs/geometry.md).
      {"geometry_tolerance_too_tight", replace(B, "  step: 0.001\n", "  step: 0.001\n  geometry_tolerance: 1.0e-12\n"),
       "@:4:23: error: simulation.geometry_tolerance: expected a relative tolerance in [1e-6, 1); got 1e-12"},
      {"missing_step", replace(B, "  step: 0.001\n", ""),
       "@:2:3: error: simulation: expected required key 'step' (the fixed time step in s); it is missing"},
      {"unknown_integrator", replace(B, "  step: 0.001\n", "  step: 0.001\n  integrator: rk44\n"),
       "@:4:15: error: simulation.integrator: expected an integrator (euler, semi_implicit_euler, heun, rk3, rk4, rk5, "
       "the adaptive dopri5, bs23, rosenbrock23, or the aliases ode3, ode5, ode23, ode45, ode23s); got 'rk44'; did you mean 'rk4'?"},
      {"rel_tol_with_fixed_step", replace(B, "  step: 0.001\n", "  step: 0.001\n  rel_tol: 1.0e-6\n"),
       "@:4:12: error: simulation.rel_tol: expected error-control settings only with an adaptive integrator (dopri5, "
       "bs23, rosenbrock23); got integrator rk4"},
      {"rel_tol_out_of_range", replace(B, "  step: 0.001\n", "  integrator: dopri5\n  rel_tol: 1.0e-15\n"),
       "@:4:12: error: simulation.rel_tol: expected a relative tolerance in [1e-13, 1); got 1e-15"},
      {"abs_tol_unknown_kind", replace(B, "  step: 0.001\n", "  integrator: dopri5\n  abs_tol: {positon: 1.0e-6}\n"),
       "@:4:13: error: simulation.abs_tol.positon: expected a key of simulation.abs_tol (position, quaternion, velocity, "
       "angular_velocity, friction); got unknown key 'positon'; did you mean 'position'?"},
      {"initial_step_beyond_max_step",
       replace(B, "  step: 0.001\n", "  integrator: dopri5\n  max_step: 0.01\n  initial_step: 0.1\n"),
       "@:5:17: error: simulation.initial_step: expected a first step <= the largest step (0.01 s); got 0.1 s"},
      // ---- --set overrides with bad paths or values ----
      {"set_missing_body", B,
       "@: --set bodies.bal.velocity=[0,0.3,0]: error: bodies.bal: expected the name of an existing entry of bodies "
       "(ball, table); got 'bal'; did you mean 'ball'?",
       {"bodies.bal.velocity=[0,0.3,0]"}},
      {"set_no_equals", B,
       "@: --set simulation.step: error: simulation.step: expected KEY.PATH=VALUE (e.g. "
       "bodies.ball.velocity=[0,0.3,0]); got no '='",
       {"simulation.step"}},
      {"set_index_out_of_range", B,
       "@: --set contacts[5].k=1e5: error: contacts[5]: expected an index below 1 (contacts has 1 items); got 5", {"contacts[5].k=1e5"}},
      // An index too long for std::stoul threw std::out_of_range past every handler (fuzzing, 2026-11-25).
      {"set_index_beyond_any_list", B,
       "@: --set contacts[99999999999999999999].k=1e5: error: contacts[99999999999999999999]: expected an index below 1 "
       "(contacts has 1 items); got 99999999999999999999",
       {"contacts[99999999999999999999].k=1e5"}},
      {"set_through_scalar", B,
       "@: --set simulation.step.x=1: error: simulation.step.x: expected simulation.step to be a map or list to descend into; got '0.001'", {"simulation.step.x=1"}},
      {"set_empty_segment", B,
       "@: --set bodies..ball.mass=1: error: bodies..ball.mass: expected a key path of names separated by '.', list items as [N]; got 'bodies..ball.mass'", {"bodies..ball.mass=1"}},
      {"set_unknown_key", B,
       "@: --set simulation.stepp=0.01: error: simulation.stepp: expected a key of simulation (duration, step, integrator, geometry_tolerance, rel_tol, abs_tol, max_step, initial_step); got unknown key 'stepp'; did you mean 'step'?", {"simulation.stepp=0.01"}},
      // Creating two missing levels at once crashed the emitter once (fuzzing, tests/fuzz/crashes/scenario-0dd3...).
      {"set_new_nested_section", B,
       "@: --set a.b.c=1: error: a: expected a key of the scenario (name, description, simulation, gravity, output, "
       "bodies, contacts, materials, material_pairs, impulses, loads); got unknown key 'a'",
       {"a.b.c=1"}},
      {"set_new_material", B,
       "@: --set materials.steel.density=1: error: materials.steel: expected the name of an existing entry of "
       "materials (there are none); got 'steel'",
       {"materials.steel.density=1"}},
      {"set_bad_value", B,
       "@: --set bodies.ball.velocity=[0,abc,0]: error: bodies.ball.velocity[1]: expected a number; got 'abc'",
       {"bodies.ball.velocity=[0,abc,0]"}},
  };
}

}  // namespace

TEST_CASE("the base scenario of the error catalogue is valid", "[errors][catalogue]") {
  const fs::path file = temp_dir() / "base.yaml";
  std::ofstream(file) << kBase;
  const cli::Run r = cli::run("check " + file.string());
  INFO(r.output);
  CHECK(r.status == 0);
}

TEST_CASE("the base scenario with a scripted impulse is valid", "[errors][catalogue]") {
  const fs::path file = temp_dir() / "base_impulse.yaml";
  std::ofstream(file) << kBase << "impulses:\n  - body: ball\n    at: 0.5\n    linear: [0, 0, 1]\n";
  const cli::Run r = cli::run("check " + file.string());
  INFO(r.output);
  CHECK(r.status == 0);
}

TEST_CASE("error catalogue: exit status 2, one exact message, no output file", "[errors][catalogue]") {
  const fs::path dir = temp_dir();
  std::ofstream(dir / "open_tetrahedron.obj") << kOpenTetrahedron;
  const auto cases = catalogue();
  CHECK(cases.size() >= 30);  // issue 8: at least 30 distinct malformed scenarios
  for (const auto& c : cases) {
    const std::string file = (dir / (c.name + ".yaml")).string();
    const std::string out = (dir / (c.name + ".h5")).string();
    std::ofstream(file) << c.yaml;
    std::string args = "run " + file + " -q -o " + out;
    for (const auto& o : c.overrides) args += " --set " + quote(o);
    const cli::Run r = cli::run(args);
    std::string expected = c.expected;
    for (size_t at; (at = expected.find('@')) != std::string::npos;) expected.replace(at, 1, file);
    for (size_t at; (at = expected.find('%')) != std::string::npos;) expected.replace(at, 1, dir.string());
    INFO(c.name << "\n" << r.output);
    if (r.output != expected + "\n") std::printf("[%s]\n%s", c.name.c_str(), r.output.c_str());
    CHECK(r.status == 2);
    CHECK(r.output == expected + "\n");
    CHECK_FALSE(fs::exists(out));
  }
  fs::remove_all(dir);
}
