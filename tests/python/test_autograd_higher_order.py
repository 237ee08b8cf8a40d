"""autograd.grad(create_graph=True) (gradients of gradients), autograd.get_symbol (the recorded
graph as a Symbol) and hybridize(inline_limit=...) (small hybridized graphs recorded op by op),
as MXNet 1.9.1 has them."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet import autograd

# op -> (f'' as a numpy function, a domain where it is defined)
_SECOND = {
    "exp": (np.exp, (-1, 1)),
    "expm1": (np.exp, (-1, 1)),
    "sigmoid": (lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s) * (1 - 2 * s), (-2, 2)),
    "tanh": (lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2), (-2, 2)),
    "sqrt": (lambda x: -0.25 * x ** -1.5, (0.5, 2)),
    "rsqrt": (lambda x: 0.75 * x ** -2.5, (0.5, 2)),
    "reciprocal": (lambda x: 2 / x ** 3, (0.5, 2)),
    "relu": (lambda x: 0 * x, (0.1, 2)),
    "abs": (lambda x: 0 * x, (0.1, 2)),
    "square": (lambda x: 2 + 0 * x, (-2, 2)),
    "log": (lambda x: -1 / x ** 2, (0.5, 2)),
    "log2": (lambda x: -1 / (x ** 2 * np.log(2)), (0.5, 2)),
    "log10": (lambda x: -1 / (x ** 2 * np.log(10)), (0.5, 2)),
    "log1p": (lambda x: -1 / (1 + x) ** 2, (0.5, 2)),
    "sin": (lambda x: -np.sin(x), (-2, 2)),
    "cos": (lambda x: -np.cos(x), (-2, 2)),
    "sinh": (np.sinh, (-2, 2)),
    "cosh": (np.cosh, (-2, 2)),
    "arctan": (lambda x: -2 * x / (1 + x ** 2) ** 2, (-2, 2)),
    "degrees": (lambda x: 0 * x, (-2, 2)),
    "radians": (lambda x: 0 * x, (-2, 2)),
}


@pytest.mark.parametrize("op", sorted(_SECOND))
def test_second_derivative_of_unary_math(op):
    f2, (lo, hi) = _SECOND[op]
    x_np = np.random.RandomState(0).uniform(lo, hi, size=(3, 4))
    x = mx.nd.array(x_np, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = getattr(mx.nd, op)(x)
        dx = autograd.grad(y, [x], create_graph=True)[0]
        z = dx * 3  # recorded on top of the gradient
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * f2(x_np), rtol=1e-9, atol=1e-12)


def test_mxnet_gradient_of_gradient_example():
    # MXNet's test_autograd.test_gradient: d/dx (exp(x) + x) = e + 1, and its derivative e
    x = mx.nd.ones((1,))
    x.attach_grad()
    with autograd.record():
        z = mx.nd.elemwise_add(mx.nd.exp(x), x)
    dx, = autograd.grad(z, [x], create_graph=True)
    assert abs(dx.asscalar() - (np.e + 1)) < 1e-6
    dx.backward()
    assert abs(x.grad.asscalar() - np.e) < 1e-6


def test_gradient_penalty_through_products():
    # d/dx sum((d/dx sum(x*x*w))^2) with w constant: grad = 2xw, penalty sum(4x^2w^2), 8xw^2
    x_np = np.array([0.5, -1.0, 2.0])
    w_np = np.array([1.5, 2.0, -0.5])
    x = mx.nd.array(x_np, dtype="float64")
    w = mx.nd.array(w_np, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = mx.nd.sum(x * x * w)
        g = autograd.grad(y, [x], create_graph=True)[0]
        penalty = mx.nd.sum(g * g)
    penalty.backward()
    np.testing.assert_allclose(g.asnumpy(), 2 * x_np * w_np, rtol=1e-12)
    np.testing.assert_allclose(x.grad.asnumpy(), 8 * x_np * w_np ** 2, rtol=1e-12)


def test_without_create_graph_the_gradient_is_not_recorded():
    x = mx.nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        dx = autograd.grad(mx.nd.exp(x), [x])[0]
    with pytest.raises(mx.base.MXNetError, match="autograd.record"):
        dx.backward()


def test_get_symbol_names_variables_and_constants():
    x = mx.nd.ones((2,))
    z = mx.nd.ones((2,))
    c = mx.nd.ones((2,))
    x.attach_grad()
    z.attach_grad()
    with autograd.record():
        y = x * x + 2 * z - c
    sym = autograd.get_symbol(y)
    assert sorted(sym.list_arguments()) == ["null0", "var0", "var1"]
    ops = [n["op"] for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"]
    assert sorted(ops) == sorted(["elemwise_mul", "_mul_scalar", "elemwise_add", "elemwise_sub"])
    # the symbol computes what was recorded
    exe = sym.bind(mx.cpu(), {n: mx.nd.array([3.0, 4.0]) for n in sym.list_arguments()})
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), [3 * 3 + 6 - 3, 16 + 8 - 4])


def test_get_symbol_of_an_unrecorded_array_is_refused():
    with pytest.raises(mx.base.MXNetError, match="get_symbol: output 0"):
        autograd.get_symbol(mx.nd.ones((2,)))


def _recorded_ops(net):
    with autograd.record():
        y = net(mx.nd.zeros((1, 10)))
    sym = autograd.get_symbol(y)
    y.backward()
    return [n["op"] for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"]


def test_inline_limit_records_small_graphs_op_by_op():
    net = mx.gluon.nn.HybridSequential(prefix="inl_")
    with net.name_scope():
        for _ in range(3):
            net.add(mx.gluon.nn.Dense(10))
    net.initialize()
    net.hybridize(inline_limit=3)
    assert _recorded_ops(net) == ["FullyConnected"] * 3
    net.hybridize(inline_limit=2)  # 3 ops: one recorded function
    assert _recorded_ops(net) == ["_autograd_function"]
    net.hybridize()  # no explicit limit: the executor runs it
    assert _recorded_ops(net) == ["_autograd_function"]
