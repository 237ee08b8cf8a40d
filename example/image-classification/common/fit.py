"""The training half of MXNet's image-classification scripts: the command-line options of
MXNet 1.9.1's example/image-classification/common/fit.py (network, kvstore, epochs, learning
rate schedule by epochs, optimizer, checkpoints, resuming, metrics, ...) and fit(), which trains
a symbol with Module.fit: a kvstore, a MultiFactorScheduler stepping at --lr-step-epochs,
a checkpoint per --save-period epochs, Speedometer logs, top-k accuracy and loss metrics.

`import mxnet as mx` is symnet here when common/find_mxnet.py was imported first.
"""
import logging
import math
import os
import time

import mxnet as mx


def get_epoch_size(args, kv):
    """Batches per epoch of one worker."""
    return math.ceil(int(args.num_examples / kv.num_workers) / args.batch_size)


def _get_lr_scheduler(args, kv):
    """(initial learning rate, scheduler): the rate times --lr-factor at each of --lr-step-epochs,
    counted from --load-epoch when resuming."""
    if "lr_factor" not in args or args.lr_factor >= 1 or not args.lr_step_epochs:
        return args.lr, None
    epoch_size = get_epoch_size(args, kv)
    begin_epoch = args.load_epoch if args.load_epoch else 0
    step_epochs = [int(v) for v in args.lr_step_epochs.split(",")]
    lr = args.lr
    for s in step_epochs:
        if begin_epoch >= s:
            lr *= args.lr_factor
    if lr != args.lr:
        logging.info("Adjust learning rate to %e for epoch %d", lr, begin_epoch)
    steps = [epoch_size * (s - begin_epoch) for s in step_epochs if s - begin_epoch > 0]
    if not steps:
        return lr, None
    return lr, mx.lr_scheduler.MultiFactorScheduler(step=steps, factor=args.lr_factor, base_lr=lr)


def _load_model(args, rank=0):
    """(symbol, arg_params, aux_params) of the checkpoint at --load-epoch, or Nones."""
    if "load_epoch" not in args or args.load_epoch is None:
        return None, None, None
    assert args.model_prefix is not None, "--load-epoch needs --model-prefix"
    prefix = args.model_prefix
    if rank > 0 and os.path.exists("%s-%d-symbol.json" % (prefix, rank)):
        prefix += "-%d" % rank
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, args.load_epoch)
    logging.info("Loaded model %s-%04d.params", prefix, args.load_epoch)
    return sym, arg_params, aux_params


def _save_model(args, rank=0):
    """The epoch-end callback writing PREFIX-symbol.json and PREFIX-NNNN.params."""
    if args.model_prefix is None:
        return None
    folder = os.path.dirname(args.model_prefix)
    if folder and not os.path.isdir(folder):
        os.makedirs(folder)
    return mx.callback.do_checkpoint(args.model_prefix if rank == 0 else "%s-%d" % (args.model_prefix, rank),
                                     period=args.save_period)


def add_fit_args(parser):
    """The training options (returns their group)."""
    train = parser.add_argument_group("Training", "model training")
    train.add_argument("--network", type=str, help="the network: a module of symbols/")
    train.add_argument("--num-layers", type=int, help="layers of the network, for those that take it")
    train.add_argument("--gpus", type=str, help="GPUs to train on, e.g. 0 or 0,2,5; none: the CPU")
    train.add_argument("--kv-store", type=str, default="device", help="the key-value store type")
    train.add_argument("--num-epochs", type=int, default=100, help="epochs to train")
    train.add_argument("--lr", type=float, default=0.1, help="the initial learning rate")
    train.add_argument("--lr-factor", type=float, default=0.1, help="the rate is multiplied by it at each step")
    train.add_argument("--lr-step-epochs", type=str, help="the epochs at which the rate steps, e.g. 30,60")
    train.add_argument("--initializer", type=str, default="default",
                       help="the initializer: default (Xavier, gaussian, in, 2), xavier, msra, uniform, normal")
    train.add_argument("--optimizer", type=str, default="sgd", help="the optimizer")
    train.add_argument("--mom", type=float, default=0.9, help="momentum (sgd, nag)")
    train.add_argument("--wd", type=float, default=0.0001, help="weight decay")
    train.add_argument("--batch-size", type=int, default=128, help="the batch size")
    train.add_argument("--disp-batches", type=int, default=20, help="log the speed every this many batches")
    train.add_argument("--model-prefix", type=str, help="the checkpoints' prefix")
    train.add_argument("--save-period", type=int, default=1, help="a checkpoint every this many epochs")
    train.add_argument("--monitor", dest="monitor", type=int, default=0,
                       help="log the network's outputs every this many batches (0: never)")
    train.add_argument("--load-epoch", type=int, help="resume from the checkpoint of this epoch")
    train.add_argument("--top-k", type=int, default=0, help="also report top-k accuracy (0: no)")
    train.add_argument("--loss", type=str, default="",
                       help="also report losses: ce (cross-entropy), nll_loss, or both comma-separated")
    train.add_argument("--test-io", type=int, default=0, help="1: only read the data, timing it")
    train.add_argument("--dtype", type=str, default="float32", help="precision: float32 or float16")
    train.add_argument("--gc-type", type=str, default="none", help="gradient compression: 2bit or none")
    train.add_argument("--gc-threshold", type=float, default=0.5, help="threshold of 2-bit compression")
    train.add_argument("--macrobatch-size", type=int, default=0,
                       help="the effective batch of the large-batch optimizers (lbsgd)")
    train.add_argument("--warmup-epochs", type=int, default=5, help="warm-up epochs of the large-batch optimizers")
    train.add_argument("--warmup-strategy", type=str, default="linear",
                       help="warm-up strategy of the large-batch optimizers")
    train.add_argument("--profile-worker-suffix", type=str, default="",
                       help="profile the run into a file named rank<N>_<suffix> (workers)")
    train.add_argument("--profile-server-suffix", type=str, default="",
                       help="profile the kvstore servers into rank<N>_<suffix>")
    return train


def _initializer(name):
    if name in ("default", "xavier") or not name:
        return mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2)
    if name == "msra":
        return mx.init.MSRAPrelu()
    if name == "uniform":
        return mx.init.Uniform(0.07)
    if name == "normal":
        return mx.init.Normal(0.01)
    raise ValueError("--initializer %s: use default, xavier, msra, uniform or normal" % name)


def _test_io(args, train):
    tic = time.time()
    for i, batch in enumerate(train):
        for d in batch.data:
            d.wait_to_read()
        if (i + 1) % args.disp_batches == 0:
            logging.info("Batch [%d]\tSpeed: %.2f samples/sec", i,
                         args.disp_batches * args.batch_size / (time.time() - tic))
            tic = time.time()


def fit(args, network, data_loader, **kwargs):
    """Trains `network` on data_loader(args, kv)'s (train, val) iterators as the options say.
    kwargs: arg_params and aux_params to start from, batch_end_callback to add."""
    kv = mx.kvstore.create(args.kv_store)
    if args.gc_type != "none":
        kv.set_gradient_compression({"type": args.gc_type, "threshold": args.gc_threshold})
    if args.profile_worker_suffix:
        mx.profiler.set_config(filename="rank%d_%s" % (kv.rank, args.profile_worker_suffix),
                               profile_all=True, aggregate_stats=True)
        mx.profiler.set_state("run")

    logging.basicConfig(level=logging.DEBUG, format="%(asctime)-15s Node[" + str(kv.rank) + "] %(message)s")
    logging.info("start with arguments %s", args)

    epoch_size = get_epoch_size(args, kv)
    train, val = data_loader(args, kv)
    if args.test_io:
        _test_io(args, train)
        return

    if "arg_params" in kwargs and "aux_params" in kwargs:
        arg_params, aux_params = kwargs["arg_params"], kwargs["aux_params"]
    else:
        sym, arg_params, aux_params = _load_model(args, kv.rank)
        if sym is not None:
            assert sym.tojson() == network.tojson(), "the checkpoint's symbol is not --network's"
    checkpoint = _save_model(args, kv.rank)

    devs = mx.cpu() if not args.gpus else [mx.gpu(int(i)) for i in args.gpus.split(",")]
    lr, lr_scheduler = _get_lr_scheduler(args, kv)
    model = mx.mod.Module(context=devs, symbol=network)

    optimizer_params = {"learning_rate": lr, "wd": args.wd, "lr_scheduler": lr_scheduler,
                        "multi_precision": True}
    if args.optimizer in ("sgd", "dcasgd", "signum", "nag"):
        optimizer_params["momentum"] = args.mom
    if args.optimizer in ("lbsgd", "lbnag"):  # large-batch SGD ramps the rate up
        macrobatch = max(args.macrobatch_size, args.batch_size * kv.num_workers)
        optimizer_params.update(updates_per_epoch=max(epoch_size, 1),
                                begin_epoch=args.load_epoch if args.load_epoch else 0,
                                batch_scale=math.ceil(float(macrobatch) / args.batch_size / kv.num_workers),
                                warmup_strategy=args.warmup_strategy, warmup_epochs=args.warmup_epochs,
                                num_epochs=args.num_epochs)

    monitor = mx.mon.Monitor(args.monitor, pattern=".*") if args.monitor > 0 else None

    eval_metrics = ["accuracy"]
    if args.top_k > 0:
        eval_metrics.append(mx.metric.create("top_k_accuracy", top_k=args.top_k))
    for loss in filter(None, args.loss.split(",")):
        if loss not in ("ce", "nll_loss"):
            raise ValueError("--loss %s: use ce or nll_loss" % loss)
        eval_metrics.append(mx.metric.create(loss))

    batch_end_callbacks = [mx.callback.Speedometer(args.batch_size, args.disp_batches)]
    if "batch_end_callback" in kwargs:
        cbs = kwargs["batch_end_callback"]
        batch_end_callbacks += cbs if isinstance(cbs, list) else [cbs]

    model.fit(train,
              begin_epoch=args.load_epoch if args.load_epoch else 0,
              num_epoch=args.num_epochs,
              eval_data=val,
              eval_metric=eval_metrics,
              kvstore=kv,
              optimizer=args.optimizer,
              optimizer_params=optimizer_params,
              initializer=_initializer(args.initializer),
              arg_params=arg_params,
              aux_params=aux_params,
              batch_end_callback=batch_end_callbacks,
              epoch_end_callback=checkpoint,
              allow_missing=True,
              monitor=monitor)
    if args.profile_worker_suffix:
        mx.profiler.set_state("stop")
    return model
