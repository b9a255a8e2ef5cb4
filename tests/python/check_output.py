#!/usr/bin/env python3
"""Independent checker of vcsim HDF5 output files, using h5py only (not vcsim code).

Checks the layout of docs/output-format.md: every per-sample dataset has the same length as
/time and as the root attribute `samples`, is chunked and extendable (maxshape[0] None) and has
a str `units` attribute; quaternions state their order; root text attributes read as str.

With --expect synthetic, every row is compared with the closed-form test trajectory (the same
formulas as tests/output_hdf5_test.cpp, written again here):
  t_i = i*dt; body k: v0 = 1+k, w = 0.5(k+1), g = 9.81, h = 10, m = 2, Izz = 0.1
    position (v0 t, k, h - g t^2/2), velocity (v0, 0, -g t),
    orientation (cos(w t/2), 0, 0, sin(w t/2)), angular_velocity (0, 0, w)
  energy: kinetic = sum(m|v|^2/2 + Izz w^2/2), potential = sum(m g z), contact = 0,
    total = kinetic + potential = sum(m v0^2/2 + Izz w^2/2 + m g h)   (conserved: projectile)
  pair p (body p on body p+1): s = sin((p+1) t); in_contact = s > 0; force (0, 0, 100 max(s,0));
    point (v0_p t, p + 0.5, 0); torque_about_point (0, 0, 0.1 sin t);
    torque_about_body_i = (point - position_p) x force + torque_about_point;
    channels volume [N,1] = 1e-6 max(s,0), inertia [N,6] = 1e-9 (1..6) t
Exit status 0 when every file passes; prints one JSON line per file.
"""
import argparse
import json
import math
import sys

import h5py
import numpy as np

# Tolerance: the C++ test and numpy evaluate the same formulas with libm/numpy sin and cos,
# which may differ by an ulp; 1e-12 relative + 1e-12 absolute covers that and nothing more.
RTOL = 1e-12
ATOL = 1e-12


def synthetic(t, bodies, pairs):
    g, h, m, izz = 9.81, 10.0, 2.0, 0.1
    exp = {}
    kin = np.zeros_like(t)
    pot = np.zeros_like(t)
    const_total = 0.0
    pos = {}
    for k in range(bodies):
        v0, w = 1.0 + k, 0.5 * (k + 1)
        p = np.stack([v0 * t, np.full_like(t, float(k)), h - 0.5 * g * t * t], axis=1)
        v = np.stack([np.full_like(t, v0), np.zeros_like(t), -g * t], axis=1)
        q = np.stack([np.cos(w * t / 2), np.zeros_like(t), np.zeros_like(t), np.sin(w * t / 2)], axis=1)
        om = np.tile([0.0, 0.0, w], (len(t), 1))
        name = f"/bodies/b{k}/"
        exp[name + "position"], exp[name + "velocity"] = p, v
        exp[name + "orientation"], exp[name + "angular_velocity"] = q, om
        pos[k] = p
        kin += 0.5 * m * np.sum(v * v, axis=1) + 0.5 * izz * w * w
        pot += m * g * p[:, 2]
        const_total += 0.5 * m * v0 * v0 + 0.5 * izz * w * w + m * g * h
    exp["/energy/kinetic"], exp["/energy/potential"] = kin, pot
    exp["/energy/contact"] = np.zeros_like(t)
    exp["/energy/total"] = np.full_like(t, const_total)
    for p in range(pairs):
        s = np.sin((p + 1) * t)
        sp = np.maximum(s, 0.0)
        f = np.stack([np.zeros_like(t), np.zeros_like(t), 100.0 * sp], axis=1)
        pt = np.stack([(1.0 + p) * t, np.full_like(t, p + 0.5), np.zeros_like(t)], axis=1)
        tap = np.stack([np.zeros_like(t), np.zeros_like(t), 0.1 * np.sin(t)], axis=1)
        name = f"/contacts/c{p}/"
        exp[name + "in_contact"] = (s > 0).astype(np.uint8)
        exp[name + "force"], exp[name + "point"] = f, pt
        exp[name + "torque_about_point"] = tap
        exp[name + "torque_about_body_i"] = np.cross(pt - pos[p], f) + tap
        exp[name + "volume"] = 1e-6 * sp[:, None]
        exp[name + "inertia"] = 1e-9 * np.outer(t, np.arange(1.0, 7.0))
    return exp


def check(path, args):
    errors = []
    info = {"file": path}
    with h5py.File(path, "r") as f:
        attrs = dict(f.attrs)
        for name in ["status", "format", "quaternion_order"] + (args.text_attr or []):
            if name not in attrs:
                errors.append(f"root attribute '{name}' missing")
            elif not isinstance(attrs[name], str):
                errors.append(f"root attribute '{name}' is {type(attrs[name]).__name__}, not str")
        for name in args.number_attr or []:
            if name not in attrs or not np.isscalar(attrs[name]) or isinstance(attrs[name], str):
                errors.append(f"root attribute '{name}' missing or not a number")
        info["status"] = attrs.get("status")
        if args.status is not None and attrs.get("status") != args.status:
            errors.append(f"status is {attrs.get('status')!r}, expected {args.status!r}")
        if "time" not in f:
            errors.append("/time missing")
            return errors, info
        n = f["time"].shape[0]
        info["samples"] = n
        if int(attrs.get("samples", -1)) != n:
            errors.append(f"attribute samples={attrs.get('samples')} but /time has {n} rows")
        datasets = []
        f.visititems(lambda name, obj: datasets.append("/" + name) if isinstance(obj, h5py.Dataset) else None)
        info["datasets"] = len(datasets)
        lengths = {}
        for d in datasets:
            ds = f[d]
            lengths[d] = ds.shape[0]
            if ds.shape[0] != n:
                errors.append(f"{d} has {ds.shape[0]} rows, /time has {n}")
            if ds.chunks is None or ds.maxshape[0] is not None:
                errors.append(f"{d} is not chunked and extendable (chunks={ds.chunks}, maxshape={ds.maxshape})")
            if not isinstance(ds.attrs.get("units"), str):
                errors.append(f"{d} has no str 'units' attribute")
            if d.endswith("/orientation") and ds.attrs.get("order") != "w,x,y,z":
                errors.append(f"{d} lacks order='w,x,y,z'")
        info["lengths_equal"] = len(set(lengths.values())) <= 1
        if args.samples is not None and n != args.samples:
            errors.append(f"{n} samples, expected {args.samples}")
        if n < args.min_samples:
            errors.append(f"{n} samples, expected at least {args.min_samples}")
        if args.expect == "synthetic":
            t = f["time"][...]
            want_t = np.arange(n) * args.dt
            if not np.array_equal(t, want_t):  # both are i*dt in IEEE double: exact
                bad = int(np.argmax(t != want_t))
                errors.append(f"/time[{bad}] = {t[bad]!r}, expected {want_t[bad]!r}")
            exp = synthetic(want_t, args.bodies, args.pairs)
            missing = set(exp) - set(datasets)
            extra = set(datasets) - set(exp) - {"/time"}
            if missing or extra:
                errors.append(f"datasets missing {sorted(missing)} / unexpected {sorted(extra)}")
            worst = 0.0
            for d, e in exp.items():
                if d not in f:
                    continue
                got = f[d][...]
                if got.shape != e.shape:
                    errors.append(f"{d} shape {got.shape}, expected {e.shape}")
                    continue
                if got.dtype == np.uint8:
                    bad = np.nonzero(got != e)[0]
                else:
                    err = np.abs(got - e) - RTOL * np.abs(e)
                    worst = max(worst, float(np.max(np.abs(got - e)))) if got.size else worst
                    bad = np.nonzero((err > ATOL).reshape(len(got), -1).any(axis=1))[0]
                if len(bad):
                    errors.append(f"{d}: {len(bad)} corrupted rows, first {int(bad[0])}: "
                                  f"{got[bad[0]]!r} != {e[bad[0]]!r}")
            info["max_abs_error"] = worst
    return errors, info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--expect", choices=["none", "synthetic"], default="none")
    ap.add_argument("--bodies", type=int, default=0)
    ap.add_argument("--pairs", type=int, default=0)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--status")
    ap.add_argument("--samples", type=int)
    ap.add_argument("--min-samples", type=int, default=0)
    ap.add_argument("--text-attr", action="append", help="root attribute that must be a str")
    ap.add_argument("--number-attr", action="append", help="root attribute that must be a number")
    args = ap.parse_args()
    failed = 0
    for path in args.files:
        try:
            errors, info = check(path, args)
        except Exception as e:  # noqa: BLE001 - any failure to open/read is a test failure
            errors, info = [f"{type(e).__name__}: {e}"], {"file": path}
        info["errors"] = errors
        print(json.dumps(info, default=str))
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
