"""dot and batch_dot: numpy reference (float32 and float64), float64 finite differences,
grad_req='add', float16/bfloat16 against float32, MXNet's shape rules and the errors."""

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req

rng = np.random.RandomState(7)

# (lhs shape, rhs shape, transpose_a, transpose_b): matrices in every transposition, vectors
# (MXNet's dot of two vectors has shape (1,)), and N-D arrays flattened around the contracted axis
DOT_CASES = [
    ((3, 4), (4, 5), False, False),
    ((4, 3), (4, 5), True, False),
    ((3, 4), (5, 4), False, True),
    ((4, 3), (5, 4), True, True),
    ((6,), (6,), False, False),
    ((6,), (6, 2), False, False),
    ((2, 6), (6,), False, False),
    ((2, 3, 4), (4, 5), False, False),
    ((4, 2, 3), (4, 5, 2), True, False),
    ((2, 3, 4), (5, 2, 4), False, True),
]
# (lhs shape, rhs shape, transpose_a, transpose_b): one or two batch dims
BATCH_DOT_CASES = [
    ((3, 2, 4), (3, 4, 5), False, False),
    ((3, 4, 2), (3, 4, 5), True, False),
    ((3, 2, 4), (3, 5, 4), False, True),
    ((2, 3, 4, 2), (2, 3, 5, 4), True, True),
]


def np_dot(a, b, ta, tb):
    a = np.moveaxis(a, 0, -1) if ta else a  # contract lhs's first axis
    b = np.moveaxis(b, -1, 0) if tb else b  # contract rhs's last axis
    out = np.tensordot(a, b, axes=([-1], [0]))
    return out.reshape(1) if out.ndim == 0 else out


def np_batch_dot(a, b, ta, tb):
    return np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)


def _case_id(c):
    return "%sx%s%s%s" % (c[0], c[1], "_ta" if c[2] else "", "_tb" if c[3] else "")


def _check(op, ref, sa, sb, ta, tb):
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    sym = getattr(mx.sym, op)(mx.sym.var("a"), mx.sym.var("b"), transpose_a=ta, transpose_b=tb)
    loc = {"a": a, "b": b}
    expected = ref(a, b, ta, tb)
    check_symbolic_forward(sym, loc, [expected], rtol=1e-5, atol=1e-5)
    check_symbolic_forward(sym, loc, [expected], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, loc)
    # the exact gradients: d/da sum(dy * f(a, b)) through numpy's own products
    dy = rng.normal(size=expected.shape)
    ea = np.zeros_like(a)
    eb = np.zeros_like(b)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = 1
        ea[i] = (ref(e, b, ta, tb) * dy).sum()  # f is linear in a
    for i in np.ndindex(b.shape):
        e = np.zeros_like(b)
        e[i] = 1
        eb[i] = (ref(a, e, ta, tb) * dy).sum()
    check_symbolic_backward(sym, loc, [dy], {"a": ea, "b": eb}, rtol=1e-10, atol=1e-12, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    # float16: float32 accumulation (oneDNN through staging, cuBLAS natively); bfloat16 likewise
    check_16bit(sym, loc, rtol_f16=2e-3, rtol_bf16=1e-2)
    out = getattr(mx.nd, op)(mx.nd.array(a), mx.nd.array(b), transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sa,sb,ta,tb", DOT_CASES, ids=[_case_id(c) for c in DOT_CASES])
def test_dot(sa, sb, ta, tb):
    _check("dot", np_dot, sa, sb, ta, tb)


@pytest.mark.parametrize("sa,sb,ta,tb", BATCH_DOT_CASES, ids=[_case_id(c) for c in BATCH_DOT_CASES])
def test_batch_dot(sa, sb, ta, tb):
    _check("batch_dot", np_batch_dot, sa, sb, ta, tb)


def test_dot_shape_inference_and_json_match_mxnet():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    d = mx.sym.dot(a, b, transpose_b=True, name="d")
    assert d.list_arguments() == ["a", "b"]
    _, out, _ = d.infer_shape(a=(2, 3, 4), b=(5, 6, 4))
    assert out == [(2, 3, 5, 6)]
    assert d.attr_dict()["d"] == {"transpose_b": "True"}
    # a symbol file written by MXNet 1.9.1 (mx.sym.batch_dot(a, b, transpose_a=True)), attributes as strings
    js = (
        '{"nodes": [{"op": "null", "name": "a", "inputs": []}, {"op": "null", "name": "b", "inputs": []},'
        ' {"op": "batch_dot", "name": "bd", "attrs": {"transpose_a": "True", "forward_stype": "None"},'
        ' "inputs": [[0, 0, 0], [1, 0, 0]]}], "arg_nodes": [0, 1], "heads": [[2, 0, 0]],'
        ' "attrs": {"mxnet_version": ["int", 10901]}}'
    )
    _, out, _ = mx.sym.load_json(js).infer_shape(a=(7, 4, 2), b=(7, 4, 3))
    assert out == [(7, 2, 3)]


def test_dot_errors_name_the_node_and_shapes():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    with pytest.raises(
        mx.MXNetError,
        match=r"node 'd1'.*dot: lhs \(2, 3\) and rhs \(4, 5\) do not share "
        r"the contracted dim: lhs's last dim is 3, rhs's first dim is 4",
    ):
        mx.sym.dot(a, b, name="d1").infer_shape(a=(2, 3), b=(4, 5))
    with pytest.raises(mx.MXNetError, match=r"batch_dot: lhs \(2, 3, 4\) and rhs \(3, 4, 5\) differ in batch dim 0"):
        mx.nd.batch_dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((3, 4, 5)))
    with pytest.raises(mx.MXNetError, match=r"batch_dot needs lhs and rhs of the same number of dims, at least 3"):
        mx.nd.batch_dot(mx.nd.ones((3, 4)), mx.nd.ones((4, 5)))
    with pytest.raises(mx.MXNetError, match=r"do not chain: lhs has 4 columns, rhs 5 rows"):
        mx.nd.batch_dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((2, 5, 4)))
    with pytest.raises(mx.MXNetError, match="sparse arrays"):
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 4)), forward_stype="csr")
    with pytest.raises(mx.MXNetError, match="operator dot: input 0 has float32 but the operator expects float64"):
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 4), dtype="float64"))


def test_dot_runs_in_16_bits_under_amp_as_a_matrix_product():
    """dot and batch_dot are AMP target ops (MXNet lists them as widest-type casts): a float32
    graph converted for bfloat16 runs them in bfloat16."""
    from symnet import amp

    x = mx.sym.var("x")
    y = mx.sym.batch_dot(mx.sym.dot(x, mx.sym.var("w"), name="d"), mx.sym.var("z"), name="bd")
    conv = amp.convert_symbol(y, target_dtype="bfloat16")
    internals = conv.get_internals()
    _, types, _ = internals.infer_type(x="float32", w="float32", z="float32")
    dtypes = dict(zip(internals.list_outputs(), types))
    assert np.dtype(dtypes["d_output"]).itemsize == 2 and np.dtype(dtypes["bd_output"]).itemsize == 2


@pytest.mark.parametrize("op,sa,sb", [("dot", (2, 0), (0, 3)), ("batch_dot", (4, 2, 0), (4, 0, 3))])
def test_an_empty_contraction_gives_zeros(op, sa, sb):
    """k = 0: a sum of nothing. The output is zeros (or unchanged under grad_req='add' for the
    backward), as numpy's matmul gives."""
    sym = getattr(mx.sym, op)(mx.sym.var("a"), mx.sym.var("b"))
    exe = sym.simple_bind(mx.cpu(), a=sa, b=sb)
    exe.outputs[0][:] = 5.0
    out = exe.forward(is_train=True)[0].asnumpy()
    np.testing.assert_array_equal(out, np.matmul(np.zeros(sa), np.zeros(sb)))
    exe.backward([mx.nd.ones(out.shape)])
    assert exe.grad_dict["a"].shape == sa and exe.grad_dict["b"].shape == sb
