"""mx.model.FeedForward (MXNet's legacy model API) trains a tiny MLP as MXNet 1.9.1 does: the
same callbacks (batch numbers from 1, epoch ends), log lines, validation accuracy and predictions
(MXNet 1.9.1's values for the same script below), epoch_size reading on across epochs,
predict/score/save/load/create; mx.model.BatchEndParam is callback's."""
import logging
import os
import warnings

import numpy as np
import pytest

import symnet as mx


def _problem():
    rng = np.random.RandomState(0)
    x = rng.randn(100, 4).astype("float32")
    y = (x[:, 0] - x[:, 2] > 0).astype("float32")
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=2, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    r = np.random.RandomState(1)
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(10, 4))[0]))
    args = {k: mx.nd.array(r.uniform(-0.5, 0.5, shapes[k])) for k in sorted(shapes)
            if k not in ("data", "softmax_label")}
    return x, y, net, args


def _model(net, args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return mx.model.FeedForward(net, optimizer="sgd", learning_rate=0.5, numpy_batch_size=20,
                                    arg_params=args, **kw)


def test_fit_predict_score_as_mxnet(tmp_path, caplog):
    x, y, net, args = _problem()
    seen = []
    model = _model(net, args, num_epoch=4)
    with caplog.at_level(logging.INFO):
        model.fit(mx.io.NDArrayIter(x, y, batch_size=20), eval_data=(x[:40], y[:40]),
                  batch_end_callback=lambda p: seen.append(p.nbatch),
                  epoch_end_callback=lambda e, s, a, b: seen.append(("E", e)))
    assert seen == [1, 2, 3, 4, 5, ("E", 0)] + [1, 2, 3, 4, 5, ("E", 1)] + \
        [1, 2, 3, 4, 5, ("E", 2)] + [1, 2, 3, 4, 5, ("E", 3)]
    msgs = [r.getMessage() for r in caplog.records]
    assert msgs[0] == "Start training with [cpu(0)]"
    assert msgs[1:3] == ["Epoch[0] Resetting Data Iterator", msgs[2]]
    assert msgs[2].startswith("Epoch[0] Time cost=")
    # MXNet 1.9.1: 0.925 after the second epoch, 0.975 after the last
    assert "Epoch[1] Validation-accuracy=0.925000" in msgs
    assert msgs[-1] == "Epoch[3] Validation-accuracy=0.975000"
    p = model.predict(x)
    assert p.shape == (100, 2)
    np.testing.assert_allclose(p[0], [0.0914, 0.9086], atol=2e-4)  # MXNet 1.9.1's
    assert model.score(mx.io.NDArrayIter(x, y, batch_size=30)) == 0.975
    out, d, lab = model.predict(mx.io.NDArrayIter(x, y, batch_size=30), return_data=True)
    assert out.shape == (100, 2) and lab.shape == (100,)  # the last batch's pad dropped
    np.testing.assert_array_equal(d, x)
    model.save(str(tmp_path / "ff"))
    assert sorted(os.listdir(tmp_path)) == ["ff-0004.params", "ff-symbol.json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loaded = mx.model.FeedForward.load(str(tmp_path / "ff"), 4)
    assert loaded.begin_epoch == 4
    np.testing.assert_allclose(loaded.predict(x), p, atol=1e-6)


def test_epoch_size_reads_on_across_epochs():
    x, y, net, args = _problem()
    seen = []
    model = _model(net, args, num_epoch=2, epoch_size=3)
    model.fit(mx.io.NDArrayIter(x, y, batch_size=20), batch_end_callback=lambda p: seen.append(p.nbatch))
    assert seen == [1, 2, 3, 1, 2, 3]
    # MXNet 1.9.1's bias after batches 1-3, then 4, 5 and (after a reset) 1 of the data
    np.testing.assert_allclose(model.arg_params["fc2_bias"].asnumpy(), [0.2997, 0.4373], atol=2e-4)


def test_create_with_mixed_initializer_and_checks():
    x, y, net, _ = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        init = mx.init.Mixed([".*bias", ".*"], [mx.init.Zero(), mx.init.Orthogonal()])
        model = mx.model.FeedForward.create(net, x, y, num_epoch=1, initializer=init,
                                            learning_rate=0.1)
        assert sorted(model.arg_params) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
        assert model.predict(x).shape == (100, 2)
        with pytest.raises(ValueError):  # training needs labels
            model.fit(x)
        with pytest.warns(DeprecationWarning):
            mx.model.FeedForward(net)
    assert mx.model.BatchEndParam is mx.callback.BatchEndParam
