#!/usr/bin/env python3
"""Times full ResNet training steps (forward, backward, SGD-momentum update) on random data
and prints img/s, ms/step and the time per operator type.

    python3 example/benchmark/resnet50_train.py [--device cpu|gpu] [--batch-size 32]
        [--dtype float32|bfloat16|float16] [--amp float16|bfloat16]
        [--precisions float32,amp-float16,amp-bfloat16] [--num-layers 50] [--image-size 224]
        [--steps 5] [--warmup 2] [--no-profile]

--dtype bfloat16 binds the whole network in bfloat16 (BatchNorm statistics stay float32);
--amp converts the float32 graph with symnet.amp. --precisions runs several in one process and
ends with a table (on a GPU: `--device gpu --precisions float32,amp-float16,amp-bfloat16`).
"""
import argparse
import resource
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
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--layout", default="NCHW", choices=["NCHW", "NHWC"],
                   help="NHWC: the channels-last network of MXNet's GPU scripts (layout='NHWC' "
                        "convolutions and poolings, BatchNorm axis 3)")
    p.add_argument("--gpu-id", type=int, default=0)
    p.add_argument("--precisions", help="comma-separated list of float32, float16, bfloat16, "
                   "amp-float16, amp-bfloat16, amp-auto: run each and print a table")
    args = p.parse_args()
    if args.device == "gpu" and mx.num_gpus() <= args.gpu_id:
        raise SystemExit("--device gpu: symnet sees %d GPU(s) (features: CUDA=%s)"
                         % (mx.num_gpus(), mx.features().get("CUDA")))
    ctx = mx.gpu(args.gpu_id) if args.device == "gpu" else mx.cpu()
    if not args.precisions:
        run(args, ctx, "amp-" + args.amp if args.amp else args.dtype)
        return
    rows = [run(args, ctx, prec.strip()) for prec in args.precisions.split(",")]
    base = rows[0][1]
    print("\n%-14s %10s %10s %12s" % ("precision", "img/s", "ms/step", "vs " + rows[0][0]))
    for name, ips, ms in rows:
        print("%-14s %10.2f %10.1f %11.2fx" % (name, ips, ms, ips / base))


def run(args, ctx, precision):
    """One precision ('float32', 'bfloat16', 'amp-float16', ...): prints its figures and returns
    (precision, img/s, ms/step)."""
    if precision == "amp-auto":  # what this machine runs natively (float32 where 16-bit is slower)
        name, why = mx.amp.auto_dtype(ctx)
        print("amp-auto: %s" % why)
        precision = "float32" if name == "float32" else "amp-" + name
    args.amp = precision[4:] if precision.startswith("amp-") else None
    args.dtype = "float32" if args.amp else precision

    shape = (3, args.image_size, args.image_size)
    net = mx.models.resnet(args.num_layers, args.version, 1000, shape, layout=args.layout)
    if args.layout == "NHWC":
        shape = (args.image_size, args.image_size, 3)
    if args.amp:
        net = mx.amp.convert_symbol(net, args.amp)
        args.dtype = "float32"  # the data stays float32; the graph casts what runs in 16 bits
    if args.export_symbol:
        net.save(args.export_symbol)
        if args.steps == 0:
            return
    bs = args.batch_size
    t0 = time.time()
    exe = net.simple_bind(ctx, grad_req={n: "write" for n in net.list_arguments()
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
    moms = {n: mx.nd.zeros(exe.arg_dict[n].shape, ctx=ctx, dtype=exe.arg_dict[n].dtype) for n in params}

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
    what = ("AMP " + args.amp if args.amp else args.dtype) + (" NHWC" if args.layout == "NHWC" else "")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10  # KiB on Linux
    print("ResNet-%d v%s, batch %d, %dx%d, %s on %s (oneDNN ISA %s): %.2f img/s, %.1f ms/step (median of %d; "
          "min %.1f ms); bind %.1f s; arena %.1f MB; peak RSS %.0f MB (process so far)"
          % (args.num_layers, args.version, bs, args.image_size, args.image_size, what, ctx,
             mx.features().get("DNNL_ISA"), bs / med, med * 1e3, args.steps, min(times) * 1e3,
             bind_s, r["arena_bytes"] / 2**20, rss))
    if ctx.device_type == "gpu":
        print("GPU pool: peak %.1f MB in arrays" % (mx.context.gpu_memory_stats(ctx.device_id)["peak"] / 2**20))
    if not args.no_profile:
        prof = exe.op_profile()
        total = sum(v[0] for v in prof.values())
        print("per-op time over %d steps (%.1f ms/step in ops; step %.1f ms; the rest is the "
              "optimizer and Python):" % (args.steps, total / args.steps * 1e3, med * 1e3))
        for name, (secs, calls) in sorted(prof.items(), key=lambda kv: -kv[1][0]):
            print("  %-28s %8.1f ms/step %5.1f%%  (%d calls/step)" % (
                name, secs / args.steps * 1e3, 100 * secs / total, calls // args.steps))
        exe.set_profiling(False)
    return precision, bs / med, med * 1e3


if __name__ == "__main__":
    main()
