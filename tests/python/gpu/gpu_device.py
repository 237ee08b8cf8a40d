"""The device the GPU suite runs on: gpu(0) when there is one. SYMNET_GPU_TESTS_ON_CPU=1 runs
the suite on the CPU instead, which checks the tests themselves (not the GPU kernels) on a
machine without a GPU. None: the suite is skipped."""
import os

import symnet as mx

if mx.num_gpus() > 0:
    DEVICE = mx.gpu(0)
elif os.environ.get("SYMNET_GPU_TESTS_ON_CPU") == "1":
    DEVICE = mx.cpu()
else:
    DEVICE = None
