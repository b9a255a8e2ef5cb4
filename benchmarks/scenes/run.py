#!/usr/bin/env python3
"""Issue 16's benchmark scenes: each scene of benchmarks/scenes/ run 3 times with `vcsim run --threads 1`, the
median wall time per simulated second and per interference query (from the output's attributes), and MuJoCo's
rock beside rock_on_table. Prints a Markdown table. Usage: run.py BUILD_DIR"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build-bench")
vcsim = os.path.join(build, "tools", "vcsim")
rows = []
with tempfile.TemporaryDirectory() as tmp:
    for name in sorted(f[:-5] for f in os.listdir(HERE) if f.endswith(".yaml")):
        walls, sim, queries = [], 0.0, 0
        for _ in range(3):
            out = os.path.join(tmp, name + ".h5")
            subprocess.run([vcsim, "run", os.path.join(HERE, name + ".yaml"), "-o", out, "--threads", "1"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with h5py.File(out, "r") as f:
                walls.append(float(f.attrs["wall_time_s"]))
                sim = float(f["time"][-1])
                queries = int(f.attrs["interference_queries"])
        w = statistics.median(walls)
        rows.append((name, sim, w, w / sim, queries, w / queries * 1e6))
    peer = None
    mujoco = os.path.join(build, "benchmarks", "mujoco_rock")
    if os.path.exists(mujoco):
        r = subprocess.run([mujoco, os.path.join(HERE, "..", "meshes", "rock_700.obj"), "1e-4", "2", "3"],
                           check=True, capture_output=True, text=True, cwd=tmp)
        peer = statistics.median(json.loads(r.stdout)["wall_s"])
print("| scene | simulated s | wall s (median of 3) | wall s per simulated s | queries | µs per query, all in |")
print("|---|---|---|---|---|---|")
for name, sim, w, ratio, q, per in rows:
    print(f"| {name} | {sim:g} | {w:.3f} | {ratio:.3f} | {q} | {per:.2f} |")
if peer is not None:
    rock = next(r for r in rows if r[0] == "rock_on_table")
    print(f"\nMuJoCo, the same rock (its convex hull) on the same table, RK4 at 100 µs, 2 s: {peer:.3f} s wall "
          f"(median of 3); vcsim / MuJoCo = {rock[2] / peer:.2f}")
