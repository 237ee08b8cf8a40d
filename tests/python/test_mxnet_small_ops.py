"""Small MXNet 1.9.1 operators: batch_take (out[i] = a[i, indices[i]], indices clipped to the row,
no gradient rule) and ones_like/zeros_like of every dtype."""
import numpy as np
import pytest

import symnet as mx
from symnet import _core


def test_batch_take_picks_one_per_row_and_clips():
    rng = np.random.RandomState(0)
    a = rng.normal(size=(6, 5)).astype(np.float32)
    idx = np.array([0, 4, -3, 7, 2, 1], np.int32)
    out = mx.nd.batch_take(mx.nd.array(a), mx.nd.array(idx, dtype="int32"))
    np.testing.assert_array_equal(out.asnumpy(), a[np.arange(6), np.clip(idx, 0, 4)])
    ints = mx.nd.batch_take(mx.nd.array([[1, 2], [3, 4]], dtype="int32"), mx.nd.array([1, 0], dtype="int32"))
    assert ints.dtype == np.int32 and ints.asnumpy().tolist() == [2, 3]


def test_batch_take_has_no_gradient_rule():
    y = mx.sym.batch_take(mx.sym.var("x"), mx.sym.var("idx"))
    types = {"x": np.float32, "idx": np.int32}
    exe = mx.sym.stop_gradient(y).simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types)
    exe.forward()
    exe.backward()
    with pytest.raises(mx.MXNetError):
        y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64", "uint8", "int8"])
def test_ones_like_and_zeros_like_of_every_dtype(dtype):
    a = mx.nd.array([[3, 4, 5]], dtype=dtype)
    ones, zeros = mx.nd.ones_like(a), mx.nd.zeros_like(a)
    assert ones.dtype == zeros.dtype == np.dtype(dtype)
    assert ones.asnumpy().tolist() == [[1, 1, 1]] and zeros.asnumpy().tolist() == [[0, 0, 0]]
    # the core takes and ignores any parameter, as MXNet's ops do
    for op in ("ones_like", "zeros_like"):
        res = _core.invoke(op, {"dtype": "float64", "anything": "1"}, [a.handle], [])
        assert mx.nd.NDArray(res[0]).dtype == np.dtype(dtype)


def _ftml_reference(w, g, d, v, z, lr, t, wd, rescale_grad, clip_grad, beta1=0.6, beta2=0.999, eps=1e-8):
    """FTML as MXNet 1.9.1's ftml_update computes it (checked against it to float32 rounding)."""
    gi = rescale_grad * g + wd * w
    if clip_grad >= 0:
        gi = np.clip(gi, -clip_grad, clip_grad)
    v = beta2 * v + (1 - beta2) * gi * gi
    dt = (1 - beta1 ** t) / lr * (np.sqrt(v / (1 - beta2 ** t)) + eps)
    z = beta1 * z + (1 - beta1) * gi - (dt - beta1 * d) * w
    return -z / dt, dt, v, z


@pytest.mark.parametrize("clip_grad", [-1.0, 0.3, 0.0])
def test_ftml_update_matches_mxnet_rule_and_updates_the_states(clip_grad):
    rng = np.random.RandomState(0)
    w, g, d, v, z = [rng.uniform(0.1, 1, size=7) for _ in range(5)]
    arrays = [mx.nd.array(x) for x in (w, g, d, v, z)]
    out = mx.nd.ftml_update(*arrays, lr=0.1, t=3, wd=0.01, rescale_grad=0.7, clip_grad=clip_grad)
    new_w, new_d, new_v, new_z = _ftml_reference(w, g, d, v, z, 0.1, 3, 0.01, 0.7, clip_grad)
    np.testing.assert_allclose(out.asnumpy(), new_w, rtol=1e-5)
    for got, want in zip(arrays[2:], (new_d, new_v, new_z)):  # d, v, z in place
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(arrays[0].asnumpy(), w, rtol=1e-6)  # the weight only with out=
