#!/usr/bin/env bash
# The sanitizer step (CI runs it after the main tests): builds the library, the C++ tests and the
# fuzz targets with clang, AddressSanitizer + UndefinedBehaviorSanitizer (any report aborts),
# -O0 and no CUDA (a quick build: only what this step needs) in build/asan, then runs
#  1. the C++ tests (CTest, cpu label; the fuzz replay tests run the seed and regression corpus),
#  2. every fuzz target for a short smoke time (tools/run_fuzzers.sh; 30 s each by default).
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

seconds=${FUZZ_SECONDS:-30}
if [ "$seconds" -gt 0 ]; then
  echo "== fuzz smoke: ${seconds} s per target"
  tools/run_fuzzers.sh --seconds "$seconds"
fi
echo "== sanitizer step passed"
