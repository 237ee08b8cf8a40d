#!/usr/bin/env python3
"""A hybridized Gluon ResNet training step against the Module path on the same network: the
model zoo's resnet50_v1 (gluon.Trainer, SoftmaxCrossEntropyLoss, autograd.record) and its
exported symbol with SoftmaxOutput in a Module (forward_backward + update), both SGD with
momentum on the same random batch. Rounds alternate the two (A B A B ...) so that machine noise
falls on both; prints ms/step and img/s per path and the ratio.

    python3 example/benchmark/gluon_vs_module_step.py [--batch-size 16] [--image-size 224]
        [--rounds 3] [--steps 3] [--network resnet50_v1]
"""
import argparse
import time

import numpy as np

import symnet as mx
from symnet import autograd, gluon


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--network", default="resnet50_v1")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    n, s = args.batch_size, args.image_size
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, (n, 3, s, s)).astype(np.float32))
    y = mx.nd.array(rng.randint(0, 1000, n).astype(np.float32))
    opt = {"learning_rate": 0.01, "momentum": 0.9, "wd": 1e-4}

    net = gluon.model_zoo.vision.get_model(args.network)
    net.initialize(mx.init.Xavier(magnitude=2))
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", opt)
    loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def gluon_step():
        with autograd.record():
            l = loss(net(x), y)
        l.backward()
        trainer.step(n)
        l.asnumpy()

    gluon_step()  # traces, binds and plans once
    data = mx.sym.var("data")
    sym = mx.sym.SoftmaxOutput(net(data), name="softmax")
    params = net.collect_params()
    arg_params = {k: params[k].data() for k in sym.list_arguments() if k in params}
    aux_params = {k: params[k].data() for k in sym.list_auxiliary_states()}
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=[("data", x.shape)], label_shapes=[("softmax_label", y.shape)])
    mod.init_params(arg_params=arg_params, aux_params=aux_params)
    mod.init_optimizer(optimizer="sgd", optimizer_params=opt)
    batch = mx.io.DataBatch(data=[x], label=[y])

    def module_step():
        mod.forward_backward(batch)
        mod.update()
        mod.get_outputs()[0].asnumpy()

    module_step()
    times = {"gluon": [], "module": []}
    for _ in range(args.rounds):
        for name, step in (("gluon", gluon_step), ("module", module_step)):
            t = time.perf_counter()
            for _ in range(args.steps):
                step()
            times[name].append((time.perf_counter() - t) / args.steps)
    for name in ("module", "gluon"):
        ms = 1000 * float(np.median(times[name]))
        print("%-7s %8.1f ms/step  %6.1f img/s  (rounds: %s)" % (
            name, ms, n / ms * 1000, ", ".join("%.0f" % (1000 * t) for t in times[name])))
    ratio = float(np.median(times["gluon"]) / np.median(times["module"]))
    print("gluon / module: %.3f (%s, batch %d, %dx%d)" % (ratio, args.network, n, s, s))


if __name__ == "__main__":
    main()
