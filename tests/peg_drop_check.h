// Pegs dropped into holes, run through the CLI as a user would and checked from the geometry and the energy, not from
// a past run.
//
// check_peg_drop: any scene with a body `peg`. The run ends (the energy guard never trips), and the total energy never
// rises above its running minimum by more than what the bristles can hold: ½ μ_s² f_n / σ0 per patch (6.5e-7 J at a
// round peg's weight, 1.44 N; 8.3e-7 J at a 20 mm square peg's, 1.84 N), a few at a time: 5e-6 J. Then the caller's
// checks, in Python, with p the peg's final position and R its final rotation matrix.
//
// check_peg_settles_in_hole: a steel peg (r 10 mm, 60 mm long) dropped into a blind hole (r 10.5 mm: 0.5 mm of radial
// clearance; floor at z = −0.02) by a scene of benchmarks/scenes/. The peg ends in its hole: its lower end's centre
// within the radial clearance (0.5 mm, plus 0.05 mm for the tilt it can lean by) of the axis, and its end's lowest point
// at the floor to within 0.1 mm (it rattles: 3 cm/s at the end).
#pragma once
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/cli_support.h"

inline void check_peg_drop(const std::filesystem::path& dir, const std::string& scene, const std::string& checks) {
  const std::string out = (dir / "peg.h5").string();
  const cli::Run r = cli::run_command(cli::kVcsim + " run " + scene + " -q -o " + out);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const int status = cli::run_python_check(dir, cli::kCheckPrelude, "f = h5py.File('" + out + "')\n" + R"PY(
E = f['energy/total'][:]
expect('largest rise of the total energy above its running minimum (J)', np.max(E - np.minimum.accumulate(E)), 0, 5e-6)
p = f['bodies/peg/position'][-1]
w, x, y, z = f['bodies/peg/orientation'][-1]
R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
              [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
              [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
)PY" + checks);
  CHECK(status == 0);
}

inline void check_peg_settles_in_hole(const std::string& scene) {
  const std::filesystem::path dir = cli::temp_dir("peg_drop_" + scene);
  check_peg_drop(dir, cli::kSource + "/benchmarks/scenes/" + scene + ".yaml", R"PY(
axis = R[:, 2]
end = p - 0.03 * axis
expect('radial offset of the lower end (m)', np.hypot(end[0], end[1]), 0, 0.00055)
expect("height of the lower end's lowest point (m)", end[2] - 0.01 * np.sqrt(1 - axis[2] ** 2), -0.0201, -0.0199)
)PY");
  std::filesystem::remove_all(dir);
}
