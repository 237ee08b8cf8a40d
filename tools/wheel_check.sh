#!/usr/bin/env bash
# Installs the wheel that `SYMNET_WHEEL_DIR=build/wheel tools/setup.sh` wrote into a fresh venv
# outside the source tree (pip brings numpy from PyPI; the system libraries are the machine's) and
# runs tools/wheel_smoke.py there: a few AMP training steps and a checkpoint round trip.
#   tools/wheel_check.sh [WHEEL_DIR]     (default build/wheel)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dir=${1:-build/wheel}
wheel=$(ls -t "$dir"/symnet-*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || { echo "no symnet wheel in $dir (SYMNET_WHEEL_DIR=$dir tools/setup.sh makes one)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== wheel check: $(basename "$wheel") in a fresh venv ($work)"
${PYTHON:-python3} -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$repo/$wheel"
(cd "$work" && "$work/venv/bin/python" "$repo/tools/wheel_smoke.py")
