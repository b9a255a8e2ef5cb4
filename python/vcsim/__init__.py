"""vcsim from Python: load a scenario, step it, read its state and contacts, and query the interference engine.

    import vcsim
    sim = vcsim.Simulation(vcsim.load("scenarios/ball_on_table.yaml"))
    sim.step(100)
    ball = sim.body("ball")
    print(sim.time, ball.position, ball.angular_velocity)

    a = vcsim.interference(vcsim.Shape.sphere(0.1), ([0, 0, 0.09], [1, 0, 0, 0]),
                           vcsim.Shape.half_space(), None)
    print(a.volume, a.centroid, a.inertia, a.closed_form)

Units are SI; frames and quaternion order (w, x, y, z) follow docs/conventions.md. The full API is in
docs/python.md.
"""
import os
import tempfile

from . import _vcsim
from ._vcsim import (Body, Interference, InputError, MassProperties, Scenario, Shape, Simulation,
                     SimulationError, interference, mass_properties, set_threads)

__all__ = ["load", "loads", "read", "Scenario", "Simulation", "Body", "Shape", "Interference", "MassProperties",
           "interference", "mass_properties", "set_threads", "InputError", "SimulationError"]


def _yaml_value(value):
    """An override's value as YAML text: strings as given (they are YAML already), numbers at full precision."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return _yaml_value(value.tolist())
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    raise InputError(f"override value {value!r}: expected a number, a string, a list or a dict")


def _override_list(overrides):
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return [f"{key}={_yaml_value(value)}" for key, value in overrides.items()]
    if isinstance(overrides, (list, tuple)):  # already "key=value" strings, as after `vcsim run --set`
        for o in overrides:
            if not isinstance(o, str):
                raise TypeError(f"overrides: expected a dict or a list of 'key=value' strings, got item {o!r}")
        return list(overrides)
    raise TypeError(f"overrides: expected a dict or a list of 'key=value' strings, got {type(overrides).__name__}")


def load(path, overrides=None):
    """Loads a scenario file (docs/scenario-format.md) and validates it.

    overrides: {"bodies.ball.velocity": [0, 0.3, 0], "duration": 1.0} (the paths of `vcsim run --set`; values
    are numbers, lists or YAML text), or a list of "key=value" strings. Raises InputError (a ValueError) with
    "FILE:LINE:COLUMN: error: KEY.PATH: expected ..." on bad input, FileNotFoundError-like InputError for a
    missing file.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load: expected a path (str or os.PathLike), got {type(path).__name__}")
    return _vcsim._load(os.fspath(path), _override_list(overrides))


def loads(text, overrides=None, name="<string>.yaml"):
    """Loads a scenario from YAML text; `name` stands for the file in messages, and relative mesh files are
    resolved from its directory (the current one by default). Raises InputError like load()."""
    if not isinstance(text, (str, bytes)):
        raise TypeError(f"loads: expected YAML text (str or bytes), got {type(text).__name__}")
    return _vcsim._loads(text, name, _override_list(overrides))


def _mesh(path_or_vertices, faces=None, scale=1.0, split="none"):
    """A closed triangle mesh: Shape.mesh("part.obj") (OBJ or STL, scaled by `scale`), or
    Shape.mesh(vertices (n, 3), faces (m, 3), 0-based, counter-clockwise seen from outside).
    split="convex" cuts a concave mesh exactly into convex pieces, one cell each (docs/geometry.md,
    "Convex pieces"), so that each face region of a fixture gets its own contact normal."""
    if faces is None:
        if not isinstance(path_or_vertices, (str, os.PathLike)):
            raise TypeError("Shape.mesh: expected a file path, or vertices and faces")
        return Shape._mesh_file(os.fspath(path_or_vertices), scale, split)
    import numpy as np
    vertices = np.asarray(path_or_vertices, dtype=float) * scale
    fd, tmp = tempfile.mkstemp(suffix=".obj", prefix="vcsim-mesh-")
    os.close(fd)
    try:
        return Shape._mesh_arrays(vertices, np.asarray(faces, dtype=np.int64), tmp, split)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


Shape.mesh = staticmethod(_mesh)


def read(path, pandas=None):
    """Reads a vcsim HDF5 output (docs/output-format.md) into a dict.

    Keys: "time", "attributes" (the root attributes: scenario, status, step, ...), "energy", "bodies"
    ({name: {"position", "orientation", "velocity", "angular_velocity"}}), "contacts" ({pair: {dataset: array}}),
    and "step_size" / "impulses" when present. Arrays are numpy; with pandas installed (or pandas=True) each body,
    contact and the energy become a DataFrame indexed by time, a vector as columns "position_x", ...
    """
    import h5py
    import numpy as np

    if pandas is None:
        try:
            import pandas as _pd  # noqa: F401
            pandas = True
        except ImportError:
            pandas = False

    def group(g):
        return {k: np.asarray(v[()]) for k, v in g.items() if isinstance(v, h5py.Dataset)}

    def attrs(obj):
        out = {}
        for k, v in obj.attrs.items():
            if isinstance(v, bytes):
                v = v.decode()
            elif isinstance(v, np.ndarray) and v.size == 1:
                v = v.item()
            out[k] = v
        return out

    if not os.path.exists(os.fspath(path)):
        raise FileNotFoundError(f"{os.fspath(path)}: no such file")
    with h5py.File(os.fspath(path), "r") as f:
        if "time" not in f:
            raise InputError(f"{os.fspath(path)}: error: expected a vcsim output (no /time dataset)")
        data = {"time": np.asarray(f["time"][()]), "attributes": attrs(f)}
        for name in ("step_size",):
            if name in f:
                data[name] = np.asarray(f[name][()])
        if "energy" in f:
            data["energy"] = group(f["energy"])
        data["bodies"] = {b: group(f["bodies"][b]) for b in f["bodies"]} if "bodies" in f else {}
        data["contacts"] = {c: group(f["contacts"][c]) for c in f["contacts"]} if "contacts" in f else {}
        if "impulses" in f:
            data["impulses"] = {i: group(f["impulses"][i]) for i in f["impulses"]}
    if pandas:
        import pandas as pd

        def frame(columns):
            cols = {}
            for k, v in columns.items():
                if v.ndim == 1:
                    cols[k] = v
                elif v.shape[1] == 1:  # a width-1 channel, 2-D in the file
                    cols[k] = v[:, 0]
                else:
                    suffixes = {3: "xyz", 4: "wxyz"}.get(v.shape[1], None)
                    for j in range(v.shape[1]):
                        cols[f"{k}_{suffixes[j] if suffixes else j}"] = v[:, j]
            return pd.DataFrame(cols, index=pd.Index(data["time"], name="time"))

        for key in ("bodies", "contacts", "impulses"):
            if key in data:
                data[key] = {n: frame(c) for n, c in data[key].items()}
        if "energy" in data:
            data["energy"] = frame(data["energy"])
    return data
