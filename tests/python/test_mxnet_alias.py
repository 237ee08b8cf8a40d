"""The `mxnet` alias of symnet (python/mxnet_alias): module identity under both names, the MXNet
API version, and the build backend's refusal to install over a real MXNet. The install into a
fresh venv, the two MXNet-style scripts and the uninstall run in tools/mxnet_alias_check.sh."""
import os
import subprocess
import sys
import zipfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALIAS = os.path.join(REPO, "python", "mxnet_alias")
sys.path.insert(0, ALIAS)
import alias_backend  # noqa: E402


def _run(code):
    """Runs `code` in a fresh interpreter that finds the alias package from the source tree."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ALIAS] + [p for p in sys.path if p]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_mxnet_modules_are_symnets_own_objects():
    out = _run("""
import importlib, mxnet as mx, symnet
names = ["ndarray", "ndarray.ndarray", "ndarray.sparse", "symbol", "symbol.linalg", "gluon", "gluon.nn",
         "module", "contrib.amp", "contrib.amp.amp", "test_utils", "base", "io", "optimizer"]
for n in names:
    alias = importlib.import_module("mxnet." + n)
    assert alias is importlib.import_module("symnet." + n), n
    assert alias.__spec__.name == "symnet." + n, (n, alias.__spec__.name)
from mxnet.gluon.nn import Dense
from mxnet.ndarray.ndarray import NDArray
assert Dense is symnet.gluon.nn.Dense and NDArray is symnet.nd.NDArray
assert mx.nd is symnet.nd and mx.cpu() == symnet.cpu()
import mxnet.ndarray as nd2
assert nd2 is symnet.ndarray
print(mx.__version__, symnet.__version__)
""")
    alias_version, symnet_version = out.split()
    assert alias_version == "1.9.1"
    assert symnet_version != "1.9.1"


def test_a_module_symnet_lacks_is_not_found_under_mxnet_either():
    out = _run("""
try:
    import mxnet.no_such_module
except ModuleNotFoundError as e:
    print("missing", e.name)
try:
    import mxnet as mx
    mx.no_such_name
except AttributeError as e:
    print("attr", "no_such_name" in str(e))
""")
    assert out.split() == ["missing", "mxnet.no_such_module", "attr", "True"]


@pytest.mark.parametrize("layout", ["library", "dist-info", "cuda-dist-info"])
def test_the_backend_refuses_an_environment_with_a_real_mxnet(tmp_path, layout, monkeypatch):
    site = tmp_path / "site-packages"
    (site / "mxnet").mkdir(parents=True)
    if layout == "library":
        (site / "mxnet" / "libmxnet.so").write_bytes(b"")
    elif layout == "dist-info":
        (site / "mxnet-1.9.1.dist-info").mkdir()
    else:
        (site / "mxnet_cu112-1.9.1.dist-info").mkdir()
    monkeypatch.setattr(alias_backend, "_site_dirs", lambda: [str(site)])
    with pytest.raises(RuntimeError, match="refuses to install: this environment has a real MXNet"):
        alias_backend.build_wheel(str(tmp_path))
    assert not list(tmp_path.glob("*.whl"))


def test_the_backend_builds_over_its_own_install(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    (site / "mxnet").mkdir(parents=True)
    (site / "mxnet" / "__init__.py").write_text("")
    (site / ("symnet_mxnet-%s.dist-info" % alias_backend._version())).mkdir()
    monkeypatch.setattr(alias_backend, "_site_dirs", lambda: [str(site)])
    name = alias_backend.build_wheel(str(tmp_path))
    with zipfile.ZipFile(str(tmp_path / name)) as wheel:
        names = wheel.namelist()
        record = wheel.read([n for n in names if n.endswith("/RECORD")][0]).decode()
    assert "mxnet/__init__.py" in names
    assert all(n in record for n in names)  # every file is in RECORD, so pip uninstall removes it
    assert name == "symnet_mxnet-%s-py3-none-any.whl" % alias_backend._version()
