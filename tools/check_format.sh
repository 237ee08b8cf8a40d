#!/usr/bin/env bash
# Checks the formatting of the tree: clang-format (.clang-format: Google, 100 columns) on every
# tracked C++/CUDA file and ruff (pyproject.toml [tool.ruff]) on the Python. The tool versions
# are pinned and installed from PyPI when missing, so every machine judges alike.
#   tools/check_format.sh            # the whole tree (CI)
#   tools/check_format.sh FILE...    # these files only
#   tools/check_format.sh --fix      # rewrite the tree in place
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
CLANG_FORMAT_VERSION=14.0.6
RUFF_VERSION=0.8.0

scripts=$($PY -c "import sysconfig; print(sysconfig.get_path('scripts'))")
cf="$scripts/clang-format"
ruff="$scripts/ruff"
if ! "$cf" --version 2>/dev/null | grep -q "$CLANG_FORMAT_VERSION" ||
   ! "$ruff" --version 2>/dev/null | grep -q "$RUFF_VERSION"; then
  $PY -m pip install -q --disable-pip-version-check "clang-format==$CLANG_FORMAT_VERSION" "ruff==$RUFF_VERSION"
fi

fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
if [ $# -gt 0 ]; then
  cxx=$(printf '%s\n' "$@" | grep -E '\.(h|cc|cu|cuh)$' || true)
  py=$(printf '%s\n' "$@" | grep -E '\.py$' || true)
else
  # tracked files and new ones not yet added (but not ignored ones: build trees, venvs)
  cxx=$(git ls-files --cached --others --exclude-standard '*.h' '*.cc' '*.cu' '*.cuh')
  py="python tests example tools"
fi

status=0
if [ -n "$cxx" ]; then
  if [ $fix = 1 ]; then
    echo "$cxx" | xargs "$cf" --style=file:.clang-format -i
  elif ! echo "$cxx" | xargs "$cf" --style=file:.clang-format --dry-run --Werror; then
    echo "clang-format: the files above differ from .clang-format (tools/check_format.sh --fix rewrites them)"
    status=1
  fi
fi
if [ -n "$py" ]; then
  if [ $fix = 1 ]; then
    # shellcheck disable=SC2086
    "$ruff" check --config pyproject.toml --fix $py
  else
    # shellcheck disable=SC2086
    "$ruff" check --config pyproject.toml $py || status=1
  fi
fi
[ $status = 0 ] && echo "format: clang-format $CLANG_FORMAT_VERSION and ruff $RUFF_VERSION clean"
exit $status
