"""Pad, Crop, contrib.BilinearResize2D, and Pooling's lp type and 'same' convention: NumPy
references in float32 and float64, float64 finite differences, grad_req='add', float16/bfloat16
against float32, imperative calls, MXNet 1.9.1's JSON and names, and the bad-input errors.

The references follow MXNet 1.9.1 as measured (tests/mxnet_parity checks the same against MXNet
itself): lp pooling is (sum x^p)^(1/p) without absolute values, with gradient dy * (x / y)^(p-1)
(0 where y is 0); 'same' pooling has ceil(in / stride) windows starting at multiples of the
stride, cut at the end. The case tables are also what tests/python/gpu/test_operator_gpu.py
compares between the CPU and a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# (data shape, mode, pad_width, constant_value)
PAD_CASES = [
    ((2, 3, 4, 5), "constant", (0, 0, 0, 0, 1, 2, 3, 0), 1.5),
    ((1, 2, 4, 5), "edge", (0, 0, 0, 0, 2, 1, 0, 3), 0.0),
    ((2, 1, 4, 5), "reflect", (0, 0, 0, 0, 3, 2, 1, 4), 0.0),
    ((1, 2, 3, 4, 3), "edge", (0, 0, 0, 0, 1, 2, 0, 1, 2, 2), 0.0),
    ((1, 1, 3, 4, 3), "reflect", (0, 0, 0, 0, 2, 1, 1, 3, 2, 0), 0.0),
    ((1, 2, 2, 3, 2), "constant", (0, 0, 0, 0, 1, 0, 0, 2, 1, 1), -2.0),
]
# (data shape, attributes, crop_like shape or None)
CROP_CASES = [
    ((2, 3, 6, 7), dict(h_w=(3, 4), offset=(2, 1)), None),
    ((2, 3, 6, 7), dict(h_w=(3, 3), center_crop=True), None),
    ((1, 2, 5, 6), dict(offset=(1, 2)), (3, 1, 4, 3)),
    ((1, 2, 5, 6), dict(center_crop=True), (1, 1, 2, 5)),
]
# (data shape, attributes, like shape or None)
RESIZE_CASES = [
    ((2, 2, 3, 4), dict(height=5, width=7), None),
    ((1, 2, 3, 5), dict(height=7, width=2, align_corners=False), None),
    ((1, 1, 4, 6), dict(scale_height=1.5, scale_width=0.6, align_corners=False), None),
    ((1, 2, 3, 5), dict(mode="odd_scale", scale_height=2.0, scale_width=0.5), None),
    ((2, 1, 3, 4), dict(mode="like"), (1, 3, 6, 2)),
    ((1, 1, 5, 4), dict(mode="to_even_up", align_corners=False), None),
    ((1, 1, 5, 4), dict(mode="to_odd_down"), None),
    ((1, 1, 2, 3), dict(height=1, width=1), None),
]
# Pooling's lp type and 'same' convention: (data shape, attributes)
LP_SAME_POOL_CASES = [
    ((2, 3, 5, 7), dict(kernel=(2, 3), stride=(1, 2), pool_type="lp", p_value=2)),
    ((1, 2, 5, 6), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="lp", p_value=3)),
    ((1, 2, 4, 5), dict(kernel=(2, 2), pool_type="lp", p_value=1, pooling_convention="full", stride=(2, 2))),
    ((2, 3, 7), dict(kernel=(3,), stride=(2,), pool_type="max", pooling_convention="same")),
    ((2, 2, 7), dict(kernel=(4,), stride=(3,), pool_type="avg", pooling_convention="same")),
    ((1, 2, 5, 7), dict(kernel=(2, 3), stride=(2, 3), pool_type="lp", p_value=2, pooling_convention="same")),
    ((1, 2, 5, 6), dict(kernel=(3, 2), stride=(2, 4), pool_type="sum", pooling_convention="same")),
]


# ---- references ----------------------------------------------------------------------------------
def pad_ref(x, mode, pad_width, value):
    pw = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(x.ndim)]
    if mode == "constant":
        return np.pad(x, pw, mode="constant", constant_values=value)
    return np.pad(x, pw, mode=mode)


def pad_grad_ref(x_shape, mode, pad_width, dy):
    """The adjoint: pad the indices and add dy into the element each position copies."""
    pw = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(len(x_shape))]
    idx = np.arange(int(np.prod(x_shape))).reshape(x_shape)
    src = np.pad(idx, pw, mode="constant", constant_values=-1) if mode == "constant" else np.pad(idx, pw, mode=mode)
    g = np.zeros(idx.size)
    np.add.at(g, src[src >= 0], dy[src >= 0])
    return g.reshape(x_shape)


def crop_window(shape, kw, like):
    h, w = (like[2], like[3]) if like is not None else kw["h_w"]
    if kw.get("center_crop"):
        return (shape[2] - h) // 2, (shape[3] - w) // 2, h, w
    y0, x0 = kw.get("offset", (0, 0))
    return y0, x0, h, w


def resize_size(shape, kw, like):
    H, W = shape[2], shape[3]
    mode = kw.get("mode", "size")
    f32 = np.float32
    if mode == "size":
        if "scale_height" in kw:
            return int(f32(kw["scale_height"]) * f32(H)), int(f32(kw["scale_width"]) * f32(W))
        return kw["height"], kw["width"]
    if mode == "odd_scale":
        def one(n, s):
            return int(f32(s) * f32(n)) if n % 2 == 0 else int(f32(s) * f32(n - 1)) + 1
        return one(H, kw["scale_height"]), one(W, kw["scale_width"])
    if mode == "like":
        return like[2], like[3]
    even, up = mode.startswith("to_even"), mode.endswith("up")
    return tuple(n if (n % 2 == 0) == even else (n + 1 if up else n - 1) for n in (H, W))


def resize_matrix(n_in, n_out, align):
    """(n_out, n_in): row o holds output o's interpolation weights along one axis."""
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        if align:
            s = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            s = max((o + 0.5) * n_in / n_out - 0.5, 0.0)
        i0 = int(s)
        i1 = min(i0 + 1, n_in - 1)
        lam = s - i0
        m[o, i0] += 1 - lam
        m[o, i1] += lam
    return m


def resize_ref(x, h, w, align):
    my, mx_ = resize_matrix(x.shape[2], h, align), resize_matrix(x.shape[3], w, align)
    return np.einsum("hi,ncij,wj->nchw", my, x, mx_), my, mx_


def pool_ref(x, kw):
    """Any of max/avg/sum/lp pooling over 1 or 2 spatial dims, every convention."""
    nsp = x.ndim - 2
    k, s = kw["kernel"], kw.get("stride", (1,) * nsp)
    p = kw.get("pad", (0,) * nsp)
    conv = kw.get("pooling_convention", "valid")
    sizes = []
    for d in range(nsp):
        n = x.shape[2 + d]
        if conv == "same":
            sizes.append(-(-n // s[d]))
        else:
            span = n + 2 * p[d] - k[d]
            sizes.append((-(-span // s[d]) if conv == "full" else span // s[d]) + 1)
    y = np.zeros(x.shape[:2] + tuple(sizes))
    for o in np.ndindex(*sizes):
        sl, area = [], 1
        for d in range(nsp):
            st = o[d] * s[d] - p[d]
            en = min(st + k[d], x.shape[2 + d] + p[d])
            area *= en - st
            sl.append(slice(max(st, 0), min(en, x.shape[2 + d])))
        win = x[(slice(None), slice(None)) + tuple(sl)].reshape(x.shape[0], x.shape[1], -1)
        t = kw["pool_type"]
        if t == "max":
            v = win.max(axis=2)
        elif t == "sum":
            v = win.sum(axis=2)
        elif t == "avg":
            v = win.sum(axis=2) / area
        else:
            q = kw["p_value"]
            v = np.cbrt((win ** 3).sum(axis=2)) if q == 3 else (win ** q).sum(axis=2) ** (1.0 / q)
        y[(slice(None), slice(None)) + o] = v
    return y


# ---- Pad -------------------------------------------------------------------------------------------
def pad_case(shape, mode, pad_width, value):
    return mx.sym.Pad(mx.sym.var("data"), mode=mode, pad_width=pad_width, constant_value=value, name="p"), \
        {"data": randn(*shape)}


@pytest.mark.parametrize("shape,mode,pad_width,value", PAD_CASES)
def test_pad(shape, mode, pad_width, value):
    sym, loc = pad_case(shape, mode, pad_width, value)
    x = loc["data"]
    ref = pad_ref(x, mode, pad_width, value)
    assert sym.infer_shape(data=shape)[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc)
    dy = randn(*ref.shape)
    check_symbolic_backward(sym, loc, [dy], {"data": pad_grad_ref(shape, mode, pad_width, dy)},
                            rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    got = mx.nd.pad(mx.nd.array(x), mode=mode, pad_width=pad_width, constant_value=value)
    np.testing.assert_array_equal(got.asnumpy(), ref.astype(np.float32))


def test_pad_bad_input():
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match="mode"):
        mx.sym.Pad(x, mode="wrap", pad_width=(0, 0, 0, 0, 1, 1, 1, 1))
    with pytest.raises(mx.MXNetError, match="pad_width"):
        mx.sym.Pad(x, mode="edge")
    cases = [
        ((2, 3, 4), (0, 0, 0, 0, 1, 1), "only 4-D"),
        ((2, 3, 4, 5), (0, 0, 0, 0, 1, 1), "must have 2 \\* ndim = 8 entries"),
        ((2, 3, 4, 5), (0, 0, 1, 0, 1, 1, 1, 1), "pads the batch or channel axis"),
        ((2, 3, 4, 5), (0, 0, 0, 0, 4, 1, 1, 1), "widths below the axis length"),
    ]
    for shape, pw, msg in cases:
        p = mx.sym.Pad(x, mode="reflect", pad_width=pw, name="padnode")
        with pytest.raises(mx.MXNetError, match=msg):
            p.infer_shape(x=shape)
        with pytest.raises(mx.MXNetError, match="padnode"):
            p.infer_shape(x=shape)
    with pytest.raises(mx.MXNetError, match="empty"):
        mx.sym.Pad(x, mode="edge", pad_width=(0, 0, 0, 0, 1, 0, 0, 0)).infer_shape(x=(1, 1, 0, 3))


# ---- Crop ------------------------------------------------------------------------------------------
def crop_case(shape, kw, like):
    args = [mx.sym.var("data")]
    loc = {"data": randn(*shape)}
    if like is not None:
        args.append(mx.sym.var("like"))
        loc["like"] = randn(*like)
    return mx.sym.Crop(*args, name="c", **kw), loc


@pytest.mark.parametrize("shape,kw,like", CROP_CASES)
def test_crop(shape, kw, like):
    sym, loc = crop_case(shape, kw, like)
    x = loc["data"]
    y0, x0, h, w = crop_window(shape, kw, like)
    ref = x[:, :, y0:y0 + h, x0:x0 + w]
    assert json.loads(sym.tojson())["nodes"][-1]["attrs"]["num_args"] == str(len(loc))
    check_symbolic_forward(sym, loc, [ref.astype(np.float32)], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])
    dy = randn(*ref.shape)
    dx = np.zeros_like(x)
    dx[:, :, y0:y0 + h, x0:x0 + w] = dy
    expected = {"data": dx}
    if like is not None:
        expected["like"] = np.zeros(like)  # MXNet: crop_like gets zeros
    check_symbolic_backward(sym, loc, [dy], expected, rtol=0, atol=0, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=4e-3)
    nd_args = [mx.nd.array(loc[k]) for k in sym.list_arguments()]
    got = mx.nd.Crop(*nd_args, num_args=len(nd_args), **kw)
    np.testing.assert_array_equal(got.asnumpy(), ref.astype(np.float32))


def test_crop_names_and_errors():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    # MXNet names a missing second input <name>_arg1
    assert mx.sym.Crop(x, num_args=2, name="c").list_arguments() == ["x", "c_arg1"]
    assert json.loads(mx.sym.Crop(x, y).tojson())["nodes"][-1]["attrs"] == {"num_args": "2"}
    with pytest.raises(mx.MXNetError, match="num_args 3 must be 1"):
        mx.sym.Crop(x, y, mx.sym.var("z"))
    with pytest.raises(mx.MXNetError, match="h_w of at least"):
        mx.sym.Crop(x, num_args=1).infer_shape(x=(1, 1, 4, 4))
    with pytest.raises(mx.MXNetError, match="expected 0 <= offset <= \\(3, 3\\)"):
        mx.sym.Crop(x, h_w=(3, 4), offset=(4, 3), name="cropnode").infer_shape(x=(2, 3, 6, 7))
    with pytest.raises(mx.MXNetError, match="larger than the data"):
        mx.sym.Crop(x, y).infer_shape(x=(2, 3, 6, 7), y=(1, 1, 7, 2))
    with pytest.raises(mx.MXNetError, match="4-D data"):
        mx.sym.Crop(x, h_w=(1, 1)).infer_shape(x=(2, 3, 6))
    with pytest.raises(mx.MXNetError, match="offset"):
        mx.sym.Crop(x, h_w=(1, 1), offset=(1,))


# ---- BilinearResize2D ------------------------------------------------------------------------------
def resize_case(shape, kw, like):
    args = [mx.sym.var("data")]
    loc = {"data": randn(*shape)}
    if like is not None:
        args.append(mx.sym.var("like"))
        loc["like"] = randn(*like)
    return mx.sym.contrib.BilinearResize2D(*args, name="r", **kw), loc


@pytest.mark.parametrize("shape,kw,like", RESIZE_CASES)
def test_bilinear_resize(shape, kw, like):
    sym, loc = resize_case(shape, kw, like)
    h, w = resize_size(shape, kw, like)
    ref, my, mx_ = resize_ref(loc["data"], h, w, kw.get("align_corners", True))
    assert sym.infer_shape(**{k: v.shape for k, v in loc.items()})[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])
    dy = randn(*ref.shape)
    expected = {"data": np.einsum("hi,nchw,wj->ncij", my, dy, mx_)}
    if like is not None:
        expected["like"] = np.zeros(like)
    check_symbolic_backward(sym, loc, [dy], expected, rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc)
    nd_args = [mx.nd.array(loc[k]) for k in sym.list_arguments()]
    got = mx.nd.contrib.BilinearResize2D(*nd_args, **kw)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_bilinear_resize_matches_mxnet_numbers():
    """Values MXNet 1.9.1 printed for arange(12).reshape(1, 1, 3, 4) (both corner rules)."""
    x = mx.nd.array(np.arange(12.0).reshape(1, 1, 3, 4))
    got = mx.nd.contrib.BilinearResize2D(x, height=2, width=3).asnumpy()[0, 0]
    np.testing.assert_allclose(got, [[0, 1.5, 3], [8, 9.5, 11]], rtol=1e-6)
    got = mx.nd.contrib.BilinearResize2D(x, height=2, width=3, align_corners=False).asnumpy()[0, 0]
    np.testing.assert_allclose(got, [[1.1666666, 2.5, 3.8333335], [7.1666665, 8.5, 9.833333]], rtol=1e-6)


def test_bilinear_resize_names_and_errors():
    d, lk = mx.sym.var("d"), mx.sym.var("l")
    node = json.loads(mx.sym.contrib.BilinearResize2D(d, height=3, width=3).tojson())["nodes"][-1]
    assert node["op"] == "_contrib_BilinearResize2D"
    assert node["name"].startswith("bilinearresize2d")  # MXNet's automatic name
    assert node["attrs"] == {"height": "3", "width": "3"}
    assert mx.sym.contrib.BilinearResize2D(d, lk, mode="like").list_arguments() == ["d", "l"]
    assert mx.sym.contrib.BilinearResize2D(mode="like", name="r").list_arguments() == ["r_data", "r_like"]
    with pytest.raises(mx.MXNetError, match="takes 1 inputs"):
        mx.sym.contrib.BilinearResize2D(d, lk)
    with pytest.raises(mx.MXNetError, match="height"):
        mx.sym.contrib.BilinearResize2D(d, height=0, width=3)
    with pytest.raises(mx.MXNetError, match="needs scale_width too"):
        mx.sym.contrib.BilinearResize2D(d, scale_height=2.0).infer_shape(d=(1, 1, 3, 3))
    with pytest.raises(mx.MXNetError, match="'odd_scale' needs scale_height"):
        mx.sym.contrib.BilinearResize2D(d, mode="odd_scale").infer_shape(d=(1, 1, 3, 3))
    with pytest.raises(mx.MXNetError, match="4-D data"):
        mx.sym.contrib.BilinearResize2D(d, height=2, width=2, name="rs").infer_shape(d=(1, 3, 3))
    with pytest.raises(mx.MXNetError, match="empty"):
        mx.sym.contrib.BilinearResize2D(d, height=2, width=2).infer_shape(d=(1, 1, 0, 3))
    # MXNet's rule: scale_width alone is ignored (height and width apply); scales may empty the output
    assert mx.sym.contrib.BilinearResize2D(d, scale_width=2.0).infer_shape(d=(1, 1, 3, 4))[1] == [(1, 1, 1, 1)]
    assert mx.sym.contrib.BilinearResize2D(d, scale_height=0.1, scale_width=0.1).infer_shape(
        d=(1, 1, 4, 4))[1] == [(1, 1, 0, 0)]


# ---- Pooling: lp and 'same' -----------------------------------------------------------------------
def lp_same_case(shape, kw):
    loc = {"x": randn(*shape)}
    if kw["pool_type"] == "lp" and kw["p_value"] != 2:
        loc["x"] = loc["x"] + 2.0  # keep (sum x^p) away from 0, where the p-th root has no slope
    return mx.sym.Pooling(mx.sym.var("x"), name="pool", **kw), loc


@pytest.mark.parametrize("shape,kw", LP_SAME_POOL_CASES, ids=str)
def test_pooling_lp_and_same(shape, kw):
    sym, loc = lp_same_case(shape, kw)
    ref = pool_ref(loc["x"], kw)
    assert sym.infer_shape(x=shape)[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, loc)
    check_add_req(sym, loc, [mx.nd.array(randn(*ref.shape), dtype="float64")])
    check_16bit(sym, loc, rtol_f16=4e-3, rtol_bf16=3e-2)
    if len(shape) == 4:  # channels-last runs its own loops
        last = mx.sym.Pooling(mx.sym.var("x"), layout="NHWC", **kw)
        tl = {"x": loc["x"].transpose(0, 2, 3, 1)}
        check_symbolic_forward(last, tl, [ref.transpose(0, 2, 3, 1)], rtol=1e-12, atol=1e-12, dtype=np.float64)
        check_numeric_gradient(last, tl)


def test_lp_pooling_gradient_rule():
    """dx = dy * (x / y)^(p-1), and 0 where y is 0 (MXNet's values)."""
    x = np.array([3.0, 4.0, 0.0, 0.0]).reshape(1, 1, 2, 2)
    sym = mx.sym.Pooling(mx.sym.var("x"), kernel=(2, 2), pool_type="lp", p_value=2)
    check_symbolic_backward(sym, {"x": x}, [np.ones((1, 1, 1, 1))], {"x": [[[[0.6, 0.8], [0, 0]]]]},
                            rtol=1e-12, atol=1e-12, dtype=np.float64)
    x3 = np.array([-2.0, 1.0, 0.0, 0.0]).reshape(1, 1, 2, 2)
    sym3 = mx.sym.Pooling(mx.sym.var("x"), kernel=(2, 2), pool_type="lp", p_value=3)
    check_symbolic_forward(sym3, {"x": x3}, [np.cbrt([[[[-7.0]]]])], rtol=1e-12, atol=0, dtype=np.float64)
    check_symbolic_backward(sym3, {"x": x3}, [np.ones((1, 1, 1, 1))],
                            {"x": [[[[1.0931035, 0.2732759], [0, 0]]]]}, rtol=1e-6, atol=0, dtype=np.float64)
    for p in (2, 3):
        zero = mx.sym.Pooling(mx.sym.var("x"), kernel=(2, 2), pool_type="lp", p_value=p)
        check_symbolic_backward(zero, {"x": np.zeros((1, 1, 2, 2))}, [np.ones((1, 1, 1, 1))],
                                {"x": np.zeros((1, 1, 2, 2))}, rtol=0, atol=0, dtype=np.float64)


def test_pooling_lp_same_errors_and_json():
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match="p_value 1, 2 or 3"):
        mx.sym.Pooling(x, kernel=(2, 2), pool_type="lp", name="lpnode").infer_shape(x=(1, 1, 4, 4))
    with pytest.raises(mx.MXNetError, match="p_value 1, 2 or 3.*got 4"):
        mx.sym.Pooling(x, kernel=(2, 2), pool_type="lp", p_value=4).infer_shape(x=(1, 1, 4, 4))
    with pytest.raises(mx.MXNetError, match="'same' takes no pad"):
        mx.sym.Pooling(x, kernel=(3,), stride=(2,), pad=(1,), pooling_convention="same").infer_shape(x=(1, 1, 7))
    # global pooling ignores the convention; a 'same' window may be longer than the data
    g = mx.sym.Pooling(x, kernel=(1,), global_pool=True, pooling_convention="same")
    assert g.infer_shape(x=(1, 2, 7))[1] == [(1, 2, 1)]
    assert mx.sym.Pooling(x, kernel=(9,), stride=(4,), pooling_convention="same").infer_shape(
        x=(1, 2, 7))[1] == [(1, 2, 2)]
    node = json.loads(mx.sym.Pooling(x, kernel=(2, 2), pool_type="lp", p_value=2).tojson())["nodes"][-1]
    assert node["attrs"] == {"kernel": "(2, 2)", "pool_type": "lp", "p_value": "2"}
