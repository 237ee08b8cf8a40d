"""mx.autograd: recording, backward through every op's FGradient, grad(), Function."""
import numpy as np
import pytest

import symnet as mx
from symnet import autograd, nd


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        a, b = x.copy(), x.copy()
        a[i] += eps
        b[i] -= eps
        g[i] = (f(a) - f(b)) / (2 * eps)
    return g


# (name, symnet function of one float64 NDArray, the same in numpy)
UNARY = [
    ("square_plus", lambda x: x * x + 2 * x, lambda x: x * x + 2 * x),
    ("exp", nd.exp, np.exp),
    ("tanh", nd.tanh, np.tanh),
    ("sigmoid", nd.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    ("softmax", lambda x: nd.softmax(x, axis=-1),
     lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    ("log_softmax", lambda x: nd.log_softmax(x, axis=1),
     lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
    ("sum_axis", lambda x: nd.sum(x, axis=0), lambda x: x.sum(0)),
    ("transpose", lambda x: nd.transpose(x), lambda x: x.T),
    ("slice_cols", lambda x: x[:, 1:3], lambda x: x[:, 1:3]),
    ("index_row", lambda x: x[1], lambda x: x[1]),
    ("negative_step", lambda x: x[::-1, ::2], lambda x: x[::-1, ::2]),
    ("reshape", lambda x: x.reshape((4, 3)) * 3, lambda x: x.reshape(4, 3) * 3),
    ("div", lambda x: 1.0 / (x * x + 1), lambda x: 1.0 / (x * x + 1)),
]


@pytest.mark.parametrize("name,f,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradient_matches_finite_differences(name, f, ref):
    rng = np.random.RandomState(0)
    x0 = rng.uniform(-1, 1, (3, 4))
    w = rng.uniform(-1, 1, ref(x0).shape)  # a random head gradient
    x = nd.array(x0, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = f(x)
    np.testing.assert_allclose(y.asnumpy(), ref(x0), rtol=1e-10, atol=1e-12)
    y.backward(nd.array(w, dtype="float64"))
    expected = _numeric_grad(lambda v: (ref(v) * w).sum(), x0)
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6, atol=1e-8)


def test_layer_gradients_match_the_executor():
    """FullyConnected + BatchNorm (training) + relu + SoftmaxOutput: the tape's gradients equal
    those of a bound executor of the same graph."""
    rng = np.random.RandomState(1)
    vals = {"data": rng.randn(6, 5), "fc_weight": rng.randn(4, 5), "fc_bias": rng.randn(4),
            "bn_gamma": rng.rand(4) + 0.5, "bn_beta": rng.randn(4)}
    label = np.array([0, 1, 2, 3, 1, 2], dtype=np.float64)
    data = mx.sym.var("data")
    s = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    s = mx.sym.BatchNorm(s, fix_gamma=False, name="bn")
    s = mx.sym.SoftmaxOutput(mx.sym.relu(s), name="softmax")
    exe = s.simple_bind(mx.cpu(), type_dict={k: "float64" for k in
                                             s.list_arguments() + s.list_auxiliary_states()},
                        data=(6, 5), softmax_label=(6,))
    for k, v in vals.items():
        exe.arg_dict[k][:] = v
    exe.arg_dict["softmax_label"][:] = label
    exe.aux_dict["bn_moving_var"][:] = 1
    exe.forward(is_train=True)
    exe.backward()

    arrs = {k: nd.array(v, dtype="float64") for k, v in vals.items()}
    for a in arrs.values():
        a.attach_grad()
    mean, var = nd.zeros((4,), dtype="float64"), nd.ones((4,), dtype="float64")
    with autograd.record():
        h = nd.FullyConnected(arrs["data"], arrs["fc_weight"], arrs["fc_bias"], num_hidden=4)
        h = nd.BatchNorm(h, arrs["bn_gamma"], arrs["bn_beta"], mean, var, fix_gamma=False)
        out = nd.SoftmaxOutput(nd.relu(h), nd.array(label, dtype="float64"))
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), exe.outputs[0].asnumpy(), rtol=1e-12)
    for k in vals:
        np.testing.assert_allclose(arrs[k].grad.asnumpy(), exe.grad_dict[k].asnumpy(),
                                   rtol=1e-10, atol=1e-12, err_msg=k)
    # the training-mode forward moved the statistics, as the executor's did
    np.testing.assert_allclose(mean.asnumpy(), exe.aux_dict["bn_moving_mean"].asnumpy())


def test_grad_req_add_accumulates_and_write_overwrites():
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad(grad_req="add")
    for _ in range(3):
        with autograd.record():
            y = nd.sum(x * x)
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * 2 * np.array([1, 2, 3.0]))
    x.attach_grad()
    for _ in range(2):
        with autograd.record():
            y = nd.sum(x * 5)
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [5, 5, 5])


def test_second_backward_needs_retain_graph():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.sum(nd.exp(x))
    y.backward(retain_graph=True)
    first = x.grad.asnumpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), first)
    with pytest.raises(mx.MXNetError, match="retain_graph=True"):
        y.backward()


def test_errors_are_clear():
    x = nd.array([1.0, 2.0])
    with pytest.raises(mx.MXNetError, match="not computed under autograd.record"):
        nd.sum(x).backward()
    y = nd.array([3.0, 4.0])
    with autograd.record():
        z = nd.sum(y * 2)
    with pytest.raises(mx.MXNetError, match="attach_grad"):
        z.backward()
    x.attach_grad()
    with autograd.record():
        # (MXNet 1.x's words: x is in the graph already)
        with pytest.raises(mx.MXNetError, match="already in a computational graph"):
            x += 1


def test_flags_pause_and_modes():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
        with autograd.predict_mode():
            assert autograd.is_recording() and not autograd.is_training()
    with autograd.record(train_mode=False):
        assert not autograd.is_training()
    with autograd.train_mode():
        assert autograd.is_training() and not autograd.is_recording()
    assert not autograd.is_recording() and not autograd.is_training()


def test_dropout_drops_only_in_training_mode_and_its_gradient_uses_the_mask():
    x = nd.ones((2000,))
    x.attach_grad()
    with autograd.record():
        y = nd.Dropout(x, p=0.5)
    y.backward()
    kept = y.asnumpy() != 0
    assert 0.4 < kept.mean() < 0.6
    np.testing.assert_allclose(x.grad.asnumpy(), np.where(kept, 2.0, 0.0))
    with autograd.record(train_mode=False):
        y = nd.Dropout(x, p=0.5)
    np.testing.assert_allclose(y.asnumpy(), 1.0)


def test_grad_returns_without_touching_buffers_and_detach_cuts():
    x = nd.array([1.0, -2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = nd.sum(x * x * x + x.detach() * 10)
    g = autograd.grad(y, x)
    np.testing.assert_allclose(g.asnumpy(), 3 * x.asnumpy() ** 2)
    np.testing.assert_allclose(x.grad.asnumpy(), 0)


def test_several_heads_with_head_gradients():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        a = x * 2
        b = x * x
    autograd.backward([a, b], [nd.array([1.0, 10.0]), nd.array([3.0, 3.0])])
    np.testing.assert_allclose(x.grad.asnumpy(), [2 + 3 * 2, 20 + 3 * 4])


class _Sigmoid(autograd.Function):
    def forward(self, x):
        y = 1 / (1 + nd.exp(-x))
        self.save_for_backward(y)
        return y

    def backward(self, dy):
        y, = self.saved_tensors
        return dy * y * (1 - y)


def test_function_records_a_hand_written_backward():
    x0 = np.array([[0.5, -1.0], [2.0, 0.1]])
    x = nd.array(x0, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = _Sigmoid()(x * 3)
        loss = nd.sum(y * y)
    loss.backward()
    s = 1 / (1 + np.exp(-3 * x0))
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * s * s * (1 - s) * 3, rtol=1e-12)


def test_indexing_any_axis_matches_numpy():
    a0 = np.arange(24.0).reshape(2, 3, 4)
    a = nd.array(a0)
    for key in [(1, slice(None), 2), (Ellipsis, 1), (slice(None), slice(0, 2), slice(None, None, 2)),
                (None, 0), (-1, -1), (slice(None, None, -1),), (slice(None), slice(3, 1)),
                (0, slice(9, None)), (slice(None), slice(1, 3, -1))]:
        np.testing.assert_array_equal(a[key].asnumpy(), a0[key], err_msg=str(key))
    np.testing.assert_array_equal(a[nd.array([1, 0], dtype="int32")].asnumpy(), a0[[1, 0]])
    with pytest.raises(IndexError):
        a[0, 5]


def test_a_variable_marked_without_gradient_survives_backward():
    """attach_grad('null') tracks an array without a gradient; a backward frees the values it
    read, but never a marked variable's, so the array can be recorded again."""
    x = nd.array([1.0, 2.0])
    x.attach_grad(grad_req="null")
    w = nd.array([3.0, 4.0])
    w.attach_grad()
    for _ in range(2):
        with autograd.record():
            y = nd.sum(x * w)
        y.backward()
        np.testing.assert_allclose(w.grad.asnumpy(), [1.0, 2.0])
    with autograd.record():
        y = nd.sum(x * w)
    with pytest.raises(mx.MXNetError, match="not marked"):
        autograd.grad(y, [nd.array([1.0])])


def test_output_of_a_freed_graph_is_a_constant_afterwards():
    # MXNet's test_ndarray.test_cached: y = x + 1 recorded, backward frees its graph; y is then
    # a constant in the next recording (no gradient reaches x through it), not an error
    x = nd.array([1.0, 2.0])
    w = nd.array([3.0, 4.0])
    x.attach_grad()
    w.attach_grad()
    with autograd.record():
        y = x + 1
        (y * w).backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3, 4])
    assert not autograd._core.autograd_is_tracked(y.handle)
    with autograd.record():
        z = (y + 1) * w
    z.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), [3, 4])
    np.testing.assert_allclose(x.grad.asnumpy(), [3, 4])  # not in this graph: left as it was
    with autograd.record():
        y = x * 2
        y.backward(retain_graph=True)
    assert autograd._core.autograd_is_tracked(y.handle)  # retained: still part of a graph


def test_an_array_of_a_freed_graph_may_be_written_while_recording():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
    y.backward()
    with autograd.record():
        y[:] = 5  # its graph is gone: a plain array again, as in MXNet
        with pytest.raises(mx.MXNetError, match="already in a computational graph"):
            x[:] = 1  # attach_grad's arrays stay in every graph
    np.testing.assert_allclose(y.asnumpy(), [5, 5])
