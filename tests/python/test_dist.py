"""Distributed training over MPI (mx.kvstore 'dist_sync', Module): each test starts
`mpirun -np N` jobs of tests/python/scripts/dist_worker.py on this machine's CPU and checks what
the ranks wrote. The NCCL path needs GPUs (tests/python/gpu)."""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import symnet as mx
from record_files import random_images_rec
from symnet.base import MXNetError

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts", "dist_worker.py")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPP_RANKS = os.path.join(REPO, "build", "pip", "tests", "cpp", "symnet_trainer_ranks")
CPP_TRAIN = os.path.join(REPO, "build", "pip", "example", "train_resnet50")
MPIRUN = shutil.which("mpirun")
needs_mpi = pytest.mark.skipif(MPIRUN is None or not mx._core.dist.available(),
                               reason="needs mpirun (openmpi-bin) and symnet built with MPI "
                                      "(libopenmpi-dev; tools/setup.sh installs both)")


def mpirun(np_, *args, timeout=240, env=None, script=WORKER, program=None):
    """N ranks of the worker script (or of a C++ `program`) with `args`."""
    cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(np_)] + \
        (program or [sys.executable, script]) + [str(a) for a in args]
    full_env = dict(os.environ, **(env or {}))
    full_env.pop("OMP_NUM_THREADS", None)
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env)
    return proc, time.time() - start


def single(*args):
    """The same worker as a plain process: a job of one rank, no kvstore."""
    proc = subprocess.run([sys.executable, WORKER] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def check(proc):
    assert proc.returncode == 0, "mpirun failed:\n" + proc.stdout[-3000:] + proc.stderr[-5000:]


def load(out, rank):
    with np.load(os.path.join(out, "rank%d.npz" % rank), allow_pickle=True) as z:
        return {k: z[k] for k in z.files}


def test_kvstore_types_and_local_store_api():
    assert mx.kvstore.create("device").num_workers == 1
    assert mx.kv is mx.kvstore
    with pytest.raises(MXNetError, match="parameter server"):
        mx.kvstore.create("dist_async")
    with pytest.raises(MXNetError, match="not known"):
        mx.kvstore.create("bogus")
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.ones((2, 3)))
    kv.push(3, [mx.nd.ones((2, 3)) * 2, mx.nd.ones((2, 3)) * 5])  # summed over "devices"
    out = mx.nd.zeros((2, 3))
    kv.pull(3, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 7.0))
    with pytest.raises(MXNetError, match="never init"):
        kv.pull(4, out=out)
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
    kv.pushpull(3, mx.nd.ones((2, 3)), out=out)  # update on the store: w -= 0.5 * g
    np.testing.assert_allclose(out.asnumpy(), np.full((2, 3), 6.5))


def test_ndarray_iter_parts_interleave_and_are_equal():
    x = np.arange(11, dtype=np.float32)[:, None]
    parts = [mx.io.NDArrayIter(x, batch_size=5, num_parts=2, part_index=r) for r in range(2)]
    assert [p.num_data for p in parts] == [5, 5]
    np.testing.assert_array_equal(next(iter(parts[1])).data[0].asnumpy().ravel(), [1, 3, 5, 7, 9])
    with pytest.raises(ValueError, match="part_index"):
        mx.io.NDArrayIter(x, num_parts=2, part_index=2)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_collectives_every_dtype_and_size(tmp_path, ranks):
    proc, _ = mpirun(ranks, "collectives", tmp_path)
    check(proc)
    assert sorted(os.listdir(tmp_path)) == ["rank%d.ok" % r for r in range(ranks)]


@needs_mpi
def test_two_ranks_of_16_train_like_one_process_of_32(tmp_path):
    """Same data (rank r takes samples r, r+2, ...), different initial weights per rank (the store
    broadcasts rank 0's); 20 SGD steps with momentum and weight decay. The gradient sums differ
    from one process's only in summation order: float32 rounding, grown over 20 steps."""
    dist_out, one_out = tmp_path / "dist", tmp_path / "one"
    proc, _ = mpirun(2, "train", dist_out, "--batch", 16, "--bucket", 4096)
    check(proc)
    single("train", one_out, "--batch", 32)
    r0, r1, one = load(dist_out, 0), load(dist_out, 1), load(one_out, 0)
    params = [k for k in one if k.startswith("param:")]
    assert len(params) == 6
    for k in params:
        np.testing.assert_array_equal(r0[k], r1[k], err_msg=k)  # the ranks stay bit-identical
        np.testing.assert_allclose(r0[k], one[k], rtol=1e-4, atol=2e-5, err_msg=k)
        assert not np.allclose(r0[k], load_initial(k), atol=1e-3), k + " did not train"
    # overlap: gradients were summed in several buckets, the first one taken by the communication
    # thread before backward had produced the last gradient
    events = list(r0["events"])
    assert int(r0["num_buckets"]) >= 3
    readies = [i for i, e in enumerate(events) if e.startswith("ready")]
    assert events.index("start 0") < readies[-1], events


@needs_mpi
def test_sync_batch_norm_resnet_of_two_ranks_of_16_trains_like_one_process_of_32(tmp_path):
    """A small ResNet whose BatchNorms are SyncBatchNorm: the statistics (and the gradient sums in
    backward) are those of the global batch of 32, so 2 ranks x 16 train like 1 process x 32, and
    the moving statistics agree too. With plain BatchNorm each rank would normalize by its own 16
    samples and the weights would differ by far more than the bound (checked below)."""
    dist_out, one_out = tmp_path / "dist", tmp_path / "one"
    check(mpirun(2, "train", dist_out, "--net", "resnet", "--batch", 16)[0])
    single("train", one_out, "--net", "resnet", "--batch", 32)
    r0, r1, one = load(dist_out, 0), load(dist_out, 1), load(one_out, 0)
    keys = [k for k in one if k.startswith(("param:", "aux:"))]
    assert len([k for k in keys if k.startswith("aux:")]) == 6 and len(keys) == 17, keys
    for k in keys:
        np.testing.assert_array_equal(r0[k], r1[k], err_msg=k)  # the ranks stay bit-identical
        # float32 sums in another order (per rank, then over ranks), grown over 20 steps: seen
        # up to 9e-7 here, where plain BatchNorm moves them by 2e-2 to 5e-1
        np.testing.assert_allclose(r0[k], one[k], rtol=1e-4, atol=1e-5, err_msg=k)
    local_out = tmp_path / "local"
    check(mpirun(2, "train", local_out, "--net", "resnet-local-bn", "--batch", 16)[0])
    local = load(local_out, 0)
    assert all(not np.allclose(local[k], one[k], rtol=1e-4, atol=1e-5) for k in keys)


@needs_mpi
def test_gluon_trainer_of_two_ranks_trains_like_one_process(tmp_path):
    """gluon.Trainer(kvstore='dist_sync'): weights broadcast from rank 0 at construction, gradients
    summed over the ranks and divided by the global batch at each step."""
    dist_out, one_out = tmp_path / "dist", tmp_path / "one"
    check(mpirun(2, "gluon", dist_out, "--batch", 16)[0])
    single("gluon", one_out, "--batch", 32)
    r0, r1, one = load(dist_out, 0), load(dist_out, 1), load(one_out, 0)
    assert len(one) == 6
    for k in one:
        np.testing.assert_array_equal(r0[k], r1[k], err_msg=k)
        np.testing.assert_allclose(r0[k], one[k], rtol=1e-4, atol=2e-5, err_msg=k)


@needs_mpi
def test_gluon_parameters_used_on_one_rank_only_stay_the_same_on_every_rank(tmp_path):
    """Rank 0 trains through one output head, rank 1 through the other (ignore_stale_grad): each
    head's gradient comes from one rank, and both ranks update both heads alike."""
    check(mpirun(2, "gluon", tmp_path, "--batch", 16, "--branch", "--steps", 5)[0])
    r0, r1 = load(tmp_path, 0), load(tmp_path, 1)
    assert len(r0) == 8  # the shared body's two layers and the two heads
    for k in r0:
        np.testing.assert_array_equal(r0[k], r1[k], err_msg=k)


_INITIAL = {}


def load_initial(key):
    """Rank 0's initial weights (Xavier, seed 3), for the "it trained" check."""
    if not _INITIAL:
        sys.path.insert(0, os.path.dirname(WORKER))
        import dist_worker
        mod = mx.mod.Module(dist_worker.mlp(), context=mx.cpu())
        mod.bind([("data", (16, 64))], [("softmax_label", (16,))])
        mod.init_params(mx.init.Xavier(), seed=3)
        _INITIAL.update({"param:" + k: v.asnumpy() for k, v in mod.get_params()[0].items()})
    return _INITIAL[key]


@needs_mpi
def test_amp_overflow_on_one_rank_skips_the_step_on_every_rank(tmp_path):
    proc, _ = mpirun(2, "train", tmp_path, "--amp", "float16", "--steps", 8, "--overflow-step", 4,
                     "--overflow-rank", 1)
    check(proc)
    r0, r1 = load(tmp_path, 0), load(tmp_path, 1)
    for r in (r0, r1):  # the worker also checked that step 4 left the weights as they were
        assert list(r["applied"]) == [True] * 4 + [False] + [True] * 3
        assert r["loss_scale"][4] == r["loss_scale"][3] / 2
    np.testing.assert_array_equal(r0["loss_scale"], r1["loss_scale"])
    for k in r0:
        if k.startswith(("param:", "state:")):
            np.testing.assert_array_equal(r0[k], r1[k], err_msg=k)


@needs_mpi
def test_checkpoint_of_two_ranks_resumes_bit_exactly_and_loads_in_one_process(tmp_path):
    whole, first, resumed = tmp_path / "whole", tmp_path / "first", tmp_path / "resumed"
    common = ["--amp", "float16", "--batch", 16]
    check(mpirun(2, "train", whole, "--steps", 12, *common)[0])
    check(mpirun(2, "train", first, "--steps", 6, "--save-at", 6, *common)[0])
    assert sorted(os.listdir(first)) == ["ckpt-0001.params", "ckpt-0001.states", "ckpt-symbol.json",
                                         "rank0.npz", "rank1.npz"]  # rank 0 alone wrote the checkpoint
    check(mpirun(2, "train", resumed, "--steps", 6, "--first-step", 6, "--resume", first / "ckpt", *common)[0])
    a, b = load(whole, 0), load(resumed, 0)
    keys = [k for k in a if k.startswith(("param:", "state:"))]
    assert len(keys) >= 12
    for k in keys:
        assert a[k].tobytes() == b[k].tobytes(), k
    assert a["loss_scale"][-1] == b["loss_scale"][-1]
    # one process loads the two-rank checkpoint
    mod = mx.mod.Module.load(str(first / "ckpt"), 1)
    mod.bind([("data", (4, 64))], for_training=False)
    arg, _ = mod.get_params()
    np.testing.assert_array_equal(arg["fc1_weight"].asnumpy(), load(first, 0)["param:fc1_weight"])


@needs_mpi
@pytest.mark.parametrize("how", ["kill", "raise"])
def test_a_failed_rank_stops_the_others_with_a_message(tmp_path, how):
    flag = "--kill-at" if how == "kill" else "--raise-at"
    proc, seconds = mpirun(2, "train", tmp_path, "--steps", 1000, flag, 3, timeout=120)
    assert proc.returncode != 0
    assert seconds < 60, seconds
    out = proc.stdout + proc.stderr
    assert "symnet dist: rank 0: stopping because rank 1" in out, out[-3000:]
    if how == "raise":
        assert "rank 1 fails on purpose" in out


def needs_program(path):
    if not os.access(path, os.X_OK):
        pytest.skip("%s is not built (tools/setup.sh --tests builds the C++ tests and examples)" % path)


@needs_mpi
@pytest.mark.parametrize("amp", ["", "float16"])
def test_cpp_trainer_of_two_ranks_trains_like_one_process(tmp_path, amp):
    """The C++ Trainer with kvstore dist_sync (tests/cpp/dist/trainer_ranks.cc): rank 0's weights
    broadcast, gradients summed in buckets during backward, divided by the global batch; with
    float16 AMP the first steps overflow on every rank alike (scale 2^16), so the ranks skip the
    same steps and end with the one process's loss scale."""
    needs_program(CPP_RANKS)
    dist_out, one_out = tmp_path / "dist", tmp_path / "one"
    for d in (dist_out, one_out):
        d.mkdir()
    check(mpirun(2, dist_out, *([amp] if amp else []), program=[CPP_RANKS])[0])
    proc = subprocess.run([CPP_RANKS, str(one_out)] + ([amp] if amp else []), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r0, r1, one = (mx.nd.load(str(d / ("rank%d.params" % r))) for d, r in ((dist_out, 0), (dist_out, 1), (one_out, 0)))
    assert sorted(one) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight", "loss_scale"]
    # float32: summation order only. float16: each rank's gradient of 16 samples is rounded to
    # float16 (2^-11 relative) before the float32 sum over the ranks, where one process rounds the
    # sum of 32 once: seen up to 4e-3 relative after 20 steps
    rtol, atol = (2e-2, 2e-3) if amp else (1e-4, 2e-5)
    for k in one:
        np.testing.assert_array_equal(r0[k].asnumpy(), r1[k].asnumpy(), err_msg=k)
        np.testing.assert_allclose(r0[k].asnumpy(), one[k].asnumpy(), rtol=rtol, atol=atol, err_msg=k)
    if amp:  # overflowed and halved alike: the ranks skipped the steps one process skipped
        assert one["loss_scale"].asnumpy()[0] < 2 ** 16
        assert r0["loss_scale"].asnumpy()[0] == one["loss_scale"].asnumpy()[0]
    events = (dist_out / "rank0.events").read_text().split("\n")
    readies = [i for i, e in enumerate(events) if e.startswith("ready")]
    assert "start 1" in events and events.index("start 0") < readies[-1], events


@needs_mpi
def test_cpp_train_resnet50_on_two_ranks_and_resumed_in_one_process(tmp_path):
    """`mpirun -np 2 train_resnet50 --kv-store dist_sync`: each rank reads its half of the records,
    rank 0 alone prints the summary, writes the log and the checkpoints, which one process then
    resumes."""
    needs_program(CPP_TRAIN)
    pytest.importorskip("PIL")
    rec = random_images_rec(tmp_path, 32)
    common = ["--data-train", rec, "--image-shape", "3,24,24", "--num-classes", "4", "--num-layers", "18",
              "--batch-size", "8", "--amp", "none", "--work-dir", tmp_path, "--model-prefix", tmp_path / "r",
              "--log", tmp_path / "log.jsonl"]
    proc, _ = mpirun(2, "--kv-store", "dist_sync", "--num-epochs", 1, *common, program=[CPP_TRAIN])
    check(proc)
    assert proc.stdout.count("SUMMARY") == 1, proc.stdout
    assert "32 images/epoch" not in proc.stdout and "16 images/epoch" in proc.stdout  # a half each
    lines = (tmp_path / "log.jsonl").read_text().splitlines()
    assert len(lines) == 2, lines  # 2 batches of 8 per rank, logged once
    assert (tmp_path / "r-0001.params").exists() and (tmp_path / "r-0001.states").exists()
    one = subprocess.run([CPP_TRAIN, "--resume", "--num-epochs", "2"] + [str(c) for c in common],
                         capture_output=True, text=True, timeout=240)
    assert one.returncode == 0 and "resuming from" in one.stdout, one.stdout + one.stderr
    assert (tmp_path / "r-0002.params").exists()


@needs_mpi
def test_a_collective_that_waits_too_long_stops_the_rank(tmp_path):
    proc, seconds = mpirun(2, "stall", tmp_path, timeout=120, env={"SYMNET_DIST_TIMEOUT": "2"})
    assert proc.returncode != 0 and seconds < 50, seconds
    assert "symnet dist: rank 0: barrier has waited 2 s for the other ranks" in proc.stdout + proc.stderr


@needs_mpi
def test_resnet_example_trains_on_two_ranks(tmp_path):
    """example/resnet50/train.py --kv-store dist_sync: rank 0 builds the data set, logs, writes the
    checkpoint and the summary; each rank reads its part of the data."""
    script = os.path.join(os.path.dirname(WORKER), "..", "..", "..", "example", "resnet50", "train.py")
    proc, _ = mpirun(2, "--num-layers", 18, "--batch-size", 16, "--num-epochs", 1, "--num-iters", 3,
                     "--kv-store", "dist_sync", "--work-dir", tmp_path, script=script)
    check(proc)
    out = proc.stdout + proc.stderr
    assert out.count("SUMMARY resnet-18") == 1 and out.count("built the digits data set") == 1, out
    assert out.count("Train-accuracy") == 1 and out.count("Saved checkpoint") == 1, out
    run = [d for d in os.listdir(tmp_path) if os.path.isdir(tmp_path / d) and d != "data"][0]
    assert sorted(os.listdir(tmp_path / run)) == ["resnet18-0001.params", "resnet18-0001.states",
                                                 "resnet18-symbol.json"]


@needs_mpi
def test_a_rank_that_finishes_early_stops_the_waiting_ones(tmp_path):
    proc, seconds = mpirun(2, "early", tmp_path, timeout=120, env={"SYMNET_DIST_FINISHED_GRACE": "1"})
    assert proc.returncode != 0 and seconds < 50, seconds
    assert "symnet dist: rank 0: barrier waits for rank 1, which has finished its job" in proc.stdout + proc.stderr
