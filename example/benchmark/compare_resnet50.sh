#!/usr/bin/env bash
# Side-by-side ResNet-50 v1.5 training throughput at batch 32 on this machine, in one run:
# symnet (float32, AMP bfloat16, all-bfloat16), PyTorch (float32, bf16 autocast) and MXNet 1.9.1 (float32, on
# symnet's own symbol JSON). Needs: tools/setup.sh; Debian's python3-torch python3-torchvision;
# an MXNet venv (python3 -m venv mxvenv && mxvenv/bin/pip install mxnet==1.9.1 numpy==1.23.5).
#   example/benchmark/compare_resnet50.sh [mxnet_python] [steps]
set -u
cd "$(dirname "$0")/../.."
MXPY=${1:-/tmp/mxvenv/bin/python}
STEPS=${2:-5}
export OMP_NUM_THREADS=2
out=$(mktemp)
run() { echo "== $*" >&2; "$@" 2>&1 | grep -E "img/s" | head -1 | tee -a "$out"; }
run python3 example/benchmark/resnet50_train.py --steps "$STEPS" --no-profile --export-symbol /tmp/r50-symbol.json
run python3 example/benchmark/resnet50_train.py --steps "$STEPS" --no-profile --amp bfloat16
run python3 example/benchmark/resnet50_train.py --steps "$STEPS" --no-profile --dtype bfloat16
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import torch" 2>/dev/null && {
  run /usr/bin/python3 ../shared/anchors/torch_resnet50_train.py 32 fp32
  run /usr/bin/python3 ../shared/anchors/torch_resnet50_train.py 32 bf16
}
[ -x "$MXPY" ] && run "$MXPY" example/benchmark/mxnet_resnet50_train.py /tmp/r50-symbol.json 32 "$STEPS"
echo "== summary (img/s)"
awk '{for (i = 1; i <= NF; ++i) if ($i ~ /^img\/s/) print $(i - 1), "\t", $0}' "$out"
