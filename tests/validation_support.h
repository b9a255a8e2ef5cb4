// Shared by the validation tests (issue 10, docs/validation.md): running a scenario through the vcsim
// binary, and the Python (h5py) prelude whose report() prints the "VALIDATION | id | measured | reference |
// tolerance | ok" lines that tools/validate collects.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"

namespace validation {

inline const std::string kValidation = cli::kSource + "/scenarios/validation/";

// A number as Python source, to every digit.
inline std::string num(double v, int digits = 17) {
  std::ostringstream s;
  s.precision(digits);
  s << v;
  return s.str();
}

// One line of the validation table, and the Catch check: |measured − reference| <= tol, relative to
// |reference| when `relative`.
inline bool report(const std::string& id, double measured, double reference, double tol, bool relative,
                   const std::string& unit) {
  const bool ok = std::abs(measured - reference) <= (relative ? tol * std::abs(reference) : tol);
  if (relative)
    std::printf("VALIDATION | %s | %.6g %s | %.6g %s | ±%.3g %% | %s\n", id.c_str(), measured, unit.c_str(), reference,
                unit.c_str(), 100 * tol, ok ? "ok" : "FAIL");
  else
    std::printf("VALIDATION | %s | %.6g %s | %.6g %s | ±%.3g %s | %s\n", id.c_str(), measured, unit.c_str(), reference,
                unit.c_str(), tol, unit.c_str(), ok ? "ok" : "FAIL");
  std::fflush(stdout);
  INFO(id << ": measured " << measured << ", reference " << reference << ", tol " << tol);
  CHECK(ok);
  return ok;
}
inline bool report(const std::string& id, double measured, double reference, double rel_tol,
                   const std::string& unit = "") {
  return report(id, measured, reference, rel_tol, true, unit);
}

// `vcsim run SCENARIO -q -o DIR/NAME.h5 --set ...`; REQUIREs success; returns the output path.
inline std::string simulate(const std::filesystem::path& dir, const std::string& name, const std::string& scenario,
                            const std::vector<std::string>& sets = {}) {
  const std::string out = (dir / (name + ".h5")).string();
  std::string args = "run " + scenario + " -q -o " + out;
  for (const auto& s : sets) args += " --set '" + s + "'";
  const cli::Run r = cli::run(args);
  INFO(args << "\n" << r.output);
  REQUIRE(r.status == 0);
  return out;
}

// report(): a checked value against its reference (relative or absolute tolerance); bound(): a value
// under a limit; finish(): exit status 1 when any failed. LINE: the tag tools/validate collects (a test
// may print unit checks under another).
inline const std::string kPrelude = R"PY(
import sys, math, h5py, numpy as np
failed = []
LINE = 'VALIDATION'
def report(id, measured, reference, rel_tol=None, unit='', abs_tol=None):
    m = float(measured); r = float(reference)
    tol = abs_tol if abs_tol is not None else rel_tol * abs(r)
    ok = bool(abs(m - r) <= tol)
    ts = ('±%.3g %s' % (abs_tol, unit)) if abs_tol is not None else ('±%.3g %%' % (100 * rel_tol))
    print('%s | %s | %.6g %s | %.6g %s | %s | %s' % (LINE, id, m, unit, r, unit, ts, 'ok' if ok else 'FAIL'))
    if not ok: failed.append(id)
def bound(id, measured, limit, unit=''):
    ok = bool(float(measured) <= limit)
    print('%s | %s | %.3g %s | ≤ %.3g %s | bound | %s' % (LINE, id, measured, unit, limit, unit, 'ok' if ok else 'FAIL'))
    if not ok: failed.append(id)
def finish():
    sys.stdout.flush()
    if failed:
        print('FAILED:', ', '.join(failed)); sys.exit(1)
)PY";

// Runs kPrelude + extra + code with python3 in dir; returns its exit status.
inline int analyse(const std::filesystem::path& dir, const std::string& code, const std::string& extra = "") {
  return cli::run_python_check(dir, kPrelude + extra, code);
}

}  // namespace validation
