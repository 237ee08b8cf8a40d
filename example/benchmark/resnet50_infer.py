#!/usr/bin/env python3
"""ResNet-50 inference (`is_train=False`): batch-1 latency and batch-32 throughput.

The same script runs on symnet and, with --mxnet, on MXNet 1.9.1 (run it with MXNet's Python),
so both execute one symbol JSON (written by resnet50_train.py --export-symbol, or built here):

    python3 example/benchmark/resnet50_infer.py [--symbol r50.json] [--amp auto|bfloat16|float16]
        [--no-fuse]
    build/mxnet-venv/bin/python example/benchmark/resnet50_infer.py --mxnet --symbol r50.json

Prints one line: "... batch 1: X ms (median of N) ... batch 32: Y img/s ...".
"""
import argparse
import time

import numpy as np


def bind(mx, net, bs, image, options=None):
    """An inference executor with He-initialised weights and unit BatchNorm statistics."""
    extra = {"options": options} if options else {}
    exe = net.simple_bind(mx.cpu(), grad_req="null", data=(bs, 3, image, image), **extra)
    rng = np.random.RandomState(0)
    for n, a in exe.arg_dict.items():
        if n in ("data", "softmax_label"):
            continue
        fan_in = int(np.prod(a.shape[1:])) if len(a.shape) > 1 else 1
        a[:] = rng.normal(0, np.sqrt(2.0 / fan_in), a.shape) if n.endswith("weight") else (
            1.0 if n.endswith("gamma") else 0.0)
    for n, a in exe.aux_dict.items():
        a[:] = 1.0 if n.endswith("var") else 0.0
    exe.arg_dict["data"][:] = rng.normal(size=(bs, 3, image, image))
    return exe


def median_seconds(exe, reps, warmup):
    def once():
        t = time.perf_counter()
        exe.forward(is_train=False)
        exe.outputs[0].wait_to_read()
        return time.perf_counter() - t
    for _ in range(warmup):
        once()
    return float(np.median([once() for _ in range(reps)]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mxnet", action="store_true", help="run on MXNet instead of symnet")
    p.add_argument("--symbol", help="a ResNet-50 symbol JSON (default: symnet builds v1.5)")
    p.add_argument("--amp", help="symnet only: convert the graph with symnet.amp (auto, bfloat16, float16)")
    p.add_argument("--no-fuse", action="store_true",
                   help="symnet only: bind without folding BatchNorm into the convolutions")
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--batch", type=int, default=32, help="the throughput batch")
    p.add_argument("--reps1", type=int, default=20, help="timed batch-1 calls")
    p.add_argument("--reps", type=int, default=3, help="timed calls at --batch")
    args = p.parse_args()
    if args.mxnet:
        import mxnet as mx
    else:
        import symnet as mx
    if args.symbol:
        net = mx.sym.load(args.symbol)
    else:
        net = mx.models.resnet(50, "1.5", 1000, (3, args.image_size, args.image_size))
    what = "float32"
    if args.amp:
        dtype = args.amp
        if dtype == "auto":
            dtype, why = mx.amp.auto_dtype(mx.cpu())
            print("amp auto: " + why)
        if dtype != "float32":
            net = mx.amp.convert_symbol(net, dtype)
        what = "AMP " + dtype
    isa = "" if args.mxnet else " (oneDNN ISA %s)" % mx.features()["DNNL_ISA"]
    options = {"fuse": False} if args.no_fuse else None
    if args.no_fuse:
        what += ", BatchNorm not folded"
    one = median_seconds(bind(mx, net, 1, args.image_size, options), args.reps1, 3)
    many = median_seconds(bind(mx, net, args.batch, args.image_size, options), args.reps, 1)
    print("%s %s ResNet-50 inference %s%s: batch 1: %.1f ms (median of %d); batch %d: %.2f img/s "
          "(%.0f ms per batch)" % ("mxnet" if args.mxnet else "symnet", mx.__version__, what, isa,
                                   one * 1e3, args.reps1, args.batch, args.batch / many, many * 1e3))


if __name__ == "__main__":
    main()
