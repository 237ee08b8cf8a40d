#!/usr/bin/env bash
# Sets up (tools/setup.sh --tests) and runs every test: C++ (CTest: cpu, and gpu tests that skip
# without a device), the C++ MLP example, and the Python suite (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

tools/setup.sh --tests

echo "== C++ tests"
ctest --test-dir build/pip --output-on-failure -j2

echo "== C++ example: digits MLP"
$PY example/mlp/export_digits.py build/digits
build/pip/example/train_mlp build/digits

echo "== Python tests"
# run from tests/ so that `import symnet` finds the installed package, not python/symnet
(cd tests && $PY -m pytest -q python)
echo "== all tests passed"
