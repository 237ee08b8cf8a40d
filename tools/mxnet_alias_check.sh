#!/usr/bin/env bash
# The `mxnet` alias (python/mxnet_alias) end to end, in a fresh venv outside the source tree:
# the symnet wheel, then the one install step `pip install python/mxnet_alias`; `import mxnet`
# gives symnet's modules under MXNet's names; two MXNet 1.x Gluon training scripts
# (example/gluon/digits_cnn.py, text_sentiment_lstm.py) run unmodified; the alias refuses to
# install into the MXNet 1.9.1 venv (build/mxnet-venv) and leaves it working; uninstall leaves
# nothing behind.
#   tools/mxnet_alias_check.sh [WHEEL_DIR]     (default build/wheel)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dir=${1:-build/wheel}
wheel=$(ls -t "$dir"/symnet-*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || { echo "no symnet wheel in $dir (SYMNET_WHEEL_DIR=$dir tools/setup.sh makes one)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=$work/venv/bin/python
echo "== mxnet alias: fresh venv ($work), $(basename "$wheel"), then pip install python/mxnet_alias"
${PYTHON:-python3} -m venv "$work/venv"
"$py" -m pip install -q --disable-pip-version-check "$repo/$wheel" scikit-learn
"$py" -m pip install -q --disable-pip-version-check "$repo/python/mxnet_alias"

cd "$work"
"$py" - <<'PY'
import importlib, sys
import mxnet as mx
import symnet
assert mx.__version__ == "1.9.1", mx.__version__
assert symnet.__version__ != mx.__version__, symnet.__version__
for name in ("ndarray", "ndarray.ndarray", "symbol", "gluon", "gluon.nn", "gluon.data.dataloader", "module",
             "io", "optimizer", "test_utils", "base", "contrib.amp"):
    alias, real = importlib.import_module("mxnet." + name), importlib.import_module("symnet." + name)
    assert alias is real, (name, alias, real)
    assert real.__spec__.name == "symnet." + name, real.__spec__.name  # symnet's module keeps its own spec
assert mx.nd is symnet.nd and mx.gluon.nn.Dense is symnet.gluon.nn.Dense
from mxnet.ndarray.ndarray import NDArray
assert isinstance(mx.nd.ones((2,)), NDArray)
try:
    import mxnet.no_such_module  # noqa: F401
    raise SystemExit("importing a module symnet lacks did not fail")
except ModuleNotFoundError:
    pass
print("mxnet alias: mxnet.X is symnet.X; mxnet.__version__ %s, symnet %s" % (mx.__version__, symnet.__version__))
PY
echo "== MXNet 1.x Gluon scripts, unmodified, through the alias"
OMP_NUM_THREADS=2 "$py" "$repo/example/gluon/digits_cnn.py" --epochs 3 2>&1 | tail -n 2
OMP_NUM_THREADS=2 "$py" "$repo/example/gluon/text_sentiment_lstm.py" --epochs 4 2>&1 | tail -n 2

echo "== refusing a real MXNet"
mxvenv=$repo/build/mxnet-venv/bin/python
if [ -x "$mxvenv" ] && "$mxvenv" -c "import mxnet" 2>/dev/null; then
  if "$mxvenv" -m pip install -q --disable-pip-version-check "$repo/python/mxnet_alias" > "$work/refuse.log" 2>&1; then
    echo "the alias installed over MXNet 1.9.1 in $mxvenv" >&2; exit 1
  fi
  grep -q "refuses to install: this environment has a real MXNet" "$work/refuse.log" ||
    { cat "$work/refuse.log" >&2; echo "the refusal did not say why" >&2; exit 1; }
  "$mxvenv" -c "import mxnet, os; assert os.path.exists(os.path.join(os.path.dirname(mxnet.__file__), 'libmxnet.so'))"
  echo "refused, and MXNet 1.9.1 there still imports"
else
  echo "no MXNet 1.9.1 venv at build/mxnet-venv: the refusal is checked by tests/python/test_mxnet_alias.py only"
fi

echo "== uninstall"
"$py" -m pip uninstall -q -y symnet-mxnet
site=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
if "$py" -c "import mxnet" 2>/dev/null; then echo "mxnet still imports after uninstall" >&2; exit 1; fi
if ls -d "$site"/mxnet "$site"/symnet_mxnet-* 2>/dev/null; then echo "uninstall left files" >&2; exit 1; fi
"$py" -c "import symnet" && echo "uninstalled cleanly; symnet itself stays"
