"""AMP's ops: amp_cast, amp_multicast, all_finite, multi_all_finite, and the multi-precision /
fused optimizer updates, against numpy."""
import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import assert_almost_equal, check_numeric_gradient

rng = np.random.RandomState(3)


def to_bf16(x):
    b = np.asarray(x, np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float32", "bfloat16"),
                                     ("float16", "float32"), ("bfloat16", "float32"),
                                     ("float16", "bfloat16")])
def test_amp_cast_values_and_gradient_dtype(src, dst):
    x = rng.normal(size=(3, 4)).astype(np.float32) * 100
    sym = mx.sym.amp_cast(mx.sym.var("x"), dtype=dst)
    exe = sym.simple_bind(mx.current_context(), type_dict={"x": src}, x=(3, 4))
    exe.arg_dict["x"][:] = x
    out = exe.forward(is_train=True)[0]
    assert out.dtype == mx.base.numpy_dtype(dst)
    xin = exe.arg_dict["x"].asnumpy().astype(np.float32)
    expected = {"float16": lambda v: v.astype(np.float16).astype(np.float32), "bfloat16": to_bf16,
                "float32": lambda v: v}[dst](xin)
    np.testing.assert_array_equal(out.asnumpy().astype(np.float32), expected)
    exe.backward([mx.nd.ones((3, 4), dtype=dst)])
    assert exe.grad_dict["x"].dtype == mx.base.numpy_dtype(src)
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.ones((3, 4)))


def test_amp_cast_passes_other_dtypes_and_is_identity_in_place():
    sym = mx.sym.amp_cast(mx.sym.var("x"), dtype="float16")
    exe = sym.simple_bind(mx.current_context(), type_dict={"x": "int32"}, grad_req="null", x=(4,))
    exe.arg_dict["x"][:] = [1, 2, 3, 4]
    out = exe.forward()[0]
    assert out.dtype == np.int32 and out.asnumpy().tolist() == [1, 2, 3, 4]
    # a float32 -> float32 cast writes into its input's buffer (in place)
    chain = mx.sym.amp_cast(mx.sym.Activation(mx.sym.var("x"), act_type="relu"), dtype="float32")
    exe = chain.simple_bind(mx.current_context(), grad_req="null", x=(4,))
    assert "(inplace)" in exe.debug_str().splitlines()[1]
    check_numeric_gradient(mx.sym.amp_cast(mx.sym.var("x"), dtype="float64"), {"x": rng.normal(size=(2, 3))})


@pytest.mark.parametrize("narrow", [False, True])
def test_amp_multicast(narrow):
    sym = mx.sym.amp_multicast(mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c"), num_outputs=3,
                               cast_narrow=narrow)
    types = {"a": "float16", "b": "float32", "c": "int32"}
    exe = sym.simple_bind(mx.current_context(), type_dict=types, a=(2,), b=(2,), c=(2,))
    exe.arg_dict["a"][:] = [1.5, 2.5]
    exe.arg_dict["b"][:] = [3.25, 4.125]
    exe.arg_dict["c"][:] = [7, 8]
    outs = exe.forward(is_train=True)
    want = np.float16 if narrow else np.float32
    assert outs[0].dtype == want and outs[1].dtype == want and outs[2].dtype == np.int32
    np.testing.assert_array_equal(outs[1].asnumpy().astype(np.float32), [3.25, 4.125])
    exe.backward([mx.nd.ones((2,), dtype=o.dtype) for o in outs])
    assert exe.grad_dict["a"].dtype == np.float16 and exe.grad_dict["b"].dtype == np.float32


def test_all_finite_and_multi_all_finite():
    a = mx.nd.array([1.0, 2.0])
    b = mx.nd.array([1.0, np.inf], dtype="float16")
    c = mx.nd.array([np.nan, 0.0], dtype="bfloat16")
    assert mx.nd.all_finite(a).asnumpy().tolist() == [1.0]
    assert mx.nd.all_finite(b).asnumpy().tolist() == [0.0]
    assert mx.nd.all_finite(c).asnumpy().tolist() == [0.0]
    assert mx.nd.multi_all_finite(a, a.astype("float16"), num_arrays=2).asnumpy().tolist() == [1.0]
    assert mx.nd.multi_all_finite(a, b, c, num_arrays=3).asnumpy().tolist() == [0.0]
    # init_output=False only ever lowers the flag
    flag = mx.nd.array([0.0])
    mx.nd.all_finite(a, init_output=False, out=flag)
    assert flag.asnumpy().tolist() == [0.0]
    flag[:] = 1.0
    mx.nd.multi_all_finite(a, b, num_arrays=2, init_output=False, out=flag)
    assert flag.asnumpy().tolist() == [0.0]


def sgd_ref(w32, g, mom, lr, wd, momentum, rescale, clip):
    gg = rescale * g
    if clip is not None and clip >= 0:
        gg = np.clip(gg, -clip, clip)
    if mom is None:
        return (1 - lr * wd) * w32 - lr * gg, None
    m = momentum * mom - lr * wd * w32 - lr * gg
    return w32 + m, m


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_mp_sgd_updates(dtype, momentum):
    w32 = rng.normal(size=50).astype(np.float32)
    g = rng.normal(size=50).astype(np.float32) * 1000  # loss-scaled gradient
    mom = rng.normal(size=50).astype(np.float32) * 0.01
    hp = dict(lr=0.1, wd=0.01, rescale_grad=1.0 / 1024, clip_gradient=0.5)
    weight = mx.nd.array(w32, dtype=dtype)
    master = mx.nd.array(w32)
    grad = mx.nd.array(g, dtype=dtype)
    g16 = grad.asnumpy().astype(np.float32)
    if momentum:
        state = mx.nd.array(mom)
        mx.nd.mp_sgd_mom_update(weight, grad, state, master, out=weight, momentum=momentum, **hp)
        want_w, want_m = sgd_ref(w32, g16, mom, 0.1, 0.01, momentum, 1 / 1024, 0.5)
        assert_almost_equal(state, want_m, rtol=1e-5, atol=1e-7)
    else:
        mx.nd.mp_sgd_update(weight, grad, master, out=weight, **hp)
        want_w, _ = sgd_ref(w32, g16, None, 0.1, 0.01, 0, 1 / 1024, 0.5)
    assert_almost_equal(master, want_w, rtol=1e-5, atol=1e-7)
    # the 16-bit weight is the rounding of the master weight
    np.testing.assert_array_equal(weight.asnumpy(), mx.nd.array(master.asnumpy()).astype(dtype).asnumpy())


@pytest.mark.parametrize("mp,momentum", [(False, 0.0), (False, 0.9), (True, 0.0), (True, 0.9)])
def test_multi_sgd_matches_single_updates(mp, momentum):
    shapes = [(3, 4), (5,), (2, 2, 2)]
    lrs, wds = (0.1, 0.2, 0.05), (0.0, 0.01, 0.1)
    dtype = "float16" if mp else "float32"
    ws = [rng.normal(size=s).astype(np.float32) for s in shapes]
    gs = [rng.normal(size=s).astype(np.float32) for s in shapes]
    ms = [rng.normal(size=s).astype(np.float32) * 0.1 for s in shapes]

    def arrays():
        w = [mx.nd.array(x, dtype=dtype) for x in ws]
        g = [mx.nd.array(x, dtype=dtype) for x in gs]
        m = [mx.nd.array(x, dtype="float32" if mp else dtype) for x in ms]
        w32 = [mx.nd.array(x) for x in ws]
        return w, g, m, w32

    w, g, m, w32 = arrays()
    inputs = []
    for i in range(3):
        inputs += [w[i], g[i]] + ([m[i]] if momentum else []) + ([w32[i]] if mp else [])
    op = "multi_%ssgd_%supdate" % ("mp_" if mp else "", "mom_" if momentum else "")
    params = dict(lrs=lrs, wds=wds, rescale_grad=0.5, num_weights=3)
    if momentum:
        params["momentum"] = momentum
    getattr(mx.nd, op)(*inputs, out=w, **params)
    w2, g2, m2, w322 = arrays()
    for i in range(3):
        single = "%ssgd_%supdate" % ("mp_" if mp else "", "mom_" if momentum else "")
        ins = [w2[i], g2[i]] + ([m2[i]] if momentum else []) + ([w322[i]] if mp else [])
        kw = dict(lr=lrs[i], wd=wds[i], rescale_grad=0.5)
        if momentum:
            kw["momentum"] = momentum
        getattr(mx.nd, single)(*ins, out=w2[i], **kw)
        np.testing.assert_array_equal(w[i].asnumpy(), w2[i].asnumpy())
        if momentum:
            np.testing.assert_array_equal(m[i].asnumpy(), m2[i].asnumpy())


@pytest.mark.parametrize("mp", [False, True])
def test_adam_updates(mp):
    w = rng.normal(size=20).astype(np.float32)
    g = rng.normal(size=20).astype(np.float32)
    mean, var = np.zeros(20, np.float32) + 0.1, np.zeros(20, np.float32) + 0.2
    hp = dict(lr=0.01, beta1=0.9, beta2=0.99, epsilon=1e-6, wd=0.1, rescale_grad=0.5)
    dtype = "float16" if mp else "float32"
    weight, grad = mx.nd.array(w, dtype=dtype), mx.nd.array(g, dtype=dtype)
    m, v = mx.nd.array(mean), mx.nd.array(var)
    g_ = grad.asnumpy().astype(np.float32) * 0.5 + 0.1 * (w if mp else weight.asnumpy())
    want_m = 0.9 * mean + 0.1 * g_
    want_v = 0.99 * var + 0.01 * g_ ** 2
    want_w = (w if mp else weight.asnumpy()) - 0.01 * want_m / (np.sqrt(want_v) + 1e-6)
    if mp:
        w32 = mx.nd.array(w)
        mx.nd.mp_adam_update(weight, grad, m, v, w32, out=weight, **hp)
        assert_almost_equal(w32, want_w, rtol=1e-5, atol=1e-6)
    else:
        mx.nd.adam_update(weight, grad, m, v, out=weight, **hp)
        assert_almost_equal(weight, want_w, rtol=1e-5, atol=1e-6)
    assert_almost_equal(m, want_m, rtol=1e-5, atol=1e-7)
    assert_almost_equal(v, want_v, rtol=1e-5, atol=1e-7)
