#!/usr/bin/env python3
"""Prints the memory plan of a training graph: arena bytes, bytes with no sharing, the lower
bound (most bytes alive at one step), in-place reuses, and arena / lower bound.

    python3 example/benchmark/memory_plan.py [--model mlp] [--batch 256]
"""
import argparse

import symnet as mx


def mlp():
    net = mx.sym.var("data")
    for i, h in enumerate((128, 64)):
        net = mx.sym.FullyConnected(net, num_hidden=h, name="fc%d" % (i + 1))
        net = mx.sym.Activation(net, act_type="relu", name="relu%d" % (i + 1))
    net = mx.sym.FullyConnected(net, num_hidden=10, name="fc3")
    return mx.sym.SoftmaxOutput(net, name="softmax"), {"data": (None, 64)}


MODELS = {"mlp": mlp}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="mlp", choices=sorted(MODELS))
    p.add_argument("--batch", type=int, default=256)
    args = p.parse_args()
    sym, inputs = MODELS[args.model]()
    shapes = {k: (args.batch,) + v[1:] for k, v in inputs.items()}
    print("%s training graph, batch %d" % (args.model, args.batch))
    print("%-9s %12s %12s %12s %9s %14s" % ("dtype", "arena", "no sharing", "lower bound",
                                             "in-place", "arena/bound"))
    for dtype in ("float32", "float16", "bfloat16"):
        exe = sym.simple_bind(mx.cpu(), type_dict={k: dtype for k in shapes}, **shapes)
        r = exe.memory_report()
        print("%-9s %12d %12d %12d %9d %14.3f" % (
            dtype, r["arena_bytes"], r["no_sharing_bytes"], r["lower_bound_bytes"],
            r["num_inplace"], r["arena_bytes"] / r["lower_bound_bytes"]))


if __name__ == "__main__":
    main()
