"""MXNet's legacy operator.NDArrayOp and NumpyOp (deprecated in MXNet 1.9.1, which still runs
them with a warning) run on symnet's Custom op: forward and backward as MXNet 1.9.1's, a NumpyOp
loss (need_top_grad=False) backpropagates without an output gradient;
operator.get_operator_arguments lists an op's inputs then parameters."""
import numpy as np
import pytest

import symnet as mx


class _Square(mx.operator.NDArrayOp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0] * in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 2 * in_data[0] * out_grad[0]


class _NumpySoftmax(mx.operator.NumpyOp):
    """MXNet's classic NumpyOp example: a softmax loss."""

    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]]

    def forward(self, in_data, out_data):
        x = in_data[0]
        y = np.exp(x - x.max(axis=1, keepdims=True))
        out_data[0][:] = y / y.sum(axis=1, keepdims=True)

    def backward(self, out_grad, in_data, out_data, in_grad):
        lab = in_data[1].astype(int)
        g = out_data[0].copy()
        g[np.arange(lab.shape[0]), lab] -= 1.0
        in_grad[0][:] = g


def test_ndarray_op_forward_backward():
    with pytest.warns(UserWarning, match="NDArrayOp has been deprecated"):
        op = _Square()
    s = op(data=mx.sym.Variable("data"), name="sq")
    assert s.list_arguments() == ["data"] and s.list_outputs() == ["sq_output"]
    ex = s.simple_bind(mx.cpu(), data=(2, 3))
    ex.arg_dict["data"][:] = mx.nd.array(np.arange(6).reshape(2, 3))
    ex.forward(is_train=True)
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), np.arange(6).reshape(2, 3) ** 2)
    ex.backward([mx.nd.ones((2, 3))])
    np.testing.assert_array_equal(ex.grad_dict["data"].asnumpy(), 2 * np.arange(6).reshape(2, 3))


def test_numpy_op_loss_trains():
    with pytest.warns(UserWarning, match="NumpyOp has been deprecated"):
        op = _NumpySoftmax()
    data, label = mx.sym.Variable("data"), mx.sym.Variable("label")
    s = op(data=data, label=label, name="sm")
    ex = s.simple_bind(mx.cpu(), data=(2, 3), label=(2,))
    ex.arg_dict["data"][:] = mx.nd.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    ex.arg_dict["label"][:] = mx.nd.array([2, 0])
    ex.forward(is_train=True)
    p = ex.outputs[0].asnumpy()
    np.testing.assert_allclose(p.sum(axis=1), [1.0, 1.0], rtol=1e-6)
    ex.backward()
    want = p.copy()
    want[[0, 1], [2, 0]] -= 1.0
    np.testing.assert_allclose(ex.grad_dict["data"].asnumpy(), want, rtol=1e-6)


def test_get_operator_arguments():
    args = mx.operator.get_operator_arguments("Convolution")
    assert args.narg == len(args.names) == len(args.types)
    assert args.names[:5] == ["data", "weight", "bias", "kernel", "stride"]
    assert args.types[0] == "NDArray-or-Symbol"
