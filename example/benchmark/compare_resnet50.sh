#!/usr/bin/env bash
# Side-by-side ResNet-50 v1.5 training at batch 32, 224x224, in one run (these machines are noisy:
# compare ratios within a run): symnet (float32, AMP auto, AMP bfloat16), PyTorch 2.15 from PyPI
# (float32, bf16 autocast), PyTorch 1.13 from Debian, MXNet 1.9.1 on symnet's own symbol JSON; then
# the convolution floor (oneDNN alone, cold and warm caches; bfloat16 too on CPUs that run it
# natively), then inference (is_train=False):
# batch-1 latency and batch-32 throughput for symnet, PyTorch 2.15 and MXNet 1.9.1. Prints img/s
# and peak RSS per run and the ISA.
#
#   example/benchmark/compare_resnet50.sh [--torch-venv DIR] [--mxnet-python PY] [--steps N] [--isa AVX2]
#
# --torch-venv: a venv made by ../shared/anchors/make_torch_venv.sh (skipped when absent);
# --mxnet-python: MXNet 1.9.1's python (default build/mxnet-venv/bin/python, which
#   tools/run_tests.sh makes; skipped when absent); PyTorch 1.13 runs when Debian's python3-torch
#   is installed. --isa caps every program at that level (ONEDNN_MAX_CPU_ISA for oneDNN, symnet and
#   MXNet; ATEN_CPU_CAPABILITY for PyTorch): an AVX-512 machine then measures the AVX2 path.
# Needs tools/setup.sh --tests (for build/pip/example/conv_floor) and GNU time (/usr/bin/time).
set -u
cd "$(dirname "$0")/../.."
TORCH_VENV=""
MXPY=build/mxnet-venv/bin/python
STEPS=5
ISA=""
while [ $# -gt 0 ]; do
  case "$1" in
    --torch-venv) TORCH_VENV=$2; shift 2 ;;
    --mxnet-python) MXPY=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --isa) ISA=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
export OMP_NUM_THREADS=2
if [ -n "$ISA" ]; then
  export ONEDNN_MAX_CPU_ISA=$ISA DNNL_MAX_CPU_ISA=$ISA MXNET_ONEDNN_MAX_CPU_ISA=$ISA
  case "$ISA" in AVX2) export ATEN_CPU_CAPABILITY=avx2 ;; AVX512*) export ATEN_CPU_CAPABILITY=avx512 ;; esac
fi
model=$(lscpu | sed -n 's/^Model name: *//p')
echo "== CPU: $model; flags: $(grep -o -w 'avx2\|avx512f\|avx512_bf16\|amx_tile' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "== symnet's oneDNN ISA: $(python3 -c 'import symnet; print(symnet.features()["DNNL_ISA"])')${ISA:+ (capped at $ISA)}"
out=$(mktemp)
sym=$(mktemp --suffix=.json)
# run LABEL CMD...: the first img/s figure the command prints, and its peak RSS from GNU time
run() {
  local label=$1; shift
  echo "== $label: $*" >&2
  local log; log=$(mktemp)
  /usr/bin/time -f "PEAK_RSS_KB %M" "$@" >"$log" 2>&1
  local ips rss
  ips=$(grep -o '[0-9.]* img/s' "$log" | head -1 | cut -d' ' -f1)
  rss=$(sed -n 's/^PEAK_RSS_KB //p' "$log" | tail -1)
  grep -E "img/s|amp-auto|Error|error" "$log" | head -3 >&2
  printf "%-34s %10s %12s\n" "$label" "${ips:-failed}" "$(( ${rss:-0} / 1024 )) MB" | tee -a "$out"
  rm -f "$log"
}
B="python3 example/benchmark/resnet50_train.py --steps $STEPS --no-profile"
run "symnet float32" $B --export-symbol "$sym"
run "symnet AMP auto" $B --precisions amp-auto
run "symnet AMP bfloat16" $B --amp bfloat16
if [ -n "$TORCH_VENV" ] && [ -x "$TORCH_VENV/bin/python" ]; then
  [ -f "$TORCH_VENV/torch_env.sh" ] && . "$TORCH_VENV/torch_env.sh"
  run "PyTorch 2.15 float32" "$TORCH_VENV/bin/python" ../shared/anchors/torch_resnet50_train.py 32 fp32
  run "PyTorch 2.15 bf16 autocast" "$TORCH_VENV/bin/python" ../shared/anchors/torch_resnet50_train.py 32 bf16
fi
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  run "PyTorch 1.13 float32" /usr/bin/python3 ../shared/anchors/torch_resnet50_train.py 32 fp32
fi
if [ -x "$MXPY" ]; then
  run "MXNet 1.9.1 float32" "$MXPY" example/benchmark/mxnet_resnet50_train.py "$sym" 32 "$STEPS"
fi
# floor DTYPE LABEL: conv_floor's line "= COLD img/s ... (cold caches; warm: ... = WARM img/s)"
floor() {
  local flog; flog=$(mktemp)
  build/pip/example/conv_floor 32 "$1" 3 >"$flog" 2>&1
  printf "%-34s %10s %12s\n" "floor: $2, cold caches" \
    "$(sed -n 's/^floor:.*= \([0-9.]*\) img\/s at.*/\1/p' "$flog")" "" | tee -a "$out"
  printf "%-34s %10s %12s\n" "floor: $2, warm caches" \
    "$(sed -n 's/^floor:.*warm: .* = \([0-9.]*\) img\/s)/\1/p' "$flog")" "" | tee -a "$out"
  rm -f "$flog"
}
if [ -x build/pip/example/conv_floor ]; then
  floor float32 "convolutions"
  # with native bfloat16 (AVX512_BF16, AMX) the AMP run's floor too: the convolutions in bfloat16
  if python3 -c 'import symnet, sys; sys.exit(symnet.amp.auto_dtype(symnet.cpu())[0] != "bfloat16")'; then
    floor bfloat16 "bf16 convolutions"
  fi
fi
# inference, is_train=False: "batch 1: X ms" and "batch 32: Y img/s" from each program
inf=$(mktemp)
infer() {
  local label=$1; shift
  echo "== $label: $*" >&2
  local log; log=$(mktemp)
  "$@" >"$log" 2>&1
  grep -E "inference|Error|error" "$log" | head -2 >&2
  printf "%-34s %12s %14s\n" "$label" "$(sed -n 's/.*batch 1: \([0-9.]*\) ms.*/\1/p' "$log" | head -1)" \
    "$(sed -n 's/.*batch 32: \([0-9.]*\) img\/s.*/\1/p' "$log" | head -1)" | tee -a "$inf"
  rm -f "$log"
}
I="python3 example/benchmark/resnet50_infer.py --symbol $sym"
infer "symnet float32" $I
infer "symnet AMP auto" $I --amp auto
if [ -n "$TORCH_VENV" ] && [ -x "$TORCH_VENV/bin/python" ]; then
  infer "PyTorch 2.15 float32" "$TORCH_VENV/bin/python" example/benchmark/torch_resnet50_infer.py fp32
  infer "PyTorch 2.15 bf16 autocast" "$TORCH_VENV/bin/python" example/benchmark/torch_resnet50_infer.py bf16
fi
[ -x "$MXPY" ] && infer "MXNet 1.9.1 float32" "$MXPY" example/benchmark/resnet50_infer.py --mxnet --symbol "$sym"
echo
echo "== summary: ResNet-50 v1.5 training, batch 32, 224x224, 2 threads${ISA:+, ISA capped at $ISA}"
printf "%-34s %10s %12s\n" "run" "img/s" "peak RSS"
cat "$out"
echo
echo "== inference (is_train=False), 224x224, 2 threads${ISA:+, ISA capped at $ISA}"
printf "%-34s %12s %14s\n" "run" "batch 1 (ms)" "batch 32 img/s"
cat "$inf"
rm -f "$out" "$inf" "$sym"
