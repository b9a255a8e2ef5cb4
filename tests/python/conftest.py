# pytest setup for the Python module's tests (docs/python.md). CTest (tests/CMakeLists.txt) sets PYTHONPATH to the
# build's python/ folder and VCSIM_BINARY to the CLI; run by hand, the defaults are build/python and build/tools/vcsim.
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if not any(Path(p, "vcsim", "__init__.py").exists() for p in sys.path if p):
    sys.path.insert(0, str(ROOT / "build" / "python"))


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def cli():
    return os.environ.get("VCSIM_BINARY", str(ROOT / "build" / "tools" / "vcsim"))
