"""MXNet 1.9.1's initializers Orthogonal (orthonormal rows or columns times scale), Mixed (the
first matching name pattern's initializer) and Load (values from a dict or .params file, else a
default) as MXNet's; Orthogonal is registered and dumps as MXNet's."""
import numpy as np
import pytest

import symnet as mx


@pytest.mark.parametrize("shape,rand_type", [((3, 5), "uniform"), ((6, 2, 2), "normal")])
def test_orthogonal(shape, rand_type):
    a = mx.nd.zeros(shape)
    mx.init.Orthogonal(scale=2.0, rand_type=rand_type)("w_weight", a)
    m = a.asnumpy().reshape(shape[0], -1)
    small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(small, 4.0 * np.eye(min(m.shape)), atol=1e-4)
    assert mx.init.create('["orthogonal", {"scale": 1.0}]') == mx.init.Orthogonal(scale=1.0)
    assert mx.init.Orthogonal().dumps() == '["orthogonal", {"scale": 1.414, "rand_type": "uniform"}]'


def test_mixed():
    init = mx.init.Mixed(["fc1_", ".*"], [mx.init.Constant(0.5), mx.init.One()])
    a, b, w = mx.nd.zeros((2,)), mx.nd.ones((2,)), mx.nd.zeros((2,))
    init("fc1_weight", a)
    init("fc1_bias", b)  # the chosen initializer's own dispatch: a bias is zeros
    init("fc_weight", w)
    assert a.asnumpy().tolist() == [0.5, 0.5] and b.asnumpy().tolist() == [0.0, 0.0]
    assert w.asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="did not match any pattern"):
        mx.init.Mixed(["bias"], [mx.init.One()])("fc_weight", w)


def test_load(tmp_path):
    f = str(tmp_path / "p.params")
    mx.nd.save(f, {"arg:fc_weight": mx.nd.ones((2, 2)) * 3})
    init = mx.init.Load(f, default_init=mx.init.Zero())
    w, b = mx.nd.zeros((2, 2)), mx.nd.ones((2,))
    init("fc_weight", w)
    init("fc_bias", b)
    assert w.asnumpy().ravel().tolist() == [3.0] * 4 and b.asnumpy().tolist() == [0.0, 0.0]
    with pytest.raises(AssertionError, match="Shape mismatch"):
        init("fc_weight", mx.nd.zeros((3,)))
    with pytest.raises(AssertionError, match="no default Initializer"):
        mx.init.Load({"a": mx.nd.ones((1,))})("fc_bias", b)
    assert mx.initializer.string_types == (str,)
