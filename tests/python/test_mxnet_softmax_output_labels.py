"""SoftmaxOutput with class labels outside [0, classes): MXNet 1.9.1 takes them without an error
(bucketing pads its label sequences with -1) and their rows get the plain softmax as gradient,
since such a label matches no class; fractional labels truncate toward zero."""
import numpy as np
import pytest

import symnet as mx


def reference_grad(x, label, use_ignore=False, ignore_label=-1.0, smooth_alpha=0.0, valid=False):
    """NumPy form of MXNet 1.9.1's CPU gradient for 2-D data and one label per row."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)
    n = x.shape[1]
    target = np.full(x.shape, smooth_alpha / (n - 1))
    for r, lab in enumerate(label):
        if -1 < lab < n:  # inside the classes after truncation toward zero
            target[r, int(lab)] = 1 - smooth_alpha
    g = y - target
    if use_ignore:
        g[label == ignore_label] = 0
    if valid:
        g /= max(np.sum(label != ignore_label), 1)
    return y, g


@pytest.mark.parametrize("label", [[0, 5, -1, 3], [1.5, -0.5, -2, 2], [np.nan, 1, 7, -1]])
@pytest.mark.parametrize("kw", [{}, {"use_ignore": True, "ignore_label": -1}, {"use_ignore": True, "ignore_label": 5},
                                {"normalization": "valid"}, {"smooth_alpha": 0.3},
                                {"normalization": "valid", "use_ignore": True}])
def test_labels_outside_the_classes_give_the_plain_softmax_as_gradient(label, kw):
    x = np.random.RandomState(0).normal(size=(4, 3)).astype(np.float32)
    label = np.array(label, np.float32)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("data"), mx.sym.var("label"), **kw)
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array(x), "label": mx.nd.array(label)},
                   args_grad={"data": mx.nd.zeros((4, 3))})
    exe.forward(is_train=True)
    exe.backward()
    y, g = reference_grad(x.astype(np.float64), label, kw.get("use_ignore", False), kw.get("ignore_label", -1.0),
                          kw.get("smooth_alpha", 0.0), kw.get("normalization") == "valid")
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), g, rtol=1e-5, atol=1e-6)


def test_multi_output_padding_labels_and_training_with_them():
    """Per position as per row; and Module.fit trains on -1 padded labels (bucketing's case)."""
    x = np.random.RandomState(1).normal(size=(2, 3, 4)).astype(np.float32)
    label = np.array([[0, 5, -1, 2], [1, 1, 7, -3]], np.float32)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("data"), mx.sym.var("label"), multi_output=True)
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array(x), "label": mx.nd.array(label)},
                   args_grad={"data": mx.nd.zeros(x.shape)})
    exe.forward(is_train=True)
    exe.backward()
    flat = x.transpose(0, 2, 1).reshape(-1, 3).astype(np.float64)
    _, g = reference_grad(flat, label.reshape(-1))
    g = g.reshape(2, 4, 3).transpose(0, 2, 1) / 4  # "null" divides by the positions per sample
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), g, rtol=1e-5, atol=1e-6)

    rng = np.random.RandomState(0)
    xs, ys = rng.normal(size=(16, 4)).astype(np.float32), rng.randint(0, 3, 16).astype(np.float32)
    ys[::4] = -1
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(fc, name="softmax"), context=mx.cpu())
    # bucketing's metric skips the padding (accuracy would refuse -1 as a class)
    mod.fit(mx.io.NDArrayIter(xs, ys, batch_size=8), num_epoch=1, eval_metric=mx.metric.Perplexity(-1),
            optimizer_params={"learning_rate": 0.1})
    assert all(np.isfinite(v.asnumpy()).all() for v in mod.get_params()[0].values())
