"""CNN operators: Convolution, BatchNorm, Pooling, LeakyReLU, Dropout, Concat,
softmax_cross_entropy. Each: numpy reference, float64 finite differences, req='add', 16-bit."""
import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_forward)
from test_operator import check_16bit, check_add_req

rng = np.random.RandomState(7)


def randn(*shape):
    return rng.normal(size=shape)


# ---- numpy references -------------------------------------------------------------------------
def np_conv(x, w, b, stride, pad, dilate, groups):
    n, c = x.shape[:2]
    o = w.shape[0]
    nsp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    k = w.shape[2:]
    out_sp = [(x.shape[2 + i] + 2 * pad[i] - dilate[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
    y = np.zeros((n, o) + tuple(out_sp))
    cpg, opg = c // groups, o // groups
    for idx in np.ndindex(*k):
        sl = tuple(slice(idx[i] * dilate[i], idx[i] * dilate[i] + stride[i] * (out_sp[i] - 1) + 1, stride[i])
                   for i in range(nsp))
        patch = xp[(slice(None), slice(None)) + sl]  # (n, c, out...)
        for g in range(groups):
            wg = w[g * opg:(g + 1) * opg, :, ][(slice(None), slice(None)) + idx]  # (opg, cpg)
            y[:, g * opg:(g + 1) * opg] += np.einsum("nc...,oc->no...", patch[:, g * cpg:(g + 1) * cpg], wg)
    if b is not None:
        y += b.reshape((1, o) + (1,) * nsp)
    return y


def np_pool(x, kernel, stride, pad, pool_type, convention="valid", include_pad=True):
    n, c, h, w = x.shape
    kh, kw = kernel
    sh, sw = stride
    ph, pw = pad
    rnd = np.ceil if convention == "full" else np.floor
    oh = int(rnd((h + 2 * ph - kh) / sh)) + 1
    ow = int(rnd((w + 2 * pw - kw) / sw)) + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * sh - ph, j * sw - pw
            he, we = min(hs + kh, h + ph), min(ws + kw, w + pw)
            area = (he - hs) * (we - ws)
            hs0, ws0, he0, we0 = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            win = x[:, :, hs0:he0, ws0:we0]
            if pool_type == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            elif pool_type == "sum":
                y[:, :, i, j] = win.sum(axis=(2, 3))
            else:
                div = area if include_pad else (he0 - hs0) * (we0 - ws0)
                y[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return y


# ---- Convolution --------------------------------------------------------------------------------
CONV_CASES = [
    dict(x=(2, 3, 7, 7), kernel=(3, 3), num_filter=4, stride=(1, 1), pad=(1, 1)),
    dict(x=(2, 4, 8, 6), kernel=(3, 2), num_filter=6, stride=(2, 1), pad=(1, 0), dilate=(1, 2)),
    dict(x=(1, 4, 6, 6), kernel=(3, 3), num_filter=4, num_group=2, pad=(1, 1)),
    dict(x=(2, 3, 9), kernel=(3,), num_filter=2, stride=(2,), pad=(1,)),
    dict(x=(1, 2, 4, 5, 5), kernel=(2, 3, 3), num_filter=3, pad=(0, 1, 1)),
    dict(x=(2, 8, 5, 5), kernel=(1, 1), num_filter=4, no_bias=True),
]


def conv_case(case):
    """(op params, nsp, x, w, b, numpy reference) of a CONV_CASES entry, channels-first."""
    case = dict(case)
    xs = case.pop("x")
    nsp = len(xs) - 2
    groups = case.get("num_group", 1)
    w = randn(case["num_filter"], xs[1] // groups, *case["kernel"])
    b = None if case.get("no_bias") else randn(case["num_filter"])
    x = randn(*xs)
    ref = np_conv(x, w, b, case.get("stride", (1,) * nsp), case.get("pad", (0,) * nsp),
                  case.get("dilate", (1,) * nsp), groups)
    return case, nsp, x, w, b, ref


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "x%s_k%s" % (c["x"], c["kernel"]))
def test_convolution(case):
    case, nsp, x, w, b, ref = conv_case(case)
    sym = mx.sym.Convolution(mx.sym.var("x"), name="c", **case)
    loc = {"x": x, "c_weight": w}
    if b is not None:
        loc["c_bias"] = b
    check_symbolic_forward(sym, loc, [ref], rtol=1e-4, atol=1e-4)  # float32 (oneDNN)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-10, atol=1e-10, dtype=np.float64)
    check_numeric_gradient(sym, loc, rtol=1e-5, atol=1e-7)
    check_add_req(sym, loc, [mx.nd.array(randn(*ref.shape), dtype="float64")])
    check_16bit(sym, loc, rtol_f16=3e-3, rtol_bf16=3e-2)


def test_convolution_float32_gradients_match_float64():
    """The oneDNN backward (float32) against the reference loops (float64)."""
    sym = mx.sym.Convolution(mx.sym.var("x"), kernel=(3, 3), num_filter=8, stride=(2, 2), pad=(1, 1), name="c")
    loc = {"x": randn(4, 16, 9, 9), "c_weight": randn(8, 16, 3, 3), "c_bias": randn(8)}
    og = randn(4, 8, 5, 5)
    grads = {}
    for dtype in (np.float64, np.float32):
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=(4, 16, 9, 9))
        for k, v in loc.items():
            exe.arg_dict[k][:] = v
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(og, dtype=dtype)])
        grads[dtype] = {k: v.asnumpy() for k, v in exe.grad_dict.items()}
    for k in grads[np.float64]:
        assert_almost_equal(grads[np.float32][k], grads[np.float64][k], rtol=1e-4, atol=1e-3)


def test_convolution_shape_errors():
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match="needs data of 4 dims"):
        mx.sym.Convolution(x, kernel=(3, 3), num_filter=2).infer_shape(x=(2, 3, 5))
    with pytest.raises(mx.MXNetError, match="num_group 2 must divide"):
        mx.sym.Convolution(x, kernel=(3, 3), num_filter=3, num_group=2).infer_shape(x=(1, 4, 5, 5))
    with pytest.raises(mx.MXNetError, match="larger than the padded input"):
        mx.sym.Convolution(x, kernel=(7, 7), num_filter=2).infer_shape(x=(1, 3, 5, 5))
    # MXNet's compatibility attributes are accepted
    s = mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, workspace=512, cudnn_tune="fastest",
                           cudnn_off=True, layout="NCHW")
    assert s.infer_shape(x=(1, 3, 5, 5))[1] == [(1, 2, 3, 3)]


def to_last(a):
    """(N, C, spatial...) -> (N, spatial..., C); also (O, I, kernel...) -> (O, kernel..., I)."""
    return np.moveaxis(a, 1, -1)


def to_first(a):
    return np.moveaxis(a, -1, 1)


LAYOUTS = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "x%s_k%s" % (c["x"], c["kernel"]))
def test_convolution_channels_last_layout(case):
    """layout='NHWC' (MXNet's names): data (N, H, W, C), weights (O, kh, kw, C/g), output
    (N, oh, ow, O); the same numbers as the channels-first op, transposed."""
    case, nsp, x, w, b, ref = conv_case(case)
    sym = mx.sym.Convolution(mx.sym.var("x"), name="c", layout=LAYOUTS[nsp], **case)
    loc = {"x": to_last(x), "c_weight": to_last(w)}
    if b is not None:
        loc["c_bias"] = b
    args, outs, _ = sym.infer_shape(x=loc["x"].shape)
    assert args[1] == loc["c_weight"].shape and outs[0] == to_last(ref).shape
    check_symbolic_forward(sym, loc, [to_last(ref)], rtol=1e-4, atol=1e-4)
    check_symbolic_forward(sym, loc, [to_last(ref)], rtol=1e-10, atol=1e-10, dtype=np.float64)
    check_numeric_gradient(sym, loc, rtol=1e-5, atol=1e-7)
    check_add_req(sym, loc, [mx.nd.array(randn(*outs[0]), dtype="float64")])
    check_16bit(sym, loc, rtol_f16=3e-3, rtol_bf16=3e-2)


def test_convolution_channels_last_gradients_match_channels_first():
    """float32 (oneDNN, nhwc/ohwi memory) gradients against the channels-first op's."""
    x, w, b, og = randn(3, 8, 7, 7), randn(6, 4, 3, 3), randn(6), randn(3, 6, 4, 4)
    kw = dict(kernel=(3, 3), num_filter=6, stride=(2, 2), pad=(1, 1), num_group=2, name="c")
    grads = []
    for layout, conv in (("NCHW", lambda a: a), ("NHWC", to_last)):
        sym = mx.sym.Convolution(mx.sym.var("x"), layout=layout, **kw)
        exe = sym.simple_bind(mx.current_context(), x=conv(x).shape)
        exe.arg_dict["x"][:] = conv(x)
        exe.arg_dict["c_weight"][:] = conv(w)
        exe.arg_dict["c_bias"][:] = b
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(conv(og))])
        back = (lambda a: a) if layout == "NCHW" else to_first
        grads.append({k: (v.asnumpy() if k == "c_bias" else back(v.asnumpy())) for k, v in exe.grad_dict.items()})
    for k in grads[0]:
        assert_almost_equal(grads[1][k], grads[0][k], rtol=1e-5, atol=1e-5, names=("NHWC", "NCHW"))


def test_convolution_layout_errors():
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match="layout NHWC does not fit a 1-D convolution"):
        mx.sym.Convolution(x, kernel=(3,), num_filter=2, layout="NHWC").infer_shape(x=(1, 5, 3))
    with pytest.raises(mx.MXNetError, match=r"needs data of 4 dims \(N, spatial..., C\)"):
        mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, layout="NHWC").infer_shape(x=(1, 5, 3))
    with pytest.raises(mx.MXNetError, match="Pooling layout NCHW does not fit data with 1 spatial dims"):
        mx.sym.Pooling(x, kernel=(3,), layout="NCHW").infer_shape(x=(1, 5, 3))


# ---- BatchNorm ----------------------------------------------------------------------------------
def np_bn(x, gamma, beta, mean, var, eps, axis=1):
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    r = lambda v: v.reshape(shape)
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(gamma) + r(beta)


@pytest.mark.parametrize("fix_gamma", [True, False])
@pytest.mark.parametrize("shape,axis", [((4, 3, 5, 5), 1), ((6, 5), 1), ((2, 3, 4, 2), -1)])
def test_batchnorm_training_forward_and_moving_stats(fix_gamma, shape, axis):
    x = randn(*shape) * 2 + 1
    c = shape[axis]
    gamma, beta = rng.rand(c) + 0.5, randn(c)
    mm, mv = randn(c), rng.rand(c) + 0.5
    sym = mx.sym.BatchNorm(mx.sym.var("x"), fix_gamma=fix_gamma, eps=2e-5, momentum=0.8, axis=axis,
                           name="bn", output_mean_var=True)
    red = tuple(i for i in range(x.ndim) if i != (axis % x.ndim))
    mean, var = x.mean(axis=red), x.var(axis=red)
    g = np.ones(c) if fix_gamma else gamma
    for dtype in (np.float64, np.float32):
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=shape)
        for k, v in (("x", x), ("bn_gamma", gamma), ("bn_beta", beta)):
            exe.arg_dict[k][:] = v
        exe.aux_dict["bn_moving_mean"][:] = mm
        exe.aux_dict["bn_moving_var"][:] = mv
        out, m, v = [o.asnumpy() for o in exe.forward(is_train=True)]
        tol = 1e-10 if dtype == np.float64 else 1e-4
        assert_almost_equal(out, np_bn(x, g, beta, mean, var, 2e-5, axis), rtol=tol, atol=tol)
        assert_almost_equal(m, mean, rtol=tol, atol=tol)
        assert_almost_equal(v, 1 / np.sqrt(var + 2e-5), rtol=tol, atol=tol)  # MXNet's third output
        # momentum is a float32 parameter (as in MXNet), hence the looser bound
        mtol = max(tol, 1e-7)
        assert_almost_equal(exe.aux_dict["bn_moving_mean"], 0.8 * mm + 0.2 * mean, rtol=mtol, atol=mtol)
        assert_almost_equal(exe.aux_dict["bn_moving_var"], 0.8 * mv + 0.2 * var, rtol=mtol, atol=mtol)
        # inference normalizes with the moving statistics and leaves them alone
        exe.aux_dict["bn_moving_mean"][:] = mm
        exe.aux_dict["bn_moving_var"][:] = mv
        before = exe.aux_dict["bn_moving_mean"].asnumpy()
        out = exe.forward(is_train=False)[0].asnumpy()
        assert_almost_equal(out, np_bn(x, g, beta, mm, mv, 2e-5, axis), rtol=tol, atol=tol)
        np.testing.assert_array_equal(exe.aux_dict["bn_moving_mean"].asnumpy(), before)
    # auxiliary states, not arguments, and float32 parameters for 16-bit data
    assert sym.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    _, _, aux_t = sym.infer_type(x="float16")
    assert aux_t == [np.float32, np.float32]


@pytest.mark.parametrize("shape,axis,dtype", [
    ((4, 3, 5, 5), 1, "float32"),   # oneDNN
    ((4, 3, 5, 5), 1, "float64"),   # the plain loops
    ((6, 5), 1, "float32"),
    ((2, 4, 3, 6), -1, "float32"),  # channels last (oneDNN's nhwc view)
    ((4, 3, 5, 5), 2, "float32"),   # an inner axis: the plain loops
    ((4, 3, 5, 5), 1, "float16"),   # float32 statistics of 16-bit data
])
def test_batchnorm_third_output_is_the_inverse_std(shape, axis, dtype):
    """BatchNorm(output_mean_var=True) returns as its third output what MXNet 1.9.1 returns there,
    1 / sqrt(var + eps) (its kernels keep that for the backward), not the variance: of the batch
    variance in training, of moving_var in inference and with use_global_stats (MXNet's CPU numbers,
    oneDNN or not). The data gradient, computed from that output, is still BatchNorm's."""
    eps = 2e-3
    c = shape[axis]
    pdt = np.float64 if dtype == "float64" else np.float32
    x = (randn(*shape) * 2 + 1).astype(dtype).astype(np.float64)  # values the array holds
    dy = randn(*shape).astype(dtype).astype(np.float64)
    gamma, beta, mm, mv = (a.astype(pdt).astype(np.float64)
                           for a in (rng.rand(c) + 0.5, randn(c), randn(c), rng.rand(c) + 0.5))
    red = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    bshape = [1] * x.ndim
    bshape[axis] = c
    tol = {"float64": 1e-10, "float32": 1e-5, "float16": 2e-3}[dtype]
    for train, use_global_stats in ((True, False), (False, False), (True, True), (False, True)):
        data = mx.nd.array(x, dtype=dtype)
        data.attach_grad()
        params = [mx.nd.array(a, dtype=pdt) for a in (gamma, beta, mm, mv)]
        with mx.autograd.record(train_mode=train):
            out, mean, third = mx.nd.BatchNorm(data, *params, eps=eps, axis=axis, fix_gamma=False,
                                               use_global_stats=use_global_stats, output_mean_var=True)
        batch = train and not use_global_stats
        m, v = (x.mean(axis=red), x.var(axis=red)) if batch else (mm, mv)
        what = "train=%s use_global_stats=%s" % (train, use_global_stats)
        assert_almost_equal(third, 1 / np.sqrt(v + eps), rtol=tol, atol=tol, names=(what, "1/sqrt(var+eps)"))
        assert_almost_equal(mean, m, rtol=tol, atol=tol, names=(what, "mean"))
        assert_almost_equal(out.astype("float64"), np_bn(x, gamma, beta, m, v, eps, axis),
                            rtol=tol, atol=tol, names=(what, "output"))
        if not train:
            continue
        out.backward(mx.nd.array(dy, dtype=dtype))
        r = lambda a: a.reshape(bshape)  # noqa: E731
        invstd = r(1 / np.sqrt(v + eps))
        want = r(gamma) * invstd * dy
        if batch:
            xhat = (x - r(m)) * invstd
            want = r(gamma) * invstd * (dy - dy.mean(axis=red, keepdims=True)
                                        - xhat * (dy * xhat).mean(axis=red, keepdims=True))
        assert_almost_equal(data.grad.astype("float64"), want, rtol=tol, atol=tol, names=(what, "d data"))


@pytest.mark.parametrize("fix_gamma,use_global_stats", [(True, False), (False, False), (False, True)])
def test_batchnorm_gradient(fix_gamma, use_global_stats):
    x = randn(3, 2, 4, 3) * 1.5 + 0.5
    sym = mx.sym.BatchNorm(mx.sym.var("x"), fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                           eps=1e-3, name="bn")
    loc = {"x": x, "bn_gamma": rng.rand(2) + 0.5, "bn_beta": randn(2)}
    aux = {"bn_moving_mean": randn(2), "bn_moving_var": rng.rand(2) + 0.5}
    check_numeric_gradient(sym, loc, aux_states=aux, numeric_eps=1e-5, rtol=1e-5, atol=1e-7)
    # float32 (oneDNN) gradients match float64
    og = randn(3, 2, 4, 3)
    got = {}
    for dtype in (np.float64, np.float32):
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=x.shape)
        for k, v in loc.items():
            exe.arg_dict[k][:] = v
        for k, v in aux.items():
            exe.aux_dict[k][:] = v
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(og, dtype=dtype)])
        got[dtype] = {k: v.asnumpy() for k, v in exe.grad_dict.items()}
    for k in got[np.float64]:
        assert_almost_equal(got[np.float32][k], got[np.float64][k], rtol=1e-4, atol=1e-5)
    if fix_gamma:
        assert (got[np.float32]["bn_gamma"] == 0).all()


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("bfloat16", 3e-2)])
def test_batchnorm_on_the_last_axis_matches_axis_1(dtype, tol):
    """BatchNorm(axis=3) on NHWC data (oneDNN's nhwc path) against axis 1 on the NCHW data:
    training outputs, every gradient and the moving statistics."""
    x, og = randn(4, 6, 5, 3) * 2 + 1, randn(4, 6, 5, 3)
    gamma, beta = rng.uniform(0.5, 1.5, 6), randn(6)
    results = []
    for axis, conv in ((1, lambda a: a), (3, to_last)):
        sym = mx.sym.BatchNorm(mx.sym.var("x"), fix_gamma=False, axis=axis, momentum=0.8, name="bn")
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=conv(x).shape)
        exe.arg_dict["x"][:] = conv(x)
        exe.arg_dict["bn_gamma"][:] = gamma
        exe.arg_dict["bn_beta"][:] = beta
        y = exe.forward(is_train=True)[0].asnumpy().astype(np.float64)
        exe.backward([mx.nd.array(conv(og), dtype=dtype)])
        back = (lambda a: a) if axis == 1 else to_first
        results.append([back(y), back(exe.grad_dict["x"].asnumpy().astype(np.float64))] +
                       [exe.grad_dict[k].asnumpy() for k in ("bn_gamma", "bn_beta")] +
                       [exe.aux_dict[k].asnumpy() for k in ("bn_moving_mean", "bn_moving_var")])
    for a, b in zip(*results):
        assert_almost_equal(b, a, rtol=tol, atol=tol * max(np.abs(a).max(), 1.0), names=("axis 3", "axis 1"))


def test_batchnorm_16bit_data():
    """Training-mode BatchNorm (batch statistics over axes 0, 2, 3; default eps 1e-3) on float32,
    float16 and bfloat16 data (float32 parameters) against float64 numpy on the values each executor
    holds. Bounds: float32 a few float32 roundings; float16 and bfloat16 about two roundings of the
    output (2^-11 = 4.9e-4 and 2^-8 = 3.9e-3 relative), the statistics being float32."""
    x = randn(4, 8, 3, 3) * 3 + 2
    sym = mx.sym.BatchNorm(mx.sym.var("x"), fix_gamma=False, name="bn")
    loc = {"x": x.astype(np.float16).astype(np.float32), "bn_gamma": rng.rand(8) + 0.5, "bn_beta": randn(8)}
    for dtype, tol in (("float32", 1e-5), ("float16", 1e-3), ("bfloat16", 8e-3)):
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=x.shape)
        assert exe.arg_dict["bn_gamma"].dtype == np.float32
        for k, v in loc.items():
            exe.arg_dict[k][:] = v
        out = exe.forward(is_train=True)[0].asnumpy().astype(np.float64)
        xs, gamma, beta = (exe.arg_dict[k].asnumpy().astype(np.float64) for k in ("x", "bn_gamma", "bn_beta"))
        ref = np_bn(xs, gamma, beta, xs.mean(axis=(0, 2, 3)), xs.var(axis=(0, 2, 3)), 1e-3)
        assert_almost_equal(out, ref, rtol=tol, atol=tol * 0.5, names=(dtype, "float64 numpy"))


# ---- SyncBatchNorm (in one process: BatchNorm over axis 1; across ranks: tests/python/test_dist.py)
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_sync_batchnorm_in_one_process_is_batchnorm(fix_gamma):
    x = randn(4, 3, 5, 2) * 2 + 1
    gamma, beta = rng.rand(3) + 0.5, randn(3)
    mm, mv = randn(3), rng.rand(3) + 0.5
    sym = mx.sym.contrib.SyncBatchNorm(mx.sym.var("x"), fix_gamma=fix_gamma, eps=2e-5, momentum=0.8,
                                       output_mean_var=True, ndev=1, key="bn0", name="bn")
    assert sym.list_arguments() == ["x", "bn_gamma", "bn_beta"]
    assert sym.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    g = np.ones(3) if fix_gamma else gamma
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 1e-5)):
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=x.shape)
        for k, v in (("x", x), ("bn_gamma", gamma), ("bn_beta", beta)):
            exe.arg_dict[k][:] = v
        exe.aux_dict["bn_moving_mean"][:] = mm
        exe.aux_dict["bn_moving_var"][:] = mv
        out, m, v = [o.asnumpy() for o in exe.forward(is_train=True)]
        assert_almost_equal(out, np_bn(x, g, beta, mean, var, 2e-5), rtol=tol, atol=tol)
        assert_almost_equal(m, mean, rtol=tol, atol=tol)
        assert_almost_equal(v, var, rtol=tol, atol=tol)
        mtol = max(tol, 1e-7)  # float32 momentum, as BatchNorm's
        assert_almost_equal(exe.aux_dict["bn_moving_mean"], 0.8 * mm + 0.2 * mean, rtol=mtol, atol=mtol)
        assert_almost_equal(exe.aux_dict["bn_moving_var"], 0.8 * mv + 0.2 * var, rtol=mtol, atol=mtol)
        before = exe.aux_dict["bn_moving_mean"].asnumpy()
        out = exe.forward(is_train=False)[0].asnumpy()
        moving = [exe.aux_dict[k].asnumpy() for k in ("bn_moving_mean", "bn_moving_var")]
        assert_almost_equal(out, np_bn(x, g, beta, *moving, 2e-5), rtol=tol, atol=tol)
        np.testing.assert_array_equal(exe.aux_dict["bn_moving_mean"].asnumpy(), before)


@pytest.mark.parametrize("fix_gamma,use_global_stats", [(True, False), (False, False), (False, True)])
def test_sync_batchnorm_gradient_and_16bit(fix_gamma, use_global_stats):
    """float64 against finite differences; float32, float16 and bfloat16 (staged through float32,
    float32 statistics) against BatchNorm's gradients on the same values, within a few roundings
    of each dtype (2^-11 and 2^-8 relative for the 16-bit ones)."""
    x = randn(3, 2, 4, 3) * 1.5 + 0.5
    kw = dict(fix_gamma=fix_gamma, use_global_stats=use_global_stats, eps=1e-3, name="bn")
    sync = mx.sym.contrib.SyncBatchNorm(mx.sym.var("x"), **kw)
    loc = {"x": x, "bn_gamma": rng.rand(2) + 0.5, "bn_beta": randn(2)}
    aux = {"bn_moving_mean": randn(2), "bn_moving_var": rng.rand(2) + 0.5}
    check_numeric_gradient(sync, loc, aux_states=aux, numeric_eps=1e-5, rtol=1e-5, atol=1e-7)
    og = randn(*x.shape)

    def run(sym, dtype):
        exe = sym.simple_bind(mx.current_context(), type_dict={"x": dtype}, x=x.shape)
        for k, v in loc.items():
            exe.arg_dict[k][:] = v
        for k, v in aux.items():
            exe.aux_dict[k][:] = v
        y = exe.forward(is_train=True)[0].asnumpy().astype(np.float64)
        exe.backward([mx.nd.array(og, dtype=dtype)])
        return [y] + [exe.grad_dict[k].asnumpy().astype(np.float64) for k in ("x", "bn_gamma", "bn_beta")]

    plain = mx.sym.BatchNorm(mx.sym.var("x"), **kw)
    for dtype, tol in (("float32", 1e-5), ("float16", 4e-3), ("bfloat16", 3e-2)):
        for got, want in zip(run(sync, dtype), run(plain, dtype)):
            assert_almost_equal(got, want, rtol=tol, atol=tol * max(np.abs(want).max(), 1.0),
                                names=("SyncBatchNorm " + dtype, "BatchNorm " + dtype))


def test_sync_batchnorm_gluon_block():
    net = mx.gluon.contrib.nn.SyncBatchNorm(in_channels=3, num_devices=4)
    net.initialize()
    x = mx.nd.array(randn(4, 3, 2, 2))
    with mx.autograd.record():
        y = net(x)
    ref = np_bn(x.asnumpy(), np.ones(3), np.zeros(3), x.asnumpy().mean(axis=(0, 2, 3)),
                x.asnumpy().var(axis=(0, 2, 3)), 1e-5)
    assert_almost_equal(y.asnumpy(), ref, rtol=1e-4, atol=1e-5)
    net.hybridize()
    assert_almost_equal(net(x).asnumpy(), np_bn(x.asnumpy(), np.ones(3), np.zeros(3),
                                                net.running_mean.data().asnumpy(),
                                                net.running_var.data().asnumpy(), 1e-5),
                        rtol=1e-4, atol=1e-5)


# ---- Pooling ------------------------------------------------------------------------------------
POOL_CASES = [
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max"),
    dict(kernel=(2, 2), stride=(2, 2), pool_type="avg"),
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", count_include_pad=False),
    dict(kernel=(3, 2), stride=(2, 2), pool_type="sum", pooling_convention="full"),
    dict(kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full"),
]


@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_pooling(case):
    x = randn(2, 3, 7, 8)
    sym = mx.sym.Pooling(mx.sym.var("x"), **case)
    ref = np_pool(x, case["kernel"], case["stride"], case.get("pad", (0, 0)), case["pool_type"],
                  case.get("pooling_convention", "valid"), case.get("count_include_pad", True))
    check_symbolic_forward(sym, {"x": x}, [ref], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(*ref.shape), dtype="float64")])
    check_16bit(sym, {"x": x})


@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_pooling_channels_last_layout(case):
    x = randn(2, 3, 7, 8)
    sym = mx.sym.Pooling(mx.sym.var("x"), layout="NHWC", **case)
    ref = np_pool(x, case["kernel"], case["stride"], case.get("pad", (0, 0)), case["pool_type"],
                  case.get("pooling_convention", "valid"), case.get("count_include_pad", True))
    loc = {"x": to_last(x)}
    check_symbolic_forward(sym, loc, [to_last(ref)], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [to_last(ref)], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, loc)
    check_add_req(sym, loc, [mx.nd.array(randn(*to_last(ref).shape), dtype="float64")])
    check_16bit(sym, loc)


def test_channels_last_global_pooling_1d_and_3d():
    for shape, layout in (((2, 5, 7), "NWC"), ((2, 3, 4, 5, 6), "NDHWC")):
        x = randn(*shape)  # channels last
        axes = tuple(range(1, len(shape) - 1))
        for pool_type, ref in (("avg", x.mean(axis=axes, keepdims=True)), ("max", x.max(axis=axes, keepdims=True))):
            sym = mx.sym.Pooling(mx.sym.var("x"), global_pool=True, pool_type=pool_type,
                                 kernel=(1,) * len(axes), layout=layout)
            check_symbolic_forward(sym, {"x": x}, [ref], rtol=1e-5, atol=1e-6)
            check_numeric_gradient(sym, {"x": x})


def test_global_pooling():
    x = randn(2, 4, 5, 6)
    for pool_type, ref in (("avg", x.mean(axis=(2, 3))), ("max", x.max(axis=(2, 3)))):
        sym = mx.sym.Pooling(mx.sym.var("x"), global_pool=True, pool_type=pool_type, kernel=(1, 1))
        check_symbolic_forward(sym, {"x": x}, [ref[:, :, None, None]], rtol=1e-5, atol=1e-6)
        check_numeric_gradient(sym, {"x": x})


# ---- LeakyReLU, Dropout, Concat, softmax_cross_entropy ----------------------------------------
# (act_type, reference with slope 0.1); the GPU suite compares these (and prelu) with the CPU
LEAKY_ACTS = [
    ("leaky", lambda x: np.where(x > 0, x, 0.1 * x)),
    ("elu", lambda x: np.where(x > 0, x, 0.1 * np.expm1(x))),
    ("selu", lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    ("gelu", lambda x: 0.5 * x * (1 + np.vectorize(__import__("math").erf)(x / np.sqrt(2)))),
]


@pytest.mark.parametrize("act,ref", LEAKY_ACTS, ids=[a[0] for a in LEAKY_ACTS])
def test_leaky_relu(act, ref):
    x = randn(3, 4, 5)
    x[np.abs(x) < 1e-2] = 0.3
    sym = mx.sym.LeakyReLU(mx.sym.var("x"), act_type=act, slope=0.1)
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(randn(3, 4, 5), dtype="float64")])
    check_16bit(sym, {"x": x})


def test_prelu():
    x = randn(2, 3, 4, 4)
    x[np.abs(x) < 1e-2] = 0.3
    gamma = rng.rand(3) * 0.5
    sym = mx.sym.LeakyReLU(mx.sym.var("x"), act_type="prelu", name="p")
    assert sym.list_arguments() == ["x", "p_gamma"]
    ref = np.where(x > 0, x, gamma.reshape(1, 3, 1, 1) * x)
    check_symbolic_forward(sym, {"x": x, "p_gamma": gamma}, [ref], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, {"x": x, "p_gamma": gamma})
    check_add_req(sym, {"x": x, "p_gamma": gamma}, [mx.nd.array(randn(2, 3, 4, 4), dtype="float64")])


def test_dropout():
    x = np.ones((200, 50))
    sym = mx.sym.Dropout(mx.sym.var("x"), p=0.3)
    exe = sym.simple_bind(mx.current_context(), x=x.shape)
    exe.arg_dict["x"][:] = x
    # inference: identity
    np.testing.assert_array_equal(exe.forward(is_train=False)[0].asnumpy(), x)
    mx.random.seed(42)
    a = exe.forward(is_train=True)[0].asnumpy()
    kept = a != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(a[kept], 1 / 0.7, rtol=1e-6)
    # reproducible after seeding, different otherwise
    b = exe.forward(is_train=True)[0].asnumpy()
    assert (a != b).any()
    mx.random.seed(42)
    np.testing.assert_array_equal(exe.forward(is_train=True)[0].asnumpy(), a)
    # gradient is the same mask
    og = randn(200, 50)
    exe.backward([mx.nd.array(og)])
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), og * a, rtol=1e-5)
    # p=0 and mode='always'
    s0 = mx.sym.Dropout(mx.sym.var("x"), p=0.0)
    check_symbolic_forward(s0, {"x": x}, [x], is_train=True)
    # mode='always' drops in inference as well as in training (MXNet's semantics): every output is
    # 0 or exactly x / (1 - p) = 2x, and about half are kept (|0.5 - kept| < 0.02: 4 standard deviations)
    sa = mx.sym.Dropout(mx.sym.var("x"), p=0.5, mode="always")
    xr = randn(200, 50).astype(np.float32)
    ea = sa.simple_bind(mx.current_context(), x=xr.shape)
    ea.arg_dict["x"][:] = xr
    for is_train in (False, True):
        out = ea.forward(is_train=is_train)[0].asnumpy()
        kept = out != 0
        assert abs(kept.mean() - 0.5) < 0.02, "is_train=%s: kept %g" % (is_train, kept.mean())
        np.testing.assert_array_equal(out[kept], 2 * xr[kept])
    # axes: one mask value per row
    sx = mx.sym.Dropout(mx.sym.var("x"), p=0.5, axes=(1,))
    e2 = sx.simple_bind(mx.current_context(), x=x.shape)
    e2.arg_dict["x"][:] = x
    r = e2.forward(is_train=True)[0].asnumpy()
    assert (r == r[:, :1]).all()


def test_concat():
    xs = {"a": randn(2, 3, 4), "b": randn(2, 1, 4), "c": randn(2, 2, 4)}
    sym = mx.sym.Concat(*[mx.sym.var(k) for k in "abc"], dim=1)
    check_symbolic_forward(sym, xs, [np.concatenate([xs[k] for k in "abc"], axis=1)])
    check_numeric_gradient(sym, xs)
    check_add_req(sym, xs, [mx.nd.array(randn(2, 6, 4), dtype="float64")])
    check_16bit(sym, xs)
    s0 = mx.sym.concat(mx.sym.var("a"), mx.sym.var("b"), dim=0)
    a, b = randn(2, 3), randn(1, 3)
    check_symbolic_forward(s0, {"a": a, "b": b}, [np.concatenate([a, b])])
    assert s0.infer_shape(a=(2, 3), b=(1, 3))[1] == [(3, 3)]


def test_softmax_cross_entropy():
    x = randn(5, 4)
    label = np.array([0, 3, 1, 2, 3], dtype=np.float64)
    sym = mx.sym.softmax_cross_entropy(mx.sym.var("x"), mx.sym.var("label"))
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    loss = -np.log(p[np.arange(5), label.astype(int)]).sum()
    check_symbolic_forward(sym, {"x": x, "label": label}, [np.array([loss])], rtol=1e-5)
    check_numeric_gradient(sym, {"x": x, "label": label}, grad_nodes=["x"])
    check_add_req(sym, {"x": x, "label": label}, [mx.nd.array([0.7], dtype="float64")])


def test_bfloat16_uses_native_kernels_where_the_cpu_has_them():
    f = mx.features()
    if f["AVX512_BF16"] != "1":
        pytest.skip("CPU lacks AVX512_BF16: bfloat16 runs through float32 (checked by the "
                    "16-bit agreement tests)")
    if f["DNNL_ISA"] in ("sse41", "avx", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni"):
        # ONEDNN_MAX_CPU_ISA caps oneDNN below its bfloat16 kernels on this CPU: symnet must
        # then say bfloat16 is not native (AMP 'auto' relies on it)
        assert f["DNNL_BF16_NATIVE"] == "0", f
        return
    assert f["DNNL_BF16_NATIVE"] == "1"
