"""mx.contrib.text as MXNet 1.9.1's: count_tokens_from_str, Vocabulary's index order (unknown,
reserved, then by falling frequency with ties alphabetical; most_freq_count and min_freq),
CustomEmbedding from a local file (unknown vector, header and duplicate lines skipped), an
embedding over a vocabulary, CompositeEmbedding, update_token_vectors; GloVe/FastText list
MXNet's pretrained files and, offline, fail with gluon.utils.download's error."""
import collections

import numpy as np
import pytest

import symnet as mx
from symnet.contrib import text


def test_count_and_vocabulary():
    cnt = text.utils.count_tokens_from_str(" Life is great ! \n life is good . \n", to_lower=True)
    assert cnt == collections.Counter({"life": 2, "is": 2, "great": 1, "!": 1, "good": 1, ".": 1})
    v = text.vocab.Vocabulary(cnt, most_freq_count=3, reserved_tokens=["<pad>"])
    # the cap counts <unk> and <pad>: 3 counter tokens fit
    assert v.idx_to_token == ["<unk>", "<pad>", "is", "life", "!"]
    assert v.to_indices(["life", "zzz"]) == [3, 0] and v.to_tokens(2) == "is"
    v2 = text.vocab.Vocabulary(cnt, min_freq=2, unknown_token="is")
    assert v2.idx_to_token == ["is", "life"]
    with pytest.raises(ValueError):
        v.to_tokens(5)
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(cnt, reserved_tokens=["<unk>"])


def test_custom_and_composite_embedding(tmp_path):
    f = tmp_path / "e.vec"
    f.write_text("header 2\na 0.1 0.2\nb 0.3 0.4\n<unk> 1 1\na 9 9\n")
    with pytest.warns(UserWarning):
        e = text.embedding.CustomEmbedding(str(f))
    assert e.idx_to_token == ["<unk>", "a", "b"] and e.vec_len == 2
    np.testing.assert_allclose(e.idx_to_vec.asnumpy(), [[1, 1], [0.1, 0.2], [0.3, 0.4]], rtol=1e-6)
    np.testing.assert_allclose(e.get_vecs_by_tokens(["B", "a"], lower_case_backup=True).asnumpy(),
                               [[0.3, 0.4], [0.1, 0.2]], rtol=1e-6)
    voc = text.vocab.Vocabulary(collections.Counter(["b", "c", "c"]))
    with pytest.warns(UserWarning):
        ev = text.embedding.CustomEmbedding(str(f), vocabulary=voc)
    assert ev.idx_to_token == ["<unk>", "c", "b"]
    np.testing.assert_allclose(ev.idx_to_vec.asnumpy(), [[1, 1], [1, 1], [0.3, 0.4]], rtol=1e-6)
    comp = text.embedding.CompositeEmbedding(voc, [e, ev])
    assert comp.vec_len == 4
    np.testing.assert_allclose(comp.idx_to_vec.asnumpy()[2], [0.3, 0.4, 0.3, 0.4], rtol=1e-6)
    e.update_token_vectors("a", mx.nd.array([5, 6]))
    np.testing.assert_allclose(e.get_vecs_by_tokens("a").asnumpy(), [5, 6])
    with pytest.raises(ValueError):
        e.update_token_vectors("zzz", mx.nd.array([5, 6]))


def test_pretrained_names_and_offline_error(tmp_path, monkeypatch):
    assert len(text.embedding.get_pretrained_file_names("fasttext")) == 327
    assert len(text.embedding.get_pretrained_file_names()["glove"]) == 10
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names("unknown$$")
    with pytest.raises(KeyError):
        text.embedding.GloVe(pretrained_file_name="nope.txt")
    assert text.embedding.GloVe._get_download_file_name("glove.6B.50d.txt") == "glove.6B.zip"
    calls = []

    def offline(url, path=None, sha1_hash=None, **kw):
        calls.append((url, path, sha1_hash))
        raise RuntimeError("Failed downloading url %s" % url)

    monkeypatch.setattr(mx.gluon.utils, "download", offline)
    with pytest.raises(RuntimeError, match="glove.6B.zip"):
        text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt",
                              embedding_root=str(tmp_path))
    url, path, sha1 = calls[0]
    assert url.endswith("gluon/embeddings/glove/glove.6B.zip")
    assert path == str(tmp_path / "glove" / "glove.6B.zip") and len(sha1) == 40
