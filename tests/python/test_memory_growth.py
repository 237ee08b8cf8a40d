"""Memory stays flat over repeated autograd steps through hybridized blocks.

MXNet 1.9.1's test_gluon.py::test_slice_* tests build a new hybridized block around shared
pooling layers for every case, attach_grad() the same input again and record/backward through
it. Each hybridized block holds executors whose buffers are the size of the input (its copy of
the input, the input's gradient, the activations); when a dropped block sat in a reference cycle
(block -> name scope -> block, block -> cached graph -> block), those buffers lived on until
Python's cycle collector ran, which it does by counts of objects, not by bytes: memory grew by
input-sized buffers per step, past 15 GB where MXNet peaks at 5 GB.

The steps run in a child process with the collector off, so what it measures is what reference
counting alone frees, and with glibc's mmap threshold fixed at 128 KB, so that every buffer of
that size or more is returned to the system when freed and RSS counts the live buffers (with the
default, adaptive threshold, reuse of the heap moves RSS by ~10% from one step to the next)."""
import gc
import json
import os
import subprocess
import sys

import numpy as np

import symnet as mx
from symnet.gluon import nn

WARMUP, STEPS = 3, 20


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class SlicePoolSlicePool(mx.gluon.HybridBlock):
    """MXNet's test block: slice, pool, slice, pool (with pooling layers shared between blocks)."""

    def __init__(self, pool0, pool1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.pool0, self.pool1 = pool0, pool1

    def hybrid_forward(self, F, x):
        y = self.pool0(x.slice(begin=(2, 0, 10, 5), end=(8, None, None, None)))
        return self.pool1(y.slice(begin=(0, 4, 0, 0), end=(2, None, None, None)))


def measure():
    """MXNet's check_layer_forward_withinput, step after step: the same array attach_grad() again,
    recorded through a new block imperatively, then a copy of it through the block hybridized.
    Returns the input's bytes and RSS after each step."""
    x = mx.nd.random.uniform(shape=(8, 16, 80, 80))  # 3.1 MB
    pools = [nn.MaxPool2D(strides=(2, 3), padding=(1, 1)), nn.AvgPool2D(strides=(2, 2), padding=(1, 1))]
    gc.collect()
    gc.disable()
    rss = []
    for i in range(WARMUP + STEPS):
        net = SlicePoolSlicePool(pools[i % 2], pools[1 - i % 2])
        net.collect_params().initialize()
        x.attach_grad()
        with mx.autograd.record():
            out1 = net(x)
        out1.backward()
        x_hybrid = x.copy()
        x_hybrid.attach_grad()
        net.hybridize()
        with mx.autograd.record():
            out2 = net(x_hybrid)
        out2.backward()
        rss.append(rss_bytes())
    # the two runs agree: the steps did the work
    np.testing.assert_allclose(x.grad.asnumpy(), x_hybrid.grad.asnumpy(), rtol=1e-5, atol=1e-6)
    return x.size * 4, rss


def test_new_hybridized_blocks_on_the_same_input_keep_memory_flat():
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="131072")
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    input_bytes, rss = json.loads(proc.stdout.strip().splitlines()[-1])
    first, last = rss[WARMUP], max(rss[WARMUP:])
    # one leaked input-sized buffer per step would add STEPS * 3.1 MB, well over 5% of the first
    assert (STEPS - 1) * input_bytes > 0.15 * first
    assert last <= 1.05 * first, "RSS grew from %.0f MB to %.0f MB over %d steps (input %.1f MB): %s" % (
        first / 2**20, last / 2**20, STEPS, input_bytes / 2**20, [round(r / 2**20) for r in rss])


if __name__ == "__main__":
    print(json.dumps(measure()))
