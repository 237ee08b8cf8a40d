"""Shape arithmetic never wraps around: element counts past 2^60 are a clear error, in shape
inference (Flatten, Reshape) and when creating arrays, while empty shapes stay valid."""
import pytest

import symnet as mx

BIG = 2 ** 32


def test_flatten_of_an_overflowing_shape_is_an_error():
    # (2, 2^32, 2^32) flattened would be (2, 2^64): wrapped around, that was (2, 0)
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match=r"more than 2\^60 elements"):
        mx.sym.Flatten(x).infer_shape(x=(2, BIG, BIG))


def test_reshape_minus_one_of_an_overflowing_shape_is_an_error():
    # (2^33, 2^31) has 2^64 elements: wrapped around, Reshape(-1) gave (0,)
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match=r"\(8589934592, 2147483648\)"):
        mx.sym.Reshape(x, shape=(-1,)).infer_shape(x=(2 ** 33, 2 ** 31))
    with pytest.raises(mx.MXNetError, match=r"more than 2\^60 elements"):
        mx.sym.Reshape(x, shape=(-3, 0)).infer_shape(x=(BIG, BIG, 1))


def test_creating_an_overflowing_array_is_an_error():
    with pytest.raises(mx.MXNetError, match=r"more than 2\^60 elements"):
        mx.nd.zeros((BIG, BIG, 16))


def test_large_but_representable_shapes_still_infer():
    # inference alone allocates nothing: 2^40 elements is a valid (if huge) shape
    x = mx.sym.var("x")
    _, out, _ = mx.sym.Flatten(x).infer_shape(x=(2, 2 ** 20, 2 ** 20))
    assert out == [(2, 2 ** 40)]
    _, out, _ = mx.sym.Reshape(x, shape=(-1,)).infer_shape(x=(0, BIG, BIG))
    assert out == [(0,)]
