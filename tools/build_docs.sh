#!/usr/bin/env bash
# Builds the docs site (mkdocs.yml: docs/ with the Material theme, the API reference from the
# Python docstrings, the operator list from the registry) into build/site. --strict: every
# warning fails the build: a broken link or anchor, a page missing from the nav, a docstring
# the reference cannot render.
#   tools/build_docs.sh            # build/site/index.html
#   tools/build_docs.sh serve      # live preview on http://127.0.0.1:8000
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 NO_MKDOCS_2_WARNING=1
# the pinned tools (docs/requirements.txt), installed when a version differs
if ! $PY - <<'PYEOF' 2>/dev/null; then
import sys
from importlib.metadata import version
for line in open("docs/requirements.txt"):
    line = line.split("#")[0].strip()
    if line:
        name, want = line.split("==")
        if version(name) != want:
            sys.exit(1)
PYEOF
  $PY -m pip install -q -r docs/requirements.txt
fi
# the operator reference must be current (it is generated from the op registry)
$PY tools/gen_operators_doc.py --check
if [ "${1:-}" = "serve" ]; then
  exec $PY -m mkdocs serve
fi
# (not --quiet: it hides the warnings, and then --strict has none to count)
mkdir -p build
if ! $PY -m mkdocs build --strict > build/docs_build.log 2>&1; then
  grep -v "^INFO" build/docs_build.log >&2
  echo "docs site: the build failed (the warnings above are errors here)" >&2
  exit 1
fi
echo "docs site: build/site ($(find build/site -name '*.html' | wc -l) pages)"
