"""The binary math and comparison ops in MXNet's three forms: same-shape (_maximum, _power,
_equal, ...), broadcast (broadcast_maximum, ...) and with a scalar (_maximum_scalar,
_rpower_scalar, ...), plus logical_not. NumPy references in float32 and float64, float64 finite
differences, the exact tie and jump rules of the gradients, grad_req='add', float16/bfloat16
against float32, the Python functions and operators (mx.nd.maximum, a ** b, a > 1, ...) with the
ops MXNet 1.9.1 writes for them, and the errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req

rng = np.random.RandomState(11)


def np_mod(a, b):
    """MXNet's mod: the sign of the divisor (numpy's), and 0 where the divisor is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b == 0, 0.0, np.mod(a, b))


# name -> numpy function
MATH = {"maximum": np.maximum, "minimum": np.minimum, "power": np.power, "mod": np_mod,
        "hypot": np.hypot}
LOGIC = {"equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
         "greater_equal": np.greater_equal, "lesser": np.less, "lesser_equal": np.less_equal,
         "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}
ALL = dict(MATH, **LOGIC)


def operands(name, sa, sb):
    """Random operands inside the op's domain and away from its jumps (integer quotients of mod;
    max/min ties have probability 0), so that finite differences hold; comparisons get some equal
    entries, so that == and <= are tested where they are true."""
    a, b = rng.uniform(-2, 2, size=sa), rng.uniform(-2, 2, size=sb)
    if name == "power":
        a = rng.uniform(0.5, 2, size=sa)
    elif name == "mod":
        b = np.sign(b) * rng.uniform(0.5, 1.5, size=sb)
        q = a / b  # keep a/b 0.2 away from integers, where the gradient in b jumps
        a = np.where(np.abs(q - np.round(q)) < 0.2, a + 0.4 * b, a) if sa == sb else a
    elif name in LOGIC:
        a, b = np.round(a), np.round(b)  # integers in [-2, 2]: ties and zeros are common
    return a, b


# (lhs shape, rhs shape) for the broadcast ops: one side broadcast, both sides, a vector, 4-D
BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 1, 4), (1, 5, 4)), ((2, 3), (3,)), ((1,), (4, 2)),
                    ((2, 1, 3, 1), (4, 1, 1))]
# scalars for the scalar forms, chosen inside each op's domain
SCALARS = {"maximum": 0.3, "minimum": -0.4, "power": 1.7, "mod": -1.3, "hypot": 0.8,
           "equal": 1.0, "not_equal": 0.0, "greater": 0.0, "greater_equal": 1.0, "lesser": 0.0,
           "lesser_equal": -1.0, "logical_and": 2.0, "logical_or": 0.0, "logical_xor": 1.0}


def _var2(op_name):
    return getattr(mx.sym, op_name)(mx.sym.var("a"), mx.sym.var("b"))


@pytest.mark.parametrize("name", sorted(ALL))
def test_same_shape_and_broadcast_forward_match_numpy(name):
    for sa, sb in BROADCAST_SHAPES:
        a, b = operands(name, sa, sb)
        expected = ALL[name](a, b).astype(np.float64)
        ops = ["broadcast_" + name] + (["_" + name] if sa == sb else [])
        for op in ops:
            for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-5)):
                check_symbolic_forward(_var2(op), {"a": a, "b": b}, [expected], rtol=tol, atol=tol,
                                       dtype=dtype)


@pytest.mark.parametrize("name", sorted(ALL))
def test_scalar_forms_match_numpy(name):
    a = operands(name, (3, 5), (3, 5))[0]
    s = SCALARS[name]
    x = mx.sym.var("x")
    cases = [("_%s_scalar" % name, ALL[name](a, s))]
    if name in ("power", "mod"):  # the reversed forms s ^ x and s mod x
        xs = np.abs(a) + 0.5 if name == "power" else a
        cases.append(("_r%s_scalar" % name, ALL[name](s, xs)))
    for op, expected in cases:
        loc = {"x": xs if op.startswith("_r") else a}
        sym = getattr(mx.sym, op)(x, scalar=s)
        check_symbolic_forward(sym, loc, [np.asarray(expected, np.float64)], rtol=1e-12, atol=1e-12,
                               dtype=np.float64)


@pytest.mark.parametrize("name", sorted(MATH))
def test_gradients_match_finite_differences(name):
    for sa, sb in BROADCAST_SHAPES[:3]:
        a, b = operands(name, sa, sb)
        ops = ["broadcast_" + name] + (["_" + name] if sa == sb else [])
        for op in ops:
            check_numeric_gradient(_var2(op), {"a": a, "b": b}, rtol=1e-6, atol=1e-9)
    a = operands(name, (3, 4), (3, 4))[0]
    x = mx.sym.var("x")
    check_numeric_gradient(getattr(mx.sym, "_%s_scalar" % name)(x, scalar=SCALARS[name]), {"x": a})
    if name in ("power", "mod"):
        check_numeric_gradient(getattr(mx.sym, "_r%s_scalar" % name)(x, scalar=2.5),
                               {"x": np.abs(a) + 0.5 if name == "power" else np.sign(a) * 0.7 + 0.1 * a})


def test_gradients_follow_mxnet_at_ties_and_jumps():
    """max/min send dy to the left input at a tie (MXNet's >= and <=); mod's gradient is
    (1, -floor(a/b)); comparisons and logical ops have zero gradients."""
    a = np.array([1.0, 2.0, 3.0, -1.0])
    b = np.array([1.0, 3.0, 2.0, -1.0])
    dy = np.array([10.0, 20.0, 30.0, 40.0])
    loc = {"a": a, "b": b}
    ge, lt = (a >= b).astype(float), (a < b).astype(float)
    for op in ("_maximum", "broadcast_maximum"):
        check_symbolic_backward(_var2(op), loc, [dy], {"a": dy * ge, "b": dy * lt}, dtype=np.float64)
    le, gt = (a <= b).astype(float), (a > b).astype(float)
    check_symbolic_backward(_var2("_minimum"), loc, [dy], {"a": dy * le, "b": dy * gt}, dtype=np.float64)
    x = mx.sym.var("x")
    check_symbolic_backward(mx.sym._maximum_scalar(x, scalar=2.0), {"x": a}, [dy], {"x": dy * (a >= 2)},
                            dtype=np.float64)
    check_symbolic_backward(mx.sym._minimum_scalar(x, scalar=2.0), {"x": a}, [dy], {"x": dy * (a <= 2)},
                            dtype=np.float64)
    am, bm = np.array([5.5, -5.5, 5.5, 0.3]), np.array([2.0, 2.0, -2.0, 0.7])
    check_symbolic_backward(_var2("_mod"), {"a": am, "b": bm}, [dy],
                            {"a": dy, "b": -dy * np.floor(am / bm)}, dtype=np.float64)
    for name in LOGIC:
        for op in ("_" + name, "broadcast_" + name):
            check_symbolic_backward(_var2(op), loc, [dy], {"a": np.zeros(4), "b": np.zeros(4)},
                                    dtype=np.float64)
        check_symbolic_backward(getattr(mx.sym, "_%s_scalar" % name)(x, scalar=1.0), {"x": a}, [dy],
                                {"x": np.zeros(4)}, dtype=np.float64)
    check_symbolic_backward(mx.sym.logical_not(x), {"x": a}, [dy], {"x": np.zeros(4)}, dtype=np.float64)


def test_mod_follows_the_divisor_sign_and_gives_zero_for_zero():
    a = np.array([5.0, -5.0, 5.0, -5.0, 4.0, 3.0, 0.0])
    b = np.array([3.0, 3.0, -3.0, -3.0, 2.0, 0.0, -2.0])
    out = mx.nd._mod(mx.nd.array(a), mx.nd.array(b)).asnumpy()
    np.testing.assert_array_equal(out, [2.0, 1.0, -1.0, -2.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(mx.nd._rmod_scalar(mx.nd.array([3.0, -3.0, 0.0]), scalar=7).asnumpy(),
                                  [1.0, -2.0, 0.0])


def test_logical_not():
    a = np.array([[0.0, 1.0, -2.5], [0.0, 0.0, 3.0]])
    np.testing.assert_array_equal(mx.nd.logical_not(mx.nd.array(a)).asnumpy(), np.logical_not(a))
    check_16bit(mx.sym.logical_not(mx.sym.var("x")), {"x": a})


@pytest.mark.parametrize("name", sorted(ALL))
def test_grad_req_add_and_16bit(name):
    a, b = operands(name, (3, 1, 4), (1, 5, 4))
    sym = _var2("broadcast_" + name)
    check_add_req(sym, {"a": a, "b": b})
    a2, b2 = operands(name, (4, 5), (4, 5))
    check_add_req(_var2("_" + name), {"a": a2, "b": b2})
    # 16-bit: same rounded inputs; power and hypot compute in float32 inside and round once
    check_16bit(sym, {"a": a, "b": b})
    check_16bit(getattr(mx.sym, "_%s_scalar" % name)(mx.sym.var("x"), scalar=SCALARS[name]), {"x": a})


def test_python_functions_and_operators_run_the_ops_mxnet_writes():
    a_np, b_np = np.array([1.0, 2.0, 3.0]), np.array([[3.0], [2.0]])
    a, b = mx.nd.array(a_np), mx.nd.array(b_np)
    checks = [
        (mx.nd.maximum(a, b), np.maximum(a_np, b_np)), (mx.nd.minimum(a, 2), np.minimum(a_np, 2)),
        (mx.nd.power(2, a), 2 ** a_np), (a ** 2, a_np ** 2), (2 ** a, 2 ** a_np), (a ** b, a_np ** b_np),
        (a % 2, a_np % 2), (7 % a, 7 % a_np), (mx.nd.modulo(a, b), a_np % b_np),
        (a == b, a_np == b_np), (a != 2, a_np != 2), (a > b, a_np > b_np), (1 < a, 1 < a_np),
        (a >= 2, a_np >= 2), (3 <= a, 3 <= a_np), (a < b, a_np < b_np),
        (mx.nd.logical_xor(a, b), np.logical_xor(a_np, b_np)), (mx.nd.hypot(a, 4), np.hypot(a_np, 4)),
        (mx.nd.greater(2, a), 2 > a_np), (mx.nd.lesser_equal(2, a), 2 <= a_np),
    ]
    for got, want in checks:
        assert isinstance(got, mx.nd.NDArray) and got.dtype == np.float32
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    c = mx.nd.array([5.0, -5.0])
    c %= 3
    np.testing.assert_array_equal(c.asnumpy(), [2.0, 1.0])
    assert mx.nd.maximum(2, 3) == 3 and mx.nd.power(2, 3) == 8  # two scalars: Python's answer
    assert (a == None) is False and a != "x"  # noqa: E711 (other operands fall back to identity)
    assert {a: 1}[a] == 1  # arrays stay hashable (by identity)
    assert bool(mx.nd.array([2.0]) > 1) and not bool(mx.nd.zeros((0,)))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(a > 1)
    with pytest.raises(TypeError, match="maximum: unsupported operand types"):
        mx.nd.maximum(a, "x")
    # the symbol API composes the same-shape and scalar ops, as MXNet 1.9.1 writes them in JSON
    x, y = mx.sym.var("x"), mx.sym.var("y")
    expected_ops = [
        (mx.sym.maximum(x, 2), "_maximum_scalar"), (mx.sym.maximum(x, y), "_maximum"),
        (mx.sym.minimum(3, y), "_minimum_scalar"), (x ** 2, "_power_scalar"), (2 ** x, "_rpower_scalar"),
        (x % y, "_mod"), (3 % x, "_rmod_scalar"), (x > 1, "_greater_scalar"), (1 < x, "_greater_scalar"),
        (x <= y, "_lesser_equal"), (x == y, "_equal"), (x != 0, "_not_equal_scalar"),
        (mx.sym.pow(x, y), "_power"), (mx.sym.hypot(x, 3), "_hypot_scalar"),
    ]
    for s, op in expected_ops:
        ops = [n["op"] for n in json.loads(s.tojson())["nodes"] if n["op"] != "null"]
        assert ops == [op], (ops, op)
    assert {x: 1}[x] == 1


def test_mxnet_json_names_and_aliases_load():
    """MXNet's legacy names (_Maximum, _PowerScalar, _Not_Equal, ...) are aliases of the ops."""
    for alias, op in [("_Maximum", "_maximum"), ("_Power", "_power"), ("_Not_Equal", "_not_equal"),
                      ("_Greater_Equal", "_greater_equal"), ("_Logical_Xor", "_logical_xor"),
                      ("_PowerScalar", "_power_scalar"), ("_RPowerScalar", "_rpower_scalar"),
                      ("_RModScalar", "_rmod_scalar"), ("_LesserEqualScalar", "_lesser_equal_scalar"),
                      ("_HypotScalar", "_hypot_scalar"), ("_MinimumScalar", "_minimum_scalar")]:
        scalar = "Scalar" in alias
        nodes = [{"op": "null", "name": "x", "inputs": []}]
        inputs = [[0, 0, 0]]
        if not scalar:
            nodes.append({"op": "null", "name": "y", "inputs": []})
            inputs.append([1, 0, 0])
        nodes.append({"op": alias, "name": "f", "inputs": inputs, **({"attrs": {"scalar": "2"}} if scalar else {})})
        doc = {"nodes": nodes, "arg_nodes": list(range(len(nodes) - 1)), "heads": [[len(nodes) - 1, 0, 0]]}
        sym = mx.sym.load_json(json.dumps(doc))
        xv = np.array([1.5, 3.0])
        args = {"x": mx.nd.array(xv)} if scalar else {"x": mx.nd.array(xv), "y": mx.nd.array([2.0, 3.0])}
        want = getattr(mx.nd, op)(*args.values(), **({"scalar": 2.0} if scalar else {})).asnumpy()
        np.testing.assert_array_equal(sym.eval(mx.cpu(), **args)[0].asnumpy(), want)


def test_shape_errors_name_the_node_and_shapes():
    with pytest.raises(mx.MXNetError, match=r"node 'pw' \(operator broadcast_power\): operands could not be "
                                            r"broadcast together with shapes \(2, 3\) and \(4, 3\)"):
        mx.sym.broadcast_power(mx.sym.var("a"), mx.sym.var("b"), name="pw").infer_shape(a=(2, 3), b=(4, 3))
    with pytest.raises(mx.MXNetError, match=r"node 'mx' \(operator _maximum\) for input 'rhs' \(variable 'b'\): "
                                            r"it has shape \(4, 3\) but the operator expects \(2, 3\)"):
        mx.sym._maximum(mx.sym.var("a"), mx.sym.var("b"), name="mx").infer_shape(a=(2, 3), b=(4, 3))
    with pytest.raises(mx.MXNetError, match="scalar"):
        mx.nd._power_scalar(mx.nd.ones((2,)), scalar="two")


# MXNet 1.9.1's mxnet.ndarray.ndarray.__all__ (its public functions and tables)
MXNET_NDARRAY_MODULE = [
    "NDArray", "concatenate", "_DTYPE_NP_TO_MX", "_DTYPE_MX_TO_NP", "_GRAD_REQ_MAP", "ones", "add",
    "arange", "linspace", "eye", "divide", "equal", "full", "greater", "greater_equal", "imdecode",
    "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
    "moveaxis", "modulo", "multiply", "not_equal", "onehot_encode", "power", "subtract",
    "true_divide", "waitall", "_new_empty_handle", "histogram", "split_v2", "to_dlpack_for_read",
    "to_dlpack_for_write", "from_dlpack", "from_numpy", "zeros", "indexing_key_expand_implicit_axes",
    "get_indexing_dispatch_code", "get_oshape_of_gather_nd_op"]


def test_every_name_of_mxnet_ndarray_module_exists():
    missing = [n for n in MXNET_NDARRAY_MODULE if not hasattr(mx.nd.ndarray, n) or not hasattr(mx.nd, n)]
    assert not missing, missing


def test_arithmetic_functions_dispatch_like_mxnet():
    """mx.nd.add/subtract/multiply/divide/true_divide: array and array (broadcast where shapes
    differ), array and scalar, scalar and array, two scalars (Python's answer); comparisons of
    two scalars give 1 or 0 (MXNet's int), maximum/minimum MXNet's `x if x > y else y`."""
    a_np, b_np = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 8.0]]), np.array([[2.0], [4.0]])
    a, b = mx.nd.array(a_np), mx.nd.array(b_np)
    cases = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
             ("divide", np.divide), ("true_divide", np.divide)]
    for name, ref in cases:
        f = getattr(mx.nd, name)
        for x, y, xn, yn in ((a, b, a_np, b_np), (b, a, b_np, a_np), (a, a, a_np, a_np),
                             (a, 2.5, a_np, 2.5), (3, a, 3, a_np)):
            got = f(x, y)
            assert isinstance(got, mx.nd.NDArray)
            np.testing.assert_allclose(got.asnumpy(), ref(xn, yn), rtol=1e-6)
        assert f(6, 4) == ref(6, 4)
        with pytest.raises(TypeError):
            f(a, "x")
    assert mx.nd.divide(mx.nd.sum(mx.nd.abs(a)), 6).asscalar() == pytest.approx(23 / 6)
    assert mx.nd.equal(3, 3) == 1 and type(mx.nd.equal(3, 2)) is int and mx.nd.greater(3, 2) == 1
    assert mx.nd.logical_xor(2, 0) == 1 and type(mx.nd.logical_and(2.0, 1.0)) is int
    assert mx.nd.maximum(float("nan"), 1) == 1 and np.isnan(mx.nd.maximum(1, float("nan")))
