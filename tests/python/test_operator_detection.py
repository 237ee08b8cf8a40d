"""Detection ops, part 1 (MXNet 1.9.1 contrib): box_iou, box_nms, bipartite_matching, ROIAlign and
ROIPooling. NumPy references written here (loops), float32 and float64, float64 finite
differences where the op has a gradient (ROIAlign, ROIPooling, box_nms), grad_req='add',
float16/bfloat16 against float32, MXNet's names and output counts, values MXNet 1.9.1 gives on
fixed inputs, and the bad-input errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU."""
import json
import math

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req

drng = np.random.RandomState(7)


# ---- numpy references ------------------------------------------------------------------------
def _corner(b, fmt):
    b = np.asarray(b, dtype=np.float64)
    if fmt == "center":
        return np.array([b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2])
    return b


def _area(b, fmt):
    w, h = (b[2], b[3]) if fmt == "center" else (b[2] - b[0], b[3] - b[1])
    return 0.0 if w < 0 or h < 0 else w * h


def np_iou(a, b, fmt="corner"):
    ca, cb = _corner(a, fmt), _corner(b, fmt)
    iw = max(0.0, min(ca[2], cb[2]) - max(ca[0], cb[0]))
    ih = max(0.0, min(ca[3], cb[3]) - max(ca[1], cb[1]))
    inter = iw * ih
    if inter <= 0:
        return 0.0
    return inter / (_area(a, fmt) + _area(b, fmt) - inter)


def np_box_iou(lhs, rhs, fmt="corner"):
    l2, r2 = lhs.reshape(-1, 4), rhs.reshape(-1, 4)
    out = np.array([[np_iou(a, b, fmt) for b in r2] for a in l2])
    return out.reshape(lhs.shape[:-1] + rhs.shape[:-1])


def np_box_nms(data, overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2, score_index=1,
               id_index=-1, background_id=-1, force_suppress=False, in_format="corner",
               out_format="corner"):
    """Returns (output, record): record[i] is the flat input row of output row i, or -1."""
    shape = data.shape
    rows = data.reshape(-1, shape[-2], shape[-1])
    num = shape[-2]
    out = -np.ones_like(rows)
    rec = -np.ones(rows.shape[:2], dtype=np.int64)
    k = num if topk < 0 else min(num, topk)
    for b in range(rows.shape[0]):
        if k < 1:
            out[b] = rows[b]
            rec[b] = b * num + np.arange(num)
            continue
        r = rows[b]
        valid = [i for i in range(num) if r[i, score_index] > valid_thresh
                 and (id_index < 0 or r[i, id_index] != background_id)]
        order = sorted(valid, key=lambda i: -r[i, score_index])[:k]  # sorted() is stable
        keep = []
        for i in order:
            ok = True
            for j in keep:
                if not force_suppress and id_index >= 0 and int(r[i, id_index]) != int(r[j, id_index]):
                    continue
                box_i, box_j = r[i, coord_start:coord_start + 4], r[j, coord_start:coord_start + 4]
                if np_iou(box_j, box_i, in_format) > overlap_thresh:
                    ok = False
                    break
            if ok:
                keep.append(i)
        for n, i in enumerate(keep):
            out[b, n] = r[i]
            rec[b, n] = b * num + i
        if in_format != out_format:
            for n in range(num):
                c = out[b, n, coord_start:coord_start + 4].copy()
                if c[0] < 0:  # MXNet leaves rows with a negative first coordinate as they are
                    continue
                if out_format == "center":
                    out[b, n, coord_start:coord_start + 4] = [(c[0] + c[2]) / 2, (c[1] + c[3]) / 2,
                                                              c[2] - c[0], c[3] - c[1]]
                else:
                    out[b, n, coord_start:coord_start + 4] = _corner(c, "center")
    return out.reshape(shape), rec.reshape(-1)


def np_bipartite(scores, threshold, is_ascend=False, topk=-1):
    shape = scores.shape
    s3 = scores.reshape(-1, shape[-2], shape[-1])
    rows, cols = shape[-2], shape[-1]
    rm = -np.ones((s3.shape[0], rows))
    cm = -np.ones((s3.shape[0], cols))
    for b in range(s3.shape[0]):
        flat = s3[b].reshape(-1)
        order = sorted(range(flat.size), key=lambda i: flat[i] if is_ascend else -flat[i])
        count = 0
        for i in order:
            r, c = divmod(i, cols)
            if rm[b, r] != -1 or cm[b, c] != -1:
                continue
            if not (flat[i] < threshold if is_ascend else flat[i] > threshold):
                break
            rm[b, r], cm[b, c] = c, r
            count += 1
            if topk > 0 and count > topk:
                break
    return rm.reshape(shape[:-1]), cm.reshape(shape[:-2] + (cols,))


def _bilinear(plane, y, x):
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0, []
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    taps = [(y0, x0, (1 - ly) * (1 - lx)), (y0, x1, (1 - ly) * lx), (y1, x0, ly * (1 - lx)), (y1, x1, ly * lx)]
    return sum(wt * plane[a, b] for a, b, wt in taps), taps


def np_roi_align(data, rois, pooled_size, spatial_scale, sample_ratio=-1, position_sensitive=False,
                 aligned=False):
    """Returns (out, d out / d data as a function of d out)."""
    n, c, h, w = data.shape
    ph, pw = pooled_size
    co = c // (ph * pw) if position_sensitive else c
    out = np.zeros((rois.shape[0], co, ph, pw))
    taps_of = {}  # (r, c, i, j) -> [(cin plane, y, x, weight / count)]
    for r, roi in enumerate(rois):
        b = int(roi[0])
        if b < 0 or b >= n:
            continue
        off = 0.5 if aligned else 0.0
        x0, y0 = roi[1] * spatial_scale - off, roi[2] * spatial_scale - off
        rw, rh = roi[3] * spatial_scale - off - x0, roi[4] * spatial_scale - off - y0
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = sample_ratio if sample_ratio > 0 else int(math.ceil(rh / ph))
        gw = sample_ratio if sample_ratio > 0 else int(math.ceil(rw / pw))
        for ch in range(co):
            for i in range(ph):
                for j in range(pw):
                    cin = (ch * ph + i) * pw + j if position_sensitive else ch
                    acc, taps = 0.0, []
                    for iy in range(gh):
                        y = y0 + i * bh + (iy + 0.5) * bh / gh
                        for ix in range(gw):
                            x = x0 + j * bw + (ix + 0.5) * bw / gw
                            v, t = _bilinear(data[b, cin], y, x)
                            acc += v
                            taps += [(b, cin, a, bb, wt / (gh * gw)) for a, bb, wt in t]
                    out[r, ch, i, j] = acc / max(gh * gw, 1)
                    taps_of[(r, ch, i, j)] = taps

    def grad(dy):
        dx = np.zeros_like(data)
        for (r, ch, i, j), taps in taps_of.items():
            for b, cin, a, bb, wt in taps:
                dx[b, cin, a, bb] += dy[r, ch, i, j] * wt
        return dx
    return out, grad


def np_roi_pool(data, rois, pooled_size, spatial_scale):
    """Returns (out, d data as a function of d out); the bin geometry in float32, as MXNet."""
    n, c, h, w = data.shape
    ph, pw = pooled_size
    f32 = np.float32
    out = np.zeros((rois.shape[0], c, ph, pw))
    arg = {}
    for r, roi in enumerate(rois):
        b = int(roi[0])
        xs, ys, xe, ye = [int(math.floor(abs(v) + 0.5) * np.sign(v))  # C's round: half away from 0
                          for v in (f32(roi[1]) * f32(spatial_scale), f32(roi[2]) * f32(spatial_scale),
                                    f32(roi[3]) * f32(spatial_scale), f32(roi[4]) * f32(spatial_scale))]
        rh, rw = max(ye - ys + 1, 1), max(xe - xs + 1, 1)
        bh, bw = f32(rh) / f32(ph), f32(rw) / f32(pw)
        for i in range(ph):
            for j in range(pw):
                h0 = min(max(int(np.floor(f32(i) * bh)) + ys, 0), h)
                h1 = min(max(int(np.ceil(f32(i + 1) * bh)) + ys, 0), h)
                w0 = min(max(int(np.floor(f32(j) * bw)) + xs, 0), w)
                w1 = min(max(int(np.ceil(f32(j + 1) * bw)) + xs, 0), w)
                if b < 0 or b >= n or h1 <= h0 or w1 <= w0:
                    continue
                for ch in range(c):
                    win = data[b, ch, h0:h1, w0:w1]
                    a = np.unravel_index(np.argmax(win), win.shape)  # the first maximum
                    out[r, ch, i, j] = win[a]
                    arg[(r, ch, i, j)] = (b, ch, h0 + a[0], w0 + a[1])

    def grad(dy):
        dx = np.zeros_like(data)
        for k, pos in arg.items():
            dx[pos] += dy[k]
        return dx
    return out, grad


# ---- box_iou ---------------------------------------------------------------------------------
def _boxes(*shape):
    """Random corner boxes (xmin < xmax, ymin < ymax) in [0, 1]."""
    p = drng.uniform(0, 1, size=shape + (2, 2))
    lo, hi = p.min(axis=-1), p.max(axis=-1)
    return np.stack([lo[..., 0], lo[..., 1], hi[..., 0], hi[..., 1]], axis=-1)


# (lhs, rhs, format): N-D inputs, invalid (negative-size) and disjoint boxes, center format
BOX_IOU_CASES = [
    (_boxes(3), _boxes(4), "corner"),
    (_boxes(2, 3), _boxes(5), "corner"),
    (np.array([[0, 0, 1, 1], [0.5, 0.5, 0.2, 0.2], [2, 2, 3, 3.0]]),
     np.array([[0.5, 0.5, 1.5, 1.5], [0, 0, 1, 1], [0.1, 0.1, 0.1, 0.9]]), "corner"),
    (np.abs(_boxes(4)) + [0, 0, 0.1, 0.1], np.abs(_boxes(2, 2)) + [0, 0, 0.1, 0.1], "center"),
    (np.array([[0.5, 0.5, 1, 1], [0.5, 0.5, -1, 1.0]]), np.array([[0.5, 0.5, 1, 1.0]]), "center"),
]


def box_iou_sym(fmt):
    return mx.sym.contrib.box_iou(mx.sym.var("lhs"), mx.sym.var("rhs"), format=fmt, name="iou")


@pytest.mark.parametrize("lhs,rhs,fmt", BOX_IOU_CASES)
def test_box_iou(lhs, rhs, fmt):
    sym = box_iou_sym(fmt)
    assert sym.list_arguments() == ["lhs", "rhs"]
    ref = np_box_iou(lhs, rhs, fmt)
    loc = {"lhs": lhs, "rhs": rhs}
    check_symbolic_forward(sym, loc, [ref], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-12, atol=1e-14, dtype=np.float64)
    # MXNet's gradient of box_iou is zero for both inputs
    check_symbolic_backward(sym, loc, [np.ones(ref.shape)], {"lhs": np.zeros(lhs.shape), "rhs": np.zeros(rhs.shape)},
                            dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(np.ones(ref.shape), dtype="float64")])
    check_16bit(sym, loc, rtol_f16=4e-3, rtol_bf16=3e-2)
    got = mx.nd.contrib.box_iou(mx.nd.array(lhs), mx.nd.array(rhs), format=fmt)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_box_iou_known_values():
    """Values from MXNet 1.9.1: a half overlap, identical boxes, no overlap."""
    got = mx.nd.contrib.box_iou(mx.nd.array([[0, 0, 2, 2], [0, 0, 1, 1]]), mx.nd.array([[1, 0, 3, 2], [0, 0, 1, 1]]))
    np.testing.assert_allclose(got.asnumpy(), [[1 / 3, 0.25], [0, 1]], rtol=1e-6)


# ---- box_nms ---------------------------------------------------------------------------------
_NMS_BASE = np.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.4, 0.1, 0.1, 0.2, 0.2],
                      [0, 0.3, 0.1, 0.1, 0.14, 0.14], [2, 0.6, 0.5, 0.5, 0.7, 0.8],
                      [0, 0.6, 0.5, 0.5, 0.7, 0.8]])
_NMS_NEG = _NMS_BASE.copy()
_NMS_NEG[0, 2] = -0.1


def _nms_batch():
    """(2, 6, 6) rows [id, score, box]: distinct scores, IoUs well away from the thresholds."""
    d = np.zeros((2, 6, 6))
    d[..., 0] = drng.randint(0, 2, size=(2, 6))
    d[..., 1] = drng.permutation(12).reshape(2, 6) / 12.0 + 0.02
    d[..., 2:] = _boxes(2, 6)
    return d


_NMS_B = _nms_batch()
# (data, attributes): MXNet's force_suppress / per-class / background / topk examples, all
# filtered, topk 0 (pass-through), center formats (with a negative first coordinate), batches
NMS_CASES = [
    (_NMS_BASE, dict(overlap_thresh=0.1)),
    (_NMS_BASE, dict(overlap_thresh=0.1, id_index=0, force_suppress=True)),
    (_NMS_BASE, dict(overlap_thresh=0.1, id_index=0)),
    (_NMS_BASE, dict(overlap_thresh=0.1, id_index=0, background_id=0)),
    (_NMS_BASE, dict(overlap_thresh=0.1, topk=2)),
    (_NMS_BASE, dict(overlap_thresh=0.1, topk=0)),
    (_NMS_BASE, dict(valid_thresh=0.7)),
    (_NMS_NEG, dict(overlap_thresh=0.1, out_format="center")),
    (_NMS_NEG, dict(overlap_thresh=0.1, in_format="center")),
    (_NMS_B, dict(overlap_thresh=0.3, id_index=0, valid_thresh=0.1)),
    (_NMS_B.reshape(1, 2, 6, 6), dict(overlap_thresh=0.2, topk=4, force_suppress=True, id_index=0)),
    (_NMS_B[:, :, [1, 2, 3, 4, 5, 0]], dict(overlap_thresh=0.25, score_index=0, coord_start=1)),
]

# what MXNet 1.9.1 returns for the first cases above (its known values)
_M = -np.ones((5, 6))
NMS_MXNET = {
    1: np.concatenate([_NMS_BASE[[3, 0]], _M[:3]]),
    2: np.concatenate([_NMS_BASE[[3, 4, 0, 1]], _M[:1]]),
    3: np.concatenate([_NMS_BASE[[3, 1]], _M[:3]]),
    4: np.concatenate([_NMS_BASE[[3]], _M[:4]]),
    5: _NMS_BASE,
    6: _M,
    7: np.array([[2, 0.6, 0.6, 0.65, 0.2, 0.3], [0, 0.5, -0.1, 0.1, 0.2, 0.2], [0, 0.3, 0.12, 0.12, 0.04, 0.04],
                 [-1] * 6, [-1] * 6]),
    8: np.array([[2, 0.6, 0.15, 0.1, 0.85, 0.9], [0, 0.5, -0.1, 0.1, 0.2, 0.2], [1, 0.4, 0, 0, 0.2, 0.2],
                 [-1] * 6, [-1] * 6]),
}


def nms_sym(kw):
    return mx.sym.contrib.box_nms(mx.sym.var("data"), name="nms", **kw)


@pytest.mark.parametrize("case", range(len(NMS_CASES)))
def test_box_nms(case):
    data, kw = NMS_CASES[case]
    sym = nms_sym(kw)
    assert sym.list_outputs() == ["nms_output0"]
    ref, rec = np_box_nms(data, **kw)
    if case in NMS_MXNET:
        np.testing.assert_allclose(ref, NMS_MXNET[case], atol=1e-6)
    loc = {"data": data}
    check_symbolic_forward(sym, loc, [ref], rtol=1e-6, atol=1e-7)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-14, atol=1e-15, dtype=np.float64)
    # the gradient of each output row goes to the input row it came from
    dy = drng.normal(size=data.shape)
    dx = np.zeros(data.shape).reshape(-1, data.shape[-1])
    for i, r in enumerate(rec):
        if r >= 0:
            dx[r] += dy.reshape(-1, data.shape[-1])[i]
    check_symbolic_backward(sym, loc, [dy], {"data": dx.reshape(data.shape)}, rtol=1e-14, atol=0, dtype=np.float64)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    got = mx.nd.contrib.box_nms(mx.nd.array(data), **kw)
    assert isinstance(got, mx.nd.NDArray)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-6, atol=1e-7)


def test_box_nms_numeric_gradient_and_16bit():
    """Finite differences on data (scores and IoUs far from ties and thresholds), and float16 /
    bfloat16 against float32 on inputs whose order survives rounding."""
    # no class ids here: a difference quotient across a class id's integer cut is meaningless
    check_numeric_gradient(nms_sym(dict(overlap_thresh=0.3, valid_thresh=0.1)), {"data": NMS_CASES[9][0]})
    d16 = np.array([[0, 0.75, 0.0, 0.0, 0.5, 0.5], [0, 0.5, 0.0, 0.0, 0.5, 0.25], [1, 0.25, 0.25, 0.25, 0.75, 0.75],
                    [0, 0.125, 0.5, 0.5, 1.0, 1.0]])
    check_16bit(nms_sym(dict(overlap_thresh=0.3, id_index=0)), {"data": d16}, rtol_f16=0, rtol_bf16=0)


def test_box_nms_names_and_alias():
    x = mx.sym.var("data")
    s = mx.sym.contrib.box_non_maximum_suppression(x, name="n", topk=3)
    assert json.loads(s.tojson())["nodes"][-1]["op"] == "_contrib_box_nms"  # MXNet writes the name
    assert s.list_outputs() == ["n_output0"]
    assert s.infer_shape(data=(2, 5, 6))[1] == [(2, 5, 6)]
    got = mx.nd.contrib.box_non_maximum_suppression(mx.nd.array(_NMS_BASE), overlap_thresh=0.1)
    np.testing.assert_allclose(got.asnumpy(), np_box_nms(_NMS_BASE, overlap_thresh=0.1)[0], atol=1e-7)


# ---- bipartite_matching ----------------------------------------------------------------------
_TIES = np.array([[0.2, 0.5, 0.5, 0.1], [0.5, 0.5, 0.3, 0.5], [0.5, 0.4, 0.5, 0.5]])
_SC = np.array([[0.5, 0.6, 0.1], [0.1, 0.3, 0.9], [0.2, 0.2, 0.7]])
# (scores, attributes, MXNet 1.9.1's (row, col) markers or None)
MATCHING_CASES = [
    (_SC, dict(threshold=0.1), ([1, 2, 0], [2, 0, 1])),
    (_SC, dict(threshold=0.1, topk=1), ([1, 2, -1], [-1, 0, 1])),  # topk=1 gives 2 matches
    (_SC, dict(threshold=0.4, is_ascend=True), ([2, 0, 1], [1, 2, 0])),
    (_TIES, dict(threshold=0.1), ([1, 0, 2], [1, 0, 2, -1])),
    (_TIES, dict(threshold=0.5), ([-1] * 3, [-1] * 4)),  # the score must exceed the threshold
    (drng.permutation(24).reshape(2, 3, 4) / 24.0, dict(threshold=0.2), None),
    (drng.permutation(30).reshape(2, 5, 3) / 30.0, dict(threshold=0.6, is_ascend=True, topk=2), None),
]


@pytest.mark.parametrize("scores,kw,known", MATCHING_CASES)
def test_bipartite_matching(scores, kw, known):
    sym = mx.sym.contrib.bipartite_matching(mx.sym.var("data"), name="bm", **kw)
    assert sym.list_outputs() == ["bm_output0", "bm_output1"]
    rm, cm = np_bipartite(scores, **kw)
    if known is not None:
        np.testing.assert_array_equal(rm, known[0])
        np.testing.assert_array_equal(cm, known[1])
    loc = {"data": scores}
    check_symbolic_forward(sym, loc, [rm, cm], rtol=0, atol=0)
    check_symbolic_forward(sym, loc, [rm, cm], rtol=0, atol=0, dtype=np.float64)
    check_symbolic_backward(sym, loc, [np.ones(rm.shape), np.ones(cm.shape)], {"data": np.zeros(scores.shape)},
                            dtype=np.float64)
    a, b = mx.nd.contrib.bipartite_matching(mx.nd.array(scores), **kw)
    np.testing.assert_array_equal(a.asnumpy(), rm)
    np.testing.assert_array_equal(b.asnumpy(), cm)


def test_bipartite_matching_16bit():
    scores = drng.permutation(12).reshape(3, 4) / 16.0  # exact in float16 and bfloat16
    check_16bit(mx.sym.contrib.bipartite_matching(mx.sym.var("data"), threshold=0.1), {"data": scores},
                rtol_f16=0, rtol_bf16=0, atol=0)


# ---- ROIAlign --------------------------------------------------------------------------------
_ROIS = np.array([[0, 0.6, 1.1, 6.3, 5.2], [1, 2.2, 0.4, 4.9, 7.7], [0, -1.5, -0.7, 3.3, 2.1],
                  [1, 5.3, 5.6, 5.9, 6.1], [-1, 1, 1, 4, 4]])
# (data shape, rois, attributes): adaptive and fixed grids, a ROI partly off the map, a tiny ROI
# (forced to 1x1), an ignored ROI (batch index -1), aligned, position-sensitive
ROI_ALIGN_CASES = [
    ((2, 3, 8, 9), _ROIS, dict(pooled_size=(2, 3), spatial_scale=1.0)),
    ((2, 2, 8, 9), _ROIS, dict(pooled_size=(3, 2), spatial_scale=1.0, sample_ratio=2)),
    ((2, 2, 6, 5), _ROIS * [1, 1.5, 1.5, 1.5, 1.5], dict(pooled_size=(2, 2), spatial_scale=0.5, aligned=True)),
    ((2, 8, 7, 7), _ROIS[:4], dict(pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True,
                                   sample_ratio=3)),
]


def roi_align_case(shape, rois, kw):
    sym = mx.sym.contrib.ROIAlign(mx.sym.var("data"), mx.sym.var("rois"), name="ra", **kw)
    return sym, {"data": drng.normal(size=shape), "rois": np.asarray(rois, dtype=np.float64)}


@pytest.mark.parametrize("shape,rois,kw", ROI_ALIGN_CASES)
def test_roi_align(shape, rois, kw):
    sym, loc = roi_align_case(shape, rois, kw)
    assert sym.list_arguments() == ["data", "rois"]
    ref, grad = np_roi_align(loc["data"], loc["rois"], **kw)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-12, atol=1e-13, dtype=np.float64)
    dy = drng.normal(size=ref.shape)
    check_symbolic_backward(sym, loc, [dy], {"data": grad(dy), "rois": np.zeros(loc["rois"].shape)},
                            rtol=1e-12, atol=1e-13, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    got = mx.nd.contrib.ROIAlign(mx.nd.array(loc["data"]), mx.nd.array(loc["rois"]), **kw)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-5)


def test_roi_align_16bit():
    sym, loc = roi_align_case(*ROI_ALIGN_CASES[0])
    loc["rois"] = np.round(loc["rois"] * 4) / 4  # coordinates exact in 16 bits
    check_16bit(sym, loc, rtol_f16=4e-3, rtol_bf16=3e-2)


# ---- ROIPooling ------------------------------------------------------------------------------
# (data shape, rois, pooled_size, spatial_scale): MXNet's doc example, fractional scales (0.7 and
# 0.5 round x.5 away from zero), bins past the map (empty: 0), an ignored ROI, a 1x1 ROI
ROI_POOL_CASES = [
    ((1, 1, 8, 6), [[0, 0, 0, 4, 4]], (2, 2), 1.0),
    ((1, 1, 8, 6), [[0, 0, 0, 4, 4]], (2, 2), 0.7),
    ((2, 3, 7, 8), [[0, 1, 3, 9, 6], [1, 3, 1, 5, 2], [1, 4.9, 5, 20, 13], [-1, 0, 0, 2, 2], [0, 5, 5, 5, 5]],
     (3, 2), 0.5),
    ((2, 2, 6, 6), [[1, 0, 0, 5, 5], [0, 2, 1, 3, 4]], (4, 3), 1.0),
]


def roi_pool_case(shape, rois, pooled, scale):
    sym = mx.sym.ROIPooling(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=pooled, spatial_scale=scale,
                            name="rp")
    return sym, {"data": drng.normal(size=shape), "rois": np.asarray(rois, dtype=np.float64)}


@pytest.mark.parametrize("shape,rois,pooled,scale", ROI_POOL_CASES)
def test_roi_pooling(shape, rois, pooled, scale):
    sym, loc = roi_pool_case(shape, rois, pooled, scale)
    assert sym.list_arguments() == ["data", "rois"] and sym.list_outputs() == ["rp_output"]
    ref, grad = np_roi_pool(loc["data"], loc["rois"], pooled, scale)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-6, atol=1e-7)
    check_symbolic_forward(sym, loc, [ref], rtol=0, atol=0, dtype=np.float64)
    dy = drng.normal(size=ref.shape)
    check_symbolic_backward(sym, loc, [dy], {"data": grad(dy), "rois": np.zeros(loc["rois"].shape)},
                            rtol=1e-12, atol=1e-13, dtype=np.float64)
    check_numeric_gradient(sym, loc, grad_nodes=["data"])  # normal data: no ties
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    # a maximum is exact: float16 gives float32's answer; bfloat16 rounds the data once more
    check_16bit(sym, loc, rtol_f16=0, rtol_bf16=8e-3, atol=0)


def test_roi_pooling_mxnet_doc_example():
    x = mx.nd.array(np.arange(48.0).reshape(1, 1, 8, 6))
    y = mx.nd.array([[0, 0, 0, 4, 4]])
    np.testing.assert_array_equal(mx.nd.ROIPooling(x, y, pooled_size=(2, 2), spatial_scale=1.0).asnumpy(),
                                  [[[[14, 16], [26, 28]]]])
    np.testing.assert_array_equal(mx.nd.ROIPooling(x, y, pooled_size=(2, 2), spatial_scale=0.7).asnumpy(),
                                  [[[[7, 9], [19, 21]]]])


# ---- errors ----------------------------------------------------------------------------------
def _infer(sym, **shapes):
    return sym.infer_shape(**shapes)


@pytest.mark.parametrize("sym,shapes,match", [
    (box_iou_sym("corner"), dict(lhs=(3, 3), rhs=(2, 4)), r"box_iou.*lhs of shape \(\.\.\., 4\), got \(3, ?3\)"),
    (box_iou_sym("corner"), dict(lhs=(4,), rhs=(2, 4)), r"box_iou.*lhs"),
    (nms_sym({}), dict(data=(2, 5, 4)), r"at least 5 values"),
    (nms_sym(dict(id_index=0)), dict(data=(5, 5)), r"at least 6 values"),
    (nms_sym(dict(score_index=3)), dict(data=(5, 6)), r"score_index 3 overlaps the coordinates 2..5"),
    (nms_sym(dict(coord_start=3)), dict(data=(5, 6)), r"coordinates 3..6"),
    (nms_sym(dict(id_index=1)), dict(data=(5, 6)), r"id_index and score_index are both 1"),
    (nms_sym({}), dict(data=(6,)), r"box_nms expects data of shape"),
    (mx.sym.contrib.bipartite_matching(mx.sym.var("data"), threshold=0.1), dict(data=(4,)), r"score matrix"),
    (mx.sym.contrib.ROIAlign(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.0),
     dict(data=(1, 2, 4, 4), rois=(3, 4)), r"rois of shape \(num_rois, 5\).*got \(3, ?4\)"),
    (mx.sym.contrib.ROIAlign(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.0),
     dict(data=(2, 4, 4), rois=(3, 5)), r"data of shape \(N, C, H, W\)"),
    (mx.sym.contrib.ROIAlign(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.0,
                             position_sensitive=True), dict(data=(1, 6, 4, 4), rois=(3, 5)), r"multiple of"),
    (mx.sym.ROIPooling(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.0),
     dict(data=(1, 2, 4, 4), rois=(5,)), r"ROIPooling expects rois"),
])
def test_detection_bad_inputs(sym, shapes, match):
    with pytest.raises(mx.MXNetError, match=match):
        _infer(sym, **shapes)


def test_detection_missing_attributes_and_bad_dtypes():
    with pytest.raises(mx.MXNetError, match="threshold"):
        mx.sym.contrib.bipartite_matching(mx.sym.var("data"))
    with pytest.raises(mx.MXNetError, match="spatial_scale"):
        mx.sym.ROIPooling(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2))
    # MXNet's parse-time rules: pooled_size is 2 positive sizes, spatial_scale within [0, 1]
    for make in (mx.sym.ROIPooling, mx.sym.contrib.ROIAlign):
        for kw in (dict(pooled_size=(2, 0), spatial_scale=0.5), dict(pooled_size=(2, 2, 2), spatial_scale=0.5)):
            with pytest.raises(mx.MXNetError, match="pooled_size must be 2 positive sizes"):
                make(mx.sym.var("data"), mx.sym.var("rois"), **kw)
        with pytest.raises(mx.MXNetError, match="spatial_scale"):
            make(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.5)
    with pytest.raises(mx.MXNetError, match="format"):
        mx.sym.contrib.box_iou(mx.sym.var("lhs"), mx.sym.var("rhs"), format="xywh")
    with pytest.raises(mx.MXNetError, match="floating-point"):
        nms_sym({}).infer_type(data="int32")
    with pytest.raises(mx.MXNetError, match="dtype mismatch in node 'ra'.*float16"):
        mx.sym.contrib.ROIAlign(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.0,
                                name="ra").infer_type(data="float32", rois="float16")
