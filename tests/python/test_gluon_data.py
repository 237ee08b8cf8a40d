"""mx.gluon.data and mx.image: datasets, samplers, the DataLoader (in-process, worker processes,
threads), image decoding and resizing, vision datasets and transforms. References are numpy and
plain loops; the literals marked "MXNet 1.9.1" were produced by MXNet itself."""
import colorsys
import gc
import gzip
import hashlib
import io
import multiprocessing
import os
import signal
import tarfile
import threading
import warnings

import numpy as np
import pytest

import symnet as mx
from symnet import recordio
from symnet.gluon import data as gdata
from symnet.gluon.data import (ArrayDataset, BatchSampler, DataLoader, RandomSampler, RecordFileDataset,
                               SequentialSampler, SimpleDataset)
from symnet.gluon.data.vision import transforms as T


def _np(batch):
    """A batch (NDArray or nested lists of them) as numpy, for comparisons."""
    if isinstance(batch, mx.nd.NDArray):
        return batch.asnumpy()
    return [_np(b) for b in batch]


def _same(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def _jpeg(img, quality=95):
    Image = pytest.importorskip("PIL.Image")
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def _alive(pid):
    """Whether a process exists at all (a zombie counts: it is not reaped)."""
    return os.path.exists("/proc/%d" % pid)


# ---- samplers ---------------------------------------------------------------------------------
def test_sequential_and_random_samplers():
    assert list(SequentialSampler(4, start=3)) == [3, 4, 5, 6] and len(SequentialSampler(4)) == 4
    np.random.seed(3)
    a = list(RandomSampler(20))
    np.random.seed(3)
    assert list(RandomSampler(20)) == a  # numpy's global generator, as MXNet
    assert sorted(a) == list(range(20)) and a != list(range(20))


def test_batch_sampler_keep_discard_rollover():
    seq = SequentialSampler(10)
    keep = BatchSampler(seq, 3, "keep")
    assert list(keep) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(keep) == 4
    discard = BatchSampler(seq, 3, "discard")
    assert list(discard) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(discard) == 3
    roll = BatchSampler(seq, 3, "rollover")
    epochs = [list(roll) for _ in range(3)]
    # MXNet 1.9.1: the leftover batch starts the next epoch
    assert epochs == [[[0, 1, 2], [3, 4, 5], [6, 7, 8]], [[9, 0, 1], [2, 3, 4], [5, 6, 7]],
                      [[8, 9, 0], [1, 2, 3], [4, 5, 6], [7, 8, 9]]]
    assert len(roll) == 3
    with pytest.raises(ValueError, match="last_batch must be one of"):
        BatchSampler(seq, 3, "drop")


def test_interval_sampler():
    assert list(gdata.IntervalSampler(13, 3)) == [0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
    assert list(gdata.IntervalSampler(13, 3, rollover=False)) == [0, 3, 6, 9, 12]


# ---- datasets ---------------------------------------------------------------------------------
def test_dataset_views_shard_take_filter_sample():
    d = SimpleDataset(list(range(10)))
    shards = [list(d.shard(3, i)) for i in range(3)]
    assert shards == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]  # MXNet's split: the first shards get the rest
    assert list(d.take(4)) == [0, 1, 2, 3] and len(d.take(None)) == 10 and len(d.take(99)) == 10
    assert list(d.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert list(d.sample(SequentialSampler(3, 5))) == [5, 6, 7]
    with pytest.raises(TypeError, match="Sampler"):
        d.sample([1, 2])
    with pytest.raises(ValueError, match="out of range"):
        d.shard(3, 3)


def test_transform_lazy_eager_and_transform_first():
    calls = []

    def fn(x, y):
        calls.append(x)
        return x * 10, y

    d = ArrayDataset(np.arange(4), np.arange(4) + 100)
    lazy = d.transform(fn)
    assert calls == [] and lazy[2] == (20, 102) and calls == [2]
    eager = d.transform(fn, lazy=False)
    assert calls == [2, 0, 1, 2, 3] and eager[3] == (30, 103) and len(calls) == 5
    first = d.transform_first(lambda x: -x)
    assert first[1] == (-1, 101)
    assert SimpleDataset([5, 6]).transform_first(lambda x: x + 1)[1] == 7  # a non-tuple sample


def test_array_dataset_mixes_ndarray_numpy_and_lists():
    x = mx.nd.array(np.arange(12).reshape(4, 3))
    d = ArrayDataset(x, np.arange(4) * 2.0, ["a", "b", "c", "d"], mx.nd.array([7, 8, 9, 10]))
    s = d[2]
    assert isinstance(s[0], mx.nd.NDArray) and s[0].asnumpy().tolist() == [6, 7, 8]
    assert s[1] == 4.0 and s[2] == "c"
    assert not isinstance(s[3], mx.nd.NDArray) and s[3] == 9  # 1-D NDArrays are read as numpy
    assert len(d) == 4 and ArrayDataset([1, 2])[1] == 2
    with pytest.raises(ValueError, match=r"array 0 has 4 samples but array 1 has 3"):
        ArrayDataset(x, np.arange(3))


def test_record_file_dataset(tmp_path):
    w = recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    for i in range(5):
        w.write_idx(i, b"record %d" % i)
    w.close()
    d = RecordFileDataset(str(tmp_path / "r.rec"))
    assert len(d) == 5 and d[3] == b"record 3" and d[-1] == b"record 4"
    with pytest.raises(IndexError, match="out of range"):
        d[5]


# ---- batchify and DataLoader in this process --------------------------------------------------
def test_default_batchify_like_mxnet():
    # MXNet 1.9.1: tuple samples -> a list, one NDArray per field, numpy's dtypes kept
    b = gdata.batchify.default_batchify_fn([(np.ones(2), 1, 2.5), (np.zeros(2), 2, 3.5)])
    assert isinstance(b, list) and [x.dtype for x in b] == [np.float64, np.int64, np.float64]
    assert _np(b)[0].tolist() == [[1, 1], [0, 0]] and _np(b)[1].tolist() == [1, 2]
    nd_batch = gdata.batchify.default_batchify_fn([mx.nd.array([1, 2], dtype="uint8")] * 3)
    assert nd_batch.shape == (3, 2) and nd_batch.dtype == np.uint8
    with pytest.raises(ValueError, match=r"different shapes.*\(2,\).*\(3,\)"):
        gdata.batchify.default_batchify_fn([mx.nd.zeros(2), mx.nd.zeros(3)])
    with pytest.raises(ValueError, match="different shapes"):
        gdata.batchify.default_batchify_fn([np.zeros(2), np.zeros(3)])


def test_dataloader_argument_checks():
    with pytest.raises(ValueError, match="batch_size must be specified unless batch_sampler"):
        DataLoader(list(range(3)))
    bs = BatchSampler(SequentialSampler(3), 2)
    for kw in (dict(batch_size=2), dict(shuffle=True), dict(sampler=SequentialSampler(3)),
               dict(last_batch="keep")):
        with pytest.raises(ValueError, match="must not be specified if batch_sampler is specified"):
            DataLoader(list(range(3)), batch_sampler=bs, **kw)
    with pytest.raises(ValueError, match="shuffle must not be specified if sampler is specified"):
        DataLoader(list(range(3)), batch_size=2, shuffle=True, sampler=SequentialSampler(3))
    with pytest.raises(ValueError, match="timeout must be positive"):
        DataLoader(list(range(3)), batch_size=2, timeout=0)


def test_dataloader_in_process_batches_and_last_batch():
    data = np.arange(20).reshape(10, 2).astype(np.float32)
    ds = ArrayDataset(mx.nd.array(data), np.arange(10))
    for last, sizes in (("keep", [4, 4, 2]), ("discard", [4, 4]), (None, [4, 4, 2])):
        dl = DataLoader(ds, batch_size=4, last_batch=last)
        batches = [_np(b) for b in dl]
        assert len(dl) == len(sizes) and [b[0].shape[0] for b in batches] == sizes
        assert np.array_equal(np.concatenate([b[0] for b in batches]), data[:sum(sizes)])
        assert batches[0][1].dtype == np.int64
    np.random.seed(1)
    shuffled = np.concatenate([_np(b)[1] for b in DataLoader(ds, batch_size=3, shuffle=True)])
    np.random.seed(1)
    assert np.array_equal(shuffled, np.array(list(RandomSampler(10))))
    dl = DataLoader(mx.nd.array(data), batch_size=4, pin_memory=True)  # an NDArray as the dataset
    b = next(iter(dl))
    assert b.context == mx.cpu_pinned(0) and np.array_equal(b.asnumpy(), data[:4])


# ---- worker processes -------------------------------------------------------------------------
class _HeavyTransform:
    """Runs symnet ops big enough to be OpenMP-parallel (> 16384 elements): in a forked worker
    they hang unless the worker limits OpenMP to one thread."""

    def __call__(self, img, label):
        x = img.astype("float32")
        big = mx.nd.broadcast_add(mx.nd.zeros((64, 400)), mx.nd.ones((1, 400)) * float(label))
        return mx.nd.sum(x, axis=2) / 3.0 + mx.nd.sum(big) / 25600.0, label * 2


def _image_dataset(n=23):
    imgs = np.random.RandomState(5).randint(0, 256, (n, 12, 10, 3)).astype(np.uint8)
    return ArrayDataset(mx.nd.array(imgs, dtype="uint8"), np.arange(n))


def test_workers_after_openmp_parallel_ops_match_in_process():
    a = mx.nd.array(np.random.rand(600, 600))
    mx.nd.dot(a, a).asnumpy()  # the parent's OpenMP thread pool is up before the fork
    ds = _image_dataset().transform(_HeavyTransform())
    ref = [_np(b) for b in DataLoader(ds, batch_size=4, last_batch="keep")]
    dl = DataLoader(ds, batch_size=4, num_workers=2, timeout=30)  # a hang fails, not stalls
    pids = [w.process.pid for w in dl._pool._workers]
    for _ in range(2):  # the workers serve every epoch
        got = [_np(b) for b in dl]
        assert len(got) == len(ref) == 6 and all(_same(g, r) for g, r in zip(got, ref))
    assert ref[0][0].dtype == np.float32 and ref[0][1].tolist() == [0, 2, 4, 6]
    del dl
    gc.collect()
    assert not any(_alive(p) for p in pids)  # stopped and reaped: no zombies
    assert not [p for p in multiprocessing.active_children() if p.pid in pids]


def test_worker_exception_surfaces_with_its_message(tmp_path):
    flag = tmp_path / "broken"
    flag.write_text("")

    def bad(x):
        if x == 5 and flag.exists():
            raise KeyError("sample five is broken")
        return x

    dl = DataLoader(SimpleDataset(list(range(8))).transform(bad), batch_size=2, num_workers=2)
    pids = [w.process.pid for w in dl._pool._workers]
    with pytest.raises(KeyError, match="sample five is broken") as info:
        list(dl)
    assert "DataLoader worker" in str(info.value.__cause__) and "in bad" in str(info.value.__cause__)
    del info  # its traceback holds the loader
    flag.unlink()
    # the workers outlive the error: the same ones serve the next pass
    assert [_np(b).tolist() for b in dl] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert [w.process.pid for w in dl._pool._workers] == pids
    del dl
    gc.collect()
    assert not any(_alive(p) for p in pids)


def test_killed_worker_is_an_error_and_the_next_epoch_gets_new_workers():
    dl = DataLoader(SimpleDataset(list(range(6))), batch_size=2, num_workers=2, timeout=30)
    victim = dl._pool._workers[0].process
    os.kill(victim.pid, signal.SIGKILL)
    victim.join(5)
    with pytest.raises(RuntimeError, match="pid %d.*killed by signal SIGKILL" % victim.pid):
        list(dl)
    assert not _alive(victim.pid)
    assert [_np(b).tolist() for b in dl] == [[0, 1], [2, 3], [4, 5]]
    assert victim.pid not in [w.process.pid for w in dl._pool._workers]


def test_worker_timeout():
    def slow(x):
        threading.Event().wait(3)
        return x

    dl = DataLoader(SimpleDataset([0, 1]).transform(slow), batch_size=1, num_workers=1, timeout=0.3)
    with pytest.raises(multiprocessing.TimeoutError, match="no batch from the worker processes after 0.3 s"):
        next(iter(dl))


def test_random_transforms_in_workers_follow_mx_random_seed():
    ds = _image_dataset(12).transform_first(T.Compose([T.RandomFlipLeftRight(), T.RandomBrightness(0.5)]))

    def run(seed, workers):
        mx.random.seed(seed)
        return [_np(b) for b in DataLoader(ds, batch_size=3, num_workers=workers, prefetch=1)]

    a = run(7, 2)
    # the same batches again, and whichever worker (of however many) loads which batch
    assert all(_same(x, y) for x, y in zip(a, run(7, 2)))
    assert all(_same(x, y) for x, y in zip(a, run(7, 1)))
    assert not all(_same(x, y) for x, y in zip(a, run(8, 2)))
    plain = np.stack([x.asnumpy() for x, _ in _image_dataset(12)])
    assert not np.array_equal(np.concatenate([b[0] for b in a]), plain)  # the transforms did run


def test_abandoned_iterator_and_custom_batchify_in_workers():
    def batchify(samples):  # an NDArray, a numpy array and a plain value
        return mx.nd.array(samples), np.array(samples) * 2, len(samples)

    dl = DataLoader(SimpleDataset(list(range(10))), batch_size=3, num_workers=2, batchify_fn=batchify,
                    prefetch=4)
    it = iter(dl)
    first = next(it)
    del it  # abandoned with batches in flight: their results must not leak into the next pass
    gc.collect()
    out = list(dl)
    assert not dl._pool._results and not dl._pool._pending  # nothing left over for nobody
    assert isinstance(first[0], mx.nd.NDArray) and first[0].asnumpy().tolist() == [0, 1, 2]
    assert [type(x) for x in out[1]] == [mx.nd.NDArray, np.ndarray, int]
    assert [o[0].asnumpy().tolist() for o in out] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert out[3][1].tolist() == [18] and out[3][2] == 1
    assert [o[0].asnumpy().tolist() for o in DataLoader(SimpleDataset(list(range(4))), batch_size=2,
                                                         num_workers=1, batchify_fn=batchify,
                                                         prefetch=0)] == [[0, 1], [2, 3]]


def test_big_batches_and_big_tasks_do_not_deadlock_the_pipes():
    # a 3 MB batch is many pipe buffers; a 20000-index task (100 kB pickled) is more than one:
    # the parent must neither block on a worker blocked on it nor mix up message parts
    big = SimpleDataset([np.full((256, 256, 3), i, np.float32) for i in range(8)])
    got = [_np(b) for b in DataLoader(big, batch_size=4, num_workers=2, prefetch=6, pin_memory=True)]
    assert [b.shape for b in got] == [(4, 256, 256, 3)] * 2 and got[1][2, 5, 7, 1] == 6
    many = SimpleDataset(np.arange(100000, 200000))
    dl = DataLoader(many, batch_size=20000, num_workers=2, prefetch=5, timeout=60)
    assert np.array_equal(np.concatenate([_np(b) for b in dl]), np.arange(100000, 200000))
    first = next(iter(DataLoader(big, batch_size=2, num_workers=1, pin_memory=True)))
    assert first.context == mx.cpu_pinned(0)


def test_auto_reload_prefetches_before_iteration(tmp_path):
    log = tmp_path / "log"

    def note(x):
        with open(log, "a") as f:
            f.write("%d\n" % x)
        return x

    ds = SimpleDataset(list(range(4))).transform(note)
    dl = DataLoader(ds, batch_size=2, num_workers=1, prefetch=1, auto_reload=True)
    for _ in range(100):  # the worker loads batch 0 with nobody iterating yet
        if log.exists() and log.read_text().split() == ["0", "1"]:
            break
        threading.Event().wait(0.05)
    assert log.read_text().split() == ["0", "1"]
    assert [_np(b).tolist() for b in dl] == [[0, 1], [2, 3]]
    assert [_np(b).tolist() for b in dl] == [[0, 1], [2, 3]]  # reloaded for the next pass


def test_thread_pool_matches_in_process():
    ds = _image_dataset(10).transform(_HeavyTransform())
    ref = [_np(b) for b in DataLoader(ds, batch_size=4)]
    got = [_np(b) for b in DataLoader(ds, batch_size=4, num_workers=2, thread_pool=True)]
    assert len(got) == 3 and all(_same(g, r) for g, r in zip(got, ref))


def test_record_dataset_in_workers_reopens_the_file(tmp_path):
    w = recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    payloads = [bytes([i]) * (100 + 37 * i) for i in range(40)]
    for i, p in enumerate(payloads):
        w.write_idx(i, p)
    w.close()
    ds = RecordFileDataset(str(tmp_path / "r.rec")).transform(lambda rec: int(np.frombuffer(rec, np.uint8).sum()))
    expect = [int(np.frombuffer(p, np.uint8).sum()) for p in payloads]
    got = np.concatenate([_np(b) for b in DataLoader(ds, batch_size=5, num_workers=2, shuffle=False)])
    assert got.tolist() == expect


# ---- mx.image: decoding -----------------------------------------------------------------------
def _test_image(h=24, w=32):
    yy, xx = np.mgrid[0:h, 0:w]
    return np.stack([(xx * 8) % 256, (yy * 10) % 256, (xx + yy) * 4 % 256], -1).astype(np.uint8)


def test_imdecode_gives_mxnets_pixels():
    # tests/python/data/mxnet191_decode.jpg (4:2:0 colour, quality 90) decoded by MXNet 1.9.1's
    # mx.image.imdecode: sha256 of the pixel bytes, colour (flag=1) and grayscale (flag=0)
    data = open(os.path.join(os.path.dirname(__file__), "data", "mxnet191_decode.jpg"), "rb").read()
    expect = {1: ((40, 48, 3), "89b4fbb5b28f1191d8e0b8acc87e41517d736ecebceb5cf60f513351ffcca47b"),
              0: ((40, 48, 1), "af37f359211fcebb60a415dcad820e27ba060504f63276cab221704fed82e694")}
    for flag, (shape, digest) in expect.items():
        img = mx.image.imdecode(data, flag=flag).asnumpy()
        assert img.shape == shape and hashlib.sha256(img.tobytes()).hexdigest() == digest, flag


def test_imdecode_matches_libjpeg_through_pillow():
    Image = pytest.importorskip("PIL.Image")
    img = _test_image()
    data = _jpeg(img)
    rgb = mx.image.imdecode(data)
    assert isinstance(rgb, mx.nd.NDArray) and rgb.dtype == np.uint8 and rgb.shape == (24, 32, 3)
    ref = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    assert np.abs(rgb.asnumpy().astype(int) - ref).max() <= 1
    assert np.abs(rgb.asnumpy().astype(int) - img).mean() < 3  # and close to what was encoded
    bgr = mx.image.imdecode(bytearray(data), to_rgb=False).asnumpy()
    assert np.array_equal(bgr, rgb.asnumpy()[:, :, ::-1])
    gray = mx.image.imdecode(np.frombuffer(data, np.uint8), flag=0).asnumpy()
    im = Image.open(io.BytesIO(data))
    im.draft("L", im.size)  # libjpeg's own grayscale output: the luma plane, as OpenCV's
    assert gray.shape == (24, 32, 1) and np.abs(gray[:, :, 0].astype(int) - np.asarray(im)).max() <= 1
    assert np.array_equal(mx.image.imdecode(mx.nd.array(np.frombuffer(data, np.uint8), dtype="uint8")).asnumpy(),
                          rgb.asnumpy())


def test_imdecode_png_and_bad_input(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    img = _test_image()
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG")
    assert np.array_equal(mx.image.imdecode(buf.getvalue()).asnumpy(), img)  # lossless: exact
    data = _jpeg(img)
    with pytest.raises(mx.MXNetError, match="imdecode: cannot decode the 300-byte image: .*JPEG"):
        mx.image.imdecode(data[:300])
    with pytest.raises(mx.MXNetError, match="imdecode: .*not a JPEG"):
        mx.image.imdecode(b"\x00\x01 definitely not an image")
    with pytest.raises(mx.MXNetError, match="empty"):
        mx.image.imdecode(b"")
    with pytest.raises(ValueError, match="not str"):
        mx.image.imdecode("a.jpg")
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    with pytest.raises(mx.MXNetError, match="imread: .*cut.jpg: imdecode: cannot decode the 421-byte image: JPEG"):
        mx.image.imread(str(tmp_path / "cut.jpg"))
    with pytest.raises(FileNotFoundError):
        mx.image.imread(str(tmp_path / "missing.jpg"))
    (tmp_path / "ok.jpg").write_bytes(data)
    assert mx.image.imread(str(tmp_path / "ok.jpg"), flag=0).shape == (24, 32, 1)


# ---- mx.image: resizing -----------------------------------------------------------------------
def _bilinear_loop(img, w, h):
    """Half-pixel-centre bilinear with edge pixels held: OpenCV's INTER_LINEAR in plain loops."""
    H, W, C = img.shape
    out = np.zeros((h, w, C))
    for y in range(h):
        fy = min(max((y + 0.5) * H / h - 0.5, 0.0), H - 1)
        y0 = int(np.floor(fy))
        y1, ty = min(y0 + 1, H - 1), fy - y0
        for x in range(w):
            fx = min(max((x + 0.5) * W / w - 0.5, 0.0), W - 1)
            x0 = int(np.floor(fx))
            x1, tx = min(x0 + 1, W - 1), fx - x0
            out[y, x] = ((1 - ty) * ((1 - tx) * img[y0, x0] + tx * img[y0, x1]) +
                         ty * ((1 - tx) * img[y1, x0] + tx * img[y1, x1]))
    return out


# MXNet 1.9.1, mx.image.imresize of X = ((arange(30) * 37) % 256).reshape(5, 6, 1) as uint8
_X = ((np.arange(30) * 37) % 256).reshape(5, 6, 1).astype(np.uint8)
_MXNET_RESIZED = {
    (4, 3, 1): [[62, 53, 109, 164], [197, 61, 52, 108], [140, 196, 123, 51]],
    (9, 7, 0): [[0, 0, 37, 74, 74, 111, 148, 148, 185], [0, 0, 37, 74, 74, 111, 148, 148, 185],
                [222, 222, 3, 40, 40, 77, 114, 114, 151], [188, 188, 225, 6, 6, 43, 80, 80, 117],
                [188, 188, 225, 6, 6, 43, 80, 80, 117], [154, 154, 191, 228, 228, 9, 46, 46, 83],
                [120, 120, 157, 194, 194, 231, 12, 12, 49]],
    (3, 2, 3): [[94, 65, 139], [166, 137, 58]],
    (9, 7, 2): [[0, 8, 49, 69, 95, 121, 143, 173, 191], [144, 57, 0, 43, 79, 103, 124, 154, 172],
                [254, 153, 37, 16, 34, 75, 95, 125, 143], [185, 227, 196, 35, 0, 51, 72, 102, 120],
                [161, 193, 215, 194, 72, 0, 41, 82, 97], [133, 149, 188, 240, 180, 76, 33, 40, 68],
                [114, 132, 162, 182, 246, 218, 41, 5, 50]],
}


def test_imresize_against_loops_and_mxnet():
    img = np.random.RandomState(2).rand(9, 13, 2).astype(np.float32) * 255
    for w, h in ((5, 4), (20, 17), (13, 3)):
        got = mx.image.imresize(mx.nd.array(img), w, h, interp=1).asnumpy()
        assert got.shape == (h, w, 2) and np.abs(got - _bilinear_loop(img, w, h)).max() < 1e-3
        nearest = mx.image.imresize(img, w, h, interp=0)  # numpy in, numpy out
        iy = np.minimum((np.arange(h) * 9 / h).astype(int), 8)
        ix = np.minimum((np.arange(w) * 13 / w).astype(int), 12)
        assert isinstance(nearest, np.ndarray) and np.array_equal(nearest, img[iy][:, ix])
    for (w, h, interp), ref in _MXNET_RESIZED.items():
        got = mx.image.imresize(mx.nd.array(_X, dtype="uint8"), w, h, interp=interp).asnumpy()[:, :, 0]
        diff = np.abs(got.astype(int) - np.array(ref))
        assert got.dtype == np.uint8 and diff.max() <= 1 and (diff == 0).mean() > 0.9, (w, h, interp)
    batch = np.stack([img, img[::-1]])
    out = mx.image.imresize(batch, 6, 5, interp=2)
    assert np.allclose(out[1], mx.image.imresize(img[::-1].copy(), 6, 5, interp=2))
    with pytest.raises(ValueError, match="unknown interpolation"):
        mx.image.imresize(img, 3, 3, interp=7)


def test_crop_helpers():
    img = np.arange(7 * 10 * 1).reshape(7, 10, 1).astype(np.uint8)
    out, box = mx.image.center_crop(img, (4, 3))
    assert box == (3, 2, 4, 3) and np.array_equal(out, img[2:5, 3:7])
    out, box = mx.image.center_crop(img, (20, 10))  # bigger than the image: cropped to its aspect, scaled up
    assert out.shape == (10, 20, 1) and box == (0, 1, 10, 5)
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)  # MXNet's docstring example
    assert mx.image.resize_short(mx.nd.array(img, dtype="uint8"), 5).shape == (5, 7, 1)
    mx.random.seed(4)
    a, box = mx.image.random_crop(img, (3, 2))
    assert np.array_equal(a, img[box[1]:box[1] + 2, box[0]:box[0] + 3])


# ---- transforms -------------------------------------------------------------------------------
def test_to_tensor_and_normalize():
    x = np.random.RandomState(0).randint(0, 256, (2, 5, 4, 3)).astype(np.uint8)
    t = T.ToTensor()(mx.nd.array(x[0], dtype="uint8"))
    assert t.dtype == np.float32 and t.shape == (3, 5, 4)
    assert np.allclose(t.asnumpy(), x[0].transpose(2, 0, 1) / 255.0)
    tb = T.ToTensor()(mx.nd.array(x, dtype="uint8")).asnumpy()
    assert tb.shape == (2, 3, 5, 4) and np.allclose(tb, x.transpose(0, 3, 1, 2) / 255.0)
    mean, std = (0.1, 0.2, 0.3), (0.5, 0.25, 2.0)
    n = T.Normalize(mean, std)(mx.nd.array(tb)).asnumpy()
    assert np.allclose(n, (tb - np.array(mean).reshape(3, 1, 1)) / np.array(std).reshape(3, 1, 1), atol=1e-6)
    assert np.allclose(T.Normalize(0.5, 2)(t).asnumpy(), (t.asnumpy() - 0.5) / 2)
    with pytest.raises(ValueError, match="mean must have 1 or 3"):
        T.Normalize((1, 2), 1)(t)
    with pytest.raises(TypeError, match="float tensor"):
        T.Normalize(1, 1)(mx.nd.array(x[0], dtype="uint8"))
    with pytest.raises(ValueError, match="ToTensor expects"):
        T.ToTensor()(mx.nd.zeros((4, 4)))
    # ToTensor + Normalize hybridized as one graph: the same numbers
    net = mx.gluon.nn.HybridSequential()
    net.add(T.Cast("float32"), T.ToTensor(), T.Normalize(mean, std))
    eager = net(mx.nd.array(x, dtype="uint8")).asnumpy()
    net.hybridize()
    assert np.allclose(net(mx.nd.array(x, dtype="uint8")).asnumpy(), eager, atol=1e-6)
    assert T.Cast("float16")(mx.nd.array(x[0], dtype="uint8")).dtype == np.float16


def test_resize_and_crops():
    img = mx.nd.array(np.random.RandomState(0).randint(0, 256, (7, 10, 3)), dtype="uint8")
    # MXNet 1.9.1's shapes: an int is a square, keep_ratio sets the short side, a tuple is (w, h)
    assert T.Resize(5)(img).shape == (5, 5, 3) and T.Resize(5, keep_ratio=True)(img).shape == (5, 7, 3)
    assert T.Resize((6, 4))(img).shape == (4, 6, 3) and T.Resize(13, keep_ratio=True)(img).shape == (13, 18, 3)
    batch = mx.nd.stack(img, img)
    assert T.Resize(5)(batch).shape == (2, 5, 5, 3)
    assert np.array_equal(T.Resize((6, 4))(img).asnumpy(), mx.image.imresize(img, 6, 4, interp=1).asnumpy())
    assert T.CenterCrop(4)(img).shape == (4, 4, 3) and T.CenterCrop((12, 3))(img).shape == (3, 12, 3)
    assert np.array_equal(T.CenterCrop((4, 3))(img).asnumpy(), img.asnumpy()[2:5, 3:7])
    assert np.array_equal(T.CropResize(1, 2, 5, 3)(img).asnumpy(), img.asnumpy()[2:5, 1:6])
    assert T.CropResize(1, 2, 5, 3, size=8)(batch).shape == (2, 8, 8, 3)
    with pytest.raises(ValueError, match="does not fit"):
        T.CropResize(8, 0, 5, 3)(img)
    whole = T.RandomResizedCrop((6, 4), scale=(1.0, 1.0), ratio=(10 / 7, 10 / 7))(img)
    assert np.array_equal(whole.asnumpy(), mx.image.imresize(img, 6, 4).asnumpy())  # the only crop that fits
    mx.random.seed(11)
    a = T.RandomResizedCrop(5)(img).asnumpy()
    mx.random.seed(11)
    assert a.shape == (5, 5, 3) and np.array_equal(T.RandomResizedCrop(5)(img).asnumpy(), a)
    assert isinstance(T.Resize(3)(img.asnumpy()), np.ndarray)  # numpy in, numpy out


def test_random_flips():
    img = mx.nd.array(np.arange(2 * 3 * 2).reshape(2, 3, 2), dtype="uint8")
    x = img.asnumpy()
    mx.random.seed(0)
    lr = [T.RandomFlipLeftRight()(img).asnumpy() for _ in range(40)]
    assert all(np.array_equal(o, x) or np.array_equal(o, x[:, ::-1]) for o in lr)
    flips = sum(np.array_equal(o, x[:, ::-1]) for o in lr)
    assert 8 < flips < 32
    mx.random.seed(0)
    assert all(np.array_equal(T.RandomFlipLeftRight()(img).asnumpy(), o) for o in lr)  # seeded
    tb = [T.RandomFlipTopBottom()(img).asnumpy() for _ in range(20)]
    assert all(np.array_equal(o, x) or np.array_equal(o, x[::-1]) for o in tb)
    assert any(np.array_equal(o, x[::-1]) for o in tb)


def test_colour_transforms_against_numpy():
    x = np.random.RandomState(1).randint(0, 256, (4, 5, 3)).astype(np.uint8)
    img = mx.nd.array(x, dtype="uint8")
    xf = x.astype(np.float32)
    gray = xf @ np.array([0.299, 0.587, 0.114], np.float32)

    def drawn(seed, lo, hi):
        mx.random.seed(seed)
        return mx.random.host_rng().uniform(lo, hi)

    mx.random.seed(3)
    out = T.RandomBrightness(0.5)(img).asnumpy()
    a = drawn(3, 0.5, 1.5)
    assert np.array_equal(out, np.clip(np.trunc(xf * a), 0, 255).astype(np.uint8))  # MXNet truncates
    mx.random.seed(4)
    out = T.RandomContrast(0.5)(img).asnumpy()
    a = drawn(4, 0.5, 1.5)
    assert np.abs(out.astype(int) - np.clip(np.trunc(xf * a + gray.mean() * (1 - a)), 0, 255)).max() <= 1
    mx.random.seed(5)
    out = T.RandomSaturation(0.5)(img).asnumpy()
    a = drawn(5, 0.5, 1.5)
    assert np.abs(out.astype(int) - np.clip(np.trunc(xf * a + gray[..., None] * (1 - a)), 0, 255)).max() <= 1
    mx.random.seed(6)
    out = T.RandomHue(0.3)(mx.nd.array(xf)).asnumpy()
    a = drawn(6, 0.7, 1.3)
    for i, j in ((0, 0), (1, 3), (3, 4)):
        h, l, s = colorsys.rgb_to_hls(*(x[i, j] / 255.0))
        ref = np.array(colorsys.hls_to_rgb((h + a - 1) % 1.0, l, s)) * 255
        assert np.allclose(out[i, j], ref, atol=1e-3)
    jitter = T.RandomColorJitter(brightness=0.2, contrast=0.2, saturation=0.2, hue=0.1)(img)
    assert jitter.shape == (4, 5, 3) and jitter.dtype == np.uint8
    mx.random.seed(2)
    lit = T.RandomLighting(0.1)(mx.nd.array(xf)).asnumpy()
    mx.random.seed(2)
    alpha = mx.random.host_rng().normal(0, 0.1, size=3)
    eigvec = T.RandomLighting._EIGVEC
    assert np.allclose(lit, xf + eigvec @ (alpha * T.RandomLighting._EIGVAL), atol=1e-4)


def test_compose_and_random_apply():
    img = mx.nd.array(np.random.RandomState(0).randint(0, 256, (8, 6, 3)), dtype="uint8")
    t = T.Compose([T.Resize((4, 5)), T.CenterCrop(4), T.ToTensor(), lambda x: x * 2])
    out = t(img).asnumpy()
    ref = mx.image.imresize(img, 4, 5).asnumpy()[0:4].transpose(2, 0, 1) / 255.0 * 2
    assert out.shape == (3, 4, 4) and np.allclose(out, ref)
    never, always = T.RandomApply(T.ToTensor(), p=0.0), T.RandomApply(T.ToTensor(), p=1.0)
    assert never(img) is img and always(img).shape == (3, 8, 6)
    assert T.RandomApply([T.ToTensor(), T.Normalize(0.5, 0.5)], p=1.0)(img).shape == (3, 8, 6)
    t.hybridize()  # the numpy transforms stay imperative, ToTensor is traced
    assert np.allclose(t(img).asnumpy(), out, atol=1e-6) and t[2].num_traces == 1
    net = mx.gluon.nn.HybridSequential()
    net.add(T.Resize(4))
    net.hybridize()  # one graph: Resize cannot be part of it
    with pytest.raises(NotImplementedError, match="imperatively only"):
        net(img)


# ---- vision datasets --------------------------------------------------------------------------
def test_image_record_dataset(tmp_path):
    pytest.importorskip("PIL")
    images = [_test_image(16 + 2 * i, 20) for i in range(4)]
    w = recordio.MXIndexedRecordIO(str(tmp_path / "im.idx"), str(tmp_path / "im.rec"), "w")
    for i, im in enumerate(images):
        label = float(i) if i != 3 else [1.0, 2.5]
        w.write_idx(i, recordio.pack_img(recordio.IRHeader(0, label, i, 0), im[:, :, ::-1], quality=95))
    w.write_idx(4, recordio.pack(recordio.IRHeader(0, 9.0, 4, 0), b"\xff\xd8 broken"))
    w.close()
    ds = gdata.vision.ImageRecordDataset(str(tmp_path / "im.rec"))
    assert len(ds) == 5
    img, label = ds[2]
    assert img.shape == (20, 20, 3) and img.dtype == np.uint8 and label == 2.0
    assert np.abs(img.asnumpy().astype(int) - images[2]).mean() < 3  # pack_img takes BGR, yields RGB
    assert list(ds[3][1]) == [1.0, 2.5]
    assert ds[1][0].shape == (18, 20, 3)
    assert gdata.vision.ImageRecordDataset(str(tmp_path / "im.rec"), flag=0)[1][0].shape == (18, 20, 1)
    with pytest.raises(mx.MXNetError, match=r"record 4 of .*im.rec: imdecode"):
        ds[4]
    seen = gdata.vision.ImageRecordDataset(str(tmp_path / "im.rec"),
                                           transform=lambda d, l: (d.shape[0], l))
    assert seen[0] == (16, 0.0)
    # decoding in worker processes: the same batches
    square = gdata.vision.ImageRecordDataset(str(tmp_path / "im.rec")).take(4).transform_first(
        T.Compose([T.Resize(8), T.ToTensor()]))
    ref = [_np(b) for b in DataLoader(square, batch_size=2, batchify_fn=lambda s: [mx.nd.stack(*[x for x, _ in s])])]
    got = [_np(b) for b in DataLoader(square, batch_size=2, num_workers=2,
                                      batchify_fn=lambda s: [mx.nd.stack(*[x for x, _ in s])])]
    assert len(got) == 2 and all(_same(g, r) for g, r in zip(got, ref)) and ref[0][0].shape == (2, 3, 8, 8)


def test_image_folder_dataset(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    for cls, n in (("dog", 2), ("cat", 1)):
        os.makedirs(tmp_path / cls)
        for i in range(n):
            Image.fromarray(_test_image(8 + i, 9)).save(tmp_path / cls / ("%d.jpg" % i))
    Image.fromarray(_test_image(5, 6)).save(tmp_path / "cat" / "x.png")
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    (tmp_path / "README").write_text("a file at the top")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = gdata.vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"]
    assert [(os.path.basename(p), l) for p, l in ds.items] == [("0.jpg", 0), ("x.png", 0), ("0.jpg", 1), ("1.jpg", 1)]
    assert any("notes.txt" in str(w.message) for w in caught) and any("README" in str(w.message) for w in caught)
    img, label = ds[3]
    assert img.shape == (9, 9, 3) and label == 1
    assert np.array_equal(ds[1][0].asnumpy(), _test_image(5, 6))  # PNG through Pillow, lossless
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gray = gdata.vision.ImageFolderDataset(str(tmp_path), flag=0, transform=lambda d, l: (d.shape, l))
    assert gray[0] == ((8, 9, 1), 0)


def _write_idx(path, magic, arr, gz):
    body = np.asarray(arr, np.uint8)
    raw = np.array([magic] + list(body.shape), ">u4").tobytes() + body.tobytes()
    with (gzip.open if gz else open)(path, "wb") as f:
        f.write(raw)


def test_mnist_reads_standard_files_and_never_downloads(tmp_path):
    rs = np.random.RandomState(0)
    images, labels = rs.randint(0, 256, (7, 28, 28)), rs.randint(0, 10, 7)
    _write_idx(tmp_path / "train-images-idx3-ubyte.gz", 2051, images, gz=True)
    _write_idx(tmp_path / "train-labels-idx1-ubyte", 2049, labels, gz=False)  # un-gzipped is found too
    ds = gdata.vision.MNIST(root=str(tmp_path))
    assert len(ds) == 7
    img, label = ds[4]
    assert img.shape == (28, 28, 1) and img.dtype == np.uint8 and np.array_equal(img.asnumpy()[:, :, 0], images[4])
    assert label == labels[4] and label.dtype == np.int32
    fashion = gdata.vision.FashionMNIST(root=str(tmp_path), transform=lambda d, l: (d.astype("float32") / 255, l))
    assert np.allclose(fashion[1][0].asnumpy()[:, :, 0], images[1] / 255.0)
    with pytest.raises(FileNotFoundError, match=r"t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz not found "
                                                r"in .*does not download"):
        gdata.vision.MNIST(root=str(tmp_path), train=False)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", 2049, images, gz=True)  # a label file's magic
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", 2049, labels, gz=True)
    with pytest.raises(ValueError, match="not an MNIST image file"):
        gdata.vision.MNIST(root=str(tmp_path), train=False)


def test_cifar_reads_binary_batches_and_archives(tmp_path):
    rs = np.random.RandomState(0)
    chw = rs.randint(0, 256, (5, 6, 3, 32, 32)).astype(np.uint8)
    labels = rs.randint(0, 10, (5, 6)).astype(np.uint8)
    folder = tmp_path / "c10" / "cifar-10-batches-bin"
    os.makedirs(folder)
    for b in range(5):
        recs = np.concatenate([labels[b][:, None], chw[b].reshape(6, -1)], axis=1)
        (folder / ("data_batch_%d.bin" % (b + 1))).write_bytes(recs.tobytes())
    ds = gdata.vision.CIFAR10(root=str(tmp_path / "c10"))
    assert len(ds) == 30
    img, label = ds[13]
    assert img.shape == (32, 32, 3) and np.array_equal(img.asnumpy(), chw[2, 1].transpose(1, 2, 0))
    assert label == labels[2, 1] and label.dtype == np.int32
    with pytest.raises(FileNotFoundError, match=r"cifar-10-binary.tar.gz .*test_batch.bin.*does not download"):
        gdata.vision.CIFAR10(root=str(tmp_path / "c10"), train=False)
    # CIFAR-100 from an unextracted archive: coarse labels, or fine ones
    recs = np.concatenate([labels[0][:, None], labels[1][:, None] + 50, chw[0].reshape(6, -1)], axis=1)
    raw = tmp_path / "test.bin"
    raw.write_bytes(recs.tobytes())
    os.makedirs(tmp_path / "c100")
    with tarfile.open(tmp_path / "c100" / "cifar-100-binary.tar.gz", "w:gz") as tar:
        tar.add(str(raw), arcname="cifar-100-binary/test.bin")
    coarse = gdata.vision.CIFAR100(root=str(tmp_path / "c100"), train=False)
    fine = gdata.vision.CIFAR100(root=str(tmp_path / "c100"), train=False, fine_label=True)
    assert [coarse[i][1] for i in range(6)] == labels[0].tolist()
    assert [fine[i][1] for i in range(6)] == (labels[1] + 50).tolist()
    assert np.array_equal(fine[5][0].asnumpy(), chw[0, 5].transpose(1, 2, 0))
