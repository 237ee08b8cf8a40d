"""where, take, pick, one_hot, slice_like, diag, shape_array/size_array and the creation ops
(_zeros, _ones, _full, _arange): NumPy references in float32 and float64, float64 finite
differences, grad_req='add', float16/bfloat16 against float32, index arrays of every dtype,
imperative calls, MXNet 1.9.1's JSON, and the bad-input errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU. Index inputs hold small integers (exact in every float dtype) or, where a case says so,
fractions and out-of-range values that the mode resolves."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# (condition shape, x/y shape): same shape, or 1-D over x's first dim
WHERE_CASES = [((3, 4), (3, 4)), ((3,), (3, 4)), ((2, 3, 4), (2, 3, 4)), ((2,), (2, 3, 4)), ((5,), (5,))]
# (a's shape, indices, attributes): repeated indices (their gradients add up), fractions
# (truncated), out-of-range values (clip/wrap), N-D indices, negative axes
TAKE_CASES = [
    ((5,), [[0, 4], [2, 2]], {}),
    ((4, 3), [3, 0, 3, 1], dict(axis=0)),
    ((4, 3), [-1, 5, 1.7, -0.5, 2], dict(axis=1, mode="clip")),
    ((2, 3, 4), [[-1, 5], [2, -7]], dict(axis=-1, mode="wrap")),
    ((2, 3, 4), [2, 0, 2], dict(axis=1, mode="raise")),
]
# (data shape, attributes, index): the index has data's shape without the axis (or with it as 1)
PICK_CASES = [
    ((3, 4), dict(), [0, 5, -1]),
    ((3, 4), dict(axis=0, keepdims=True, mode="wrap"), [[-1, 3, 4, 1.5]]),
    ((2, 3, 4), dict(axis=1), [[0, 1, 2, 0], [2, 1, 0, 1]]),
    ((2, 3, 4), dict(axis=-2, keepdims=True, mode="wrap"), [[[0, -1, 5, 3]], [[2, 1, 0, 1]]]),
    ((5,), dict(axis=0), [3]),
]
# (indices, attributes)
ONE_HOT_CASES = [
    ([0, 2, -1, 3, 1.7, -0.5], dict(depth=3)),
    ([[0, 2], [1, 1]], dict(depth=4, on_value=5, off_value=-1, dtype="int32")),
    ([1, 0, 3], dict(depth=3, on_value=0.5, dtype="float64")),
    ([2, 0], dict(depth=0)),
]
# (data shape, shape_like's shape, axes)
SLICE_LIKE_CASES = [
    ((2, 3, 4), (1, 2, 3), ()),
    ((2, 3, 4), (1, 2, 3), (0, 2)),
    ((2, 3, 4), (1, 2), (-2,)),
    ((5, 6), (5, 6), ()),
    ((4, 5), (2, 7, 1), (0,)),
]
# (input shape, attributes): a vector to a matrix; the k-th diagonal of matrices (N-D: NumPy's
# diagonal over axis1, axis2), up to the empty one at the edge
DIAG_CASES = [
    ((4,), {}), ((3,), dict(k=1)), ((3,), dict(k=-2)),
    ((3, 4), {}), ((3, 4), dict(k=1)), ((3, 4), dict(k=-2)), ((3, 4), dict(k=4)),
    ((2, 3, 4), {}), ((2, 3, 4), dict(k=1, axis1=1, axis2=2)), ((2, 3, 4), dict(k=-1, axis1=2, axis2=0)),
    ((2, 3, 4, 2), dict(axis1=-1, axis2=1)),
]
# _arange's attributes and dtype: the length is ceil((stop - start) / step) * repeat
ARANGE_CASES = [
    dict(start=2), dict(start=2, stop=5, step=0.5, repeat=2), dict(start=5, stop=2, step=-1),
    dict(start=-2, step=-0.5), dict(start=0.5, stop=4, step=1.5, dtype="int32"),
    dict(start=0, stop=1, step=0.3, dtype="int64"), dict(start=2.5, stop=3.5, step=0.25, dtype="float16"),
    dict(start=1, stop=1), dict(start=1e8, stop=1e8 + 5),
]


def trunc(idx):
    return np.trunc(np.asarray(idx, dtype=np.float64)).astype(np.int64)


def resolve(idx, n, mode):
    """MXNet's index rule: truncate, then clip to [0, n) or wrap modulo n."""
    k = trunc(idx)
    return np.mod(k, n) if mode == "wrap" else np.clip(k, 0, n - 1)


def where_case(cshape, xshape):
    cond = np.where(np.arange(int(np.prod(cshape))).reshape(cshape) % 3 == 0, 0.0, randn(*cshape))
    v = mx.sym.var
    sym = mx.sym.where(v("condition"), v("x"), v("y"), name="w")
    loc = {"condition": cond, "x": randn(*xshape), "y": randn(*xshape)}
    c = cond.reshape(cshape + (1,) * (len(xshape) - len(cshape))) != 0
    return sym, loc, c


@pytest.mark.parametrize("cshape,xshape", WHERE_CASES)
def test_where(cshape, xshape):
    sym, loc, c = where_case(cshape, xshape)
    ref = np.where(c, loc["x"], loc["y"])
    assert sym.infer_shape(condition=cshape, x=xshape)[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["x", "y"])
    dy = randn(*xshape)
    grads = {"condition": np.zeros(cshape), "x": np.where(c, dy, 0), "y": np.where(c, 0, dy)}
    check_symbolic_backward(sym, loc, [dy], grads, rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    got = mx.nd.where(mx.nd.array(loc["condition"]), mx.nd.array(loc["x"]), mx.nd.array(loc["y"]))
    np.testing.assert_array_equal(got.asnumpy(), ref.astype(np.float32))


def test_where_condition_of_any_dtype():
    """The condition may have its own dtype; -0.0 is false and NaN true (a comparison with 0)."""
    x, y = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3)
    cond = np.array([[0.0, -0.0, np.nan], [1.0, -2.0, 0.0]])
    want = np.where(cond != 0, x, y)
    for dtype in ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "bool"]:
        c = mx.nd.array(np.nan_to_num(cond, nan=1.0) if "int" in dtype or dtype == "bool" else cond, dtype=dtype)
        for xdtype in ["float32", "int32"]:
            got = mx.nd.where(c, mx.nd.array(x, dtype=xdtype), mx.nd.array(y, dtype=xdtype))
            assert got.dtype == np.dtype(xdtype)
            np.testing.assert_array_equal(got.asnumpy(), want, err_msg=dtype)
    sym = mx.sym.where(mx.sym.var("c"), mx.sym.var("x"), mx.sym.var("y"))
    assert sym.infer_type(c="int32", x="float16")[1] == [np.float16]
    assert sym.infer_shape(x=(2, 3))[0] == [(2, 3)] * 3  # an unknown condition: x's shape


def take_case(shape, idx, kw):
    sym = mx.sym.take(mx.sym.var("a"), mx.sym.var("indices"), name="t", **kw)
    a = randn(*shape)
    axis = kw.get("axis", 0) % len(shape)
    pos = resolve(idx, shape[axis], kw.get("mode", "clip"))
    return sym, {"a": a, "indices": np.asarray(idx, dtype=np.float64)}, axis, pos


@pytest.mark.parametrize("shape,idx,kw", TAKE_CASES)
def test_take(shape, idx, kw):
    sym, loc, axis, pos = take_case(shape, idx, kw)
    a = loc["a"]
    ref = np.take(a, pos, axis=axis)
    assert sym.infer_shape(a=shape, indices=np.shape(idx))[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["a"])
    dy = randn(*ref.shape)
    da = np.zeros(shape)
    moved = np.moveaxis(da, axis, 0)  # a view: index positions along the first axis
    dym = np.moveaxis(dy.reshape(shape[:axis] + (-1,) + shape[axis + 1:]), axis, 0)
    np.add.at(moved, pos.reshape(-1), dym)
    check_symbolic_backward(sym, loc, [dy], {"a": da, "indices": np.zeros(np.shape(idx))}, rtol=1e-12,
                            atol=1e-12, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    got = mx.nd.take(mx.nd.array(a), mx.nd.array(idx), **kw)
    np.testing.assert_array_equal(got.asnumpy(), ref.astype(np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8",
                                   "uint8"])
def test_indices_of_every_dtype(dtype):
    """take, pick and one_hot read indices of any dtype (MXNet's default float32, int32, int64, ...)
    and the data of any dtype (a gather moves elements)."""
    idx = np.array([2, 0, 1, 2])
    a = np.arange(12).reshape(3, 4)
    for adtype in ["float32", "int64", "uint8", "float16"]:
        got = mx.nd.take(mx.nd.array(a, dtype=adtype), mx.nd.array(idx, dtype=dtype))
        assert got.dtype == np.dtype(adtype)
        np.testing.assert_array_equal(got.asnumpy(), a[idx])
    got = mx.nd.pick(mx.nd.array(a), mx.nd.array(idx[:3], dtype=dtype), axis=1)
    np.testing.assert_array_equal(got.asnumpy(), a[np.arange(3), idx[:3]])
    got = mx.nd.one_hot(mx.nd.array(idx, dtype=dtype), depth=3)
    np.testing.assert_array_equal(got.asnumpy(), np.eye(3)[idx])
    # and through an executor, with the gradient to the data in float64
    sym = mx.sym.take(mx.sym.var("a"), mx.sym.var("i"), axis=1)
    exe = sym.simple_bind(mx.current_context(), grad_req={"a": "write", "i": "null"},
                          type_dict={"a": "float64", "i": dtype}, a=(3, 4), i=(4,))
    exe.arg_dict["a"][:] = a
    exe.arg_dict["i"][:] = idx
    np.testing.assert_array_equal(exe.forward(is_train=True)[0].asnumpy(), a[:, idx])
    exe.backward([mx.nd.ones((3, 4), dtype="float64")])
    np.testing.assert_array_equal(exe.grad_dict["a"].asnumpy(), np.tile(np.bincount(idx, minlength=4), (3, 1)))


def test_large_arrays_use_the_threaded_loops():
    """Above the one-thread threshold (16384 elements or gradient columns): take's gradient
    columns, pick's scatter and where, against NumPy in float64."""
    a = randn(20000, 3)
    idx = np.array([2, 0, 2, 1])
    sym = mx.sym.take(mx.sym.var("a"), mx.sym.var("i"), axis=1)
    loc = {"a": a, "i": idx.astype(np.float64)}
    check_symbolic_forward(sym, loc, [a[:, idx]], rtol=0, atol=0, dtype=np.float64)
    dy = randn(20000, 4)
    da = np.zeros_like(a)
    np.add.at(da.T, idx, dy.T)
    check_symbolic_backward(sym, loc, [dy], {"a": da}, rtol=1e-12, atol=1e-12, dtype=np.float64)
    pidx = np.arange(20000) % 3
    sym = mx.sym.pick(mx.sym.var("a"), mx.sym.var("i"), axis=1)
    loc = {"a": a, "i": pidx.astype(np.float64)}
    check_symbolic_forward(sym, loc, [a[np.arange(20000), pidx]], rtol=0, atol=0, dtype=np.float64)
    g = randn(20000)
    da = np.zeros_like(a)
    da[np.arange(20000), pidx] = g
    check_symbolic_backward(sym, loc, [g], {"a": da}, rtol=0, atol=0, dtype=np.float64)
    cond = (pidx == 1).astype(np.float64)
    sym = mx.sym.where(mx.sym.var("c"), mx.sym.var("x"), mx.sym.var("y"))
    check_symbolic_forward(sym, {"c": cond, "x": a[:, 0], "y": a[:, 1]}, [np.where(cond, a[:, 0], a[:, 1])],
                           rtol=0, atol=0, dtype=np.float64)


def test_take_raise_mode_refuses_out_of_range_values():
    """As MXNet's: the value itself must lie in [0, len - 1], so -0.5 and 2.5 are refused too."""
    a = mx.nd.array(np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(mx.nd.take(a, mx.nd.array([2, 0]), mode="raise").asnumpy()[0], [8, 9, 10, 11])
    for bad in ([-1, 0], [3], [2.5], [-0.5]):
        with pytest.raises(mx.MXNetError, match=r"take: mode='raise' and an index is outside \[0, 2\]"):
            mx.nd.take(a, mx.nd.array(bad), mode="raise")
    sym = mx.sym.take(mx.sym.var("a"), mx.sym.var("i"), mode="raise", name="t")
    exe = sym.simple_bind(mx.current_context(), a=(3, 4), i=(2,))
    exe.arg_dict["i"][:] = [0, 7]
    with pytest.raises(mx.MXNetError, match=r"node 't' \(operator take\): take: mode='raise'"):
        exe.forward()


def pick_case(shape, kw, idx):
    sym = mx.sym.pick(mx.sym.var("data"), mx.sym.var("index"), name="p", **kw)
    axis = kw.get("axis", -1) % len(shape)
    idx = np.asarray(idx, dtype=np.float64)
    pos = resolve(idx, shape[axis], kw.get("mode", "clip"))
    return sym, {"data": randn(*shape), "index": idx}, axis, pos


def np_pick_positions(shape, axis, pos):
    """pos (data's shape without the axis, or with it as 1) as a take_along_axis index."""
    return pos.reshape(shape[:axis] + (1,) + shape[axis + 1:])


@pytest.mark.parametrize("shape,kw,idx", PICK_CASES)
def test_pick(shape, kw, idx):
    sym, loc, axis, pos = pick_case(shape, kw, idx)
    x = loc["data"]
    p = np_pick_positions(shape, axis, pos)
    ref = np.take_along_axis(x, p, axis=axis)
    if not kw.get("keepdims"):
        ref = ref.reshape(tuple(d for i, d in enumerate(shape) if i != axis) or (1,))
    assert sym.infer_shape(data=shape, index=np.shape(idx))[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])
    dy = randn(*ref.shape)
    dx = np.zeros(shape)
    np.put_along_axis(dx, p, dy.reshape(p.shape), axis=axis)
    check_symbolic_backward(sym, loc, [dy], {"data": dx, "index": np.zeros(np.shape(idx))}, rtol=0, atol=0,
                            dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    got = mx.nd.pick(mx.nd.array(x), mx.nd.array(idx), **kw)
    np.testing.assert_array_equal(got.asnumpy(), ref.astype(np.float32))


def test_pick_accepts_the_index_with_or_without_the_axis():
    sym = mx.sym.pick(mx.sym.var("d"), mx.sym.var("i"), axis=1)
    assert sym.infer_shape(d=(3, 4), i=(3, 1))[1] == [(3,)]
    assert sym.infer_shape(d=(3, 4), i=(3,))[1] == [(3,)]
    assert sym.infer_shape(d=(3, 4))[0][1] == (3,)
    keep = mx.sym.pick(mx.sym.var("d"), mx.sym.var("i"), axis=1, keepdims=True)
    assert keep.infer_shape(d=(3, 4), i=(3,))[1] == [(3, 1)]


def np_one_hot(idx, depth, on=1.0, off=0.0):
    k = trunc(idx).reshape(-1)
    out = np.full((k.size, depth), off, dtype=np.float64)
    hit = (k >= 0) & (k < depth)
    out[np.arange(k.size)[hit], k[hit]] = on
    return out.reshape(np.shape(idx) + (depth,))


@pytest.mark.parametrize("idx,kw", ONE_HOT_CASES)
def test_one_hot(idx, kw):
    dtype = kw.get("dtype", "float32")
    ref = np_one_hot(idx, kw["depth"], kw.get("on_value", 1.0), kw.get("off_value", 0.0)).astype(dtype)
    sym = mx.sym.one_hot(mx.sym.var("indices"), name="oh", **kw)
    assert sym.infer_shape(indices=np.shape(idx))[1] == [ref.shape]
    assert sym.infer_type(indices="float32")[1] == [np.dtype(dtype)]
    for idtype in ["float32", "float64", "int32"]:
        exe = sym.simple_bind(mx.current_context(), grad_req="null", type_dict={"indices": idtype},
                              indices=np.shape(idx))
        exe.arg_dict["indices"][:] = np.asarray(idx) if idtype != "int32" else trunc(idx)
        np.testing.assert_array_equal(exe.forward()[0].asnumpy(), ref)
    got = mx.nd.one_hot(mx.nd.array(idx), **kw)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.asnumpy(), ref)
    # the indices get no gradient (zeros; unchanged with grad_req='add')
    check_symbolic_backward(sym, {"indices": np.asarray(idx, dtype=np.float64)}, [np.ones(ref.shape)],
                            {"indices": np.zeros(np.shape(idx))}, grad_req="add", dtype=np.float64)


def slice_like_case(shape, like, axes):
    sym = mx.sym.slice_like(mx.sym.var("data"), mx.sym.var("shape_like"), axes=axes, name="sl")
    out = list(shape)
    for a in (axes or range(len(shape))):
        out[a % len(shape)] = like[a % len(shape)]
    return sym, {"data": randn(*shape), "shape_like": randn(*like)}, tuple(slice(0, n) for n in out)


@pytest.mark.parametrize("shape,like,axes", SLICE_LIKE_CASES)
def test_slice_like(shape, like, axes):
    sym, loc, box = slice_like_case(shape, like, axes)
    ref = loc["data"][box]
    assert sym.infer_shape(data=shape, shape_like=like)[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])
    dy = randn(*ref.shape)
    dx = np.zeros(shape)
    dx[box] = dy
    check_symbolic_backward(sym, loc, [dy], {"data": dx, "shape_like": np.zeros(like)}, rtol=0, atol=0,
                            dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    got = mx.nd.slice_like(mx.nd.array(loc["data"]), mx.nd.zeros(like, dtype="int32"), axes=axes)
    np.testing.assert_array_equal(got.asnumpy(), ref.astype(np.float32))


def np_diag(x, kw):
    if x.ndim == 1:
        return np.diag(x, kw.get("k", 0))
    return np.diagonal(x, kw.get("k", 0), kw.get("axis1", 0), kw.get("axis2", 1))


@pytest.mark.parametrize("shape,kw", DIAG_CASES)
def test_diag(shape, kw):
    x = randn(*shape)
    sym = mx.sym.diag(mx.sym.var("data"), name="dg", **kw)
    ref = np_diag(x, kw)
    assert sym.infer_shape(data=shape)[1] == [ref.shape]
    check_symbolic_forward(sym, {"data": x}, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, {"data": x}, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, {"data": x})
    dy = randn(*ref.shape)
    dx = np.diagonal(dy, kw.get("k", 0)).copy() if x.ndim == 1 else _diag_backward(shape, kw, dy)
    check_symbolic_backward(sym, {"data": x}, [dy], {"data": dx}, rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, {"data": x}, [mx.nd.array(dy, dtype="float64")])
    if ref.size:  # (the empty diagonal at the edge has nothing to compare)
        check_16bit(sym, {"data": x}, rtol_f16=0, rtol_bf16=4e-3)
    np.testing.assert_array_equal(mx.nd.diag(mx.nd.array(x), **kw).asnumpy(), ref.astype(np.float32))


def _diag_backward(shape, kw, dy):
    """dy at the diagonal's positions of a zero array of `shape` (the adjoint of np.diagonal)."""
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    pos = np.diagonal(idx, kw.get("k", 0), kw.get("axis1", 0), kw.get("axis2", 1))
    dx = np.zeros(int(np.prod(shape)))
    dx[pos.reshape(-1)] = dy.reshape(-1)
    return dx.reshape(shape)


def test_shape_array_and_size_array():
    """int64 outputs (MXNet 1.9.1), whatever the input's dtype; the input's gradient is zeros."""
    for dtype in ["float32", "float16", "int32", "bool"]:
        a = mx.nd.zeros((2, 3, 4), dtype=dtype)
        s, n = mx.nd.shape_array(a), mx.nd.size_array(a)
        assert s.dtype == np.int64 and n.dtype == np.int64
        np.testing.assert_array_equal(s.asnumpy(), [2, 3, 4])
        np.testing.assert_array_equal(n.asnumpy(), [24])
    np.testing.assert_array_equal(mx.nd.shape_array(mx.nd.zeros((2, 0))).asnumpy(), [2, 0])
    x = mx.sym.var("x")
    sym = mx.sym.Group([x * 2.0, mx.sym.shape_array(x), mx.sym.size_array(x)])
    assert sym.infer_type(x="float16")[1] == [np.float16, np.int64, np.int64]
    assert sym.infer_shape(x=(5, 7))[1] == [(5, 7), (2,), (1,)]
    exe = sym.simple_bind(mx.current_context(), x=(5, 7))
    outs = exe.forward(is_train=True)
    np.testing.assert_array_equal(outs[1].asnumpy(), [5, 7])
    np.testing.assert_array_equal(outs[2].asnumpy(), [35])
    exe.backward([mx.nd.ones((5, 7)), mx.nd.ones((2,), dtype="int64"), mx.nd.ones((1,), dtype="int64")])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.full((5, 7), 2.0))
    # the shape as data: an int64 array the graph can compute with
    sizes = mx.sym.Cast(mx.sym.shape_array(x), dtype="float32") * 2.0
    check_symbolic_forward(sizes, {"x": randn(3, 4)}, [np.array([6.0, 8.0])], rtol=0, atol=0)


def np_arange(kw):
    start, stop = kw["start"], kw.get("stop")
    if stop is None:
        start, stop = 0, start
    step, repeat = kw.get("step", 1.0), kw.get("repeat", 1)
    dtype = kw.get("dtype", "float32")
    n = int(np.ceil((stop - start) / step))
    if "int" in dtype:  # start and step become integers first, as MXNet converts them
        start, step = int(start), int(step)
    acc = np.float32 if dtype in ("float32", "float16") else np.float64 if dtype == "float64" else np.int64
    vals = acc(start) + np.arange(n).astype(acc) * acc(step)
    return np.repeat(vals, repeat).astype(dtype)


@pytest.mark.parametrize("kw", ARANGE_CASES)
def test_arange(kw):
    ref = np_arange(kw)
    sym = mx.sym.arange(**kw)
    assert sym.list_arguments() == []
    assert sym.infer_shape()[1] == [ref.shape]
    exe = sym.simple_bind(mx.current_context())
    out = exe.forward()[0]
    assert out.dtype == ref.dtype
    np.testing.assert_array_equal(out.asnumpy(), ref)
    np.testing.assert_array_equal(mx.nd.arange(**kw).asnumpy(), ref)


def test_arange_infers_its_length_from_the_graph():
    """infer_range=True without stop: the length comes from the output's use."""
    x = mx.sym.var("x")
    for kw, want in [(dict(start=2), [2, 3, 4, 5, 6]), (dict(start=2, step=2, repeat=2), [2, 2, 4, 4, 6])]:
        sym = mx.sym.arange(infer_range=True, **kw) + x
        assert sym.infer_shape(x=(5,))[0] == [(5,)]
        check_symbolic_forward(sym, {"x": np.zeros(5)}, [np.array(want)], rtol=0, atol=0)
    with pytest.warns(UserWarning):  # nothing decides the length
        assert mx.sym.arange(start=2, infer_range=True).infer_shape()[1] is None


CREATION_CASES = [
    ("zeros", dict(shape=(2, 3)), np.zeros((2, 3), np.float32)),
    ("ones", dict(shape=(4,), dtype="int64"), np.ones(4, np.int64)),
    ("ones", dict(shape=(2, 2), dtype="bool"), np.ones((2, 2), bool)),
    ("full", dict(shape=(3,), val=3.7, dtype="int32"), np.full(3, 3, np.int32)),
    ("full", dict(shape=(3,), val=-3.7, dtype="int32"), np.full(3, -3, np.int32)),
    ("full", dict(shape=(2, 1), val=0.1, dtype="float16"), np.full((2, 1), 0.1, np.float16)),
    ("full", dict(shape=(2,), val=-1.5, dtype="float64"), np.full(2, -1.5)),
]


@pytest.mark.parametrize("op,kw,ref", CREATION_CASES)
def test_creation_ops(op, kw, ref):
    sym = getattr(mx.sym, op)(**kw)
    assert sym.list_arguments() == []
    assert sym.infer_shape()[1] == [ref.shape]
    assert sym.infer_type()[1] == [ref.dtype]
    exe = sym.simple_bind(mx.current_context())
    got = exe.forward()[0]
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got.asnumpy(), ref)
    # the ops imperatively (mx.nd.zeros/ones/full are their own functions, kept as they were)
    nd_kw = dict(kw)
    if op == "full":
        nd_kw["value"] = nd_kw.pop("val")
    got = getattr(mx.nd, "_" + op)(**nd_kw)
    assert got.dtype == ref.dtype and got.context == mx.cpu()
    np.testing.assert_array_equal(got.asnumpy(), ref)
    np.testing.assert_array_equal(getattr(mx.nd, op)(**kw).asnumpy(), ref)


def test_creation_ops_in_a_graph():
    """A 0 dim is MXNet 1.x's unknown dim, taken from the graph (an RNN's begin state of shape
    (0, hidden)); if nothing decides it, it is 0. Gradients flow past the constants."""
    x = mx.sym.var("x")
    state = mx.sym.zeros((0, 3), name="state")
    sym = mx.sym.FullyConnected(x, num_hidden=3, name="fc") + state + mx.sym.ones((0, 3)) * 2.0
    assert sym.infer_shape(x=(5, 4))[1] == [(5, 3)]
    exe = sym.simple_bind(mx.current_context(), x=(5, 4))
    for k, v in exe.arg_dict.items():
        v[:] = 0.5
    np.testing.assert_allclose(exe.forward(is_train=True)[0].asnumpy(), np.full((5, 3), 3.5))
    exe.backward([mx.nd.ones((5, 3))])
    np.testing.assert_allclose(exe.grad_dict["fc_bias"].asnumpy(), [5.0] * 3)
    assert mx.sym.zeros((0, 3)).infer_shape()[1] == [(0, 3)]
    assert mx.nd._zeros(shape=(2, 0)).shape == (2, 0)
    # a creation op as an index source: take with indices from _arange inside the graph
    t = mx.sym.take(x, mx.sym.arange(start=3, stop=0, step=-1, dtype="int32"), axis=1)
    check_symbolic_forward(t, {"x": np.arange(8.0).reshape(2, 4)}, [np.array([[3, 2, 1], [7, 6, 5]])],
                           rtol=0, atol=0)


def test_ctx_attribute_places_imperative_outputs():
    a = mx.nd._zeros(shape=(2,), ctx="cpu(0)")
    assert a.context == mx.cpu(0)
    assert mx.nd._arange(start=3, ctx=mx.cpu()).context == mx.cpu()
    with pytest.raises(mx.MXNetError, match=r"ctx 'tpu\(0\)' is not a device; expected cpu\(N\) or gpu\(N\)"):
        mx.nd._ones(shape=(2,), ctx="tpu(0)")


def test_json_is_mxnets():
    """The attributes MXNet 1.9.1 writes for these ops (mx.sym.zeros/full/arange write dtype and,
    for arange, every argument), and a round trip through symnet's JSON."""
    v = mx.sym.var
    cases = [
        (mx.sym.zeros((2, 3)), "_zeros", {"dtype": "float32", "shape": "(2, 3)"}),
        (mx.sym.full((2, 3), 3), "_full", {"dtype": "float32", "shape": "(2, 3)", "value": "3.0"}),
        (mx.sym.arange(5), "_arange", {"dtype": "float32", "infer_range": "False", "repeat": "1", "start": "5",
                                        "step": "1.0", "stop": "None"}),
        (mx.sym.take(v("a"), v("i"), axis=1, mode="wrap"), "take", {"axis": "1", "mode": "wrap"}),
        (mx.sym.one_hot(v("i"), 3, on_value=2, dtype="int32"), "one_hot",
         {"depth": "3", "dtype": "int32", "on_value": "2"}),
        (mx.sym.slice_like(v("a"), v("b"), axes=(0, 2)), "slice_like", {"axes": "(0, 2)"}),
        (mx.sym.diag(v("a"), k=1), "diag", {"k": "1"}),
        (mx.sym.where(v("c"), v("x"), v("y")), "where", {}),
        (mx.sym.pick(v("a"), v("i"), axis=None), "pick", {"axis": "None"}),
    ]
    for sym, op, attrs in cases:
        node = json.loads(sym.tojson())["nodes"][-1]
        assert node["op"] == op and node.get("attrs", {}) == attrs, node
        assert mx.sym.load_json(sym.tojson()).tojson() == sym.tojson()
    assert mx.sym.where(v("c"), v("x"), v("y"), name="w").list_arguments() == ["c", "x", "y"]
    assert mx.sym.take(name="t").list_arguments() == ["t_a", "t_indices"]
    assert mx.sym.pick(name="p").list_arguments() == ["p_data", "p_index"]
    assert mx.sym.slice_like(name="s").list_arguments() == ["s_data", "s_shape_like"]


def test_bad_inputs_are_clear_errors():
    v = mx.sym.var
    x = v("x")

    def shape_error(sym, pattern, **shapes):
        with pytest.raises(mx.MXNetError, match=pattern):
            sym.infer_shape(**shapes)

    shape_error(mx.sym.where(v("c"), x, v("y"), name="w"),
                r"node 'w' \(operator where\): where: a 1-D condition selects rows of x, so its length must be "
                r"x's first dim: condition \(3,\), x and y \(2, 3\)", c=(3,), x=(2, 3), y=(2, 3))
    shape_error(mx.sym.where(v("c"), x, v("y"), name="w"),
                r"node 'w' \(operator where\): where: the condition of shape \(2, 3, 1\) must have the shape",
                c=(2, 3, 1), x=(2, 3), y=(2, 3))
    shape_error(mx.sym.where(v("c"), x, v("y"), name="w"), r"shape mismatch in node 'w' .* input 'y'",
                c=(2, 3), x=(2, 3), y=(2, 4))
    with pytest.raises(mx.MXNetError, match=r"dtype mismatch in node 'w' \(operator where\) for input 'x'"):
        mx.sym.where(v("c"), x, v("y"), name="w").infer_type(x="float32", y="float64")
    shape_error(mx.sym.take(x, v("i"), axis=2, name="t"),
                r"node 't' \(operator take\): take: axis 2 is out of range for an input of shape \(3, 4\) "
                r"\(expected -2 to 1\)", x=(3, 4), i=(2,))
    with pytest.raises(mx.MXNetError, match=r"operator take \(node 't'\): Invalid Input: 'foo', valid values are: "
                                            r"\{'clip', 'raise', 'wrap'\}"):
        mx.sym.take(x, v("i"), mode="foo", name="t")
    with pytest.raises(mx.MXNetError, match=r"operator pick \(node 'p'\): Invalid Input: 'raise', valid values are: "
                                            r"\{'clip', 'wrap'\}"):
        mx.sym.pick(x, v("i"), mode="raise", name="p")
    shape_error(mx.sym.pick(x, v("i"), axis=None, name="p"),
                r"node 'p' \(operator pick\): pick: axis=None .* is not supported", x=(3, 4))
    shape_error(mx.sym.pick(x, v("i"), axis=1, name="p"),
                r"shape mismatch in node 'p' .* input 'index'.*it has shape \(4,\) but the operator expects \(3,\)",
                x=(3, 4), i=(4,))
    with pytest.raises(mx.MXNetError, match=r"operator one_hot \(node 'oh'\): depth -1 must not be negative"):
        mx.sym.one_hot(x, depth=-1, name="oh")
    with pytest.raises(mx.MXNetError, match=r"node 'oh'.*Required parameter depth"):
        mx.sym.one_hot(x, name="oh")
    with pytest.raises(mx.MXNetError, match=r"node 'oh'.*'bool'"):
        mx.sym.one_hot(x, depth=2, dtype="bool", name="oh")
    shape_error(mx.sym.slice_like(x, v("l"), name="sl"),
                r"node 'sl' \(operator slice_like\): slice_like: with no axes every axis is cut, so data \(2, 3\) "
                r"and shape_like \(2,\) need the same number of dims", x=(2, 3), l=(2,))
    shape_error(mx.sym.slice_like(x, v("l"), name="sl"),
                r"slice_like: shape_like \(2, 5\) is longer than data \(2, 3\) in axis 1", x=(2, 3), l=(2, 5))
    shape_error(mx.sym.slice_like(x, v("l"), axes=(3,), name="sl"),
                r"slice_like: axis 3 of axes \(3,\) is out of range for data of shape \(2, 3\)", x=(2, 3), l=(2, 3))
    shape_error(mx.sym.slice_like(x, v("l"), axes=(1,), name="sl"),
                r"slice_like: axis 1 of axes \(1,\) is past the dims of shape_like's shape \(2,\)", x=(2, 3), l=(2,))
    shape_error(mx.sym.diag(x, k=5, name="dg"),
                r"node 'dg' \(operator diag\): diag: there is no diagonal k=5 in \(3, 4\) matrices", x=(3, 4))
    shape_error(mx.sym.diag(x, axis1=1, axis2=-2, name="dg"),
                r"diag: axis1 \(1\) and axis2 \(-2\) are the same axis", x=(2, 3, 4))
    shape_error(mx.sym.diag(x, axis2=3, name="dg"), r"diag: axis 3 is out of range", x=(2, 3, 4))
    with pytest.raises(mx.MXNetError, match=r"operator _arange \(node 'r'\): step must not be 0"):
        mx.sym.arange(0, 3, step=0, name="r")
    with pytest.raises(mx.MXNetError, match=r"operator _arange \(node 'r'\): repeat 0 must be positive"):
        mx.sym.arange(0, 3, repeat=0, name="r")
    with pytest.raises(mx.MXNetError, match=r"node 'r'.*the range from start 5 to stop 2 by step 1 is invalid"):
        mx.sym.arange(5, 2, name="r")
    with pytest.raises(mx.MXNetError, match=r"node 'f'.*Required parameter value"):
        mx.sym._full(shape=(2,), name="f")
    with pytest.raises(mx.MXNetError, match=r"node 'z'.*'complex64'"):
        mx.sym._zeros(shape=(2,), dtype="complex64", name="z")
    # imperative calls give the same messages
    with pytest.raises(mx.MXNetError, match=r"take: axis 2 is out of range"):
        mx.nd.take(mx.nd.ones((3, 4)), mx.nd.ones((2,)), axis=2)
    with pytest.raises(mx.MXNetError, match=r"cannot infer the shape of output 0"):
        mx.nd._zeros()  # no shape: nothing decides it
