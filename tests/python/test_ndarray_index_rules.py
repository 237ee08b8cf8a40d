"""MXNet 1.x's legacy NDArray indexing rules (ndarray/_index_rules.py): x[i, j, k] has shape (1,),
[v] sets one element, advanced indexing of a tracked array records a gradient (integers too), and
x[key] = value refuses MXNet's in-place cases while autograd records."""
import numpy as np
import pytest

import symnet as mx


def test_one_element_has_shape_1():
    a = mx.nd.array(np.arange(24).reshape(2, 3, 4), dtype="int32")
    assert a[1, 2, 3].shape == (1,)
    assert a[-1, -1, -1].asscalar() == 23
    # (a single int keeps a 0-d element: NumPy 2 reads an NDArray as a sequence through it)
    b = mx.nd.array([5, 5, 5], dtype="int32")
    assert b[1].shape == ()
    assert np.all(b == 5)
    assert a[1, 2].shape == (4,)


def test_set_one_element_from_a_list():
    a = mx.nd.array(np.arange(24).reshape(2, 3, 4), dtype="int32")
    a[(1, 2, 3, )] = [-7]
    assert a.asnumpy()[1, 2, 3] == -7


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_recorded_advanced_indexing_has_a_gradient(dtype):
    data = np.arange(24).reshape(4, 6).astype(dtype)
    for key in ([1, 1, 3], np.array([[2], [0]], dtype=np.int32), (1, [2, 3, 2])):
        x = mx.nd.array(data, dtype=dtype)
        x.attach_grad()
        with mx.autograd.record():
            y = x[key]
        y.backward()
        np.testing.assert_array_equal(y.asnumpy(), data[key])
        want = np.zeros_like(data)
        np.add.at(want, key, 1)
        np.testing.assert_array_equal(x.grad.asnumpy(), want)


def test_take_gradient_on_integers():
    x = mx.nd.array(np.arange(6), dtype="int32")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.take(x, mx.nd.array([0, 0, 5], dtype="int32"))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2, 0, 0, 0, 0, 1])


def test_recorded_setitem_refusals_as_mxnet():
    def attempt(x, key, value):
        with mx.autograd.record():
            x[key] = value

    y = mx.nd.ones((2, 4))
    y.attach_grad()
    # part of an untracked x from a tracked array: the in-place case
    for key in (0, slice(0, 2), [0, 1]):
        value = y if key != 0 else y[0].detach()
        if key == 0:
            value.attach_grad()
        with pytest.raises(mx.base.MXNetError, match="Inplace operations"):
            attempt(mx.nd.zeros((3, 4)), key, value)
    # all of x (None, :, ...) is a copy, refused only when x is in the graph already
    for key in (None, slice(None), Ellipsis):
        attempt(mx.nd.zeros((2, 4)), key, y)
    tracked = mx.nd.zeros((2, 4))
    tracked.attach_grad()
    with pytest.raises(mx.base.MXNetError, match="already in a computational graph"):
        attempt(tracked, slice(None), 3)
    attempt(tracked, slice(None), np.ones((2, 4)))  # NumPy data into all of it: no op
    with pytest.raises(mx.base.MXNetError, match="already in a computational graph"):
        attempt(tracked, 0, np.ones(4))
    # untracked arrays and scalars are fine, and outside record() everything is
    attempt(mx.nd.zeros((3, 4)), 0, 5)
    x = mx.nd.zeros((3, 4))
    x[0] = y[0]
    np.testing.assert_array_equal(x.asnumpy()[0], np.ones(4))
