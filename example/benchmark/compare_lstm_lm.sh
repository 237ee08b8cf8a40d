#!/usr/bin/env bash
# Side-by-side LSTM language-model training step (example/rnn/lstm_lm.py --benchmark: Embedding,
# the fused RNN op, FullyConnected over the vocabulary, SoftmaxOutput, Adam) under symnet and
# MXNet 1.9.1, alternating runs in one go (these machines are noisy: compare the ratio). Prints
# the median ms per step of each run and the ratio of the medians.
#
#   example/benchmark/compare_lstm_lm.sh [--mxnet-python PY] [--rounds N] [-- lstm_lm.py options]
set -u
cd "$(dirname "$0")/../.."
MXPY=build/mxnet-venv/bin/python
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --mxnet-python) MXPY=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
export OMP_NUM_THREADS=2
echo "== CPU: $(lscpu | sed -n 's/^Model name: *//p'); flags: $(grep -o -w 'avx2\|avx512f\|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
ours=() theirs=()
for _ in $(seq "$ROUNDS"); do
  line=$(python3 example/rnn/lstm_lm.py --benchmark 20 "$@" 2>/dev/null | grep 'lstm_lm step')
  echo "symnet: $line"; ours+=("$(echo "$line" | sed 's/.*step: \([0-9.]*\) ms.*/\1/')")
  line=$("$MXPY" example/rnn/lstm_lm.py --mxnet --benchmark 20 "$@" 2>/dev/null | grep 'lstm_lm step')
  echo "mxnet:  $line"; theirs+=("$(echo "$line" | sed 's/.*step: \([0-9.]*\) ms.*/\1/')")
done
python3 - "${ours[*]}" "${theirs[*]}" <<'PY'
import sys, statistics
a = [float(v) for v in sys.argv[1].split()]
b = [float(v) for v in sys.argv[2].split()]
print("median ms/step: symnet %.1f, MXNet 1.9.1 %.1f; symnet/MXNet = %.2f" % (statistics.median(a), statistics.median(b), statistics.median(a) / statistics.median(b)))
PY
