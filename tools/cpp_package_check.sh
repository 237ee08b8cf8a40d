#!/usr/bin/env bash
# The C++ package, as a C++ user gets it: `cmake --install` of a build tree into a fresh prefix,
# then example/cpp_consumer (a separate CMake project) configured with find_package(symnet),
# built with -Werror and run (it trains a small net and fails below 95% accuracy); the same
# program built once more from pkg-config's flags alone.
#   tools/cpp_package_check.sh [BUILD_DIR]     # default build/pip (the wheel build's tree)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/pip}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# cpp_package is the install component of the C++ package (cmake/Install.cmake)
cmake --install "$build" --component cpp_package --prefix "$work/prefix" > "$work/install.log"
echo "installed: $(find "$work/prefix" -type f | wc -l) files ($(find "$work/prefix/include" -name '*.h' | wc -l) headers)"
cmake -S example/cpp_consumer -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
grep "symnet .* from" "$work/configure.log" || true
cmake --build "$work/consumer" -j "${SYMNET_BUILD_JOBS:-2}" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
(cd "$work" && consumer/consumer)
# pkg-config: the flags alone must be enough
pc_dir=$(dirname "$(find "$work/prefix" -name symnet.pc)")
flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs symnet)
echo "pkg-config: $flags"
# shellcheck disable=SC2086  # the flags are words
g++ -O1 example/cpp_consumer/consumer.cc -o "$work/consumer_pc" $flags
(cd "$work" && ./consumer_pc)
echo "C++ package: ok"
