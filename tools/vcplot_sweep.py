"""Figures of a `vcsim sweep` table (format "vcsim-sweep", docs/sweeps.md), called by tools/vcplot.

One figure per outcome column, sweep_<outcome>.png: the outcome against each parameter (one panel per
parameter). With a pass predicate, runs that pass are filled circles and runs that fail are red crosses;
with two or more parameters, the colour of a point is the value of the next parameter (colour bar).
Runs whose status is not "completed" have NaN outcomes and are left out (the title counts them).
"""
import os

import numpy as np


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def plot_sweep(f, path, out_dir, figsize, dpi):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = f["runs"]
    params = [p for p in text(f.attrs.get("parameters", "")).split(",") if p]
    outcomes = [o for o in text(f.attrs.get("outcomes", "")).split(",") if o and o != "pass"]
    name = text(f.attrs.get("sweep_name", os.path.basename(path)))
    out = out_dir or os.path.splitext(path)[0] + "-plots"
    os.makedirs(out, exist_ok=True)
    status = [text(s) for s in runs["status"][:]]
    n = len(status)
    failed = sum(s != "completed" for s in status)
    passed = runs["pass"][:].astype(bool) if "pass" in runs else None
    written = []
    for o in outcomes:
        y = runs[o][:]
        units = text(runs[o].attrs.get("units", ""))
        fig, axes = plt.subplots(1, len(params), figsize=figsize, dpi=dpi, layout="constrained", squeeze=False)
        for k, p in enumerate(params):
            ax = axes[0][k]
            x = runs[p][:]
            c = runs[params[(k + 1) % len(params)]][:] if len(params) > 1 else None
            ok = np.isfinite(y)
            sel_pass = ok & (passed if passed is not None else np.ones(n, bool))
            colour = {} if c is None else dict(c=c[sel_pass], cmap="viridis", vmin=np.nanmin(c), vmax=np.nanmax(c))
            sc = ax.scatter(x[sel_pass], y[sel_pass], s=36, label="pass" if passed is not None else None, **colour)
            if passed is not None:
                sel_fail = ok & ~passed
                ax.scatter(x[sel_fail], y[sel_fail], marker="x", color="red", s=42, label="fail")
                ax.legend(loc="best")
            if c is not None:
                fig.colorbar(sc, ax=ax, label=params[(k + 1) % len(params)])
            ax.set_xlabel(f"{p}  ({text(runs[p].attrs.get('path', ''))})")
            ax.set_ylabel(f"{o} [{units}]" if units else o)
            ax.grid(True, alpha=0.3)
        what = f"{o} against {', '.join(params)}"
        note = f" ({failed} of {n} runs failed, not shown)" if failed else f" ({n} runs)"
        fig.suptitle(f"{name}: {what}{note}", fontsize=13)
        fname = os.path.join(out, f"sweep_{o}.png")
        fig.savefig(fname, dpi=dpi)
        plt.close(fig)
        written.append(fname)
    for w in written:
        print(w)
    print(f"{len(written)} figures of the sweep {name} ({n} runs) in {out}")
    return 0
