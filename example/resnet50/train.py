#!/usr/bin/env python3
"""Trains ResNet (ResNet-50 v1.5 by default) with symnet's Module API, in the precision the
hardware runs fastest by default (--amp auto: bfloat16 on CPUs with native bfloat16, float16 on
GPUs, float32 elsewhere; --amp bfloat16/float16 forces AMP, --amp none float32).

With no arguments it builds the built-in data set (scikit-learn's handwritten digits as 24x24
RGB JPEG .rec files) on first use and trains for a few minutes on 2 cores, printing progress,
img/s, the loss scale and validation accuracy; it writes checkpoints, a JSON-lines log and a
training-curve PNG under build/resnet50_example/ and ends with a one-line summary.

    python3 example/resnet50/train.py                        # default run (--amp auto)
    python3 example/resnet50/train.py --compare              # float32 vs AMP, table + one PNG
    python3 example/resnet50/train.py --benchmark --image-shape 3,224,224   # synthetic img/s
    python3 example/resnet50/train.py --data-train train.rec --data-val val.rec \\
        --image-shape 3,224,224 --num-classes 1000 --num-epochs 90 --lr-schedule step
    python3 example/resnet50/train.py --resume               # from the newest checkpoint
"""
import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time

import numpy as np

import symnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import digits_data  # noqa: E402

DEFAULT_WORK_DIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "resnet50_example")
# ImageNet's per-channel statistics (RGB), as MXNet's image-classification example uses them
MEAN_RGB, STD_RGB = (123.68, 116.779, 103.939), (58.393, 57.12, 57.375)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--network", default="resnet", choices=["resnet"])
    p.add_argument("--num-layers", type=int, default=50)
    p.add_argument("--version", default="1.5", choices=["1", "1.5"])
    p.add_argument("--amp", default="auto", choices=["auto", "bfloat16", "float16", "none"],
                   help="16-bit type for convolutions and matrix products (none: float32; auto: "
                        "what this CPU/GPU runs natively, float32 where 16-bit would be slower)")
    p.add_argument("--batch-size", type=int, help="default 16 on the built-in data, else 32")
    p.add_argument("--image-shape", help="C,H,W (default 3,24,24 on the built-in data, else 3,224,224)")
    p.add_argument("--num-classes", type=int, help="default 10 on the built-in data, else 1000")
    p.add_argument("--data-train", help=".rec file of training images (default: built-in digits)")
    p.add_argument("--data-val", help=".rec file of validation images")
    p.add_argument("--synthetic", action="store_true", help="train on random data")
    p.add_argument("--num-epochs", type=int, default=6)
    p.add_argument("--num-iters", type=int,
                   help="end each epoch after this many batches (with --benchmark: timed steps)")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--lr-schedule", default="cosine", choices=["step", "cosine"])
    p.add_argument("--lr-step-epochs", default="30,60,80", help="epochs where step lowers the lr")
    p.add_argument("--lr-factor", type=float, default=0.1)
    p.add_argument("--warmup-epochs", type=float, default=0.5)
    p.add_argument("--wd", type=float, default=5e-5)
    p.add_argument("--mom", type=float, default=0.9)
    p.add_argument("--label-smoothing", type=float, default=0.0)
    p.add_argument("--no-zero-gamma", action="store_true",
                   help="initialise every BatchNorm gamma to 1 (default: the last BatchNorm of each "
                        "residual unit starts at 0, so each unit starts as the identity)")
    p.add_argument("--work-dir", default=DEFAULT_WORK_DIR, help="data, checkpoints, logs, plots")
    p.add_argument("--model-prefix", help="checkpoint prefix (default WORK_DIR/<run>/resnet50)")
    p.add_argument("--resume", action="store_true", help="continue from the newest checkpoint")
    p.add_argument("--benchmark", action="store_true",
                   help="synthetic data, time --num-iters steps after warm-up, print img/s")
    p.add_argument("--gpus", help="GPU ids to train on, e.g. 0 or 0,1 (data parallel); default: the CPU")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kv-store", default="local",
                   help="'dist_sync' under mpirun trains on several processes (docs/distributed.md)")
    p.add_argument("--log", help="per-batch log, .jsonl or .csv (default WORK_DIR/<run>.jsonl)")
    p.add_argument("--plot", help="training-curve PNG (default WORK_DIR/<run>.png)")
    p.add_argument("--compare", action="store_true",
                   help="run float32 and AMP with the same settings; table and one PNG")
    p.add_argument("--disp-batches", type=int, default=10)
    p.add_argument("--data-nthreads", type=int, default=2)
    p.add_argument("--summary-json", help=argparse.SUPPRESS)  # used by --compare
    args = p.parse_args(argv)
    builtin = not (args.data_train or args.synthetic or args.benchmark)
    if args.image_shape is None:
        # the digits are 8x8 scans: 24x24 keeps every detail and costs 0.56x the work of 32x32
        # (6 float32 epochs: 7.7 min on a 2-core AVX2 CPU instead of 12.9, 0.947 accuracy vs 0.903)
        args.image_shape = "3,24,24" if builtin else "3,224,224"
    args.image_shape = tuple(int(v) for v in args.image_shape.split(","))
    if len(args.image_shape) != 3:
        p.error("--image-shape must be C,H,W, got %r" % (args.image_shape,))
    if args.num_classes is None:
        args.num_classes = 10 if builtin else 1000
    if args.batch_size is None:  # 1,437 training images: more, smaller steps learn faster
        args.batch_size = 16 if builtin else 32
    args.builtin = builtin
    if args.amp == "auto":
        name, why = mx.amp.auto_dtype("gpu" if args.gpus else "cpu")
        print("--amp auto: %s" % why, flush=True)
        args.amp = "none" if name == "float32" else name
    args.run = "float32" if args.amp == "none" else "amp-" + args.amp
    return args


class LimitedIter(mx.io.DataIter):
    """Ends each epoch of the wrapped iterator after at most `per_epoch` batches."""

    def __init__(self, it, per_epoch):
        super().__init__(it.batch_size)
        self.it, self.per_epoch, self.left = it, per_epoch, per_epoch
        self.num_data = min(getattr(it, "num_data", per_epoch * it.batch_size), per_epoch * it.batch_size)

    provide_data = property(lambda self: self.it.provide_data)
    provide_label = property(lambda self: self.it.provide_label)

    def reset(self):
        self.it.reset()
        self.left = self.per_epoch

    def set_epoch(self, epoch):
        if hasattr(self.it, "set_epoch"):
            self.it.set_epoch(epoch)

    def __next__(self):
        if self.left <= 0:
            raise StopIteration
        self.left -= 1
        return next(self.it)

    next = __next__


class Throughput:
    """Batch-end callback: training img/s, leaving out the first batch of every epoch (it
    includes data start-up and, in the first epoch, graph and kernel set-up)."""

    def __init__(self, batch_size):
        self.batch_size, self.images, self.seconds, self._t = batch_size, 0, 0.0, None

    def __call__(self, param):
        now = time.time()
        if param.nbatch > 1 and self._t is not None:
            self.images += self.batch_size
            self.seconds += now - self._t
        self._t = now

    @property
    def img_per_s(self):
        return self.images / self.seconds if self.seconds else float("nan")


def make_data(args, kv=None):
    """Training and validation iterators; with a distributed store each rank reads its part."""
    kv = kv or mx.kv.create("local")
    shape, bs = args.image_shape, args.batch_size
    if args.synthetic or args.benchmark:
        n = args.num_iters or 20
        return (mx.io.SyntheticIter(shape, bs, args.num_classes, num_batches=n, seed=args.seed + kv.rank), None,
                "synthetic")
    norm = dict(mean_r=MEAN_RGB[0], mean_g=MEAN_RGB[1], mean_b=MEAN_RGB[2],
                std_r=STD_RGB[0], std_g=STD_RGB[1], std_b=STD_RGB[2])
    common = dict(data_shape=shape, batch_size=bs, preprocess_threads=args.data_nthreads,
                  num_parts=kv.num_workers, part_index=kv.rank, **norm)
    if args.builtin:
        if kv.rank != 0:  # rank 0 writes the data set (once), the others then read it
            kv.barrier()
        train_rec, val_rec, _, _ = digits_data.build(os.path.join(args.work_dir, "data"), shape[1],
                                                     quiet=kv.rank != 0)
        if kv.rank == 0:
            kv.barrier()
        # digits are not mirror-symmetric and the set is small: no augmentation
        train = mx.io.ImageRecordIter(path_imgrec=train_rec, shuffle=True, seed=args.seed, **common)
        val = mx.io.ImageRecordIter(path_imgrec=val_rec, **common)
        return train, val, "digits (built-in)"
    train = mx.io.ImageRecordIter(path_imgrec=args.data_train, shuffle=True, seed=args.seed,
                                  random_resized_crop=True, min_random_area=0.08, min_aspect_ratio=3 / 4,
                                  max_aspect_ratio=4 / 3, rand_mirror=True, **common)
    val = None
    if args.data_val:
        val = mx.io.ImageRecordIter(path_imgrec=args.data_val, resize=int(shape[1] * 256 / 224), **common)
    return train, val, args.data_train


def lr_scheduler(args, batches_per_epoch, total_epochs):
    warmup = int(args.warmup_epochs * batches_per_epoch)
    if args.lr_schedule == "cosine":
        return mx.lr_scheduler.CosineScheduler(max_update=max(total_epochs * batches_per_epoch, warmup + 1),
                                               base_lr=args.lr, final_lr=0.0, warmup_steps=warmup)
    steps = [int(e) * batches_per_epoch for e in args.lr_step_epochs.split(",") if e.strip()]
    return mx.lr_scheduler.MultiFactorScheduler(step=steps, factor=args.lr_factor, base_lr=args.lr,
                                                warmup_steps=warmup)


def build_module(args, prefix):
    """A Module for the network, converted for AMP when asked, possibly from a checkpoint."""
    if args.amp != "none":
        mx.amp.init(args.amp)  # later Module binding uses the mixed-precision graph
    begin_epoch = 0
    if args.resume:
        begin_epoch = mx.model.latest_checkpoint(prefix, need_states=True)
        if begin_epoch is None:
            raise SystemExit("--resume: no checkpoint with optimizer state matches %s-NNNN.params" % prefix)
        logging.info("resuming from %s-%04d.params (optimizer and loss-scaler state included)",
                     prefix, begin_epoch)
        mod = mx.mod.Module.load(prefix, begin_epoch, load_optimizer_states=True, context=contexts(args))
    else:
        net = mx.models.resnet(args.num_layers, args.version, args.num_classes, args.image_shape,
                               zero_init_last_gamma=not args.no_zero_gamma,
                               label_smoothing=args.label_smoothing)
        mod = mx.mod.Module(net, context=contexts(args))
    if args.amp != "none":
        mx.amp.init_trainer(mod)  # dynamic loss scaling; multi-precision SGD
    return mod, begin_epoch


def contexts(args):
    """--gpus 0,1 -> [gpu(0), gpu(1)]; no --gpus -> [cpu(0)]."""
    if not args.gpus:
        return [mx.cpu()]
    ids = [int(i) for i in args.gpus.split(",") if i.strip()]
    if max(ids) >= mx.num_gpus():
        raise SystemExit("--gpus %s: symnet sees %d GPU(s) (see docs/gpu.md)" % (args.gpus, mx.num_gpus()))
    return [mx.gpu(i) for i in ids]


def benchmark(args):
    args.resume = False  # a benchmark starts from fresh parameters
    kv = mx.kv.create(args.kv_store)
    mod, _ = build_module(args, "unused")
    bs, shape = args.batch_size, args.image_shape
    data = mx.io.SyntheticIter(shape, bs, args.num_classes, num_batches=1, seed=args.seed + kv.rank)
    batch = next(iter(data))
    mod.bind(data.provide_data, data.provide_label)
    mod.init_params(mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2))
    mod.init_optimizer(kvstore=kv, optimizer="sgd",
                       optimizer_params={"learning_rate": args.lr, "momentum": args.mom, "wd": args.wd})
    if os.environ.get("SYMNET_BENCH_NO_OVERLAP") == "1":  # for the hidden-communication figure
        mod.overlap_gradient_reduction = False
    steps, warmup = args.num_iters or 10, 2
    times, waits = [], []
    for i in range(warmup + steps):
        t = time.time()
        wait0 = mod.gradient_wait_seconds
        mod.forward_backward(batch)
        mod.update()
        mod.get_outputs()[0].wait_to_read()
        if i >= warmup:
            times.append(time.time() - t)
            waits.append(mod.gradient_wait_seconds - wait0)
    med = float(np.median(times))
    if kv.rank != 0:
        return
    ranks = "" if kv.num_workers == 1 else ", %d ranks (%.2f img/s in all), update waited %.1f ms/step for " \
        "the gradient sums" % (kv.num_workers, bs * kv.num_workers / med, 1e3 * float(np.median(waits)))
    print("benchmark: resnet-%d v%s %s, batch %d, %s: %.2f img/s (median of %d steps, %.1f ms/step; "
          "%d warm-up steps excluded), activation arena %.1f MB%s"
          % (args.num_layers, args.version, args.run, bs, "x".join(map(str, shape)), bs / med, steps,
             med * 1e3, warmup, mod.memory_report()["arena_bytes"] / 2**20, ranks))


def final_accuracy(mod, val_it, kv):
    """Validation accuracy over every rank's part of the validation set."""
    metric = mx.metric.Accuracy()
    mod.score(val_it, metric)
    return mx.kvstore.global_metric_values(metric, kv)


def train(args):
    run_dir = os.path.join(args.work_dir, args.run)
    os.makedirs(run_dir, exist_ok=True)
    prefix = args.model_prefix or os.path.join(run_dir, "resnet%d" % args.num_layers)
    log_path = args.log or os.path.join(args.work_dir, args.run + ".jsonl")
    plot_path = args.plot or os.path.join(args.work_dir, args.run + ".png")
    mx.random.seed(args.seed)
    np.random.seed(args.seed)
    t_start = time.time()

    kv = mx.kv.create(args.kv_store)
    lead = kv.rank == 0  # with a distributed store, rank 0 writes the logs, plots and summary
    train_it, val_it, source = make_data(args, kv)
    if args.num_iters:
        train_it = LimitedIter(train_it, args.num_iters)
    batches_per_epoch = -(-train_it.num_data // args.batch_size)
    num_epochs = args.num_epochs
    mod, begin_epoch = build_module(args, prefix)
    if begin_epoch >= num_epochs:
        print("nothing to do: checkpoint epoch %d >= --num-epochs %d" % (begin_epoch, num_epochs))
        return None
    logging.info("training resnet-%d v%s (%s) on %s: %d images/epoch, batch %d, image %s, epochs %d..%d",
                 args.num_layers, args.version, args.run, source, train_it.num_data, args.batch_size,
                 "x".join(map(str, args.image_shape)), begin_epoch + 1, num_epochs)

    writer = mx.callback.LogWriter(log_path, args.batch_size, run_name=args.run, append=args.resume) if lead \
        else None
    speed = Throughput(args.batch_size)
    metric = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), mx.metric.CrossEntropy()])
    opt_params = {"learning_rate": args.lr, "momentum": args.mom, "wd": args.wd,
                  "lr_scheduler": lr_scheduler(args, batches_per_epoch, num_epochs)}
    mod.fit(train_it, eval_data=val_it, eval_metric=metric,
            validation_metric=mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), mx.metric.CrossEntropy()]),
            optimizer="sgd", optimizer_params=opt_params,
            initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2),
            batch_end_callback=[mx.callback.Speedometer(args.batch_size, args.disp_batches)]
            + ([writer] if lead else []) + [speed],
            eval_end_callback=writer.log_eval if lead else None,
            epoch_end_callback=mx.callback.do_checkpoint(prefix, save_optimizer_states=True),
            begin_epoch=begin_epoch, num_epoch=num_epochs, kvstore=kv)
    if not lead:
        if val_it is not None:  # the final score is a collective: every rank scores its part
            final_accuracy(mod, val_it, kv)
        return None
    writer.close()

    val_acc = None
    if val_it is not None:
        val_acc = dict(final_accuracy(mod, val_it, kv))["accuracy"]
    mx.viz.plot_training({args.run: log_path}, plot_path,
                         title="resnet-%d v%s, %s" % (args.num_layers, args.version, source))
    summary = {"run": args.run, "img_per_s": speed.img_per_s, "val_accuracy": val_acc,
               "loss_scale": mod.loss_scale, "skipped_updates": getattr(mod, "num_skipped_updates", 0),
               "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
               "arena_mb": mod.memory_report()["arena_bytes"] / 2**20, "epochs": num_epochs,
               "seconds": time.time() - t_start, "checkpoint": "%s-%04d.params" % (prefix, num_epochs),
               "log": log_path, "plot": plot_path, "num_classes": args.num_classes}
    if args.summary_json:
        mx.fileio.write_atomically(args.summary_json, json.dumps(summary))
    acc = "n/a" if val_acc is None else "%.3f (chance %.3f)" % (val_acc, 1.0 / args.num_classes)
    scale = "" if mod.loss_scale is None else ", loss scale %g (%d skipped steps)" % (
        mod.loss_scale, summary["skipped_updates"])
    print("SUMMARY resnet-%d v%s %s: %d epochs in %.0f s, %.1f img/s%s, validation accuracy %s; "
          "checkpoint %s, curves %s" % (args.num_layers, args.version, args.run, num_epochs,
                                        summary["seconds"], speed.img_per_s, scale, acc,
                                        summary["checkpoint"], plot_path))
    return summary


def compare(args, argv):
    """Runs this script twice (float32, then AMP) in fresh processes, so peak memory is each
    run's own, then prints a table and draws both runs on one figure."""
    amp = args.amp if args.amp != "none" else "bfloat16"
    base = [a for a in argv if a != "--compare"]
    base = [a for i, a in enumerate(base) if not (a == "--amp" or (i > 0 and base[i - 1] == "--amp"))
            and not a.startswith("--amp=")]
    results, logs = [], {}
    for run_amp in ("none", amp):
        run = "float32" if run_amp == "none" else "amp-" + run_amp
        summary_path = os.path.join(args.work_dir, run + ".summary.json")
        os.makedirs(args.work_dir, exist_ok=True)
        cmd = [sys.executable, os.path.abspath(__file__)] + base + ["--amp", run_amp, "--summary-json", summary_path]
        print("== %s: %s" % (run, " ".join(cmd[1:])), flush=True)
        subprocess.run(cmd, check=True)
        with open(summary_path) as f:
            results.append(json.load(f))
        logs[run] = results[-1]["log"]
    plot = args.plot or os.path.join(args.work_dir, "compare.png")
    mx.viz.plot_training(logs, plot, title="float32 vs AMP (%s)" % amp)
    print("\n%-16s %10s %14s %14s %12s %10s" % ("run", "img/s", "peak RSS MB", "arena MB", "val acc", "time s"))
    for r in results:
        acc = "n/a" if r["val_accuracy"] is None else "%.3f" % r["val_accuracy"]
        print("%-16s %10.2f %14.0f %14.1f %12s %10.0f" % (r["run"], r["img_per_s"], r["peak_rss_mb"],
                                                         r["arena_mb"], acc, r["seconds"]))
    f32, ampr = results
    print("AMP / float32: %.2fx img/s, %.2fx activation memory; curves in %s"
          % (ampr["img_per_s"] / f32["img_per_s"], ampr["arena_mb"] / f32["arena_mb"], plot))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    if args.compare:
        compare(args, argv)
    elif args.benchmark:
        benchmark(args)
    else:
        train(args)


if __name__ == "__main__":
    main()
