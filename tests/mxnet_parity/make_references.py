#!/usr/bin/env python3
"""Writes MXNet 1.9.1 reference results for tests/python/test_mxnet_parity.py.

Runs under MXNet itself, in its own virtual environment (mxnet 1.9.1 needs numpy < 1.24):

    python3 -m venv build/mxnet-venv
    build/mxnet-venv/bin/pip install mxnet==1.9.1 numpy==1.23.5
    build/mxnet-venv/bin/python tests/mxnet_parity/make_references.py build/mxnet_refs

For each model, OUT/<model>/ gets: symbol.json and model.params (MXNet's own files, the way
users have them), and ref.npz with the fixed inputs, the forward outputs in inference and in
training mode, the head gradients used, the gradient of every argument (a fixed random sample of
entries for the largest), and the auxiliary
states after the training forward. OUT/sgd.npz holds one sgd_mom_update and one
mp_sgd_mom_update step; OUT/metrics.json MXNet's metrics on fixed batches; OUT/optimizers.json
4 steps of each optimizer in OPTIMIZER_CASES; OUT/amp_<dtype>/ holds MXNet's AMP conversion of ResNet-50 (the
16-bit ops and the converted graph's outputs); OUT/classic/ holds the JSON MXNet writes for the classic symbol
scripts in classic_symbols.py. OUT/image_aug.{json,npz} (with OUT/image_aug/) hold mx.image's augmenters,
CreateAugmenter and ImageIter on fixed images; OUT/data_iters.json (with OUT/data_iters/) CSVIter, ResizeIter
and PrefetchingIter batches. OUT/custom_ops/ holds Gluon blocks with the Custom ops of custom_ops.py.
OUT/manifest.json lists it all with versions.
"""
import json
import os
import sys

import numpy as np

import mxnet as mx
from mxnet.gluon.model_zoo import vision

RNG = np.random.RandomState(20261122)


def mlp():
    x = mx.sym.Variable("data")
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=32, name="fc1"), act_type="relu", name="relu1")
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=16, name="fc2"), act_type="tanh", name="tanh2")
    return mx.sym.FullyConnected(x, num_hidden=10, name="fc3"), {"data": (8, 20)}


def lenet():
    x = mx.sym.Variable("data")
    x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=8, name="conv1")
    x = mx.sym.Pooling(mx.sym.Activation(x, act_type="tanh"), pool_type="max", kernel=(2, 2), stride=(2, 2))
    x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=16, name="conv2")
    x = mx.sym.Pooling(mx.sym.Activation(x, act_type="tanh"), pool_type="max", kernel=(2, 2), stride=(2, 2))
    x = mx.sym.FullyConnected(mx.sym.flatten(x), num_hidden=32, name="fc1")
    x = mx.sym.FullyConnected(mx.sym.Activation(x, act_type="tanh"), num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(x, name="softmax"), {"data": (4, 1, 28, 28), "softmax_label": (4,)}


def mixed():
    """Concat, Dropout(p=0), Pooling variants, LeakyReLU variants, BatchNorm, element-wise ops."""
    x = mx.sym.Variable("data")
    c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name="conv")
    b = mx.sym.BatchNorm(c, fix_gamma=False, eps=1e-3, momentum=0.8, name="bn")
    a1 = mx.sym.LeakyReLU(b, act_type="leaky", slope=0.1, name="leaky")
    a2 = mx.sym.LeakyReLU(b, act_type="elu", slope=0.5, name="elu")
    a3 = mx.sym.LeakyReLU(b, act_type="prelu", name="prelu")
    a4 = mx.sym.LeakyReLU(b, act_type="gelu", name="gelu")
    cat = mx.sym.Concat(a1, a2, a3, a4, dim=1, name="concat")
    d = mx.sym.Dropout(cat, p=0.0, name="drop")
    p1 = mx.sym.Pooling(d, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                        count_include_pad=False, name="avgpool")
    p2 = mx.sym.Pooling(d, kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full",
                        name="maxpool_full")
    p3 = mx.sym.Pooling(d, kernel=(2, 2), stride=(2, 2), pool_type="sum", name="sumpool")
    s = mx.sym.elemwise_add(p1, p3, name="add") * 0.5 + p2
    g = mx.sym.Pooling(s, global_pool=True, pool_type="max", kernel=(1, 1), name="gpool")
    y = mx.sym.FullyConnected(mx.sym.flatten(g), num_hidden=5, name="fc")
    return mx.sym.Group([y, mx.sym.sigmoid(s, name="sig")]), {"data": (2, 3, 10, 10)}


def clip():
    """clip as MobileNet v2 uses it (relu6 after a convolution) and as a band on an FC output."""
    x = mx.sym.Variable("data")
    c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv")
    r6 = mx.sym.clip(c * 3.0, a_min=0.0, a_max=6.0, name="relu6")
    fc = mx.sym.FullyConnected(mx.sym.flatten(r6), num_hidden=6, name="fc")
    return mx.sym.clip(fc, a_min=-0.5, a_max=0.7, name="band"), {"data": (2, 3, 6, 6)}


def norm_ops():
    """LRN as AlexNet uses it (nsize=5 after a ReLU convolution) and with a strong alpha, then
    L2Normalization in each mode, and an FC on the instance-normalized features."""
    x = mx.sym.Variable("data")
    c = mx.sym.Activation(mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name="conv"),
                          act_type="relu")
    lrn = mx.sym.LRN(c, nsize=5, alpha=1e-4, beta=0.75, knorm=2, name="lrn")
    strong = mx.sym.LRN(c * 4.0, nsize=3, alpha=0.5, beta=0.6, knorm=1, name="lrn_strong")
    pooled = mx.sym.Pooling(lrn + strong, kernel=(2, 2), stride=(2, 2), pool_type="max")
    inst = mx.sym.L2Normalization(pooled, name="l2_instance")
    chan = mx.sym.L2Normalization(pooled, mode="channel", name="l2_channel")
    spat = mx.sym.L2Normalization(pooled, mode="spatial", eps=1e-4, name="l2_spatial")
    fc = mx.sym.FullyConnected(mx.sym.flatten(inst), num_hidden=5, name="fc")
    return mx.sym.Group([fc, chan * spat, strong]), {"data": (2, 3, 8, 8)}


def group_norms():
    """GroupNorm (gamma per group, MXNet 1.9.1), InstanceNorm and LayerNorm after a small
    convolution; LayerNorm also over the channel axis with its mean and std as outputs; and
    contrib.SyncBatchNorm in one process (MXNet's symbol JSON with its ndev and key)."""
    x = mx.sym.Variable("data")
    c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name="conv")
    gn = mx.sym.GroupNorm(c, num_groups=4, name="gn")
    inorm = mx.sym.InstanceNorm(mx.sym.Activation(gn, act_type="relu"), eps=1e-4, name="inorm")
    ln = mx.sym.LayerNorm(inorm, name="ln")
    ln_c = mx.sym.LayerNorm(c, axis=1, output_mean_var=True, name="ln_channel")
    # inorm is added back: LayerNorm over W alone would cancel InstanceNorm's per-channel beta
    # (an exactly zero gradient, which leaves only rounding noise to compare)
    fc = mx.sym.FullyConnected(mx.sym.flatten(ln + 0.5 * inorm), num_hidden=5, name="fc")
    sbn = mx.sym.contrib.SyncBatchNorm(c, fix_gamma=False, eps=1e-4, momentum=0.8, ndev=1, key="sbn",
                                       name="sbn")
    return mx.sym.Group([fc, ln_c[0] * 0.5 + gn + sbn, ln_c[1], ln_c[2]]), {"data": (2, 3, 6, 6)}


def matmul():
    """dot (N-D, both transpositions) and batch_dot (as attention scores and their weighted sum)."""
    q, k, v = mx.sym.Variable("q"), mx.sym.Variable("k"), mx.sym.Variable("v")
    w = mx.sym.Variable("w_proj", shape=(4, 5))  # a parameter (in model.params); the rest are inputs
    proj = mx.sym.dot(q, w, name="proj")  # (2, 3, 4) . (4, 5)
    scores = mx.sym.batch_dot(proj, k, transpose_b=True, name="scores")  # (2, 3, 5) x (2, 6, 5)^T
    ctx = mx.sym.batch_dot(mx.sym.softmax(scores, axis=-1), v, name="context")  # (2, 3, 6) x (2, 6, 4)
    back = mx.sym.dot(v, mx.sym.Variable("w_back"), transpose_a=True, name="back")  # (2,6,4)^T . (2, 7)
    return mx.sym.Group([ctx, back]), {"q": (2, 3, 4), "k": (2, 6, 5), "v": (2, 6, 4), "w_back": (2, 7)}


def slicing():
    """slice (None entries, negative begin/end, a negative step, a step of 2, and a plain box),
    slice_axis (end None, negative end) and split under both its names (several outputs,
    squeeze_axis, one part left unused), with an FC between so the model has parameters."""
    x = mx.sym.Variable("data")  # (4, 6, 10)
    strided = mx.sym.slice(x, begin=(None, 1, -1), end=(None, -1, 0), step=(None, 2, -2), name="strided")
    box = mx.sym.slice(x, begin=(1, 0), end=(3, 6), name="box")
    tail = mx.sym.slice_axis(x, axis=2, begin=-4, end=None, name="tail")
    mid = mx.sym.slice_axis(x, axis=1, begin=1, end=-1, name="mid")
    fc = mx.sym.FullyConnected(mx.sym.flatten(tail), num_hidden=6, name="fc")
    parts = mx.sym.split(fc, num_outputs=3, axis=1, name="parts")
    rows = mx.sym.SliceChannel(mid, num_outputs=4, axis=1, squeeze_axis=True, name="rows")  # rows[2] unused
    return mx.sym.Group([strided, box * 2.0, parts[0], parts[2] * parts[1], rows[1], rows[3] + rows[0]]), \
        {"data": (4, 6, 10)}


def index_ops():
    """where (a data-dependent condition, a 1-D one, a one_hot one), take (indices from _arange;
    wrap-mode indices from an input), pick (also with a _zeros index whose 0 dim, MXNet 1.x's
    unknown dim, the graph fills in), slice_like, diag (a vector's matrix, a 3-D array's
    diagonals) and shape_array, around an FC so the model has parameters. The indices of take,
    pick and one_hot come from the label input: the integers 0..9, some out of range."""
    x = mx.sym.Variable("data")  # (4, 6)
    fc = mx.sym.FullyConnected(x, num_hidden=5, name="fc")  # (4, 5)
    cls = mx.sym.Variable("cls_label")  # (4,): integers 0..9, the generator's labels
    sel = mx.sym.where(mx.sym.relu(x), x * 2.0, mx.sym.tanh(x), name="sel")
    rows = mx.sym.where(mx.sym.relu(mx.sym.sum(fc, axis=1)), fc, fc * 0.1, name="rows")
    hot = mx.sym.where(mx.sym.one_hot(cls, depth=5), fc, fc * -0.5, name="hot")
    first = mx.sym.pick(fc, mx.sym.zeros((0,), dtype="int32", name="zero_idx"), axis=1, name="first")
    cols = mx.sym.take(fc, mx.sym.arange(4, -1, -2, dtype="int32"), axis=1, name="cols")
    wrap = mx.sym.take(x, cls, axis=0, mode="wrap", name="wrap")
    picked = mx.sym.pick(fc, cls, axis=1, name="picked")  # clip: labels past 4 pick column 4
    cut = mx.sym.slice_like(x, fc, axes=(1,), name="cut")
    dmat = mx.sym.diag(picked, k=-1, name="dmat")
    dvec = mx.sym.diag(mx.sym.reshape(sel, shape=(2, 2, 6)), k=1, axis1=0, axis2=2, name="dvec")
    shape = mx.sym.Cast(mx.sym.shape_array(wrap), dtype="float32", name="shape")
    return mx.sym.Group([sel, rows, hot, first, cols, wrap, picked * 2.0, cut, dmat, dvec, shape]), \
        {"data": (4, 6), "cls_label": (4,)}


# (op, domain) as MORE_UNARY_MATH in tests/python/test_operator.py
UNARY_MATH_OPS = [
    ("sin", "any"), ("cos", "any"), ("tan", "unit"), ("arcsin", "unit"), ("arccos", "unit"), ("arctan", "any"),
    ("sinh", "any"), ("cosh", "any"), ("arcsinh", "any"), ("arccosh", "above_one"), ("arctanh", "unit"),
    ("degrees", "any"), ("radians", "any"), ("log2", "positive"), ("log10", "positive"),
    ("cbrt", "away_from_zero"), ("rcbrt", "away_from_zero"), ("erf", "any"), ("sign", "away_from_zero"),
    ("floor", "non_integer"), ("ceil", "non_integer"), ("round", "non_integer"), ("rint", "non_integer"),
    ("trunc", "non_integer"), ("fix", "non_integer")]


def unary_math():
    """Each function on its own input (x_<op>, moved into the function's domain by symbolic ops),
    so each input's gradient checks one function; plus an FC so the model has a parameter."""
    outs, shapes, raw = [], {}, {}
    for op, domain in UNARY_MATH_OPS:
        x = raw[op] = mx.sym.Variable("x_" + op)
        shapes["x_" + op] = (3, 4)
        if domain == "unit":
            x = 0.9 * mx.sym.tanh(x)
        elif domain == "above_one":
            x = mx.sym.abs(x) + 1.2
        elif domain == "positive":
            x = mx.sym.abs(x) + 0.3
        elif domain == "away_from_zero":
            x = x + 0.3 * mx.sym.sign(x)
        elif domain == "non_integer":
            x = x * 3.0
        outs.append(getattr(mx.sym, op)(x, name=op))
    outs.append(mx.sym.FullyConnected(raw["sin"], num_hidden=2, name="fc"))
    return mx.sym.Group(outs), shapes


def unary_math2():
    """erfinv, gamma and gammaln in their domains, smooth_l1 (the default sigma and 1.5),
    hard_sigmoid on a wide input (both flat parts and the slope) and softmin along each axis with
    a temperature; each function on its own input, plus an FC so the model has a parameter."""
    a, b, c = mx.sym.Variable("a"), mx.sym.Variable("b"), mx.sym.Variable("c")  # (3, 4) each
    outs = [mx.sym.erfinv(0.9 * mx.sym.tanh(a), name="erfinv"), mx.sym.gamma(mx.sym.abs(b) + 0.3, name="gamma"),
            mx.sym.gammaln(mx.sym.abs(c) + 0.3, name="gammaln"), mx.sym.smooth_l1(a * 2.0, name="huber"),
            mx.sym.smooth_l1(b, scalar=1.5, name="huber_sigma"), mx.sym.hard_sigmoid(c * 4.0, name="hsig"),
            mx.sym.hard_sigmoid(a, alpha=0.7, beta=0.4, name="hsig_ab"), mx.sym.softmin(b, name="softmin"),
            mx.sym.softmin(c, axis=0, temperature=2.5, name="softmin_t"),
            mx.sym.FullyConnected(a, num_hidden=2, name="fc")]
    return mx.sym.Group(outs), {"a": (3, 4), "b": (3, 4), "c": (3, 4)}


def losses():
    """Every loss head on its own FC's scores (4 samples, 10 classes): LogisticRegressionOutput
    and MAERegressionOutput against the labels one-hot (0.1 and 0.9), SVMOutput (L2 and L1, with a
    margin and coefficient) against class labels, MakeLoss with each normalization, and make_loss
    of a smooth_l1. Loss heads ignore their head gradients, so the weights' gradients are the
    losses' own."""
    x, cls = mx.sym.Variable("data"), mx.sym.Variable("cls_label")  # (4, 6), (4,) in 0..9
    target = mx.sym.one_hot(cls, depth=10) * 0.8 + 0.1  # (4, 10)

    def fc(i):
        return mx.sym.FullyConnected(x, num_hidden=10, name="fc%d" % i)
    heads = [mx.sym.LogisticRegressionOutput(fc(1), target, grad_scale=2.0, name="logistic"),
             mx.sym.MAERegressionOutput(fc(2), target, name="mae"),
             mx.sym.SVMOutput(fc(3), cls, name="svm_l2"),
             mx.sym.SVMOutput(fc(4), cls, margin=0.5, regularization_coefficient=0.3, use_linear=True,
                              name="svm_l1"),
             mx.sym.MakeLoss(fc(5), grad_scale=0.5, name="loss_null"),
             mx.sym.MakeLoss(fc(6), normalization="batch", name="loss_batch"),
             mx.sym.MakeLoss(fc(7), grad_scale=3.0, normalization="valid", valid_thresh=0.05, name="loss_valid"),
             mx.sym.make_loss(mx.sym.smooth_l1(fc(8), scalar=2.0), name="huber_loss")]
    return mx.sym.Group(heads), {"data": (4, 6), "cls_label": (4,)}


def binary_math():
    """maximum, minimum, power, mod and hypot in their same-shape, broadcast and scalar forms, and
    the comparisons and logical ops as 0/1 masks that multiply an input (their values count in the
    outputs, their zero gradients in the inputs'); an FC so the model has a parameter."""
    a, b, c = mx.sym.Variable("a"), mx.sym.Variable("b"), mx.sym.Variable("c")  # (3, 4), (3, 4), (1, 4)
    pos, away = mx.sym.abs(a) + 0.5, mx.sym.abs(b) + 0.5  # a power's base; a divisor away from 0
    internal = mx.sym._internal
    outs = [mx.sym.maximum(a, b), mx.sym.minimum(a, 0.2), mx.sym.broadcast_maximum(a, c),
            mx.sym.broadcast_minimum(c, b), mx.sym.maximum(-0.1, b),
            mx.sym.power(pos, b), pos ** 1.5, 2 ** b, mx.sym.broadcast_power(pos, c),
            a % away, a % -0.7, 1.3 % away, mx.sym.broadcast_mod(c, away),
            mx.sym.hypot(a, b), mx.sym.broadcast_hypot(a, c), mx.sym.hypot(a, 0.6),
            (a > b) * a, (b <= 0.3) * a, (0.1 < a) * b, mx.sym.broadcast_greater_equal(a, c) * b,
            mx.sym.broadcast_not_equal(a, c) + mx.sym.broadcast_equal(b, c) * a,
            internal._logical_xor(a > 0, b > 0) * b,
            mx.sym.broadcast_logical_and(a > 0, c > 0) * b, mx.sym.broadcast_logical_or(a > 0.5, c < 0) * a,
            mx.sym.logical_not(a > 0) * b, internal._logical_or_scalar(a, scalar=0) * b,
            mx.sym.FullyConnected(a, num_hidden=2, name="fc")]
    return mx.sym.Group(outs), {"a": (3, 4), "b": (3, 4), "c": (1, 4)}


def shape_ops():
    """broadcast_to (0 keeps a dim), broadcast_like (whole shape and lhs_axes/rhs_axes),
    broadcast_axis and broadcast_axes, tile, repeat (an axis and flattened), reverse and flip,
    stack, SwapAxis and swapaxes, reshape_like (whole and with ranges), around an FC so the model
    has a parameter; the rhs of broadcast_like and reshape_like get MXNet's zero gradients."""
    x = mx.sym.Variable("data")  # (2, 3, 4)
    fc = mx.sym.FullyConnected(x, num_hidden=4, name="fc")  # (2, 4)
    col = mx.sym.reshape(fc, shape=(2, 4, 1))
    outs = [mx.sym.broadcast_to(mx.sym.expand_dims(fc, axis=1), shape=(0, 3, 0), name="bto"),
            mx.sym.broadcast_like(mx.sym.slice_axis(x, axis=1, begin=0, end=1), x, name="blike"),
            mx.sym.broadcast_like(col, x, lhs_axes=(2,), rhs_axes=(1,), name="blike_axes"),
            mx.sym.broadcast_axis(mx.sym.reshape(fc, shape=(1, 2, 4)), axis=0, size=3, name="baxis"),
            mx.sym.broadcast_axes(col, axis=(2,), size=(2,), name="baxes"),
            mx.sym.tile(x, reps=(2, 1, 2), name="tile"), mx.sym.tile(fc, reps=(3,), name="tile_fc"),
            mx.sym.repeat(x, repeats=2, axis=-1, name="rep"), mx.sym.repeat(fc, repeats=3, name="rep_flat"),
            mx.sym.reverse(x, axis=(0, 2), name="rev"), mx.sym.flip(fc, axis=1, name="flip"),
            mx.sym.stack(x, x * 2.0, axis=1, name="stack"), mx.sym.stack(fc, fc, fc, axis=-1, name="stack_fc"),
            mx.sym.SwapAxis(x, dim1=0, dim2=2, name="swap"), mx.sym.swapaxes(col, dim1=1, dim2=-1, name="swapaxes"),
            mx.sym.reshape_like(x, mx.sym.tile(fc, reps=(1, 3)), name="rlike"),
            mx.sym.reshape_like(x, mx.sym.repeat(fc, repeats=3, axis=0), lhs_begin=0, lhs_end=2, rhs_begin=0,
                                rhs_end=1, name="rlike_range")]
    return mx.sym.Group(outs), {"data": (2, 3, 4)}


def reductions():
    """max, min, prod, nansum, nanprod over axes (keepdims, exclude, the _axis aliases), norm (ord 1
    and 2, over all, one and two axes) and the searches argmax, argmin, argmax_channel; an FC so
    the model has a parameter."""
    x = mx.sym.Variable("data")  # (3, 4, 5)
    near_one = mx.sym.abs(x) * 0.3 + 0.7  # products of terms near 1 stay in range
    outs = [mx.sym.max(x, axis=1), mx.sym.min(x, axis=(0, 2), keepdims=True), mx.sym.max_axis(x, axis=-1),
            mx.sym.min_axis(x, axis=1, exclude=True), mx.sym.prod(near_one, axis=2),
            mx.sym.nansum(x, axis=0), mx.sym.nanprod(near_one, axis=(0, 1)), mx.sym.norm(x),
            mx.sym.norm(x, ord=1, axis=2), mx.sym.norm(x, axis=(0, 1), keepdims=True),
            mx.sym.argmax(x, axis=1), mx.sym.argmin(x), mx.sym.argmax(x, axis=2, keepdims=True),
            mx.sym.BlockGrad(mx.sym.argmax_channel(x)),  # MXNet registers no gradient for it
            mx.sym.FullyConnected(x, num_hidden=2, name="fc")]
    return mx.sym.Group(outs), {"data": (3, 4, 5)}


def sorting():
    """topk in each ret_typ (along an axis, ascending, flattened), sort and argsort; the mask
    multiplies the input so that its gradient counts. MXNet 1.9.1's sort cannot run its backward
    ("Invalid Parameter format for axis"), so sort's output is behind BlockGrad there."""
    x = mx.sym.Variable("data")  # (3, 4, 6)
    both = mx.sym.topk(x, k=3, ret_typ="both", name="both")
    outs = [mx.sym.topk(x, k=2, ret_typ="value", axis=1), both[0], both[1],
            mx.sym.topk(x, k=2, axis=1, is_ascend=True, dtype="int32"),
            mx.sym.topk(x, k=4, ret_typ="mask") * x, mx.sym.topk(x, axis=None, k=5, ret_typ="value"),
            mx.sym.BlockGrad(mx.sym.sort(x, axis=0, is_ascend=False)), mx.sym.argsort(x, axis=2),
            mx.sym.FullyConnected(x, num_hidden=2, name="fc")]
    return mx.sym.Group(outs), {"data": (3, 4, 6)}


def nhwc_conv(x, name, twin, **kw):
    """An NHWC Convolution (weights (O, kh, kw, C)). MXNet 1.9.1 builds and saves it but cannot
    run it on a CPU (oneDNN: "could not create a descriptor"; without oneDNN: "Only support NCW,
    NCHW and NCDHW layout"), so the `twin` graph computes the same function with transposes
    around a channels-first Convolution, with the same argument names and shapes."""
    if not twin:
        return mx.sym.Convolution(x, layout="NHWC", name=name, **kw)
    w = mx.sym.transpose(mx.sym.Variable(name + "_weight"), axes=(0, 3, 1, 2))
    b = None if kw.get("no_bias") else mx.sym.Variable(name + "_bias")
    y = mx.sym.Convolution(mx.sym.transpose(x, axes=(0, 3, 1, 2)), weight=w, bias=b, name=name, **kw)
    return mx.sym.transpose(y, axes=(0, 2, 3, 1))


def nhwc(twin=False):
    """Channels-last layouts: NCHW data transposed to NHWC (as MXNet's NHWC scripts feed their
    iterators' batches), NHWC Convolution, grouped and strided, BatchNorm on axis 3, NHWC
    max/avg Pooling (MXNet runs these on a CPU) and global pooling."""
    x = mx.sym.transpose(mx.sym.Variable("data"), axes=(0, 2, 3, 1), name="to_nhwc")
    c1 = nhwc_conv(x, "conv1", twin, kernel=(3, 3), pad=(1, 1), num_filter=8)
    b = mx.sym.BatchNorm(c1, axis=3, fix_gamma=False, eps=1e-3, name="bn")
    a = mx.sym.Activation(b, act_type="relu")
    c2 = nhwc_conv(a, "conv2", twin, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=8, num_group=2,
                   no_bias=True)
    p1 = mx.sym.Pooling(c2, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max", layout="NHWC", name="maxpool")
    p2 = mx.sym.Pooling(c2, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", layout="NHWC",
                        name="avgpool")
    g = mx.sym.Pooling(p1 + p2, global_pool=True, pool_type="avg", kernel=(1, 1), layout="NHWC", name="gpool")
    y = mx.sym.FullyConnected(mx.sym.flatten(g), num_hidden=5, name="fc")
    return y, {"data": (2, 3, 9, 10)}


# Every family of MXNet's gluon model zoo, at the smallest input its fixed-size final pooling
# allows (DenseNet and SqueezeNet end in 7x7/13x13 pools, so 224; Inception v3 in an 8x8 pool,
# so 299) and the smallest member of each family (the test checks the op set and the wiring,
# which the members of a family share).
ZOO = [("resnet18_v1", vision.resnet18_v1, (2, 3, 64, 64)), ("resnet50_v1", vision.resnet50_v1, (2, 3, 64, 64)),
       ("resnet18_v2", vision.resnet18_v2, (2, 3, 64, 64)),
       ("mobilenet0.25", vision.mobilenet0_25, (2, 3, 64, 64)),
       ("mobilenetv2_0.25", vision.mobilenet_v2_0_25, (2, 3, 64, 64)),
       ("vgg11_bn", vision.vgg11_bn, (2, 3, 64, 64)), ("alexnet", vision.alexnet, (2, 3, 64, 64)),
       ("densenet121", vision.densenet121, (1, 3, 224, 224)),
       ("squeezenet1.1", vision.squeezenet1_1, (1, 3, 224, 224)),
       ("inception_v3", vision.inception_v3, (1, 3, 299, 299))]

# Gradients with more elements than this are stored as a fixed random sample of their entries
# (plus the whole tensor's largest magnitude), so that the references of the nets with
# 4096x4096 Dense layers stay small; the parameters themselves are stored whole.
GRAD_SAMPLE = 1 << 14


def without_dropout(sym):
    """The same graph with every Dropout's p set to 0: MXNet's and symnet's random masks cannot
    agree, so the training-mode references of nets with Dropout are made with it off."""
    graph = json.loads(sym.tojson())
    for node in graph["nodes"]:
        if node["op"] == "Dropout":
            node.setdefault("attrs", {})["p"] = "0"
    return mx.sym.load_json(json.dumps(graph))


def seq_ops():
    """Embedding of the label integers 0..9 into 8 rows (8 and 9 clip to the last row), SequenceMask
    and SequenceLast with lengths from the labels' first row clipped into [1, T] (MXNet reads
    outside the array for other lengths), SequenceLast along axis 1, and SoftmaxActivation in both
    modes (instance on 2-D data only: MXNet 1.9.1's CPU forward and backward disagree on N-D)."""
    tok = mx.sym.Variable("tok_label")  # (5, 4): time, batch
    lens = mx.sym.clip(mx.sym.reshape(mx.sym.slice_axis(tok, axis=0, begin=0, end=1), shape=(-1,)), 1, 5)
    emb = mx.sym.Embedding(tok, input_dim=8, output_dim=6, name="emb")  # (5, 4, 6)
    masked = mx.sym.SequenceMask(emb, lens, use_sequence_length=True, value=-1.0, name="mask")
    last = mx.sym.SequenceLast(masked * 2.0, lens, use_sequence_length=True, name="last")  # (4, 6)
    fc = mx.sym.FullyConnected(last, num_hidden=3, name="fc")
    probs = mx.sym.SoftmaxActivation(fc, name="probs")
    chan = mx.sym.SoftmaxActivation(mx.sym.transpose(masked, axes=(1, 2, 0)), mode="channel", name="chan")
    final = mx.sym.SequenceLast(mx.sym.swapaxes(emb, 0, 1), axis=1, name="final")
    return mx.sym.Group([masked, probs, chan, final]), {"tok_label": (5, 4)}


def rnn_ops():
    """The fused RNN op in every mode with MXNet's packed parameters: a 2-layer bidirectional LSTM
    with its final states as outputs, a GRU on its output, a 2-layer tanh RNN on that, and a
    bidirectional ReLU RNN on the input."""
    x = mx.sym.Variable("data")  # (time, batch, features)
    lstm = mx.sym.RNN(x, state_size=3, num_layers=2, bidirectional=True, mode="lstm", state_outputs=True,
                      name="lstm")
    gru = mx.sym.RNN(lstm[0], state_size=4, num_layers=1, mode="gru", name="gru")
    tanh = mx.sym.RNN(gru, state_size=3, num_layers=2, mode="rnn_tanh", state_outputs=True, name="tanh")
    relu = mx.sym.RNN(x, state_size=3, num_layers=1, bidirectional=True, mode="rnn_relu", name="relu")
    return mx.sym.Group([lstm[1], lstm[2], tanh[0], tanh[1], relu]), {"data": (5, 3, 4)}


def pad_crop_resize(twin=False):
    """Pad in each mode, Crop (h_w at an offset; centred on a crop_like), contrib.BilinearResize2D
    (size with both corner rules, scales, like), lp Pooling (p=2, and p=3 on positive data) and
    1-D max Pooling with pooling_convention 'same'. MXNet 1.9.1 saves 'same' but cannot run it
    (its shape check reads pad[1] of a 1-D pad; oneDNN refuses the window), so the `twin` graph
    computes it as a valid pooling of the data padded at the end with -1e30."""
    x = mx.sym.Variable("data")  # (2, 3, 6, 7)
    c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv")  # (2, 4, 6, 7)
    reflect = mx.sym.Pad(c, mode="reflect", pad_width=(0, 0, 0, 0, 2, 1, 1, 3), name="pad_reflect")
    edge = mx.sym.pad(c, mode="edge", pad_width=(0, 0, 0, 0, 1, 0, 2, 2), name="pad_edge")
    const = mx.sym.Pad(c, mode="constant", pad_width=(0, 0, 0, 0, 0, 2, 1, 1), constant_value=0.5,
                       name="pad_const")
    box = mx.sym.Crop(reflect, h_w=(5, 6), offset=(1, 2), num_args=1, name="crop_box")  # (2, 4, 5, 6)
    centre = mx.sym.Crop(edge, c, center_crop=True, name="crop_centre")  # (2, 4, 6, 7)
    up = mx.sym.contrib.BilinearResize2D(box, height=8, width=5, name="resize_size")
    down = mx.sym.contrib.BilinearResize2D(const, scale_height=0.5, scale_width=0.7, align_corners=False,
                                           name="resize_scale")
    like = mx.sym.contrib.BilinearResize2D(centre, box, mode="like", align_corners=False, name="resize_like")
    lp2 = mx.sym.Pooling(reflect, kernel=(3, 3), stride=(2, 2), pool_type="lp", p_value=2, name="lp2")
    lp3 = mx.sym.Pooling(mx.sym.abs(edge) + 0.5, kernel=(2, 2), pad=(1, 1), pool_type="lp", p_value=3,
                         name="lp3")
    rows = mx.sym.reshape(c, shape=(2, 24, 7))
    if twin:
        padded = mx.sym.Pad(mx.sym.reshape(rows, shape=(2, 24, 1, 7)), mode="constant",
                            pad_width=(0, 0, 0, 0, 0, 0, 0, 2), constant_value=-1e30)
        same = mx.sym.reshape(mx.sym.Pooling(padded, kernel=(1, 3), stride=(1, 2), pool_type="max"),
                              shape=(2, 24, 4))
    else:
        same = mx.sym.Pooling(rows, kernel=(3,), stride=(2,), pool_type="max", pooling_convention="same",
                              name="same_pool")
    return mx.sym.Group([up, down, like, lp2, lp3, same]), {"data": (2, 3, 6, 7)}


def ctc():
    """ctc_loss on FullyConnected outputs over a sequence (10 steps, 4 sequences, 11 symbols with
    the blank): the labels 0..9 with blank 'first' (a 0 ends the label), the same labels less one
    with blank 'last' (-1 ends them) and sequence lengths 6..9, and through contrib.CTCLoss the
    labels clipped into 1..9 with label lengths 0..4; both lengths come from the labels' first
    column. The labels give no gradient."""
    x, tok = mx.sym.Variable("data"), mx.sym.Variable("tok_label")
    n = mx.sym.reshape(mx.sym.slice_axis(tok, axis=1, begin=0, end=1), shape=(-1,))  # (4,) in 0..9
    act = mx.sym.FullyConnected(x, num_hidden=11, flatten=False, name="fc")  # (10, 4, 11)
    act2 = mx.sym.FullyConnected(x, num_hidden=10, flatten=False, name="fc2")
    first = mx.sym.ctc_loss(act, tok, name="ctc_first")
    last = mx.sym.ctc_loss(act, tok - 1, data_lengths=mx.sym.clip(n, 6, 9), use_data_lengths=True,
                           blank_label="last", name="ctc_last")
    lens = mx.sym.contrib.CTCLoss(act2, mx.sym.clip(tok, 1, 9), label_lengths=mx.sym.clip(n, 0, 4),
                                  use_label_lengths=True, name="ctc_lens")
    return mx.sym.Group([first, last, lens]), {"data": (10, 4, 5), "tok_label": (4, 4)}


def deconv_upsampling():
    """A small segmentation-like head: a convolution, then a grouped stride-2 Deconvolution with
    adj and bias, a target_shape Deconvolution, nearest UpSampling of two inputs (concat) and
    bilinear UpSampling (a depthwise deconvolution with its weight an argument). The target_shape
    is the natural size: MXNet 1.9.1's oneDNN deconvolution cannot create the primitive for some
    target_shape paddings after a pooling (tests/python/test_operator_deconv.py covers them)."""
    x = mx.sym.Variable("data")  # (2, 3, 6, 6)
    c = mx.sym.Activation(mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv"),
                          act_type="relu")
    pooled = mx.sym.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="max")  # (2, 4, 3, 3)
    up2 = mx.sym.Deconvolution(c, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1), num_filter=6,
                               num_group=2, no_bias=False, name="deconv")  # (2, 6, 12, 12)
    target = mx.sym.Deconvolution(pooled, kernel=(4, 4), stride=(2, 2), target_shape=(8, 8), num_filter=3,
                                  name="deconv_target")  # (2, 3, 8, 8)
    nearest = mx.sym.UpSampling(c, pooled, scale=2, sample_type="nearest", num_args=2,
                                name="up_nearest")  # (2, 8, 12, 12)
    bilinear = mx.sym.UpSampling(c, scale=2, sample_type="bilinear", num_filter=4, name="up_bilinear")
    return mx.sym.Group([up2, target, nearest, bilinear]), {"data": (2, 3, 6, 6)}


def _label_boxes(lab, scale_x, scale_y, scale_w, scale_h):
    """Corner boxes from integer label columns (c0, c1, c2, c3): scales that are exact in binary,
    so both frameworks round the same coordinates (ROIPooling rounds halves away from zero)."""
    col = [mx.sym.slice_axis(lab, axis=-1, begin=i, end=i + 1) for i in range(4)]
    x1, y1 = col[0] * scale_x, col[1] * scale_y
    return x1, y1, x1 + col[2] * scale_w + 1, y1 + col[3] * scale_h + 1


def roi_heads():
    """Two-stage detector heads on fixed ROIs: a convolution's features pooled by ROIAlign
    (a fixed sample grid, aligned with an adaptive grid, position-sensitive) and ROIPooling; the
    ROIs come from label integers (batch index = c1 mod 2), partly past the 8x8 map."""
    x = mx.sym.Variable("data")  # (2, 3, 8, 8)
    feat = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv")
    ps_feat = mx.sym.Convolution(x, kernel=(1, 1), num_filter=8, name="psconv")
    lab = mx.sym.Variable("roi_label")  # (5, 4)
    x1, y1, x2, y2 = _label_boxes(lab, 0.75, 0.625, 0.875, 0.75)
    batch = mx.sym.slice_axis(lab, axis=-1, begin=1, end=2) % 2
    rois = mx.sym.Concat(batch, x1, y1, x2, y2, dim=1, name="rois")
    ra = mx.sym.contrib.ROIAlign(feat, rois, pooled_size=(2, 2), spatial_scale=0.5, sample_ratio=2, name="ra")
    ra2 = mx.sym.contrib.ROIAlign(feat, rois, pooled_size=(3, 3), spatial_scale=0.5, aligned=True, name="ra2")
    ps = mx.sym.contrib.ROIAlign(ps_feat, rois, pooled_size=(2, 2), spatial_scale=0.5, position_sensitive=True,
                                 name="psra")
    rp = mx.sym.ROIPooling(feat, rois, pooled_size=(3, 2), spatial_scale=0.5, name="rp")
    return mx.sym.Group([ra, ra2, ps, rp]), {"data": (2, 3, 8, 8), "roi_label": (5, 4)}


def box_ops():
    """box_nms per class (valid_thresh, topk) and across classes (centre output), box_iou between
    the batches' boxes and one batch's, and bipartite_matching of those overlaps. Boxes: label
    integers (exact) moved by 0.05 * a data input (the gradient box_nms sends back); scores: the
    sigmoid of a per-box FC of another."""
    lab = mx.sym.Variable("box_label")  # (2, 8, 4)
    x1, y1, x2, y2 = _label_boxes(lab, 0.125, 0.125, 0.125, 0.125)
    boxes = mx.sym.Concat(x1, y1, x2, y2, dim=2) + 0.05 * mx.sym.Variable("delta")  # (2, 8, 4)
    score = mx.sym.sigmoid(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=1, flatten=False,
                                                 name="score_fc"))  # (2, 8, 1)
    cls = mx.sym.slice_axis(lab, axis=-1, begin=0, end=1) % 3
    rows = mx.sym.Concat(cls, score, boxes, dim=2)
    nms = mx.sym.contrib.box_nms(rows, overlap_thresh=0.4, valid_thresh=0.3, topk=6, id_index=0, name="nms")
    nms2 = mx.sym.contrib.box_non_maximum_suppression(rows, overlap_thresh=0.3, force_suppress=True, id_index=0,
                                                      out_format="center", name="nms2")
    iou = mx.sym.contrib.box_iou(boxes, mx.sym.reshape(mx.sym.slice_axis(boxes, axis=0, begin=0, end=1),
                                                       shape=(-1, 4)), name="iou")  # (2, 8, 8)
    match = mx.sym.contrib.bipartite_matching(iou, threshold=0.2, name="match")
    return (mx.sym.Group([nms, nms2, iou, match[0], match[1]]),
            {"box_label": (2, 8, 4), "delta": (2, 8, 4), "data": (2, 8, 3)})


def ssd_head():
    """An SSD head on a convolution's feature map: MultiBoxPrior (clipped, 3 ratios), MultiBoxTarget
    with hard-negative mining against ground truths built in the graph (classes from the label
    integers, corners sorted from sigmoids of a box input), and MultiBoxDetection on the softmaxed
    class scores. The raw class scores are an output too, so the convolutions get gradients;
    the detection ops give their inputs none."""
    data = mx.sym.Variable("data")  # (2, 3, 4, 4)
    feat = mx.sym.Activation(mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=4, name="feat"),
                             act_type="relu")
    anchors = mx.sym.contrib.MultiBoxPrior(feat, sizes=(0.5, 0.3), ratios=(1, 2, 0.5), clip=True,
                                           name="prior")  # (1, 64, 4)
    cls = mx.sym.Convolution(feat, kernel=(3, 3), pad=(1, 1), num_filter=12, name="cls")  # 4 anchors x 3
    cls_pred = mx.sym.transpose(mx.sym.reshape(mx.sym.transpose(cls, axes=(0, 2, 3, 1)), shape=(0, -1, 3)),
                                axes=(0, 2, 1))  # (2, 3, 64)
    loc = mx.sym.Convolution(feat, kernel=(3, 3), pad=(1, 1), num_filter=16, name="loc")
    loc_pred = mx.sym.Flatten(mx.sym.transpose(loc, axes=(0, 2, 3, 1)))  # (2, 256)
    # MXNet 1.9.1 leaves the gradient behind MultiBoxTarget's label unwritten (whatever the buffer
    # held, up to 1e21 in one CI run): BlockGrad makes it a defined zero in both frameworks
    corners = mx.sym.sigmoid(mx.sym.BlockGrad(mx.sym.Variable("gt_box")))  # (2, 3, 4)
    xy0 = mx.sym.slice_axis(corners, axis=2, begin=0, end=2)
    xy1 = mx.sym.slice_axis(corners, axis=2, begin=2, end=4)
    cls_id = mx.sym.Variable("gt_label") % 2  # (2, 3, 1)
    label = mx.sym.Concat(cls_id, mx.sym.broadcast_minimum(xy0, xy1), mx.sym.broadcast_maximum(xy0, xy1),
                          dim=2, name="gt")
    tgt = mx.sym.contrib.MultiBoxTarget(anchors, label, cls_pred, overlap_threshold=0.4, negative_mining_ratio=2,
                                        name="target")
    det = mx.sym.contrib.MultiBoxDetection(mx.sym.softmax(cls_pred, axis=1), loc_pred, anchors,
                                           nms_threshold=0.45, name="det")
    return mx.sym.Group([tgt[0], tgt[1], tgt[2], det, cls_pred]), {"data": (2, 3, 4, 4), "gt_box": (2, 3, 4),
                                                                   "gt_label": (2, 3, 1)}


def rpn_proposal():
    """A Faster R-CNN RPN: convolutions give the anchor scores (a 2-way softmax over channel
    pairs, as in the classic symbol) and box offsets; Proposal on the first image and
    MultiProposal on both, with im_info made in the graph (the map covers the image, so no cell
    is padding, and a small rpn_min_size keeps every box: no tied -1 scores). The scores are an
    output too, so the convolutions get gradients; the proposals give their inputs none."""
    data = mx.sym.Variable("data")  # (2, 4, 5, 6)
    feat = mx.sym.Activation(mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=8, name="rpn_conv"),
                             act_type="relu")
    score = mx.sym.Convolution(feat, kernel=(1, 1), num_filter=6, name="rpn_cls")  # 3 anchors x 2
    prob = mx.sym.Reshape(mx.sym.SoftmaxActivation(mx.sym.Reshape(score, shape=(0, 2, -1, 0)), mode="channel"),
                          shape=(0, 6, -1, 0))
    bbox = mx.sym.Convolution(feat, kernel=(1, 1), num_filter=12, name="rpn_bbox") * 0.5

    def im_info(n):
        return mx.sym.Concat(mx.sym.full(shape=(n, 1), val=80.0), mx.sym.full(shape=(n, 1), val=96.0),
                             mx.sym.ones(shape=(n, 1)), dim=1)
    kw = dict(scales=(2,), ratios=(0.5, 1, 2), feature_stride=16, rpn_pre_nms_top_n=60, rpn_post_nms_top_n=12,
              threshold=0.6, rpn_min_size=2)
    first = [mx.sym.slice_axis(x, axis=0, begin=0, end=1) for x in (prob, bbox)]
    one = mx.sym.contrib.Proposal(first[0], first[1], im_info(1), output_score=True, name="proposal", **kw)
    multi = mx.sym.contrib.MultiProposal(prob, bbox, im_info(2), name="multi_proposal", **kw)
    return mx.sym.Group([one[0], one[1], multi, score]), {"data": (2, 4, 5, 6)}


def gluon(name, builder, shape):
    def make():
        net = builder(classes=10)
        net.initialize(mx.init.Xavier(magnitude=2))
        net.hybridize()
        net(mx.nd.zeros(shape))
        tmp = os.path.join(OUT, "_export_" + name)
        net.export(tmp)
        sym = mx.sym.load(tmp + "-symbol.json")
        params = mx.nd.load(tmp + "-0000.params")
        os.remove(tmp + "-symbol.json")
        os.remove(tmp + "-0000.params")
        return sym, {"data": shape}, params
    return make


def random_params(sym, shapes):
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    params = {}
    for n, s in zip(sym.list_arguments(), arg_shapes):
        if n in shapes:
            continue
        fan_in = int(np.prod(s[1:])) if len(s) > 1 else 1
        params["arg:" + n] = mx.nd.array(RNG.normal(0, np.sqrt(2.0 / fan_in), s) if n.endswith("weight")
                                         else RNG.uniform(0.5, 1.5, s) if n.endswith("gamma")
                                         # the fused RNN's packed weights and its initial states
                                         else RNG.uniform(-0.6, 0.6, s) if n.endswith(("parameters", "state",
                                                                                       "state_cell"))
                                         else RNG.normal(0, 0.1, s))
    for n, s in zip(sym.list_auxiliary_states(), aux_shapes):
        params["aux:" + n] = mx.nd.array(RNG.uniform(0.5, 1.5, s) if n.endswith("var") else RNG.normal(0, 0.2, s))
    return params


def store_gradient(ref, name, g, rng):
    """ref["grad:<name>"] = g, or for a large g a fixed random sample of its entries
    (gradidx:, gradsample:) and its largest magnitude (gradmax:)."""
    if g.size <= GRAD_SAMPLE:
        ref["grad:" + name] = g
        return
    idx = np.sort(rng.choice(g.size, GRAD_SAMPLE, replace=False)).astype(np.int32)
    ref["gradidx:" + name], ref["gradsample:" + name] = idx, g.reshape(-1)[idx]
    ref["gradmax:" + name] = np.abs(g).max()


def run_model(name, sym, shapes, params, run_sym=None):
    """Writes OUT/name: the files a user would have (`sym`), and the reference results, computed
    by `run_sym` (an equivalent graph MXNet can run) when given."""
    run_sym = sym if run_sym is None else run_sym
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    # gluon's fresh BatchNorm statistics are 0/1: make them informative for the inference check
    for k in list(params):
        if k.startswith("aux:"):
            s = params[k].shape
            params[k] = mx.nd.array(RNG.uniform(0.5, 1.5, s) if "var" in k else RNG.normal(0, 0.2, s))
    sym.save(os.path.join(d, "symbol.json"))
    mx.nd.save(os.path.join(d, "model.params"), params)
    inputs = {}
    for n, s in shapes.items():
        label = n.endswith("label")
        inputs[n] = (RNG.randint(0, 10, s) if label else RNG.normal(size=s)).astype(np.float32)
    exe = run_sym.simple_bind(mx.cpu(), grad_req={n: ("null" if n.endswith("label") else "write")
                                                 for n in run_sym.list_arguments()}, **shapes)
    for k, v in params.items():
        kind, n = k.split(":", 1)
        (exe.arg_dict if kind == "arg" else exe.aux_dict)[n][:] = v
    for n, v in inputs.items():
        exe.arg_dict[n][:] = v
    ref = {"input:" + n: v for n, v in inputs.items()}
    exe.forward(is_train=False)
    for i, o in enumerate(exe.outputs):
        ref["out_infer:%d" % i] = o.asnumpy()
    exe.forward(is_train=True)
    heads = [RNG.normal(size=o.shape).astype(np.float32) for o in exe.outputs]
    exe.backward([mx.nd.array(h) for h in heads])
    for i, (o, h) in enumerate(zip(exe.outputs, heads)):
        ref["out_train:%d" % i] = o.asnumpy()
        ref["head_grad:%d" % i] = h
    for n, g in exe.grad_dict.items():
        if g is None:
            continue
        store_gradient(ref, n, g.asnumpy(), RNG)
    for n, a in exe.aux_dict.items():
        ref["aux:" + n] = a.asnumpy()
    np.savez(os.path.join(d, "ref.npz"), **ref)
    return {"outputs": len(exe.outputs), "arguments": len(sym.list_arguments()),
            "aux": len(sym.list_auxiliary_states())}


def sgd_refs():
    w, g, m = (RNG.normal(size=(64,)).astype(np.float32) for _ in range(3))
    kw = dict(lr=0.05, momentum=0.9, wd=1e-3, rescale_grad=1.0 / 32, clip_gradient=0.02)
    weight, mom = mx.nd.array(w), mx.nd.array(m)
    mx.nd.sgd_mom_update(weight, mx.nd.array(g), mom, out=weight, **kw)
    w16, mom32 = mx.nd.array(w, dtype="float16"), mx.nd.array(m)
    w32 = mx.nd.array(w.astype(np.float16), dtype="float32")
    mx.nd.mp_sgd_mom_update(w16, mx.nd.array(g, dtype="float16"), mom32, w32, out=w16, **kw)
    np.savez(os.path.join(OUT, "sgd.npz"), w=w, g=g, m=m, params=json.dumps(kw),
             sgd_weight=weight.asnumpy(), sgd_mom=mom.asnumpy(),
             mp_weight16=w16.asnumpy(), mp_weight32=w32.asnumpy(), mp_mom=mom32.asnumpy())


def _png_bytes(img):
    """An RGB uint8 image as PNG bytes (written here: the venv has neither cv2 nor Pillow, and
    MXNet's imdecode reads PNG; lossless, so both frameworks decode the same pixels)."""
    import struct
    import zlib
    h, w, _ = img.shape

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + np.ascontiguousarray(img[y]).tobytes() for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def _aug_value(v):
    """A JSON-stored augmenter argument: {"nd": list} an NDArray, {"np": list} a numpy array,
    a list a tuple (sizes, ranges)."""
    if isinstance(v, dict) and "nd" in v:
        return mx.nd.array(v["nd"])
    if isinstance(v, dict) and "np" in v:
        return np.array(v["np"])
    if isinstance(v, list):
        return tuple(v)
    return v


def _smooth_image(rng, h, w):
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack([xx * 255.0 / w, yy * 255.0 / h, (xx + yy) * 127.0 / (w + h) + 60], axis=-1)
    return np.clip(base + rng.normal(0, 30, (h, w, 3)), 0, 255).astype(np.uint8)


_EIG = {"eigval": {"np": [55.46, 4.794, 1.148]},
        "eigvec": {"np": [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]]}}
# (case name, augmenter class, kwargs, float32 input, seed, calls): each call augments a fresh
# copy of the image after random.seed(seed) and np.random.seed(seed) (once, before the first)
IMAGE_AUG_CASES = [("force_resize_%d" % i, "ForceResizeAug", {"size": [20, 14], "interp": i}, False, 0, 1)
                   for i in range(5)] + [
    ("force_resize_up_bicubic", "ForceResizeAug", {"size": [45, 37], "interp": 2}, False, 0, 1),
    ("force_resize_auto", "ForceResizeAug", {"size": [45, 17], "interp": 9}, False, 0, 1),
    ("resize_short", "ResizeAug", {"size": 18, "interp": 1}, False, 0, 1),
    ("resize_short_random_interp", "ResizeAug", {"size": 18, "interp": 10}, False, 3, 4),
    ("center_crop", "CenterCropAug", {"size": [16, 12]}, False, 0, 1),
    ("center_crop_up", "CenterCropAug", {"size": [40, 50], "interp": 0}, False, 0, 1),
    ("random_crop", "RandomCropAug", {"size": [16, 16]}, False, 1, 4),
    ("random_crop_up", "RandomCropAug", {"size": [30, 50], "interp": 0}, False, 1, 2),
    ("random_sized_crop", "RandomSizedCropAug", {"size": [16, 16], "area": 0.3, "ratio": [0.75, 1.333],
                                                 "interp": 0}, False, 2, 4),
    ("random_sized_crop_range", "RandomSizedCropAug", {"size": [12, 17], "area": [0.1, 0.5],
                                                       "ratio": [0.5, 2.0], "interp": 0}, False, 5, 4),
    ("flip_always", "HorizontalFlipAug", {"p": 1.0}, False, 0, 1),
    ("flip_half", "HorizontalFlipAug", {"p": 0.5}, False, 4, 6),
    ("cast", "CastAug", {}, False, 0, 1),
    ("cast_float64", "CastAug", {"typ": "float64"}, False, 0, 1),
    ("brightness", "BrightnessJitterAug", {"brightness": 0.4}, True, 6, 3),
    ("contrast", "ContrastJitterAug", {"contrast": 0.4}, True, 7, 3),
    ("saturation", "SaturationJitterAug", {"saturation": 0.4}, True, 8, 3),
    ("hue", "HueJitterAug", {"hue": 0.4}, True, 9, 3),
    ("color_jitter", "ColorJitterAug", {"brightness": 0.3, "contrast": 0.3, "saturation": 0.3}, True, 10, 4),
    ("lighting", "LightingAug", dict({"alphastd": 0.5}, **_EIG), True, 11, 3),
    ("gray_always", "RandomGrayAug", {"p": 1.0}, True, 0, 1),
    ("gray_half", "RandomGrayAug", {"p": 0.5}, True, 12, 6),
    ("normalize", "ColorNormalizeAug", {"mean": {"nd": [123.68, 116.28, 103.53]},
                                        "std": {"nd": [58.395, 57.12, 57.375]}}, True, 0, 1),
    ("normalize_mean_only", "ColorNormalizeAug", {"mean": {"np": [100.0, 110.0, 120.0]}, "std": None}, True, 0, 1),
]
# CreateAugmenter's lists: (name, kwargs, seed, calls); data_shape (3, 16, 16)
CREATE_AUGMENTER_CASES = [
    ("default", {}, 0, 1),
    ("everything", {"resize": 20, "rand_crop": True, "rand_resize": True, "rand_mirror": True, "mean": True,
                    "std": True, "brightness": 0.2, "contrast": 0.2, "saturation": 0.2, "hue": 0.1,
                    "pca_noise": 0.1, "rand_gray": 0.3, "inter_method": 0}, 13, 4),
    ("crop_mirror_jitter", {"rand_crop": True, "rand_mirror": True, "brightness": 0.3, "contrast": 0.3,
                            "mean": {"np": [120.0, 115.0, 100.0]}, "std": {"np": [60.0, 55.0, 50.0]}}, 14, 4),
    ("random_interp", {"resize": 24, "rand_crop": True, "inter_method": 10, "rand_gray": 0.5}, 15, 4),
]
# ImageIter over the PNG records written here: (name, kwargs, seed, epochs); paths are filled in
IMAGE_ITER_CASES = [
    ("center_pad", {"batch_size": 3, "data_shape": [3, 16, 16], "idx": True}, 0, 2),
    ("sequential_resize", {"batch_size": 4, "data_shape": [3, 14, 14], "resize": 18, "inter_method": 1}, 0, 2),
    ("discard_part", {"batch_size": 2, "data_shape": [3, 16, 16], "idx": True, "num_parts": 2, "part_index": 1,
                      "last_batch_handle": "discard"}, 0, 2),
    ("shuffle_augment_roll_over", {"batch_size": 3, "data_shape": [3, 16, 16], "idx": True, "shuffle": True,
                                   "rand_crop": True, "rand_mirror": True, "brightness": 0.2, "saturation": 0.2,
                                   "pca_noise": 0.1, "mean": True, "std": True,
                                   "last_batch_handle": "roll_over"}, 21, 3),
    ("image_files_two_labels", {"batch_size": 4, "data_shape": [3, 16, 16], "list": True, "label_width": 2,
                                "rand_crop": True, "contrast": 0.3}, 22, 2),
]


def image_aug_refs():
    """MXNet's augmenters (IMAGE_AUG_CASES), CreateAugmenter's lists and ImageIter (on PNG
    records and files written into OUT/image_aug/) on fixed images, each seeded the way MXNet
    draws: Python's random (crops, flips, jitter, order, interp=10, shuffle) and numpy's global
    generator (LightingAug). OUT/image_aug.npz holds the inputs and outputs, OUT/image_aug.json
    the cases, dumps() strings, pads and shapes."""
    import random
    rng = np.random.RandomState(31)
    folder = os.path.join(OUT, "image_aug")
    os.makedirs(os.path.join(folder, "files"), exist_ok=True)
    arrays = {}
    inputs = [_smooth_image(rng, 30, 38), _smooth_image(rng, 41, 27)]
    for k, img in enumerate(inputs):
        arrays["input:%d" % k] = img
    meta = {"aug_cases": [], "create_cases": [], "iter_cases": []}
    for name, cls, kw, as_float, seed, calls in IMAGE_AUG_CASES:
        aug = getattr(mx.image, cls)(**{k: _aug_value(v) for k, v in kw.items()})
        random.seed(seed)
        np.random.seed(seed)
        for c in range(calls):
            src = inputs[c % 2]
            x = mx.nd.array(src, dtype="float32" if as_float else "uint8")
            out = aug(x)
            arrays["aug:%s:%d" % (name, c)] = out.asnumpy()
        meta["aug_cases"].append({"name": name, "class": cls, "kwargs": kw, "float": as_float, "seed": seed,
                                  "calls": calls, "dumps": aug.dumps()})
    for name, kw, seed, calls in CREATE_AUGMENTER_CASES:
        augs = mx.image.CreateAugmenter((3, 16, 16), **{k: _aug_value(v) for k, v in kw.items()})
        random.seed(seed)
        np.random.seed(seed)
        for c in range(calls):
            x = mx.nd.array(inputs[c % 2], dtype="uint8")
            for a in augs:
                x = a(x)
            arrays["create:%s:%d" % (name, c)] = x.asnumpy()
        meta["create_cases"].append({"name": name, "kwargs": kw, "seed": seed, "calls": calls,
                                     "dumps": [a.dumps() for a in augs]})
    # 11 PNG images: records (labels: one value, and two in the list file) and files
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(folder, "images.idx"), os.path.join(folder, "images.rec"), "w")
    lst = []
    for i in range(11):
        img = _smooth_image(rng, 18 + (i * 5) % 13, 17 + (i * 7) % 11)
        png = _png_bytes(img)
        rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i % 4), i, 0), png))
        with open(os.path.join(folder, "files", "img%d.png" % i), "wb") as f:
            f.write(png)
        lst.append("%d\t%f\t%f\tfiles/img%d.png\n" % (i, i % 4, 0.5 * i, i))
    rec.close()
    with open(os.path.join(folder, "images.lst"), "w") as f:
        f.writelines(lst)
    for name, kw, seed, epochs in IMAGE_ITER_CASES:
        args = {k: _aug_value(v) for k, v in kw.items() if k not in ("idx", "list")}
        if kw.get("list"):
            args.update(path_imglist=os.path.join(folder, "images.lst"), path_root=folder)
        else:
            args["path_imgrec"] = os.path.join(folder, "images.rec")
            if kw.get("idx"):
                args["path_imgidx"] = os.path.join(folder, "images.idx")
        random.seed(seed)
        np.random.seed(seed)
        it = mx.image.ImageIter(**args)
        pads = []
        for e in range(epochs):
            pads.append([])
            for b, batch in enumerate(it):
                arrays["iter:%s:%d:%d:data" % (name, e, b)] = batch.data[0].asnumpy()
                arrays["iter:%s:%d:%d:label" % (name, e, b)] = batch.label[0].asnumpy()
                pads[-1].append(batch.pad)
            it.reset()
        meta["iter_cases"].append({"name": name, "kwargs": kw, "seed": seed, "epochs": epochs, "pads": pads})
    np.savez(os.path.join(OUT, "image_aug.npz"), **arrays)
    with open(os.path.join(OUT, "image_aug.json"), "w") as f:
        json.dump(meta, f)


def _batch_record(batch):
    rec = {"data": [d.asnumpy().tolist() for d in batch.data], "pad": int(batch.pad or 0),
           "label": [l.asnumpy().tolist() for l in batch.label] if batch.label else []}
    if batch.index is not None:
        rec["index"] = [int(v) for v in batch.index]
    return rec


def data_iter_refs():
    """CSVIter (round_batch both ways, dtypes, label shapes, a folder of files, a batch larger
    than the file), ResizeIter and PrefetchingIter over them: every batch of several epochs
    (reset after each), with pads and indices, in OUT/data_iters.json; the CSV files are in
    OUT/data_iters/."""
    folder = os.path.join(OUT, "data_iters")
    os.makedirs(os.path.join(folder, "parts"), exist_ok=True)
    rng = np.random.RandomState(5)
    data = np.round(rng.uniform(-50, 50, (7, 6)), 2)
    files = {"data.csv": data, "label1.csv": np.arange(7)[:, None] + 100.0,
             "label2.csv": np.arange(14).reshape(7, 2) * 3.0, "other.csv": np.round(rng.uniform(0, 9, (7, 4)), 1)}
    for fname, arr in files.items():
        np.savetxt(os.path.join(folder, fname), arr, delimiter=",", fmt="%g")
    np.savetxt(os.path.join(folder, "parts", "a.csv"), data[:3], delimiter=",", fmt="%g")
    np.savetxt(os.path.join(folder, "parts", "b.csv"), data[3:], delimiter=",", fmt="%g")
    # values MXNet's own number reader rounds its way (not always to the nearest float32)
    with open(os.path.join(folder, "tricky.csv"), "w") as f:
        f.write("1.84,1e-3,2.5E2,+3,-0.1,123456.789\n0.30000001192092896, 12 ,.5,5.,1.000000000000000000001,-1.5e+3\n"
                "9.87654321e-5,16777217,7e-45,0.7,3.3e7,-0\n")
    with open(os.path.join(folder, "ints.csv"), "w") as f:
        f.write("1.7,5e1,-2.9\n+3,007,-12\n")

    def csv(**kw):
        kw = dict(kw)
        for key in ("data_csv", "label_csv"):
            if key in kw:
                kw[key] = os.path.join(folder, kw[key])
        return mx.io.CSVIter(**kw)

    csv_cases = [
        ("round_batch", {"data_csv": "data.csv", "data_shape": [2, 3], "label_csv": "label1.csv", "batch_size": 3}),
        ("no_round_batch", {"data_csv": "data.csv", "data_shape": [6], "label_csv": "label1.csv", "batch_size": 3,
                            "round_batch": False}),
        ("int32_label_shape", {"data_csv": "data.csv", "data_shape": [3, 2], "label_csv": "label2.csv",
                               "label_shape": [2], "batch_size": 2, "dtype": "int32"}),
        ("int64_no_label", {"data_csv": "data.csv", "data_shape": [6], "batch_size": 4, "dtype": "int64"}),
        ("batch_over_rows", {"data_csv": "data.csv", "data_shape": [6], "batch_size": 8}),
        ("folder", {"data_csv": "parts", "data_shape": [6], "batch_size": 4, "round_batch": False}),
        ("exact", {"data_csv": "data.csv", "data_shape": [6], "batch_size": 7}),
        ("tricky_numbers", {"data_csv": "tricky.csv", "data_shape": [6], "batch_size": 3}),
        ("integer_truncation", {"data_csv": "ints.csv", "data_shape": [3], "batch_size": 2, "dtype": "int32"}),
    ]
    results = {"csv": [], "resize": [], "prefetch": []}

    def epochs(it, n):
        out = []
        for _ in range(n):
            out.append([_batch_record(b) for b in it])
            it.reset()
        return out

    for name, kw in csv_cases:
        it = csv(**kw)
        results["csv"].append({"name": name, "kwargs": kw, "provide_data": [[d.name, list(d.shape)] for d in
                                                                             it.provide_data],
                               "provide_label": [[d.name, list(d.shape)] for d in it.provide_label],
                               "epochs": epochs(it, 4)})
    resize_cases = [("longer", {"data_csv": "data.csv", "data_shape": [6], "batch_size": 3}, 5, True),
                    ("shorter_no_reset", {"data_csv": "data.csv", "data_shape": [6], "batch_size": 2,
                                          "round_batch": False}, 2, False),
                    ("longer_no_reset", {"data_csv": "data.csv", "data_shape": [6], "batch_size": 3}, 4, False)]
    for name, kw, size, reset_internal in resize_cases:
        it = mx.io.ResizeIter(csv(**kw), size, reset_internal=reset_internal)
        results["resize"].append({"name": name, "kwargs": kw, "size": size, "reset_internal": reset_internal,
                                  "epochs": epochs(it, 3)})
    a = {"data_csv": "data.csv", "data_shape": [6], "label_csv": "label1.csv", "batch_size": 3}
    b = {"data_csv": "other.csv", "data_shape": [4], "label_csv": "label2.csv", "label_shape": [2],
         "batch_size": 3}
    it = mx.io.PrefetchingIter([csv(**a), csv(**b)], rename_data=[{"data": "data_a"}, {"data": "data_b"}],
                               rename_label=[{"softmax_label": "label_a"}, {"softmax_label": "label_b"}])
    results["prefetch"].append({"name": "two_renamed", "iters": [a, b],
                                "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
                                "provide_label": [[d.name, list(d.shape)] for d in it.provide_label],
                                "epochs": epochs(it, 3)})
    it = mx.io.PrefetchingIter(csv(**a))
    results["prefetch"].append({"name": "one", "iters": [a],
                                "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
                                "provide_label": [[d.name, list(d.shape)] for d in it.provide_label],
                                "epochs": epochs(it, 2)})
    with open(os.path.join(OUT, "data_iters.json"), "w") as f:
        json.dump(results, f)


# Gluon RNN layers and cells: (case name, spec, call). A spec names a gluon.rnn class with its
# args and kwargs; "children" (stacks), "base" (modifiers) and "l"/"r" (BidirectionalCell) nest
# specs. tests/python/test_gluon_rnn.py builds the same blocks from gluon_rnn.json.
GLUON_RNN_CASES = [
    ("rnn_relu_bi_tnc", {"cls": "RNN", "args": [6], "kwargs": {"num_layers": 2, "activation": "relu",
                                                               "bidirectional": True, "input_size": 4}}, {}),
    ("rnn_relu_ntc", {"cls": "RNN", "args": [6], "kwargs": {"num_layers": 2, "activation": "relu",
                                                            "layout": "NTC", "input_size": 4}}, {}),
    ("rnn_tanh_bi_ntc", {"cls": "RNN", "args": [6], "kwargs": {"num_layers": 2, "activation": "tanh",
                                                               "bidirectional": True, "layout": "NTC",
                                                               "input_size": 4}}, {}),
    ("rnn_tanh_tnc", {"cls": "RNN", "args": [6], "kwargs": {"num_layers": 2, "activation": "tanh",
                                                            "input_size": 4}}, {}),
    ("lstm_bi_tnc", {"cls": "LSTM", "args": [6], "kwargs": {"num_layers": 2, "bidirectional": True,
                                                            "input_size": 4}}, {}),
    ("lstm_ntc", {"cls": "LSTM", "args": [6], "kwargs": {"num_layers": 2, "layout": "NTC", "input_size": 4}}, {}),
    ("gru_bi_ntc", {"cls": "GRU", "args": [6], "kwargs": {"num_layers": 2, "bidirectional": True,
                                                          "layout": "NTC", "input_size": 4}}, {}),
    ("gru_tnc", {"cls": "GRU", "args": [6], "kwargs": {"num_layers": 2, "input_size": 4}}, {}),
    ("cell_rnn_relu", {"cls": "RNNCell", "args": [5], "kwargs": {"activation": "relu", "input_size": 4}},
     {"layout": "NTC"}),
    ("cell_rnn_tanh", {"cls": "RNNCell", "args": [5], "kwargs": {"input_size": 4}}, {"layout": "TNC"}),
    ("cell_lstm", {"cls": "LSTMCell", "args": [5], "kwargs": {"input_size": 4}}, {"layout": "NTC"}),
    ("cell_gru", {"cls": "GRUCell", "args": [5], "kwargs": {"input_size": 4}}, {"layout": "TNC"}),
    ("cell_lstm_valid_length", {"cls": "LSTMCell", "args": [5], "kwargs": {"input_size": 4}},
     {"layout": "NTC", "valid_length": [5, 2, 4]}),
    ("hybrid_stack", {"cls": "HybridSequentialRNNCell", "children": [
        {"cls": "LSTMCell", "args": [5], "kwargs": {"input_size": 4}},
        {"cls": "DropoutCell", "args": [0.0]},
        {"cls": "ResidualCell", "base": {"cls": "GRUCell", "args": [5], "kwargs": {"input_size": 5}}},
        {"cls": "RNNCell", "args": [3], "kwargs": {"input_size": 5}}]}, {"layout": "NTC"}),
    ("bidirectional", {"cls": "BidirectionalCell", "l": {"cls": "LSTMCell", "args": [5], "kwargs": {"input_size": 4}},
                       "r": {"cls": "GRUCell", "args": [3], "kwargs": {"input_size": 4}}}, {"layout": "TNC"}),
    ("bidirectional_valid_length", {"cls": "BidirectionalCell",
                                    "l": {"cls": "GRUCell", "args": [5], "kwargs": {"input_size": 4}},
                                    "r": {"cls": "LSTMCell", "args": [3], "kwargs": {"input_size": 4}}},
     {"layout": "NTC", "valid_length": [3, 5, 1]}),
    ("sequential_bidirectional", {"cls": "SequentialRNNCell", "children": [
        {"cls": "BidirectionalCell", "l": {"cls": "RNNCell", "args": [4], "kwargs": {"input_size": 4}},
         "r": {"cls": "RNNCell", "args": [4], "kwargs": {"input_size": 4}}},
        {"cls": "ResidualCell", "base": {"cls": "LSTMCell", "args": [8], "kwargs": {"input_size": 8}}}]},
     {"layout": "TNC"}),
]


def build_rnn_block(rnn, spec):
    """The gluon.rnn block a GLUON_RNN_CASES spec describes (rnn: mxnet.gluon.rnn)."""
    cls = getattr(rnn, spec["cls"])
    if "children" in spec:
        block = cls()
        for child in spec["children"]:
            block.add(build_rnn_block(rnn, child))
        return block
    if "base" in spec:
        return cls(build_rnn_block(rnn, spec["base"]))
    if "l" in spec:
        return cls(build_rnn_block(rnn, spec["l"]), build_rnn_block(rnn, spec["r"]))
    return cls(*spec.get("args", []), **spec.get("kwargs", {}))


def gluon_rnn_refs():
    """gluon.rnn's layers (called with initial states) and cells (unrolled 5 steps, merged
    outputs, optionally with valid lengths) on fixed inputs: OUT/gluon_rnn/<case>.params
    (save_parameters), <case>.npz (inputs, outputs, final states, head gradients and the
    gradients of the inputs, the initial states and every parameter by save_parameters name)
    and OUT/gluon_rnn.json (the cases). Parameters are set from numpy: no MXNet random draws."""
    rng = np.random.RandomState(11)
    out_dir = os.path.join(OUT, "gluon_rnn")
    os.makedirs(out_dir, exist_ok=True)
    t_len, batch, feat = 5, 3, 4
    for name, spec, call in GLUON_RNN_CASES:
        block = build_rnn_block(mx.gluon.rnn, spec)
        block.initialize(mx.init.Zero())
        named = block._collect_params_with_prefix()
        for key in sorted(named):
            named[key].set_data(mx.nd.array(rng.uniform(-0.5, 0.5, named[key].shape).astype(np.float32)))
        block.save_parameters(os.path.join(out_dir, name + ".params"))
        layer = "layout" not in call
        layout = block._layout if layer else call["layout"]
        x = rng.uniform(-1, 1, (t_len, batch, feat) if layout == "TNC" else (batch, t_len, feat))
        arrays = {"x": x.astype(np.float32)}
        info = block.state_info(batch)
        states = [rng.uniform(-0.5, 0.5, s["shape"]).astype(np.float32) for s in info]
        for i, s in enumerate(states):
            arrays["state%d" % i] = s
        if "valid_length" in call:
            arrays["valid_length"] = np.array(call["valid_length"], dtype=np.float32)
        xs = [mx.nd.array(arrays["x"])] + [mx.nd.array(s) for s in states]
        for a in xs:
            a.attach_grad()
        for p in named.values():
            p.grad_req = "write"
        with mx.autograd.record():
            if layer:
                out, new_states = block(xs[0], xs[1:])
            else:
                vl = mx.nd.array(arrays["valid_length"]) if "valid_length" in call else None
                out, new_states = block.unroll(t_len, xs[0], begin_state=xs[1:], layout=layout,
                                               merge_outputs=True, valid_length=vl)
        heads = [out] + list(new_states)
        head_grads = [rng.uniform(-1, 1, h.shape).astype(np.float32) for h in heads]
        mx.autograd.backward(heads, [mx.nd.array(g) for g in head_grads])
        arrays["out"] = out.asnumpy()
        for i, (s, g) in enumerate(zip(new_states, head_grads[1:])):
            arrays["out_state%d" % i] = s.asnumpy()
            arrays["head_state%d" % i] = g
        arrays["head_out"] = head_grads[0]
        arrays["grad_x"] = xs[0].grad.asnumpy()
        for i, a in enumerate(xs[1:]):
            arrays["grad_state%d" % i] = a.grad.asnumpy()
        for key, p in named.items():
            arrays["grad:" + key] = p.grad().asnumpy()
        np.savez(os.path.join(out_dir, name + ".npz"), **arrays)
    with open(os.path.join(OUT, "gluon_rnn.json"), "w") as f:
        json.dump({"length": t_len, "batch": batch, "features": feat,
                   "cases": [{"name": n, "spec": s, "call": c} for n, s, c in GLUON_RNN_CASES]}, f, indent=1)


METRIC_CASES = [("mae", {}, "regression2d"), ("mse", {}, "regression2d"), ("rmse", {}, "regression"),
                ("f1", {}, "binary"), ("f1", {"average": "micro"}, "binary"), ("mcc", {}, "binary"),
                ("mcc", {"average": "micro"}, "binary"), ("pearsonr", {}, "regression"),
                ("pearsonr", {"average": "micro"}, "regression"), ("nll_loss", {}, "classes"),
                ("perplexity", {"ignore_label": None}, "classes"), ("acc", {}, "classes"),
                ("ce", {}, "classes"), ("top_k_accuracy", {"top_k": 2}, "classes")]


def _jpeg_bytes(img):
    """An RGB uint8 image as baseline JPEG bytes (written here: the venv has neither cv2 nor
    Pillow, and symnet's ImageRecordIter reads JPEG only): 4:4:4 YCbCr, every quantiser 2, and
    per class one Huffman table whose codes all have the same length (valid, if not compact).
    Both frameworks decode it with libjpeg-turbo, to the same pixels."""
    import struct
    h, w, _ = img.shape
    ph, pw = -(-h // 8) * 8, -(-w // 8) * 8
    x = np.pad(img.astype(np.float64), ((0, ph - h), (0, pw - w), (0, 0)), mode="edge")
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    planes = [0.299 * r + 0.587 * g + 0.114 * b, -0.168736 * r - 0.331264 * g + 0.5 * b + 128,
              0.5 * r - 0.418688 * g - 0.081312 * b + 128]
    n = np.arange(8)
    dct = np.sqrt(2.0 / 8) * np.cos((2 * n[None, :] + 1) * n[:, None] * np.pi / 16)
    dct[0] /= np.sqrt(2)
    zigzag = sorted(((i, j) for i in range(8) for j in range(8)),
                    key=lambda t: (t[0] + t[1], t[0] if (t[0] + t[1]) % 2 else t[1]))
    dc_symbols = list(range(12))
    ac_symbols = [0x00, 0xF0] + [(run << 4) | size for run in range(16) for size in range(1, 11)]
    dc_code = {s: (k, 4) for k, s in enumerate(dc_symbols)}
    ac_code = {s: (k, 8) for k, s in enumerate(ac_symbols)}
    bits = []

    def put(value, length):
        bits.extend((value >> (length - 1 - i)) & 1 for i in range(length))

    def magnitude(v):
        size = int(abs(v)).bit_length()
        return size, (v if v >= 0 else v + (1 << size) - 1)

    previous = [0, 0, 0]
    for by in range(0, ph, 8):
        for bx in range(0, pw, 8):
            for c in range(3):
                coef = np.rint(dct @ (planes[c][by:by + 8, bx:bx + 8] - 128) @ dct.T / 2).astype(int)
                seq = [coef[i, j] for i, j in zigzag]
                size, value = magnitude(seq[0] - previous[c])
                previous[c] = seq[0]
                put(*dc_code[size])
                put(value, size)
                run = 0
                for v in seq[1:]:
                    if v == 0:
                        run += 1
                        continue
                    while run > 15:
                        put(*ac_code[0xF0])
                        run -= 16
                    size, value = magnitude(v)
                    put(*ac_code[(run << 4) | size])
                    put(value, size)
                    run = 0
                if run:
                    put(*ac_code[0x00])
    bits.extend([1] * (-len(bits) % 8))
    data = bytearray()
    for i in range(0, len(bits), 8):
        data.append(int("".join(map(str, bits[i:i + 8])), 2))
        if data[-1] == 0xFF:
            data.append(0)

    def segment(marker, payload):
        return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload

    def dht(cls_id, symbols, length):
        counts = [0] * 16
        counts[length - 1] = len(symbols)
        return bytes([cls_id] + counts + symbols)

    return (b"\xff\xd8" + segment(0xDB, bytes([0] + [2] * 64)) +
            segment(0xC0, struct.pack(">BHHB", 8, h, w, 3) + bytes([1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])) +
            segment(0xC4, dht(0x00, dc_symbols, 4) + dht(0x10, ac_symbols, 8)) +
            segment(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])) + bytes(data) + b"\xff\xd9")


# ImageRecordIter on JPEG records written here: (name, kwargs). "idx" reads with the .idx,
# "multi" the records packed with two labels, "lst" takes two labels from the .lst; every other
# key is an ImageRecordIter option (batch_size 5, data_shape (3, 24, 24) unless given). Random
# options run with seed_aug, which makes MXNet's draws reproducible (per record position).
_SA = {"seed_aug": 7}
RECORD_ITER_CASES = [
    ("plain", {}),
    ("plain_idx", {"idx": True}),
    ("no_round_batch", {"round_batch": False}),
    ("batch_over_records", {"batch_size": 17}),
] + [("resize_inter%d" % k, {"resize": 28, "inter_method": k}) for k in (1, 2, 3, 4, 9)] + [
    ("resize_up_inter9", {"resize": 40, "inter_method": 9, "data_shape": [3, 36, 36]}),
    ("crop_size_inter0", {"min_crop_size": 20, "max_crop_size": 20, "inter_method": 0}),
    ("crop_size_inter3", {"min_crop_size": 26, "max_crop_size": 26, "inter_method": 3}),
    ("crop_size_halve", {"min_crop_size": 24, "max_crop_size": 24, "data_shape": [3, 12, 12]}),
    ("small_scaled_up", {"data_shape": [3, 50, 44]}),
    ("pad_fill", {"pad": 4, "fill_value": 17, "data_shape": [3, 40, 40]}),
    ("normalize", {"mean_r": 123.68, "mean_g": 116.28, "mean_b": 103.53, "std_r": 58.4, "std_g": 57.1,
                   "std_b": 57.4, "scale": 0.5}),
    ("mean_rgba_scale", {"mean_r": 10, "mean_a": 99, "std_a": 3, "scale": 2}),
    ("uint8", {"dtype": "uint8", "mean_r": 100, "std_r": 2}),
    ("int8", {"dtype": "int8", "mean_r": 120, "mean_g": 110.5, "mean_b": 100.4, "std_r": 3}),
    ("float32", {"dtype": "float32", "mean_g": 50}),
    ("mirror", {"mirror": True}),
    ("gray", {"data_shape": [1, 24, 24], "mean_r": 100, "std_r": 2}),
    ("label_lst", {"lst": True, "label_width": 2}),
    ("label_multi", {"multi": True, "label_width": 2}),
    ("aug_twice", {"aug_seq": "aug_default,aug_default", "pad": 2, "data_shape": [3, 40, 40]}),
    ("rotate", {"rotate": 40}),
    ("rotate_fill_cubic", {"rotate": 20, "fill_value": 0, "inter_method": 2}),
    ("scale_fixed", {"min_random_scale": 1.3, "max_random_scale": 1.3}),
    ("img_size", {"min_img_size": 30, "max_img_size": 30}),
    ("verbose_threads_prefetch", {"verbose": True, "preprocess_threads": 1, "prefetch_buffer": 1,
                                  "ctx": "cpu", "device_id": -1}),
] + [("parts%d_%d%s" % (n, k, "_idx" if idx else ""), {"num_parts": n, "part_index": k, "idx": idx,
                                                       "batch_size": 2})
     for n in (2, 3) for k in range(n) for idx in (False, True)] + [
    ("sa_rand_crop", dict(_SA, rand_crop=True)),
    ("sa_rand_crop_idx", dict(_SA, rand_crop=True, idx=True)),
    ("sa_rand_mirror", dict(_SA, rand_mirror=True)),
    ("sa_max_rotate_angle", dict(_SA, max_rotate_angle=25)),
    ("sa_rotate_list", dict(_SA, rotate_list="0,90,180,270")),
    ("sa_max_shear_ratio", dict(_SA, max_shear_ratio=0.25)),
    ("sa_random_scale", dict(_SA, min_random_scale=0.9, max_random_scale=1.4)),
    ("sa_max_aspect_ratio", dict(_SA, max_aspect_ratio=0.3)),
    ("sa_aspect_range", dict(_SA, min_aspect_ratio=0.7, max_aspect_ratio=1.3)),
    ("sa_random_resized_crop", dict(_SA, random_resized_crop=True, min_random_area=0.25, min_aspect_ratio=0.75,
                                    max_aspect_ratio=1.33)),
    ("sa_random_resized_crop_area", dict(_SA, random_resized_crop=True, min_random_area=0.3, max_random_area=0.6)),
    ("sa_crop_size_range", dict(_SA, min_crop_size=16, max_crop_size=26, rand_crop=True)),
    ("sa_brightness", dict(_SA, brightness=0.4)),
    ("sa_contrast", dict(_SA, contrast=0.4)),
    ("sa_saturation", dict(_SA, saturation=0.4)),
    ("sa_pca_noise", dict(_SA, pca_noise=0.5)),
    ("sa_random_hsl", dict(_SA, random_h=25, random_s=40, random_l=40)),
    ("sa_inter_method10", dict(_SA, resize=30, inter_method=10)),
    ("sa_random_contrast_illumination", dict(_SA, max_random_contrast=0.3, max_random_illumination=20)),
    ("sa_combined", dict(_SA, max_rotate_angle=15, max_shear_ratio=0.1, min_random_scale=0.9, max_random_scale=1.2,
                         pad=2, fill_value=60, rand_crop=True, rand_mirror=True, random_l=20, pca_noise=0.2,
                         inter_method=2, mean_r=120, std_r=50)),
    ("mean_img_created", {"mean_img": "created", "resize": 28}),
    ("mean_img_loaded", {"mean_img": "given", "scale": 0.25}),
    ("mean_img_loaded_int8", {"mean_img": "given", "dtype": "int8"}),
]


def record_iter_refs():
    """mx.io.ImageRecordIter on JPEG records written here (OUT/record_iter/: 14 images of
    different sizes as images.rec/.idx with one label, multi.rec with two, images.lst with two):
    every batch of the first epoch of each RECORD_ITER_CASES case in OUT/record_iter.npz, pads,
    shapes and dtypes in OUT/record_iter.json; the mean image MXNet computes and saves, and the
    one it is given, in OUT/record_iter/."""
    folder = os.path.join(OUT, "record_iter")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.RandomState(41)
    one = mx.recordio.MXIndexedRecordIO(os.path.join(folder, "images.idx"), os.path.join(folder, "images.rec"), "w")
    two = mx.recordio.MXRecordIO(os.path.join(folder, "multi.rec"), "w")
    lst = []
    for i in range(14):
        h, w = 26 + (i * 7) % 20, 30 + (i * 11) % 21
        yy, xx = np.mgrid[0:h, 0:w]
        base = np.stack([xx * 255.0 / w, yy * 255.0 / h, (xx + yy) * 127.0 / (w + h) + 60], axis=-1)
        jpeg = _jpeg_bytes(np.clip(base + rng.normal(0, 30, (h, w, 3)), 0, 255).astype(np.uint8))
        one.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i % 5), i, 0), jpeg))
        two.write(mx.recordio.pack(mx.recordio.IRHeader(2, [float(i % 5), 0.5 * i], i, 0), jpeg))
        lst.append("%d\t%f\t%f\timg%d.jpg\n" % (i, (i * 3) % 7, 0.25 * i, i))
    one.close()
    two.close()
    with open(os.path.join(folder, "images.lst"), "w") as f:
        f.writelines(lst)
    given = np.clip(rng.normal(120, 40, (3, 24, 24)), 0, 255).astype(np.float32)
    mx.nd.save(os.path.join(folder, "mean_given.nd"), {"mean_img": mx.nd.array(given)})
    created = os.path.join(folder, "mean_created.nd")
    if os.path.exists(created):
        os.remove(created)
    arrays, meta = {}, []
    for name, kw in RECORD_ITER_CASES:
        args = {"batch_size": 5, "data_shape": [3, 24, 24], "verbose": False}
        args.update({k: v for k, v in kw.items() if k not in ("idx", "multi", "lst")})
        args["path_imgrec"] = os.path.join(folder, "multi.rec" if kw.get("multi") else "images.rec")
        if kw.get("idx"):
            args["path_imgidx"] = os.path.join(folder, "images.idx")
        if kw.get("lst"):
            args["path_imglist"] = os.path.join(folder, "images.lst")
        if "mean_img" in kw:
            args["mean_img"] = os.path.join(folder, "mean_%s.nd" % kw["mean_img"])
        args["data_shape"] = tuple(args["data_shape"])
        it = mx.io.ImageRecordIter(**args)
        pads = []
        for b, batch in enumerate(it):
            arrays["%s:%d:data" % (name, b)] = batch.data[0].asnumpy()
            arrays["%s:%d:label" % (name, b)] = batch.label[0].asnumpy()
            pads.append(int(batch.pad))
        meta.append({"name": name, "kwargs": kw, "pads": pads,
                     "provide_data": [list(it.provide_data[0].shape), np.dtype(it.provide_data[0].dtype).name],
                     "provide_label": list(it.provide_label[0].shape),
                     "context": str(batch.data[0].context)})
        print("reference: record_iter", name, pads, flush=True)
    arrays["mean_created"] = mx.nd.load(created)["mean_img"].asnumpy()
    np.savez(os.path.join(OUT, "record_iter.npz"), **arrays)
    with open(os.path.join(OUT, "record_iter.json"), "w") as f:
        json.dump({"cases": meta}, f)


def metric_refs():
    """MXNet's metrics on fixed batches (their own random stream): the value after the first
    update, after the third, and after reset_local and a fourth update both the local and the
    global value."""
    rng = np.random.RandomState(7)

    def probs(n, k):
        p = rng.uniform(0.05, 1.0, size=(n, k))
        return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)

    sizes = (8, 6, 10, 7)
    batches = {"binary": [(rng.randint(0, 2, n).astype(np.float32), probs(n, 2)) for n in sizes],
               "classes": [(rng.randint(0, 5, n).astype(np.float32), probs(n, 5)) for n in sizes]}
    for kind, shape in (("regression", lambda n: (n,)), ("regression2d", lambda n: (n, 1))):
        batches[kind] = []
        for n in sizes:
            label = rng.normal(size=(n,)).astype(np.float32)
            pred = (label + 0.7 * rng.normal(size=(n,))).astype(np.float32)
            batches[kind].append((label, pred.reshape(shape(n))))
    results = []
    for name, kw, kind in METRIC_CASES:
        m = mx.metric.create(name, **kw)
        b = [([mx.nd.array(l)], [mx.nd.array(p)]) for l, p in batches[kind]]
        m.update(*b[0])
        values = [m.get()[1]]
        for pair in b[1:3]:
            m.update(*pair)
        values.append(m.get()[1])
        m.reset_local()
        m.update(*b[3])
        values += [m.get()[1], m.get_global()[1]]
        results.append({"name": name, "kwargs": kw, "kind": kind, "values": [float(v) for v in values]})
    with open(os.path.join(OUT, "metrics.json"), "w") as f:
        json.dump({"batches": {k: [[l.tolist(), p.tolist()] for l, p in v] for k, v in batches.items()},
                   "results": results}, f)


# (name symnet registers it under, kwargs, weight dtype[, MXNet's name, kwargs only MXNet gets]).
# Every case has a weight decay, a rescale and most a clip; the names fc_weight and fc_bias
# decide what is decayed (and what LARS scales). "lr_scheduler" is [class name, its kwargs].
OPTIMIZER_CASES = [
    ("rmsprop", {"learning_rate": 0.01, "gamma1": 0.8, "epsilon": 1e-4, "wd": 0.01, "rescale_grad": 0.5,
                 "clip_gradient": 2.0}, "float32"),
    ("rmsprop", {"learning_rate": 0.01, "gamma1": 0.85, "gamma2": 0.7, "centered": True, "clip_weights": 0.9,
                 "wd": 0.02, "rescale_grad": 0.5, "clip_gradient": 1.5}, "float32"),
    ("rmsprop", {"learning_rate": 0.01, "centered": True, "wd": 0.01, "rescale_grad": 0.5,
                 "multi_precision": True}, "float16"),
    ("adagrad", {"learning_rate": 0.1, "eps": 1e-5, "wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 1.5},
     "float32"),
    ("adagrad", {"learning_rate": 0.1, "wd": 0.01, "rescale_grad": 0.5, "multi_precision": True}, "float16"),
    ("adadelta", {"rho": 0.8, "epsilon": 1e-4, "wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 1.0},
     "float32"),
    ("ftrl", {"learning_rate": 0.2, "lamda1": 0.02, "beta": 0.5, "wd": 0.01, "rescale_grad": 0.5,
              "clip_gradient": 2.0}, "float32"),
    ("signum", {"learning_rate": 0.01, "momentum": 0.8, "wd": 0.01, "wd_lh": 0.05, "rescale_grad": 0.5,
                "clip_gradient": 1.0}, "float32"),
    ("signum", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5, "multi_precision": True}, "float16"),
    ("signsgd", {"learning_rate": 0.01, "wd": 0.02, "rescale_grad": 0.5, "clip_gradient": 0.5}, "float32",
     "signum", {"momentum": 0.0}),
    ("lamb", {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.95, "epsilon": 1e-4, "wd": 0.01,
              "rescale_grad": 0.5, "clip_gradient": 1.5}, "float32"),
    ("lamb", {"learning_rate": 0.01, "upper_bound": 1.0, "bias_correction": False, "wd": 0.02,
              "rescale_grad": 0.5}, "float32"),
    ("lamb", {"learning_rate": 0.01, "lower_bound": 10.0, "wd": 0.02, "rescale_grad": 0.5}, "float32"),
    ("lamb", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5, "multi_precision": True}, "float16"),
    ("lars", {"learning_rate": 0.1, "momentum": 0.9, "eta": 0.01, "eps": 1e-3, "wd": 0.01, "rescale_grad": 0.5,
              "clip_gradient": 2.0}, "float32"),
    ("lars", {"learning_rate": 0.1, "eta": 0.02, "wd": 0.005, "rescale_grad": 0.5}, "float32"),
    ("lars", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5,
              "lr_scheduler": ["MultiFactorScheduler", {"step": [2], "factor": 0.5, "base_lr": 0.1}]}, "float32"),
    ("lars", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5, "multi_precision": True},
     "float16"),
    ("adamw", {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.95, "epsilon": 1e-5, "wd": 0.05,
               "rescale_grad": 0.5, "clip_gradient": 1.0}, "float32"),
    ("adamw", {"learning_rate": 0.01, "correct_bias": False, "wd": 0.05, "rescale_grad": 0.5}, "float32"),
    ("adamw", {"learning_rate": 0.01, "wd": 0.05, "rescale_grad": 0.5, "multi_precision": True}, "float16"),
]


class AdamW20(mx.optimizer.Optimizer):
    """AdamW as MXNet 2.0 defines it (python/mxnet/optimizer/adamW.py, its fused step), on the
    contrib.adamw_update op MXNet 1.9.1 has; 1.9.1 registers no AdamW optimizer. w -= lr_t*(m/(sqrt(v)
    + epsilon) + wd*w), lr_t = lr*sqrt(1-beta2^t)/(1-beta1^t) with correct_bias."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, correct_bias=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon, self.correct_bias = beta1, beta2, epsilon, correct_bias

    def create_state(self, index, weight):
        return (mx.nd.zeros(weight.shape, weight.context, dtype=weight.dtype),
                mx.nd.zeros(weight.shape, weight.context, dtype=weight.dtype))

    def _step(self, index, weight, grad, state, master=None):
        self._update_count(index)
        lr, wd, t = self._get_lr(index), self._get_wd(index), self._index_update_count[index]
        if self.correct_bias:
            lr *= (1.0 - self.beta2 ** t) ** 0.5 / (1.0 - self.beta1 ** t)
        kw = dict(lr=1, wd=wd, eta=lr, beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                  rescale_grad=self.rescale_grad)
        if self.clip_gradient:
            kw["clip_gradient"] = self.clip_gradient
        if master is None:
            mx.nd.contrib.adamw_update(weight, grad, state[0], state[1], out=weight, **kw)
        else:
            mx.nd.contrib.mp_adamw_update(weight, grad, state[0], state[1], master, out=weight, **kw)

    def update(self, index, weight, grad, state):
        self._step(index, weight, grad, state)

    def update_multi_precision(self, index, weight, grad, state):
        if self.multi_precision and weight.dtype == np.float16:  # state: (weight32, (mean, var))
            self._step(index, weight, grad, state[1], master=state[0])
        else:
            self._step(index, weight, grad, state)


def optimizer_refs():
    """MXNet's optimizers (OPTIMIZER_CASES) through mx.optimizer.get_updater, as Module and the
    gluon Trainer drive them (both parameters in one call, so LARS and LAMB take their aggregated
    paths): 4 steps on two fixed parameters, fc_weight (4, 5) and fc_bias (5,), with fixed
    gradients; the weights after every step. Each step gets fresh gradient arrays (AdaDelta and
    adamw_update scale the caller's gradient in place)."""
    rng = np.random.RandomState(11)
    names = ["fc_weight", "fc_bias"]
    weights = [rng.normal(size=(4, 5)).astype(np.float32), rng.normal(size=(5,)).astype(np.float32)]
    grads = [[(3.0 * rng.normal(size=w.shape)).astype(np.float32) for w in weights] for _ in range(4)]
    results = []
    for case in OPTIMIZER_CASES:
        name, kw, dtype = case[:3]
        mx_name, mx_extra = (case[3], case[4]) if len(case) > 3 else (name, {})
        mx_kw = dict(kw, **mx_extra)
        if "lr_scheduler" in mx_kw:
            cls, sched_kw = mx_kw["lr_scheduler"]
            mx_kw["lr_scheduler"] = getattr(mx.lr_scheduler, cls)(**sched_kw)
        idx2name = dict(enumerate(names))
        if mx_name == "adamw":
            opt = AdamW20(param_idx2name=idx2name, **mx_kw)
        else:
            opt = mx.optimizer.create(mx_name, param_idx2name=idx2name, **mx_kw)
        updater = mx.optimizer.get_updater(opt)
        ws = [mx.nd.array(w, dtype=dtype) for w in weights]
        steps = []
        for step_grads in grads:
            updater([0, 1], [mx.nd.array(g, dtype=dtype) for g in step_grads], ws)
            steps.append([w.asnumpy().astype(np.float32).tolist() for w in ws])
        results.append({"name": name, "kwargs": kw, "dtype": dtype, "mxnet": [mx_name, mx_extra],
                        "steps": steps})
    with open(os.path.join(OUT, "optimizers.json"), "w") as f:
        json.dump({"names": names, "weights": [w.tolist() for w in weights],
                   "grads": [[g.tolist() for g in step] for step in grads], "results": results}, f)


def amp_refs(model_dir, target):
    """MXNet's AMP conversion of a model: the dtype every original node's output takes, and
    the converted graph's inference outputs with the model's parameters."""
    from mxnet.contrib import amp
    sym = mx.sym.load(os.path.join(model_dir, "symbol.json"))
    params = mx.nd.load(os.path.join(model_dir, "model.params"))
    ref = dict(np.load(os.path.join(model_dir, "ref.npz")))
    conv = amp.convert_symbol(sym, target_dtype=target)
    d = os.path.join(OUT, "amp_" + target)
    os.makedirs(d, exist_ok=True)
    conv.save(os.path.join(d, "converted-symbol.json"), remove_amp_cast=False)
    internals = conv.get_internals()
    _, out_types, _ = internals.infer_type(data="float32")
    names = [o[:-len("_output")] if o.endswith("_output") else o for o in internals.list_outputs()]
    original = {n["name"] for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"}
    node_dtypes = {n: np.dtype(t).name if t is not None else None for n, t in zip(names, out_types) if n in original}
    # bfloat16 shows up as a structured numpy dtype in MXNet; name it
    node_dtypes = {k: ("bfloat16" if v not in (None, "float16", "float32", "float64") else v)
                   for k, v in node_dtypes.items()}
    with open(os.path.join(d, "node_dtypes.json"), "w") as f:
        json.dump(node_dtypes, f, indent=0, sort_keys=True)
    info = {"nodes_16bit": sum(v in ("float16", "bfloat16") for v in node_dtypes.values())}
    exe = conv.simple_bind(mx.cpu(), grad_req="null", data=ref["input:data"].shape)
    for k, v in params.items():
        kind, n = k.split(":", 1)
        target_dict = exe.arg_dict if kind == "arg" else exe.aux_dict
        if n in target_dict:
            target_dict[n][:] = v.astype(target_dict[n].dtype)
    exe.arg_dict["data"][:] = ref["input:data"]
    try:
        exe.forward(is_train=False)
        np.savez(os.path.join(d, "ref.npz"), out=exe.outputs[0].astype("float32").asnumpy())
    except mx.base.MXNetError as e:  # MXNet's CPU build has no float16 gemm
        info["outputs_error"] = [l for l in str(e).splitlines() if "MXNetError" in l][-1]
    return info


def custom_op_refs():
    """Custom ops written as MXNet scripts write them (tests/mxnet_parity/custom_ops.py: several
    inputs and outputs, a loss-like op, an auxiliary state) inside Gluon blocks: OUT/custom_ops/
    <case>.npz with the outputs (out<i>) and gradients (grad_<name>) after one recorded forward
    and backward, hybridized (checked equal to the imperative run)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import custom_ops
    ns = custom_ops.define(mx)
    out_dir = os.path.join(OUT, "custom_ops")
    os.makedirs(out_dir, exist_ok=True)
    for case, spec in sorted(custom_ops.CASES.items()):
        runs = []
        for hybridize in (False, True):
            make, inputs = spec(np.random.RandomState(1))
            net = make(mx, ns)
            custom_ops.set_params(mx, net, np.random.RandomState(2))
            runs.append(custom_ops.run(mx, net, inputs, hybridize))
        (o0, g0), (o1, g1) = runs
        for a, b in zip(o0, o1):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        for k in g0:
            np.testing.assert_allclose(g0[k], g1[k], rtol=1e-5, atol=1e-6, err_msg=k)
        arrays = {"out%d" % i: o for i, o in enumerate(o1)}
        arrays.update({"grad_" + k: g for k, g in g1.items()})
        np.savez(os.path.join(out_dir, case + ".npz"), **arrays)
        print("reference: custom op", case, sorted(arrays), flush=True)


def main():
    global OUT
    OUT = sys.argv[1] if len(sys.argv) > 1 else "build/mxnet_refs"
    os.makedirs(OUT, exist_ok=True)
    manifest = {"mxnet": mx.__version__, "numpy": np.__version__, "models": {}}
    symbolic = {"mlp": mlp, "lenet": lenet, "mixed": mixed, "nhwc": nhwc, "clip": clip,
                "unary_math": unary_math, "matmul": matmul, "slicing": slicing,
                "binary_math": binary_math, "reductions": reductions, "sorting": sorting, "shape_ops": shape_ops,
                "index_ops": index_ops, "norm_ops": norm_ops, "seq_ops": seq_ops}
    # later models draw their weights and inputs and then put the stream back, so that adding a
    # model changes no other model's numbers (a new draw can put an old model's ReLU input within
    # float32 rounding of 0, where float32 and float64 gradients part for either framework)
    later = {"group_norms": group_norms, "rnn_ops": rnn_ops, "pad_crop_resize": pad_crop_resize,
             "unary_math2": unary_math2, "losses": losses, "deconv_upsampling": deconv_upsampling,
             "roi_heads": roi_heads, "box_ops": box_ops, "ssd_head": ssd_head, "rpn_proposal": rpn_proposal,
             "ctc": ctc}
    for name, build in list(symbolic.items()) + list(later.items()):
        stream = RNG.get_state() if name in later else None
        sym, shapes = build()
        run_sym = build(twin=True)[0] if name in ("nhwc", "pad_crop_resize") else None
        # the twin also sizes the parameters where MXNet cannot infer the saved graph's shapes
        params = random_params(sym if run_sym is None else run_sym, shapes)
        manifest["models"][name] = run_model(name, sym, shapes, params, run_sym)
        if stream is not None:
            RNG.set_state(stream)
        print("reference:", name, manifest["models"][name], flush=True)
    for name, builder, shape in ZOO:
        sym, shapes, params = gluon(name, builder, shape)()
        has_dropout = any(n["op"] == "Dropout" for n in json.loads(sym.tojson())["nodes"])
        manifest["models"][name] = run_model(name, sym, shapes, params,
                                             without_dropout(sym) if has_dropout else None)
        manifest["models"][name]["dropout_off_in_training"] = has_dropout
        print("reference:", name, manifest["models"][name], flush=True)
    # classic symbol scripts: the JSON MXNet writes for them (symnet must write the same)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import classic_symbols
    os.makedirs(os.path.join(OUT, "classic"), exist_ok=True)
    for name, build in classic_symbols.BUILDERS.items():
        with mx.name.NameManager():  # automatic names count from 0, as in a fresh script
            build(mx).save(os.path.join(OUT, "classic", name + "-symbol.json"))
    sgd_refs()
    metric_refs()
    gluon_rnn_refs()
    image_aug_refs()
    data_iter_refs()
    record_iter_refs()
    optimizer_refs()
    custom_op_refs()
    manifest["amp"] = {}
    for target in ("float16", "bfloat16"):
        manifest["amp"][target] = amp_refs(os.path.join(OUT, "resnet50_v1"), target)
        print("reference: amp", target, manifest["amp"][target], flush=True)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
