"""slice, slice_axis and SliceChannel/split: NumPy references in float32 and float64 (slice's
indices follow Python's: None, negative values, negative steps, clamping), float64 finite
differences, the exact backward (dy in the box, zeros around it), grad_req='add', float16 and
bfloat16 against float32, imperative calls, MXNet's JSON, and the bad-input errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# (input shape, slice attributes): None entries, negative begin/end, negative steps, steps > 1,
# ranges past the dims (clamped, as NumPy and MXNet 1.9.1 do), fewer entries than dims; 1-D to 4-D
SLICE_CASES = [
    ((7,), dict(begin=(None,), end=(None,), step=(-1,))),
    ((7,), dict(begin=(-5,), end=(-1,))),
    ((7,), dict(begin=(1,), end=(100,), step=(3,))),
    ((5, 6), dict(begin=(None, 1), end=(None, -1))),
    ((5, 6), dict(begin=(4, -1), end=(0, None), step=(-2, -3))),
    ((3, 4, 5), dict(begin=(1,), end=(3,))),
    ((3, 4, 5), dict(begin=(-30, 0, 4), end=(30, 4, -30), step=(1, 2, -2))),
    ((2, 3, 4, 5), dict(begin=(None, None, 1, None), end=(None, None, 3, None), step=(None, None, None, 2))),
    ((2, 3, 4, 5), dict(begin=(1, -2, None, -1), end=(2, None, None, -6), step=(1, 1, -1, -1))),
]
# (input shape, slice_axis attributes)
SLICE_AXIS_CASES = [
    ((7,), dict(axis=0, begin=2, end=5)),
    ((5, 6), dict(axis=1, begin=1, end=None)),
    ((5, 6), dict(axis=-1, begin=-4, end=-1)),
    ((2, 3, 4), dict(axis=0, begin=0, end=1)),
    ((2, 3, 4, 5), dict(axis=2, begin=-3, end=4)),
]
# (input shape, op name, attributes): split and its other name SliceChannel (MXNet writes the
# latter into JSON); the default axis is 1
SPLIT_CASES = [
    ((4, 6), "split", dict(num_outputs=3)),
    ((6, 4), "SliceChannel", dict(num_outputs=2, axis=0)),
    ((2, 3, 4), "split", dict(num_outputs=4, axis=-1)),
    ((2, 3, 4), "SliceChannel", dict(num_outputs=3, axis=1, squeeze_axis=True)),
    ((3,), "split", dict(num_outputs=3, axis=0, squeeze_axis=True)),  # 0-d parts, as MXNet 1.x
    ((2, 4, 6, 5), "split", dict(num_outputs=2, axis=2)),
    ((2, 4, 3, 5), "split", dict(num_outputs=1, axis=2)),
]


def np_slice_index(kw, ndim):
    """The NumPy index of a slice call (dims past len(begin) whole)."""
    step = kw.get("step") or (None,) * len(kw["begin"])
    idx = tuple(slice(b, e, s) for b, e, s in zip(kw["begin"], kw["end"], step))
    return idx + (slice(None),) * (ndim - len(idx))


def np_slice_axis_index(kw, ndim):
    axis = kw["axis"] % ndim
    return (slice(None),) * axis + (slice(kw["begin"], kw["end"]),)


def np_split(x, kw):
    parts = np.split(x, kw["num_outputs"], axis=kw.get("axis", 1))
    if kw.get("squeeze_axis"):
        parts = [np.squeeze(p, axis=kw.get("axis", 1)) for p in parts]
    return parts


def _box_op_case(op, shape, kw):
    """(symbol, numpy index of the box) for slice or slice_axis."""
    sym = getattr(mx.sym, op)(mx.sym.var("x"), **kw)
    index = np_slice_index(kw, len(shape)) if op == "slice" else np_slice_axis_index(kw, len(shape))
    return sym, index


BOX_CASES = [("slice",) + c for c in SLICE_CASES] + [("slice_axis",) + c for c in SLICE_AXIS_CASES]


@pytest.mark.parametrize("op,shape,kw", BOX_CASES)
def test_slice_and_slice_axis(op, shape, kw):
    x = randn(*shape)
    sym, index = _box_op_case(op, shape, kw)
    ref = x[index]
    assert sym.infer_shape(x=shape)[1] == [ref.shape]
    # a copy: exact in float32 (of float32 inputs) and float64
    check_symbolic_forward(sym, {"x": x}, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, {"x": x}, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})
    # the exact backward: dy in the box, zeros around it (written over whatever was there)
    dy = randn(*ref.shape)
    dx = np.zeros(shape)
    dx[index] = dy
    check_symbolic_backward(sym, {"x": x}, [dy], {"x": dx}, rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, {"x": x}, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, {"x": x}, rtol_f16=0, rtol_bf16=4e-3)
    nd = getattr(mx.nd, op)(mx.nd.array(x), **kw)
    np.testing.assert_array_equal(nd.asnumpy(), ref.astype(np.float32))


@pytest.mark.parametrize("shape,op,kw", SPLIT_CASES)
def test_split(shape, op, kw):
    x = randn(*shape)
    sym = getattr(mx.sym, op)(mx.sym.var("x"), name="sp", **kw)
    refs = np_split(x, kw)
    assert sym.infer_shape(x=shape)[1] == [r.shape for r in refs]
    # numbered even when there is one part, as MXNet names them
    assert sym.list_outputs() == ["sp_output%d" % k for k in range(kw["num_outputs"])]
    check_symbolic_forward(sym, {"x": x}, [r.astype(np.float32) for r in refs], rtol=0, atol=0)
    check_symbolic_forward(sym, {"x": x}, refs, rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})
    dys = [randn(*r.shape) for r in refs]
    axis = kw.get("axis", 1)
    dx = np.concatenate([np.expand_dims(d, axis) if kw.get("squeeze_axis") else d for d in dys], axis=axis)
    check_symbolic_backward(sym, {"x": x}, dys, {"x": dx}, rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, {"x": x}, [mx.nd.array(d, dtype="float64") for d in dys])
    check_16bit(sym, {"x": x}, rtol_f16=0, rtol_bf16=4e-3)
    nd = getattr(mx.nd, op)(mx.nd.array(x), **kw)
    nd = nd if isinstance(nd, (list, tuple)) else [nd]
    for o, r in zip(nd, refs):
        np.testing.assert_array_equal(o.asnumpy(), r.astype(np.float32))


def test_split_gradient_of_an_unused_part_is_zero():
    """Only part 1 feeds the loss: the other parts' gradient is zeros, with write and add."""
    x = randn(2, 6)
    sym = mx.sym.split(mx.sym.var("x"), num_outputs=3, axis=1)[1] * 2.0
    dy = randn(2, 2)
    dx = np.zeros((2, 6))
    dx[:, 2:4] = 2 * dy
    check_symbolic_backward(sym, {"x": x}, [dy], {"x": dx}, rtol=0, atol=0, dtype=np.float64)
    check_symbolic_backward(sym, {"x": x}, [dy], {"x": dx}, rtol=0, atol=1e-15, grad_req="add",
                            dtype=np.float64)


def test_two_slices_of_one_input_add_their_gradients():
    """Overlapping boxes of one input: the executor sums their gradients (each one's write
    zeros outside its box, so nothing stale from the buffer survives)."""
    x = randn(4, 5)
    v = mx.sym.var("x")
    sym = (mx.sym.slice(v, begin=(0, 1), end=(3, 4)) * 3.0
           + mx.sym.slice(mx.sym.slice_axis(v, axis=0, begin=1, end=4), begin=(None, 1), end=(None, 4)))
    dy = randn(3, 3)
    dx = np.zeros((4, 5))
    dx[0:3, 1:4] += 3 * dy
    dx[1:4, 1:4] += dy
    check_symbolic_backward(sym, {"x": x}, [dy], {"x": dx}, rtol=1e-15, atol=1e-15, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})


def test_empty_slices_give_empty_outputs_and_zero_gradients():
    """A range that selects nothing (begin past end, or a step the wrong way) is an empty output
    in slice, as in NumPy; the gradient is all zeros."""
    x = randn(4, 5)
    for kw, index in [(dict(begin=(3,), end=(1,)), np.s_[3:1]),
                      (dict(begin=(1, 4), end=(3, 0), step=(1, 1)), np.s_[1:3, 4:0]),
                      (dict(begin=(None,), end=(None,), step=(-1,)), np.s_[::-1])]:
        sym = mx.sym.slice(mx.sym.var("x"), **kw)
        ref = x[index]
        assert sym.infer_shape(x=x.shape)[1] == [ref.shape]
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": "float64"}, x=x.shape)
        exe.arg_dict["x"][:] = x
        exe.grad_dict["x"][:] = 7.0
        out = exe.forward(is_train=True)[0]
        np.testing.assert_array_equal(out.asnumpy(), ref)
        exe.backward([mx.nd.ones(ref.shape, dtype="float64")])
        expected = np.zeros(x.shape)
        expected[index] = 1.0
        np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), expected)


def test_slice_copies_every_dtype():
    """The forward is a copy for any dtype (integers and bool too), as MXNet's."""
    x = np.arange(24).reshape(4, 6)
    for dtype in ["int32", "int64", "int8", "uint8", "float16", "bfloat16", "bool"]:
        a = mx.nd.array(x % 2 if dtype == "bool" else x, dtype=dtype)
        ref = (x % 2 if dtype == "bool" else x)
        got = mx.nd.slice(a, begin=(1, None), end=(None, None), step=(2, -2)).asnumpy().astype(np.int64)
        np.testing.assert_array_equal(got, ref[1::2, ::-2])
        parts = mx.nd.split(a, num_outputs=2, axis=0)
        np.testing.assert_array_equal(parts[1].asnumpy().astype(np.int64), ref[2:])
        np.testing.assert_array_equal(
            mx.nd.slice_axis(a, axis=1, begin=-2, end=None).asnumpy().astype(np.int64), ref[:, -2:])


def test_large_boxes_use_the_threaded_row_copy():
    """Boxes above the one-thread threshold: contiguous rows, a column (one strided row), rows
    reversed, each against NumPy, forward and backward (write and add)."""
    x = randn(300, 257)
    for kw, index in [(dict(begin=(5, 3), end=(290, 250)), np.s_[5:290, 3:250]),
                      (dict(begin=(None, 7), end=(None, 8)), np.s_[:, 7:8]),
                      (dict(begin=(None, None), end=(None, None), step=(-1, -2)), np.s_[::-1, ::-2])]:
        sym = mx.sym.slice(mx.sym.var("x"), **kw)
        ref = x[index]
        check_symbolic_forward(sym, {"x": x}, [ref], rtol=0, atol=0, dtype=np.float64)
        dy = randn(*ref.shape)
        dx = np.zeros(x.shape)
        dx[index] = dy
        check_symbolic_backward(sym, {"x": x}, [dy], {"x": dx}, rtol=0, atol=0, dtype=np.float64)
        check_symbolic_backward(sym, {"x": x}, [dy], {"x": dx}, rtol=1e-15, atol=1e-15, grad_req="add",
                                dtype=np.float64)
    # one strided row longer than the CPU's chunk (4096): it is cut into chunks across threads
    tall = randn(20000, 2)
    for kw, index in [(dict(begin=(None, 1), end=(None, 2)), np.s_[:, 1:2]),
                      (dict(begin=(None,), end=(None,), step=(-3,)), np.s_[::-3])]:
        sym = mx.sym.slice(mx.sym.var("x"), **kw)
        check_symbolic_forward(sym, {"x": tall}, [tall[index]], rtol=0, atol=0, dtype=np.float64)
        dy = randn(*tall[index].shape)
        dx = np.zeros(tall.shape)
        dx[index] = dy
        check_symbolic_backward(sym, {"x": tall}, [dy], {"x": dx}, rtol=1e-15, atol=1e-15, grad_req="add",
                                dtype=np.float64)
    big = randn(64, 600)
    sym = mx.sym.split(mx.sym.var("x"), num_outputs=4, axis=1)
    check_symbolic_forward(sym, {"x": big}, np.split(big, 4, axis=1), rtol=0, atol=0, dtype=np.float64)


def test_imperative_calls_take_mxnets_positional_parameters():
    x = mx.nd.array(np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(mx.nd.slice(x, (1, None), (None, -1)).asnumpy(), [[4, 5, 6], [8, 9, 10]])
    np.testing.assert_array_equal(mx.nd.slice(x, begin=1, end=2).asnumpy(), [[4, 5, 6, 7]])  # int: (1,)
    np.testing.assert_array_equal(mx.nd.slice_axis(x, 1, 1, None).asnumpy(), [[1, 2, 3], [5, 6, 7], [9, 10, 11]])
    a, b = mx.nd.split(x, 2)
    np.testing.assert_array_equal(b.asnumpy(), [[2, 3], [6, 7], [10, 11]])
    parts = mx.nd.SliceChannel(x, num_outputs=3, axis=0, squeeze_axis=True)
    assert [p.shape for p in parts] == [(4,)] * 3


def test_symbol_json_as_mxnet_writes_it_loads():
    """MXNet 1.9.1's JSON for these ops (SliceChannel for mx.sym.split too; None in tuples and
    for slice_axis' end), and the same graph with the op spelled split, load and run."""
    nodes = [
        {"op": "null", "name": "x", "inputs": []},
        {"op": "slice", "name": "sl", "attrs": {"begin": "(None, 1)", "end": "(None, -1)", "step": "(None, 2)"},
         "inputs": [[0, 0, 0]]},
        {"op": "slice_axis", "name": "sa", "attrs": {"axis": "1", "begin": "1", "end": "None"},
         "inputs": [[1, 0, 0]]},
        {"op": "SliceChannel", "name": "sp", "attrs": {"num_outputs": "2"}, "inputs": [[2, 0, 0]]},
    ]
    graph = {"nodes": nodes, "arg_nodes": [0], "node_row_ptr": [0, 1, 2, 3, 5],
             "heads": [[3, 0, 0], [3, 1, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
    x = randn(2, 12)
    ref = x[:, 1:-1:2][:, 1:]
    for name in ("SliceChannel", "split"):
        nodes[3]["op"] = name
        sym = mx.sym.load_json(json.dumps(graph))
        assert sym.list_outputs() == ["sp_output0", "sp_output1"]
        check_symbolic_forward(sym, {"x": x}, np.split(ref, 2, axis=1), rtol=0, atol=0, dtype=np.float64)
    # and symnet writes what MXNet writes (SliceChannel, "None" for an explicit end=None)
    nodes[3]["op"] = "SliceChannel"
    v = mx.sym.var("x")
    written = json.loads(mx.sym.split(mx.sym.slice_axis(mx.sym.slice(v, begin=(None, 1), end=(None, -1),
                                                                      step=(None, 2), name="sl"),
                                                         axis=1, begin=1, end=None, name="sa"),
                                      num_outputs=2, name="sp").tojson())
    assert [(n["op"], n.get("attrs", {})) for n in written["nodes"]] == [(n["op"], n.get("attrs", {}))
                                                                          for n in nodes]


def test_bad_inputs_are_clear_errors():
    v = mx.sym.var("x")
    # rules of the attributes alone: when the node is made
    with pytest.raises(mx.MXNetError, match=r"operator slice \(node 's1'\): begin \(0, 0\) and end \(3,\) "
                                            r"must have the same length"):
        mx.sym.slice(v, begin=(0, 0), end=(3,), name="s1")
    with pytest.raises(mx.MXNetError, match=r"node 's1'.*step \(1, 0\): step\[1\] is 0"):
        mx.sym.slice(v, begin=(0, 0), end=(3, 3), step=(1, 0), name="s1")
    with pytest.raises(mx.MXNetError, match=r"node 's1'.*step \(1,\) must be empty or have one entry per "
                                            r"entry of begin \(0, 0\)"):
        mx.sym.slice(v, begin=(0, 0), end=(3, 3), step=(1,), name="s1")
    with pytest.raises(mx.MXNetError, match=r"Invalid Parameter format for begin expect Shape\(tuple\) but "
                                            r"value='\(0, x\)'"):
        mx.sym.slice(v, begin="(0, x)", end=(3, 3))
    with pytest.raises(mx.MXNetError, match=r"node 'sa'.*Required parameter end"):
        mx.sym.slice_axis(v, axis=1, begin=2, name="sa")
    with pytest.raises(mx.MXNetError, match=r"node 'sp'.*num_outputs should be greater equal to 1"):
        mx.sym.split(v, num_outputs=0, name="sp")
    # rules against the input's shape: at shape inference, naming the node
    with pytest.raises(mx.MXNetError, match=r"node 's1' \(operator slice\): slice: begin \(0, 0\) has 2 "
                                            r"entries, more than the dims of the input of shape \(10,\)"):
        mx.sym.slice(v, begin=(0, 0), end=(3, 3), name="s1").infer_shape(x=(10,))
    with pytest.raises(mx.MXNetError, match=r"slice needs an input of at least one dim, got shape \(\)"):
        mx.sym.slice(v, begin=(), end=()).infer_shape(x=())
    with pytest.raises(mx.MXNetError, match=r"node 'sa' \(operator slice_axis\): slice_axis: axis 2 is out of "
                                            r"range for an input of shape \(2, 3\) \(expected -2 to 1\)"):
        mx.sym.slice_axis(v, axis=2, begin=0, end=None, name="sa").infer_shape(x=(2, 3))
    # slice_axis does not clamp (MXNet 1.9.1 rejects these; slice would clamp them)
    with pytest.raises(mx.MXNetError, match=r"slice_axis: end 5 is past the end .* for axis 1 of an input of "
                                            r"shape \(2, 3\) \(length 3\)"):
        mx.sym.slice_axis(v, axis=1, begin=0, end=5).infer_shape(x=(2, 3))
    with pytest.raises(mx.MXNetError, match=r"slice_axis: begin -5 is before the start"):
        mx.sym.slice_axis(v, axis=1, begin=-5, end=None).infer_shape(x=(2, 3))
    with pytest.raises(mx.MXNetError, match=r"slice_axis: begin 2 and end 1 select nothing"):
        mx.sym.slice_axis(v, axis=1, begin=2, end=1).infer_shape(x=(2, 3))
    with pytest.raises(mx.MXNetError, match=r"slice_axis: begin 0 and end -3 select nothing"):
        mx.sym.slice_axis(v, axis=1, begin=0, end=-3).infer_shape(x=(2, 3))
    with pytest.raises(mx.MXNetError, match=r"node 'sp' \(operator SliceChannel\): split: num_outputs 4 does not "
                                            r"divide the length 6 of axis 1 of the input of shape \(2, 6\)"):
        mx.sym.split(v, num_outputs=4, name="sp").infer_shape(x=(2, 6))
    with pytest.raises(mx.MXNetError, match=r"split: squeeze_axis=True needs axis 1 of length num_outputs \(2\), "
                                            r"but the input of shape \(2, 6\) has 6"):
        mx.sym.split(v, num_outputs=2, squeeze_axis=True).infer_shape(x=(2, 6))
    with pytest.raises(mx.MXNetError, match=r"split: axis 2 is out of range for an input of shape \(2, 6\)"):
        mx.sym.SliceChannel(v, num_outputs=2, axis=2).infer_shape(x=(2, 6))
    # imperative calls give the same messages
    with pytest.raises(mx.MXNetError, match=r"split: num_outputs 4 does not divide"):
        mx.nd.split(mx.nd.ones((2, 6)), num_outputs=4)
    with pytest.raises(mx.MXNetError, match=r"slice_axis: end 5 is past the end"):
        mx.nd.slice_axis(mx.nd.ones((2, 3)), axis=1, begin=0, end=5)
