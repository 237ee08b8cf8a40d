#!/usr/bin/env python3
"""Times full ResNet training steps (forward, backward, SGD-momentum update) on random data
and prints img/s, ms/step and the time per operator type.

    python3 example/benchmark/resnet50_train.py [--batch-size 32] [--dtype float32|bfloat16]
        [--num-layers 50] [--image-size 224] [--steps 5] [--warmup 2] [--no-profile]

--dtype bfloat16 binds the whole network in bfloat16 (BatchNorm statistics stay float32);
it measures the 16-bit kernels before the AMP rewrite exists.
"""
import argparse
import time

import numpy as np

import symnet as mx


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    p.add_argument("--amp", choices=["float16", "bfloat16"],
                   help="convert the graph with symnet.amp (float32 data and parameters)")
    p.add_argument("--num-layers", type=int, default=50)
    p.add_argument("--version", default="1.5")
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--no-profile", action="store_true")
    p.add_argument("--export-symbol", help="also write the symbol JSON here (for the MXNet anchor)")
    args = p.parse_args()

    shape = (3, args.image_size, args.image_size)
    net = mx.models.resnet(args.num_layers, args.version, 1000, shape)
    if args.amp:
        net = mx.amp.convert_symbol(net, args.amp)
        args.dtype = "float32"  # the data stays float32; the graph casts what runs in 16 bits
    if args.export_symbol:
        net.save(args.export_symbol)
        if args.steps == 0:
            return
    bs = args.batch_size
    t0 = time.time()
    exe = net.simple_bind(mx.cpu(), grad_req={n: "write" for n in net.list_arguments()
                                              if n not in ("data", "softmax_label")},
                          type_dict={"data": args.dtype}, data=(bs,) + shape)
    bind_s = time.time() - t0
    rng = np.random.RandomState(0)
    params = [n for n in net.list_arguments() if n not in ("data", "softmax_label")]
    for n in params:
        a = exe.arg_dict[n]
        fan_in = int(np.prod(a.shape[1:])) if len(a.shape) > 1 else 1
        a[:] = rng.normal(0, np.sqrt(2.0 / fan_in), a.shape) if n.endswith("weight") else (
            1.0 if n.endswith("gamma") else 0.0)
    for n in exe.aux_dict:
        exe.aux_dict[n][:] = 1.0 if n.endswith("var") else 0.0
    exe.arg_dict["data"][:] = rng.normal(size=(bs,) + shape)
    exe.arg_dict["softmax_label"][:] = rng.randint(0, 1000, bs)
    moms = {n: mx.nd.zeros(exe.arg_dict[n].shape, dtype=exe.arg_dict[n].dtype) for n in params}

    def step():
        exe.forward(is_train=True)
        exe.backward()
        for n in params:
            mx.nd.sgd_mom_update(exe.arg_dict[n], exe.grad_dict[n], moms[n], out=exe.arg_dict[n],
                                 lr=0.01, momentum=0.9, wd=1e-4, rescale_grad=1.0 / bs)
        exe.outputs[0].wait_to_read()

    for _ in range(args.warmup):
        step()
    if not args.no_profile:
        exe.set_profiling(True)
    times = []
    for _ in range(args.steps):
        t = time.time()
        step()
        times.append(time.time() - t)
    med = float(np.median(times))
    r = exe.memory_report()
    what = "AMP " + args.amp if args.amp else args.dtype
    print("ResNet-%d v%s, batch %d, %dx%d, %s: %.2f img/s, %.1f ms/step (median of %d; min %.1f ms); "
          "bind %.1f s; arena %.1f MB" % (args.num_layers, args.version, bs, args.image_size,
                                          args.image_size, what, bs / med, med * 1e3,
                                          args.steps, min(times) * 1e3, bind_s, r["arena_bytes"] / 2**20))
    if not args.no_profile:
        prof = exe.op_profile()
        total = sum(v[0] for v in prof.values())
        print("per-op time over %d steps (%.1f ms/step in ops; step %.1f ms; the rest is the "
              "optimizer and Python):" % (args.steps, total / args.steps * 1e3, med * 1e3))
        for name, (secs, calls) in sorted(prof.items(), key=lambda kv: -kv[1][0]):
            print("  %-28s %8.1f ms/step %5.1f%%  (%d calls/step)" % (
                name, secs / args.steps * 1e3, 100 * secs / total, calls // args.steps))


if __name__ == "__main__":
    main()
