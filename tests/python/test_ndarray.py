"""NDArray: creation, numpy round trips, views, assignment, dtypes and arithmetic."""
import numpy as np
import pytest

import symnet as mx


def test_creation():
    a = mx.nd.array([[1, 2], [3, 4]])
    assert a.shape == (2, 2) and a.dtype == np.float32 and a.context == mx.cpu()
    np.testing.assert_array_equal(mx.nd.zeros((2, 3)).asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(mx.nd.ones(4, dtype="int32").asnumpy(), np.ones(4, np.int32))
    np.testing.assert_array_equal(mx.nd.full((2,), 7.5).asnumpy(), [7.5, 7.5])
    assert mx.nd.array(np.arange(3, dtype=np.float64), dtype="float64").dtype == np.float64
    assert mx.nd.empty((2, 2), dtype=np.float16).dtype == np.float16


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int8", "int32",
                                   "int64", "bool"])
def test_numpy_round_trip(dtype):
    x = (np.random.randn(3, 5) * 50).astype(dtype)
    a = mx.nd.array(x, dtype=dtype)
    np.testing.assert_array_equal(a.asnumpy(), x)
    assert a.asnumpy().dtype == np.dtype(dtype)


def test_float16_rounding_matches_numpy():
    x = np.random.randn(10000).astype(np.float32) * 1000
    x[:4] = [65519.0, 65520.0, 1e-8, -3e-5]
    with np.errstate(over="ignore"):
        expected = x.astype(np.float16)
    np.testing.assert_array_equal(mx.nd.array(x).astype("float16").asnumpy(), expected)


def test_bfloat16_round_to_nearest_even():
    x = np.array([1.0, 1.00390625, 1.01171875, 3.14159, -2.5e-3], dtype=np.float32)
    b = mx.nd.array(x).astype("bfloat16")
    assert b.dtype == mx.base.bfloat16
    bits = x.view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(b.asnumpy(), rounded)


def test_setitem_and_views():
    a = mx.nd.zeros((3, 4))
    a[:] = 1.5
    assert (a.asnumpy() == 1.5).all()
    a[1] = np.arange(4)
    a[2:3] = 7
    np.testing.assert_array_equal(a.asnumpy()[1:], [[0, 1, 2, 3], [7, 7, 7, 7]])
    row = a[1]
    row[:] = -1  # views share memory
    assert (a.asnumpy()[1] == -1).all()
    a[:, 0] = 9  # general indexing falls back to a numpy round trip
    assert (a.asnumpy()[:, 0] == 9).all()
    b = a.reshape((4, 3))
    b[:] = 0
    assert (a.asnumpy() == 0).all()
    c = a.copy()
    c[:] = 5
    assert (a.asnumpy() == 0).all()
    a[:] = mx.nd.ones((3, 4))
    assert a.asnumpy().sum() == 12
    with pytest.raises(IndexError):
        a[3]


def test_arithmetic():
    x, y = np.random.randn(2, 3), np.random.randn(2, 3)
    a, b = mx.nd.array(x), mx.nd.array(y)
    np.testing.assert_allclose((a + b).asnumpy(), x + y, rtol=1e-6)
    np.testing.assert_allclose((a * 2 - b / 4).asnumpy(), x * 2 - y / 4, rtol=1e-5)
    np.testing.assert_allclose((1 - a).asnumpy(), 1 - x, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose((2 / (a * a + 1)).asnumpy(), 2 / (x * x + 1), rtol=1e-5)
    np.testing.assert_allclose((a + mx.nd.array(y[0])).asnumpy(), x + y[0], rtol=1e-6)
    a += 1
    np.testing.assert_allclose(a.asnumpy(), x + 1, rtol=1e-6)
    np.testing.assert_allclose((-a).asnumpy(), -(x + 1), rtol=1e-6)


def test_imperative_ops():
    x = np.random.randn(4, 5).astype(np.float32)
    out = mx.nd.softmax(mx.nd.array(x))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out.asnumpy(), e / e.sum(1, keepdims=True), rtol=1e-5)
    w = mx.nd.array(np.random.randn(3, 5))
    fc = mx.nd.FullyConnected(mx.nd.array(x), w, num_hidden=3, no_bias=True)
    np.testing.assert_allclose(fc.asnumpy(), x @ w.asnumpy().T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mx.nd.sum(mx.nd.array(x), axis=1).asnumpy(), x.sum(1), rtol=1e-5)
    with pytest.raises(mx.MXNetError, match="FullyConnected"):
        mx.nd.FullyConnected(mx.nd.array(x), mx.nd.ones((3, 4)), num_hidden=3, no_bias=True)


def test_astype_and_copyto():
    a = mx.nd.array([1.7, -2.2])
    assert a.astype("int32").asnumpy().tolist() == [1, -2]
    b = mx.nd.zeros((2,))
    a.copyto(b)
    np.testing.assert_allclose(b.asnumpy(), [1.7, -2.2], rtol=1e-6)
    assert a.as_in_context(mx.cpu()) is a


def test_gpu_context_without_gpu_is_a_clear_error():
    if mx.num_gpus() > 0:  # with a device the same call must work
        assert mx.nd.zeros((2, 2), ctx=mx.gpu(0)).context == mx.gpu(0)
        return
    with pytest.raises(mx.MXNetError, match=r"gpu\(0\)"):
        mx.nd.zeros((2, 2), ctx=mx.gpu(0))


def test_an_arrays_context_is_shared_and_can_be_entered_twice():
    # arrays hand out one Context per device (imperative layers ask on every call), so a
    # `with` must not keep its state in the object: entering the same one twice, nested, works
    a, b = mx.nd.ones((2,)), mx.nd.zeros((3,))
    assert a.context is b.context and a.context == mx.cpu(0)
    outer = mx.current_context()
    with a.context:
        with b.context:
            assert mx.current_context() == mx.cpu(0)
        assert mx.current_context() is a.context
    assert mx.current_context() == outer
