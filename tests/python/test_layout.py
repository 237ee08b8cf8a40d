"""The layout plan: channels-last regions give the same numbers as the default layout, keep
arguments/outputs in the default layout, and convert where a region meets other ops."""
import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import assert_almost_equal


def layout_option(planned):
    """Bind options: the layout plan on ('auto') or off."""
    return {"layout": "auto" if planned else "off"}


def run(net, shapes, dtype, channels_last, seed=0, ctx=None):
    exe = net.simple_bind(ctx or mx.cpu(), type_dict={"data": dtype}, options=layout_option(channels_last),
                          **shapes)
    rng = np.random.RandomState(seed)
    for k, v in exe.arg_dict.items():
        v[:] = rng.normal(0, 0.3, v.shape)
    if "softmax_label" in exe.arg_dict:
        exe.arg_dict["softmax_label"][:] = rng.randint(0, 10, exe.arg_dict["softmax_label"].shape)
    outs = [o.asnumpy().astype(np.float64) for o in exe.forward(is_train=True)]
    exe.backward()
    grads = {k: v.asnumpy().astype(np.float64) for k, v in exe.grad_dict.items()}
    aux = {k: v.asnumpy() for k, v in exe.aux_dict.items()}
    return exe, outs, grads, aux


def small_cnn(width=8):
    """A CNN whose activations have `width`-multiple channels: 12 gives channels-last regions,
    8 and 16 blocked ones (nChw8c on AVX2; nChw16c for 16 on AVX-512: what oneDNN picks)."""
    x = mx.sym.var("data")
    c1 = mx.sym.Convolution(x, kernel=(3, 3), num_filter=width, pad=(1, 1), name="c1")
    b1 = mx.sym.BatchNorm(c1, fix_gamma=False, name="b1")
    a1 = mx.sym.LeakyReLU(b1, act_type="leaky", slope=0.1)
    p1 = mx.sym.Pooling(a1, kernel=(2, 2), stride=(2, 2), pool_type="max")
    c2 = mx.sym.Convolution(p1, kernel=(3, 3), num_filter=width, pad=(1, 1), name="c2")
    c3 = mx.sym.Convolution(p1, kernel=(1, 1), num_filter=width // 2 if width == 8 else width, name="c3")
    cat = mx.sym.Concat(mx.sym.Activation(c2, act_type="relu"), c3, dim=1)
    d = mx.sym.Dropout(cat, p=0.0)
    s = mx.sym.sum(d, axis=(2, 3))  # a reduction over logical axes: needs the default layout
    fc = (mx.sym.FullyConnected(mx.sym.Flatten(d), num_hidden=10, name="fc")
          + mx.sym.FullyConnected(s, num_hidden=10, name="fc2"))
    # global pooling straight into FullyConnected (as gluon exports ResNets): a 1x1 output
    gp = mx.sym.Pooling(d, global_pool=True, pool_type="avg", kernel=(1, 1), name="gpool")
    fc = fc + mx.sym.FullyConnected(gp, num_hidden=10, name="fc3")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


MARKERS = ("(NHWC)", "(nChw8c)", "(nChw16c)")


@pytest.mark.parametrize("dtype,rtol", [("float32", 1e-4), ("float16", 2e-2)])
@pytest.mark.parametrize("width", [8, 12, 16])
def test_planned_layouts_match_default_layout(dtype, rtol, width):
    net = small_cnn(width)
    shapes = {"data": (4, 3, 12, 12)}
    exe, o1, g1, a1 = run(net, shapes, dtype, True)
    _, o2, g2, a2 = run(net, shapes, dtype, False)
    dbg = exe.debug_str()
    assert any(m in dbg for m in MARKERS) and "_convert_layout" in dbg, dbg
    isa = mx.features()["DNNL_ISA"]
    if width == 12:  # fits no channel block
        assert "(NHWC)" in dbg and "(nChw" not in dbg, dbg
    if isa == "avx2":  # oneDNN 2.6 has no AVX2 kernel for nChw16c: it would run reference loops
        assert "(nChw16c)" not in dbg, dbg
        assert width == 12 or "(nChw8c)" in dbg, dbg
    if isa.startswith("avx512") and width == 16:
        assert "(nChw16c)" in dbg, dbg
    assert_same_results((o1, g1, a1), (o2, g2, a2), rtol)


def assert_same_results(planned, default, rtol):
    """Outputs, gradients and auxiliary states of a planned run against a default-layout run."""
    (o1, g1, a1), (o2, g2, a2) = planned, default
    for a, b in zip(o1, o2):
        assert_almost_equal(a, b, rtol=rtol, atol=rtol * np.abs(b).max())
    for k in g2:
        # biases right before a BatchNorm have mathematically zero gradients: absolute noise
        assert_almost_equal(g1[k], g2[k], rtol=rtol, atol=rtol * max(np.abs(g2[k]).max(), 1.0),
                            names=("NHWC grad of " + k, "NCHW"))
    for k in a2:
        assert_almost_equal(a1[k], a2[k], rtol=rtol, atol=rtol)


def test_outputs_and_arguments_stay_in_default_layout():
    x = mx.sym.var("data")
    c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1), name="c")
    r = mx.sym.Activation(c, act_type="relu", name="r")
    net = mx.sym.Group([r, mx.sym.Convolution(r, kernel=(1, 1), num_filter=2, name="c2")])
    exe = net.simple_bind(mx.cpu(), data=(2, 3, 6, 6))
    rng = np.random.RandomState(1)
    for k, v in exe.arg_dict.items():
        v[:] = rng.normal(size=v.shape)
    out = exe.forward()[0].asnumpy()
    # the relu output is a graph output, so its region is pinned to NCHW: compare with numpy
    w, b, xv = exe.arg_dict["c_weight"].asnumpy(), exe.arg_dict["c_bias"].asnumpy(), exe.arg_dict["data"].asnumpy()
    from test_operator_nn import np_conv
    ref = np.maximum(np_conv(xv, w, b, (1, 1), (1, 1), (1, 1), 1), 0)
    assert_almost_equal(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("width", [8, 16])
def test_integer_data_cast_into_a_region_keeps_its_layout(width):
    """A Cast from integer data (which no layout-aware kernel reads) pins its region, so the
    cast does not read NCHW integers into a channels-last buffer."""
    x = mx.sym.Reshape(mx.sym.var("data"), shape=(2, 3, 6, 6))  # an integer intermediate
    c = mx.sym.Convolution(mx.sym.Cast(x, dtype="float32"), kernel=(3, 3), num_filter=width, pad=(1, 1), name="c")
    net = mx.sym.FullyConnected(mx.sym.Activation(c, act_type="relu"), num_hidden=4, name="fc")
    rng = np.random.RandomState(3)
    data = rng.randint(-5, 5, (2, 108))
    arg_shapes = dict(zip(net.list_arguments(), net.infer_shape(data=data.shape)[0]))
    values = {k: data if k == "data" else rng.normal(0, 0.3, s) for k, s in arg_shapes.items()}
    outs = []
    for planned in (True, False):
        exe = net.simple_bind(mx.cpu(), grad_req="null", type_dict={"data": "int32"},
                              options=layout_option(planned), data=data.shape)
        for k, v in exe.arg_dict.items():
            v[:] = values[k]
        outs.append(exe.forward()[0].asnumpy())
    assert_almost_equal(outs[0], outs[1], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("width", [8, 12, 16])
def test_max_pooling_ties_send_the_gradient_to_the_first_maximum(width):
    """Integer activations make many windows hold their maximum more than once; the planned
    (blocked or channels-last) pooling backward must pick the same element as the default one:
    the first in the window, as MXNet does."""
    x = mx.sym.var("data")
    c1 = mx.sym.Convolution(x, kernel=(1, 1), num_filter=width, no_bias=True, name="c1")
    p = mx.sym.Pooling(c1, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    c2 = mx.sym.Convolution(p, kernel=(1, 1), num_filter=width, no_bias=True, name="c2")
    net = mx.sym.LinearRegressionOutput(mx.sym.Flatten(c2), name="out")
    shapes = {"data": (2, 4, 9, 9)}
    results = []
    for planned in (True, False):
        exe = net.simple_bind(mx.cpu(), options=layout_option(planned), **shapes)
        if planned:
            dbg = exe.debug_str()
            assert any(m in dbg for m in MARKERS), dbg
        r = np.random.RandomState(5)
        exe.arg_dict["data"][:] = r.randint(0, 3, shapes["data"])
        exe.arg_dict["c1_weight"][:] = r.randint(-1, 2, exe.arg_dict["c1_weight"].shape)
        exe.arg_dict["c2_weight"][:] = r.normal(0, 0.3, exe.arg_dict["c2_weight"].shape)
        exe.arg_dict["out_label"][:] = r.normal(0, 1, exe.arg_dict["out_label"].shape)
        exe.forward(is_train=True)
        exe.backward()
        results.append({k: v.asnumpy() for k, v in exe.grad_dict.items()})
    pooled = results[1]["data"]
    assert np.count_nonzero(pooled) > 0
    for k in results[0]:
        assert_almost_equal(results[0][k], results[1][k], rtol=1e-5, atol=1e-5)


def test_layout_option_nhwc_plans_channels_last_only():
    """options={'layout': 'NHWC'}: channels-last regions (never blocked), same numbers."""
    net = small_cnn(16)
    shapes = {"data": (4, 3, 12, 12)}
    exe, o1, g1, a1 = run(net, shapes, "float32", True)
    exe2 = net.simple_bind(mx.cpu(), options={"layout": "NHWC"}, **shapes)
    dbg = exe2.debug_str()
    assert "(NHWC)" in dbg and "(nChw" not in dbg, dbg
    assert exe2.options["layout"] == "NHWC"
    _, o2, g2, a2 = run(net, shapes, "float32", False)
    assert_same_results((o1, g1, a1), (o2, g2, a2), 1e-4)
