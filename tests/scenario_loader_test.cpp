// Scenario loader: the shipped examples load with the values their files state, overrides work,
// and every kind of bad input yields one InputError naming file:line:column, key path and expectation.
// Expected positions are counted by hand in the inline YAML below (1-based line and column).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/input_error.h"
#include "engine/io/scenario_loader.h"
#include "tests/scratch_dir.h"

namespace fs = std::filesystem;
using vcsim::InputError;
using vcsim::load_scenario;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kScenarios = std::string(VCSIM_SOURCE_DIR) + "/scenarios/";

std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path p = scratch::dir("loader_test") / name;
  std::ofstream(p) << text;
  return p.string();
}

// Loads and returns the InputError it must throw.
InputError error_of(const std::string& name, const std::string& text, const std::vector<std::string>& overrides = {}) {
  const std::string path = write_temp(name, text);
  try {
    load_scenario(path, overrides);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for " << name);
  throw;  // unreachable
}

// A minimal valid scenario; the bad cases below are edits of it.
// Line numbers:  1 simulation: / 2 duration / 3 step / 4 bodies: / 5 ball: / 6 mass / 7 inertia /
// 8 geometry: / 9 sphere.
const std::string kBase = R"(simulation:
  duration: 1.0
  step: 0.001
bodies:
  ball:
    mass: 2.0
    inertia: [0.008, 0.008, 0.008]
    geometry:
      sphere: {radius: 0.1}
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

void check(const InputError& e, const std::string& file, int line, int column, const std::string& key_path,
           const std::string& expected) {
  INFO(e.what());
  CHECK(e.where.file == file);
  CHECK(e.where.line == line);
  CHECK(e.where.column == column);
  CHECK(e.where.key_path == key_path);
  CHECK(e.expected == expected);
  std::string pos = line > 0 ? ":" + std::to_string(line) + ":" + std::to_string(column) : "";
  CHECK(std::string(e.what()) == file + pos + ": error: " + (key_path.empty() ? "" : key_path + ": ") + expected);
}

const std::string kBodyKeys =
    "mass, inertia, density, center_of_mass, position, orientation, velocity, angular_velocity, fixed, force, "
    "torque, geometry, material, motion";

}  // namespace

TEST_CASE("free_fall.yaml loads with the values written in it", "[loader]") {
  const auto sc = load_scenario(kScenarios + "free_fall.yaml");
  CHECK(sc.name == "free_fall");
  CHECK(sc.duration == 1.0);
  CHECK(sc.step == 0);  // adaptive: no fixed step, the first one automatic
  CHECK(sc.integrator == "dopri5");
  CHECK(sc.adaptive);
  CHECK(sc.adaptive_settings.rel_tol == 1e-6);  // the default
  CHECK(sc.output_file == "free_fall.h5");
  CHECK(sc.output_interval == 0.01);
  CHECK(sc.gravity == vcsim::Vec3(0, 0, -9.81));
  REQUIRE(sc.bodies.size() == 1);
  const auto& b = sc.bodies[0];
  CHECK(b.name == "ball");
  CHECK_FALSE(b.fixed);
  CHECK(*b.mass == 2.0);
  // Solid sphere 2/5 m R^2 = 0.4 * 2 * 0.01 = 0.008 kg m^2 (the file's comment), as a diagonal matrix.
  CHECK(b.inertia->isApprox(vcsim::Mat3::Identity() * 0.4 * 2.0 * 0.1 * 0.1, 1e-15));
  CHECK(b.pose.position == vcsim::Vec3(0, 0, 10));
  CHECK(b.pose.rotation.coeffs() == vcsim::Quat::Identity().coeffs());  // rpy 0,0,0 is exactly identity
  CHECK(b.velocity == vcsim::Vec3(0.3, 0, 0));
  CHECK(b.angular_velocity == vcsim::Vec3(0, 0, 3));
  REQUIRE(b.geometry);
  CHECK(b.geometry->op == vcsim::geo::CsgNode::Op::Primitive);
  CHECK(b.geometry->primitive.kind == vcsim::geo::PrimitiveKind::Sphere);
  CHECK(b.geometry->primitive.radius == 0.1);
  CHECK(b.geometry->where.key_path == "bodies.ball.geometry");
  CHECK(b.geometry->where.line == 22);  // "      sphere: {radius: 0.1}" is line 22 of the file
  CHECK(sc.contacts.empty());
  // Without overrides the stored text is the file, comments included.
  std::ifstream in(kScenarios + "free_fall.yaml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(sc.source_text == text);
}

TEST_CASE("spinning_top_space.yaml loads: inertia map, rpy, CSG union with local poses", "[loader]") {
  const auto sc = load_scenario(kScenarios + "spinning_top_space.yaml");
  CHECK(sc.integrator == "dopri5");
  CHECK(sc.gravity == vcsim::Vec3::Zero());
  // Default output file: the scenario's stem + ".h5" in the current directory.
  CHECK(sc.output_file == "spinning_top_space.h5");
  REQUIRE(sc.bodies.size() == 1);
  const auto& b = sc.bodies[0];
  CHECK(*b.mass == 6e-3);
  vcsim::Mat3 I = vcsim::Mat3::Zero();
  I.diagonal() << 8e-7, 8e-7, 7e-7;  // Leine & Glocker's A = B, C
  CHECK((*b.inertia - I).norm() == 0);
  CHECK(b.center_of_mass_given);
  CHECK(b.center_of_mass == vcsim::Vec3(0, 0, -0.003));
  // 5.729577951308232 deg = 0.1 rad about x: q = (cos 0.05, sin 0.05, 0, 0); 1e-15 = a few ulps of deg->rad.
  CHECK(b.pose.rotation.w() == Approx(std::cos(0.05)).epsilon(1e-15));
  CHECK(b.pose.rotation.x() == Approx(std::sin(0.05)).epsilon(1e-14));
  CHECK(std::abs(b.pose.rotation.y()) + std::abs(b.pose.rotation.z()) == 0);
  CHECK(b.angular_velocity == vcsim::Vec3(0, 0, 180));
  REQUIRE(b.geometry);
  const auto& g = *b.geometry;
  CHECK(g.op == vcsim::geo::CsgNode::Op::Union);
  REQUIRE(g.children.size() == 2);
  CHECK(g.children[0].name == "body");
  CHECK(g.children[0].primitive.radius == 0.015);
  CHECK(g.children[1].name == "stem_tip");
  CHECK(g.children[1].where.key_path == "bodies.top.geometry.union[1]");
  REQUIRE(g.children[1].op == vcsim::geo::CsgNode::Op::Difference);
  REQUIRE(g.children[1].children.size() == 2);
  CHECK(g.children[1].children[0].primitive.pose.position == vcsim::Vec3(0, 0, 0.013));
  CHECK(g.children[1].children[1].primitive.radius == 0.015);
}

TEST_CASE("overrides change values, and the stored text is what ran", "[loader]") {
  const std::string path = write_temp("ovr.yaml", kBase);
  const auto sc = load_scenario(path, {"bodies.ball.velocity=[0,0.3,0]", "simulation.integrator=ode5",
                                       "output.interval=0.01", "bodies.ball.geometry.sphere.radius=0.2"});
  CHECK(sc.bodies[0].velocity == vcsim::Vec3(0, 0.3, 0));
  CHECK(sc.integrator == "rk5");  // Simulink's "ode5" is the Dormand-Prince fixed-step method
  CHECK(sc.output_interval == 0.01);
  CHECK(sc.bodies[0].geometry->primitive.radius == 0.2);
  CHECK(sc.output_file == "ovr.h5");
  // Reloading the stored text reproduces the overridden run exactly.
  const auto again = load_scenario(write_temp("ovr_again.yaml", sc.source_text));
  CHECK(again.bodies[0].velocity == sc.bodies[0].velocity);
  CHECK(again.integrator == "rk5");
  CHECK(again.bodies[0].geometry->primitive.radius == 0.2);
}

TEST_CASE("inertia forms agree and contacts inherit material-pair parameters", "[loader]") {
  const std::string text = R"(simulation: {duration: 1, step: 1e-3}
materials:
  steel: {density: 7800}
  wood: {}
material_pairs:
  - {materials: [wood, steel], model: volumetric, k_v: 1e7, e_eff: 0.5, mu_s: 0.08, mu_c: 0.05,
     sigma0: 1e5, sigma1: 316.228}
bodies:
  a:
    mass: 1
    inertia: {moments: [2, 3, 4], products: [0.1, 0.2, 0.3]}
    geometry: {sphere: {radius: 0.1}}
    material: steel
  b:
    mass: 1
    inertia: [[2, 0.1, 0.2], [0.1, 3, 0.3], [0.2, 0.3, 4]]
    geometry: {box: {size: [1, 1, 1]}}
    material: wood
  c:
    material: steel
    geometry: {sphere: {radius: 0.1}}
  ground: {fixed: true, geometry: {halfspace: {}}, material: wood}
contacts:
  - {bodies: [a, b], e_eff: 0.6}
)";
  const auto sc = load_scenario(write_temp("materials.yaml", text));
  REQUIRE(sc.bodies.size() == 4);
  CHECK((*sc.bodies[0].inertia - *sc.bodies[1].inertia).norm() == 0);
  CHECK((*sc.bodies[0].inertia)(0, 1) == 0.1);
  CHECK((*sc.bodies[0].inertia)(1, 2) == 0.3);
  CHECK(*sc.bodies[2].density == 7800);  // from the material
  CHECK(sc.bodies[3].fixed);
  REQUIRE(sc.contacts.size() == 1);
  const auto& c = sc.contacts[0];
  CHECK(c.model == "volumetric");
  CHECK(c.params.at("k_v") == 1e7);
  CHECK(c.params.at("e_eff") == 0.6);  // the contact's own value wins
  CHECK(c.params.at("sigma1") == 316.228);
  REQUIRE(sc.material_pairs.size() == 1);
  CHECK(sc.material_pairs[0].params.at("e_eff") == 0.5);
}

TEST_CASE("levenshtein distance", "[loader]") {
  CHECK(vcsim::levenshtein_distance("kitten", "sitting") == 3);  // the textbook example
  CHECK(vcsim::levenshtein_distance("", "abc") == 3);
  CHECK(vcsim::levenshtein_distance("mass", "masss") == 1);
}

TEST_CASE("bad input: one clear error with position, key path and expectation", "[loader][errors]") {
  const fs::path dir = scratch::dir("loader_test");
  auto file = [&](const std::string& name) { return (dir / name).string(); };

  SECTION("unknown key with did-you-mean") {
    auto e = error_of("unknown.yaml", replace(kBase, "    mass: 2.0", "    masss: 2.0"));
    check(e, file("unknown.yaml"), 6, 5, "bodies.ball.masss",
          "expected a key of a body (" + kBodyKeys + "); got unknown key 'masss'; did you mean 'mass'?");
  }
  SECTION("unknown top-level key without a near miss") {
    auto e = error_of("unknown2.yaml", kBase + "visualisation: {}\n");
    CHECK(e.where.line == 10);
    CHECK(e.where.column == 1);
    CHECK_THAT(e.expected, Contains("got unknown key 'visualisation'") && !Contains("did you mean"));
  }
  SECTION("wrong type: a word for a mass") {
    auto e = error_of("type.yaml", replace(kBase, "mass: 2.0", "mass: heavy"));
    check(e, file("type.yaml"), 6, 11, "bodies.ball.mass", "expected a mass in kg > 0; got 'heavy'");
  }
  SECTION("wrong type: a quoted number is a string") {
    auto e = error_of("quoted.yaml", replace(kBase, "step: 0.001", "step: \"0.001\""));
    check(e, file("quoted.yaml"), 3, 9, "simulation.step",
          "expected a time step in s > 0; got the quoted string \"0.001\"");
  }
  SECTION("wrong type: bodies as a list") {
    auto e = error_of("list.yaml", "simulation: {duration: 1, step: 0.1}\nbodies:\n  - ball\n");
    check(e, file("list.yaml"), 3, 3, "bodies",
          "expected a map of body names to body definitions; got a list of 1 item");
  }
  SECTION("NaN is not a number here") {
    auto e = error_of("nan.yaml", replace(kBase, "duration: 1.0", "duration: .nan"));
    check(e, file("nan.yaml"), 2, 13, "simulation.duration", "expected a duration in s > 0 (finite); got '.nan'");
  }
  SECTION("missing required key points at the parent map") {
    auto e = error_of("missing.yaml", replace(kBase, "  step: 0.001\n", ""));
    check(e, file("missing.yaml"), 2, 3, "simulation",
          "expected required key 'step' (the fixed time step in s); it is missing");
  }
  SECTION("mass without inertia and without a geometry to take it from") {
    auto e = error_of("noinertia.yaml", replace(replace(kBase, "    inertia: [0.008, 0.008, 0.008]\n", ""),
                                                "    geometry:\n      sphere: {radius: 0.1}\n", ""));
    check(e, file("noinertia.yaml"), 6, 5, "bodies.ball",
          "expected a geometry (the inertia of a uniform body of the given mass comes from its shape) or 'inertia' in "
          "kg m^2 beside mass; got neither");
  }
  SECTION("mass <= 0") {
    auto e = error_of("mass.yaml", replace(kBase, "mass: 2.0", "mass: -2"));
    check(e, file("mass.yaml"), 6, 11, "bodies.ball.mass", "expected a mass in kg > 0; got -2");
    auto z = error_of("mass0.yaml", replace(kBase, "mass: 2.0", "mass: 0"));
    check(z, file("mass0.yaml"), 6, 11, "bodies.ball.mass", "expected a mass in kg > 0; got 0");
  }
  SECTION("inertia not positive definite") {
    auto e = error_of("spd.yaml", replace(kBase, "[0.008, 0.008, 0.008]", "[0.008, -0.008, 0.008]"));
    check(e, file("spd.yaml"), 7, 14, "bodies.ball.inertia",
          "expected a symmetric positive definite inertia; got principal moments -0.008, 0.008, 0.008 kg m^2");
  }
  SECTION("inertia matrix not symmetric") {
    auto e = error_of("sym.yaml", replace(kBase, "[0.008, 0.008, 0.008]", "[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]]"));
    check(e, file("sym.yaml"), 7, 14, "bodies.ball.inertia",
          "expected a symmetric inertia matrix; got I[0][1] = 0.1 but I[1][0] = 0");
  }
  SECTION("inertia breaking the triangle inequality") {
    // I3 = 3 > I1 + I2 = 2: no mass distribution has these moments.
    auto e = error_of("tri.yaml", replace(kBase, "[0.008, 0.008, 0.008]", "[1, 1, 3]"));
    check(e, file("tri.yaml"), 7, 14, "bodies.ball.inertia",
          "expected principal moments satisfying the triangle inequality I1 + I2 >= I3; got 1 + 1 < 3 kg m^2");
  }
  SECTION("step <= 0") {
    auto e = error_of("step0.yaml", replace(kBase, "step: 0.001", "step: 0"));
    check(e, file("step0.yaml"), 3, 9, "simulation.step", "expected a time step in s > 0; got 0");
  }
  SECTION("step > duration") {
    auto e = error_of("step2.yaml", replace(kBase, "step: 0.001", "step: 2"));
    check(e, file("step2.yaml"), 3, 9, "simulation.step", "expected a time step <= duration (1 s); got 2 s");
  }
  SECTION("unknown integrator with did-you-mean") {
    auto e = error_of("integ.yaml", replace(kBase, "  step: 0.001\n", "  step: 0.001\n  integrator: rk44\n"));
    check(e, file("integ.yaml"), 4, 15, "simulation.integrator",
          "expected an integrator (euler, semi_implicit_euler, heun, rk3, rk4, rk5, the adaptive dopri5, bs23, "
          "rosenbrock23, or the aliases ode3, ode5, ode23, ode45, ode23s); "
          "got 'rk44'; did you mean 'rk4'?");
  }
  SECTION("unreadable file names the OS reason") {
    const std::string missing = file("does_not_exist.yaml");
    try {
      load_scenario(missing);
      FAIL("no error");
    } catch (const InputError& e) {
      check(e, missing, 0, 0, "", "expected a readable scenario file; got No such file or directory");
    }
  }
  SECTION("YAML syntax error carries the parser's position") {
    // Line 2 indents "b" under the scalar "1": the ':' at column 4 is an illegal map value.
    auto e = error_of("syntax.yaml", "a: 1\n  b: 2\n");
    check(e, file("syntax.yaml"), 2, 4, "", "expected valid YAML; got a syntax error: illegal map value");
  }
  SECTION("duplicate body names") {
    auto e = error_of("dup.yaml", kBase + "  ball:\n    fixed: true\n");
    check(e, file("dup.yaml"), 10, 3, "bodies.ball", "expected unique body names; got 'ball' again (first defined at line 5)");
  }
  SECTION("negative radius") {
    auto e = error_of("radius.yaml", replace(kBase, "radius: 0.1", "radius: -0.1"));
    check(e, file("radius.yaml"), 9, 24, "bodies.ball.geometry.sphere.radius", "expected a length in m > 0; got -0.1");
  }
  SECTION("unknown shape with did-you-mean") {
    auto e = error_of("shape.yaml", replace(kBase, "sphere:", "sphere_:"));
    CHECK(e.where.line == 9);
    CHECK(e.where.column == 7);
    CHECK(e.where.key_path == "bodies.ball.geometry.sphere_");
    CHECK_THAT(e.expected, Contains("got unknown key 'sphere_'; did you mean 'sphere'?"));
  }
  SECTION("non-unit quaternion") {
    // |(1, 0.1, 0, 0)| = sqrt(1.01) = 1.00498756211..., far from 1.
    auto e = error_of("quat.yaml", replace(kBase, "    mass: 2.0\n",
                                            "    mass: 2.0\n    orientation: {quaternion: [1, 0.1, 0, 0]}\n"));
    check(e, file("quat.yaml"), 7, 31, "bodies.ball.orientation.quaternion",
          "expected a unit quaternion [w, x, y, z] (norm within 1e-6 of 1); got norm 1.00498756211");
  }
  SECTION("gravity must be 3 numbers") {
    auto e = error_of("gravity.yaml", kBase + "gravity: [0, -9.81]\n");
    check(e, file("gravity.yaml"), 10, 10, "gravity",
          "expected a gravity vector [gx, gy, gz] in m/s^2 (a list of 3 numbers or time profiles); got a list of 2 items");
  }
  SECTION("negative output interval") {
    auto e = error_of("interval.yaml", kBase + "output: {interval: -1}\n");
    check(e, file("interval.yaml"), 10, 20, "output.interval",
          "expected a sampling interval >= 0 s (0 = every step); got -1");
  }
  SECTION("output file that would overwrite the scenario") {
    auto e = error_of("clobber.yaml", kBase + "output: {file: " + file("clobber.yaml") + "}\n");
    check(e, file("clobber.yaml"), 10, 16, "output.file",
          "expected an output file other than the scenario file; got '" + file("clobber.yaml") + "'");
  }
  SECTION("mass and density together") {
    auto e = error_of("both.yaml", replace(kBase, "    mass: 2.0\n", "    mass: 2.0\n    density: 1000\n"));
    check(e, file("both.yaml"), 7, 14, "bodies.ball.density",
          "expected either mass and inertia, or density; got both");
  }
  SECTION("override naming a missing body") {
    auto e = error_of("ovr1.yaml", kBase, {"bodies.bal.velocity=[0,0.3,0]"});
    check(e, file("ovr1.yaml") + ": --set bodies.bal.velocity=[0,0.3,0]", 0, 0, "bodies.bal",
          "expected the name of an existing entry of bodies (ball); got 'bal'; did you mean 'ball'?");
  }
  SECTION("override without '='") {
    auto e = error_of("ovr2.yaml", kBase, {"simulation.step"});
    check(e, file("ovr2.yaml") + ": --set simulation.step", 0, 0, "simulation.step",
          "expected KEY.PATH=VALUE (e.g. bodies.ball.velocity=[0,0.3,0]); got no '='");
  }
  SECTION("override with a bad value points at the override") {
    auto e = error_of("ovr3.yaml", kBase, {"bodies.ball.velocity=[0,abc,0]"});
    check(e, file("ovr3.yaml") + ": --set bodies.ball.velocity=[0,abc,0]", 0, 0, "bodies.ball.velocity[1]",
          "expected a number; got 'abc'");
    auto u = error_of("ovr4.yaml", kBase, {"simulation.integrator=rk44"});
    CHECK(u.where.file == file("ovr4.yaml") + ": --set simulation.integrator=rk44");
    CHECK_THAT(u.expected, Contains("did you mean 'rk4'?"));
  }
  SECTION("override with unparsable YAML") {
    auto e = error_of("ovr5.yaml", kBase, {"bodies.ball.velocity=[0,0.3"});
    CHECK(e.where.file == file("ovr5.yaml") + ": --set bodies.ball.velocity=[0,0.3");
    CHECK(e.where.key_path == "bodies.ball.velocity");
    CHECK_THAT(e.expected, StartsWith("expected a YAML value after '='; got '[0,0.3'"));
  }

  const std::string two_bodies = kBase + R"(  table:
    fixed: true
    geometry: {halfspace: {}}
contacts:
  - bodies: [ball, tabel]
    model: point
)";
  // Lines 10-12 are the table, 13 "contacts:", 14 "  - bodies: [ball, tabel]", 15 "    model: point".
  SECTION("contact naming a missing body") {
    auto e = error_of("contact1.yaml", two_bodies);
    check(e, file("contact1.yaml"), 14, 20, "contacts[0].bodies[1]",
          "expected a body defined under 'bodies' (ball, table); got 'tabel'; did you mean 'table'?");
  }
  SECTION("contact naming the same body twice") {
    auto e = error_of("contact2.yaml", replace(two_bodies, "[ball, tabel]", "[ball, ball]"));
    check(e, file("contact2.yaml"), 14, 13, "contacts[0].bodies", "expected two different bodies; got 'ball' twice");
  }
  SECTION("contact parameter out of range (check_parameters)") {
    auto e = error_of("contact3.yaml", replace(two_bodies, "[ball, tabel]\n    model: point\n",
                                               "[ball, table]\n    model: point\n    k: 1e6\n    e_eff: 1.5\n"
                                               "    mu_s: 0.3\n    mu_c: 0.2\n    sigma0: 1e5\n    sigma1: 316\n"));
    CHECK(e.where.line == 17);
    CHECK(e.where.column == 12);
    CHECK(e.where.key_path == "contacts[0].e_eff");
    CHECK_THAT(e.expected, StartsWith("expected e_eff in (0, 1]") && Contains("1.5"));
  }
  SECTION("contact missing a required parameter (check_parameters)") {
    auto e = error_of("contact4.yaml", replace(two_bodies, "tabel", "table"));
    CHECK(e.where.line == 14);
    CHECK(e.where.column == 5);
    CHECK(e.where.key_path == "contacts[0]");
    CHECK_THAT(e.expected, StartsWith("expected required parameter k "));
  }
  SECTION("unknown contact parameter with did-you-mean") {
    auto e = error_of("contact5.yaml", replace(two_bodies, "[ball, tabel]\n    model: point\n",
                                               "[ball, table]\n    model: point\n    kk: 1e6\n"));
    CHECK(e.where.line == 16);
    CHECK(e.where.column == 5);
    CHECK(e.where.key_path == "contacts[0].kk");
    CHECK_THAT(e.expected, Contains("got unknown key 'kk'; did you mean 'k'?"));
  }
  SECTION("unknown contact model with did-you-mean") {
    auto e = error_of("contact6.yaml", replace(two_bodies, "[ball, tabel]\n    model: point\n",
                                               "[ball, table]\n    model: volumetrik\n"));
    check(e, file("contact6.yaml"), 15, 12, "contacts[0].model",
          "expected a contact model (point, point_vertices, volumetric, cellular); got 'volumetrik'; did you mean 'volumetric'?");
  }
}
