# vcsim.read: the HDF5 output (docs/output-format.md) as numpy arrays, checked against h5py's own reading.
import h5py
import numpy as np
import pytest

import vcsim
from conftest import ROOT


@pytest.fixture(scope="module")
def output(tmp_path_factory):
    path = tmp_path_factory.mktemp("read") / "bot.h5"
    sim = vcsim.Simulation(vcsim.load(ROOT / "scenarios" / "ball_on_table.yaml", {"simulation.duration": 0.2}))
    sim.run(output=str(path))
    return path


def test_read_numpy(output):
    d = vcsim.read(output, pandas=False)
    with h5py.File(output, "r") as f:
        assert np.array_equal(d["time"], f["time"][:])
        assert len(d["time"]) == f.attrs["samples"] == 201  # 0.2 s every 1 ms, both ends
        for body in ("ball", "table"):
            for k in ("position", "orientation", "velocity", "angular_velocity"):
                assert np.array_equal(d["bodies"][body][k], f[f"bodies/{body}/{k}"][:])
        c = d["contacts"]["ball__table"]
        assert np.array_equal(c["force"], f["contacts/ball__table/force"][:])
        assert c["volume"].shape == (201, 1)  # channels stay 2-D, as in the file
        assert np.array_equal(d["energy"]["total"], f["energy/total"][:])
    assert d["attributes"]["status"] == "completed"
    assert d["attributes"]["scenario_name"] == "ball_on_table"


def test_read_pandas_when_installed(output):
    pd = pytest.importorskip("pandas")
    d, n = vcsim.read(output), vcsim.read(output, pandas=False)
    ball = d["bodies"]["ball"]
    assert isinstance(ball, pd.DataFrame) and ball.index.name == "time"
    assert np.array_equal(ball.index.to_numpy(), n["time"])
    for j, axis in enumerate("xyz"):
        assert np.array_equal(ball[f"position_{axis}"].to_numpy(), n["bodies"]["ball"]["position"][:, j])
    for j, part in enumerate("wxyz"):
        assert np.array_equal(ball[f"orientation_{part}"].to_numpy(), n["bodies"]["ball"]["orientation"][:, j])
    contact = d["contacts"]["ball__table"]
    assert np.array_equal(contact["volume"].to_numpy(), n["contacts"]["ball__table"]["volume"][:, 0])  # width 1
    assert np.array_equal(d["energy"]["total"].to_numpy(), n["energy"]["total"])


def test_read_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        vcsim.read(tmp_path / "none.h5")
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["x"] = [1.0]
    with pytest.raises(vcsim.InputError, match="not a vcsim output|expected a vcsim output"):
        vcsim.read(other)
