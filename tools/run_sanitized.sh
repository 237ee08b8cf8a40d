#!/usr/bin/env bash
# The sanitizer step (CI runs it after the main tests): builds the library, the C++ tests and the
# fuzz targets with clang, AddressSanitizer + UndefinedBehaviorSanitizer (any report aborts),
# -O0 and no CUDA (a quick build: only what this step needs) in build/asan, then runs
#  1. the C++ tests (CTest, cpu label; the fuzz replay tests run the seed and regression corpus),
#  2. a selected part of the Python suite on the extension built here, with the ASan runtime
#     preloaded into Python (the files that drive the C++ side hardest and run in about a minute
#     at -O0; SANITIZED_PYTHON=0 leaves it out),
#  3. every fuzz target for a short smoke time (tools/run_fuzzers.sh; 30 s each by default).
#
#   tools/run_sanitized.sh                  # all of it
#   tools/run_sanitized.sh --build-only     # just build (then: tools/run_fuzzers.sh --seconds N)
#   FUZZ_SECONDS=0 tools/run_sanitized.sh   # no fuzzing
# System libraries come from tools/setup.sh; this adds clang, its sanitizer/fuzzer runtimes and
# LLVM's OpenMP.
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
[ "${1:-}" = "--build-only" ] && build_only=1

tools/apt_install.sh clang libclang-rt-14-dev libomp-14-dev

echo "== sanitizer build (clang, ASan + UBSan, -O0) in build/asan"
jobs=$(nproc 2>/dev/null || echo 2)
CC=clang CXX=clang++ cmake -S . -B build/asan -DSYMNET_USE_CUDA=OFF \
  -DSYMNET_SANITIZE=address,undefined -DSYMNET_BUILD_FUZZERS=ON -DSYMNET_BUILD_TESTS=ON \
  -DSYMNET_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(command -v "${PYTHON:-python3}")" \
  -DSYMNET_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -gline-tables-only" \
  >build/asan-configure.log || { cat build/asan-configure.log; exit 1; }
cmake --build build/asan -j"$jobs"
[ $build_only = 1 ] && exit 0

echo "== C++ tests under ASan + UBSan"
# leaks are checked (LeakSanitizer); libraries outside symnet are not ours to fix
export ASAN_OPTIONS=detect_leaks=1:strict_init_order=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# the soak tests measure resident memory, which ASan's quarantine of freed blocks makes grow
ctest --test-dir build/asan --output-on-failure -j"$jobs" -L cpu -E "DoesNotGrowMemory"

if [ "${SANITIZED_PYTHON:-1}" != 0 ]; then
  echo "== Python tests under ASan + UBSan (this build's extension, ASan runtime preloaded)"
  # the package from the source tree with this build's extension (libsymnet.so is found through
  # the extension's build RPATH); pymalloc off so that ASan sees Python's allocations too
  rm -rf build/asan/pypkg && mkdir -p build/asan/pypkg
  cp -r python/symnet build/asan/pypkg/ && cp build/asan/python/_core*.so build/asan/pypkg/symnet/
  # slow at -O0 or not about symnet's C++ code: test_amp (7 min here), the example and
  # digit-training scripts, the MXNet parity venv, the soak and address-space tests (ASan's
  # shadow memory), and the format/layer tools
  (cd tests && LD_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" \
    ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0 PYTHONMALLOC=malloc \
    PYTHONPATH="$PWD/../build/asan/pypkg" "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider \
    python/test_operator.py python/test_operator_nn.py python/test_ndarray.py \
    python/test_ndarray_io.py python/test_symbol.py python/test_executor.py \
    python/test_recordio.py python/test_zero_size.py python/test_error_catalog.py \
    python/test_file_errors.py python/test_amp_ops.py python/test_training_api.py \
    python/test_bad_training_input.py python/test_fuzz_corpus.py python/test_data_parallel.py \
    python/test_crash_safe_files.py python/test_optimizer.py python/test_consistency.py \
    python/test_shape_limits.py python/test_layout.py python/test_mlp_digits.py \
    python/test_models.py)
fi

seconds=${FUZZ_SECONDS:-30}
if [ "$seconds" -gt 0 ]; then
  echo "== fuzz smoke: ${seconds} s per target"
  tools/run_fuzzers.sh --seconds "$seconds"
fi
echo "== sanitizer step passed"
