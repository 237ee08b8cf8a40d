#!/usr/bin/env python3
"""The MXNet 1.9.1 anchor: times the same training step as resnet50_train.py (forward, backward,
sgd_mom_update per parameter) on a symbol JSON written by symnet, with MXNet's own executor.
Run it with MXNet's Python, e.g. a venv made by
    python3 -m venv mxvenv && mxvenv/bin/pip install mxnet==1.9.1 numpy==1.23.5

    python3 example/benchmark/resnet50_train.py --export-symbol /tmp/r50-symbol.json --steps 0
    OMP_NUM_THREADS=2 mxvenv/bin/python example/benchmark/mxnet_resnet50_train.py /tmp/r50-symbol.json
"""
import sys
import time

import mxnet as mx
import numpy as np


def main():
    path = sys.argv[1]
    bs = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    net = mx.sym.load(path)
    shape = (bs, 3, 224, 224)
    params = [n for n in net.list_arguments() if n not in ("data", "softmax_label")]
    exe = net.simple_bind(mx.cpu(), grad_req={n: "write" for n in params}, data=shape)
    rng = np.random.RandomState(0)
    for n in params:
        a = exe.arg_dict[n]
        fan_in = int(np.prod(a.shape[1:])) if len(a.shape) > 1 else 1
        a[:] = rng.normal(0, np.sqrt(2.0 / fan_in), a.shape) if n.endswith("weight") else (
            1.0 if n.endswith("gamma") else 0.0)
    exe.arg_dict["data"][:] = rng.normal(size=shape)
    exe.arg_dict["softmax_label"][:] = rng.randint(0, 1000, bs)
    moms = {n: mx.nd.zeros(exe.arg_dict[n].shape) for n in params}

    def step():
        exe.forward(is_train=True)
        exe.backward()
        for n in params:
            mx.nd.sgd_mom_update(exe.arg_dict[n], exe.grad_dict[n], moms[n], out=exe.arg_dict[n],
                                 lr=0.01, momentum=0.9, wd=1e-4, rescale_grad=1.0 / bs)
        mx.nd.waitall()

    for _ in range(2):
        step()
    times = []
    for _ in range(steps):
        t = time.time()
        step()
        times.append(time.time() - t)
    med = float(np.median(times))
    print("mxnet %s ResNet-50 (symnet's symbol), batch %d, float32: %.2f img/s, %.1f ms/step"
          % (mx.__version__, bs, bs / med, med * 1e3))


if __name__ == "__main__":
    main()
