"""broadcast_to, broadcast_like, broadcast_axis, tile, repeat, reverse, stack, SwapAxis and
reshape_like: NumPy references in float32 and float64, float64 finite differences, the exact
backward (each input element gets the sum of dy over the places it was copied to), grad_req='add',
float16 and bfloat16 against float32, imperative calls, MXNet 1.9.1's JSON, and the bad-input
errors.

SHAPE_CASES (built from the per-op tables) is also what tests/python/gpu/test_operator_gpu.py
compares between the CPU and a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# Each case is (op, input shapes, attributes); ops with two inputs take (lhs, rhs), stack takes
# one shape per input. Aliases appear under their own names so both spellings are run.
BROADCAST_TO_CASES = [
    ("broadcast_to", [(1, 3)], dict(shape=(4, 3))),
    ("broadcast_to", [(2, 1, 3, 1)], dict(shape=(2, 5, 0, 4))),  # 0 keeps the input's dim
    ("broadcast_to", [(3, 1, 1, 2, 1)], dict(shape=(3, 2, 4, 2, 3))),
    ("broadcast_axis", [(1, 2, 1)], dict(axis=2, size=3)),
    ("broadcast_axes", [(1, 2, 1)], dict(axis=(0, 2), size=(2, 3))),
    ("broadcast_axis", [(1, 4, 1, 1)], dict(axis=(3, 0), size=(5, 2))),
    ("broadcast_like", [(1, 3), (4, 3)], {}),
    ("broadcast_like", [(2, 1, 1), (2, 3, 4)], {}),
    ("broadcast_like", [(1,), (1, 2, 3, 4, 5)], dict(lhs_axes=(0,), rhs_axes=(-1,))),
    ("broadcast_like", [(1, 3, 1), (4, 5)], dict(lhs_axes=(0, 2), rhs_axes=(1, 0))),
]
TILE_REPEAT_CASES = [
    ("tile", [(2, 3)], dict(reps=(2, 2))),
    ("tile", [(2, 3)], dict(reps=(3,))),  # reps padded with 1s at the front
    ("tile", [(2, 2)], dict(reps=(2, 1, 3))),  # the input padded with 1s at the front
    ("tile", [(3,)], dict(reps=())),
    ("tile", [(2, 1, 3, 2)], dict(reps=(2, 2, 2, 3))),  # eight dims before merging
    ("repeat", [(2, 3)], dict(repeats=2)),  # flattened
    ("repeat", [(2, 3)], dict(repeats=3, axis=0)),
    ("repeat", [(2, 3, 4)], dict(repeats=2, axis=-1)),
    ("repeat", [(2, 3, 4)], dict(repeats=1, axis=1)),
    ("repeat", [(5,)], dict(repeats=4, axis=None)),
]
REVERSE_CASES = [
    ("reverse", [(7,)], dict(axis=0)),
    ("flip", [(3, 4)], dict(axis=(1,))),
    ("reverse", [(2, 3, 4)], dict(axis=(0, 2))),
    ("flip", [(2, 3, 4)], dict(axis=(1, 1))),  # reversed twice: unchanged, as in MXNet
    ("reverse", [(2, 3, 1, 5)], dict(axis=(0, 1, 2, 3))),
]
STACK_CASES = [
    ("stack", [(3,)] * 2, {}),
    ("stack", [(2, 3)] * 3, dict(axis=1)),
    ("stack", [(2, 3)] * 2, dict(axis=-1)),
    ("stack", [(2, 3, 4)] * 4, dict(axis=-4)),
    ("stack", [(2, 3, 4)], dict(axis=2)),
]
SWAP_CASES = [
    ("SwapAxis", [(2, 3)], {}),  # dim1 = dim2 = 0: a copy
    ("swapaxes", [(2, 3)], dict(dim1=0, dim2=1)),
    ("SwapAxis", [(2, 3, 4)], dict(dim1=2, dim2=0)),
    ("swapaxes", [(2, 3, 4, 5)], dict(dim1=-1, dim2=1)),
]
RESHAPE_LIKE_CASES = [
    ("reshape_like", [(2, 3), (3, 2)], {}),
    ("reshape_like", [(6, 7), (3, 2, 4)], dict(lhs_begin=0, lhs_end=1, rhs_begin=0, rhs_end=2)),
    ("reshape_like", [(3, 5), (1, 15, 4)], dict(lhs_begin=0, lhs_end=2, rhs_begin=1, rhs_end=2)),
    ("reshape_like", [(3, 12), (4, 2, 2, 3)], dict(lhs_begin=-1, lhs_end=None, rhs_begin=1, rhs_end=None)),
]
SHAPE_CASES = BROADCAST_TO_CASES + TILE_REPEAT_CASES + REVERSE_CASES + STACK_CASES + SWAP_CASES + RESHAPE_LIKE_CASES


def shape_case_id(case):
    op, shapes, kw = case
    return "%s-%s-%s" % (op, "-".join(map(str, shapes)), ",".join("%s=%s" % i for i in sorted(kw.items())))


def _shape_input_names(op, n):
    if op == "stack":
        return ["x%d" % i for i in range(n)]
    return ["x", "y"][:n]


def shape_case_symbol(op, shapes, kw):
    """(symbol, {input name: shape}) of a case."""
    names = _shape_input_names(op, len(shapes))
    sym = getattr(mx.sym, op)(*[mx.sym.var(n) for n in names], name="op", **kw)
    return sym, dict(zip(names, shapes))


def np_shape_forward(op, kw, arrays):
    """NumPy's answer for one case (inputs in argument order)."""
    x = arrays[0]
    if op == "broadcast_to":
        return np.broadcast_to(x, [t or s for s, t in zip(x.shape, kw["shape"])])
    if op in ("broadcast_axis", "broadcast_axes"):
        shape = list(x.shape)
        for a, n in zip(np.atleast_1d(kw["axis"]), np.atleast_1d(kw["size"])):
            shape[a] = n
        return np.broadcast_to(x, shape)
    if op == "broadcast_like":
        shape = list(arrays[1].shape)
        if "lhs_axes" in kw:
            shape = list(x.shape)
            for la, ra in zip(kw["lhs_axes"], kw["rhs_axes"]):
                shape[la] = arrays[1].shape[ra]
        return np.broadcast_to(x, shape)
    if op == "tile":
        return np.tile(x, kw["reps"])
    if op == "repeat":
        return np.repeat(x, kw["repeats"], axis=kw.get("axis"))
    if op in ("reverse", "flip"):
        axes = np.atleast_1d(kw["axis"])
        odd = [a for a in set(axes.tolist()) if (axes == a).sum() % 2]
        return np.flip(x, axis=tuple(odd)) if odd else x
    if op == "stack":
        return np.stack(arrays, axis=kw.get("axis", 0))
    if op in ("SwapAxis", "swapaxes"):
        return np.swapaxes(x, kw.get("dim1", 0), kw.get("dim2", 0))
    if op == "reshape_like":
        ls, rs = x.shape, arrays[1].shape
        lb, le = kw.get("lhs_begin") or 0, kw.get("lhs_end")
        rb, re = kw.get("rhs_begin") or 0, kw.get("rhs_end")
        lb, le = slice(lb, le).indices(len(ls))[:2]
        rb, re = slice(rb, re).indices(len(rs))[:2]
        return x.reshape(ls[:lb] + rs[rb:re] + ls[le:])
    raise ValueError(op)


def np_shape_backward(op, kw, arrays, dy):
    """The exact gradients: every op here copies input elements to output places, so each input
    element gets the sum of dy over its copies (found by running the op on element numbers). Only
    the first input of broadcast_like and reshape_like is copied (rhs gives a shape): rhs gets 0."""
    copied = arrays if op == "stack" else arrays[:1]
    sizes = [a.size for a in copied]
    numbered = [np.arange(sum(sizes[:i]), sum(sizes[:i + 1])).reshape(a.shape) for i, a in enumerate(copied)]
    index = np_shape_forward(op, kw, numbered + list(arrays[len(copied):]))
    flat = np.bincount(index.ravel(), weights=dy.ravel(), minlength=sum(sizes))
    grads = [flat[sum(sizes[:i]):sum(sizes[:i + 1])].reshape(a.shape) for i, a in enumerate(copied)]
    return grads + [np.zeros(a.shape) for a in arrays[len(copied):]]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=shape_case_id)
def test_shape_op(case):
    op, shapes, kw = case
    sym, inputs = shape_case_symbol(op, shapes, kw)
    arrays = [randn(*s) for s in shapes]
    loc = dict(zip(inputs, arrays))
    ref = np_shape_forward(op, kw, arrays)
    assert sym.infer_shape(**inputs)[1] == [ref.shape]
    # copies: exact in float32 (of float32 inputs) and float64
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc)
    dy = randn(*ref.shape)
    expected = dict(zip(inputs, np_shape_backward(op, kw, arrays, dy)))
    check_symbolic_backward(sym, loc, [dy], expected, rtol=1e-14, atol=1e-14, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    nd = getattr(mx.nd, op)(*[mx.nd.array(a) for a in arrays], **kw)
    np.testing.assert_array_equal(nd.asnumpy(), ref.astype(np.float32))


def test_shape_ops_copy_every_dtype():
    """The forward passes copy any dtype (integers and bool too), as MXNet's do."""
    x = np.arange(6).reshape(2, 1, 3)
    for dtype in ["int32", "int64", "int8", "uint8", "float16", "bfloat16", "bool"]:
        v = x % 2 if dtype == "bool" else x
        a = mx.nd.array(v, dtype=dtype)
        for got, want in [
                (mx.nd.broadcast_to(a, shape=(0, 4, 0)), np.broadcast_to(v, (2, 4, 3))),
                (mx.nd.broadcast_axis(a, axis=1, size=2), np.broadcast_to(v, (2, 2, 3))),
                (mx.nd.tile(a, reps=(2, 1)), np.tile(v, (2, 1))),
                (mx.nd.repeat(a, repeats=2, axis=2), np.repeat(v, 2, axis=2)),
                (mx.nd.reverse(a, axis=(0, 2)), v[::-1, :, ::-1]),
                (mx.nd.stack(a, a, axis=3), np.stack([v, v], axis=3)),
                (mx.nd.reshape_like(a, mx.nd.ones((3, 2))), v.reshape(3, 2))]:
            assert got.dtype == a.dtype
            np.testing.assert_array_equal(got.asnumpy().astype(np.int64), want)


def test_shape_ops_rhs_dtype_is_free():
    """broadcast_like and reshape_like read only rhs's shape: rhs may have any dtype."""
    x, y = mx.sym.var("x"), mx.sym.var("y")
    for sym in (mx.sym.broadcast_like(x, y), mx.sym.reshape_like(x, y)):
        _, out, _ = sym.infer_type(x="float16", y="int32")
        assert out == [np.float16]
    got = mx.nd.broadcast_like(mx.nd.ones((1, 2), dtype="float64"), mx.nd.zeros((3, 2), dtype="int8"))
    assert got.dtype == np.float64 and got.shape == (3, 2)


def test_shape_ops_zero_copies_give_empty_outputs_and_zero_gradients():
    """tile with a rep of 0 and repeat with 0 repeats copy nothing: empty outputs (repeat's is
    (0,) whatever the axis, as MXNet 1.9.1's), and gradients of zeros written over the buffer."""
    x = randn(2, 3)
    for sym, shape in [(mx.sym.tile(mx.sym.var("x"), reps=(0, 2)), (0, 6)),
                       (mx.sym.repeat(mx.sym.var("x"), repeats=0, axis=1), (0,)),
                       (mx.sym.broadcast_axis(mx.sym.var("x"), axis=(0,), size=(0,)), None)]:
        data = x[:1] if shape is None else x
        shape = shape or (0, 3)
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": "float64"}, x=data.shape)
        exe.arg_dict["x"][:] = data
        exe.grad_dict["x"][:] = 7.0
        assert exe.forward(is_train=True)[0].shape == shape
        exe.backward([mx.nd.zeros(shape, dtype="float64")])
        np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.zeros(data.shape))


def test_shape_ops_large_copies_use_every_thread():
    """Above the one-thread threshold, forward and backward (write and add) against NumPy."""
    x = randn(40, 1, 50)
    for sym, ref, grad in [
            (mx.sym.broadcast_to(mx.sym.var("x"), shape=(0, 30, 0)), np.broadcast_to(x, (40, 30, 50)),
             lambda dy: dy.sum(axis=1, keepdims=True)),
            (mx.sym.tile(mx.sym.var("x"), reps=(2, 15, 1)), np.tile(x, (2, 15, 1)),
             lambda dy: dy.reshape(2, 40, 15, 1, 50).sum(axis=(0, 2))),
            (mx.sym.repeat(mx.sym.var("x"), repeats=30, axis=1), np.repeat(x, 30, axis=1),
             lambda dy: dy.sum(axis=1, keepdims=True)),
            (mx.sym.reverse(mx.sym.var("x"), axis=(0, 2)), x[::-1, :, ::-1], lambda dy: dy[::-1, :, ::-1])]:
        check_symbolic_forward(sym, {"x": x}, [ref], rtol=0, atol=0, dtype=np.float64)
        dy = randn(*ref.shape)
        check_symbolic_backward(sym, {"x": x}, [dy], {"x": grad(dy)}, rtol=1e-12, atol=1e-12, dtype=np.float64)
        check_symbolic_backward(sym, {"x": x}, [dy], {"x": grad(dy)}, rtol=1e-12, atol=1e-12, grad_req="add",
                                dtype=np.float64)


def test_shape_ops_take_mxnets_positional_parameters():
    x = mx.nd.array(np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(mx.nd.tile(x, (1, 2)).asnumpy(), np.tile(np.arange(6).reshape(2, 3), (1, 2)))
    np.testing.assert_array_equal(mx.nd.repeat(x, 2, 0).asnumpy(), [[0, 1, 2]] * 2 + [[3, 4, 5]] * 2)
    np.testing.assert_array_equal(mx.nd.flip(x, 1).asnumpy(), [[2, 1, 0], [5, 4, 3]])
    np.testing.assert_array_equal(mx.nd.swapaxes(x, 0, 1).asnumpy(), [[0, 3], [1, 4], [2, 5]])
    assert mx.nd.broadcast_to(x[0:1], (4, 3)).shape == (4, 3)
    assert mx.nd.broadcast_axes(mx.nd.ones((1, 3)), 0, 5).shape == (5, 3)
    assert mx.nd.stack(x, x, x, axis=1).shape == (2, 3, 3)
    assert mx.nd.stack([x, x], axis=-1).shape == (2, 3, 2)  # a list, as MXNet's *data


def test_shape_ops_json_as_mxnet_writes_it_loads():
    """MXNet 1.9.1's JSON for these ops (canonical names for the aliases, only the attributes given,
    an explicit None kept), and symnet writes the same."""
    nodes = [
        {"op": "null", "name": "x", "inputs": []},
        {"op": "null", "name": "y", "inputs": []},
        {"op": "broadcast_like", "name": "bl", "attrs": {"lhs_axes": "(0,)", "rhs_axes": "(-1,)"},
         "inputs": [[0, 0, 0], [1, 0, 0]]},
        {"op": "broadcast_axis", "name": "ba", "attrs": {"axis": "2", "size": "2"}, "inputs": [[2, 0, 0]]},
        {"op": "broadcast_to", "name": "bt", "attrs": {"shape": "(2, 0, 0)"}, "inputs": [[3, 0, 0]]},
        {"op": "tile", "name": "ti", "attrs": {"reps": "(1, 2)"}, "inputs": [[4, 0, 0]]},
        {"op": "repeat", "name": "re", "attrs": {"axis": "None", "repeats": "2"}, "inputs": [[5, 0, 0]]},
        {"op": "reverse", "name": "rv", "attrs": {"axis": "0"}, "inputs": [[6, 0, 0]]},
        {"op": "stack", "name": "st", "attrs": {"axis": "1", "num_args": "2"}, "inputs": [[7, 0, 0], [7, 0, 0]]},
        {"op": "SwapAxis", "name": "sw", "attrs": {"dim2": "1"}, "inputs": [[8, 0, 0]]},
        {"op": "reshape_like", "name": "rl", "attrs": {"lhs_begin": "None", "rhs_end": "-1"},
         "inputs": [[9, 0, 0], [1, 0, 0]]},
    ]
    graph = {"nodes": nodes, "arg_nodes": [0, 1], "node_row_ptr": list(range(len(nodes) + 1)),
             "heads": [[10, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
    x, y = randn(1, 3, 1), randn(8, 12, 2)
    ref = np.broadcast_to(np.broadcast_to(x, (2, 3, 1)), (2, 3, 2))
    ref = np.repeat(np.tile(ref, (1, 2)), 2)[::-1]
    ref = np.swapaxes(np.stack([ref, ref], axis=1), 0, 1).reshape(8, 12)
    sym = mx.sym.load_json(json.dumps(graph))
    check_symbolic_forward(sym, {"x": x, "y": y}, [ref], rtol=0, atol=0, dtype=np.float64)
    v, w = mx.sym.var("x"), mx.sym.var("y")
    s = mx.sym.broadcast_like(v, w, lhs_axes=(0,), rhs_axes=(-1,), name="bl")
    s = mx.sym.broadcast_axes(s, axis=2, size=2, name="ba")
    s = mx.sym.broadcast_to(s, shape=(2, 0, 0), name="bt")
    s = mx.sym.flip(mx.sym.repeat(mx.sym.tile(s, reps=(1, 2), name="ti"), repeats=2, axis=None, name="re"),
                    axis=0, name="rv")
    s = mx.sym.stack(s, s, axis=1, name="st")
    written = json.loads(mx.sym.reshape_like(mx.sym.swapaxes(s, dim2=1, name="sw"), w, lhs_begin=None, rhs_end=-1,
                                             name="rl").tojson())
    assert [(n["op"], n.get("attrs", {})) for n in written["nodes"]] == [(n["op"], n.get("attrs", {}))
                                                                          for n in nodes]


SHAPE_OP_ERRORS = [
    # attribute rules alone: when the node is made
    (lambda v, w: mx.sym.broadcast_to(v, shape=(2, -1), name="n"),
     r"operator broadcast_to \(node 'n'\): broadcast_to: shape \(2, -1\) has a negative entry"),
    (lambda v, w: mx.sym.broadcast_axis(v, axis=(0, 2), size=(3,), name="n"),
     r"node 'n'.*broadcast_axis: axis \(0, 2\) and size \(3,\) must have the same length"),
    (lambda v, w: mx.sym.broadcast_like(v, w, lhs_axes=(0,), rhs_axes=(0, 1), name="n"),
     r"node 'n'.*lhs_axes \(0,\) and rhs_axes \(0, 1\) must have the same length"),
    (lambda v, w: mx.sym.broadcast_like(v, w, lhs_axes=(), rhs_axes=(), name="n"),
     r"node 'n'.*lhs_axes and rhs_axes must not be empty"),
    (lambda v, w: mx.sym.tile(v, reps=(2, -1), name="n"), r"node 'n'.*tile: reps \(2, -1\) has a negative entry"),
    (lambda v, w: mx.sym.tile(v, name="n"), r"node 'n'.*Required parameter reps"),
    (lambda v, w: mx.sym.repeat(v, repeats=-1, name="n"), r"node 'n'.*repeat: repeats is -1; it cannot be negative"),
    (lambda v, w: mx.sym.reverse(v, name="n"), r"node 'n'.*Required parameter axis"),
    (lambda v, w: mx.sym.stack(v, w, num_args=0, name="n"), r"num_args"),
    # rules against the input shapes: at shape inference, naming the node
    (lambda v, w: mx.sym.broadcast_to(v, shape=(2, 3), name="n").infer_shape(x=(1, 4, 1)),
     r"node 'n' \(operator broadcast_to\): broadcast_to: the input of shape \(1, 4, 1\) cannot be broadcast to "
     r"\(2, 3\): shape must have the input's 3 dims"),
    (lambda v, w: mx.sym.broadcast_to(v, shape=(2, 5), name="n").infer_shape(x=(3, 1)),
     r"the input of shape \(3, 1\) cannot be broadcast to \(2, 5\): dim 0 has size 3, expected 1 or 2"),
    (lambda v, w: mx.sym.broadcast_axis(v, axis=1, size=3, name="n").infer_shape(x=(1, 2, 1)),
     r"node 'n' \(operator broadcast_axis\): broadcast_axis: axis 1 of the input of shape \(1, 2, 1\) has size 2; "
     r"only an axis of size 1 can be broadcast"),
    (lambda v, w: mx.sym.broadcast_axis(v, axis=-1, size=3, name="n").infer_shape(x=(1, 2, 1)),
     r"broadcast_axis: axis -1 is out of range for an input of shape \(1, 2, 1\) \(expected 0 to 2; negative"),
    (lambda v, w: mx.sym.broadcast_like(v, w, name="n").infer_shape(x=(3,), y=(4, 3)),
     r"node 'n' \(operator broadcast_like\): broadcast_like: lhs of shape \(3,\) cannot be broadcast like rhs of "
     r"shape \(4, 3\): they must have the same ndim"),
    (lambda v, w: mx.sym.broadcast_like(v, w, name="n").infer_shape(x=(2, 3), y=(4, 3)),
     r"dim 0 has size 2, expected 1 or 4"),
    (lambda v, w: mx.sym.broadcast_like(v, w, lhs_axes=(1,), rhs_axes=(0,), name="n").infer_shape(x=(1, 3), y=(4,)),
     r"lhs axis 1 of shape \(1, 3\) has size 3, but only an axis of size 1 can take the size 4 of rhs axis 0"),
    (lambda v, w: mx.sym.broadcast_like(v, w, lhs_axes=(0,), rhs_axes=(2,), name="n").infer_shape(x=(1, 3), y=(4,)),
     r"rhs_axes entry 2 is out of range for a shape \(4,\) \(expected -1 to 0\)"),
    (lambda v, w: mx.sym.repeat(v, repeats=2, axis=2, name="n").infer_shape(x=(2, 3)),
     r"node 'n' \(operator repeat\): repeat: axis 2 is out of range for an input of shape \(2, 3\) "
     r"\(expected -2 to 1, or None to flatten\)"),
    (lambda v, w: mx.sym.reverse(v, axis=(0, 3), name="n").infer_shape(x=(2, 3, 4)),
     r"node 'n' \(operator reverse\): reverse: axis 3 is out of range for an input of shape \(2, 3, 4\) "
     r"\(expected 0 to 2"),
    (lambda v, w: mx.sym.flip(v, axis=-1, name="n").infer_shape(x=(2, 3, 4)), r"reverse: axis -1 is out of range"),
    (lambda v, w: mx.sym.stack(v, w, axis=3, name="n").infer_shape(x=(2, 3), y=(2, 3)),
     r"node 'n' \(operator stack\): stack: axis 3 is out of range for inputs of shape \(2, 3\) \(expected -3 to 2\)"),
    (lambda v, w: mx.sym.stack(v, w, name="n").infer_shape(x=(2, 3), y=(2, 4)),
     r"shape mismatch in node 'n' \(operator stack\) for input 'input 1' \(variable 'y'\): it has shape \(2, 4\) "
     r"but the operator expects \(2, 3\)"),
    (lambda v, w: mx.sym.stack(v, w, name="n").infer_type(x="float32", y="float16"),
     r"dtype mismatch in node 'n' \(operator stack\)"),
    (lambda v, w: mx.sym.SwapAxis(v, dim1=3, name="n").infer_shape(x=(2, 3, 4)),
     r"node 'n' \(operator SwapAxis\): SwapAxis: dim1 3 is out of range for an input of shape \(2, 3, 4\) "
     r"\(expected -3 to 2\)"),
    (lambda v, w: mx.sym.swapaxes(v, dim2=-3, name="n").infer_shape(x=(2, 3)), r"SwapAxis: dim2 -3 is out of range"),
    (lambda v, w: mx.sym.reshape_like(v, w, name="n").infer_shape(x=(2, 3), y=(3, 3)),
     r"node 'n' \(operator reshape_like\): reshape_like: lhs of shape \(2, 3\) cannot take the shape \(3, 3\) "
     r"\(from rhs of shape \(3, 3\)\): they have different sizes"),
    (lambda v, w: mx.sym.reshape_like(v, w, lhs_begin=1, lhs_end=1, name="n").infer_shape(x=(2, 3), y=(3, 2)),
     r"reshape_like: lhs_begin 1 and lhs_end 1 do not select a non-empty range of the dims of lhs of shape \(2, 3\)"),
    (lambda v, w: mx.sym.reshape_like(v, w, rhs_begin=5, name="n").infer_shape(x=(2, 3), y=(3, 2)),
     r"reshape_like: rhs_begin 5 and rhs_end None do not select"),
    (lambda v, w: mx.sym.reshape_like(v, w, lhs_end=3, name="n").infer_shape(x=(2, 3), y=(3, 2)),
     r"reshape_like: lhs_begin None and lhs_end 3 do not select"),
]


@pytest.mark.parametrize("make,message", SHAPE_OP_ERRORS)
def test_shape_ops_bad_inputs_are_clear_errors(make, message):
    with pytest.raises(mx.MXNetError, match=message):
        make(mx.sym.var("x"), mx.sym.var("y"))


def test_shape_ops_imperative_calls_give_the_same_errors():
    with pytest.raises(mx.MXNetError, match=r"broadcast_to: the input of shape \(3, 1\) cannot be broadcast"):
        mx.nd.broadcast_to(mx.nd.ones((3, 1)), shape=(2, 5))
    with pytest.raises(mx.MXNetError, match=r"reverse: axis 2 is out of range"):
        mx.nd.reverse(mx.nd.ones((2, 2)), axis=2)
    with pytest.raises(mx.MXNetError, match=r"operator stack: input 1 has \(3, 2\) but the operator expects \(2, 3\)"):
        mx.nd.stack(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))
