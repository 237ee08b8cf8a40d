"""An LSTM language model (Embedding, the fused RNN op, FullyConnected, SoftmaxOutput) trains through
Module on offline text, and its packed RNN parameters round-trip with MXNet 1.9.1.

The text: the help topics CPython ships in its standard library (`pydoc_data/topics.py`, Debian
package libpython3.X-stdlib, licence PSF-2.0), about 120k tokens; nothing is downloaded. The model
and data code is example/rnn/lstm_lm.py, the script users run."""
import argparse
import importlib.util
import os

import numpy as np
import pytest

import symnet as mx
from test_doc_claims import _np, _run_mxnet

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
_spec = importlib.util.spec_from_file_location("lstm_lm", os.path.join(REPO, "example", "rnn", "lstm_lm.py"))
lstm_lm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lstm_lm)

ARGS = argparse.Namespace(batch_size=32, bptt=35, embed=64, hidden=128, layers=1, dropout=0.0, lr=0.005)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    mx.random.seed(7)
    train, held_out, vocab = lstm_lm.load_corpus()
    x, y = lstm_lm.windows(train, ARGS.bptt)
    vx, vy = lstm_lm.windows(held_out, ARGS.bptt)
    mod = lstm_lm.make_module(mx, len(vocab), ARGS)
    train_iter = mx.io.NDArrayIter(x, y, ARGS.batch_size, shuffle=True, last_batch_handle="discard")
    val_iter = mx.io.NDArrayIter(vx, vy, ARGS.batch_size, last_batch_handle="discard")
    mod.fit(train_iter, num_epoch=2, eval_metric=mx.metric.Perplexity(None))
    ppl = mod.score(val_iter, mx.metric.Perplexity(None))[0][1]
    prefix = str(tmp_path_factory.mktemp("lstm_lm") / "lm")
    mod.save_checkpoint(prefix, 2)
    return dict(mod=mod, ppl=ppl, vocab=vocab, train=train, held_out=held_out, prefix=prefix, vx=vx)


def test_corpus_is_offline_and_large_enough():
    train, held_out, vocab = lstm_lm.load_corpus()
    assert len(train) + len(held_out) >= 100_000
    assert 1000 < len(vocab) < 5000


def test_lstm_lm_held_out_perplexity_falls_well_below_unigram(trained):
    """Two epochs take the held-out perplexity to well under half the unigram model's (measured:
    about 25 against 84)."""
    unigram = lstm_lm.unigram_perplexity(trained["train"], trained["held_out"], len(trained["vocab"]))
    assert trained["ppl"] < 0.5 * unigram, (trained["ppl"], unigram)


# Runs under MXNet 1.9.1: loads symnet's checkpoint (symbol JSON with the RNN node and .params with
# the packed lstm_parameters), predicts a held-out batch, then saves altered parameters for symnet
# to load and predicts with those too.
MXNET_LM = r"""
import json, sys
import numpy as np
import mxnet as mx
prefix, batch_file, out_file = sys.argv[1:4]
sym, args, auxs = mx.model.load_checkpoint(prefix, 2)
data = np.load(batch_file)
def predict(a):
    # a fresh module per parameter set: MXNet's oneDNN RNN keeps the weights it first saw in inference
    mod = mx.mod.Module(sym, data_names=("data",), label_names=("softmax_label",), context=mx.cpu())
    mod.bind(data_shapes=[("data", data.shape)], label_shapes=[("softmax_label", data.shape)], for_training=False)
    mod.set_params(a, auxs)
    mod.forward(mx.io.DataBatch([mx.nd.array(data)], [mx.nd.zeros(data.shape)]), is_train=False)
    return mod.get_outputs()[0].asnumpy()
mine = predict(args)
rng = np.random.RandomState(1)
altered = {k: v * mx.nd.array(rng.uniform(0.8, 1.2, v.shape)) for k, v in args.items()}
mx.nd.save(out_file, {"arg:" + k: v for k, v in altered.items()})
theirs = predict(altered)
def arr(a):
    return {"dtype": str(a.dtype), "shape": list(a.shape), "hex": np.ascontiguousarray(a).tobytes().hex()}
print(json.dumps({"symnet_params": arr(mine), "mxnet_params": arr(theirs)}))
"""


def test_lstm_lm_parameters_round_trip_with_mxnet(trained, tmp_path):
    """MXNet 1.9.1 loads symnet's checkpoint and predicts what symnet predicts; symnet loads the
    parameters MXNet saved and predicts what MXNet predicts (the packed RNN layout both ways)."""
    mod, prefix = trained["mod"], trained["prefix"]
    batch = trained["vx"][:ARGS.batch_size]
    np.save(tmp_path / "batch.npy", batch)
    out = _run_mxnet(MXNET_LM, prefix, tmp_path / "batch.npy", tmp_path / "mxnet.params")

    def predict(arg_params):
        mod.set_params(arg_params, {}, allow_missing=False)
        mod.forward(mx.io.DataBatch([mx.nd.array(batch)], [mx.nd.zeros(batch.shape)]), is_train=False)
        return mod.get_outputs()[0].asnumpy()

    _, arg_params, _ = mx.model.load_checkpoint(prefix, 2)
    assert arg_params["lstm_parameters"].shape == (4 * 128 * (64 + 128 + 2),)
    np.testing.assert_allclose(_np(out["symnet_params"]), predict(arg_params), rtol=1e-4, atol=1e-6)
    loaded = mx.nd.load(str(tmp_path / "mxnet.params"))
    theirs = {k[4:]: v for k, v in loaded.items()}
    assert sorted(theirs) == sorted(arg_params)
    assert not np.allclose(theirs["lstm_parameters"].asnumpy(), arg_params["lstm_parameters"].asnumpy())
    np.testing.assert_allclose(_np(out["mxnet_params"]), predict(theirs), rtol=1e-4, atol=1e-6)
    assert out["symnet_params"]["shape"] == [ARGS.batch_size * ARGS.bptt, len(trained["vocab"])]
