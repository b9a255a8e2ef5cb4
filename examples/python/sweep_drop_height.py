#!/usr/bin/env python3
"""A sweep in plain Python: the ball_on_table ball dropped from several heights; the outcome is the peak normal
force of the first impact, plotted against the impact speed sqrt(2 g h).

    PYTHONPATH=build/python python3 examples/python/sweep_drop_height.py [--heights 0.02 0.05 0.1 0.2] [-o sweep.png]

Each run is a Simulation of its own (overrides in a dict); each stops 20 ms after the first contact. For a single
process this replaces `vcsim sweep` (docs/sweeps.md), which runs many processes, MPI ranks and resumes.
"""
import argparse
import math
from pathlib import Path

import numpy as np

import vcsim

ROOT = Path(__file__).resolve().parents[2]
R, G = 0.1, 9.81


def peak_force(height):
    """Peak normal force (N) of the first impact of the ball dropped from `height` (m, gap under the ball)."""
    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml",
                                      {"bodies.ball.position": [0, 0, R + height], "bodies.ball.velocity": [0, 0, 0],
                                       "bodies.ball.angular_velocity": [0, 0, 0]}))
    t_impact = math.sqrt(2 * height / G)
    sim.step(int((t_impact - 2e-3) / 5e-5))  # to 2 ms before the contact, in one call
    peak, first_contact = 0.0, None
    while first_contact is None or sim.time < first_contact + 0.02:
        sim.step()
        c = sim.contacts[0]
        if c["in_contact"] and first_contact is None:
            first_contact = sim.time
        peak = max(peak, c["force"][2])
    return peak


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heights", type=float, nargs="+", default=[0.01, 0.02, 0.05, 0.1, 0.2, 0.3], help="m")
    ap.add_argument("-o", "--output", default="sweep_drop_height.png", help="the plot (PNG)")
    args = ap.parse_args(argv)

    heights = np.array(args.heights)
    peaks = np.array([peak_force(h) for h in heights])
    speeds = np.sqrt(2 * G * heights)
    for h, v, f in zip(heights, speeds, peaks):
        print(f"h = {h:.3f} m  v = {v:.3f} m/s  peak normal force {f:9.2f} N")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(speeds, peaks, "o-")
    ax.set_xlabel("impact speed (m/s)")
    ax.set_ylabel("peak normal force (N)")
    ax.set_title("ball_on_table: first impact, volumetric model")
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"plot: {args.output}")
    return heights, peaks


if __name__ == "__main__":
    main()
