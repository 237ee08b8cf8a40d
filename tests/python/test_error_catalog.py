"""The bad inputs of docs/errors.md that are not about files: wrong batch shapes, labels that are
not class indices (in training and in scoring), NaN/Inf with AMP, type mismatches, bad attribute
values in JSON, a GPU context without a GPU, and the smaller API misuses. Each test pins the
message a user gets (its row in docs/errors.md quotes it)."""
import json
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import symnet as mx
from test_bad_training_input import amp_module, mlp


def bound_module(batch=4, features=5, for_training=True):
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    mod.bind([("data", (batch, features))], [("softmax_label", (batch,))], for_training=for_training)
    mod.init_params(mx.init.Xavier())
    if for_training:
        mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
    return mod


def batch(data, label=None):
    return mx.io.DataBatch([mx.nd.array(data)], None if label is None else [mx.nd.array(label)])


# ---- wrong batch shapes -----------------------------------------------------------------------
def test_another_batch_size_binds_again_as_mxnet_does(caplog):
    """A smaller (last) batch is what MXNet's Module.forward reshapes for; the weights carry over
    and training goes on at the bound size afterwards."""
    mod = bound_module()
    w = mod.get_params()[0]["fc_weight"].asnumpy()
    with caplog.at_level(logging.INFO):
        mod.forward(batch(np.ones((2, 5))), is_train=False)
    assert mod.get_outputs()[0].shape == (2, 3)
    assert "binding again for the batch's shapes [(2, 5)] (bound for [(4, 5)])" in caplog.text
    np.testing.assert_array_equal(mod.get_params()[0]["fc_weight"].asnumpy(), w)
    mod.forward_backward(batch(np.ones((4, 5)), np.zeros(4)))
    assert mod.update() and mod.get_outputs()[0].shape == (4, 3)


def test_a_batch_of_other_features_is_an_error_naming_the_weight():
    """Wider rows than the bound ones need a weight of another shape: an error naming it, and the
    module stays usable at its bound shape."""
    mod = bound_module()
    with pytest.raises(mx.MXNetError, match=r"inputs of shapes \[\(4, 7\)\] need parameter 'fc_weight' "
                                            r"of shape \(3, 7\), but the module's is \(3, 5\) \(it was "
                                            r"bound for \[\(4, 5\)\]\)"):
        mod.forward_backward(batch(np.ones((4, 7)), np.zeros(4)))
    mod.forward_backward(batch(np.ones((4, 5)), np.zeros(4)))
    assert mod.update()


def test_a_batch_with_too_many_data_arrays_is_an_error():
    mod = bound_module()
    two = mx.io.DataBatch([mx.nd.ones((4, 5)), mx.nd.ones((4, 5))], [mx.nd.zeros(4)])
    with pytest.raises(mx.MXNetError, match=r"the batch has 2 data arrays, the module takes 1 \(data\)"):
        mod.forward(two)


def test_labels_of_another_shape_fail_at_bind_naming_the_input():
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    with pytest.raises(mx.MXNetError, match=r"shape mismatch in node 'softmax' \(operator SoftmaxOutput\) "
                                            r"for input 'label' \(variable 'softmax_label'\): it has shape "
                                            r"\(4, 2\) but the operator expects \(4,\)"):
        mod.bind([("data", (4, 5))], [("softmax_label", (4, 2))])


def test_labels_of_the_data_shape_are_class_probabilities():
    """(N, classes) labels are soft labels, as SoftmaxOutput documents: the gradient is
    softmax - label, so a one-hot label trains like its class index."""
    x = np.random.RandomState(0).normal(size=(4, 3)).astype(np.float32)
    grads = []
    for label in (np.eye(3, dtype=np.float32)[[0, 2, 1, 0]], np.array([0, 2, 1, 0], np.float32)):
        exe = mx.sym.SoftmaxOutput(mx.sym.var("data"), name="softmax").simple_bind(
            mx.cpu(), data=(4, 3), softmax_label=label.shape)
        exe.arg_dict["data"][:] = x
        exe.arg_dict["softmax_label"][:] = label
        exe.forward(is_train=True)
        exe.backward()
        grads.append(exe.grad_dict["data"].asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


def test_two_dimensional_data_for_a_convolution_fails_at_bind():
    conv = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=2, name="conv")
    with pytest.raises(mx.MXNetError, match=r"Convolution.*4 dims"):
        conv.simple_bind(mx.cpu(), data=(4, 5))


def test_data_and_labels_of_different_lengths():
    # fewer labels than samples: an error (MXNet 1.9.1 accepts it and serves short batches);
    # more labels than samples are MXNet's case of test_loss.test_sample_weight_loss: accepted
    with pytest.raises(ValueError, match=r"data and labels must have at least as many samples as "
                                         r"the first data array 'data' \(12\): 'softmax_label' has 8"):
        mx.io.NDArrayIter(np.zeros((12, 4)), np.zeros(8), batch_size=4)
    assert next(iter(mx.io.NDArrayIter(np.zeros((8, 4)), np.zeros(12), batch_size=4))).label[0].shape == (4,)


# ---- labels that are not class indices ----------------------------------------------------------
def test_a_fractional_label_is_an_error_in_training():
    x = np.random.RandomState(0).normal(size=(8, 5)).astype(np.float32)
    y = np.array([0, 1, 2, 0, 2.5, 1, 0, 2], np.float32)
    mod = mx.mod.Module(mlp(), context=mx.cpu())
    # SoftmaxOutput truncates it (as MXNet); the metric of fit refuses it
    with pytest.raises(mx.MXNetError, match=r"metric accuracy: label 2\.5 at batch position 4 is not a "
                                            r"whole number"):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=1)
    with pytest.raises(mx.MXNetError, match=r"softmax_cross_entropy: label 2\.5 of sample 0 is not a "
                                            r"whole number"):
        mx.nd.softmax_cross_entropy(mx.nd.ones((1, 3)), mx.nd.array([2.5]))


@pytest.mark.parametrize("label", [-1, 3, 7])
def test_imperative_softmax_cross_entropy_checks_labels(label):
    with pytest.raises(mx.MXNetError, match=r"operator softmax_cross_entropy: softmax_cross_entropy: "
                                            r"label %d of sample 0 is outside \[0, 3\), the number of "
                                            r"classes" % label):
        mx.nd.softmax_cross_entropy(mx.nd.ones((1, 3)), mx.nd.array([label]))


@pytest.mark.parametrize("metric", ["acc", "ce", "top_k_accuracy"])
def test_score_checks_labels_like_training(metric):
    """Without a backward pass (score) the operator does not see the labels; the metric checks
    them instead of counting a row wrong (acc) or failing inside numpy (ce)."""
    mod = bound_module(for_training=False)
    it = mx.io.NDArrayIter(np.ones((4, 5), np.float32), np.array([0, 1, 7, 2], np.float32), batch_size=4)
    with pytest.raises(mx.MXNetError, match=r"metric .*: label 7 at batch position 2 is outside "
                                            r"\[0, 3\), the number of classes"):
        mod.score(it, metric)
    it = mx.io.NDArrayIter(np.ones((4, 5), np.float32), np.array([0, 1.5, 1, 2], np.float32), batch_size=4)
    with pytest.raises(mx.MXNetError, match=r"label 1\.5 at batch position 1 is not a whole number"):
        mod.score(it, metric)


def test_predict_does_not_need_labels():
    mod = bound_module(for_training=False)
    out = mod.predict(mx.io.NDArrayIter(np.ones((6, 5), np.float32), batch_size=4))
    assert out.shape == (6, 3)


# ---- NaN/Inf with AMP, and in scoring -----------------------------------------------------------
def test_amp_overflow_skip_is_logged_at_info_and_update_says_false(caplog):
    mod = amp_module(5)
    scale = mod.loss_scale
    x = np.ones((16, 5), np.float32)
    x[:8] = np.inf
    with caplog.at_level(logging.INFO):
        mod.fit(mx.io.NDArrayIter(x, np.zeros(16, np.float32), batch_size=8), num_epoch=1)
    assert "Epoch[0] Batch [1]: gradients overflowed; update skipped, loss scale now %g" % (scale / 2) \
        in caplog.text
    assert not any(r.levelno >= logging.WARNING and "skipped" in r.getMessage() for r in caplog.records)
    mod.forward_backward(batch(np.full((8, 5), np.nan, np.float32), np.zeros(8)))
    assert mod.update() is False  # called directly: the return value tells


def test_score_on_nan_data_warns(caplog):
    mod = bound_module(for_training=False)
    x = np.ones((8, 5), np.float32)
    x[5, 2] = np.nan
    with caplog.at_level(logging.WARNING):
        res = mod.score(mx.io.NDArrayIter(x, np.zeros(8, np.float32), batch_size=4), "acc")
    assert "score: 1 batch(es) gave NaN/Inf outputs" in caplog.text
    assert res[0][0] == "accuracy"


# ---- types, attributes -------------------------------------------------------------------------
def test_type_mismatches_from_python():
    m, n = mx.sym.var("m"), mx.sym.var("n")
    with pytest.raises(mx.MXNetError, match=r"dtype mismatch in node '_plus\d+'"):
        (m + n).infer_type(m="float32", n="float16")
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    with pytest.raises(mx.MXNetError, match=r"dtype mismatch in node 'fc' \(operator FullyConnected\) for "
                                            r"input 'data' \(variable 'data'\): it has dtype float16 but "
                                            r"the operator expects float32"):
        fc.simple_bind(mx.cpu(), data=(2, 4), type_dict={"data": "float16", "fc_weight": "float32"})
    with pytest.raises(mx.MXNetError, match=r"operator elemwise_add: input 0 has float16 but the "
                                            r"operator expects float32"):
        mx.nd.elemwise_add(mx.nd.ones((2,), dtype="float16"), mx.nd.ones((2,)))


def test_bad_attribute_value_inside_symbol_json():
    act = mx.sym.Activation(mx.sym.var("x"), act_type="relu", name="a")
    doc = json.loads(act.tojson())
    doc["nodes"][1]["attrs"]["act_type"] = "rellu"
    with pytest.raises(mx.MXNetError, match=r"operator Activation \(node 'a'\): Invalid Input: 'rellu', "
                                            r"valid values are: \{.*'relu'.*\}"):
        mx.sym.load_json(json.dumps(doc))


# ---- devices -------------------------------------------------------------------------------------
@pytest.mark.skipif(mx.context.num_gpus() > 0, reason="needs a machine without a GPU")
def test_gpu_context_without_a_gpu_through_module_and_bind():
    # a build without CUDA (the sanitizer step's) says so instead
    no_gpu = r"cannot use gpu\(0\): no CUDA device on this machine|gpu\(0\): symnet was built without CUDA"
    with pytest.raises(mx.MXNetError, match=no_gpu):
        mx.mod.Module(mlp(), context=mx.gpu(0)).bind([("data", (4, 5))], [("softmax_label", (4,))])
    with pytest.raises(mx.MXNetError, match=no_gpu):
        mlp().simple_bind(mx.gpu(0), data=(4, 5))


@pytest.mark.skipif(mx.context.num_gpus() > 0, reason="needs a machine without a GPU")
def test_resnet50_example_with_gpus_but_no_gpu_exits_1():
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    r = subprocess.run([sys.executable, os.path.join(root, "example", "resnet50", "train.py"), "--gpus", "0"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "--gpus 0: symnet sees 0 GPU(s) (see docs/gpu.md)" in r.stderr + r.stdout


# ---- smaller API misuses -------------------------------------------------------------------------
def test_bind_with_too_few_arrays():
    with pytest.raises(mx.MXNetError, match=r"bind: args has 1 arrays but the symbol has 4"):
        mlp().bind(mx.cpu(), [mx.nd.ones((4, 5))])


def test_simple_bind_without_shapes():
    with pytest.raises(mx.MXNetError, match=r"simple_bind: cannot infer the shapes of data.*give them "
                                            r"explicitly"):
        mlp().simple_bind(mx.cpu())


def test_small_value_errors():
    with pytest.raises(ValueError, match=r"ResNet depth 42 is not one of \[18, 34, 50, 101, 152\]"):
        mx.models.resnet(42)
    with pytest.raises(ValueError, match=r"AMP target dtype must be float16 or bfloat16, not 'float8'"):
        mx.amp.init("float8")
    with pytest.raises(ValueError, match=r"last_batch_handle must be 'pad', 'discard' or 'roll_over'"):
        mx.io.NDArrayIter(np.zeros((4, 2)), batch_size=2, last_batch_handle="keep")


def test_set_params_of_another_model_names_the_parameter():
    mod = bound_module()
    args, auxs = mod.get_params()
    wrong = dict(args, fc_weight=mx.nd.ones((3, 7)))
    with pytest.raises(mx.MXNetError, match=r"parameter 'fc_weight' has shape \(3, 7\), but the network "
                                            r"needs \(3, 5\)"):
        mod.set_params(wrong, auxs)
    # a (3, 1) array would have broadcast silently before
    with pytest.raises(mx.MXNetError, match=r"parameter 'fc_weight' has shape \(3, 1\)"):
        mod.set_params(dict(args, fc_weight=mx.nd.ones((3, 1))), auxs)
    missing = {k: v for k, v in args.items() if k != "fc_bias"}
    with pytest.raises(RuntimeError, match=r"fc_bias is not presented"):
        mod.set_params(missing, auxs)
