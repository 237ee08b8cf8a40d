"""The detection ops MultiBoxPrior, MultiBoxTarget, MultiBoxDetection, Proposal and MultiProposal
(MXNet 1.9.1's contrib ops): NumPy references written from the ops' rules, in float32 and
float64, zero gradients (MXNet gives none), grad_req='add', 16-bit runs, imperative calls,
MXNet's JSON and the bad-input errors.

The case tables are what tests/python/gpu/test_operator_gpu.py compares between the CPU and a
GPU. Scores are drawn without ties, so that the sort orders (which decide the outputs) are the
same in every implementation."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_symbolic_forward
from test_operator import check_16bit, check_add_req

VAR = (0.1, 0.1, 0.2, 0.2)


# ---- NumPy references ------------------------------------------------------------------------

def prior_ref(h, w, sizes=(1.0,), ratios=(1.0,), clip=False, steps=(-1.0, -1.0), offsets=(0.5, 0.5)):
    # the attributes are float32 (MXNet's float tuples)
    sizes, ratios, steps, offsets = ([float(np.float32(v)) for v in t] for t in (sizes, ratios, steps, offsets))
    step_y = steps[0] if steps[0] > 0 else 1.0 / h
    step_x = steps[1] if steps[1] > 0 else 1.0 / w
    shapes = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
    out = []
    for r in range(h):
        for c in range(w):
            cy, cx = (r + offsets[0]) * step_y, (c + offsets[1]) * step_x
            for size, ratio in shapes:
                hw = size * h / w * np.sqrt(ratio) / 2
                hh = size / np.sqrt(ratio) / 2
                out.append([cx - hw, cy - hh, cx + hw, cy + hh])
    out = np.array(out, dtype=np.float64).reshape(1, -1, 4)
    return np.clip(out, 0, 1) if clip else out


def iou(a, b):
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1]) + max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def target_ref(anchor, label, cls_pred, overlap_threshold=0.5, ignore_label=-1.0, negative_mining_ratio=-1.0,
               negative_mining_thresh=0.5, variances=VAR, **_):
    variances = [float(np.float32(v)) for v in variances]  # float32 attributes
    anc = anchor[0]
    n = anc.shape[0]
    batches = label.shape[0]
    loc_t = np.zeros((batches, n * 4))
    loc_m = np.zeros((batches, n * 4))
    cls_t = np.full((batches, n), float(ignore_label))
    for b in range(batches):
        gts = []
        for row in label[b]:
            if row[0] == -1:
                break
            gts.append(row)
        if not gts:
            continue
        ov = np.array([[iou(a, g[1:5]) for g in gts] for a in anc])
        flag = np.full(n, -1)
        match = np.full(n, -1)
        best_iou = np.full(n, -1.0)
        gt_done = np.zeros(len(gts), bool)
        npos = 0
        for _ in range(len(gts)):  # bipartite: best remaining pair first
            m = np.where((flag[:, None] == 1) | gt_done[None, :], -np.inf, ov)
            j, k = np.unravel_index(np.argmax(m), m.shape)
            if not m[j, k] > 1e-6:
                break
            flag[j], match[j], best_iou[j], gt_done[k] = 1, k, m[j, k], True
            npos += 1
        for j in range(n):
            if flag[j] == 1:
                continue
            k = int(np.argmax(ov[j]))
            if overlap_threshold > 0:
                match[j], best_iou[j] = k, ov[j, k]
                if ov[j, k] > overlap_threshold:
                    flag[j] = 1
                    npos += 1
        if negative_mining_ratio > 0:
            nneg = min(int(npos * negative_mining_ratio), n - npos)
            cands = []
            for j in range(n):
                if flag[j] == 1:
                    continue
                bi = best_iou[j] if best_iou[j] >= 0 else ov[j].max()
                if bi < negative_mining_thresh and flag[j] == -1:
                    p = cls_pred[b, :, j]
                    e = np.exp(p - p.max())
                    cands.append((e[0] / e.sum(), j))
            cands.sort(key=lambda t: t[0])  # stable: lowest background probability first
            for _, j in cands[:max(nneg, 0)]:
                flag[j] = 0
        else:
            flag[flag != 1] = 0
        for j in range(n):
            if flag[j] == 1:
                g = gts[match[j]]
                a = anc[j]
                aw, ah = a[2] - a[0], a[3] - a[1]
                ax, ay = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
                gw, gh = g[3] - g[1], g[4] - g[2]
                gx, gy = (g[1] + g[3]) / 2, (g[2] + g[4]) / 2
                loc_t[b, 4 * j:4 * j + 4] = [(gx - ax) / aw / variances[0], (gy - ay) / ah / variances[1],
                                             np.log(gw / aw) / variances[2], np.log(gh / ah) / variances[3]]
                loc_m[b, 4 * j:4 * j + 4] = 1
                cls_t[b, j] = g[0] + 1
            elif flag[j] == 0:
                cls_t[b, j] = 0
    return [loc_t, loc_m, cls_t]


def detection_ref(cls_prob, loc_pred, anchor, clip=True, threshold=0.01, nms_threshold=0.5, force_suppress=False,
                  variances=VAR, nms_topk=-1, **_):
    variances = [float(np.float32(v)) for v in variances]  # float32 attributes
    batches, ncls, n = cls_prob.shape
    out = np.full((batches, n, 6), -1.0)
    for b in range(batches):
        rows = []
        for i in range(n):
            p = cls_prob[b, 1:, i]
            if ncls < 2:
                continue
            c = int(np.argmax(p))
            if p[c] < threshold:
                continue
            a = anchor[0, i]
            aw, ah = a[2] - a[0], a[3] - a[1]
            ax, ay = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
            d = loc_pred[b, 4 * i:4 * i + 4]
            ox, oy = d[0] * variances[0] * aw + ax, d[1] * variances[1] * ah + ay
            ow, oh = np.exp(d[2] * variances[2]) * aw / 2, np.exp(d[3] * variances[3]) * ah / 2
            box = np.array([ox - ow, oy - oh, ox + ow, oy + oh])
            if clip:
                box = np.clip(box, 0, 1)
            rows.append(np.concatenate([[c, p[c]], box]))
        valid = len(rows)
        if valid:
            out[b, :valid] = rows
        if valid == 0 or not 0 < nms_threshold <= 1:
            continue
        order = sorted(range(valid), key=lambda i: -rows[i][1])  # stable
        nkeep = min(valid, nms_topk) if nms_topk > 0 else valid
        for i in range(nkeep):
            out[b, i] = rows[order[i]]
        out[b, nkeep:valid, 0] = -1
        for i in range(nkeep):
            if out[b, i, 0] < 0:
                continue
            for j in range(i + 1, nkeep):
                if out[b, j, 0] < 0:
                    continue
                if (force_suppress or out[b, i, 0] == out[b, j, 0]) and \
                        iou(out[b, i, 2:], out[b, j, 2:]) >= nms_threshold:
                    out[b, j, 0] = -1
    return out


def proposal_anchors(stride, ratios, scales):
    w = h = float(stride)
    cx, cy = 0.5 * (w - 1), 0.5 * (h - 1)
    out = []
    for r in ratios:
        for s in scales:
            nw = np.floor(np.sqrt(np.floor(w * h / r)) + 0.5) * s
            nh = np.floor(nw / s * r + 0.5) * s
            out.append([cx - 0.5 * (nw - 1), cy - 0.5 * (nh - 1), cx + 0.5 * (nw - 1), cy + 0.5 * (nh - 1)])
    return np.array(out)


def proposal_ref(cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300, threshold=0.7,
                 rpn_min_size=16, scales=(4, 8, 16, 32), ratios=(0.5, 1, 2), feature_stride=16, iou_loss=False,
                 **_):
    batches, a2, height, width = cls_prob.shape
    na = a2 // 2
    base = proposal_anchors(feature_stride, ratios, scales)
    rois, scores = [], []
    for b in range(batches):
        im_h, im_w, sc = im_info[b]
        real_h, real_w = int(im_h / feature_stride), int(im_w / feature_stride)
        ms = rpn_min_size * sc
        boxes = []
        for y in range(height):
            for x in range(width):
                for a in range(na):
                    x1, y1, x2, y2 = base[a] + [x * feature_stride, y * feature_stride] * 2
                    d = bbox_pred[b, 4 * a:4 * a + 4, y, x]
                    if iou_loss:
                        p = np.array([x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]])
                    else:
                        bw, bh = x2 - x1 + 1, y2 - y1 + 1
                        cx, cy = x1 + 0.5 * (bw - 1), y1 + 0.5 * (bh - 1)
                        pcx, pcy, pw, ph = d[0] * bw + cx, d[1] * bh + cy, np.exp(d[2]) * bw, np.exp(d[3]) * bh
                        p = np.array([pcx - 0.5 * (pw - 1), pcy - 0.5 * (ph - 1), pcx + 0.5 * (pw - 1),
                                      pcy + 0.5 * (ph - 1)])
                    p = np.clip(p, 0, [im_w - 1, im_h - 1, im_w - 1, im_h - 1])
                    s = -1.0 if (y >= real_h or x >= real_w) else cls_prob[b, na + a, y, x]
                    if p[2] - p[0] + 1 < ms or p[3] - p[1] + 1 < ms:
                        p = p + np.array([-ms, -ms, ms, ms]) / 2
                        s = -1.0
                    boxes.append(np.concatenate([p, [s]]))
        boxes = np.array(boxes)
        count = len(boxes)
        pre = min(rpn_pre_nms_top_n, count) if rpn_pre_nms_top_n > 0 else count
        post = min(rpn_post_nms_top_n, pre)
        order = np.argsort(-boxes[:, 4], kind="stable")[:pre]
        dets = boxes[order]
        area = (dets[:, 2] - dets[:, 0] + 1) * (dets[:, 3] - dets[:, 1] + 1)
        keep, supp = [], np.zeros(pre, bool)
        for i in range(pre):
            if len(keep) >= post:
                break
            if supp[i]:
                continue
            keep.append(i)
            for j in range(i + 1, pre):
                if supp[j]:
                    continue
                iw = max(0.0, min(dets[i, 2], dets[j, 2]) - max(dets[i, 0], dets[j, 0]) + 1)
                ih = max(0.0, min(dets[i, 3], dets[j, 3]) - max(dets[i, 1], dets[j, 1]) + 1)
                inter = iw * ih
                if inter / (area[i] + area[j] - inter) > threshold:
                    supp[j] = True
        for r in range(rpn_post_nms_top_n):
            k = dets[keep[r % len(keep)]]
            rois.append(np.concatenate([[b], k[:4]]))
            scores.append([k[4]])
    return [np.array(rois).reshape(-1, 5), np.array(scores).reshape(-1, 1)]


# ---- inputs ----------------------------------------------------------------------------------

def distinct_uniform(rng, shape, lo=0.0, hi=1.0):
    """Values without ties (a shuffled grid plus jitter far below its spacing)."""
    n = int(np.prod(shape))
    grid = np.linspace(lo, hi, n + 2)[1:-1]
    return rng.permutation(grid + rng.uniform(-0.1, 0.1, n) * (hi - lo) / (n + 2)).reshape(shape)


def target_inputs(batches=2, h=3, w=3, sizes=(0.4, 0.2), ratios=(1, 2), ncls=4, seed=0, labels=None):
    rng = np.random.RandomState(seed)
    anchor = prior_ref(h, w, sizes, ratios)
    n = anchor.shape[1]
    if labels is None:
        labels = [[[0, 0.1, 0.1, 0.45, 0.5], [2, 0.5, 0.3, 0.95, 0.7], [-1] * 5],
                  [[1, 0.2, 0.55, 0.6, 0.9], [-1] * 5, [-1] * 5]][:batches]
    label = np.array(labels, dtype=np.float64)
    cls_pred = distinct_uniform(rng, (label.shape[0], ncls, n), -2, 2)
    return {"anchor": anchor, "label": label, "cls_pred": cls_pred}


def detection_inputs(batches=2, h=3, w=3, ncls=3, seed=1):
    rng = np.random.RandomState(seed)
    anchor = prior_ref(h, w, (0.5, 0.3), (1, 2))
    n = anchor.shape[1]
    logits = distinct_uniform(rng, (batches, ncls, n), -3, 3)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    cls_prob = e / e.sum(axis=1, keepdims=True)
    loc_pred = rng.uniform(-1, 1, (batches, n * 4))
    return {"cls_prob": cls_prob, "loc_pred": loc_pred, "anchor": anchor}


def proposal_inputs(batches=1, na=3, h=4, w=5, im=((64, 80, 1.0),), seed=2):
    rng = np.random.RandomState(seed)
    return {"cls_prob": distinct_uniform(rng, (batches, 2 * na, h, w)),
            "bbox_pred": rng.normal(size=(batches, 4 * na, h, w)) * 0.2,
            "im_info": np.array(im, dtype=np.float64)}


# (h, w, attributes)
PRIOR_CASES = [
    (2, 3, dict()),
    (3, 2, dict(sizes=(0.5, 0.25), ratios=(1, 2, 0.5))),
    (2, 2, dict(sizes=(0.75,), ratios=(1, 3), clip=True)),
    (3, 4, dict(sizes=(0.3, 0.6), steps=(0.3, 0.2), offsets=(0.1, 0.7), clip=True)),
]
# (input maker kwargs, attributes)
TARGET_CASES = [
    (dict(), dict()),
    (dict(), dict(negative_mining_ratio=2.0, ignore_label=-2)),
    (dict(), dict(overlap_threshold=0.3, negative_mining_ratio=1.5, negative_mining_thresh=0.4,
                  variances=(0.2, 0.2, 0.5, 0.5))),
    (dict(), dict(overlap_threshold=0.0)),
    # no ground truth at all in either image
    (dict(labels=[[[-1] * 5] * 2, [[-1] * 5] * 2]), dict()),
    # a label width of 6 (an extra column), one image, a threshold nobody passes
    (dict(batches=1, labels=[[[1, 0.3, 0.3, 0.7, 0.6, 9], [0, 0.05, 0.6, 0.3, 0.95, 9]]]),
     dict(overlap_threshold=0.99, negative_mining_ratio=3.0)),
]
DETECTION_CASES = [
    dict(),
    dict(force_suppress=True, nms_threshold=0.3),
    dict(nms_topk=4, threshold=0.2),
    dict(clip=False, variances=(0.2, 0.2, 0.3, 0.3), nms_threshold=0.45),
    dict(threshold=0.99),  # everything below the threshold: all rows -1
    dict(nms_threshold=0.0),  # no sorting, no NMS
]
# (input maker kwargs, attributes)
PROPOSAL_CASES = [
    (dict(), dict(scales=(2,), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=30, rpn_post_nms_top_n=8, threshold=0.5,
                  rpn_min_size=4)),
    # padded image (cells past 40 x 50 pixels score -1), iou_loss deltas, pre_nms <= 0 (all)
    (dict(na=2, im=((40, 50, 1.0),)), dict(scales=(1.5, 3), ratios=(1,), rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=10,
                                     threshold=0.6, rpn_min_size=8, iou_loss=True)),
    # more rows than boxes survive: the kept ones repeat; a min size with an image scale
    (dict(na=1, h=3, w=3, im=((48, 48, 1.5),)), dict(scales=(2,), ratios=(1,), rpn_pre_nms_top_n=5,
                                                      rpn_post_nms_top_n=7, threshold=0.3, rpn_min_size=12)),
]


def prior_sym(kw):
    return mx.sym.contrib.MultiBoxPrior(mx.sym.var("data"), name="p", **kw)


def target_sym(kw):
    return mx.sym.contrib.MultiBoxTarget(mx.sym.var("anchor"), mx.sym.var("label"), mx.sym.var("cls_pred"),
                                         name="t", **kw)


def detection_sym(kw):
    return mx.sym.contrib.MultiBoxDetection(mx.sym.var("cls_prob"), mx.sym.var("loc_pred"), mx.sym.var("anchor"),
                                            name="d", **kw)


def proposal_sym(kw, multi=False):
    op = mx.sym.contrib.MultiProposal if multi else mx.sym.contrib.Proposal
    return op(mx.sym.var("cls_prob"), mx.sym.var("bbox_pred"), mx.sym.var("im_info"), name="r", **kw)


def assert_zero_gradients(sym, loc):
    """Every input gets a zero gradient, written over what the buffer held; and grad_req='add'
    leaves the accumulated gradient as it was."""
    exe = sym.simple_bind(mx.cpu(), grad_req="write", type_dict={k: "float64" for k in loc},
                          **{k: v.shape for k, v in loc.items()})
    for k, v in loc.items():
        exe.arg_dict[k][:] = v
        exe.grad_dict[k][:] = 7.0
    outs = exe.forward(is_train=True)
    exe.backward([mx.nd.ones(o.shape, dtype="float64") for o in outs])
    for k in loc:
        np.testing.assert_array_equal(exe.grad_dict[k].asnumpy(), 0, err_msg=k)
    check_add_req(sym, loc, [mx.nd.ones(o.shape, dtype="float64") for o in outs])


# ---- MultiBoxPrior ---------------------------------------------------------------------------

@pytest.mark.parametrize("h,w,kw", PRIOR_CASES)
def test_multibox_prior(h, w, kw):
    sym = prior_sym(kw)
    loc = {"data": np.zeros((2, 3, h, w))}
    ref = prior_ref(h, w, **kw)
    assert sym.infer_shape(data=(2, 3, h, w))[1] == [ref.shape]
    check_symbolic_forward(sym, loc, [ref], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_16bit(sym, loc, rtol_f16=1e-3, rtol_bf16=8e-3)
    got = mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, h, w)), **kw)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_multibox_prior_gradient_json_and_errors():
    assert_zero_gradients(prior_sym(dict(sizes=(0.5,))), {"data": np.ones((1, 2, 2, 3))})
    node = json.loads(prior_sym(dict(sizes=(0.5, 0.2), clip=True)).tojson())["nodes"][1]
    assert node["op"] == "_contrib_MultiBoxPrior"
    assert mx.sym.contrib.MultiBoxPrior is not None and mx.nd.contrib.MultiBoxPrior is not None
    with pytest.raises(mx.MXNetError, match="4-D"):
        prior_sym({}).infer_shape(data=(2, 3, 4))
    with pytest.raises(mx.MXNetError, match="steps"):
        prior_sym(dict(steps=(0.1,))).infer_shape(data=(1, 1, 2, 2))
    with pytest.raises(mx.MXNetError, match="sizes and ratios"):
        prior_sym(dict(sizes=())).infer_shape(data=(1, 1, 2, 2))
    with pytest.raises(mx.MXNetError, match="ratios must be positive"):
        prior_sym(dict(ratios=(1, 0))).infer_shape(data=(1, 1, 2, 2))


# ---- MultiBoxTarget --------------------------------------------------------------------------

@pytest.mark.parametrize("mk,kw", TARGET_CASES)
def test_multibox_target(mk, kw):
    loc = target_inputs(**mk)
    sym = target_sym(kw)
    assert sym.list_outputs() == ["t_loc_target", "t_loc_mask", "t_cls_target"]
    assert sym.list_arguments() == ["anchor", "label", "cls_pred"]
    ref = target_ref(loc["anchor"], loc["label"], loc["cls_pred"], **kw)
    check_symbolic_forward(sym, loc, ref, rtol=1e-5, atol=1e-5)
    check_symbolic_forward(sym, loc, ref, rtol=1e-12, atol=1e-12, dtype=np.float64)
    got = mx.nd.contrib.MultiBoxTarget(*[mx.nd.array(loc[k]) for k in ("anchor", "label", "cls_pred")], **kw)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.asnumpy(), r, rtol=1e-5, atol=1e-5)


def test_multibox_target_rules():
    """Bipartite matching gives every ground truth an anchor even below the threshold; mining
    takes ratio x positives; the gradient is zero; float16 gives the float32 decisions."""
    loc = target_inputs(labels=[[[3, 0.0, 0.0, 0.05, 0.05], [-1] * 5], [[1, 0.3, 0.3, 0.7, 0.7], [-1] * 5]])
    loc_t, mask, cls = target_ref(loc["anchor"], loc["label"], loc["cls_pred"], negative_mining_ratio=3)
    assert (cls[0] == 4).sum() == 1 and (cls[0] == 0).sum() == 3  # one match, 3 mined negatives
    out = mx.nd.contrib.MultiBoxTarget(*[mx.nd.array(loc[k]) for k in ("anchor", "label", "cls_pred")],
                                       negative_mining_ratio=3)
    np.testing.assert_allclose(out[2].asnumpy(), cls)
    assert_zero_gradients(target_sym({}), loc)
    loc16 = {k: v.astype(np.float16).astype(np.float64) for k, v in loc.items()}
    ref = target_ref(loc16["anchor"], loc16["label"], loc16["cls_pred"])
    for dtype in ("float16", "bfloat16"):
        got = mx.nd.contrib.MultiBoxTarget(*[mx.nd.array(loc16[k], dtype=dtype) for k in ("anchor", "label",
                                                                                          "cls_pred")])
        assert got[0].dtype == np.dtype(dtype) if dtype == "float16" else True
        np.testing.assert_array_equal(got[2].asnumpy().astype(np.float64), ref[2])
        np.testing.assert_array_equal(got[1].asnumpy().astype(np.float64), ref[1])
        np.testing.assert_allclose(got[0].asnumpy().astype(np.float64), ref[0], rtol=3e-2, atol=3e-2)


def test_multibox_target_errors():
    sym = target_sym({})
    with pytest.raises(mx.MXNetError, match="anchor"):
        sym.infer_shape(anchor=(2, 5, 4), label=(1, 2, 5), cls_pred=(1, 3, 5))
    with pytest.raises(mx.MXNetError, match="label"):
        sym.infer_shape(anchor=(1, 5, 4), label=(1, 2, 4), cls_pred=(1, 3, 5))
    with pytest.raises(mx.MXNetError, match="cls_pred"):
        sym.infer_shape(anchor=(1, 5, 4), label=(1, 2, 5), cls_pred=(1, 3, 6))
    with pytest.raises(mx.MXNetError, match="variances"):
        target_sym(dict(variances=(0.1, 0.2))).infer_shape(anchor=(1, 5, 4), label=(1, 2, 5), cls_pred=(1, 3, 5))
    with pytest.raises(mx.MXNetError, match="negative_mining_thresh"):
        target_sym(dict(negative_mining_ratio=3, negative_mining_thresh=0)).infer_shape(
            anchor=(1, 5, 4), label=(1, 2, 5), cls_pred=(1, 3, 5))


# ---- MultiBoxDetection -----------------------------------------------------------------------

@pytest.mark.parametrize("kw", DETECTION_CASES, ids=str)
def test_multibox_detection(kw):
    loc = detection_inputs()
    sym = detection_sym(kw)
    ref = detection_ref(loc["cls_prob"], loc["loc_pred"], loc["anchor"], **kw)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [ref], rtol=1e-12, atol=1e-12, dtype=np.float64)
    got = mx.nd.contrib.MultiBoxDetection(*[mx.nd.array(loc[k]) for k in ("cls_prob", "loc_pred", "anchor")], **kw)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_multibox_detection_rules():
    """MXNet 1.9.1's layout on a hand-made case: class 0 is the background (background_id is
    accepted and has no effect, as in MXNet), equal scores keep anchor order, NMS within a class
    unless force_suppress, rows past nms_topk get id -1 and keep their unsorted contents."""
    anc = np.array([[[0.1, 0.1, 0.3, 0.3], [0.12, 0.1, 0.32, 0.3], [0.5, 0.5, 0.9, 0.9],
                     [0.55, 0.5, 0.95, 0.9], [0.0, 0.0, 0.2, 0.2]]])
    cls = np.array([[[0.1, 0.2, 0.3, 0.05, 0.9], [0.6, 0.5, 0.2, 0.55, 0.05], [0.3, 0.3, 0.5, 0.4, 0.05]]])
    args = [mx.nd.array(cls), mx.nd.zeros((1, 20)), mx.nd.array(anc)]
    exp = [[0, 0.6, 0.1, 0.1, 0.3, 0.3], [0, 0.55, 0.55, 0.5, 0.95, 0.9], [-1, 0.5, 0.12, 0.1, 0.32, 0.3],
           [1, 0.5, 0.5, 0.5, 0.9, 0.9], [0, 0.05, 0, 0, 0.2, 0.2]]
    for bg in (0, 1):
        np.testing.assert_allclose(mx.nd.contrib.MultiBoxDetection(*args, background_id=bg).asnumpy()[0], exp,
                                   atol=1e-6)
    got = mx.nd.contrib.MultiBoxDetection(*args, force_suppress=True).asnumpy()[0]
    assert got[3, 0] == -1
    got = mx.nd.contrib.MultiBoxDetection(*args, nms_topk=2).asnumpy()[0]
    np.testing.assert_allclose(got[2:], [[-1, 0.5, 0.5, 0.5, 0.9, 0.9], [-1, 0.55, 0.55, 0.5, 0.95, 0.9],
                                         [-1, 0.05, 0, 0, 0.2, 0.2]], atol=1e-6)
    loc = detection_inputs(batches=1)
    assert_zero_gradients(detection_sym({}), loc)
    # 16-bit: well separated scores keep their order; boxes within the dtype's rounding
    loc = detection_inputs(batches=1, h=2, w=2)
    check_16bit(detection_sym(dict(nms_threshold=0.3)), loc, rtol_f16=4e-3, rtol_bf16=3e-2)


def test_multibox_detection_errors():
    sym = detection_sym({})
    with pytest.raises(mx.MXNetError, match="cls_prob"):
        sym.infer_shape(cls_prob=(2, 3))
    with pytest.raises(mx.MXNetError, match="loc_pred"):
        sym.infer_shape(cls_prob=(2, 3, 4), loc_pred=(2, 15), anchor=(1, 4, 4))
    with pytest.raises(mx.MXNetError, match="anchor"):
        sym.infer_shape(cls_prob=(2, 3, 4), loc_pred=(2, 16), anchor=(1, 5, 4))
    with pytest.raises(mx.MXNetError, match="variances"):
        detection_sym(dict(variances=(1, 2, 3))).infer_shape(cls_prob=(2, 3, 4))


# ---- Proposal / MultiProposal ----------------------------------------------------------------

@pytest.mark.parametrize("mk,kw", PROPOSAL_CASES)
def test_proposal(mk, kw):
    loc = proposal_inputs(**mk)
    ref = proposal_ref(loc["cls_prob"], loc["bbox_pred"], loc["im_info"], **kw)
    sym = proposal_sym(dict(kw, output_score=True))
    assert sym.list_outputs() == ["r_output", "r_score"]
    check_symbolic_forward(sym, loc, ref, rtol=1e-5, atol=1e-4)
    check_symbolic_forward(sym, loc, ref, rtol=1e-12, atol=1e-10, dtype=np.float64)
    one = proposal_sym(kw)
    assert one.list_outputs() == ["r_output"]
    check_symbolic_forward(one, loc, ref[:1], rtol=1e-5, atol=1e-4)
    got = mx.nd.contrib.Proposal(*[mx.nd.array(loc[k]) for k in ("cls_prob", "bbox_pred", "im_info")], **kw)
    np.testing.assert_allclose(got.asnumpy(), ref[0], rtol=1e-5, atol=1e-4)


def test_multi_proposal_batch():
    loc = proposal_inputs(batches=2, im=((64, 80, 1.0), (40, 60, 0.5)))
    kw = dict(scales=(2,), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=20, rpn_post_nms_top_n=6, threshold=0.5,
              rpn_min_size=6)
    ref = proposal_ref(loc["cls_prob"], loc["bbox_pred"], loc["im_info"], **kw)
    sym = proposal_sym(dict(kw, output_score=True), multi=True)
    check_symbolic_forward(sym, loc, ref, rtol=1e-5, atol=1e-4)
    assert sorted(set(ref[0][:, 0])) == [0, 1]
    # image 0 alone through Proposal gives MultiProposal's first rows
    first = {k: v[:1] for k, v in loc.items()}
    check_symbolic_forward(proposal_sym(kw), first, [ref[0][:6]], rtol=1e-5, atol=1e-4)
    assert_zero_gradients(sym, loc)
    # float16 keeps pixel coordinates of this size within ~0.1 px; the ranking of these well
    # separated scores is unchanged
    check_16bit(proposal_sym(kw), first, rtol_f16=2e-3, rtol_bf16=2e-2)


def test_proposal_json_and_errors():
    sym = proposal_sym(dict(scales=(2, 3), ratios=(1,)))
    node = json.loads(sym.tojson())["nodes"][3]
    assert node["op"] == "_contrib_Proposal" and node["attrs"]["scales"] in ("(2, 3)", "(2,3)", "[2,3]")
    assert sym.infer_shape(cls_prob=(1, 4, 3, 3))[:2] == ([(1, 4, 3, 3), (1, 8, 3, 3), (1, 3)], [(300, 5)])
    multi = proposal_sym(dict(scales=(2, 3), ratios=(1,)), multi=True)
    assert multi.infer_shape(cls_prob=(2, 4, 3, 3))[1] == [(600, 5)]
    with pytest.raises(mx.MXNetError, match="MultiProposal"):
        sym.infer_shape(cls_prob=(2, 4, 3, 3))
    with pytest.raises(mx.MXNetError, match="2 \\* 2 anchors"):
        sym.infer_shape(cls_prob=(1, 6, 3, 3))
    with pytest.raises(mx.MXNetError, match="bbox_pred"):
        sym.infer_shape(cls_prob=(1, 4, 3, 3), bbox_pred=(1, 4, 3, 3))
    with pytest.raises(mx.MXNetError, match="scales and ratios"):
        proposal_sym(dict(scales=())).infer_shape(cls_prob=(1, 4, 3, 3))
