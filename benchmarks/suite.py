#!/usr/bin/python3
"""vcsim benchmark suite (called by benchmarks/run): micro benchmarks of the interference query,
scenario benchmarks on 1 and 2 threads, and the MuJoCo peer run of ball_on_table.

Writes RESULTS/results.json and RESULTS/results.md. Not part of the test command: timings depend on
the machine and on what else runs on it.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

SCENARIOS = ["ball_on_table", "tippe_top", "battery_box", "ball_in_cylinder"]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_measured(cmd, cwd=None):
    """Runs cmd; returns (wall seconds, peak RSS in MiB, stdout)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {p.returncode}")
    return time.monotonic() - t0, usage.ru_maxrss / 1024.0, out


def micro(build):
    _, _, out = run_measured([f"{build}/benchmarks/bench_interference"])
    rows = []
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and re.match(r"^([0-9][0-9.e+-]*|-)$", cells[2]):
            exact = cells[1] == "closed form"
            rows.append({"case": cells[0], "engine": cells[1],
                         "tolerance": None if exact else float(cells[2]),
                         "spacing_m": None if exact else float(cells[3]),
                         "columns": int(cells[4]), "V_rel_error": float(cells[5]),
                         "us_1_thread": float(cells[6]), "us_2_threads": float(cells[7])})
        m = re.match(r"^\| (.*) \| column: fitted cost ∝ spacing\^([-0-9.]+)", line)
        if m:
            for r in rows:
                if r["case"] == m.group(1) and r["engine"] == "column":
                    r["fitted_exponent"] = float(m.group(2))
    return rows, out


def trajectory_events(h5file):
    """The ball_on_table events that the peer comparison reports."""
    import h5py
    import numpy as np
    with h5py.File(h5file, "r") as f:
        t = f["time"][:]
        p = f["bodies/ball/position"][:]
        v = f["bodies/ball/velocity"][:]
        w = f["bodies/ball/angular_velocity"][:]
        inc = f["contacts/ball__table/in_contact"][:] > 0
    ev = {}
    ev["first_contact_s"] = float(t[np.argmax(inc)]) if inc.any() else None
    ev["vy_at_0.35_s"] = float(np.interp(0.35, t, v[:, 1]))
    late = (t > 0.5) & (np.abs(w[:, 2]) < 0.01)
    ev["spin_stop_s"] = float(t[np.argmax(late)]) if late.any() else None
    over = p[:, 1] >= 0.3
    ev["centre_over_edge_s"] = float(t[np.argmax(over)]) if over.any() else None
    if inc.any():
        last = len(inc) - 1 - int(np.argmax(inc[::-1]))
        ev["contact_lost_s"] = float(t[last])
        ev["y_at_contact_loss_m"] = float(p[last, 1])
    return ev


def scenario_runs(build, root, names, threads_list, tmp):
    import h5py
    results = []
    for name in names:
        path = os.path.join(root, "scenarios", f"{name}.yaml")
        if not os.path.exists(path):
            results.append({"scenario": name, "missing": True})
            continue
        for threads in threads_list:
            out = os.path.join(tmp, f"{name}-{threads}.h5")
            wall, rss, _ = run_measured([f"{build}/tools/vcsim", "run", path, "-o", out, "--threads", str(threads)])
            with h5py.File(out, "r") as f:
                a = f.attrs
                sim = float(f["time"][-1])
                r = {"scenario": name, "threads": threads, "simulated_s": sim, "wall_s": float(a["wall_time_s"]),
                     "process_wall_s": wall, "peak_rss_MiB": rss, "status": str(a["status"]),
                     "steps": int(a["steps"]), "rhs_evaluations": int(a["rhs_evaluations"]),
                     "interference_queries": int(a["interference_queries"])}
            r["real_time_factor"] = sim / r["wall_s"]
            r["rhs_per_s"] = r["rhs_evaluations"] / r["wall_s"]
            r["queries_per_s"] = r["interference_queries"] / r["wall_s"]
            if name == "ball_on_table" and threads == threads_list[0]:
                r["events"] = trajectory_events(out)
            results.append(r)
            print(f"  {name} on {threads} thread(s): {r['wall_s']:.1f} s wall, RTF {r['real_time_factor']:.3f}",
                  file=sys.stderr)
    return results


def peer(build, repeats, tmp):
    exe = f"{build}/benchmarks/mujoco_ball_on_table"
    if not os.path.exists(exe):
        return None
    _, _, out = run_measured([exe, "5e-5", "5", str(repeats)], cwd=tmp)
    return json.loads(out)


def markdown(res):
    L = []
    m = res["machine"]
    L.append(f"Machine: {m['cpu']}, {m['cores']} cores, {m['os']}. Command: `{res['command']}`. "
             f"Date: {res['date']}.\n")
    L.append("### Interference query (median of repeated queries)\n")
    L.append("| case | engine | tolerance | columns | V rel. error | 1 thread (µs) | 2 threads (µs) | fitted cost exponent |")
    L.append("|---|---|---|---|---|---|---|---|")
    for r in res["micro"]:
        tol = "-" if r["tolerance"] is None else f"{r['tolerance']:.0e}"
        L.append(f"| {r['case']} | {r['engine']} | {tol} | {r['columns']} | {r['V_rel_error']:.2e} | "
                 f"{r['us_1_thread']:.2f} | {r['us_2_threads']:.2f} | {r.get('fitted_exponent', '')} |")
    L.append("\n### Scenarios\n")
    L.append("| scenario | threads | simulated (s) | wall (s) | real-time factor | RHS/s | queries/s | peak RSS (MiB) | status |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for r in res["scenarios"]:
        if r.get("missing"):
            L.append(f"| {r['scenario']} | – | – | – | – | – | – | – | no scenario file |")
            continue
        L.append(f"| {r['scenario']} | {r['threads']} | {r['simulated_s']:.3g} | {r['wall_s']:.1f} | "
                 f"{r['real_time_factor']:.3f} | {r['rhs_per_s']:.0f} | {r['queries_per_s']:.0f} | "
                 f"{r['peak_rss_MiB']:.0f} | {r['status']} |")
    p = res.get("peer")
    if p:
        walls = p["wall_s"]
        med = statistics.median(walls)
        vc = [r for r in res["scenarios"] if r["scenario"] == "ball_on_table" and not r.get("missing")]
        L.append("\n### Peer: MuJoCo on ball_on_table (RK4, 50 µs, 5 s, condim 6)\n")
        L.append(f"MuJoCo wall time: median {med:.3f} s, range {min(walls):.3f}–{max(walls):.3f} s over "
                 f"{len(walls)} runs.")
        if vc:
            best = min(r["wall_s"] for r in vc)
            L.append(f" vcsim (RK3, 50 µs, volumetric): {best:.1f} s, i.e. **{best / med:.0f}× MuJoCo** "
                     f"(target ≤ 3×).\n")
            ev = vc[0].get("events", {})
            L.append("| event | vcsim (volumetric) | MuJoCo (point, condim 6) | thesis |")
            L.append("|---|---|---|---|")
            thesis = {"first_contact_s": "0.143", "vy_at_0.35_s": "0.197", "spin_stop_s": "1.9",
                      "centre_over_edge_s": "≈4.0", "contact_lost_s": "≈4.3", "y_at_contact_loss_m": "–"}
            for k in thesis:
                a, b = ev.get(k), p.get(k)
                fa = f"{a:.4g}" if isinstance(a, float) else "never"
                fb = f"{b:.4g}" if isinstance(b, float) else "never"
                L.append(f"| {k} | {fa} | {fb} | {thesis[k]} |")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--out", required=True)
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--peer-repeats", type=int, default=5)
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)  # the peer runs in a temporary directory
    os.makedirs(args.out, exist_ok=True)
    res = {"command": " ".join(["benchmarks/run"] + sys.argv[1:]), "date": time.strftime("%Y-%m-%d"),
           "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()}}
    print("micro benchmarks...", file=sys.stderr)
    res["micro"], raw = micro(args.build)
    with tempfile.TemporaryDirectory() as tmp:
        print("scenarios...", file=sys.stderr)
        res["scenarios"] = scenario_runs(args.build, args.root, [s for s in args.scenarios.split(",") if s],
                                         [int(t) for t in args.threads.split(",")], tmp)
        print("peer...", file=sys.stderr)
        res["peer"] = peer(args.build, args.peer_repeats, tmp)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = markdown(res)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
