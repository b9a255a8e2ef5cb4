#!/usr/bin/env python3
"""Issue 18's integrator benchmarks (Release, `vcsim run --threads 1`, median wall of 3 runs). Prints Markdown:
1. every integrator on each scenario: wall, right-hand-side evaluations, accepted and rejected steps, wall against
   the scenario's fixed step;
2. ball_on_table's roll-off (centre crosses the edge y = 0.3 m; contact lost) at fixed steps and at tolerances;
3. the stiff resting box (benchmarks/integration/stiff_box_rest.yaml).
Usage: run.py BUILD_DIR"""
import os
import statistics
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build-bench")
vcsim = os.path.join(build, "tools", "vcsim")
ADAPTIVE = ["dopri5", "bs23", "rosenbrock23"]


def run(tmp, scenario, sets, repeats=3):
    """Median wall and the attributes and roll-off events of the last run."""
    walls = []
    out = os.path.join(tmp, "run.h5")
    for _ in range(repeats):
        cmd = [vcsim, "run", scenario, "-o", out, "--threads", "1", "-q"]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with h5py.File(out, "r") as f:
            walls.append(float(f.attrs["wall_time_s"]))
            attrs = {k: f.attrs[k] for k in f.attrs}
            info = {"attrs": attrs, "sim": float(f["time"][-1])}
            if "contacts/ball__table" in f:
                t = f["time"][:]
                y = f["bodies/ball/position"][:, 1]
                ic = f["contacts/ball__table/in_contact"][:].ravel()
                info["cross"] = float(t[np.argmax(y > 0.3)]) if (y > 0.3).any() else float("nan")
                on = np.where(ic == 1)[0]
                info["lost"] = float(t[on[-1] + 1]) if len(on) and on[-1] + 1 < len(t) else float("nan")
    info["wall"] = statistics.median(walls)
    return info


def steps(info):
    a = info["attrs"]
    acc = int(a["steps"])
    rej = int(a["rejected_steps"]) if "rejected_steps" in a else 0
    return acc, rej


with tempfile.TemporaryDirectory() as tmp:
    print("### Every integrator on each scenario (default tolerance rel_tol 1e-6)\n")
    print("| scenario | integrator | wall s | RHS evaluations | accepted | rejected | median step s | wall / fixed |")
    print("|---|---|---|---|---|---|---|---|")
    # The fixed-step reference: the file's own, or the fixed step these files used before they moved to dopri5.
    scenarios = {"ball_on_table": [], "tippe_top": [], "battery_box": [], "ball_in_cylinder": [],
                 "bouncing_ball": ["simulation.integrator=rk4", "simulation.step=1e-4"],
                 "spinning_top_space": ["simulation.integrator=rk3", "simulation.step=1e-4"],
                 "free_fall": ["simulation.integrator=rk4", "simulation.step=1e-3"]}
    paths = [(os.path.join(ROOT, "scenarios", s + ".yaml"), ref) for s, ref in scenarios.items()]
    paths.append((os.path.join(HERE, "stiff_box_rest.yaml"), []))
    for path, reference in paths:
        name = os.path.basename(path)[:-5]
        fixed = run(tmp, path, reference)
        base = fixed["wall"]
        integrator = fixed["attrs"]["integrator"]
        integrator = integrator.decode() if isinstance(integrator, bytes) else integrator
        rows = [("%s at %g s%s" % (integrator, fixed["attrs"]["step"], "" if reference else " (the file's)"), fixed)]
        for integ in ADAPTIVE:
            rows.append((integ, run(tmp, path, ["simulation.integrator=" + integ])))
        for label, info in rows:
            acc, rej = steps(info)
            a = info["attrs"]
            med = a["median_step"] if "median_step" in a else a["step"]
            print("| %s | %s | %.3f | %d | %d | %d | %.2g | %.2f |" % (
                name, label, info["wall"], int(a["rhs_evaluations"]), acc, rej, med, info["wall"] / base))
    print()
    print("### ball_on_table: the roll-off at fixed steps and at tolerances\n")
    print("| integrator | step or rel_tol | centre crosses y = 0.3 m [s] | contact lost [s] | wall s | RHS evaluations |")
    print("|---|---|---|---|---|---|")
    bot = os.path.join(ROOT, "scenarios", "ball_on_table.yaml")
    for h in ["5e-5", "1e-4", "2e-4", "5e-4", "1e-3"]:
        info = run(tmp, bot, ["simulation.step=" + h], repeats=1)
        print("| rk3 | %s s | %.3f | %.3f | %.3f | %d |" % (h, info["cross"], info["lost"], info["wall"],
                                                          int(info["attrs"]["rhs_evaluations"])))
    for integ in ADAPTIVE:
        for tol in ["1e-4", "1e-6", "1e-8"]:
            info = run(tmp, bot, ["simulation.integrator=" + integ, "simulation.rel_tol=" + tol])
            print("| %s | %s | %.3f | %.3f | %.3f | %d |" % (integ, tol, info["cross"], info["lost"], info["wall"],
                                                             int(info["attrs"]["rhs_evaluations"])))
