#!/usr/bin/env bash
# Sets up a fresh machine and installs symnet: system libraries (apt), Python build and test
# packages (pip), then `pip install .` (C++ library + Python package), reusing build/pip.
#   tools/setup.sh            # library, Python package
#   tools/setup.sh --tests    # also the C++ tests and examples (used by tools/run_tests.sh)
# SYMNET_WHEEL_DIR=dir also writes a wheel there from the same build (tools/wheel_check.sh).
# The build is portable (x86-64-v3: AVX2/FMA/F16C); SYMNET_NATIVE_ARCH=ON tools/setup.sh compiles
# symnet's own loops for this machine's CPU only.
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=OFF
[ "${1:-}" = "--tests" ] && with_tests=ON
PY=${PYTHON:-python3}

tools/apt_install.sh cmake g++ libdmlc-dev libdnnl-dev libboost-dev libboost-program-options-dev \
  libgtest-dev libjpeg-dev libopenmpi-dev openmpi-bin pkg-config

echo "== installing Python packages"
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
$PY -m pip install -q numpy pytest pytest-xdist scikit-learn matplotlib pillow graphviz "scikit-build-core>=0.8" \
  "pybind11>=2.10" build

echo "== building and installing symnet (C++ tests: $with_tests)"
jobs=$(nproc 2>/dev/null || echo 2)
# --no-build-isolation keeps the tool paths stable, so build/pip is reused between runs
build_args=(--no-build-isolation
  -Ccmake.define.SYMNET_BUILD_TESTS=$with_tests
  -Ccmake.define.SYMNET_BUILD_EXAMPLES=$with_tests
  -Ccmake.define.SYMNET_NATIVE_ARCH="${SYMNET_NATIVE_ARCH:-OFF}"
  -Ccmake.define.SYMNET_CUDA_ARCHS="${SYMNET_CUDA_ARCHS:-80;90}"
  -Ccmake.define.SYMNET_CUDA_HOST_OPT="${SYMNET_CUDA_HOST_OPT:-}")
CMAKE_BUILD_PARALLEL_LEVEL=$jobs $PY -m pip install -q "${build_args[@]}" .
if [ -n "${SYMNET_WHEEL_DIR:-}" ]; then  # the same build, packed as a wheel (nothing recompiles)
  CMAKE_BUILD_PARALLEL_LEVEL=$jobs $PY -m pip wheel -q --no-deps -w "$SYMNET_WHEEL_DIR" "${build_args[@]}" .
fi
$PY -c "import symnet, sys; print('symnet', symnet.__version__, 'installed for', sys.executable)"
