#!/usr/bin/env python3
"""PyTorch's side of resnet50_infer.py: torchvision's ResNet-50 in eval mode under
torch.inference_mode(), batch-1 latency and batch-32 throughput, 2 threads.

    TORCH_VENV/bin/python example/benchmark/torch_resnet50_infer.py [fp32|bf16] [batch=32]
"""
import sys
import time

import numpy as np
import torch
import torchvision


def median_seconds(model, x, reps, warmup, bf16):
    def once():
        t = time.perf_counter()
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            model(x)
        return time.perf_counter() - t
    for _ in range(warmup):
        once()
    return float(np.median([once() for _ in range(reps)]))


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "fp32"
    bs = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    torch.set_num_threads(2)
    model = torchvision.models.resnet50().eval()
    bf16 = mode == "bf16"
    one = median_seconds(model, torch.randn(1, 3, 224, 224), 20, 3, bf16)
    many = median_seconds(model, torch.randn(bs, 3, 224, 224), 3, 1, bf16)
    print("torch %s ResNet-50 inference %s: batch 1: %.1f ms (median of 20); batch %d: %.2f img/s "
          "(%.0f ms per batch)" % (torch.__version__, mode, one * 1e3, bs, bs / many, many * 1e3))


if __name__ == "__main__":
    main()
