"""mx.gluon.contrib.data as MXNet 1.9.1's: IntervalSampler (its order, len() always `length`,
the assertion on interval > length) and the WikiText2/WikiText103 datasets (vocabulary, token
counts, int32 (data, label) sequences, a given vocabulary) read from token files in root; the
archive fetched through gluon.utils.download from $MXNET_GLUON_REPO and unpacked; offline, an
error naming the archive and the folder to put it in. The expected values are MXNet 1.9.1's,
printed by running the same calls on it (with check_sha1 patched: the files here are small
stand-ins for WikiText's)."""
import io
import os
import zipfile

import numpy as np
import pytest

import symnet as mx
from symnet.gluon import contrib
from symnet.gluon.contrib.data import text as wt

TRAIN = " = Title = \n\n the cat sat on the mat . \n the dog , the cat . \n\n"
TEST = " a cat , a bird . \n the zebra \n"


def test_interval_sampler():
    assert contrib.data.IntervalSampler is contrib.data.sampler.IntervalSampler
    assert list(contrib.data.IntervalSampler(13, 3)) == [0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
    s = contrib.data.IntervalSampler(10, 3, rollover=False)
    assert list(s) == [0, 3, 6, 9] and len(s) == 10  # MXNet's len() is the length, whatever comes
    assert list(contrib.data.IntervalSampler(3, 0)) == []
    with pytest.raises(AssertionError, match="Interval 4 must be smaller than or equal to length 3"):
        contrib.data.IntervalSampler(3, 4)


def _write(root):
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "wiki.train.tokens"), "w") as f:
        f.write(TRAIN)
    with open(os.path.join(root, "wiki.test.tokens"), "w") as f:
        f.write(TEST)


def test_wikitext_from_files(tmp_path, monkeypatch):
    monkeypatch.setattr(wt, "check_sha1", lambda *a: True)
    root = str(tmp_path / "wt")
    _write(root)
    tr = contrib.data.text.WikiText2(root=root, segment="train", seq_len=4)
    assert len(tr) == 4
    assert tr.vocabulary.idx_to_token == ["<unk>", "<eos>", "the", ".", "=", "cat", ",", "Title", "dog", "mat",
                                          "on", "sat"]
    assert sorted(tr.frequencies.items()) == [(",", 1), (".", 2), ("=", 2), ("Title", 1), ("cat", 2), ("dog", 1),
                                              ("mat", 1), ("on", 1), ("sat", 1), ("the", 4)]
    assert tr._data.asnumpy().tolist() == [[4, 7, 4, 1], [2, 5, 11, 10], [2, 9, 3, 1], [2, 8, 6, 2]]
    assert tr._label.asnumpy().tolist() == [[7, 4, 1, 2], [5, 11, 10, 2], [9, 3, 1, 2], [8, 6, 2, 5]]
    assert np.dtype(tr._data.dtype) == np.int32
    d, lab = tr[1]
    assert d.asnumpy().tolist() == [2, 5, 11, 10] and lab.asnumpy().tolist() == [5, 11, 10, 2]
    te = contrib.data.text.WikiText103(root=root, segment="test", vocab=tr.vocabulary, seq_len=3)
    assert len(te) == 3 and te.vocabulary is tr.vocabulary
    assert te._data.asnumpy().tolist() == [[0, 5, 6], [0, 0, 3], [1, 2, 0]]
    assert te._label.asnumpy().tolist() == [[5, 6, 0], [0, 3, 1], [2, 0, 1]]
    assert sorted(te.frequencies.items()) == [(",", 1), (".", 1), ("a", 2), ("bird", 1), ("cat", 1), ("the", 1),
                                              ("zebra", 1)]
    loader = mx.gluon.data.DataLoader(tr, batch_size=2, sampler=contrib.data.IntervalSampler(len(tr), 2))
    assert [b[0].asnumpy().tolist() for b in loader] == [[[4, 7, 4, 1], [2, 9, 3, 1]], [[2, 5, 11, 10], [2, 8, 6, 2]]]


def test_wikitext_downloads_and_unpacks_the_archive(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "gluon" / "dataset" / "wikitext-2").mkdir(parents=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("wikitext-2/", "")
        zf.writestr("wikitext-2/wiki.train.tokens", TRAIN)
        zf.writestr("wikitext-2/wiki.test.tokens", TEST)
    (repo / "gluon" / "dataset" / "wikitext-2" / "wikitext-2-v1.zip").write_bytes(buf.getvalue())
    monkeypatch.setenv("MXNET_GLUON_REPO", repo.as_uri() + "/")
    # the stand-in archive has not WikiText's SHA-1s: accept it (the missing file is fetched)
    monkeypatch.setattr(wt, "check_sha1", lambda *a: True)
    monkeypatch.setattr(mx.gluon.utils, "check_sha1", lambda *a: True)
    root = tmp_path / "new" / "wikitext-2"  # created as MXNet's downloaded datasets do
    tr = contrib.data.text.WikiText2(root=str(root), segment="train", seq_len=4)
    assert len(tr) == 4 and tr._data.asnumpy().tolist()[0] == [4, 7, 4, 1]
    assert sorted(os.listdir(root)) == ["wiki.test.tokens", "wiki.train.tokens", "wikitext-2-v1.zip"]
    assert (root / "wiki.test.tokens").read_text() == TEST


def test_wikitext_offline_error_names_the_archive_and_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_GLUON_REPO", (tmp_path / "no_repo").as_uri() + "/")
    root = str(tmp_path / "wt103")
    with pytest.raises(RuntimeError) as err:
        contrib.data.text.WikiText103(root=root, segment="validation")
    msg = str(err.value)
    assert "WikiText103: wiki.valid.tokens is not in " + root in msg
    assert "Put wikitext-103-v1.zip" in msg and "gluon/dataset/wikitext-103/wikitext-103-v1.zip" in msg
    assert isinstance(err.value.__cause__, RuntimeError)  # gluon.utils.download's own error
