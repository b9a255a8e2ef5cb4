# examples/python/ on short horizons: each runs for real, and its result is checked against physics.
import importlib.util
import math

import pytest

from conftest import ROOT


def example(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "python" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ball_spin_control():
    rows = example("ball_spin_control").main(["--until", "1.0", "--switch", "0.75"])
    spin = {round(t, 3): w for t, w, _ in rows}
    # Reversed at 0.75 s (set exactly, so the sign flips); after the bounces the ball rests on the table, so the
    # normal force is its weight, 2 kg x 9.81 m/s² (the volumetric damping and rolling terms vanish at steady
    # rolling; 1 % covers the small vertical oscillation left from the bounces).
    assert spin[0.5] > 0 and spin[0.75] < 0
    assert abs(spin[1.0]) < abs(spin[0.75])  # spinning friction only takes spin away
    assert rows[-1][2] == pytest.approx(2 * 9.81, rel=0.01)


def test_fit_kv():
    ex = example("fit_kv")
    # Without noise the fit is exact: the engine's force at rest is k_v V with the same closed-form V.
    assert ex.main(["--noise", "0"]) == pytest.approx(1e7, rel=1e-9)
    # With 1 % noise on 20 points the estimate's standard deviation is ~1 % / sqrt(effective points) ≈ 0.4 %;
    # 2 % is five of them.
    assert ex.main(["--k-true", "3e7", "--seed", "7"]) == pytest.approx(3e7, rel=0.02)


def test_sweep_drop_height(tmp_path):
    out = tmp_path / "sweep.png"
    heights, peaks = example("sweep_drop_height").main(["--heights", "0.02", "0.08", "-o", str(out)])
    assert out.stat().st_size > 1000
    # Undamped estimate: F = k_v pi R delta² for a shallow cap, and k_v pi R delta³ / 3 = m v² / 2 at the deepest
    # point, so F_max = k_v pi R (3 m g h / (k_v pi R))^(2/3). The hysteretic damping (e_eff = 0.5) and the cap's
    # exact volume change it by tens of per cent, not by a factor of 2.
    k, R, m, g = 1e7, 0.1, 2.0, 9.81
    for h, f in zip(heights, peaks):
        estimate = k * math.pi * R * (3 * m * g * h / (k * math.pi * R)) ** (2 / 3)
        assert 0.5 * estimate < f < 2 * estimate, (h, f, estimate)
    assert peaks[1] > peaks[0]
