#!/usr/bin/env python3
"""Training step of a gluon model-zoo network, the same script on symnet and on MXNet 1.9.1.

    build/mxnet-venv/bin/python example/benchmark/zoo_train_step.py --mxnet --net mobilenetv2_1.0
    python3 example/benchmark/zoo_train_step.py --net mobilenetv2_1.0

Under MXNet (--mxnet) the network is exported from MXNet's model zoo into --dir first (its
-symbol.json and .params, random weights); both frameworks then load those files, bind them with
a softmax loss and run forward, backward and an SGD-momentum update of every parameter per step.
Prints ms/step and img/s (median of --steps after one warm-up step).
"""
import argparse
import os
import time

import numpy as np

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--mxnet", action="store_true", help="run under MXNet (export the net if needed)")
ap.add_argument("--net", default="mobilenetv2_1.0", help="a model-zoo name (vision.get_model)")
ap.add_argument("--batch", type=int, default=16)
ap.add_argument("--size", type=int, default=224)
ap.add_argument("--steps", type=int, default=5)
ap.add_argument("--dir", default="/tmp/symnet_zoo_bench")
args = ap.parse_args()

if args.mxnet:
    import mxnet as mx
else:
    import symnet as mx

prefix = os.path.join(args.dir, args.net)
if args.mxnet and not os.path.exists(prefix + "-symbol.json"):
    from mxnet.gluon.model_zoo import vision
    os.makedirs(args.dir, exist_ok=True)
    net = vision.get_model(args.net, classes=1000)
    net.initialize(mx.init.Xavier(magnitude=2))
    net.hybridize()
    net(mx.nd.zeros((1, 3, args.size, args.size)))
    net.export(prefix)
    os.rename(prefix + "-0000.params", prefix + ".params")

sym = mx.sym.SoftmaxOutput(mx.sym.load(prefix + "-symbol.json"), name="softmax")
params = mx.nd.load(prefix + ".params")
shape = (args.batch, 3, args.size, args.size)
exe = sym.simple_bind(mx.cpu(), grad_req={n: "null" if n in ("data", "softmax_label") else "write"
                                          for n in sym.list_arguments()}, data=shape,
                      softmax_label=(args.batch,))
for k, v in params.items():
    kind, n = k.split(":", 1)
    (exe.arg_dict if kind == "arg" else exe.aux_dict)[n][:] = v
rng = np.random.RandomState(0)
exe.arg_dict["data"][:] = rng.normal(size=shape).astype(np.float32)
exe.arg_dict["softmax_label"][:] = rng.randint(0, 1000, args.batch).astype(np.float32)
names = [n for n in sym.list_arguments() if exe.grad_dict.get(n) is not None]
moms = {n: mx.nd.zeros(exe.arg_dict[n].shape) for n in names}


def step():
    exe.forward(is_train=True)
    exe.backward()
    for n in names:
        mx.nd.sgd_mom_update(exe.arg_dict[n], exe.grad_dict[n], moms[n], out=exe.arg_dict[n], lr=0.01,
                             momentum=0.9, wd=1e-4, rescale_grad=1.0 / args.batch)
    exe.arg_dict[names[0]].asnumpy()  # wait for the step


step()
times = []
for _ in range(args.steps):
    t = time.time()
    step()
    times.append(time.time() - t)
ms = float(np.median(times)) * 1000
print("%s %s batch %d at %dx%d, float32: %.1f ms/step, %.1f img/s"
      % ("mxnet" if args.mxnet else "symnet", args.net, args.batch, args.size, args.size, ms,
         args.batch * 1000 / ms))
