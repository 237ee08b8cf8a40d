#!/usr/bin/env bash
# Runs every fuzz target for a given time (or number of executions) each and prints a summary:
#  - the libFuzzer targets of build/asan (tests/fuzz/fuzz_*.cc, ASan + UBSan; made by
#    tools/run_sanitized.sh --build-only),
#  - the atheris targets (tests/fuzz/python/fuzz_*.py) against the installed symnet package.
# Each starts from its seed corpus tests/fuzz/corpus/<name> (read only); inputs it finds go to
# build/fuzz/corpus/<name>. A crash, a sanitizer report, a leak, an uncaught exception, a
# timeout (10 s per input) or more than 2 GB of memory fails the run; the input is saved in
# build/fuzz/findings/ (add it to tests/fuzz/corpus/<name>/regress-* with the fix).
#
#   tools/run_fuzzers.sh                    # 30 s per target (CI's smoke run)
#   tools/run_fuzzers.sh --seconds 600      # longer
#   tools/run_fuzzers.sh --runs 1000000     # a number of executions per target instead
#   tools/run_fuzzers.sh --only params      # one target (repeatable); --no-python: C++ only
#   tools/run_fuzzers.sh --jobs 2           # targets run side by side (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

limit=(-max_total_time=30)
jobs=$(nproc 2>/dev/null || echo 2)
only=()
python_targets=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --only) only+=("$2"); shift 2 ;;
    --no-python) python_targets=0; shift ;;
    *) echo "run_fuzzers.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

out=build/fuzz
mkdir -p "$out/logs" "$out/findings"

# name, corpus folder, command
targets=()
for bin in build/asan/tests/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=${bin##*/fuzz_}
  targets+=("$name|$name|$bin")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "no fuzz targets in build/asan: run tools/run_sanitized.sh --build-only first" >&2
  exit 1
fi
if [ "$python_targets" = 1 ]; then
  $PY -c "import atheris" 2>/dev/null || $PY -m pip install -q atheris
  # the Python targets' seeds are the C++ targets' where they read the same files
  declare -A py_corpus=([im2rec_list]=im2rec_list [recordio_index]=index_file [states_module]=states)
  for script in tests/fuzz/python/fuzz_*.py; do
    name=${script##*/fuzz_}
    name=py_${name%.py}
    targets+=("$name|${py_corpus[${name#py_}]}|$PY $script")
  done
fi

run_one() {
  IFS='|' read -r name corpus cmd <<<"$1"
  mkdir -p "$out/corpus/$name"
  # one thread: the symbol target binds graphs, and OpenMP threads only slow a fuzzer down
  # shellcheck disable=SC2086
  if OMP_NUM_THREADS=1 UBSAN_OPTIONS=print_stacktrace=1 \
     $cmd "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=20000 -print_final_stats=1 \
       -artifact_prefix="$out/findings/$name-" "$out/corpus/$name" "tests/fuzz/corpus/$corpus" \
       >"$out/logs/$name.log" 2>&1; then
    echo "ok" >"$out/logs/$name.result"
  else
    echo "FAILED" >"$out/logs/$name.result"
  fi
}
selected=()
for t in "${targets[@]}"; do
  name=${t%%|*}
  if [ ${#only[@]} -gt 0 ]; then
    keep=0
    for o in "${only[@]}"; do [ "$o" = "$name" ] && keep=1; done
    [ $keep = 1 ] || continue
  fi
  rm -f "$out/logs/$name.result"
  selected+=("$t")
done
echo "== fuzzing ${#selected[@]} targets (${limit[*]}, $jobs at a time); logs in $out/logs"
running=0
for t in "${selected[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
total=0
printf '%-16s %12s %8s %10s  %s\n' target executions seconds exec/s result
for t in "${selected[@]}"; do
  name=${t%%|*}
  log="$out/logs/$name.log"
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$' || echo 0)
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -n 1 | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "?")
  result=$(cat "$out/logs/$name.result" 2>/dev/null || echo "FAILED")
  rate="?"
  [ "$secs" != "?" ] && [ "$secs" -gt 0 ] && rate=$((execs / secs))
  printf '%-16s %12s %8s %10s  %s\n' "$name" "$execs" "$secs" "$rate" "$result"
  total=$((total + ${execs:-0}))
  if [ "$result" != ok ]; then
    status=1
    echo "---- $name: last lines of $log" >&2
    tail -n 40 "$log" >&2
  fi
done
echo "total executions: $total"
exit $status
