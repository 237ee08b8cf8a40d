"""Deconvolution and UpSampling: NumPy references in float32 and float64, float64 finite
differences, grad_req='add', float16 and bfloat16 against float32, MXNet 1.9.1's shape rules
(adj, target_shape, groups) and JSON, and the bad-input errors.

DECONV_CASES and UPSAMPLING_CASES are also what tests/python/gpu/test_operator_gpu.py compares
between the CPU and a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# (data shape, Deconvolution attributes): stride 2 with adj and bias, grouped, depthwise (a
# bilinear-upsampling-like 4x4 stride 2), 1-D with adj 2, dilated with padding, target_shape,
# and 3-D
DECONV_CASES = [
    ((2, 3, 3, 4), dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1), adj=(1, 1), no_bias=False)),
    ((1, 4, 3, 3), dict(kernel=(3, 3), num_filter=6, stride=(2, 2), num_group=2)),
    ((1, 4, 3, 3), dict(kernel=(4, 4), num_filter=4, stride=(2, 2), pad=(1, 1), num_group=4)),
    ((2, 3, 4), dict(kernel=(3,), num_filter=2, stride=(3,), adj=(2,), no_bias=False)),
    ((1, 2, 3, 3), dict(kernel=(3, 3), num_filter=2, stride=(2, 1), dilate=(2, 2), pad=(1, 2))),
    ((1, 3, 3, 3), dict(kernel=(3, 3), num_filter=2, stride=(2, 2), target_shape=(6, 7), no_bias=False)),
    ((1, 2, 2, 2, 2), dict(kernel=(2, 2, 2), num_filter=2, stride=(2, 2, 2))),
]
# (input shapes, UpSampling attributes)
UPSAMPLING_CASES = [
    ([(2, 3, 2, 3)], dict(scale=2, sample_type="nearest")),
    ([(1, 2, 2, 3), (1, 3, 4, 6)], dict(scale=2, sample_type="nearest", num_args=2)),
    ([(1, 2, 2, 2), (1, 2, 3, 3)], dict(scale=3, sample_type="nearest", num_args=2, multi_input_mode="sum")),
    ([(2, 3, 3, 2)], dict(scale=2, sample_type="bilinear", num_filter=3)),
    ([(1, 2, 2, 3)], dict(scale=3, sample_type="bilinear", num_filter=2)),
]


def deconv_geometry(shape, kw):
    """MXNet 1.9.1's rule: (pad, adj, output spatial size) per dim; target_shape overrides."""
    nsp = len(kw["kernel"])
    get = lambda k, d: tuple(kw.get(k, (d,) * nsp))  # noqa: E731
    stride, dilate, pad, adj = get("stride", 1), get("dilate", 1), get("pad", 0), get("adj", 0)
    target = kw.get("target_shape")
    pads, adjs, outs = [], [], []
    for i in range(nsp):
        span = dilate[i] * (kw["kernel"][i] - 1) + 1
        p, a = pad[i], adj[i]
        if target:
            total = stride[i] * (shape[2 + i] - 1) + span - target[i]
            p, a = (total + 1) // 2, total % 2
        pads.append(p)
        adjs.append(a)
        outs.append(stride[i] * (shape[2 + i] - 1) + span - 2 * p + a)
    return stride, dilate, pads, outs


def np_deconv(x, w, b, kw):
    """Scatters every input pixel times the kernel into the output (the definition)."""
    stride, dilate, pad, outs = deconv_geometry(x.shape, kw)
    g = kw.get("num_group", 1)
    n, c = x.shape[:2]
    f = kw["num_filter"]
    cg, fg = c // g, f // g
    y = np.zeros((n, f) + tuple(outs))
    for ci in range(c):
        grp = ci // cg
        for pos in np.ndindex(*x.shape[2:]):
            for tap in np.ndindex(*kw["kernel"]):
                o = [pos[i] * stride[i] - pad[i] + tap[i] * dilate[i] for i in range(len(pos))]
                if any(v < 0 or v >= outs[i] for i, v in enumerate(o)):
                    continue
                sl = (slice(None), slice(grp * fg, (grp + 1) * fg)) + tuple(o)
                y[sl] += x[(slice(None), ci) + pos][:, None] * w[(ci, slice(None)) + tap][None, :]
    if b is not None:
        y += b.reshape((1, f) + (1,) * len(outs))
    return y


def np_upsampling(xs, w, kw):
    s = kw["scale"]
    if kw["sample_type"] == "bilinear":
        k = 2 * s - s % 2
        return np_deconv(xs[0], w, None, dict(kernel=(k, k), stride=(s, s), pad=((s - 1 + 1) // 2,) * 2,
                                              num_filter=xs[0].shape[1], num_group=xs[0].shape[1]))
    oh, ow = xs[0].shape[2] * s, xs[0].shape[3] * s
    ups = [x.repeat(oh // x.shape[2], axis=2).repeat(ow // x.shape[3], axis=3) for x in xs]
    return sum(ups) if kw.get("multi_input_mode") == "sum" else np.concatenate(ups, axis=1)


def deconv_sym(kw, name="deconv"):
    return mx.sym.Deconvolution(mx.sym.var("x"), name=name, **kw)


def deconv_location(shape, kw):
    nsp = len(kw["kernel"])
    g = kw.get("num_group", 1)
    loc = {"x": randn(*shape), "deconv_weight": randn(shape[1], kw["num_filter"] // g, *kw["kernel"][:nsp])}
    if not kw.get("no_bias", True):
        loc["deconv_bias"] = randn(kw["num_filter"])
    return loc


def upsampling_sym(shapes, kw, name="up"):
    if kw["sample_type"] == "bilinear":
        return mx.sym.UpSampling(mx.sym.var("x0"), mx.sym.var("up_weight"), name=name, **kw)
    return mx.sym.UpSampling(*[mx.sym.var("x%d" % i) for i in range(len(shapes))], name=name, **kw)


def upsampling_location(shapes, kw):
    loc = {"x%d" % i: randn(*s) for i, s in enumerate(shapes)}
    if kw["sample_type"] == "bilinear":
        s = kw["scale"]
        k = 2 * s - s % 2
        loc["up_weight"] = randn(shapes[0][1], 1, k, k)
    return loc


@pytest.mark.parametrize("shape,kw", DECONV_CASES)
def test_deconvolution(shape, kw):
    sym = deconv_sym(kw)
    loc = deconv_location(shape, kw)
    expected = np_deconv(loc["x"], loc["deconv_weight"], loc.get("deconv_bias"), kw)
    assert sym.infer_shape(x=shape)[1] == [expected.shape]
    for dtype, rtol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        check_symbolic_forward(sym, {k: v.astype(dtype) for k, v in loc.items()}, [expected], rtol=rtol,
                               atol=rtol, dtype=dtype)
    check_numeric_gradient(sym, loc, rtol=1e-6, atol=1e-8)
    check_add_req(sym, loc)
    check_16bit(sym, loc, rtol_f32=1e-5)


def test_deconvolution_float32_gradient_matches_float64():
    """The oneDNN (swapped convolution) backward against the float64 reference loops."""
    for shape, kw in DECONV_CASES[:2] + DECONV_CASES[5:]:
        sym = deconv_sym(kw)
        loc = deconv_location(shape, kw)
        grads = {}
        for dtype in ("float64", "float32"):
            exe = sym.simple_bind(mx.cpu(), grad_req="write", type_dict={k: dtype for k in loc},
                                  **{k: v.shape for k, v in loc.items()})
            for k, v in loc.items():
                exe.arg_dict[k][:] = v
            y = exe.forward(is_train=True)[0]
            exe.backward([mx.nd.array(np.ones(y.shape), dtype=dtype)])
            grads[dtype] = {k: exe.grad_dict[k].asnumpy() for k in loc}
        for k in loc:
            np.testing.assert_allclose(grads["float32"][k], grads["float64"][k], rtol=1e-4, atol=1e-4)


def test_deconvolution_channels_last_layout():
    """NHWC data with (C, kh, kw, F/g) weights gives the NCHW results, transposed."""
    kw = dict(kernel=(3, 3), num_filter=4, stride=(2, 2), adj=(1, 1), num_group=2, no_bias=False)
    loc = deconv_location((1, 2, 3, 2), kw)
    expected = np_deconv(loc["x"], loc["deconv_weight"], loc["deconv_bias"], kw).transpose(0, 2, 3, 1)
    nhwc = {"x": loc["x"].transpose(0, 2, 3, 1), "deconv_weight": loc["deconv_weight"].transpose(0, 2, 3, 1),
            "deconv_bias": loc["deconv_bias"]}
    sym = deconv_sym(dict(kw, layout="NHWC"))
    for dtype in (np.float32, np.float64):
        check_symbolic_forward(sym, {k: v.astype(dtype) for k, v in nhwc.items()}, [expected], rtol=1e-5,
                               atol=1e-5, dtype=dtype)
    check_numeric_gradient(sym, nhwc, rtol=1e-6, atol=1e-8)


def test_deconvolution_imperative_and_defaults():
    x, w = randn(1, 2, 2, 2), randn(2, 3, 2, 2)
    y = mx.nd.Deconvolution(mx.nd.array(x, dtype="float64"), mx.nd.array(w, dtype="float64"), kernel=(2, 2),
                            num_filter=3)
    np.testing.assert_allclose(y.asnumpy(), np_deconv(x, w, None, dict(kernel=(2, 2), num_filter=3)),
                               rtol=1e-12)
    # no_bias defaults to True (unlike Convolution): two arguments
    assert deconv_sym(dict(kernel=(2, 2), num_filter=3)).list_arguments() == ["x", "deconv_weight"]


@pytest.mark.parametrize("shapes,kw", UPSAMPLING_CASES)
def test_upsampling(shapes, kw):
    sym = upsampling_sym(shapes, kw)
    loc = upsampling_location(shapes, kw)
    expected = np_upsampling([loc["x%d" % i] for i in range(len(shapes))], loc.get("up_weight"), kw)
    for dtype, rtol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        check_symbolic_forward(sym, {k: v.astype(dtype) for k, v in loc.items()}, [expected], rtol=rtol,
                               atol=rtol, dtype=dtype)
    check_numeric_gradient(sym, loc, rtol=1e-6, atol=1e-8)
    check_add_req(sym, loc)
    check_16bit(sym, loc, rtol_f32=1e-5)


def test_upsampling_mxnet_json_and_bilinear_init():
    """MXNet's names: inputs arg0.. (nearest) or data/weight, num_args written, and the bilinear
    weight variable marked for the bilinear initializer."""
    sym = mx.sym.UpSampling(mx.sym.var("x"), scale=2, sample_type="bilinear", num_filter=4, name="u")
    assert sym.list_arguments() == ["x", "u_weight"]
    nodes = json.loads(sym.tojson())["nodes"]
    attrs = {"num_args": "1", "num_filter": "4", "sample_type": "bilinear", "scale": "2"}
    assert nodes[2]["attrs"] == attrs
    # as MXNet writes it: the auto-created variable carries the op's attributes too
    assert nodes[1]["attrs"] == dict(attrs, __init__='["bilinear", {}]')
    assert sym.infer_shape(x=(1, 4, 3, 3))[0] == [(1, 4, 3, 3), (4, 1, 4, 4)]
    y = mx.nd.UpSampling(mx.nd.ones((1, 1, 2, 2)), scale=2, sample_type="nearest")
    assert y.shape == (1, 1, 4, 4) and np.all(y.asnumpy() == 1)


def test_deconv_upsampling_bad_inputs():
    with pytest.raises(mx.MXNetError, match=r"node 'deconv'.*adj \(2 in dim 0\) must be smaller than the stride"):
        deconv_sym(dict(kernel=(3, 3), num_filter=2, stride=(2, 2), adj=(2, 2))).infer_shape(x=(1, 2, 3, 3))
    with pytest.raises(mx.MXNetError, match=r"node 'deconv'.*target_shape .* is larger than"):
        deconv_sym(dict(kernel=(3, 3), num_filter=2, target_shape=(9, 9))).infer_shape(x=(1, 2, 5, 5))
    with pytest.raises(mx.MXNetError, match=r"node 'deconv'.*num_group 4 must divide"):
        deconv_sym(dict(kernel=(3, 3), num_filter=6, num_group=4)).infer_shape(x=(1, 4, 5, 5))
    with pytest.raises(mx.MXNetError, match=r"node 'deconv'.*needs data of 3 dims"):
        deconv_sym(dict(kernel=(3,), num_filter=2)).infer_shape(x=(1, 4, 5, 5))
    with pytest.raises(mx.MXNetError, match=r"node 'deconv'.*weight"):
        deconv_sym(dict(kernel=(3, 3), num_filter=2)).infer_shape(x=(1, 4, 5, 5), deconv_weight=(2, 4, 3, 3))
    with pytest.raises(mx.MXNetError, match=r"node 'up'.*num_filter \(2\) must equal the data's channels"):
        upsampling_sym([(1, 3, 2, 2)], dict(scale=2, sample_type="bilinear", num_filter=2)).infer_shape(
            x0=(1, 3, 2, 2))
    with pytest.raises(mx.MXNetError, match=r"node 'up'.*multi_input_mode=sum needs inputs of equal channels"):
        upsampling_sym([(1, 2, 2, 2), (1, 3, 2, 2)], dict(scale=2, sample_type="nearest", num_args=2,
                                                           multi_input_mode="sum")).infer_shape(
            x0=(1, 2, 2, 2), x1=(1, 3, 2, 2))
    with pytest.raises(mx.MXNetError, match=r"node 'up'.*dividing the output's"):
        upsampling_sym([(1, 2, 2, 2), (1, 3, 3, 2)], dict(scale=2, sample_type="nearest", num_args=2)).infer_shape(
            x0=(1, 2, 2, 2), x1=(1, 3, 3, 2))
    with pytest.raises(mx.MXNetError, match=r"node 'up'.*sample_type"):
        mx.sym.UpSampling(mx.sym.var("x"), scale=2, sample_type="cubic", name="up")
