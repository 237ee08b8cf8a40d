"""Acceptance: an MXNet-style script (sym.var / FullyConnected / Activation / SoftmaxOutput,
simple_bind, forward, backward, arg_dict, grad_dict, outputs[0].asnumpy(), a hand-written SGD
loop) trains the scikit-learn digits MLP to >= 95% held-out accuracy."""
import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

import symnet as mx  # noqa: E402


def test_mlp_trains_on_digits_to_95_percent():
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.float32)
    order = np.random.RandomState(0).permutation(len(x))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:1400], y[:1400], x[1400:], y[1400:]

    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=128, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=64, name="fc2")
    net = mx.sym.Activation(net, act_type="relu", name="relu2")
    net = mx.sym.FullyConnected(net, num_hidden=10, name="fc3")
    net = mx.sym.SoftmaxOutput(net, name="softmax")

    batch = 50
    exe = net.simple_bind(mx.cpu(), data=(batch, 64))
    rng = np.random.RandomState(1)
    params = [n for n in net.list_arguments() if n not in ("data", "softmax_label")]
    for n in params:
        shape = exe.arg_dict[n].shape
        exe.arg_dict[n][:] = rng.normal(0, 0.1, shape) if n.endswith("weight") else 0
    lr = 0.5
    for epoch in range(20):
        perm = rng.permutation(len(x_train))
        for b in range(len(x_train) // batch):
            idx = perm[b * batch:(b + 1) * batch]
            exe.arg_dict["data"][:] = x_train[idx]
            exe.arg_dict["softmax_label"][:] = y_train[idx]
            exe.forward(is_train=True)
            exe.backward()
            for n in params:  # plain SGD, by hand
                exe.arg_dict[n][:] = exe.arg_dict[n].asnumpy() - lr / batch * exe.grad_dict[n].asnumpy()
    correct = 0
    for b in range(0, len(x_test) - batch + 1, batch):
        exe.arg_dict["data"][:] = x_test[b:b + batch]
        exe.forward(is_train=False)
        correct += (exe.outputs[0].asnumpy().argmax(1) == y_test[b:b + batch]).sum()
    acc = correct / (len(x_test) // batch * batch)
    assert acc >= 0.95, acc
