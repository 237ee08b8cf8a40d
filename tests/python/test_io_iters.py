"""mx.io's CSVIter, ResizeIter and PrefetchingIter (python/symnet/io/io.py, _csv_iter.py) and
tools/im2rec.py's MXNet options (--pack-label, --pass-through, --chunks, --num-thread).

MXNet parity: the batches, pads and indices of MXNet 1.9.1's iterators over the same CSV files,
several epochs each (tests/mxnet_parity/make_references.py: data_iter_refs)."""
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import symnet as mx
from parity_checks import REFS, ref_file

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IM2REC = os.path.join(ROOT, "tools", "im2rec.py")


def _csv_from_ref(kw):
    kw = dict(kw)
    for key in ("data_csv", "label_csv"):
        if key in kw:
            kw[key] = os.path.join(REFS, "data_iters", kw[key])
    return mx.io.CSVIter(**kw)


def _check_epochs(it, expected, what):
    for e, ref_batches in enumerate(expected):
        got = list(it)
        it.reset()
        assert len(got) == len(ref_batches), "%s epoch %d: %d batches, MXNet %d" % (what, e, len(got), len(ref_batches))
        for b, (batch, ref) in enumerate(zip(got, ref_batches)):
            where = "%s epoch %d batch %d" % (what, e, b)
            assert batch.pad == ref["pad"], where
            assert len(batch.data) == len(ref["data"]) and len(batch.label) == len(ref["label"]), where
            for ours, theirs in zip(batch.data + batch.label, ref["data"] + ref["label"]):
                np.testing.assert_array_equal(ours.asnumpy(), np.array(theirs, dtype=ours.dtype), err_msg=where)
            if "index" in ref:
                assert batch.index.tolist() == ref["index"], where


def test_csv_iter_matches_mxnet():
    with open(ref_file("data_iters.json")) as f:
        refs = json.load(f)
    assert len(refs["csv"]) == 9
    for case in refs["csv"]:
        it = _csv_from_ref(case["kwargs"])
        assert [[d.name, list(d.shape)] for d in it.provide_data] == case["provide_data"], case["name"]
        assert [[d.name, list(d.shape)] for d in it.provide_label] == case["provide_label"], case["name"]
        _check_epochs(it, case["epochs"], "CSVIter " + case["name"])


def test_resize_and_prefetching_iters_match_mxnet():
    with open(ref_file("data_iters.json")) as f:
        refs = json.load(f)
    for case in refs["resize"]:
        it = mx.io.ResizeIter(_csv_from_ref(case["kwargs"]), case["size"], reset_internal=case["reset_internal"])
        _check_epochs(it, case["epochs"], "ResizeIter " + case["name"])
    for case in refs["prefetch"]:
        iters = [_csv_from_ref(kw) for kw in case["iters"]]
        if len(iters) == 1:
            it = mx.io.PrefetchingIter(iters[0])
        else:
            it = mx.io.PrefetchingIter(iters, rename_data=[{"data": "data_a"}, {"data": "data_b"}],
                                       rename_label=[{"softmax_label": "label_a"}, {"softmax_label": "label_b"}])
        assert [[d.name, list(d.shape)] for d in it.provide_data] == case["provide_data"]
        assert [[d.name, list(d.shape)] for d in it.provide_label] == case["provide_label"]
        _check_epochs(it, case["epochs"], "PrefetchingIter " + case["name"])
        it.close()


# ---- CSVIter --------------------------------------------------------------------------------------

def _write(path, text):
    path.write_text(text)
    return str(path)


def _rows(it, epochs=1):
    out = []
    for _ in range(epochs):
        out.append([(b.data[0].asnumpy()[:, 0].tolist(), b.pad) for b in it])
        it.reset()
    return out


def test_csv_iter_round_batch_and_reset(tmp_path):
    # MXNet's documented example: 4 rows, batch 3
    data = _write(tmp_path / "d.csv", "1,2,3\n2,3,4\n3,4,5\n4,5,6\n")
    it = mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=3)
    assert _rows(it, 3) == [[([1, 2, 3], 0), ([4, 1, 2], 2)], [([3, 4, 1], 1)], [([2, 3, 4], 0)]]
    # round_batch=False: the rows after the data keep the batch before's, counted in pad
    it = mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=3, round_batch=False)
    assert _rows(it, 2) == [[([1, 2, 3], 0), ([4, 2, 3], 2)]] * 2
    batch = mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2).next()
    assert batch.label[0].shape == (2,) and not batch.label[0].asnumpy().any()  # no label file: zeros
    assert batch.index.dtype == np.uint64 and batch.index.tolist() == [0, 1]
    # the batches are copies: keeping one while reading on does not change it
    it = mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2)
    first = it.next()
    it.next()
    assert first.data[0].asnumpy()[:, 0].tolist() == [1, 2]


def test_csv_iter_shapes_dtypes_and_folders(tmp_path):
    data = _write(tmp_path / "d.csv", "1,2,3,4,5,6\n\n7,8,9,10,11,12\n 13, 1.5e1 ,-3,0,0,1\r\n")
    labels = _write(tmp_path / "l.csv", "1,2,3,4,5,6\n6,5,4,3,2,1\n0,0,0,0,0,1\n")
    it = mx.io.CSVIter(data_csv=data, data_shape=(2, 3), label_csv=labels, label_shape=(2, 3), batch_size=3)
    assert it.provide_data[0].shape == (3, 2, 3) and it.provide_label[0].shape == (3, 2, 3)
    b = it.next()
    np.testing.assert_array_equal(b.data[0].asnumpy()[2], [[13, 15, -3], [0, 0, 1]])  # blank line skipped
    assert b.label[0].asnumpy()[1, 0].tolist() == [6, 5, 4]
    it = mx.io.CSVIter(data_csv=data, data_shape=(6,), batch_size=3, dtype="int32")
    b = it.next()
    # integers: the digits before any '.' or exponent, as MXNet's reader takes them
    assert b.data[0].dtype == np.int32 and b.label[0].dtype == np.int32 and b.data[0].asnumpy()[2, 1] == 1
    assert it.provide_data[0].dtype == np.int32
    assert mx.io.CSVIter(data_csv=data, data_shape=(6,), batch_size=3, dtype="int64").next().data[0].dtype == np.int64
    one = _write(tmp_path / "one.csv", "5\n6\n7\n")
    it = mx.io.CSVIter(data_csv=data, data_shape=(6,), label_csv=one, label_shape=(1, 1), batch_size=3)
    assert it.provide_label[0].shape == (3,) and it.next().label[0].asnumpy().tolist() == [5, 6, 7]
    # a folder: its files by name, as one stream of rows
    (tmp_path / "parts").mkdir()
    _write(tmp_path / "parts" / "b.csv", "3,3\n4,4\n")
    _write(tmp_path / "parts" / "a.csv", "1,1\n2,2\n")
    it = mx.io.CSVIter(data_csv=str(tmp_path / "parts"), data_shape=(2,), batch_size=4)
    b = it.next()
    assert b.data[0].asnumpy()[:, 0].tolist() == [1, 2, 3, 4] and b.index.tolist() == [0, 1, 2, 3]
    assert it.num_data == 4 and not it.iter_next()


def test_csv_iter_bad_input_names_file_line_and_value(tmp_path):
    good = _write(tmp_path / "good.csv", "1,2,3\n4,5,6\n")
    short = _write(tmp_path / "short.csv", "1,2,3\n\n4,5\n")
    with pytest.raises(ValueError, match=r"short\.csv line 3 has 2 values, expected 3 \(the size of data_shape \(3,"):
        mx.io.CSVIter(data_csv=short, data_shape=(3,), batch_size=1)
    word = _write(tmp_path / "word.csv", "1,2,3\n4,abc,6\n")
    with pytest.raises(ValueError, match=r"word\.csv line 2, value 2: 'abc' is not a number"):
        mx.io.CSVIter(data_csv=word, data_shape=(3,), batch_size=1)
    empty_field = _write(tmp_path / "gap.csv", "1,,3\n")
    with pytest.raises(ValueError, match=r"gap\.csv line 1, value 2: '' is not a number"):
        mx.io.CSVIter(data_csv=empty_field, data_shape=(3,), batch_size=1)
    labels = _write(tmp_path / "labels.csv", "1\n2\n3\n")
    with pytest.raises(ValueError, match=r"label_csv .*labels\.csv has 3 rows but data_csv .*good\.csv has 2"):
        mx.io.CSVIter(data_csv=good, data_shape=(3,), label_csv=labels, batch_size=1)
    with pytest.raises(ValueError, match=r"labels\.csv line 1 has 1 values, expected 2 \(the size of label_shape"):
        mx.io.CSVIter(data_csv=good, data_shape=(3,), label_csv=labels, label_shape=(2,), batch_size=1)
    with pytest.raises(FileNotFoundError, match="missing.csv does not exist"):
        mx.io.CSVIter(data_csv=str(tmp_path / "missing.csv"), data_shape=(3,), batch_size=1)
    with pytest.raises(ValueError, match="dtype 'float64' is not supported"):
        mx.io.CSVIter(data_csv=good, data_shape=(3,), batch_size=1, dtype="float64")
    with pytest.raises(ValueError, match="batch_size is required"):
        mx.io.CSVIter(data_csv=good, data_shape=(3,))
    blank = _write(tmp_path / "blank.csv", "\n\n")
    with pytest.raises(ValueError, match="holds no rows"):
        mx.io.CSVIter(data_csv=blank, data_shape=(3,), batch_size=1)
    # round_batch may take each row once more, not twice
    it = mx.io.CSVIter(data_csv=good, data_shape=(3,), batch_size=5)
    with pytest.raises(ValueError, match="batch_size 5 is too large for 2 rows"):
        it.next()


# ---- ResizeIter -----------------------------------------------------------------------------------

def test_resize_iter_wraps_and_cuts(tmp_path):
    base = mx.io.NDArrayIter(np.arange(10, dtype=np.float32)[:, None], np.arange(10), batch_size=4)
    it = mx.io.ResizeIter(base, 5)
    assert it.provide_data == base.provide_data and it.batch_size == 4
    got = [(b.data[0].asnumpy()[:, 0].tolist(), b.pad) for b in it]
    assert got == [([0, 1, 2, 3], 0), ([4, 5, 6, 7], 0), ([8, 9, 0, 1], 2), ([0, 1, 2, 3], 0), ([4, 5, 6, 7], 0)]
    it.reset()  # reset_internal: the inner iterator starts again too
    assert it.next().data[0].asnumpy()[0, 0] == 0
    it = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(10, dtype=np.float32)[:, None], batch_size=4), 2,
                          reset_internal=False)
    firsts = []
    for _ in range(3):
        firsts.append([b.data[0].asnumpy()[0, 0] for b in it])
        it.reset()
    assert firsts == [[0, 4], [8, 0], [4, 8]]


# ---- PrefetchingIter ------------------------------------------------------------------------------

class _Recording(mx.io.DataIter):
    """n batches of one value; records which thread reads them and can fail at a batch."""

    def __init__(self, n, fail_at=None, value=0.0):
        super().__init__(2)
        self.n, self.fail_at, self.value, self.i = n, fail_at, value, 0
        self.threads, self.asked = set(), threading.Event()
        self.provide_data = [mx.io.DataDesc("data", (2, 3))]
        self.provide_label = [mx.io.DataDesc("softmax_label", (2,))]

    def reset(self):
        self.i = 0

    def next(self):
        self.threads.add(threading.get_ident())
        self.asked.set()
        if self.i == self.fail_at:
            self.i += 1
            raise RuntimeError("reading batch %d failed" % (self.i - 1))
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        v = self.value + self.i
        return mx.io.DataBatch([mx.nd.full((2, 3), v)], [mx.nd.full((2,), v)], pad=0)

    __next__ = next


def test_prefetching_iter_gives_the_same_batches_read_ahead():
    x = np.random.RandomState(0).normal(size=(11, 3)).astype(np.float32)
    direct = mx.io.NDArrayIter(x, np.arange(11), batch_size=4)
    pre = mx.io.PrefetchingIter(mx.io.NDArrayIter(x, np.arange(11), batch_size=4))
    for _ in range(2):
        want = [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad) for b in direct]
        got = [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad) for b in pre]
        assert len(got) == len(want) == 3
        for (d1, l1, p1), (d2, l2, p2) in zip(got, want):
            np.testing.assert_array_equal(d1, d2)
            np.testing.assert_array_equal(l1, l2)
            assert p1 == p2
        assert not pre.iter_next()  # stays at the end until reset
        direct.reset()
        pre.reset()
    pre.close()
    # reading happens in a background thread, ahead of the consumer
    rec = _Recording(4)
    pre = mx.io.PrefetchingIter(rec)
    assert rec.asked.wait(10)  # the first batch is read before anyone asks
    rec.asked.clear()
    first = pre.next()
    assert rec.asked.wait(10)  # ... and the second while the first is in use
    assert threading.get_ident() not in rec.threads
    assert first.data[0].asnumpy()[0, 0] == 1
    pre.reset()  # mid-epoch: starts again
    assert [b.data[0].asnumpy()[0, 0] for b in pre] == [1, 2, 3, 4]
    pre.close()
    with pytest.raises(RuntimeError, match="closed"):
        pre.next()


def test_prefetching_iter_joins_several_and_reports_errors():
    a, b = _Recording(3), _Recording(3, value=10.0)
    pre = mx.io.PrefetchingIter([a, b], rename_data=[{"data": "a"}, {"data": "b"}])
    assert [d.name for d in pre.provide_data] == ["a", "b"]
    assert [d.name for d in pre.provide_label] == ["softmax_label", "softmax_label"]
    assert pre.batch_size == 2
    batches = list(pre)
    assert [[d.asnumpy()[0, 0] for d in bt.data] for bt in batches] == [[1, 11], [2, 12], [3, 13]]
    assert batches[0].provide_data == pre.provide_data
    pre.close()
    # an iterator's exception comes out of next() (MXNet's thread dies and next() hangs)
    pre = mx.io.PrefetchingIter(_Recording(5, fail_at=1))
    pre.next()
    with pytest.raises(RuntimeError, match="reading batch 1 failed"):
        pre.next()
    assert pre.next().data[0].asnumpy()[0, 0] == 3  # reading goes on after it
    pre.close()
    pre = mx.io.PrefetchingIter([_Recording(2), _Recording(3)])
    with pytest.raises(ValueError, match="iterator 0 ended its epoch while iterator 1 still gave a batch"):
        list(pre)
    pre.close()
    with pytest.raises(ValueError, match="rename_data has 1 dicts for 2 iterators"):
        mx.io.PrefetchingIter([_Recording(1), _Recording(1)], rename_data=[{}])


def test_prefetching_csv_iter_trains_a_module(tmp_path):
    rng = np.random.RandomState(3)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 0.0]) > 0).astype(np.float32)
    np.savetxt(tmp_path / "x.csv", x, delimiter=",")
    np.savetxt(tmp_path / "y.csv", y, delimiter=",")
    train = mx.io.PrefetchingIter(mx.io.CSVIter(data_csv=str(tmp_path / "x.csv"), data_shape=(4,),
                                                label_csv=str(tmp_path / "y.csv"), batch_size=16))
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2), name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(train, num_epoch=20, optimizer_params={"learning_rate": 0.5}, initializer=mx.init.Xavier())
    score = mod.score(mx.io.CSVIter(data_csv=str(tmp_path / "x.csv"), data_shape=(4,),
                                    label_csv=str(tmp_path / "y.csv"), batch_size=16), "acc")
    assert score[0][1] > 0.9
    train.close()


# ---- tools/im2rec.py ------------------------------------------------------------------------------

def _images(folder, n, Image):
    rng = np.random.RandomState(1)
    for i in range(n):
        d = folder / ("class_%d" % (i % 2))
        d.mkdir(parents=True, exist_ok=True)
        img = rng.randint(0, 256, (16 + i, 20, 3)).astype(np.uint8)
        Image.fromarray(img).save(d / ("img%d.%s" % (i, "png" if i % 3 else "jpg")), quality=90)


def _im2rec(*args):
    out = subprocess.run([sys.executable, IM2REC] + [str(a) for a in args], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _records(prefix):
    r = mx.recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "r")
    return {k: mx.recordio.unpack(r.read_idx(k)) for k in r.keys}


def test_im2rec_pack_label_and_pass_through(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    root = tmp_path / "images"
    _images(root, 6, Image)
    files = sorted(str(p.relative_to(root)) for p in root.rglob("img*"))
    lst = tmp_path / "lists" / "multi.lst"
    lst.parent.mkdir()
    lst.write_text("".join("%d\t%d\t%.1f\t%d\t%s\n" % (10 + i, i % 2, 0.5 * i, -i, f) for i, f in enumerate(files)))
    prefix = str(tmp_path / "lists" / "multi")
    _im2rec("--pack-label", "--resize", 12, prefix, root)
    recs = _records(prefix)
    assert sorted(recs) == list(range(10, 16))
    for i, f in enumerate(files):
        header, payload = recs[10 + i]
        assert header.flag == 3 and header.id == 10 + i
        np.testing.assert_array_equal(header.label, [i % 2, 0.5 * i, -i])
        assert min(mx.image.imdecode(payload).shape[:2]) == 12
    # the packed labels load as a label_width=3 batch
    it = mx.image.ImageIter(batch_size=3, data_shape=(3, 12, 12), label_width=3, path_imgrec=prefix + ".rec",
                            path_imgidx=prefix + ".idx")
    np.testing.assert_array_equal(it.next().label[0].asnumpy(), [[i % 2, 0.5 * i, -i] for i in range(3)])
    # without --pack-label only the first label is stored (as MXNet's im2rec)
    _im2rec(prefix, root)
    assert [(h.flag, float(h.label)) for h, _ in _records(prefix).values()] == [(0, i % 2) for i in range(6)]
    # --pass-through: each file's bytes as they are, whatever --resize says
    _im2rec("--pass-through", "--resize", 8, "--num-thread", 2, prefix, root)
    for i, f in enumerate(files):
        header, payload = _records(prefix)[10 + i]
        assert payload == (root / f).read_bytes() and header.label == i % 2


def test_im2rec_chunks_and_worker_processes(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    root = tmp_path / "images"
    _images(root, 10, Image)
    prefix = str(tmp_path / "out" / "ds")
    (tmp_path / "out").mkdir()
    _im2rec("--list", "--recursive", "--chunks", 3, prefix, root)
    lists = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert lists == ["ds_0.lst", "ds_1.lst", "ds_2.lst"]
    lines = [open(tmp_path / "out" / name).read().splitlines() for name in lists]
    assert [len(part) for part in lines] == [4, 4, 2]  # ceil(10 / 3) per part, as MXNet's tool
    entries = [line.split("\t") for part in lines for line in part]
    assert sorted(int(e[0]) for e in entries) == list(range(10))  # the listing's indices, shuffled
    assert sorted(e[2] for e in entries) == sorted(str(p.relative_to(root)) for p in root.rglob("img*"))
    out = _im2rec("--num-thread", 2, "--resize", 14, prefix, root)
    assert out.count("with 2 worker processes") == 3
    for name, part in zip(lists, lines):
        recs = _records(str(tmp_path / "out" / name[:-4]))
        assert sorted(recs) == sorted(int(line.split("\t")[0]) for line in part)
    # the worker processes give the same files as one process, in the list's order
    one = tmp_path / "one"
    one.mkdir()
    (one / "ds.lst").write_text("".join(line + "\n" for part in lines for line in part))
    two = tmp_path / "two"
    two.mkdir()
    (two / "ds.lst").write_text((one / "ds.lst").read_text())
    assert "with 1 worker process\n" in _im2rec("--resize", 14, "--quality", 90, one / "ds", root)
    assert "with 3 worker processes" in _im2rec("--resize", 14, "--quality", 90, "--num-thread", 3, two / "ds", root)
    assert (one / "ds.rec").read_bytes() == (two / "ds.rec").read_bytes()
    assert (one / "ds.idx").read_text() == (two / "ds.idx").read_text()
    # a missing image in a worker is the usual one-line error, and nothing is written
    os.remove(root / entries[5][2])
    (tmp_path / "three").mkdir()
    (tmp_path / "three" / "ds.lst").write_text((one / "ds.lst").read_text())
    out = subprocess.run([sys.executable, IM2REC, "--num-thread", "2", str(tmp_path / "three" / "ds"), str(root)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode != 0 and "cannot read image" in out.stderr and entries[5][2] in out.stderr, out.stderr
    assert not (tmp_path / "three" / "ds.rec").exists()
    out = subprocess.run([sys.executable, IM2REC, "--list", "--recursive", "--chunks", "11", prefix, str(root)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and out.stderr.strip() == "--chunks 11: must be between 1 and the number of images (9)"
