#!/usr/bin/env bash
# Installs the wheel that `SYMNET_WHEEL_DIR=build/wheel tools/setup.sh` wrote into a fresh venv
# outside the source tree (pip brings numpy from PyPI; the system libraries are the machine's) and
# runs tools/wheel_smoke.py there: a few AMP training steps and a checkpoint round trip. Then
# `python -m build --sdist` makes the source distribution, which must hold what a build needs.
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

echo "== sdist: python -m build --sdist"
${PYTHON:-python3} -m build --sdist --no-isolation -o "$work/sdist" "$repo" > "$work/sdist.log" 2>&1 ||
  { cat "$work/sdist.log"; exit 1; }
sdist=$(ls "$work"/sdist/symnet-*.tar.gz)
listing=$(tar tzf "$sdist")
for need in CMakeLists.txt pyproject.toml LICENSE README.md include/symnet/symnet.h \
            src/executor/graph_executor.cc operators/operator_common.h amp/amp_lists.cc \
            python/symnet/__init__.py python/src/module.cc cmake/Install.cmake; do
  grep -q "^symnet-[0-9.]*/$need\$" <<< "$listing" || { echo "sdist lacks $need" >&2; exit 1; }
done
if grep -q "^symnet-[0-9.]*/build/" <<< "$listing"; then echo "sdist holds build outputs" >&2; exit 1; fi
echo "sdist: $(basename "$sdist"), $(wc -l <<< "$listing") files, $(du -k "$sdist" | cut -f1) KB"
