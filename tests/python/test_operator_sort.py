"""topk (value, indices, mask, both), sort and argsort: NumPy references (stable order, NaN as the
largest value) in float32 and float64, float64 finite differences of the values, grad_req='add',
float16/bfloat16 against float32, index dtypes, MXNet's rules for k and the axis, JSON, and the
errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req

rng = np.random.RandomState(3)

# (input shape, topk attributes): default axis, other axes, the flattened input, ascending, k < 1
# (the whole axis) and k past the axis (cut to it)
TOPK_CASES = [((3, 7), {"k": 3}), ((4, 5, 3), {"axis": 1, "k": 2}), ((2, 3, 4), {"axis": None, "k": 5}),
              ((6, 4), {"axis": 0, "k": 4, "is_ascend": True}), ((2, 5), {"k": 0}), ((2, 3), {"k": 9})]
# (input shape, attributes) for sort and argsort
SORT_CASES = [((8,), {}), ((3, 6), {"is_ascend": False}), ((4, 3, 5), {"axis": 1}), ((2, 3, 4), {"axis": None}),
              ((5, 2), {"axis": 0, "is_ascend": False})]


def np_order(x, axis, ascend):
    """Stable argsort with NaN as the largest value, along axis (None: flattened)."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    return np.argsort(x if ascend else -x, axis=axis, kind="stable") if not np.isnan(x).any() else \
        np.argsort(np.where(np.isnan(x), np.inf, x) if ascend else np.where(np.isnan(x), -np.inf, -x),
                   axis=axis, kind="stable")


def np_topk(x, kw):
    axis = kw.get("axis", -1)
    flat = x.reshape(-1) if axis is None else x
    ax = 0 if axis is None else axis % x.ndim
    n = flat.shape[ax]
    k = kw.get("k", 1)
    k = n if k < 1 or k > n else k
    order = np.take(np_order(flat, ax, kw.get("is_ascend", False)), np.arange(k), axis=ax)
    values = np.take_along_axis(flat, order, axis=ax)
    mask = np.zeros(flat.shape)
    np.put_along_axis(mask, order, 1.0, axis=ax)
    return values, order.astype(np.float64), mask.reshape(x.shape)


def distinct(shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape) * 0.25 - 3.0


@pytest.mark.parametrize("shape,kw", TOPK_CASES)
def test_topk_matches_numpy_in_every_ret_typ(shape, kw):
    x = distinct(shape)
    values, indices, mask = np_topk(x, kw)
    v = mx.sym.var("x")
    for ret, expected in (("value", [values]), ("indices", [indices]), ("mask", [mask]),
                          ("both", [values, indices])):
        sym = mx.sym.topk(v, ret_typ=ret, **kw)
        for dtype in (np.float64, np.float32):
            check_symbolic_forward(sym, {"x": x}, expected, rtol=0, atol=0, dtype=dtype)
    value_sym = mx.sym.topk(v, ret_typ="value", **kw)
    check_numeric_gradient(value_sym, {"x": x})
    check_add_req(value_sym, {"x": x})
    check_16bit(mx.sym.topk(v, ret_typ="both", **kw), {"x": x / 8})  # values exact in 16 bits


@pytest.mark.parametrize("shape,kw", SORT_CASES)
def test_sort_and_argsort_match_numpy(shape, kw):
    x = distinct(shape)
    axis, ascend = kw.get("axis", -1), kw.get("is_ascend", True)
    order = np_order(x, axis, ascend)
    flat = x.reshape(-1) if axis is None else x
    expected = np.take_along_axis(flat, order, axis=0 if axis is None else axis)
    v = mx.sym.var("x")
    for dtype in (np.float64, np.float32):
        check_symbolic_forward(mx.sym.sort(v, **kw), {"x": x}, [expected], rtol=0, atol=0, dtype=dtype)
        check_symbolic_forward(mx.sym.argsort(v, **kw), {"x": x}, [order.astype(np.float64)], rtol=0, atol=0,
                               dtype=dtype)
    check_numeric_gradient(mx.sym.sort(v, **kw), {"x": x})
    check_add_req(mx.sym.sort(v, **kw), {"x": x})
    check_16bit(mx.sym.sort(v, **kw), {"x": x / 8})
    check_symbolic_backward(mx.sym.argsort(v, **kw), {"x": x}, [np.ones(order.shape)], {"x": np.zeros(shape)},
                            dtype=np.float64)


def test_ties_nans_and_index_dtypes():
    x = np.array([[3.0, 1.0, 3.0, 2.0, 1.0], [0.0, 5.0, 5.0, 5.0, -1.0]])
    nd = mx.nd.array(x)
    # ties keep their index order, in both directions (MXNet 1.9.1 gives the same)
    np.testing.assert_array_equal(mx.nd.topk(nd, k=2).asnumpy(), [[0, 2], [1, 2]])
    np.testing.assert_array_equal(mx.nd.argsort(nd).asnumpy(), [[1, 4, 3, 0, 2], [4, 0, 1, 2, 3]])
    np.testing.assert_array_equal(mx.nd.argsort(nd, is_ascend=False).asnumpy(), [[0, 2, 3, 1, 4], [1, 2, 3, 0, 4]])
    # NaN is the largest value (NumPy's order; MXNet 1.9.1 leaves NaN where it falls)
    y = mx.nd.array([3.0, np.nan, 1.0, 2.0])
    np.testing.assert_array_equal(mx.nd.sort(y).asnumpy(), [1.0, 2.0, 3.0, np.nan])
    np.testing.assert_array_equal(mx.nd.argsort(y, is_ascend=False).asnumpy(), [1, 0, 3, 2])
    for dtype in ("int32", "int64", "uint8", "float16", "float64"):
        out = mx.nd.topk(nd, k=3, dtype=dtype)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out.asnumpy(), [[0, 2, 3], [1, 2, 3]])
        assert mx.nd.argsort(nd, dtype=dtype).dtype == np.dtype(dtype)
    both = mx.nd.topk(nd, k=2, ret_typ="both", dtype="int32")
    assert both[0].dtype == np.float32 and both[1].dtype == np.int32
    assert mx.nd.topk(nd, ret_typ="mask", dtype="int32").dtype == np.float32  # the mask has x's dtype
    # the values' gradient goes back to the elements taken; ties give it to the first
    check_symbolic_backward(mx.sym.topk(mx.sym.var("x"), k=2, ret_typ="both"), {"x": x}, [
        np.array([[10.0, 20.0], [30.0, 40.0]]), np.zeros((2, 2))],
        {"x": [[10.0, 0.0, 20.0, 0.0, 0.0], [0.0, 30.0, 40.0, 0.0, 0.0]]}, dtype=np.float64)


def test_json_and_shapes_follow_mxnet():
    s = mx.sym.topk(mx.sym.var("x"), axis=1, k=2, ret_typ="both", is_ascend=True, dtype="int64", name="t")
    node = [n for n in json.loads(s.tojson())["nodes"] if n["op"] == "topk"][0]
    assert node["attrs"] == {"axis": "1", "k": "2", "ret_typ": "both", "is_ascend": "True", "dtype": "int64"}
    again = mx.sym.load_json(s.tojson())
    assert again.infer_shape(x=(3, 5, 4))[1] == [(3, 2, 4), (3, 2, 4)]
    assert again.list_outputs() == ["t_output0", "t_output1"]
    assert mx.sym.topk(mx.sym.var("x"), axis=None, k=4).infer_shape(x=(3, 5))[1] == [(4,)]
    assert mx.sym.sort(mx.sym.var("x"), axis=None).infer_shape(x=(3, 5))[1] == [(15,)]


def test_errors_name_the_node_and_the_problem():
    with pytest.raises(mx.MXNetError, match=r"node 't'.*axis 2 is out of range for an input of shape \(3, 4\)"):
        mx.sym.topk(mx.sym.var("x"), axis=2, name="t").infer_shape(x=(3, 4))
    with pytest.raises(mx.MXNetError, match=r"dtype float16 cannot hold the indices of an axis of length 3000 "
                                            r"exactly; use int32 or int64"):
        mx.sym.argsort(mx.sym.var("x"), dtype="float16", name="a").infer_shape(x=(2, 3000))
    with pytest.raises(mx.MXNetError, match="ret_typ"):
        mx.sym.topk(mx.sym.var("x"), ret_typ="values")
