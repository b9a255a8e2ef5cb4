# vcsim.Simulation: stepping, state, setters, external loads, contacts, output, determinism. Expected values are closed
# forms (ballistic flight, a sphere's cap) or the CLI's own file for the same run (one code path, so bit for bit).
import math
import subprocess

import h5py
import numpy as np
import pytest

import vcsim

G = 9.81  # m/s², the scenarios' gravity

# A 2 kg ball (R = 0.1 m) in flight with the fixed-step rk4: a parabola is a polynomial of degree 2, which rk4
# integrates exactly, so the closed form holds to rounding.
FLIGHT = """\
name: flight
simulation: {duration: 1.0, step: 0.001, integrator: rk4}
gravity: [0, 0, -9.81]
bodies:
  ball:
    mass: 2.0
    inertia: [0.008, 0.008, 0.008]
    position: [0, 0, 10.0]
    velocity: [0.3, -0.2, 1.5]
    angular_velocity: [0, 0, 3.0]
    geometry: {sphere: {radius: 0.1}}
"""
X0, V0, W = np.array([0, 0, 10.0]), np.array([0.3, -0.2, 1.5]), 3.0


def flight_at(t):
    return X0 + V0 * t + 0.5 * np.array([0, 0, -G]) * t * t, V0 + np.array([0, 0, -G]) * t


def test_free_flight_is_the_parabola():
    sim = vcsim.Simulation(vcsim.loads(FLIGHT))
    assert sim.time == 0
    sim.step(250)
    ball = sim.body("ball")
    x, v = flight_at(0.25)
    # 250 steps of rounding on numbers of size 10: 1e-12 m.
    assert sim.time == pytest.approx(0.25, abs=1e-15)
    assert ball.position == pytest.approx(x, abs=1e-12)
    assert ball.velocity == pytest.approx(v, abs=1e-12)
    # Torque-free sphere: the spin is constant, the attitude a rotation W t about z. rk4 on the quaternion's
    # kinematics has a local error ~ (W h)^5 / 120 ≈ 2e-15 per step: 1e-11 over 250 steps is generous.
    assert ball.angular_velocity == pytest.approx([0, 0, W], abs=1e-12)
    assert ball.quaternion == pytest.approx([math.cos(W * 0.25 / 2), 0, 0, math.sin(W * 0.25 / 2)], abs=1e-11)
    sim.run(until=0.5)
    x, v = flight_at(0.5)
    assert sim.time == pytest.approx(0.5, abs=1e-15)
    assert ball.position == pytest.approx(x, abs=1e-12)


def test_external_force_holds_until_changed():
    sim = vcsim.Simulation(vcsim.loads(FLIGHT))
    ball = sim.body("ball")
    ball.force = [0, 0, 2.0 * G]  # cancels the weight: uniform motion
    sim.step(100)
    sim.step(100)  # still held on the next call
    assert ball.force == pytest.approx([0, 0, 2.0 * G])
    assert ball.position == pytest.approx(X0 + V0 * 0.2, abs=1e-12)
    assert ball.velocity == pytest.approx(V0, abs=1e-12)
    ball.force = [0, 0, 0]  # falls again from the state at 0.2 s
    sim.step(100)
    p = X0 + V0 * 0.3 + 0.5 * np.array([0, 0, -G]) * 0.1**2
    assert ball.position == pytest.approx(p, abs=1e-12)
    # A torque about x spins the sphere up at tau / I.
    ball.torque = [0.008 * 5.0, 0, 0]
    sim.step(100)
    assert ball.angular_velocity == pytest.approx([5.0 * 0.1, 0, W], abs=1e-12)


def test_setting_the_state():
    sim = vcsim.Simulation(vcsim.loads(FLIGHT))
    ball = sim.body("ball")
    ball.position = [1.0, 2.0, 3.0]
    ball.velocity = np.array([0.0, 0.0, 0.0])
    ball.quaternion = [2.0, 0, 0, 0]  # normalised
    assert ball.quaternion == pytest.approx([1, 0, 0, 0])
    sim.step(100)
    assert ball.position == pytest.approx([1.0, 2.0, 3.0 - 0.5 * G * 0.1**2], abs=1e-12)


def test_nan_raises_at_once_and_changes_nothing():
    sim = vcsim.Simulation(vcsim.loads(FLIGHT))
    ball = sim.body("ball")
    before = sim.state
    for attr, value in [("position", [0, math.nan, 0]), ("velocity", [math.inf, 0, 0]),
                        ("angular_velocity", np.array([0, 0, np.nan])), ("quaternion", [math.nan, 0, 0, 0]),
                        ("force", [0, 0, math.nan]), ("torque", [math.nan] * 3)]:
        with pytest.raises(ValueError, match=f"{attr}: expected finite numbers"):
            setattr(ball, attr, value)
    with pytest.raises(ValueError, match="3 numbers"):
        ball.position = [1, 2]
    with pytest.raises(TypeError):
        ball.position = "up"
    assert np.array_equal(sim.state, before)


def test_bodies_and_errors():
    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml"))
    assert sim.bodies == ["table", "ball"]
    with pytest.raises(KeyError, match="'table', 'ball'"):
        sim.body("bal")
    with pytest.raises(ValueError, match="fixed"):
        sim.body("table").position = [0, 0, 0]
    assert sim.body("table").position == pytest.approx([0, -0.7, -0.05])
    with pytest.raises(ValueError, match="n >= 0"):
        sim.step(-1)
    with pytest.raises(OSError, match="nonexistent"):
        sim.run(until=0.01, output="/nonexistent/dir/out.h5")
    with pytest.raises(TypeError):
        sim.run(until=0.01, output=42)
    assert sim.time == 0  # nothing ran


from conftest import ROOT  # noqa: E402


def test_contact_of_a_ball_pressed_into_the_table():
    h = 0.002  # m, the ball's penetration
    sc = vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml",
                    overrides={"bodies.ball.position": [0, 0, 0.1 - h], "bodies.ball.velocity": [0, 0, 0],
                               "bodies.ball.angular_velocity": [0, 0, 0]})
    sim = vcsim.Simulation(sc)
    (c,) = sim.contacts
    R = 0.1
    V = math.pi * h * h * (3 * R - h) / 3
    d = 3 * (2 * R - h) ** 2 / (4 * (3 * R - h))
    assert c["name"] == "ball__table" and c["body_i"] == "ball" and c["in_contact"]
    # The sphere's cap below the table top (closed form, exact to rounding).
    assert c["volume"] == pytest.approx(V, rel=1e-9)
    assert c["channels"]["volume"] == pytest.approx(V, rel=1e-9)
    assert c["centroid"] == pytest.approx([0, 0, R - h - d], rel=1e-9, abs=1e-12)
    assert c["normal"] == pytest.approx([0, 0, 1], abs=1e-12)
    # At rest the volumetric model's normal force is the stiffness part alone, k_v V (eq 4.62; k_v = 1e7 N/m³).
    assert c["force"][2] == pytest.approx(1e7 * V, rel=1e-9)
    assert c["force"][:2] == pytest.approx([0, 0], abs=1e-9)


def test_step_twice_is_identical():
    def run():
        sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml"))
        sim.step(4000)  # 0.2 s: through the first impact
        return sim.state, sim.contacts[0]["force"]

    (a, fa), (b, fb) = run(), run()
    assert np.array_equal(a, b) and np.array_equal(fa, fb)


def test_stepping_equals_the_cli_output(tmp_path, cli):
    # ball_on_table for 0.3 s (through the first bounce), sampled every 1 ms = 20 steps: the CLI and Python share
    # one stepping code path, so every sample is the same bits.
    out = tmp_path / "cli.h5"
    subprocess.run([cli, "run", str(ROOT / "scenarios" / "ball_on_table.yaml"), "-o", str(out), "--quiet",
                    "--set", "simulation.duration=0.3"], check=True, capture_output=True)
    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml", {"simulation.duration": 0.3}))
    ball = sim.body("ball")
    with h5py.File(out, "r") as f:
        t, p = f["time"][:], f["bodies/ball/position"][:]
        q, w = f["bodies/ball/orientation"][:], f["bodies/ball/angular_velocity"][:]
        F = f["contacts/ball__table/force"][:]
    assert len(t) == 301
    for i in range(len(t)):
        if i:
            sim.step(20)
        assert sim.time == t[i]
        assert np.array_equal(ball.position, p[i]) and np.array_equal(ball.quaternion, q[i])
        assert np.array_equal(ball.angular_velocity, w[i])
        if i % 50 == 0:
            assert np.array_equal(sim.contacts[0]["force"], F[i])


# ball_on_table: fixed-step rk3; the others error-controlled, with contacts, loads, a prescribed belt, a shaking table.
@pytest.mark.parametrize("scenario", ["ball_on_table", "bouncing_ball", "examples/conveyor", "examples/peg_in_hole",
                                      "examples/shaking_table", "examples/tilting_plane"])
def test_run_with_output_is_the_cli_file(tmp_path, cli, scenario):
    out_cli, out_py = tmp_path / "cli.h5", tmp_path / "py.h5"
    path = ROOT / "scenarios" / f"{scenario}.yaml"
    subprocess.run([cli, "run", str(path), "-o", str(out_cli), "--quiet", "--set", "simulation.duration=0.25"],
                   check=True, capture_output=True)
    sim = vcsim.Simulation(vcsim.load(path, {"simulation.duration": 0.25}))
    summary = sim.run(output=str(out_py))
    assert summary["status"] == "completed"
    with h5py.File(out_cli, "r") as a, h5py.File(out_py, "r") as b:
        names = []
        a.visit(lambda n: names.append(n) if isinstance(a[n], h5py.Dataset) else None)
        assert len(names) > 20
        for n in names:
            assert np.array_equal(a[n][()], b[n][()]), n
        for k, v in a.attrs.items():
            if k not in ("wall_time_s", "scenario_file"):
                assert k in b.attrs and (np.array_equal(v, b.attrs[k]) if not isinstance(v, str) else v == b.attrs[k]), k


def test_adaptive_free_fall_and_its_output(tmp_path):
    # free_fall.yaml: dopri5 integrates the parabola exactly (rounding only), also at the samples of its dense output.
    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "free_fall.yaml"))
    sim.run(until=0.5, output=tmp_path / "ff.h5")  # a pathlib.Path, like open()
    assert sim.time == 0.5
    ball = sim.body("ball")
    x0, v0 = np.array([0, 0, 10.0]), np.array([0.3, 0, 0])
    assert ball.position == pytest.approx(x0 + v0 * 0.5 + [0, 0, -G * 0.125], abs=1e-12)
    data = vcsim.read(tmp_path / "ff.h5", pandas=False)
    t = data["time"]
    assert t[0] == 0 and t[-1] == 0.5 and len(t) == 51  # every 0.01 s
    z = data["bodies"]["ball"]["position"][:, 2]
    assert z == pytest.approx(10 - 0.5 * G * t * t, abs=1e-12)
    assert data["attributes"]["status"] == "completed"
    sim.step()  # past the output's end: stepping goes on
    assert sim.time > 0.5


def test_failure_raises_simulation_error():
    # A step far past the contact's stability limit: the run blows up or the energy guard stops it; either way
    # Python gets SimulationError naming the time, not a crash.
    sc = vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml", {"simulation.step": 0.01, "simulation.integrator": "euler"})
    sim = vcsim.Simulation(sc)
    with pytest.raises(vcsim.SimulationError, match="at t = "):
        sim.step(100)
    with pytest.raises(vcsim.SimulationError):  # and it stays failed
        sim.step()


def test_ctrl_c_interrupts_a_run_and_closes_its_output(tmp_path):
    import os
    import signal
    import threading

    # 20 s of ball_on_table is ~400000 steps (seconds of wall time); SIGINT after 0.3 s lands mid-run. Python's
    # handler runs when the module takes the GIL back (every 2000 steps): KeyboardInterrupt, and the file is closed
    # with the samples so far.
    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml", {"simulation.duration": 20}))
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.run(output=str(tmp_path / "int.h5"))
    finally:
        timer.cancel()
    assert 0 < sim.time < 20
    d = vcsim.read(tmp_path / "int.h5", pandas=False)
    assert d["attributes"]["status"] == "interrupted"
    assert d["time"][-1] <= sim.time and len(d["time"]) >= 2
    sim.step(10)  # and the simulation goes on from there


def test_another_thread_cannot_use_a_simulation_while_it_steps():
    import threading

    # Stepping releases the GIL, so this thread runs while the other steps (3 s of ball_on_table: 60000 steps, a
    # good fraction of a second); reading the state meanwhile must raise, not race.
    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml"))
    worker = threading.Thread(target=lambda: sim.run(until=3.0))
    worker.start()
    seen = None
    try:
        while worker.is_alive() and seen is None:
            try:
                sim.body("ball").position
            except RuntimeError as e:
                seen = str(e)
    finally:
        worker.join()
    assert seen is not None and "in use by another thread" in seen
    assert sim.time == pytest.approx(3.0, abs=1e-12)
    sim.step()  # free again
