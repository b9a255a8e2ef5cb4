// Fuzzing regressions (issue 8): every input the fuzzers once crashed on (tests/fuzz/crashes/, kept by
// tests/fuzz/run) replayed through the normal build's loaders, as tests/fuzz/fuzz_*.cpp drive them.
// Each must now end normally or in an input error (exit status 2 in vcsim); any other exception fails
// here, and a crash or sanitizer report fails the whole executable (and tools/sanitize).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "contact/model_params.h"
#include "engine/input_error.h"
#include "engine/preflight.h"
#include "engine/io/scenario_loader.h"
#include "engine/simulation.h"
#include "geometry/located_error.h"
#include "geometry/mesh.h"
#include "tests/scratch_dir.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> kept(const std::string& prefix) {
  std::vector<fs::path> out;
  const fs::path dir = fs::path(VCSIM_SOURCE_DIR) / "tests/fuzz/crashes";
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "ok", "input error", or the unexpected exception's message.
template <class F>
std::string outcome(F&& f) {
  try {
    f();
  } catch (const vcsim::LocatedError&) {  // input, geometry and contact errors
    return "input error";
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
  return "ok";
}

}  // namespace

TEST_CASE("kept fuzzer crashes: the scenario loader and world build", "[reliability][fuzz]") {
  // scenario-*: the loader alone, with fuzz_scenario.cpp's "#set A=B;C=D" first line as overrides;
  // world-*: the loader and the world build (fuzz_world.cpp).
  for (const std::string prefix : {"scenario-", "world-"})
    for (const auto& p : kept(prefix)) {
      const std::string text = bytes(p);
      std::vector<std::string> overrides;
      if (prefix == "scenario-" && text.rfind("#set ", 0) == 0) {
        std::istringstream first(text.substr(5, text.find('\n') - 5));
        for (std::string o; std::getline(first, o, ';');) overrides.push_back(o);
      }
      const std::string r = outcome([&] {
        const auto sc = vcsim::load_scenario_text(text, "/nonexistent/fuzz.yaml", overrides);
        if (prefix == "world-") vcsim::preflight(sc, vcsim::build_world(sc));
      });
      INFO(p.filename().string() << ": " << r);
      CHECK((r == "ok" || r == "input error"));
    }
}

TEST_CASE("kept fuzzer crashes: the mesh reader", "[reliability][fuzz]") {
  const fs::path dir = scratch::dir("fuzz_regression");
  for (const auto& p : kept("mesh-")) {
    const std::string b = bytes(p);
    if (b.empty()) continue;
    const fs::path file = dir / (std::string("mesh") + ((b[0] & 1) ? ".stl" : ".obj"));  // as fuzz_mesh.cpp
    std::ofstream(file, std::ios::binary) << b.substr(1);
    const vcsim::geo::SourceLocation where{"fuzz.yaml", 1, 1, "bodies.b.geometry.mesh.file"};
    const std::string r = outcome([&] {
      const auto mesh = vcsim::geo::read_mesh(file.string(), where);
      vcsim::geo::check_closed(mesh, file.string(), where);
    });
    INFO(p.filename().string() << ": " << r);
    CHECK((r == "ok" || r == "input error"));
  }
  fs::remove_all(dir);
}
