#!/usr/bin/env python3
"""A control loop around ball_on_table: the ball is dropped with spin 3 rad/s about z, and at t = 1 s (after the
bounces, while it rolls) the loop reverses its spin; the spinning friction then brings the new spin down.

    PYTHONPATH=build/python python3 examples/python/ball_spin_control.py [--until 2.0]

Prints the spin every 0.25 s. The loop steps 1 ms (20 steps of 50 us) at a time and reads the state as numpy arrays.
"""
import argparse
from pathlib import Path

import vcsim

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--until", type=float, default=2.0, help="s, simulated time (default 2)")
    ap.add_argument("--switch", type=float, default=1.0, help="s, when the spin is reversed (default 1)")
    args = ap.parse_args(argv)

    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml"))
    ball = sim.body("ball")
    switched = False
    rows = []
    while sim.time < args.until - 1e-9:
        sim.step(20)  # 1 ms
        if not switched and sim.time >= args.switch - 1e-9:
            w = ball.angular_velocity
            w[2] = -w[2]  # reverse the spin about the vertical, keep the rolling
            ball.angular_velocity = w
            switched = True
            print(f"t = {sim.time:.3f} s: spin reversed to {w[2]:+.4f} rad/s")
        if round(sim.time * 1000) % 250 == 0:
            c = sim.contacts[0]
            rows.append((sim.time, ball.angular_velocity[2], c["force"][2]))
            print(f"t = {sim.time:5.3f} s  spin {rows[-1][1]:+.4f} rad/s  normal force {rows[-1][2]:7.3f} N  "
                  f"z {ball.position[2]:.5f} m")
    return rows


if __name__ == "__main__":
    main()
