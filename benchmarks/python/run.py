#!/usr/bin/env python3
"""The Python module's targets (issue 21), Release build, 1 thread, medians of repeated timings:

1. overhead of sim.step() called from Python in a loop, beyond the C++ step (ball_on_table): the time per step of
   N calls of step() minus that of one call of step(N), from the same state;
2. sim.run(until=5) with output against `vcsim run` on ball_on_table: the run() call against the CLI's own
   wall_time_s (the stepping and writing; run() also opens the output, a fork of the writer's helper from the larger
   Python process), and load + build + run in Python against the CLI's whole process;
3. reading a state array (ball.position): per access;
4. vcsim.interference for a sphere on a plane (the closed form): per call.

    PYTHONPATH=build/python python3 benchmarks/python/run.py [--cli build/tools/vcsim] [--repeats 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import h5py

import vcsim

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "ball_on_table.yaml"


def median_of(fn, repeats):
    return statistics.median(fn() for _ in range(repeats))


def step_overhead(repeats, n=20000):
    """us per step: one step() call per step, against step(n), over the same n steps from t = 0 (the ball falls:
    the first 1 s holds the impacts, so both loops see the same contact work)."""
    sc = vcsim.load(SCENARIO)

    def calls():
        sim = vcsim.Simulation(sc)
        step = sim.step
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        return (time.perf_counter() - t0) / n * 1e6

    def one():
        sim = vcsim.Simulation(sc)
        t0 = time.perf_counter()
        sim.step(n)
        return (time.perf_counter() - t0) / n * 1e6

    # Alternated, so that the machine's drift falls on both alike; the overhead is the median of the differences.
    pairs = [(calls(), one()) for _ in range(repeats)]
    return (statistics.median(c for c, _ in pairs), statistics.median(o for _, o in pairs),
            statistics.median(c - o for c, o in pairs))


def run_against_cli(cli, repeats):
    with tempfile.TemporaryDirectory() as d:
        def py_run():
            sim = vcsim.Simulation(vcsim.load(SCENARIO))
            t0 = time.perf_counter()
            sim.run(until=5.0, output=os.path.join(d, "py.h5"))
            return time.perf_counter() - t0

        def py_whole():  # what the CLI process does, in this process: load, build, run with output
            t0 = time.perf_counter()
            vcsim.Simulation(vcsim.load(SCENARIO)).run(until=5.0, output=os.path.join(d, "pw.h5"))
            return time.perf_counter() - t0

        walls = []

        def cli_process():
            out = os.path.join(d, "cli.h5")
            t0 = time.perf_counter()
            subprocess.run([cli, "run", str(SCENARIO), "-o", out, "--quiet", "--threads", "1"], check=True,
                           stdout=subprocess.DEVNULL)
            elapsed = time.perf_counter() - t0
            with h5py.File(out, "r") as f:
                walls.append(float(f.attrs["wall_time_s"]))
            return elapsed

        # Alternated, so that the machine's drift (other jobs) falls on both alike.
        cli_totals, py_runs, py_wholes = [], [], []
        for _ in range(repeats):
            cli_totals.append(cli_process())
            py_runs.append(py_run())
            py_wholes.append(py_whole())
        med = statistics.median
        return med(py_runs), med(walls), med(py_wholes), med(cli_totals)


def state_read(repeats, n=200000):
    sim = vcsim.Simulation(vcsim.load(SCENARIO))
    ball = sim.body("ball")

    def once():
        t0 = time.perf_counter()
        for _ in range(n):
            ball.position
        return (time.perf_counter() - t0) / n * 1e6

    return median_of(once, repeats)


def interference_call(repeats, n=200000):
    ball, plane = vcsim.Shape.sphere(0.1), vcsim.Shape.half_space()
    pose = ([0.0, 0.0, 0.098], [1.0, 0.0, 0.0, 0.0])
    f = vcsim.interference

    def once():
        t0 = time.perf_counter()
        for _ in range(n):
            f(ball, pose, plane, None)
        return (time.perf_counter() - t0) / n * 1e6

    return median_of(once, repeats), median_of(lambda: vcsim._vcsim._time_interference(ball, pose, plane, None, n) * 1e6,
                                               repeats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=str(ROOT / "build" / "tools" / "vcsim"))
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    vcsim.set_threads(1)

    per_call, per_step, overhead = step_overhead(args.repeats)
    print(f"step() loop: {per_call:.2f} us per call, step(N): {per_step:.2f} us per step -> "
          f"overhead {overhead:.2f} us per call (target <= 3 us)")
    py_run, cli_wall, py_total, cli_total = run_against_cli(args.cli, args.repeats)
    print(f"run(until=5, output): {py_run:.3f} s; vcsim run wall_time_s {cli_wall:.3f} s -> "
          f"{py_run / cli_wall:.3f}x (target <= 1.05x); load + build + run: python {py_total:.3f} s, "
          f"the CLI's process {cli_total:.3f} s -> {py_total / cli_total:.3f}x")
    print(f"ball.position: {state_read(args.repeats):.3f} us per read (a numpy copy; target <= 1 us)")
    per_call, in_cpp = interference_call(args.repeats)
    print(f"interference(sphere, plane): {per_call:.3f} us per call (target <= 2 us), of which the C++ query "
          f"{in_cpp:.3f} us")


if __name__ == "__main__":
    main()
