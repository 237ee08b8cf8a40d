#!/usr/bin/env bash
# Sets up (tools/setup.sh --tests) and runs every test: C++ (CTest: cpu, and gpu tests that skip
# without a device), the C++ examples (MLP, a short ResNet run), and the Python suite (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

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

echo "== Python tests"
# run from tests/ so that `import symnet` finds the installed package, not python/symnet
(cd tests && $PY -m pytest -q python)
echo "== all tests passed"
