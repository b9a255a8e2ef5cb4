// Shared by the tests that drive the vcsim binary as a user would: where the binary, the source tree
// and Debian's python3 (which has h5py) are, and running the binary with its output captured.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/scratch_dir.h"

namespace cli {

inline const std::string kVcsim = VCSIM_BINARY;
inline const std::string kSource = VCSIM_SOURCE_DIR;
inline const std::string kPython = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";

struct Run {
  int status;
  std::string output;  // stdout and stderr
};

// Runs a shell command; status is its exit status, -1 if it did not exit normally.
inline Run run_command(const std::string& cmd) {
  Run r{0, ""};
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// A scratch directory for this test process (tests/scratch_dir.h).
inline std::filesystem::path temp_dir(const std::string& name) { return scratch::dir(name); }

// The checks shared by the h5py analysis scripts: expect() prints every measured value with its bounds (so a passing
// run documents its numbers too), expect_true(), and finish(), which exits 1 naming what failed.
inline const std::string kCheckPrelude = R"PY(
import sys, h5py, numpy as np
failed = []
def expect(name, value, lo, hi, why=''):
    a = np.asarray(value, dtype=float)
    ok = bool(a.size > 0 and np.all(a >= lo) and np.all(a <= hi))
    shown = '%.9g' % a if a.ndim == 0 else ('%.9g' % a[0] if a.size == 1 else 'min %.9g, max %.9g (%d values)' % (a.min(), a.max(), a.size))
    print(('ok    ' if ok else 'FAIL  ') + '%s = %s (expected in [%.9g, %.9g]) %s' % (name, shown, lo, hi, why))
    if not ok: failed.append(name)
def expect_true(name, cond, detail=''):
    print(('ok    ' if cond else 'FAIL  ') + name + ' ' + str(detail))
    if not cond: failed.append(name)
def dataset_bytes(path):
    # Every dataset of an HDF5 file as raw bytes (for bitwise comparisons), and the open file (for dtypes).
    f = h5py.File(path, 'r')
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj[()].tobytes()) if isinstance(obj, h5py.Dataset) else None)
    return f, out
def finish():
    if failed:
        print('FAILED:', ', '.join(failed)); sys.exit(1)
)PY";

// Runs Debian's python3 on prelude + code + "finish()" (a check script written into dir); returns its
// exit status. Its output goes to the test log.
inline int run_python_check(const std::filesystem::path& dir, const std::string& prelude, const std::string& code) {
  static int counter = 0;
  const std::filesystem::path script = dir / ("check_" + std::to_string(++counter) + ".py");
  std::ofstream(script) << prelude << code << "\nfinish()\n";
  std::fflush(stdout);
  return std::system((kPython + " " + script.string()).c_str());
}

// Runs `vcsim ARGS`.
inline Run run(const std::string& args) { return run_command(kVcsim + " " + args); }

}  // namespace cli
