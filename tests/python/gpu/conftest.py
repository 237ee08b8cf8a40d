"""GPU tests: the CPU test modules re-run with gpu(0) as the default context, plus CPU-vs-GPU
consistency checks. Without a GPU every test here reports skipped, with the reason."""
import os
import sys

import pytest

import symnet as mx

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_device import DEVICE  # noqa: E402

NO_GPU_REASON = ("no usable GPU (symnet.num_gpus() == 0: %s); the GPU suite re-runs the operator "
                 "tests on gpu(0) and compares GPU with CPU results"
                 % ("symnet was built without CUDA" if mx.features().get("CUDA") != "1"
                    else "built with CUDA, but this machine has no CUDA device"))


def pytest_collection_modifyitems(config, items):
    if DEVICE is not None:
        return
    here = os.path.dirname(os.path.abspath(__file__))
    skip = pytest.mark.skip(reason=NO_GPU_REASON)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _default_gpu():
    """Every test here runs with gpu(0) (DEVICE) as the default context."""
    if DEVICE is None:
        yield
        return
    with DEVICE:
        yield
