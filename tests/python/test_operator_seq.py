"""Embedding, SequenceMask, SequenceLast and SoftmaxActivation: NumPy references in float32 and
float64, float64 finite differences, grad_req='add', float16/bfloat16 against float32, imperative
calls, MXNet 1.9.1's JSON, and the bad-input errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU. Indices and lengths are small integers (exact in every float dtype) or, where a case says
so, fractions and out-of-range values (clipped, as MXNet does)."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, np_softmax, randn

# (indices, input_dim, output_dim): repeated indices (their gradients add up), fractions
# (truncated), out-of-range values (clipped to the first or last row), N-D indices
EMBEDDING_CASES = [
    ([0, 3, 1, 3], 4, 3),
    ([[1, 1], [0, 2]], 3, 5),
    ([-1, 7, 1.7, -0.5, 2], 3, 2),
    ([[[0], [4]], [[2], [4]]], 5, 1),
]
# (data shape, attributes, lengths or None): both layouts, lengths past T, 0, and fractions
SEQ_CASES = [
    ((4, 3, 2), dict(), None),
    ((4, 3, 2), dict(use_sequence_length=True), [1, 4, 2]),
    ((4, 3), dict(use_sequence_length=True, value=-2.5), [3, 0, 9]),
    ((3, 4, 2, 2), dict(use_sequence_length=True, axis=1), [1, 4, 2.7]),
    ((2, 5), dict(axis=1), None),
]
# (data shape, mode)
SOFTMAX_ACT_CASES = [((3, 5), "instance"), ((2, 3, 4), "instance"), ((4,), "instance"),
                     ((2, 3, 4), "channel"), ((2, 4, 2, 3), "channel")]


def embedding_case(idx, input_dim, output_dim):
    sym = mx.sym.Embedding(mx.sym.var("data"), mx.sym.var("weight"), input_dim=input_dim,
                           output_dim=output_dim, name="e")
    pos = np.clip(np.trunc(np.asarray(idx, dtype=np.float64)), 0, input_dim - 1).astype(np.int64)
    loc = {"data": np.asarray(idx, dtype=np.float64), "weight": randn(input_dim, output_dim)}
    return sym, loc, pos


@pytest.mark.parametrize("idx,input_dim,output_dim", EMBEDDING_CASES)
def test_embedding(idx, input_dim, output_dim):
    sym, loc, pos = embedding_case(idx, input_dim, output_dim)
    assert sym.list_arguments() == ["data", "weight"]
    w = loc["weight"]
    ref = w[pos]
    assert sym.infer_shape(data=np.shape(idx))[0][1] == (input_dim, output_dim)
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["weight"])
    dy = randn(*ref.shape)
    dw = np.zeros_like(w)
    np.add.at(dw, pos.reshape(-1), dy.reshape(-1, output_dim))
    check_symbolic_backward(sym, loc, [dy], {"weight": dw}, rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    got = mx.nd.Embedding(mx.nd.array(idx), mx.nd.array(w), input_dim=input_dim, output_dim=output_dim)
    np.testing.assert_array_equal(got.asnumpy(), ref.astype(np.float32))


def test_embedding_weight_is_a_parameter_and_dtypes():
    """The weight is created as <name>_weight; indices of any dtype; the weight's dtype wins over
    the dtype attribute, which applies only while the weight's is unknown (MXNet's rule)."""
    sym = mx.sym.Embedding(mx.sym.var("x"), input_dim=5, output_dim=2, name="emb")
    assert sym.list_arguments() == ["x", "emb_weight"]
    assert sym.infer_type(x="int32")[1] == [np.float32]
    sym16 = mx.sym.Embedding(mx.sym.var("x"), input_dim=5, output_dim=2, dtype="float16", name="e")
    assert sym16.infer_type(x="int32")[0] == [np.int32, np.float16]
    w = np.arange(10.0).reshape(5, 2)
    for dtype in ["int32", "int64", "uint8", "float16", "float64"]:
        got = mx.nd.Embedding(mx.nd.array([4, 0, 2], dtype=dtype), mx.nd.array(w, dtype="float64"),
                              input_dim=5, output_dim=2)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got.asnumpy(), w[[4, 0, 2]])


def seq_case(shape, kw, lengths):
    data = mx.sym.var("data")
    loc = {"data": randn(*shape)}
    if lengths is not None:
        loc["sequence_length"] = np.asarray(lengths, dtype=np.float64)
        args = [data, mx.sym.var("sequence_length")]
    else:
        args = [data]
    mask = mx.sym.SequenceMask(*args, name="m", **kw)
    last = mx.sym.SequenceLast(*args, name="l", **{k: v for k, v in kw.items() if k != "value"})
    return mask, last, loc


def seq_keep(shape, kw, lengths):
    """keep[t, n] (in (T, N) order) and the last step of each sequence, as MXNet computes them."""
    axis = kw.get("axis", 0)
    T, N = shape[axis], shape[1 - axis]
    lens = np.full(N, T) if lengths is None else np.clip(np.trunc(lengths), 0, T).astype(np.int64)
    keep = np.arange(T)[:, None] < lens[None, :]
    return keep, np.maximum(lens, 1) - 1


@pytest.mark.parametrize("shape,kw,lengths", SEQ_CASES)
def test_sequence_mask(shape, kw, lengths):
    sym, _, loc = seq_case(shape, kw, lengths)
    x = loc["data"]
    keep, _ = seq_keep(shape, kw, lengths)
    if kw.get("axis", 0) == 1:
        keep = keep.T
    keep = keep.reshape(keep.shape + (1,) * (len(shape) - 2))
    ref = np.where(keep, x, kw.get("value", 0.0))
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])
    dy = randn(*shape)
    expected = {"data": np.where(keep, dy, 0.0)}
    check_symbolic_backward(sym, loc, [dy], expected, rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    nd_args = [mx.nd.array(loc[k]) for k in sym.list_arguments()]
    np.testing.assert_array_equal(mx.nd.SequenceMask(*nd_args, **kw).asnumpy(), ref.astype(np.float32))


@pytest.mark.parametrize("shape,kw,lengths", SEQ_CASES)
def test_sequence_last(shape, kw, lengths):
    _, sym, loc = seq_case(shape, kw, lengths)
    x = loc["data"]
    axis = kw.get("axis", 0)
    _, last = seq_keep(shape, kw, lengths)
    xt = np.moveaxis(x, axis, 0)  # (T, N, ...)
    ref = xt[last, np.arange(len(last))]
    assert sym.infer_shape(**{k: v.shape for k, v in loc.items()})[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])
    dy = randn(*ref.shape)
    dx = np.zeros_like(x)
    np.moveaxis(dx, axis, 0)[last, np.arange(len(last))] = dy
    check_symbolic_backward(sym, loc, [dy], {"data": dx}, rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    nd_args = [mx.nd.array(loc[k]) for k in sym.list_arguments()]
    kw1 = {k: v for k, v in kw.items() if k != "value"}
    np.testing.assert_array_equal(mx.nd.SequenceLast(*nd_args, **kw1).asnumpy(), ref.astype(np.float32))


def test_sequence_lengths_of_every_dtype():
    x = np.arange(24.0).reshape(4, 3, 2)
    for dtype in ["int32", "int64", "uint8", "float16", "float64"]:
        n = mx.nd.array([1, 4, 2], dtype=dtype)
        got = mx.nd.SequenceLast(mx.nd.array(x), n, use_sequence_length=True).asnumpy()
        np.testing.assert_array_equal(got, x[[0, 3, 1], [0, 1, 2]])
        got = mx.nd.SequenceMask(mx.nd.array(x), n, use_sequence_length=True).asnumpy()
        assert got[1, 0].sum() == 0 and got[3, 1].sum() == x[3, 1].sum()


def softmax_act_ref(x, mode):
    if mode == "channel":
        return np_softmax(x, axis=1)
    if x.ndim == 1:
        return np_softmax(x)
    return np_softmax(x.reshape(x.shape[0], -1)).reshape(x.shape)


@pytest.mark.parametrize("shape,mode", SOFTMAX_ACT_CASES)
def test_softmax_activation(shape, mode):
    sym = mx.sym.SoftmaxActivation(mx.sym.var("data"), mode=mode, name="s")
    loc = {"data": randn(*shape)}
    ref = softmax_act_ref(loc["data"], mode)
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-12, atol=1e-14, dtype=np.float64)
    check_numeric_gradient(sym, loc)
    check_add_req(sym, loc, [mx.nd.array(randn(*shape), dtype="float64")])
    check_16bit(sym, loc, rtol_f16=5e-3, rtol_bf16=3e-2)
    got = mx.nd.SoftmaxActivation(mx.nd.array(loc["data"]), mode=mode).asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_json_is_mxnets():
    """Attributes as MXNet 1.9.1 writes them (its own Embedding JSON, with the auto weight), and a
    round trip."""
    mxnet_json = {"nodes": [
        {"op": "null", "name": "e_data", "inputs": []},
        {"op": "null", "name": "e_weight", "attrs": {"input_dim": "5", "output_dim": "3"}, "inputs": []},
        {"op": "Embedding", "name": "e", "attrs": {"input_dim": "5", "output_dim": "3"},
         "inputs": [[0, 0, 0], [1, 0, 0]]}],
        "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3], "heads": [[2, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]}}
    sym = mx.sym.load_json(json.dumps(mxnet_json))
    assert sym.list_arguments() == ["e_data", "e_weight"]
    assert sym.infer_shape(e_data=(2, 4))[1] == [(2, 4, 3)]
    x = mx.sym.var("x")
    n = mx.sym.var("n")
    for sym, attrs in [
        (mx.sym.Embedding(x, input_dim=5, output_dim=3, dtype="float16"),
         {"input_dim": "5", "output_dim": "3", "dtype": "float16"}),
        (mx.sym.SequenceMask(x, n, use_sequence_length=True, value=0.5, axis=1),
         {"use_sequence_length": "True", "value": "0.5", "axis": "1"}),
        (mx.sym.SequenceLast(x, n, use_sequence_length=True), {"use_sequence_length": "True"}),
        (mx.sym.SoftmaxActivation(x, mode="channel"), {"mode": "channel"}),
    ]:
        node = json.loads(sym.tojson())["nodes"][-1]
        assert node["attrs"] == attrs
        assert mx.sym.load_json(sym.tojson()).tojson() == sym.tojson()
    assert mx.sym.SequenceMask(x, name="m").list_arguments() == ["x"]
    assert mx.sym.SequenceLast(name="l", use_sequence_length=True).list_arguments() == [
        "l_data", "l_sequence_length"]


def test_bad_input():
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match="sparse_grad=True"):
        mx.sym.Embedding(x, input_dim=5, output_dim=3, sparse_grad=True)
    with pytest.raises(mx.MXNetError, match="input_dim 0 must be at least 1"):
        mx.sym.Embedding(x, input_dim=0, output_dim=3)
    e = mx.sym.Embedding(x, mx.sym.var("w"), input_dim=5, output_dim=3, name="emb")
    with pytest.raises(mx.MXNetError, match="emb"):
        e.infer_shape(x=(2,), w=(4, 3))
    with pytest.raises(mx.MXNetError, match="axis 2 must be 0"):
        mx.sym.SequenceMask(x, axis=2)
    with pytest.raises(mx.MXNetError, match="axis -1 must be 0"):
        mx.sym.SequenceLast(x, axis=-1)
    m = mx.sym.SequenceMask(x, mx.sym.var("n"), use_sequence_length=True, name="mask")
    with pytest.raises(mx.MXNetError, match="at least 2 dims"):
        m.infer_shape(x=(3,))
    with pytest.raises(mx.MXNetError, match="mask"):
        m.infer_shape(x=(4, 3), n=(2,))
    with pytest.raises(mx.MXNetError, match="mode='channel' needs data of at least 3 dims"):
        mx.sym.SoftmaxActivation(x, mode="channel").infer_shape(x=(2, 3))
    with pytest.raises(mx.MXNetError, match="mode"):
        mx.sym.SoftmaxActivation(x, mode="spatial")
