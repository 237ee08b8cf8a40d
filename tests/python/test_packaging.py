"""The installed package: its version written once, and an import error that names a missing
system library."""
import os
import re

import symnet as mx
from symnet import _native

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_version_is_written_once():
    with open(os.path.join(REPO, "python", "symnet", "_version.py")) as f:
        written = re.search(r'__version__ = "([0-9.]+)"', f.read()).group(1)
    assert mx.__version__ == written
    with open(os.path.join(REPO, "pyproject.toml")) as f:
        project = f.read()
    assert 'dynamic = ["version"]' in project and "\nversion =" not in project
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        assert "project(symnet VERSION ${SYMNET_VERSION}" in f.read()


def test_a_missing_system_library_is_named_with_its_package():
    err = ImportError("libdnnl.so.2: cannot open shared object file: No such file or directory")
    msg = str(_native.explain(err))
    assert "libdnnl.so.2 is missing" in msg and "apt-get install libdnnl2" in msg and "symnet needs" in msg
    cuda = str(_native.explain(ImportError("libcudart.so.13: cannot open shared object file: No such file")))
    assert "/usr/local/cuda" in cuda
    other = ImportError("something else")
    assert _native.explain(other) is other
