"""One rank of the distributed tests (tests/python/test_dist.py), run under
`mpirun -np N python3 dist_worker.py <what> OUT ...`, or alone as a job of one process.

  collectives OUT       all-reduce / broadcast / all-gather of every dtype and size, the gradient
                        reducer's buckets; each rank checks its results and writes OUT/rank<r>.ok
  train OUT [options]   trains the digits MLP (--net resnet: a small ResNet with SyncBatchNorm;
                        resnet-local-bn: the same with BatchNorm) with Module (kvstore dist_sync
                        when started by mpirun) and writes OUT/rank<r>.npz: parameters, auxiliary
                        states, optimizer states, loss scale, which steps were applied and the
                        gradient reducer's events
"""
import argparse
import os
import signal
import sys

import numpy as np

import symnet as mx
from symnet import _core

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "int8", "bool"]
CTX = mx.cpu()  # --gpu: gpu(local rank), whose arrays NCCL sums


def rank_data(dtype, size, rank):
    """Small whole numbers (exact in every dtype and in any summation order)."""
    rng = np.random.RandomState(1000 * rank + size % 997)
    if dtype == "bool":
        return rng.randint(0, 2, size).astype(bool)
    return rng.randint(0, 4, size).astype(np.float64)


def as_dtype(values, dtype):
    return mx.nd.array(values.astype(np.float32) if dtype == "bfloat16" else values.astype(dtype), dtype=dtype,
                       ctx=CTX)


def collectives(out):
    kv = mx.kv.create("dist_sync")
    r, n = kv.rank, kv.num_workers
    dist = _core.dist
    for dtype in DTYPES:
        for size in (0, 1, 7, 1000003):
            expect = sum(rank_data(dtype, size, k) for k in range(n))
            a = as_dtype(rank_data(dtype, size, r), dtype)
            dist.allreduce_sum([a.handle])
            got = a.asnumpy().astype(np.float64)
            want = (expect > 0) if dtype == "bool" else expect
            assert np.array_equal(got, want.astype(np.float64)), ("allreduce", dtype, size, got[:5], want[:5])
            b = as_dtype(rank_data(dtype, size, r), dtype)
            dist.broadcast([b.handle], n - 1)  # from the last rank
            assert np.array_equal(b.asnumpy().astype(np.float64),
                                  rank_data(dtype, size, n - 1).astype(np.float64)), ("broadcast", dtype, size)
            g = mx.nd.NDArray(dist.allgather(as_dtype(rank_data(dtype, size, r), dtype).handle))
            assert g.shape == (n, size) and g.dtype == np.dtype(a.dtype), ("allgather shape", g.shape, g.dtype)
            for k in range(n):
                assert np.array_equal(g.asnumpy()[k].astype(np.float64),
                                      rank_data(dtype, size, k).astype(np.float64)), ("allgather", dtype, size, k)
    # several arrays of several dtypes in one call, fused per wire type
    arrays = [as_dtype(rank_data(t, 5 + i, r), t) for i, t in enumerate(DTYPES)]
    dist.allreduce_sum([a.handle for a in arrays])
    for i, (t, a) in enumerate(zip(DTYPES, arrays)):
        expect = sum(rank_data(t, 5 + i, k) for k in range(n))
        assert np.array_equal(a.asnumpy().astype(np.float64), ((expect > 0) if t == "bool" else expect)), t
    assert dist.any(r == n - 1) and not dist.any(False)
    # arrays of other shapes on one rank: an error on every rank, before any data moves
    odd = mx.nd.zeros((3 + (r == n - 1),), ctx=CTX)
    try:
        dist.allreduce_sum([odd.handle])
        raise AssertionError("arrays of other shapes were summed")
    except mx.base.MXNetError as e:
        assert "passes arrays of other shapes or dtypes" in str(e), str(e)
    # the gradient reducer: sizes 0, 1, odd and larger than the bucket; buckets follow the order
    sizes = [3, 0, 1, 2501, 7, 40000, 5]
    grads = [as_dtype(rank_data("float32", s, r), "float32") for s in sizes]
    grads.append(as_dtype(rank_data("float16", 9, r), "float16"))
    grads.append(as_dtype(rank_data("float64", 11, r), "float64"))
    reducer = dist.GradientReducer([g.handle for g in grads], list(range(len(grads)))[::-1], 4096)
    for step in range(2):
        for i in reversed(range(len(grads))):
            grads[i][:] = as_dtype(rank_data("float32", grads[i].size, r + step), "float32").astype(grads[i].dtype)
            reducer.mark_ready(i)
        reducer.wait()
        for g in grads:
            expect = sum(rank_data("float32", g.size, k + step) for k in range(n))
            assert np.array_equal(g.asnumpy().astype(np.float64), expect), ("reducer", g.shape, g.dtype)
    assert reducer.num_buckets >= 4, reducer.num_buckets
    assert sorted(i for b in range(reducer.num_buckets) for i in reducer.bucket(b)) == list(range(len(grads)))
    events = reducer.events()
    assert [e for e in events if e.startswith("done")] and events.index("start 0") < events.index("ready 0")
    kv.barrier()
    with open(os.path.join(out, "rank%d.ok" % r), "w") as f:
        f.write("ok %d of %d\n" % (r, n))


def digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    return (d.data / 16.0).astype(np.float32), d.target.astype(np.float32)


def mlp():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=64, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=32, name="fc2")
    net = mx.sym.Activation(net, act_type="relu", name="relu2")
    net = mx.sym.FullyConnected(net, num_hidden=10, name="fc3")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def small_resnet(sync=True):
    """A stem and one residual block on the 8x8 digits, every BatchNorm a SyncBatchNorm (or, for
    the comparison, a plain BatchNorm)."""
    norm = mx.sym.contrib.SyncBatchNorm if sync else mx.sym.BatchNorm

    def conv_bn(x, name, relu=True):
        x = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True, name=name)
        x = norm(x, fix_gamma=False, momentum=0.8, name=name + "_bn")
        return mx.sym.Activation(x, act_type="relu") if relu else x
    stem = conv_bn(mx.sym.var("data"), "stem")
    body = conv_bn(conv_bn(stem, "conv1"), "conv2", relu=False)
    net = mx.sym.Activation(body + stem, act_type="relu")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="avg")
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def train(args):
    launched = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    kv = mx.kv.create("dist_sync") if launched > 1 else mx.kv.create("local")
    rank, workers = kv.rank, kv.num_workers
    if args.amp:
        mx.amp.init(args.amp)
    x, y = digits()
    if args.net != "mlp":
        x = x.reshape(-1, 1, 8, 8)
    it = mx.io.NDArrayIter(x, y, batch_size=args.batch, num_parts=workers, part_index=rank,
                           last_batch_handle="discard")
    if args.resume:
        mod = mx.mod.Module.load(args.resume, 1, load_optimizer_states=True, context=CTX)
        mod.bind(it.provide_data, it.provide_label)
    else:
        net = mlp() if args.net == "mlp" else small_resnet(sync=args.net == "resnet")
        mod = mx.mod.Module(net, context=CTX)
        mod.bind(it.provide_data, it.provide_label)
        # each rank initializes differently: the store's broadcast must make them rank 0's
        mod.init_params(mx.init.Xavier(), seed=args.seed + rank)
    mod.init_optimizer(kvstore=kv, optimizer="sgd",
                       optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4})
    if args.amp and not args.resume:  # a resumed run takes the scaler from the checkpoint
        mx.amp.init_trainer(mod, mx.amp.LossScaler(init_scale=1024.0, scale_window=args.scale_window))
    mod.gradient_bucket_bytes = args.bucket
    applied, scales = [], []
    batches = iter(())
    step = args.first_step
    skipped_batches = args.first_step
    while step < args.first_step + args.steps:
        try:
            batch = next(batches)
        except StopIteration:
            it.reset()
            batches = iter(it)
            continue
        if skipped_batches > 0:  # a resumed run goes on where the checkpoint was written
            skipped_batches -= 1
            continue
        if step == args.overflow_step and rank == args.overflow_rank:
            data = batch.data[0].asnumpy()
            data[0, 0] = np.inf
            batch = mx.io.DataBatch([mx.nd.array(data)], batch.label)
        if step == args.overflow_step:
            before = {k: v.asnumpy().copy() for k, v in mod.get_params()[0].items()}
        mod.forward_backward(batch)
        applied.append(bool(mod.update()))
        scales.append(mod.loss_scale or 0.0)
        if step == args.overflow_step:
            after = mod.get_params()[0]
            for k, v in before.items():
                assert applied[-1] or np.array_equal(v, after[k].asnumpy()), "a skipped step changed " + k
        step += 1
        if step == args.kill_at and rank == workers - 1:
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        if step == args.raise_at and rank == workers - 1:
            raise RuntimeError("rank %d fails on purpose at step %d" % (rank, step))
        if step == args.save_at:
            mod.save_checkpoint(os.path.join(args.out, "ckpt"), 1, save_optimizer_states=True)
    arg, aux = mod.get_params()
    result = {"param:" + k: v.asnumpy() for k, v in arg.items()}
    result.update({"aux:" + k: v.asnumpy() for k, v in aux.items()})
    for i, st in sorted(mod._states.items()):
        for k, s in enumerate(st if isinstance(st, tuple) else (st,)):
            if s is not None:
                result["state:%d:%d" % (i, k)] = s.asnumpy()
    result["applied"] = np.array(applied)
    result["loss_scale"] = np.array(scales)
    events = mod._reducer.events() if mod._reducer is not None else []
    result["events"] = np.array(events, dtype=object)
    result["num_buckets"] = np.array(mod._reducer.num_buckets if mod._reducer is not None else 0)
    np.savez(os.path.join(args.out, "rank%d.npz" % rank), **result)


def gluon_train(args):
    """The digits MLP as a hybridized Gluon network with Trainer(kvstore='dist_sync')."""
    from symnet import autograd, gluon
    launched = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    kv = mx.kv.create("dist_sync" if launched > 1 else "device")
    rank, workers = kv.rank, kv.num_workers
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(64, activation="relu"), gluon.nn.Dense(32, activation="relu"), gluon.nn.Dense(10))
    heads = [net]
    if args.branch:  # two output heads: rank 0 trains through the first, the others the second
        body = gluon.nn.HybridSequential()
        body.add(gluon.nn.Dense(64, activation="relu"), gluon.nn.Dense(32, activation="relu"))
        heads = [gluon.nn.HybridSequential(), gluon.nn.HybridSequential()]
        for h in heads:
            h.add(body, gluon.nn.Dense(10))
        net = gluon.nn.HybridSequential()
        net.add(*heads)
    mx.random.seed(args.seed + rank)  # other initial weights on every rank: the Trainer broadcasts rank 0's
    np.random.seed(args.seed + rank)
    net.initialize(mx.init.Xavier())
    for h in heads:
        h(mx.nd.zeros((1, 64)))  # shapes known before the Trainer is made
        h.hybridize()
    head = heads[min(rank, len(heads) - 1)]
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9},
                            kvstore=kv)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = digits()
    it = mx.io.NDArrayIter(x, y, batch_size=args.batch, num_parts=workers, part_index=rank,
                           last_batch_handle="discard")
    for step, batch in enumerate(it):
        if step == args.steps:
            break
        with autograd.record():
            loss = loss_fn(head(batch.data[0]), batch.label[0])
        loss.backward()
        trainer.step(args.batch, ignore_stale_grad=args.branch)
    np.savez(os.path.join(args.out, "rank%d.npz" % rank),
             **{"param:" + k: p.data().asnumpy() for k, p in net.collect_params().items()})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["collectives", "train", "gluon", "early", "stall"])
    p.add_argument("out")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--first-step", type=int, default=0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--amp", default="")
    p.add_argument("--bucket", type=int, default=25 << 20)
    p.add_argument("--scale-window", type=int, default=4)
    p.add_argument("--overflow-step", type=int, default=-1)
    p.add_argument("--overflow-rank", type=int, default=1)
    p.add_argument("--kill-at", type=int, default=-1)
    p.add_argument("--raise-at", type=int, default=-1)
    p.add_argument("--save-at", type=int, default=-1)
    p.add_argument("--resume", default="")
    p.add_argument("--branch", action="store_true")
    p.add_argument("--net", choices=["mlp", "resnet", "resnet-local-bn"], default="mlp")
    p.add_argument("--gpu", action="store_true", help="arrays on gpu(local rank), summed by NCCL")
    args = p.parse_args()
    if args.gpu:
        global CTX
        CTX = mx.gpu(int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", "0")))
    os.makedirs(args.out, exist_ok=True)
    if args.what == "collectives":
        collectives(args.out)
    elif args.what == "gluon":
        gluon_train(args)
    elif args.what == "early":  # the last rank finishes at once, the others wait in a barrier
        kv = mx.kv.create("dist_sync")
        if kv.rank != kv.num_workers - 1:
            kv.barrier()
    elif args.what == "stall":  # the last rank never joins the barrier (alive, but stuck)
        kv = mx.kv.create("dist_sync")
        if kv.rank == kv.num_workers - 1:
            import time
            time.sleep(60)
        kv.barrier()
    else:
        train(args)


if __name__ == "__main__":
    main()
