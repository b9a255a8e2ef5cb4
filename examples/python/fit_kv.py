#!/usr/bin/env python3
"""Identifying the volumetric stiffness k_v from a force-penetration curve, as Boos did, on synthetic data.

The "measurement": the engine presses the ball_on_table ball (R = 0.1 m) into the table at 20 penetrations
0.1 ... 2 mm with a stiffness k_v_true, at rest, and reads the normal contact force; 1 % Gaussian noise (seeded) stands
for the load cell. The fit: the volumetric model at rest is F = k_v V(delta) (thesis eq 4.62 without damping), with
V(delta) the interference volume of the sphere and the table, which vcsim.interference gives for any shape; least
squares of F against V gives k_v = sum(F V) / sum(V^2).

    PYTHONPATH=build/python python3 examples/python/fit_kv.py [--k-true 1e7] [--plot fit.png]
"""
import argparse
from pathlib import Path

import numpy as np

import vcsim

ROOT = Path(__file__).resolve().parents[2]
R = 0.1  # m, the ball's radius


def measure(k_true, depths, noise, seed):
    """The normal force of the engine's volumetric contact at each penetration (ball at rest), with noise. Each
    depth is a scenario of its own: a ball placed in contact at t = 0 starts its contact episode there (at rest, no
    relaxation: docs/contact-models.md, "Initial contact state")."""
    forces = []
    for d in depths:
        sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml",
                                          {"contacts[0].k_v": k_true, "bodies.ball.position": [0, 0, R - d],
                                           "bodies.ball.velocity": [0, 0, 0],
                                           "bodies.ball.angular_velocity": [0, 0, 0]}))
        forces.append(sim.contacts[0]["force"][2])
    rng = np.random.default_rng(seed)
    return np.array(forces) * (1 + noise * rng.standard_normal(len(depths)))


def fit(depths, forces):
    """k_v by least squares of F = k_v V(delta), V from the interference engine."""
    ball, table = vcsim.Shape.sphere(R), vcsim.Shape.half_space()
    V = np.array([vcsim.interference(ball, ([0, 0, R - d], [1, 0, 0, 0]), table, None).volume for d in depths])
    return float(forces @ V / (V @ V)), V


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k-true", type=float, default=1e7, help="N/m^3, the stiffness that makes the data")
    ap.add_argument("--noise", type=float, default=0.01, help="relative noise of the force (default 0.01)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plot", help="write the data and the fit to this PNG")
    args = ap.parse_args(argv)

    depths = np.linspace(1e-4, 2e-3, 20)
    forces = measure(args.k_true, depths, args.noise, args.seed)
    k, V = fit(depths, forces)
    print(f"k_v fitted {k:.4e} N/m^3 (true {args.k_true:.4e}, {100 * (k / args.k_true - 1):+.2f} %)")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(depths * 1e3, forces, "o", label="engine + 1 % noise")
        ax.plot(depths * 1e3, k * V, "-", label=f"fit: k_v = {k:.3e} N/m³")
        ax.set_xlabel("penetration δ (mm)")
        ax.set_ylabel("normal force (N)")
        ax.set_title("ball_on_table: k_v from the force–penetration curve")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"plot: {args.plot}")
    return k


if __name__ == "__main__":
    main()
