"""Ops without parameters take unknown attributes and ignore them, as MXNet 1.9.1 (which checks
keys only against an op's parameter struct): mx.nd.broadcast_maximum(a, b, axis=1) runs, as in
MXNet's own test_cosine_loss. Ops with parameters still reject a key they do not know."""
import numpy as np
import pytest

import symnet as mx


def test_a_parameterless_op_ignores_unknown_attributes():
    a = mx.nd.array([[1.0, -2.0], [3.0, 0.5]])
    b = mx.nd.array([0.0])
    np.testing.assert_array_equal(mx.nd.broadcast_maximum(a, b, axis=1).asnumpy(),
                                  mx.nd.broadcast_maximum(a, b).asnumpy())
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sin(a, foo="bar")
    y.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), np.cos(a.asnumpy()), rtol=1e-6)
    c = mx.nd.array([1, 0])
    np.testing.assert_array_equal(mx.nd.where(c, a, -a, axis=3).asnumpy(), [[1, -2], [-3, -0.5]])


def test_a_symbol_keeps_them_as_attributes():
    # MXNet keeps them on the node (list_attr, JSON) and ignores them when running
    s = mx.sym.sin(mx.sym.var("x"), foo="bar", axis=1, name="s")
    assert s.list_attr() == {"axis": "1", "foo": "bar"}
    s2 = mx.sym.load_json(s.tojson())
    assert s2.list_attr() == {"axis": "1", "foo": "bar"}
    exe = s2.simple_bind(mx.cpu(), x=(2,))
    exe.arg_dict["x"][:] = [0.0, 1.0]
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), np.sin([0.0, 1.0]), rtol=1e-6)


def test_an_op_with_parameters_still_rejects_them():
    with pytest.raises(mx.MXNetError, match="unknown attribute 'foo'"):
        mx.nd.sum(mx.nd.ones((2, 2)), foo=1)
    with pytest.raises(mx.MXNetError, match="unknown attribute 'foo'"):
        mx.sym.transpose(mx.sym.var("x"), foo=1)


def test_make_loss_ignores_a_grad_scale_it_was_given():
    # make_loss has no parameters (MakeLoss has grad_scale): MXNet's gradient stays 1
    a = mx.nd.ones((2, 2))
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.make_loss(a * 3, grad_scale=2, axis=1)
    y.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), np.full((2, 2), 3.0))
