"""Every op: numpy reference forward, float64 finite-difference gradient, req='add' (kAddTo),
and 16-bit vs float32 agreement where the op supports float16/bfloat16."""
import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

rng = np.random.RandomState(42)


def randn(*shape):
    return rng.normal(size=shape)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def check_16bit(sym, location, rtol_f16=2e-3, rtol_bf16=2e-2, atol=None, rtol_f32=1e-5):
    """Runs the op in float64, float32, float16 and bfloat16 on the same (16-bit representable)
    inputs. The float32 outputs are checked against float64 (rtol_f32, relative to each output's
    largest magnitude) and are the reference for the 16-bit outputs. Tolerances: float16 keeps 11
    significant bits (rel. 4.9e-4 per rounding), bfloat16 8 bits (rel. 3.9e-3), and the output is
    rounded once more; a few roundings give the bounds above."""
    loc16 = {k: v.astype(np.float16).astype(np.float32) for k, v in location.items()}
    ref = _forward(sym, loc16, np.float32)
    for o, r in zip(ref, _forward(sym, loc16, np.float64)):
        scale = np.abs(r).max() + 1e-6
        assert_almost_equal(o, r, rtol=rtol_f32, atol=rtol_f32 * scale, names=("float32", "float64"))
    for dtype, rtol in (("float16", rtol_f16), ("bfloat16", rtol_bf16)):
        outs = _forward(sym, loc16, dtype)
        for o, r in zip(outs, ref):
            scale = np.abs(r).max() + 1e-6
            assert_almost_equal(o, r, rtol=rtol, atol=(atol if atol is not None else rtol * scale),
                                names=(dtype, "float32"))


def _forward(sym, location, dtype):
    """Forward (inference) on the default context with every input in `dtype`; the outputs as
    float64 numpy arrays (exact for every dtype used here)."""
    exe = sym.simple_bind(mx.current_context(), grad_req="null", type_dict={k: dtype for k in location},
                          **{k: v.shape for k, v in location.items()})
    for k, v in location.items():
        exe.arg_dict[k][:] = v
    return [o.asnumpy().astype(np.float64) for o in exe.forward()]


def check_add_req(sym, location, out_grads=None):
    """grad_req='add' accumulates onto existing gradients (the kAddTo path of every kernel)."""
    loc = {k: v.astype(np.float64) for k, v in location.items()}
    names = [n for n in sym.list_arguments() if n in loc]
    exe = sym.simple_bind(mx.current_context(), grad_req="write", type_dict={k: "float64" for k in loc},
                          **{k: v.shape for k, v in loc.items()})
    for k, v in loc.items():
        exe.arg_dict[k][:] = v
    exe.forward(is_train=True)
    exe.backward(out_grads)
    expected = {n: exe.grad_dict[n].asnumpy() for n in names if n in exe.grad_dict}
    check_symbolic_backward(sym, loc, out_grads, expected, rtol=1e-10, atol=1e-12,
                            grad_req="add", dtype=np.float64)


def test_check_16bit_fails_on_inaccurate_float32_or_16bit_outputs():
    """The helper itself: float32 is checked against float64, and float16 against float32."""
    x, v = {"x": np.linspace(-3, 3, 20)}, mx.sym.var("x")
    with pytest.raises(AssertionError, match="float32=.*float64="):
        check_16bit((v + 1e8) - 1e8, x)  # float32 rounds x away; float64 keeps it
    with pytest.raises(AssertionError, match="float16=.*float32="):
        check_16bit((v + 64) - 64, x)  # float16 keeps 1/16 steps at 64
    check_16bit(v * 2, x)


# ---- element-wise -----------------------------------------------------------------------------
# The tables below (op, numpy reference, ...) are also the lists the GPU suite compares with the
# CPU (tests/python/gpu/test_operator_gpu.py): an op added here is checked on both devices.
ACTIVATIONS = [
    ("relu", lambda x: np.maximum(x, 0)),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("tanh", np.tanh),
    ("softrelu", lambda x: np.log1p(np.exp(x))),
    ("softsign", lambda x: x / (1 + np.abs(x))),
]


@pytest.mark.parametrize("act,ref", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation(act, ref):
    x = randn(3, 4, 5)
    if act == "relu":
        x[np.abs(x) < 1e-3] = 0.5  # keep finite differences away from the kink
    sym = mx.sym.Activation(mx.sym.var("x"), act_type=act)
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(3, 4, 5), dtype="float64")])
    check_16bit(sym, {"x": x})


UNARY_MATH = [
    ("relu", lambda x: np.maximum(x, 0), "any"), ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), "any"),
    ("tanh", np.tanh, "any"), ("softsign", lambda x: x / (1 + np.abs(x)), "any"),
    ("exp", np.exp, "any"), ("expm1", np.expm1, "any"), ("log", np.log, "positive"),
    ("log1p", np.log1p, "positive"), ("sqrt", np.sqrt, "positive"),
    ("rsqrt", lambda x: 1 / np.sqrt(x), "positive"), ("square", np.square, "any"),
    ("abs", np.abs, "any"), ("reciprocal", lambda x: 1 / x, "away_from_zero"), ("negative", np.negative, "any")]


@pytest.mark.parametrize("op,ref,domain", UNARY_MATH, ids=[u[0] for u in UNARY_MATH])
def test_unary_math(op, ref, domain):
    x = randn(3, 4, 5)
    if domain == "positive":
        x = np.abs(x) + 0.3
    else:
        # away from kinks (relu, abs) and poles (reciprocal) for finite differences
        x[np.abs(x) < 0.3] = 0.7
    sym = getattr(mx.sym, op)(mx.sym.var("x"))
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(3, 4, 5), dtype="float64")])
    check_16bit(sym, {"x": x})
    np.testing.assert_allclose(getattr(mx.nd, op)(mx.nd.array(x)).asnumpy(), ref(x).astype(np.float32),
                               rtol=1e-5, atol=1e-6)


ELEMWISE_BINARY = [("elemwise_add", np.add), ("elemwise_sub", np.subtract),
                   ("elemwise_mul", np.multiply), ("elemwise_div", np.divide)]


@pytest.mark.parametrize("op,ref", ELEMWISE_BINARY, ids=[b[0] for b in ELEMWISE_BINARY])
def test_elemwise_binary(op, ref):
    a, b = randn(4, 5), randn(4, 5)
    b[np.abs(b) < 0.3] = 0.7  # division stays well conditioned
    sym = getattr(mx.sym, op)(mx.sym.var("a"), mx.sym.var("b"))
    check_symbolic_forward(sym, {"a": a, "b": b}, [ref(a, b)], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"a": a, "b": b})
    check_add_req(sym, {"a": a, "b": b}, [mx.nd.array(randn(4, 5), dtype="float64")])
    check_16bit(sym, {"a": a, "b": b})


def test_same_input_twice_sums_gradients():
    x = randn(3, 4)
    v = mx.sym.var("x")
    sym = v * v + v
    check_symbolic_forward(sym, {"x": x}, [x * x + x], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(3, 4), dtype="float64")])


@pytest.mark.parametrize("expr,ref", [
    (lambda s: s + 2.5, lambda x: x + 2.5), (lambda s: s - 2.5, lambda x: x - 2.5),
    (lambda s: 2.5 - s, lambda x: 2.5 - x), (lambda s: s * -1.5, lambda x: x * -1.5),
    (lambda s: s / 4.0, lambda x: x / 4.0), (lambda s: 3.0 / s, lambda x: 3.0 / x),
    (lambda s: -s, lambda x: -x)])
def test_scalar_ops(expr, ref):
    x = randn(3, 4)
    x[np.abs(x) < 0.3] = 0.9
    sym = expr(mx.sym.var("x"))
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(3, 4), dtype="float64")])
    check_16bit(sym, {"x": x})


BROADCAST_BINARY = [("broadcast_add", np.add), ("broadcast_sub", np.subtract),
                    ("broadcast_mul", np.multiply), ("broadcast_div", np.divide)]


@pytest.mark.parametrize("op,ref", BROADCAST_BINARY, ids=[b[0] for b in BROADCAST_BINARY])
@pytest.mark.parametrize("shapes", [((2, 3, 4), (1, 3, 1)), ((3, 1), (1, 4)), ((2, 3, 4), (4,))])
def test_broadcast_binary(op, ref, shapes):
    a, b = randn(*shapes[0]), randn(*shapes[1])
    b[np.abs(b) < 0.3] = 0.8
    sym = getattr(mx.sym, op)(mx.sym.var("a"), mx.sym.var("b"))
    out_shape = np.broadcast(a, b).shape
    check_symbolic_forward(sym, {"a": a, "b": b}, [ref(a, b)], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"a": a, "b": b})
    check_add_req(sym, {"a": a, "b": b}, [mx.nd.array(randn(*out_shape), dtype="float64")])
    check_16bit(sym, {"a": a, "b": b})


def test_broadcast_incompatible_shapes_error():
    sym = mx.sym.broadcast_add(mx.sym.var("a"), mx.sym.var("b"))
    with pytest.raises(mx.MXNetError, match=r"could not be broadcast.*\(2, 3\).*\(4,\)"):
        sym.simple_bind(mx.current_context(), a=(2, 3), b=(4,))


# ---- copies, shapes and types -------------------------------------------------------------
CLIP_CASES = [(-0.5, 0.7), (0.0, 6.0), (0.2, 0.2)]  # (a_min, a_max): a band, relu6, a point


@pytest.mark.parametrize("a_min,a_max", CLIP_CASES)
def test_clip(a_min, a_max):
    x = randn(3, 4, 5) * 4
    # finite differences need x away from the kinks at a_min and a_max
    for bound in (a_min, a_max):
        x[np.abs(x - bound) < 0.05] = bound + 0.3
    sym = mx.sym.clip(mx.sym.var("x"), a_min=a_min, a_max=a_max)
    check_symbolic_forward(sym, {"x": x}, [np.clip(x, a_min, a_max)], rtol=1e-6, atol=1e-7)
    check_symbolic_forward(sym, {"x": x}, [np.clip(x, a_min, a_max)], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})
    dy = randn(3, 4, 5)
    check_symbolic_backward(sym, {"x": x}, [dy], {"x": dy * ((x >= a_min) & (x <= a_max))},
                            rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(3, 4, 5), dtype="float64")])
    check_16bit(sym, {"x": x})
    np.testing.assert_array_equal(mx.nd.clip(mx.nd.array(x), a_min, a_max).asnumpy(),
                                  np.clip(x.astype(np.float32), np.float32(a_min), np.float32(a_max)))


def test_clip_keeps_nan_passes_gradient_at_the_bounds_and_rejects_an_empty_range():
    x = np.array([np.nan, -1.0, 0.0, 0.5, 1.0, 2.0])
    sym = mx.sym.clip(mx.sym.var("x"), a_min=0.0, a_max=1.0)
    exe = sym.simple_bind(mx.current_context(), type_dict={"x": "float64"}, x=x.shape)
    exe.arg_dict["x"][:] = x
    out = exe.forward(is_train=True)[0].asnumpy()
    np.testing.assert_array_equal(out, [np.nan, 0.0, 0.0, 0.5, 1.0, 1.0])
    exe.backward([mx.nd.ones(x.shape, dtype="float64")])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [0, 0, 1, 1, 1, 0])
    with pytest.raises(mx.MXNetError, match=r"clip.*'c1'.*a_min \(2\) must not exceed a_max \(1\)"):
        mx.sym.clip(mx.sym.var("x"), a_min=2, a_max=1, name="c1")
    with pytest.raises(mx.MXNetError, match="a_max"):
        mx.sym.clip(mx.sym.var("x"), a_min=0)


def test_generated_functions_take_parameters_positionally_as_mxnet():
    """MXNet's signatures are (inputs..., parameters...): clip(x, 0, 6) is clip(x, a_min=0, a_max=6)."""
    x = mx.nd.array([-1.0, 3.0, 9.0])
    np.testing.assert_array_equal(mx.nd.clip(x, 0, 6).asnumpy(), [0, 3, 6])
    sym = mx.sym.clip(mx.sym.var("x"), 0, 6, name="c")
    assert sym.attr_dict()["c"] == {"a_min": "0", "a_max": "6"}
    with pytest.raises(TypeError, match="at most 2 positional parameters"):
        mx.nd.clip(x, 0, 6, 7)
    with pytest.raises(TypeError, match="a_min given both"):
        mx.nd.clip(x, 0, 6, a_min=1)
    with pytest.raises(TypeError, match="positional argument 0 \\(data\\)"):
        mx.nd.clip(1.0, 0, 6)


@pytest.mark.parametrize("op", ["identity", "_copy"])
def test_identity(op):
    x = randn(3, 4)
    sym = getattr(mx.sym, op)(mx.sym.var("x"))
    check_symbolic_forward(sym, {"x": x}, [x])
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(3, 4), dtype="float64")])


def test_blockgrad_stops_gradient():
    x = randn(3, 4)
    v = mx.sym.var("x")
    sym = mx.sym.BlockGrad(v) * v  # d/dx = BlockGrad(x) only
    check_symbolic_forward(sym, {"x": x}, [x * x], rtol=1e-6)
    check_symbolic_backward(sym, {"x": x}, [np.ones((3, 4))], {"x": x}, rtol=1e-6)


def test_zeros_ones_like_negative():
    x = randn(2, 3)
    v = mx.sym.var("x")
    check_symbolic_forward(mx.sym.zeros_like(v), {"x": x}, [np.zeros((2, 3))])
    check_symbolic_forward(mx.sym.ones_like(v), {"x": x}, [np.ones((2, 3))])
    check_symbolic_forward(mx.sym.negative(v), {"x": x}, [-x])
    check_numeric_gradient(mx.sym.negative(v), {"x": x})
    check_symbolic_backward(mx.sym.zeros_like(v) + v, {"x": x}, [np.ones((2, 3))], {"x": np.ones((2, 3))})


def test_add_n():
    xs = {"x%d" % i: randn(3, 4) for i in range(3)}
    sym = mx.sym.add_n(*[mx.sym.var(k) for k in sorted(xs)])
    check_symbolic_forward(sym, xs, [sum(xs.values())], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, xs)
    check_add_req(sym, xs, [mx.nd.array(randn(3, 4), dtype="float64")])
    check_16bit(sym, xs)
    assert mx.sym.ElementWiseSum(mx.sym.var("a"), mx.sym.var("b")).list_arguments() == ["a", "b"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "int32"])
def test_cast(dtype):
    x = randn(3, 4) * 10
    sym = mx.sym.Cast(mx.sym.var("x"), dtype=dtype)
    exe = sym.simple_bind(mx.current_context(), x=(3, 4))
    exe.arg_dict["x"][:] = x
    out = exe.forward(is_train=True)[0]
    assert out.dtype == mx.base.numpy_dtype(dtype)
    if dtype == "float16":
        np.testing.assert_array_equal(out.asnumpy(), x.astype(np.float32).astype(np.float16))
    elif dtype == "int32":
        np.testing.assert_array_equal(out.asnumpy(), x.astype(np.float32).astype(np.int32))
    # the gradient comes back in the input's dtype
    exe.backward([mx.nd.ones((3, 4), dtype=dtype)])
    assert exe.grad_dict["x"].dtype == np.float32
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.ones((3, 4)))
    if dtype in ("float16", "float64"):
        check_numeric_gradient(mx.sym.Cast(mx.sym.var("x"), dtype="float64"), {"x": randn(2, 3)})


TRANSPOSE_CASES = [((2, 3, 4), None), ((2, 3, 4), (1, 0, 2)), ((2, 3, 4, 5), (0, 2, 3, 1)),
                   ((2, 3, 4, 5), (0, -1, 1, 2)), ((4, 5), (1, 0)), ((7,), (0,)),
                   ((2, 1, 3, 2, 2), (4, 2, 0, 3, 1))]


@pytest.mark.parametrize("shape,axes", TRANSPOSE_CASES)
def test_transpose(shape, axes):
    x = randn(*shape)
    kw = {} if axes is None else {"axes": axes}
    sym = mx.sym.transpose(mx.sym.var("x"), **kw)
    ref = np.transpose(x, axes)
    check_symbolic_forward(sym, {"x": x}, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(*ref.shape), dtype="float64")])
    # a copy: exact in float16 (the inputs are float16 values); bfloat16 rounds them once
    check_16bit(sym, {"x": x}, rtol_f16=0, rtol_bf16=4e-3)
    nd = mx.nd.transpose(mx.nd.array(x), **kw)
    np.testing.assert_array_equal(nd.asnumpy(), ref.astype(np.float32))


def test_transpose_axes_errors():
    v = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match=r"transpose axes \(0, 0, 1\) are not a permutation"):
        mx.sym.transpose(v, axes=(0, 0, 1)).infer_shape(x=(2, 3, 4))
    with pytest.raises(mx.MXNetError, match="must name each of the 3 input dims once"):
        mx.sym.transpose(v, axes=(1, 0)).infer_shape(x=(2, 3, 4))


def test_flatten_reshape():
    x = randn(2, 3, 4)
    v = mx.sym.var("x")
    check_symbolic_forward(mx.sym.Flatten(v), {"x": x}, [x.reshape(2, 12)])
    check_numeric_gradient(mx.sym.Flatten(v) * 2.0, {"x": x})
    cases = {(0, -1): (2, 12), (-1,): (24,), (4, 0, 2): (4, 3, 2), (-2,): (2, 3, 4),
             (-3, 4): (6, 4), (2, -4, 3, -1, 4): (2, 3, 1, 4), (0, -3): (2, 12)}
    for spec, shape in cases.items():
        sym = mx.sym.Reshape(v, shape=spec)
        check_symbolic_forward(sym, {"x": x}, [x.reshape(shape)])
        check_numeric_gradient(sym * 1.5, {"x": x})
    check_symbolic_forward(mx.sym.Reshape(v, shape=(-1, 0), reverse=True), {"x": x}, [x.reshape(6, 4)])
    with pytest.raises(mx.MXNetError, match="cannot reshape"):
        mx.sym.Reshape(v, shape=(5, -1)).infer_shape(x=(2, 3, 4))


# (input shape, op, attributes, numpy's result shape) for the ops that add or drop dims of size 1
EXPAND_SQUEEZE_CASES = [((2, 3), "expand_dims", {"axis": 0}, (1, 2, 3)),
                        ((2, 3), "expand_dims", {"axis": 2}, (2, 3, 1)),
                        ((2, 3), "expand_dims", {"axis": -1}, (2, 3, 1)),
                        ((2, 3), "expand_dims", {"axis": -3}, (1, 2, 3)),
                        ((1, 3, 1, 2), "squeeze", {}, (3, 2)),
                        ((1, 3, 1, 2), "squeeze", {"axis": (0,)}, (3, 1, 2)),
                        ((1, 3, 1, 2), "squeeze", {"axis": (-2, 0)}, (3, 2)),
                        ((1, 1), "squeeze", {}, (1,))]  # MXNet 1.x keeps one dim


@pytest.mark.parametrize("shape,op,kw,out_shape", EXPAND_SQUEEZE_CASES)
def test_expand_dims_and_squeeze(shape, op, kw, out_shape):
    x = randn(*shape)
    if op == "expand_dims":
        ref = np.expand_dims(x, kw["axis"])
    else:
        squeezed = np.squeeze(x, axis=kw.get("axis"))
        ref = squeezed.reshape(squeezed.shape or (1,))
    assert ref.shape == out_shape
    sym = getattr(mx.sym, op)(mx.sym.var("x"), **kw)
    check_symbolic_forward(sym, {"x": x}, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym * 1.5, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(*ref.shape), dtype="float64")])
    check_16bit(sym, {"x": x}, rtol_f16=0, rtol_bf16=4e-3)  # a copy, like transpose
    nd = getattr(mx.nd, op)(mx.nd.array(x), **kw)
    np.testing.assert_array_equal(nd.asnumpy(), ref.astype(np.float32))


def test_expand_dims_and_squeeze_errors():
    v = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match=r"expand_dims: axis 3 is out of range for an input of shape "
                                            r"\(2, 3\) \(expected -3 to 2\)"):
        mx.sym.expand_dims(v, axis=3).infer_shape(x=(2, 3))
    with pytest.raises(mx.MXNetError, match=r"squeeze: axis 1 of an input of shape \(1, 3\) has size 3, not 1"):
        mx.sym.squeeze(v, axis=1).infer_shape(x=(1, 3))
    with pytest.raises(mx.MXNetError, match=r"squeeze: axis 2 is out of range"):
        mx.sym.squeeze(v, axis=2).infer_shape(x=(1, 3))
    # MXNet's JSON spelling of the attributes loads
    sym = mx.sym.load_json(mx.sym.squeeze(mx.sym.expand_dims(v, axis=1), axis=(1,)).tojson())
    assert sym.infer_shape(x=(2, 3))[1] == [(2, 3)]


REDUCE_OPS = [("sum", np.sum), ("mean", np.mean)]
REDUCE_CASES = [(None, False, False), (1, False, False), ((0, 2), True, False), (-1, False, False),
                (1, False, True)]  # (axis, keepdims, exclude)


@pytest.mark.parametrize("op,ref", REDUCE_OPS, ids=[r[0] for r in REDUCE_OPS])
@pytest.mark.parametrize("axis,keepdims,exclude", REDUCE_CASES)
def test_reduce(op, ref, axis, keepdims, exclude):
    x = randn(2, 3, 4)
    kwargs = {"keepdims": keepdims, "exclude": exclude}
    if axis is not None:
        kwargs["axis"] = axis
    sym = getattr(mx.sym, op)(mx.sym.var("x"), **kwargs)
    np_axis = axis
    if exclude:
        np_axis = tuple(a for a in range(3) if a not in (axis if isinstance(axis, tuple) else (axis,)))
    expected = ref(x, axis=np_axis, keepdims=keepdims)
    if np.ndim(expected) == 0:
        expected = np.array([expected])
    out = check_symbolic_forward(sym, {"x": x}, [expected], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(*out[0].shape), dtype="float64")])
    # the rounding error of a 16-bit reduction grows with the reduced magnitudes, not with the
    # result (which cancellation can bring near zero): bound it by the reduction of |x|
    check_16bit(sym, {"x": x}, atol=2e-2 * np.max(ref(np.abs(x), axis=np_axis)))


# ---- softmax family --------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [-1, 1, 0])
@pytest.mark.parametrize("temperature", [None, 2.0])
def test_softmax_log_softmax(axis, temperature):
    x = randn(2, 3, 4)
    t = temperature or 1.0
    kwargs = {"axis": axis}
    if temperature:
        kwargs["temperature"] = temperature
    sm = mx.sym.softmax(mx.sym.var("x"), **kwargs)
    lsm = mx.sym.log_softmax(mx.sym.var("x"), **kwargs)
    check_symbolic_forward(sm, {"x": x}, [np_softmax(x / t, axis)], rtol=1e-5, atol=1e-7)
    check_symbolic_forward(lsm, {"x": x}, [np.log(np_softmax(x / t, axis))], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sm, {"x": x})
    check_numeric_gradient(lsm, {"x": x})
    og = [mx.nd.array(randn(2, 3, 4), dtype="float64")]
    check_add_req(sm, {"x": x}, og)
    check_add_req(lsm, {"x": x}, og)
    check_16bit(sm, {"x": x})
    check_16bit(lsm, {"x": x}, rtol_f16=5e-3, rtol_bf16=3e-2)


def cross_entropy(x, label, axis=1):
    p = np_softmax(x, axis)
    idx = np.expand_dims(label.astype(int), axis)
    return -np.log(np.take_along_axis(p, idx, axis)).sum()


@pytest.mark.parametrize("normalization,scale", [("null", 1.0), ("batch", 0.25), ("valid", 0.25)])
def test_softmax_output_gradient_is_cross_entropy_gradient(normalization, scale):
    x = randn(4, 5)
    label = np.array([0, 3, 1, 4], dtype=np.float64)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("x"), mx.sym.var("label"), normalization=normalization,
                               grad_scale=1.0)
    check_symbolic_forward(sym, {"x": x, "label": label}, [np_softmax(x)], rtol=1e-5, atol=1e-7)
    # backward = d(cross-entropy)/dx, checked by finite differences of the loss itself
    fd = mx.test_utils.numeric_grad(lambda: cross_entropy(x, label), x, 1e-6) * scale
    check_symbolic_backward(sym, {"x": x, "label": label}, None, {"x": fd}, rtol=1e-6, atol=1e-9,
                            dtype=np.float64)
    check_symbolic_backward(sym, {"x": x, "label": label}, None, {"x": fd}, rtol=1e-6, atol=1e-9,
                            dtype=np.float64, grad_req="add")


def test_softmax_output_options():
    x = randn(4, 5)
    label = np.array([0, 3, -1, 4], dtype=np.float64)
    p = np_softmax(x)
    onehot = np.eye(5)[np.maximum(label, 0).astype(int)]
    # ignore_label with valid normalization: row 2 gets no gradient, 3 valid rows
    sym = mx.sym.SoftmaxOutput(mx.sym.var("x"), mx.sym.var("label"), use_ignore=True,
                               ignore_label=-1, normalization="valid", grad_scale=2.0)
    want = (p - onehot) * 2.0 / 3
    want[2] = 0
    check_symbolic_backward(sym, {"x": x, "label": label}, None, {"x": want}, rtol=1e-6, dtype=np.float64)
    # label smoothing
    label = np.array([0, 3, 1, 4], dtype=np.float64)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("x"), mx.sym.var("label"), smooth_alpha=0.1)
    target = np.full((4, 5), 0.1 / 4)
    target[np.arange(4), label.astype(int)] = 0.9
    check_symbolic_backward(sym, {"x": x, "label": label}, None, {"x": p - target}, rtol=1e-6,
                            dtype=np.float64)
    # multi_output: softmax over axis 1 of (n, c, h, w), labels (n, h, w)
    x4 = randn(2, 3, 2, 2)
    l4 = rng.randint(0, 3, size=(2, 2, 2)).astype(np.float64)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("x"), mx.sym.var("label"), multi_output=True)
    check_symbolic_forward(sym, {"x": x4, "label": l4}, [np_softmax(x4, 1)], rtol=1e-5, atol=1e-7)
    # divided by the 2 x 2 positions per sample, as MXNet's "null" normalization does with multi_output
    fd = mx.test_utils.numeric_grad(lambda: cross_entropy(x4, l4, 1), x4, 1e-6) / 4
    check_symbolic_backward(sym, {"x": x4, "label": l4}, None, {"x": fd}, rtol=1e-6, atol=1e-9,
                            dtype=np.float64)
    # out_grad multiplies by the head gradient
    og = randn(4, 5)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("x"), mx.sym.var("label"), out_grad=True)
    check_symbolic_backward(sym, {"x": x, "label": label}, [og], {"x": (p - np.eye(5)[label.astype(int)]) * og},
                            rtol=1e-6, dtype=np.float64)
    # label shape is inferred
    assert mx.sym.SoftmaxOutput(mx.sym.var("x"), name="sm").infer_shape(x=(4, 5))[0] == [(4, 5), (4,)]


def test_linear_regression_output():
    x, label = randn(4, 3), randn(4, 3)
    sym = mx.sym.LinearRegressionOutput(mx.sym.var("x"), mx.sym.var("label"), grad_scale=2.0)
    check_symbolic_forward(sym, {"x": x, "label": label}, [x])
    # d/dx of grad_scale * 0.5 * sum((x - label)^2) / outputs per sample
    fd = mx.test_utils.numeric_grad(lambda: 2.0 * 0.5 * ((x - label) ** 2).sum() / 3, x, 1e-6)
    check_symbolic_backward(sym, {"x": x, "label": label}, None, {"x": fd}, rtol=1e-6, atol=1e-9,
                            dtype=np.float64)
    check_symbolic_backward(sym, {"x": x, "label": label}, None, {"x": fd}, rtol=1e-6, atol=1e-9,
                            dtype=np.float64, grad_req="add")


# ---- FullyConnected --------------------------------------------------------------------------
@pytest.mark.parametrize("no_bias", [False, True])
@pytest.mark.parametrize("flatten,shape", [(True, (4, 2, 3)), (False, (2, 3, 6)), (True, (5, 7))])
def test_fully_connected(no_bias, flatten, shape):
    x = randn(*shape)
    k = int(np.prod(shape[1:])) if flatten else shape[-1]
    w, b = randn(8, k), randn(8)
    sym = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=8, no_bias=no_bias, flatten=flatten,
                                name="fc")
    loc = {"x": x, "fc_weight": w}
    if not no_bias:
        loc["fc_bias"] = b
    xm = x.reshape(shape[0], -1) if flatten else x
    ref = xm @ w.T + (0 if no_bias else b)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-4, atol=1e-5)
    check_numeric_gradient(sym, loc)
    check_add_req(sym, loc, [mx.nd.array(randn(*ref.shape), dtype="float64")])
    check_16bit(sym, loc, rtol_f16=3e-3, rtol_bf16=3e-2)


def test_fully_connected_shape_error_names_node_argument_and_shapes():
    data = mx.sym.var("data")
    weight = mx.sym.var("fc_weight", shape=(10, 63))
    fc = mx.sym.FullyConnected(data, weight=weight, num_hidden=10, name="fc")
    with pytest.raises(mx.MXNetError) as err:
        fc.simple_bind(mx.current_context(), data=(32, 64))
    msg = str(err.value)
    assert "'fc'" in msg and "FullyConnected" in msg and "weight" in msg
    assert "(10, 63)" in msg and "(10, 64)" in msg


def test_16bit_gradients_match_float32():
    """FullyConnected backward in float16/bfloat16 (the AMP path) agrees with float32."""
    x, w, b, og = randn(6, 5), randn(4, 5), randn(4), randn(6, 4)
    sym = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4, name="fc")
    grads = {}
    for dtype in ("float32", "float16", "bfloat16"):
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=(6, 5))
        for k, v in (("x", x), ("fc_weight", w), ("fc_bias", b)):
            exe.arg_dict[k][:] = v.astype(np.float16).astype(np.float32)
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(og.astype(np.float16), dtype=dtype)])
        grads[dtype] = {k: v.asnumpy().astype(np.float32) for k, v in exe.grad_dict.items()}
    for dtype, rtol in (("float16", 3e-3), ("bfloat16", 3e-2)):
        for k in grads["float32"]:
            ref = grads["float32"][k]
            assert_almost_equal(grads[dtype][k], ref, rtol=rtol, atol=rtol * np.abs(ref).max())


def _np_erfinv(y):
    """erf's inverse by bisection on [-6, 6]: 60 halvings leave an error below 1e-16."""
    erf = np.vectorize(__import__("math").erf)
    lo, hi = np.full(np.shape(y), -6.0), np.full(np.shape(y), 6.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        below = erf(mid) < y
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


# ---- trigonometric, hyperbolic, logarithmic and rounding functions ----------------------------
# (op, numpy reference, domain); the GPU suite compares the same table. The domain keeps the
# input where the function is defined and smooth: "unit" |x| < 0.9, "above_one" x > 1.2,
# "positive" x > 0.3, "away_from_zero" |x| > 0.3, "non_integer" x = k/2 + 1/4 (exact in 16 bits,
# a quarter away from the jumps of the rounding functions).
MORE_UNARY_MATH = [
    ("sin", np.sin, "any"), ("cos", np.cos, "any"), ("tan", np.tan, "unit"),
    ("arcsin", np.arcsin, "unit"), ("arccos", np.arccos, "unit"), ("arctan", np.arctan, "any"),
    ("sinh", np.sinh, "any"), ("cosh", np.cosh, "any"), ("arcsinh", np.arcsinh, "any"),
    ("arccosh", np.arccosh, "above_one"), ("arctanh", np.arctanh, "unit"),
    ("degrees", np.degrees, "any"), ("radians", np.radians, "any"), ("log2", np.log2, "positive"),
    ("log10", np.log10, "positive"), ("cbrt", np.cbrt, "away_from_zero"),
    ("rcbrt", lambda x: 1 / np.cbrt(x), "away_from_zero"),
    ("erf", np.vectorize(__import__("math").erf), "any"), ("sign", np.sign, "away_from_zero"),
    ("erfinv", _np_erfinv, "unit"), ("gamma", np.vectorize(__import__("math").gamma), "positive"),
    ("gammaln", np.vectorize(__import__("math").lgamma), "positive"),
    ("floor", np.floor, "non_integer"), ("ceil", np.ceil, "non_integer"),
    ("round", lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), "non_integer"),
    ("rint", np.rint, "non_integer"), ("trunc", np.trunc, "non_integer"), ("fix", np.fix, "non_integer")]


def in_domain(x, domain):
    """`x` (standard normal draws) moved into `domain` (see MORE_UNARY_MATH)."""
    if domain == "unit":
        return 0.9 * np.tanh(x)
    if domain == "above_one":
        return np.abs(x) + 1.2
    if domain == "positive":
        return np.abs(x) + 0.3
    if domain == "away_from_zero":
        return np.where(np.abs(x) < 0.3, 0.7, x)
    if domain == "non_integer":
        return np.floor(x * 4) / 2 + 0.25
    return x


@pytest.mark.parametrize("op,ref,domain", MORE_UNARY_MATH, ids=[u[0] for u in MORE_UNARY_MATH])
def test_more_unary_math(op, ref, domain):
    x = in_domain(np.random.RandomState(7).normal(size=(3, 4, 5)), domain)
    sym = getattr(mx.sym, op)(mx.sym.var("x"))
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(np.random.RandomState(8).normal(size=(3, 4, 5)), dtype="float64")])
    # trigonometric outputs of 16-bit inputs: the input's rounding (2^-8 relative in bfloat16)
    # moves sin/cos by up to |x| times that; rounding functions are exact on these inputs
    check_16bit(sym, {"x": x}, rtol_f16=4e-3, rtol_bf16=3e-2)
    np.testing.assert_allclose(getattr(mx.nd, op)(mx.nd.array(x)).asnumpy(), ref(x).astype(np.float32),
                               rtol=1e-5, atol=1e-6)



def test_round_and_rint_differ_at_halves_and_rounding_has_no_gradient():
    x = mx.nd.array([0.5, 1.5, 2.5, -0.5, -2.5], dtype="float64")
    np.testing.assert_array_equal(mx.nd.round(x).asnumpy(), [1, 2, 3, -1, -3])  # away from zero
    np.testing.assert_array_equal(mx.nd.rint(x).asnumpy(), [0, 2, 2, -0.0, -2])  # to even
    np.testing.assert_array_equal(mx.nd.fix(x).asnumpy(), [0, 1, 2, -0.0, -2])
    np.testing.assert_array_equal(mx.nd.sign(mx.nd.array([-3.0, 0.0, 2.0])).asnumpy(), [-1, 0, 1])
    for op in ("floor", "ceil", "round", "rint", "trunc", "fix", "sign"):
        exe = getattr(mx.sym, op)(mx.sym.var("x")).simple_bind(mx.current_context(), x=(5,))
        exe.arg_dict["x"][:] = x.asnumpy()
        exe.forward(is_train=True)
        exe.backward([mx.nd.ones((5,))])
        np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.zeros(5), err_msg=op)
