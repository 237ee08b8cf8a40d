"""Bad training input gets a clear error or a reported, harmless skip, never silently wrong
numbers: class labels outside [0, num_classes) raise an error naming the batch position and the
value in softmax_cross_entropy and the metrics (SoftmaxOutput takes them, as MXNet 1.9.1 does:
tests/python/test_mxnet_softmax_output_labels.py); NaN/Inf losses without AMP skip their update
with a warning and stop fit after max_nonfinite_batches in a row, with the weights as they were
before; with AMP they are the loss scaler's overflow skips."""
import logging

import numpy as np
import pytest

import symnet as mx


def mlp(**softmax_kw):
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax", **softmax_kw)


def blobs(n=24, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 3, n)
    x = rng.normal(size=(3, 4))[y] * 3 + rng.normal(size=(n, 4))
    return x.astype(np.float32), y.astype(np.float32)


def test_ignored_labels_are_not_errors():
    exe = mlp(use_ignore=True, ignore_label=-1).simple_bind(mx.cpu(), data=(4, 4))
    exe.arg_dict["data"][:] = np.ones((4, 4))
    exe.arg_dict["softmax_label"][:] = np.array([0, -1, 2, 1])
    exe.forward(is_train=True)
    exe.backward()
    g = exe.grad_dict["fc_weight"].asnumpy()
    assert np.isfinite(g).all()


def test_softmax_cross_entropy_label_outside_the_classes():
    sym = mx.sym.softmax_cross_entropy(mx.sym.var("x"), mx.sym.var("y"))
    exe = sym.simple_bind(mx.cpu(), x=(3, 4), y=(3,))
    exe.arg_dict["y"][:] = np.array([1, 4, 0])
    with pytest.raises(mx.MXNetError, match="label 4 of sample 1"):
        exe.forward()


def test_fit_with_bad_labels_stops_with_the_error():
    x, y = blobs()
    y[5] = 3  # 3 classes: labels 0..2
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    with pytest.raises(mx.MXNetError, match=r"metric accuracy: label 3 at batch position 5"):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=1)


def trained_module():
    x, y = blobs()
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=1, initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1})
    return mod


def test_nan_data_without_amp_stops_fit_and_keeps_the_weights(caplog):
    mod = trained_module()
    before = {k: v.asnumpy().copy() for k, v in mod.get_params()[0].items()}
    x, y = blobs(seed=1)
    x[:] = np.nan
    with caplog.at_level(logging.WARNING):
        with pytest.raises(mx.MXNetError, match=r"training stopped at epoch 0, batch 2: 2 batches in a row "
                                                r"had NaN/Inf loss.*max_nonfinite_batches=2"):
            mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=1, max_nonfinite_batches=2)
    assert "NaN/Inf; update skipped (1 such batches in a row)" in caplog.text
    for k, v in mod.get_params()[0].items():  # nothing of the bad batches reached the weights
        np.testing.assert_array_equal(v.asnumpy(), before[k])
    # a new fit counts afresh
    with pytest.raises(mx.MXNetError, match=r"at epoch 0, batch 2: 2 batches in a row"):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=1, max_nonfinite_batches=2)


def test_an_isolated_inf_batch_is_skipped_and_training_goes_on(caplog):
    x, y = blobs(48)
    x[8:16] = np.inf  # the second of six batches
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    with caplog.at_level(logging.WARNING):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=2, initializer=mx.init.Xavier(),
                optimizer_params={"learning_rate": 0.1})
    assert caplog.text.count("update skipped") == 2  # once per epoch
    assert mod.num_skipped_updates == 2
    assert all(np.isfinite(v.asnumpy()).all() for v in mod.get_params()[0].values())


def amp_module(features):
    """The mlp bound for batches of 8 under bfloat16 AMP, with dynamic loss scaling."""
    mx.amp.init("bfloat16")
    try:
        mod = mx.mod.Module(mlp(), context=mx.cpu())
        mod.bind([("data", (8, features))], [("softmax_label", (8,))])
    finally:
        mx.amp.shutdown()
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
    mx.amp.init_trainer(mod)
    return mod


def test_nan_data_with_amp_is_an_overflow_skip():
    x, y = blobs()
    x[8:16] = np.nan
    mod = amp_module(4)
    scale = mod.loss_scale
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=1)
    assert mod.num_skipped_updates == 1 and mod.loss_scale == scale / 2
    assert all(np.isfinite(v.asnumpy()).all() for v in mod.get_params()[0].values())


def test_batch_larger_than_the_data_set_is_padded_to_full_size():
    x, y = blobs(10)
    it = mx.io.NDArrayIter(x, y, batch_size=32)
    batches = list(it)
    assert len(batches) == 1 and batches[0].pad == 22
    assert batches[0].data[0].shape == (32, 4) == it.provide_data[0].shape
    np.testing.assert_array_equal(batches[0].data[0].asnumpy()[10:20], x)  # wrapped around
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=32), num_epoch=1)  # trains on the padded batch


def test_empty_data_set_and_epochs_without_batches_are_errors():
    with pytest.raises(ValueError, match="the data set is empty"):
        mx.io.NDArrayIter(np.zeros((0, 4)), np.zeros((0,)), batch_size=2)
    x, y = blobs(10)
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    with pytest.raises(mx.MXNetError, match="epoch 0: the training data gave no batches"):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=32, last_batch_handle="roll_over"), num_epoch=1)


def test_optimizer_states_of_another_model_are_a_clear_error(tmp_path):
    x, y = blobs()
    mod = trained_module()
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, force_init=True)
    mod.forward_backward(next(iter(mx.io.NDArrayIter(x, y, batch_size=8))))
    mod.update()
    states = str(tmp_path / "a.states")
    mod.save_optimizer_states(states)

    other = mx.mod.Module(mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                                               name="softmax"), context=mx.cpu())
    other.bind([("data", (8, 6))], [("softmax_label", (8,))])  # 6 features: another weight shape
    other.init_params()
    other.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    with pytest.raises(mx.MXNetError, match=r"a\.states': the state of parameter 'fc_weight' has shape "
                                            r"\(3, 4\), the network's weight needs \(3, 6\)"):
        other.load_optimizer_states(states)
    adam = mx.mod.Module(mlp(), context=mx.cpu())
    adam.bind([("data", (8, 4))], [("softmax_label", (8,))])
    adam.init_params()
    adam.init_optimizer(optimizer="adam")
    with pytest.raises(mx.MXNetError, match=r"'fc_weight' has 1 saved state array\(s\), optimizer Adam needs 2"):
        adam.load_optimizer_states(states)
