# vcsim.load / vcsim.loads: scenarios in, clear errors with their location out, and no input crashes the interpreter.
import re
from pathlib import Path

import pytest

import vcsim
from conftest import ROOT


def test_load_with_overrides():
    sc = vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml",
                    overrides={"simulation.duration": 0.5, "bodies.ball.velocity": [0, 0.25, 0]})
    assert sc.name == "ball_on_table" and sc.duration == 0.5 and sc.step == 5e-5 and sc.integrator == "rk3"
    assert sc.bodies == ["table", "ball"]
    assert "0.25" in sc.text  # the overrides are in the stored YAML
    assert vcsim.load(str(ROOT / "scenarios" / "ball_on_table.yaml"), ["simulation.duration=0.5"]).duration == 0.5


def test_input_error_is_a_value_error_with_the_location():
    text = "name: bad\nsimulation:\n  duration: -1.0\n  step: 0.001\nbodies: {}\n"
    with pytest.raises(vcsim.InputError) as e:
        vcsim.loads(text, name="bad.yaml")
    assert isinstance(e.value, ValueError)
    # Line 3, column 13: where "-1.0" starts.
    assert re.match(r"bad\.yaml:3:13: error: simulation\.duration: expected", str(e.value)), str(e.value)


def test_yaml_syntax_error_has_its_line():
    # The flow sequence opened on line 2 is still open at the end of the text, line 3, column 1: where the parser
    # finds it missing.
    with pytest.raises(vcsim.InputError, match=r"^x\.yaml:3:1: error: expected valid YAML"):
        vcsim.loads("name: a\nsimulation: {duration: 1, step: [\n", name="x.yaml")


def test_missing_file():
    with pytest.raises(vcsim.InputError, match="no_such_file.yaml"):
        vcsim.load("no_such_file.yaml")


def test_bad_override_names_the_override():
    with pytest.raises(vcsim.InputError, match=r"--set.*bodies\.ball\.velocity"):
        vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml", {"bodies.ball.velocity": "[0, 1]"})
    with pytest.raises(vcsim.InputError, match="nosuchkey"):
        vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml", {"simulation.nosuchkey": 1})


def test_wrong_types():
    with pytest.raises(TypeError, match="path"):
        vcsim.load(42)
    with pytest.raises(TypeError, match="YAML text"):
        vcsim.loads(None)
    with pytest.raises(TypeError, match="overrides"):
        vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml", overrides=3)
    with pytest.raises(TypeError):
        vcsim.Simulation("scenarios/ball_on_table.yaml")  # a path, not a Scenario


def test_a_world_error_is_an_input_error_at_simulation():
    # Loads (the loader checks each key) but the geometry is bad: two overlapping cells of one body.
    text = """\
name: overlap
simulation: {duration: 0.1, step: 0.001}
bodies:
  b:
    mass: 1.0
    inertia: [1, 1, 1]
    geometry:
      union:
        - sphere: {radius: 0.1}
        - sphere: {radius: 0.1, position: [0.05, 0, 0]}
"""
    try:
        sc = vcsim.loads(text, name="o.yaml")
    except vcsim.InputError as e:
        assert str(e).startswith("o.yaml:")
        return
    with pytest.raises(vcsim.InputError, match=r"^o\.yaml:\d+:\d+: error: "):
        vcsim.Simulation(sc)


def fuzz_inputs():
    corpus = sorted((ROOT / "tests" / "fuzz" / "corpus" / "scenario").glob("*"))
    crashes = sorted((ROOT / "tests" / "fuzz" / "crashes").glob("scenario-*"))
    worlds = sorted((ROOT / "tests" / "fuzz" / "crashes").glob("world-*"))
    return [pytest.param(p, id=p.name) for p in corpus + crashes + worlds]


@pytest.mark.parametrize("path", fuzz_inputs())
def test_fuzz_corpus_through_loads(path):
    # fuzz_scenario.cpp's format: a first line "#set A=B;C=D" gives overrides. Bytes go in as they are.
    data = path.read_bytes()
    overrides = []
    if data.startswith(b"#set "):
        first = data[5:data.index(b"\n")] if b"\n" in data else data[5:]
        overrides = [o.decode("utf-8", "replace") for o in first.split(b";") if o]
    try:
        sc = vcsim.loads(data, overrides, name="/nonexistent/fuzz.yaml")
    except vcsim.InputError as e:
        assert str(e)  # a message, not a crash
        return
    try:
        sim = vcsim.Simulation(sc)
        sim.step(10)
    except (vcsim.InputError, vcsim.SimulationError):
        pass


def test_mutated_scenarios_give_errors_not_crashes():
    # Beyond the kept corpus: 300 seeded mutations (tokens spliced in, bytes flipped, spans cut) of the shipped
    # scenarios through loads, Simulation and 3 steps. Each either runs or raises InputError / SimulationError;
    # anything else (or a crash of the interpreter, which fails this CTest test) is a bug.
    import random

    rng = random.Random(20261126)
    files = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "scenarios" / "examples").glob("*.yaml"))
    texts = [p.read_bytes() for p in files]
    tokens = [b"-1", b"0", b"1e308", b"nan", b".inf", b"[", b"]", b"{", b"}", b": ", b"\n", b"- ", b"[0,0]", b"~",
              b"''", b"mesh: {file: x.obj}", b"1e-300"]
    outcomes = {"ran": 0, "error": 0}
    for _ in range(300):
        t = bytearray(rng.choice(texts))
        for _ in range(rng.randint(1, 4)):
            k, r = rng.randrange(len(t)), rng.random()
            if r < 0.4:
                t[k:k + rng.randint(1, 8)] = rng.choice(tokens)
            elif r < 0.7:
                t[k] = rng.randrange(256)
            else:
                del t[k:k + rng.randint(1, 20)]
        try:
            vcsim.Simulation(vcsim.loads(bytes(t), name="/nonexistent/mutated.yaml")).step(3)
            outcomes["ran"] += 1
        except (vcsim.InputError, vcsim.SimulationError) as e:
            assert str(e)
            outcomes["error"] += 1
    assert outcomes["ran"] > 0 and outcomes["error"] > 0  # both paths exercised


def test_a_message_quoting_bytes_that_are_not_utf8_still_reads():
    # The loader quotes the unknown key; its bytes (0xff 0xfe) are not UTF-8 and become U+FFFD, not an empty error.
    with pytest.raises(vcsim.InputError, match=r"^u\.yaml:4:1: error: .*unknown key") as e:
        vcsim.loads(b"name: x\nsimulation: {duration: 1, step: 0.001}\nbodies: {}\n\xff\xfe: 1\n", name="u.yaml")
    assert "\ufffd" in str(e.value)
