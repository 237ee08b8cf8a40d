"""Integer dtypes (uint8, int8, int32, int64) in the element-wise, scalar, comparison, broadcast,
add_n, rounding and sort ops, with MXNet 1.9.1's semantics: results keep the input's dtype, a
float scalar is first converted to the array's dtype, division truncates, mod takes the divisor's
sign, comparisons give 1/0 in the input dtype, and int64 beyond 2^53 stays exact. Also MXNet's
refusal of in-place writes while autograd records."""
import numpy as np
import pytest

import symnet as mx

INT_TYPES = ["uint8", "int8", "int32", "int64"]


def _pair(dtype, nonzero=False):
    rng = np.random.RandomState(7)
    lo = 0 if dtype == "uint8" else -9
    a = rng.randint(lo, 10, size=(3, 4)).astype(dtype)
    b = rng.randint(lo, 10, size=(3, 4)).astype(dtype)
    if nonzero:
        b[b == 0] = 3
    return a, b


def _trunc_div(a, b):
    """C's integer division (towards zero), as MXNet's."""
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return (np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64)) * q).astype(a.dtype)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_binary_ops_keep_integer_dtype(dtype):
    a, b = _pair(dtype, nonzero=True)
    x, y = mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype)
    cases = {
        "add": (x + y, a + b),
        "sub": (x - y, a - b),
        "mul": (x * y, a * b),
        "div": (x / y, _trunc_div(a, b)),
        "mod": (x % y, np.mod(a, b)),
        "maximum": (mx.nd.maximum(x, y), np.maximum(a, b)),
        "minimum": (mx.nd.minimum(x, y), np.minimum(a, b)),
        "equal": ((x == y), (a == b).astype(dtype)),
        "greater": ((x > y), (a > b).astype(dtype)),
        "lesser_equal": ((x <= y), (a <= b).astype(dtype)),
        "logical_xor": (mx.nd.logical_xor(x, y), np.logical_xor(a, b).astype(dtype)),
    }
    for name, (got, want) in cases.items():
        assert got.dtype == np.dtype(dtype), name
        np.testing.assert_array_equal(got.asnumpy(), want, err_msg=name)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_broadcast_ops_on_integers(dtype):
    a, b = _pair(dtype, nonzero=True)
    x, y = mx.nd.array(a, dtype=dtype), mx.nd.array(b[:1], dtype=dtype)
    bb = b[:1]
    np.testing.assert_array_equal(mx.nd.broadcast_add(x, y).asnumpy(), a + bb)
    np.testing.assert_array_equal(mx.nd.broadcast_mul(x, y).asnumpy(), a * bb)
    np.testing.assert_array_equal(mx.nd.broadcast_div(x, y).asnumpy(), _trunc_div(a, np.broadcast_to(bb, a.shape)))
    np.testing.assert_array_equal(mx.nd.broadcast_mod(x, y).asnumpy(), np.mod(a, bb))
    got = mx.nd.broadcast_greater_equal(x, y)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.asnumpy(), (a >= bb).astype(dtype))


def test_scalar_ops_convert_the_scalar_to_the_array_dtype():
    # MXNet 1.9.1: int32 [-7, -3, 0, 3, 7] + 2.7 adds 2, * 2.7 multiplies by 2, > 2.5 compares with 2
    a = np.array([-7, -3, 0, 3, 7], dtype="int32")
    x = mx.nd.array(a, dtype="int32")
    expect = {
        "x + 2.7": [-5, -1, 2, 5, 9],
        "x * 2.7": [-14, -6, 0, 6, 14],
        "x / 2": [-3, -1, 0, 1, 3],
        "x % 3": [2, 0, 0, 0, 1],
        "x % -3": [-1, 0, 0, 0, -2],
        "x % 2.5": [1, 1, 0, 1, 1],
        "x ** 2": [49, 9, 0, 9, 49],
        "2 ** x": [0, 0, 1, 8, 128],
        "x > 2.5": [0, 0, 0, 1, 1],
        "x == 3": [0, 0, 0, 1, 0],
        "2.5 - x": [9, 5, 2, -1, -5],
        "7 % x": [0, -2, 0, 1, 0],
        "mx.nd.maximum(x, 2.5)": [2, 2, 2, 3, 7],
    }
    for expr, want in expect.items():
        got = eval(expr, {"mx": mx, "x": x})
        assert got.dtype == np.int32, expr
        np.testing.assert_array_equal(got.asnumpy(), want, err_msg=expr)


def test_integer_division_by_zero_gives_zero():
    # (MXNet's integer division traps; NumPy's gives 0 and symnet follows it)
    x = mx.nd.array([5, -5, 0], dtype="int32")
    np.testing.assert_array_equal((x / mx.nd.zeros((3,), dtype="int32")).asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal((x / 0.5).asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal((x % 0).asnumpy(), [0, 0, 0])
    lo = np.iinfo(np.int32).min
    m1 = mx.nd.array([lo, 7], dtype="int32") / mx.nd.array([-1, -1], dtype="int32")
    np.testing.assert_array_equal(m1.asnumpy(), [lo, -7])


def test_int64_stays_exact_beyond_float_precision():
    big = np.array([2**53 + 1, 2**62 + 3, -(2**60) - 1], dtype=np.int64)
    x = mx.nd.array(big, dtype="int64")
    np.testing.assert_array_equal((x + 2).asnumpy(), big + 2)
    np.testing.assert_array_equal((x - x).asnumpy(), np.zeros(3, np.int64))
    np.testing.assert_array_equal((x * 1).asnumpy(), big)
    np.testing.assert_array_equal((x / 3).asnumpy(), _trunc_div(big, np.full(3, 3, np.int64)))
    np.testing.assert_array_equal((x % 1000).asnumpy(), np.mod(big, 1000))
    # (a scalar passes through double, as MXNet's: compare with an array for exactness)
    np.testing.assert_array_equal((x == mx.nd.array(big - [0, 1, 0], dtype="int64")).asnumpy(), [1, 0, 1])
    for op in ("floor", "ceil", "round", "rint", "trunc", "fix", "abs", "negative"):
        want = {"abs": np.abs(big), "negative": -big}.get(op, big)
        np.testing.assert_array_equal(getattr(mx.nd, op)(x).asnumpy(), want, err_msg=op)
    np.testing.assert_array_equal(mx.nd.add_n(x, x, x).asnumpy(), big * 3)
    np.testing.assert_array_equal((mx.nd.array([3], dtype="int64") ** 39).asnumpy(), [3**39])
    np.testing.assert_array_equal(mx.nd.sort(x).asnumpy(), np.sort(big))
    np.testing.assert_array_equal(mx.nd.topk(x, k=1, ret_typ="value").asnumpy(), [big.max()])


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_unary_ops_on_integers(dtype):
    a, _ = _pair(dtype)
    x = mx.nd.array(a, dtype=dtype)
    np.testing.assert_array_equal(mx.nd.square(x).asnumpy(), (a * a).astype(dtype))
    np.testing.assert_array_equal(mx.nd.sign(x).asnumpy(), np.sign(a))
    np.testing.assert_array_equal(mx.nd.relu(x).asnumpy(), np.maximum(a, 0))
    np.testing.assert_array_equal(mx.nd.floor(x).asnumpy(), a)
    # float math sees the integers as double and truncates its result, as MXNet's
    pos = mx.nd.array(np.abs(a.astype(np.int64)), dtype=dtype)
    got = mx.nd.sqrt(pos)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.asnumpy(), np.sqrt(np.abs(a.astype(np.int64))).astype(dtype))


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_add_n_on_integers(dtype):
    a, b = _pair(dtype)
    x, y = mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype)
    got = mx.nd.ElementWiseSum(x, y, x)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.asnumpy(), a + b + a)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_sort_topk_argsort_on_integers(dtype):
    rng = np.random.RandomState(5)
    lo = 0 if dtype == "uint8" else -50
    a = rng.permutation(np.arange(lo, lo + 24)).reshape(4, 6).astype(dtype)
    x = mx.nd.array(a, dtype=dtype)
    s = mx.nd.sort(x, axis=1)
    assert s.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(s.asnumpy(), np.sort(a, axis=1))
    np.testing.assert_array_equal(mx.nd.argsort(x, axis=0).asnumpy(), np.argsort(a, axis=0, kind="stable"))
    val, idx = mx.nd.topk(x, k=2, ret_typ="both")
    assert val.dtype == np.dtype(dtype) and idx.dtype == np.float32
    order = np.argsort(-a.astype(np.int64), axis=-1, kind="stable")[:, :2]
    np.testing.assert_array_equal(idx.asnumpy(), order)
    np.testing.assert_array_equal(val.asnumpy(), np.take_along_axis(a, order, axis=-1))
    mask = mx.nd.topk(x, k=2, ret_typ="mask")
    assert mask.dtype == np.dtype(dtype)
    assert mask.asnumpy().sum() == 8


def test_float_ops_still_refuse_bool():
    x = mx.nd.array([1, 0], dtype="bool")
    with pytest.raises(mx.base.MXNetError, match="not bool"):
        (x + x).wait_to_read()


def test_inplace_write_while_recording_is_refused_as_mxnet():
    y = mx.nd.ones((4,))
    y.attach_grad()
    x = mx.nd.zeros((3, 4))
    with pytest.raises(mx.base.MXNetError, match="Inplace operations"):
        with mx.autograd.record():
            x[0] = y
    z = mx.nd.ones((3, 4))
    z.attach_grad()
    with pytest.raises(mx.base.MXNetError, match="already in a computational graph"):
        with mx.autograd.record():
            w = z * 2
            mx.nd.elemwise_add(z, z, out=w)
    # an untracked output, and an op on untracked inputs only, are fine
    with mx.autograd.record():
        out = mx.nd.zeros((3, 4))
        mx.nd.elemwise_add(z, z, out=out)
        x[0] = 5
    np.testing.assert_array_equal(out.asnumpy(), np.full((3, 4), 2.0))


@pytest.mark.parametrize("op", ["_mod", "broadcast_mod"])
def test_integer_mod_gradient_is_zero(op):
    # MXNet 1.x: mod's partials are 0 on integers (1 and -floor(a / b) on floats)
    a = mx.sym.Variable("a")
    b = mx.sym.Variable("b")
    c = getattr(mx.sym, op)(mx.sym.cast(a, dtype="int32"), mx.sym.cast(b, dtype="int32"))
    av, bv = np.array([[7.0, -5.0, 9.0]]), np.array([[2.0, 3.0, -4.0]])
    if op == "broadcast_mod":
        av = np.repeat(av, 2, axis=0)
    ex = c.simple_bind(ctx=mx.cpu(), a=av.shape, b=bv.shape)
    ex.forward(is_train=True, a=av, b=bv)
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), np.mod(av.astype(np.int32), bv.astype(np.int32)))
    ex.backward(mx.nd.ones(ex.outputs[0].shape, dtype="int32"))
    np.testing.assert_array_equal(ex.grad_dict["a"].asnumpy(), np.zeros_like(av))
    np.testing.assert_array_equal(ex.grad_dict["b"].asnumpy(), np.zeros_like(bv))
