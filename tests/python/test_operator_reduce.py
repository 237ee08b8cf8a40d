"""The reductions beyond sum and mean: max, min, prod, nansum, nanprod (axis, keepdims, exclude),
norm (ord 1 and 2 over axes) and the searches argmax, argmin, argmax_channel. NumPy references in
float32 and float64, float64 finite differences, the exact gradients at ties, NaNs and zeros,
grad_req='add', float16/bfloat16 against float32, MXNet's aliases and JSON, and the errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req

rng = np.random.RandomState(5)

NP_REDUCE = {"max": np.max, "min": np.min, "prod": np.prod, "nansum": np.nansum, "nanprod": np.nanprod}
# (input shape, attributes): all axes, one axis, negative and several axes, keepdims, exclude
AXES_REDUCE_CASES = [
    ((5,), {}),
    ((3, 4), {"axis": (1,)}),
    ((3, 4), {"axis": (0,), "keepdims": True}),
    ((2, 3, 4), {"axis": (-1, 0)}),
    ((2, 3, 4), {"axis": (1,), "exclude": True}),
    ((2, 3, 2, 3), {"axis": (1, 3), "keepdims": True}),
]
# (input shape, attributes) for norm
NORM_CASES = [((6,), {}), ((3, 4), {"ord": 1}), ((3, 4), {"axis": (1,)}), ((2, 3, 4), {"axis": (0, 2), "ord": 1}),
              ((2, 3, 4), {"axis": (-1,), "keepdims": True})]
# (op, input shape, attributes) for the searches
SEARCH_CASES = [("argmax", (7,), {"axis": 0}), ("argmax", (3, 5), {"axis": 1}), ("argmin", (3, 5), {"axis": 0}),
                ("argmax", (2, 3, 4), {}), ("argmin", (2, 3, 4), {"axis": -1, "keepdims": True}),
                ("argmax", (2, 3, 4), {"keepdims": True}), ("argmax_channel", (4, 6), {}),
                ("argmax_channel", (2, 5, 3), {})]


def np_axes(shape, kw):
    axes = kw.get("axis")
    if axes is None:
        return tuple(range(len(shape)))
    axes = tuple(a % len(shape) for a in axes)
    return tuple(a for a in range(len(shape)) if a not in axes) if kw.get("exclude") else axes


def np_reduce(op, x, kw):
    out = NP_REDUCE[op](x, axis=np_axes(x.shape, kw), keepdims=kw.get("keepdims", False))
    return np.asarray(out).reshape(-1) if np.ndim(out) == 0 else out  # MXNet: (1,), not ()


def np_norm(x, kw):
    axes = np_axes(x.shape, kw)
    a = np.abs(x)
    out = a.sum(axis=axes, keepdims=kw.get("keepdims", False)) if kw.get("ord", 2) == 1 else \
        np.sqrt((x * x).sum(axis=axes, keepdims=kw.get("keepdims", False)))
    return np.asarray(out).reshape(-1) if np.ndim(out) == 0 else out


def np_search(op, x, kw):
    fn = np.argmin if op == "argmin" else np.argmax
    axis = 1 if op == "argmax_channel" else kw.get("axis")
    out = fn(x, axis=axis)
    if kw.get("keepdims"):
        out = np.expand_dims(out, axis) if axis is not None else np.reshape(out, (1,) * x.ndim)
    return np.asarray(out, np.float64).reshape(-1) if np.ndim(out) == 0 else out.astype(np.float64)


def distinct(shape):
    """Values whose max, min and products are unique and well away from ties and zero."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.1 + 0.5) * np.where(rng.rand(*shape) < 0.5, -1, 1)


@pytest.mark.parametrize("op", sorted(NP_REDUCE))
@pytest.mark.parametrize("shape,kw", AXES_REDUCE_CASES)
def test_reductions_match_numpy_and_finite_differences(op, shape, kw):
    x = distinct(shape) if op in ("max", "min") else rng.uniform(0.5, 1.5, size=shape) * np.sign(rng.randn(*shape))
    sym = getattr(mx.sym, op)(mx.sym.var("x"), **kw)
    expected = np_reduce(op, x, kw)
    check_symbolic_forward(sym, {"x": x}, [expected], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_symbolic_forward(sym, {"x": x}, [expected], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x})


@pytest.mark.parametrize("shape,kw", NORM_CASES)
def test_norm_matches_numpy_and_finite_differences(shape, kw):
    x = rng.normal(size=shape)
    sym = mx.sym.norm(mx.sym.var("x"), **kw)
    expected = np_norm(x, kw)
    check_symbolic_forward(sym, {"x": x}, [expected], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x})


@pytest.mark.parametrize("op,shape,kw", SEARCH_CASES)
def test_searches_match_numpy_and_have_zero_gradients(op, shape, kw):
    x = rng.normal(size=shape)
    sym = getattr(mx.sym, op)(mx.sym.var("x"), **kw)
    expected = np_search(op, x, kw)
    for dtype in (np.float64, np.float32):
        check_symbolic_forward(sym, {"x": x}, [expected], rtol=0, atol=0, dtype=dtype)
    check_symbolic_backward(sym, {"x": x}, [np.ones(expected.shape)], {"x": np.zeros(shape)}, dtype=np.float64)


def test_ties_nans_and_zeros_follow_mxnet():
    x = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, np.nan, 5.0, 5.0]])
    nd = mx.nd.array(x)
    # the first index wins a tie; a NaN counts as the extreme (NumPy's rule, MXNet's too)
    np.testing.assert_array_equal(mx.nd.argmax(nd, axis=1).asnumpy(), [1.0, 1.0])
    np.testing.assert_array_equal(mx.nd.argmin(nd, axis=1).asnumpy(), [3.0, 1.0])
    np.testing.assert_array_equal(mx.nd.max(nd, axis=1).asnumpy(), [3.0, np.nan])
    np.testing.assert_array_equal(mx.nd.min(nd, axis=1).asnumpy(), [0.0, np.nan])
    np.testing.assert_array_equal(mx.nd.nansum(nd, axis=1).asnumpy(), [7.0, 12.0])
    np.testing.assert_array_equal(mx.nd.nanprod(nd, axis=1).asnumpy(), [0.0, 50.0])
    dy = np.array([10.0, 20.0])
    v = mx.sym.var("x")
    # max: every tied term gets dy (MXNet); nansum/nanprod: NaN terms get 0
    check_symbolic_backward(mx.sym.max(v, axis=1), {"x": x[:1]}, [dy[:1]], {"x": [[0.0, 10.0, 10.0, 0.0]]},
                            dtype=np.float64)
    check_symbolic_backward(mx.sym.nansum(v, axis=1), {"x": x}, [dy], {"x": [[10.0] * 4, [20.0, 0.0, 20.0, 20.0]]},
                            dtype=np.float64)
    check_symbolic_backward(mx.sym.nanprod(v, axis=1), {"x": x[1:]}, [dy[1:]], {"x": [[500.0, 0.0, 200.0, 200.0]]},
                            dtype=np.float64)
    # the L2 norm's gradient at the origin is 0 (MXNet 1.9.1 gives NaN); L1's is sign(x)
    check_symbolic_backward(mx.sym.norm(v), {"x": np.zeros((2, 2))}, [np.ones(1)], {"x": np.zeros((2, 2))},
                            dtype=np.float64)
    check_symbolic_backward(mx.sym.norm(v, ord=1), {"x": np.array([[-2.0, 0.0, 3.0]])}, [np.ones(1)],
                            {"x": [[-1.0, 0.0, 1.0]]}, dtype=np.float64)


def test_16bit_and_aliases():
    x = rng.uniform(0.5, 1.5, size=(3, 5))
    for sym in (mx.sym.max(mx.sym.var("x"), axis=1), mx.sym.min(mx.sym.var("x")),
                mx.sym.prod(mx.sym.var("x"), axis=0), mx.sym.nansum(mx.sym.var("x"), axis=1),
                mx.sym.norm(mx.sym.var("x"), axis=1), mx.sym.argmax(mx.sym.var("x"), axis=1),
                mx.sym.argmin(mx.sym.var("x"), axis=0), mx.sym.argmax_channel(mx.sym.var("x"))):
        check_16bit(sym, {"x": x})
    nd = mx.nd.array(x)
    for alias, op in (("max_axis", "max"), ("min_axis", "min"), ("sum_axis", "sum")):
        np.testing.assert_array_equal(getattr(mx.nd, alias)(nd, axis=1).asnumpy(),
                                      getattr(mx.nd, op)(nd, axis=1).asnumpy())


def test_json_round_trip_keeps_mxnet_attributes():
    s = mx.sym.norm(mx.sym.argmax(mx.sym.var("x"), axis=1, keepdims=True), ord=1, axis=(0,), name="n")
    doc = json.loads(s.tojson())
    attrs = {n["op"]: n.get("attrs", {}) for n in doc["nodes"]}
    assert attrs["argmax"] == {"axis": "1", "keepdims": "True"}
    assert attrs["norm"] == {"ord": "1", "axis": "(0,)"}
    again = mx.sym.load_json(s.tojson())
    assert again.infer_shape(x=(3, 4))[1] == [(1,)]


def test_errors_name_the_node_and_the_problem():
    with pytest.raises(mx.MXNetError, match=r"operator norm \(node 'n'\): ord must be 1 or 2, not 3"):
        mx.sym.norm(mx.sym.var("x"), ord=3, name="n")
    with pytest.raises(mx.MXNetError, match="out_dtype is not supported"):
        mx.sym.norm(mx.sym.var("x"), out_dtype="float16", name="n")
    with pytest.raises(mx.MXNetError, match=r"node 'a'.*axis 2 is out of range for an input of shape \(3, 4\)"):
        mx.sym.argmax(mx.sym.var("x"), axis=2, name="a").infer_shape(x=(3, 4))
    with pytest.raises(mx.MXNetError, match=r"cannot search axis 1 of an input of shape \(3, 0\): it is empty"):
        mx.sym.argmax(mx.sym.var("x"), axis=1, name="a").infer_shape(x=(3, 0))
    with pytest.raises(mx.MXNetError, match=r"argmax_channel needs an input of at least 2 dims"):
        mx.sym.argmax_channel(mx.sym.var("x"), name="c").infer_shape(x=(3,))
    with pytest.raises(mx.MXNetError, match=r"node 'm'.*axis 3 is out of range"):
        mx.sym.max(mx.sym.var("x"), axis=3, name="m").infer_shape(x=(3, 4))
