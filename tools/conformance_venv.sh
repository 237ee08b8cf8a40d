#!/usr/bin/env bash
# Makes the venv that tools/mxnet_conformance.py runs MXNet 1.9.1's tests in, against symnet:
# the system site-packages (the installed symnet, numpy, pytest), the `mxnet` alias from
# python/mxnet_alias, and what MXNet's test files import: nose (nose.tools; 1.3.7 imports on
# Python 3.11 for what they use), scipy, pytest-timeout.
#   tools/conformance_venv.sh [DIR]      (default build/conformance-venv)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-build/conformance-venv}
[ -x "$venv/bin/python" ] || ${PYTHON:-python3} -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check nose==1.3.7 pytest-timeout scipy
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps python/mxnet_alias
"$venv/bin/python" -c "import mxnet, symnet; assert mxnet.nd is symnet.nd; print('conformance venv:', '$venv')"
