#!/usr/bin/env bash
# Sets up (tools/setup.sh --tests) and runs every test: C++ (CTest: cpu, and gpu tests that skip
# without a device), the C++ examples (MLP, a short ResNet run), and the Python suite (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# seconds, before the build: every #include points down DESIGN.md's layer table
echo "== include layers"
$PY tools/check_layers.py
echo "== formatting (clang-format, ruff)"
tools/check_format.sh

tools/setup.sh --tests

echo "== C++ tests"
ctest --test-dir build/pip --output-on-failure -j2

echo "== C++ example: digits MLP"
$PY example/mlp/export_digits.py build/digits
build/pip/example/train_mlp build/digits

echo "== C++ example: train_resnet50 (short: ResNet-18, 2 epochs of 3 batches, then resume)"
work=$(mktemp -d)
build/pip/example/train_resnet50 --work-dir "$work" --num-layers 18 --batch-size 16 --num-epochs 1 --num-iters 3
build/pip/example/train_resnet50 --work-dir "$work" --num-layers 18 --batch-size 16 --num-epochs 2 --num-iters 3 --resume
rm -rf "$work"

echo "== MXNet 1.9.1 references for the parity tests (made fresh, in their own venv)"
# mxnet 1.9.1 needs numpy < 1.24, so it lives in build/mxnet-venv; when it cannot be installed
# or run, the parity tests report skipped with the reason written here
refs=build/mxnet_refs
venv=build/mxnet-venv
rm -rf "$refs" && mkdir -p "$refs"
log="$refs/make_references.log"
if { [ -x "$venv/bin/python" ] || $PY -m venv "$venv" || { $PY -m pip install -q virtualenv && $PY -m virtualenv -q "$venv"; }; } >"$log" 2>&1 &&
   "$venv/bin/python" -m pip install -q --disable-pip-version-check "mxnet==1.9.1" "numpy==1.23.5" >>"$log" 2>&1 &&
   "$venv/bin/python" tests/mxnet_parity/make_references.py "$refs" >>"$log" 2>&1; then
  grep "^reference" "$log" || true
else
  reason="MXNet 1.9.1 references could not be made: $(grep -v '^\s*$' "$log" | tail -n 1)"
  echo "$reason" | tee "$refs/UNAVAILABLE"
  rm -f "$refs/manifest.json"
fi

echo "== Python tests"
# run from tests/ so that `import symnet` finds the installed package, not python/symnet
(cd tests && $PY -m pytest -q -rs python)
echo "== all tests passed"
