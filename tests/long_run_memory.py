#!/usr/bin/env python3
"""Long-run memory check (issue 8): peak RSS of a run to T2 within a tolerance of the peak of the same run
stopped at T1. Runs are deterministic (tests/determinism_test.cpp), so the first T1 seconds of the long run
are the short run: comparing the two peaks (getrusage ru_maxrss of each child, via os.wait4) is the peak at
T1 against the peak at T2 without sampling a running process.

  tests/long_run_memory.py VCSIM SCENARIO T1 T2 [--tolerance 0.10] [--threads 1] [--set KEY=VALUE ...]

Issue 8 asks battery_box at T1 = 10 s, T2 = 60 s (tests/long_run_memory_test.cpp,
tag [.][long]). Exit status 0 when peak(T2) <= (1 + tolerance) peak(T1)."""
import argparse, os, subprocess, sys, tempfile, time


def peak_rss_mb(cmd):
    start = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors='replace')
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit('run failed: %s\n%s' % (' '.join(cmd), err[-2000:]))
    return usage.ru_maxrss / 1024.0, time.time() - start  # ru_maxrss is in KiB on Linux


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('vcsim'); ap.add_argument('scenario')
    ap.add_argument('t1', type=float); ap.add_argument('t2', type=float)
    ap.add_argument('--tolerance', type=float, default=0.10)
    ap.add_argument('--threads', default='1')
    ap.add_argument('--set', action='append', default=[])
    a = ap.parse_args()
    out = tempfile.mkdtemp(prefix='vcsim_memory_')
    peaks = []
    for t in (a.t1, a.t2):
        cmd = [a.vcsim, 'run', a.scenario, '-q', '--threads', a.threads, '-o', os.path.join(out, 'run_%g.h5' % t),
               '--set', 'simulation.duration=%r' % t]
        for s in a.set:
            cmd += ['--set', s]
        mb, wall = peak_rss_mb(cmd)
        peaks.append(mb)
        print('%s to t = %g s: peak RSS %.1f MB (%.0f s wall)' % (os.path.basename(a.scenario), t, mb, wall), flush=True)
    growth = peaks[1] / peaks[0] - 1
    print('peak RSS growth from t = %g s to t = %g s: %+.2f%% (limit %+.0f%%)' % (a.t1, a.t2, 100 * growth, 100 * a.tolerance))
    subprocess.run(['rm', '-rf', out])
    sys.exit(0 if growth <= a.tolerance else 1)


if __name__ == '__main__':
    main()
