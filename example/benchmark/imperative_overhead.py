#!/usr/bin/env python3
"""Per-op overhead of imperative training: 100 x (Dense 16 + relu), batch 4, forward and
backward under autograd.record (issue 16's measure), on symnet and on PyTorch eager in one run.

    python3 example/benchmark/imperative_overhead.py [--torch-python /root/torchvenv/bin/python]

Prints ms per iteration (forward + backward) and the ratio symnet / PyTorch. The PyTorch side
runs in its own interpreter (its venv) with the same thread count.
"""
import argparse
import os
import subprocess
import sys
import time

LAYERS, UNITS, BATCH = 100, 16, 4

TORCH_SCRIPT = r"""
import sys, time, torch
torch.set_num_threads(int(sys.argv[1]))
layers = [torch.nn.Linear(16, 16) for _ in range(100)]
x = torch.randn(4, 16)
def step():
    h = x
    for l in layers:
        h = torch.relu(l(h))
    h.sum().backward()
for _ in range(20):
    step()
n, t = 0, time.perf_counter()
while time.perf_counter() - t < float(sys.argv[2]):
    step(); n += 1
print((time.perf_counter() - t) / n * 1e3)
"""


def symnet_ms(seconds):
    import symnet as mx
    from symnet import autograd, gluon, nd
    net = gluon.nn.Sequential()
    with net.name_scope():
        for _ in range(LAYERS):
            net.add(gluon.nn.Dense(UNITS, activation="relu", in_units=UNITS))
    net.initialize(mx.init.Xavier())
    x = nd.array(__import__("numpy").random.randn(BATCH, UNITS))

    def step():
        with autograd.record():
            y = nd.sum(net(x))
        y.backward()

    for _ in range(20):
        step()
    n, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        step()
        n += 1
    return (time.perf_counter() - t) / n * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-python", default="/root/torchvenv/bin/python")
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    threads = os.environ.get("OMP_NUM_THREADS", str(os.cpu_count()))
    sym = symnet_ms(args.seconds)
    print("symnet  imperative 100 x (Dense 16 + relu), batch 4: %.3f ms/iter" % sym)
    if os.path.exists(args.torch_python):
        out = subprocess.run([args.torch_python, "-c", TORCH_SCRIPT, threads, str(args.seconds)],
                             capture_output=True, text=True, check=True).stdout
        torch_ms = float(out.strip().splitlines()[-1])
        print("pytorch eager      100 x (Linear 16 + relu), batch 4: %.3f ms/iter" % torch_ms)
        print("ratio symnet / pytorch: %.2f" % (sym / torch_ms))
    else:
        print("no PyTorch interpreter at %s: symnet only" % args.torch_python, file=sys.stderr)


if __name__ == "__main__":
    main()
