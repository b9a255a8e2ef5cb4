// Determinism (issue 8): every scenario file in scenarios/ gives bitwise-identical datasets with TBB
// capped at 1, 2 and 4 threads, and across two runs at 1 thread. Compared with h5py: every dataset's
// bytes, and every attribute but the wall time.
//
// Each scenario runs only a short window (--set simulation.duration) chosen to include contact, so
// that the parallel interference rows and cellular pairs are exercised: the windows below come from
// the first-contact times the scenario tests establish (tests/scenarios_test.cpp). A scenario file
// not in the table (a new one) runs for 200 steps.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/cli_support.h"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() { return cli::temp_dir("determinism_test"); }

// Simulated seconds per scenario: a few steps past the first contact.
const std::map<std::string, std::string> kWindow = {
    {"ball_on_table", "0.146"},     // first impact at 0.143 s (dropped 0.1 m), 60 steps of 5e-5 s in contact
    {"ball_in_cylinder", "0.275"},  // first impact at 0.2666 s, 8 steps of 1 ms in contact
    {"battery_box", "0.373"},       // first lug-rail impact at 0.37084 s, 8 steps of 0.25 ms in contact
    {"bouncing_ball", "0.2"},       // point model, first impact at 0.143 s: cheap, a whole impact
    {"tippe_top", "0.005"},         // starts resting on the ground: 50 steps in contact
    {"tippe_top_modified", "0.005"},
    {"free_fall", "0.1"},           // contact-free
    {"spinning_top_space", "0.02"},
};

// A scenario file (not a sweep or other YAML): it has a top-level 'simulation:' section.
bool is_scenario(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("simulation:", 0) == 0) return true;
  return false;
}

std::string duration_for(const fs::path& p) {
  const auto it = kWindow.find(p.stem().string());
  if (it != kWindow.end()) return it->second;
  // A new scenario: 200 of its own steps (the 'step:' line of its simulation section).
  std::ifstream in(p);
  std::string line;
  bool in_sim = false;
  while (std::getline(in, line)) {
    if (line.rfind("simulation:", 0) == 0) in_sim = true;
    else if (!line.empty() && line[0] != ' ' && line[0] != '#') in_sim = false;
    const size_t at = line.find("step:");
    if (in_sim && at != std::string::npos) return std::to_string(200 * std::stod(line.substr(at + 5)));
  }
  return "0.01";
}

// Runs `scenario` for `window` simulated seconds at 1 (twice), 2 and 4 threads with the extra --set overrides and
// checks with h5py that every dataset and attribute but the wall time is bitwise the same.
void check_bitwise(const fs::path& p, const std::string& window, const std::string& sets, const std::string& tag) {
  const fs::path dir = temp_dir();
  const std::string stem = p.stem().string() + tag;
  std::string files;
  const char* runs[][2] = {{"1", "a"}, {"1", "b"}, {"2", "a"}, {"4", "a"}};
  for (const auto& run : runs) {
    const std::string out = (dir / (stem + "_t" + run[0] + run[1] + ".h5")).string();
    const cli::Run r = cli::run("run " + p.string() + " -q --threads " + run[0] + " -o " + out +
                                " --set simulation.duration=" + window + " " + sets);
    INFO(stem << " --threads " << run[0] << "\n" << r.output);
    REQUIRE(r.status == 0);
    files += " " + out;
  }
  const fs::path script = dir / "compare.py";
  std::ofstream(script) << R"(import sys, h5py, numpy as np
ref = h5py.File(sys.argv[1], 'r')
def collect(f):
    data, attrs = {}, {}
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            data[name] = obj[()].tobytes()
        for k, v in obj.attrs.items():
            attrs[name + '@' + k] = np.asarray(v).tobytes()
    f.visititems(visit)
    for k, v in f.attrs.items():
        if k != 'wall_time_s':  # the one thing allowed to differ
            attrs['@' + k] = np.asarray(v).tobytes()
    return data, attrs
rd, ra = collect(ref)
assert len(ref['time']) > 1
# The window must include contact wherever the scenario has contact pairs.
flags = [k for k in rd if k.endswith('in_contact')]
touching = [k for k in flags if np.frombuffer(rd[k], dtype=ref[k].dtype).any()]
assert not flags or touching, ('no contact in the window', flags)
for other in sys.argv[2:]:
    od, oa = collect(h5py.File(other, 'r'))
    assert od.keys() == rd.keys(), (other, set(od) ^ set(rd))
    diff = [k for k in rd if rd[k] != od[k]]
    assert not diff, (other, 'datasets differ', diff)
    diff = [k for k in ra if k not in oa or ra[k] != oa[k]]
    assert not diff, (other, 'attributes differ', diff)
print(sys.argv[1], 'bitwise identical to', len(sys.argv) - 2, 'runs:', len(rd), 'datasets,', len(ref['time']), 'samples,', len(touching), 'of', len(flags), 'pairs in contact')
)";
  const cli::Run cmp = cli::run_command(cli::kPython + " " + script.string() + files);
  INFO(stem << "\n" << cmp.output);
  CHECK(cmp.status == 0);
  std::printf("%s", cmp.output.c_str());
}

}  // namespace

TEST_CASE("every scenario is bitwise identical on 1, 2, 4 threads and across runs", "[reliability][determinism]") {
  int scenarios = 0;
  for (const auto& entry : fs::directory_iterator(cli::kSource + "/scenarios")) {
    const fs::path p = entry.path();
    if (!entry.is_regular_file() || p.extension() != ".yaml" || !is_scenario(p)) continue;
    ++scenarios;
    check_bitwise(p, duration_for(p), "", "");
  }
  CHECK(scenarios >= 8);
  fs::remove_all(temp_dir());
}

TEST_CASE("adaptive runs (dopri5) are bitwise identical on 1, 2, 4 threads and across runs",
          "[reliability][determinism]") {
  // The step sizes follow the error estimates, which must not depend on the thread count either.
  for (const char* stem : {"ball_on_table", "battery_box", "tippe_top"}) {
    const fs::path p = fs::path(cli::kSource) / "scenarios" / (std::string(stem) + ".yaml");
    check_bitwise(p, duration_for(p), "--set simulation.integrator=dopri5", "_dopri5");
  }
  fs::remove_all(temp_dir());
}
