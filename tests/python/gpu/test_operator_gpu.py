"""The operator tests on a GPU: every CPU operator test module is imported here and so runs
again with gpu(0) as the default context (conftest.py), comparing GPU results with numpy and
finite differences; then each op that has a GPU kernel is compared directly with the CPU, in
forward and backward, for float64, float32, float16 and bfloat16 (check_consistency). The op
lists and cases come from the CPU tests' tables (UNARY_MATH, CONV_CASES, ...), so an op or case
added to a CPU table is compared on the GPU too."""
import numpy as np
import pytest

import symnet as mx
from gpu_device import DEVICE as GPU
from symnet.test_utils import assert_almost_equal, check_consistency

# the CPU tests, collected again here (conftest runs them on gpu(0))
from test_operator import *  # noqa: F401,F403
from test_operator_nn import *  # noqa: F401,F403
from test_amp_ops import *  # noqa: F401,F403
from test_optimizer import *  # noqa: F401,F403
from test_operator_dot import *  # noqa: F401,F403
from test_operator_slice import *  # noqa: F401,F403
from test_operator_index import *  # noqa: F401,F403
from test_operator_shape import *  # noqa: F401,F403
from test_operator_binary import *  # noqa: F401,F403
from test_operator_reduce import *  # noqa: F401,F403
from test_operator_sort import *  # noqa: F401,F403
from test_operator_norm import *  # noqa: F401,F403
from test_operator_layernorm import *  # noqa: F401,F403
from test_operator_seq import *  # noqa: F401,F403
from test_operator_pad import *  # noqa: F401,F403
from test_operator_rnn import *  # noqa: F401,F403
from test_operator_loss import *  # noqa: F401,F403
from test_operator_deconv import *  # noqa: F401,F403
from test_operator_ctc import *  # noqa: F401,F403
from test_operator_multibox import *  # noqa: F401,F403
from test_operator_random import *  # noqa: F401,F403
from test_operator_detection import *  # noqa: F401,F403
from test_custom_op import *  # noqa: F401,F403
from test_operator import (ACTIVATIONS, BROADCAST_BINARY, CLIP_CASES, ELEMWISE_BINARY, MORE_UNARY_MATH,
                           REDUCE_CASES, REDUCE_OPS, TRANSPOSE_CASES, UNARY_MATH, in_domain,
                           EXPAND_SQUEEZE_CASES)
from test_operator_dot import BATCH_DOT_CASES, DOT_CASES
from test_operator_random import RANDOM_CASES, RANDOM_SAMPLE_CASES
from test_operator_slice import BOX_CASES, SPLIT_CASES
from test_operator_shape import SHAPE_CASES, shape_case_id, shape_case_symbol
from test_operator_sort import SORT_CASES, TOPK_CASES
from test_operator_norm import L2NORM_CASES, LRN_CASES
from test_operator_detection import (BOX_IOU_CASES, MATCHING_CASES, NMS_CASES, ROI_ALIGN_CASES, ROI_POOL_CASES,
                                     box_iou_sym, nms_sym, roi_align_case, roi_pool_case)
from test_operator_deconv import (DECONV_CASES, UPSAMPLING_CASES, deconv_location, deconv_sym,
                                  upsampling_location, upsampling_sym)
from test_operator_layernorm import ALL_CASES as LAYERNORM_FAMILY_CASES, norm_case
from test_operator_rnn import RNN_CASES, rnn_case
from test_operator_loss import (LOSS_REGRESSION_CASES, MAKE_LOSS_CASES, PARAM_UNARY_CASES, SVM_CASES,
                                loss_regression_inputs, param_unary_input, svm_case_inputs)
from test_operator_seq import EMBEDDING_CASES, SEQ_CASES, SOFTMAX_ACT_CASES, embedding_case, seq_case
from test_operator_ctc import CTC_CASES, ctc_case, ctc_case_id
from test_operator_pad import (CROP_CASES, LP_SAME_POOL_CASES, PAD_CASES, RESIZE_CASES, crop_case,
                               lp_same_case, pad_case, resize_case)
from test_operator_reduce import AXES_REDUCE_CASES, NORM_CASES, SEARCH_CASES, distinct
from test_operator_binary import ALL as BINARY_MATH, SCALARS as BINARY_SCALARS, operands as binary_operands
from test_operator_nn import CONV_CASES, LEAKY_ACTS, POOL_CASES
from test_operator_index import (ARANGE_CASES, DIAG_CASES, ONE_HOT_CASES, PICK_CASES, SLICE_LIKE_CASES,
                                 TAKE_CASES, WHERE_CASES, pick_case, slice_like_case, take_case, where_case)

FLOAT_TYPES = ["float64", "float32", "float16", "bfloat16"]


def both(dtypes=FLOAT_TYPES, **shapes):
    """ctx_list: the CPU in float64 (the reference), then the GPU in every dtype."""
    out = [dict(ctx=mx.cpu(), type_dict={k: "float64" for k in shapes}, **shapes)]
    for t in dtypes:
        out.append(dict(ctx=GPU, type_dict={k: t for k in shapes}, **shapes))
    return out


# the CPU's cases plus the ResNet stem (7x7 stride 2) and a dilated grouped 3x3
GPU_CONV_CASES = CONV_CASES + [
    dict(x=(2, 4, 9, 10), kernel=(7, 7), num_filter=6, stride=(2, 2), pad=(3, 3)),
    dict(x=(2, 4, 9, 10), kernel=(3, 3), num_filter=6, pad=(2, 2), num_group=2, dilate=(2, 2)),
]


@pytest.mark.parametrize("case", GPU_CONV_CASES, ids=lambda c: "x%s_k%s" % (c["x"], c["kernel"]))
def test_convolution_gpu_matches_cpu(case):
    case = dict(case)
    data = case.pop("x")
    sym = mx.sym.Convolution(mx.sym.var("data"), name="conv", **case)
    check_consistency(sym, both(data=data))


@pytest.mark.parametrize("layout,data,kernel,groups", [
    ("NHWC", (2, 9, 10, 4), (3, 3), 1), ("NHWC", (2, 9, 10, 4), (3, 3), 2), ("NWC", (2, 9, 4), (3,), 1),
    ("NDHWC", (1, 4, 5, 6, 4), (3, 3, 3), 1),
])
@pytest.mark.parametrize("no_bias", [True, False])
def test_channels_last_convolution_gpu_matches_cpu(layout, data, kernel, groups, no_bias):
    """cuDNN with NHWC tensors and KRSC filters against the CPU's channels-last convolution."""
    sym = mx.sym.Convolution(mx.sym.var("data"), kernel=kernel, stride=(2,) * len(kernel), pad=(1,) * len(kernel),
                             num_group=groups, num_filter=6, no_bias=no_bias, layout=layout, name="conv")
    check_consistency(sym, both(data=data))


@pytest.mark.parametrize("fix_gamma", [True, False])
@pytest.mark.parametrize("use_global_stats", [True, False])
@pytest.mark.parametrize("axis", [1, -1])
def test_batchnorm_gpu_matches_cpu(fix_gamma, use_global_stats, axis):
    sym = mx.sym.BatchNorm(mx.sym.var("data"), fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                           axis=axis, eps=1e-3, momentum=0.9, name="bn")
    outs = check_consistency(sym, both(data=(3, 5, 4, 6)))
    assert outs[0][0].shape == (3, 5, 4, 6)


def test_batchnorm_gpu_updates_the_moving_statistics_like_the_cpu():
    sym = mx.sym.BatchNorm(mx.sym.var("data"), fix_gamma=False, name="bn")
    x = np.random.randn(4, 3, 5, 5) * 2 + 1
    stats = []
    for ctx in (mx.cpu(), GPU):
        exe = sym.simple_bind(ctx, data=x.shape)
        exe.arg_dict["data"][:] = x
        exe.arg_dict["bn_gamma"][:] = 1
        exe.forward(is_train=True)
        stats.append([exe.aux_dict[k].asnumpy() for k in ("bn_moving_mean", "bn_moving_var")])
    for a, b in zip(*stats):
        assert_almost_equal(b, a, rtol=1e-5, atol=1e-6)


# the CPU's cases plus a 1-D pooling of each type
GPU_POOL_CASES = POOL_CASES + [dict(kernel=(3,), stride=(1,), pad=(1,), pool_type=t) for t in ("max", "avg", "sum")]


@pytest.mark.parametrize("case", GPU_POOL_CASES, ids=str)
def test_pooling_gpu_matches_cpu(case):
    data = (2, 3, 9) if len(case["kernel"]) == 1 else (2, 3, 9, 8)
    check_consistency(mx.sym.Pooling(mx.sym.var("data"), name="pool", **case), both(data=data))


@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("layout,data,kernel", [("NHWC", (2, 9, 8, 3), (3, 3)), ("NWC", (2, 9, 3), (3,)),
                                                ("NDHWC", (1, 5, 6, 7, 3), (2, 3, 3))])
def test_channels_last_pooling_gpu_matches_cpu(pool_type, layout, data, kernel):
    sym = mx.sym.Pooling(mx.sym.var("data"), kernel=kernel, stride=(2,) * len(kernel), pad=(1,) * len(kernel),
                         pool_type=pool_type, layout=layout, name="pool")
    check_consistency(sym, both(data=data))
    check_consistency(mx.sym.Pooling(mx.sym.var("data"), global_pool=True, kernel=(1,) * len(kernel),
                                     pool_type=pool_type, layout=layout), both(data=data))


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_global_and_unpadded_avg_pooling_gpu_matches_cpu(count_include_pad):
    sym = mx.sym.Pooling(mx.sym.var("data"), kernel=(3, 3), pad=(1, 1), pool_type="avg",
                         count_include_pad=count_include_pad)
    check_consistency(sym, both(data=(2, 3, 6, 6)))
    check_consistency(mx.sym.Pooling(mx.sym.var("data"), global_pool=True, kernel=(1, 1), pool_type="avg"),
                      both(data=(2, 3, 6, 6)))


@pytest.mark.parametrize("act", [a[0] for a in ACTIVATIONS])
def test_activation_gpu_matches_cpu(act):
    check_consistency(mx.sym.Activation(mx.sym.var("data"), act_type=act), both(data=(3, 7)))


@pytest.mark.parametrize("op,domain", [(u[0], u[2]) for u in UNARY_MATH])
def test_unary_math_gpu_matches_cpu(op, domain):
    x = mx.sym.var("data")
    if domain != "any":
        x = mx.sym.abs(x) + 0.5  # keep the input in the domain
    check_consistency(getattr(mx.sym, op)(x), both(data=(4, 5)))


@pytest.mark.parametrize("op,domain", [(u[0], u[2]) for u in MORE_UNARY_MATH])
def test_more_unary_math_gpu_matches_cpu(op, domain):
    x = in_domain(np.random.RandomState(7).normal(size=(4, 5)), domain)
    sym = getattr(mx.sym, op)(mx.sym.var("data"))
    # the inputs are given (check_consistency would draw values outside the domain)
    check_consistency(sym, both(data=x.shape), arg_params={"data": x})


@pytest.mark.parametrize("a_min,a_max", CLIP_CASES)
def test_clip_gpu_matches_cpu(a_min, a_max):
    sym = mx.sym.clip(mx.sym.var("data") * 4, a_min=a_min, a_max=a_max)
    check_consistency(sym, both(data=(4, 5)))


@pytest.mark.parametrize("op", [b[0] for b in ELEMWISE_BINARY])
def test_binary_gpu_matches_cpu(op):
    b = mx.sym.var("b")
    if op == "elemwise_div":
        b = mx.sym.abs(b) + 0.5
    check_consistency(getattr(mx.sym, op)(mx.sym.var("a"), b), both(a=(3, 4), b=(3, 4)))


def test_scalar_ops_and_add_n_gpu_match_cpu():
    x = mx.sym.var("data")
    check_consistency(mx.sym.add_n(x * 2, x + 1, 3 - x, x / 4, 1 / (mx.sym.abs(x) + 1)), both(data=(5, 6)))


@pytest.mark.parametrize("no_bias", [True, False])
@pytest.mark.parametrize("flatten", [True, False])
def test_fully_connected_gpu_matches_cpu(no_bias, flatten):
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=7, no_bias=no_bias, flatten=flatten)
    check_consistency(sym, both(data=(4, 3, 5)))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_gpu_matches_cpu(op, axis):
    check_consistency(getattr(mx.sym, op)(mx.sym.var("data"), axis=axis), both(data=(3, 4, 5)))


@pytest.mark.parametrize("kw", [{}, {"normalization": "batch"}, {"use_ignore": True, "ignore_label": 2,
                                                                   "normalization": "valid"},
                                {"smooth_alpha": 0.1}, {"multi_output": True}])
def test_softmax_output_gpu_matches_cpu(kw):
    data = (4, 5, 3) if kw.get("multi_output") else (6, 5)
    label = (4, 3) if kw.get("multi_output") else (6,)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("data"), mx.sym.var("label"), **kw)
    labels = np.random.randint(0, 5, size=label).astype(np.float64)
    check_consistency(sym, both(data=data, label=label), arg_params={"label": labels})


@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float32", "bfloat16"), ("float16", "float32"),
                                     ("float64", "float32"), ("float32", "int32")])
def test_cast_gpu_matches_cpu(src, dst):
    x = np.random.randn(5, 7) * 100
    a = mx.nd.array(x, dtype=src).astype(dst).asnumpy()
    b = mx.nd.array(x, dtype=src, ctx=GPU).astype(dst).asnumpy()
    np.testing.assert_array_equal(b, a)  # the same rounding rules on both devices


def test_all_finite_on_gpu_keeps_one_flag():
    good = mx.nd.array(np.ones((1000,)), ctx=GPU, dtype="float16")
    bad = mx.nd.array(np.r_[np.ones(999), np.inf], ctx=GPU)
    assert mx.nd.all_finite(good).asnumpy()[0] == 1
    assert mx.nd.all_finite(bad).asnumpy()[0] == 0
    assert mx.nd.multi_all_finite(good, bad, num_arrays=2).asnumpy()[0] == 0


@pytest.mark.parametrize("op,n_state", [("sgd_update", 0), ("sgd_mom_update", 1), ("nag_mom_update", 1)])
def test_sgd_updates_gpu_match_cpu(op, n_state):
    rng = np.random.RandomState(1)
    w, g = rng.randn(50), rng.randn(50)
    states = [rng.randn(50) for _ in range(n_state)]
    kw = dict(lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=1.0)
    if n_state:
        kw["momentum"] = 0.9
    res = []
    for ctx in (mx.cpu(), GPU):
        arrs = [mx.nd.array(v, ctx=ctx) for v in [w, g] + states]
        getattr(mx.nd, op)(*arrs, out=arrs[0], **kw)
        res.append([a.asnumpy() for a in arrs])
    for a, b in zip(*res):
        assert_almost_equal(b, a, rtol=1e-6, atol=1e-6)


def test_multi_mp_sgd_mom_update_gpu_matches_cpu():
    rng = np.random.RandomState(2)
    shapes = [(7,), (3, 4)]
    res = []
    for ctx in (mx.cpu(), GPU):
        r = np.random.RandomState(3)
        arrs = []
        for s in shapes:
            w32 = r.randn(*s)
            arrs += [mx.nd.array(w32, ctx=ctx, dtype="float16"), mx.nd.array(r.randn(*s), ctx=ctx, dtype="float16"),
                     mx.nd.array(r.randn(*s), ctx=ctx), mx.nd.array(w32, ctx=ctx)]
        outs = [arrs[0], arrs[4]]
        mx.nd.multi_mp_sgd_mom_update(*arrs, out=outs, lrs=(0.1, 0.2), wds=(0.0, 0.01), momentum=0.9,
                                      rescale_grad=0.25, num_weights=2)
        res.append([a.asnumpy() for a in arrs])
    del rng
    for a, b in zip(*res):
        assert_almost_equal(b, a, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("shape,axes", TRANSPOSE_CASES)
def test_transpose_gpu_matches_cpu(shape, axes):
    kw = {} if axes is None else {"axes": axes}
    check_consistency(mx.sym.transpose(mx.sym.var("data"), **kw), both(data=shape))


@pytest.mark.parametrize("shape,op,kw,out_shape", EXPAND_SQUEEZE_CASES)
def test_expand_dims_and_squeeze_gpu_match_cpu(shape, op, kw, out_shape):
    check_consistency(getattr(mx.sym, op)(mx.sym.var("data"), **kw), both(data=shape))


@pytest.mark.parametrize("op", [b[0] for b in BROADCAST_BINARY])
def test_broadcast_gpu_matches_cpu(op):
    b = mx.sym.var("b")
    if op == "broadcast_div":
        b = mx.sym.abs(b) + 0.5
    check_consistency(getattr(mx.sym, op)(mx.sym.var("a"), b), both(a=(3, 1, 5), b=(1, 4, 5)))


@pytest.mark.parametrize("op", [r[0] for r in REDUCE_OPS])
@pytest.mark.parametrize("axis,keepdims,exclude", REDUCE_CASES)
def test_reduce_gpu_matches_cpu(op, axis, keepdims, exclude):
    kw = {"keepdims": keepdims, "exclude": exclude}
    if axis is not None:
        kw["axis"] = axis
    check_consistency(getattr(mx.sym, op)(mx.sym.var("data"), **kw), both(data=(3, 4, 5)))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_concat_gpu_matches_cpu(dim):
    sym = mx.sym.Concat(mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c"), dim=dim)
    check_consistency(sym, both(a=(2, 3, 4), b=(2, 3, 4), c=(2, 3, 4)))


def test_dropout_gpu_draws_the_cpu_mask():
    x = np.random.randn(64, 33)
    outs = []
    for ctx in (mx.cpu(), GPU):
        mx.random.seed(7)
        exe = mx.sym.Dropout(mx.sym.var("data"), p=0.3).simple_bind(ctx, data=x.shape)
        exe.arg_dict["data"][:] = x
        outs.append(exe.forward(is_train=True)[0].asnumpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    assert 0.2 < (outs[0] == 0).mean() < 0.4


# the samplers draw element i from counter i of the call's stream: at one seed the GPU gives the
# CPU's samples (continuous ones up to the last bits of the devices' log/cos; counts exactly)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", RANDOM_CASES, ids=lambda c: c[0])
def test_random_samplers_gpu_draw_the_cpu_samples(case, dtype):
    _, fn, params = case[:3]
    outs = []
    for ctx in (mx.cpu(), GPU):
        mx.random.seed(13)
        outs.append(getattr(mx.nd.random, fn)(shape=(3000,), dtype=dtype, ctx=ctx, **params).asnumpy())
    rtol = {"float64": 1e-12, "float32": 1e-6}.get(dtype, 1e-2)
    np.testing.assert_allclose(outs[1].astype(np.float64), outs[0].astype(np.float64), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("case", RANDOM_SAMPLE_CASES, ids=lambda c: c[0])
def test_sample_ops_gpu_draw_the_cpu_samples(case):
    op, _, params = case[:3]
    outs = []
    for ctx in (mx.cpu(), GPU):
        mx.random.seed(13)
        arrays = [mx.nd.array(p, ctx=ctx) for p in params]
        outs.append(getattr(mx.nd, op)(*arrays, shape=(500,), dtype="float64").asnumpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-12, atol=1e-12)


def test_randint_and_shuffle_gpu_match_cpu():
    outs = []
    for ctx in (mx.cpu(), GPU):
        mx.random.seed(21)
        r = mx.nd.random.randint(-(2 ** 40), 2 ** 40, shape=(1000,), dtype="int64", ctx=ctx).asnumpy()
        s = mx.nd.random.shuffle(mx.nd.array(np.arange(300).reshape(100, 3), ctx=ctx)).asnumpy()
        outs.append((r, s))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    np.testing.assert_array_equal(outs[1][1], outs[0][1])


def test_linear_regression_output_gpu_matches_cpu():
    sym = mx.sym.LinearRegressionOutput(mx.sym.var("data"), mx.sym.var("label"), grad_scale=2.0)
    check_consistency(sym, both(data=(5, 3), label=(5, 3)))


# ---- the loss heads and the unary math ops with attributes (test_operator_loss.py's tables); the
# inputs are given, away from the kinks of the losses (random draws would round across them)
@pytest.mark.parametrize("op,dshape,lshape,kw", LOSS_REGRESSION_CASES)
def test_regression_output_heads_gpu_match_cpu(op, dshape, lshape, kw):
    x, label = loss_regression_inputs(op, dshape, lshape)
    sym = getattr(mx.sym, op)(mx.sym.var("data"), mx.sym.var("label"), **kw)
    check_consistency(sym, both(data=dshape, label=lshape), arg_params={"data": x, "label": label})


@pytest.mark.parametrize("dshape,kw", SVM_CASES)
def test_svm_output_gpu_matches_cpu(dshape, kw):
    x, label = svm_case_inputs(dshape, kw)
    sym = mx.sym.SVMOutput(mx.sym.var("data"), mx.sym.var("label"), **kw)
    check_consistency(sym, both(data=dshape, label=dshape[:-1]), arg_params={"data": x, "label": label})


@pytest.mark.parametrize("dshape,kw", MAKE_LOSS_CASES)
def test_make_loss_gpu_matches_cpu(dshape, kw):
    """MakeLoss (the 'valid' count runs on the device) and make_loss."""
    x = np.random.RandomState(2).normal(size=dshape)
    check_consistency(mx.sym.MakeLoss(mx.sym.var("data"), **kw), both(data=dshape), arg_params={"data": x})
    check_consistency(mx.sym.make_loss(mx.sym.var("data") * 2), both(data=dshape))


@pytest.mark.parametrize("op,kw", [c[:2] for c in PARAM_UNARY_CASES], ids=str)
def test_param_unary_math_gpu_matches_cpu(op, kw):
    """smooth_l1, hard_sigmoid and softmin."""
    x = param_unary_input(op, kw, (4, 5))
    check_consistency(getattr(mx.sym, op)(mx.sym.var("data"), **kw), both(data=x.shape), arg_params={"data": x})


@pytest.mark.parametrize("act", [a[0] for a in LEAKY_ACTS] + ["prelu"])
def test_leaky_relu_gpu_matches_cpu(act):
    data = mx.sym.var("data")
    if act == "prelu":
        sym = mx.sym.LeakyReLU(data, gamma=mx.sym.var("gamma"), act_type="prelu")
        check_consistency(sym, both(data=(3, 4, 5, 2), gamma=(4,)))
    else:
        check_consistency(mx.sym.LeakyReLU(data, act_type=act, slope=0.2), both(data=(3, 4, 5)))


def test_softmax_cross_entropy_gpu_matches_cpu():
    sym = mx.sym.softmax_cross_entropy(mx.sym.var("data"), mx.sym.var("label"))
    labels = np.random.randint(0, 6, size=(5,)).astype(np.float64)
    check_consistency(sym, both(data=(5, 6), label=(5,)), arg_params={"label": labels})


@pytest.mark.parametrize("op,case", [("dot", c) for c in DOT_CASES] + [("batch_dot", c) for c in BATCH_DOT_CASES])
def test_dot_gpu_matches_cpu(op, case):
    sa, sb, ta, tb = case
    sym = getattr(mx.sym, op)(mx.sym.var("a"), mx.sym.var("b"), transpose_a=ta, transpose_b=tb)
    check_consistency(sym, both(a=sa, b=sb))


@pytest.mark.parametrize("op,shape,kw", BOX_CASES)
def test_slice_and_slice_axis_gpu_match_cpu(op, shape, kw):
    check_consistency(getattr(mx.sym, op)(mx.sym.var("data"), **kw), both(data=shape))


@pytest.mark.parametrize("shape,kw", LRN_CASES)
def test_lrn_gpu_matches_cpu(shape, kw):
    check_consistency(mx.sym.LRN(mx.sym.var("data"), **kw), both(data=shape))


@pytest.mark.parametrize("shape,kw", L2NORM_CASES)
def test_l2_normalization_gpu_matches_cpu(shape, kw):
    check_consistency(mx.sym.L2Normalization(mx.sym.var("data"), **kw), both(data=shape))


@pytest.mark.parametrize("op,shape,kw", LAYERNORM_FAMILY_CASES)
def test_layer_instance_group_norm_gpu_match_cpu(op, shape, kw):
    """Forward (out and, with output_mean_var, mean and std) and the gradients of data, gamma
    and beta; the GPU runs norm_kernels.h's per-group kernels, the CPU oneDNN or its loops."""
    sym, loc, _, _ = norm_case(op, shape, kw)
    check_consistency(sym, both(**{k: v.shape for k, v in loc.items()}))


@pytest.mark.parametrize("shape,op,kw", SPLIT_CASES)
def test_split_gpu_matches_cpu(shape, op, kw):
    check_consistency(getattr(mx.sym, op)(mx.sym.var("data"), **kw), both(data=shape))


@pytest.mark.parametrize("case", SHAPE_CASES, ids=shape_case_id)
def test_shape_op_gpu_matches_cpu(case):
    """broadcast_to/like/axis, tile, repeat, reverse, stack, SwapAxis and reshape_like."""
    sym, shapes = shape_case_symbol(*case)
    check_consistency(sym, both(**shapes))


@pytest.mark.parametrize("name", sorted(BINARY_MATH))
def test_binary_math_gpu_matches_cpu(name):
    """Same-shape, broadcast and scalar forms, on operands inside each op's domain (16-bit
    representable, so every dtype sees the same values)."""
    for op, sa, sb in (("_" + name, (3, 4), (3, 4)), ("broadcast_" + name, (3, 1, 4), (1, 5, 4))):
        a, b = binary_operands(name, sa, sb)
        params = {"a": a.astype(np.float16).astype(np.float64), "b": b.astype(np.float16).astype(np.float64)}
        check_consistency(getattr(mx.sym, op)(mx.sym.var("a"), mx.sym.var("b")), both(a=sa, b=sb),
                          arg_params=params)
    a = binary_operands(name, (3, 4), (3, 4))[0].astype(np.float16).astype(np.float64)
    ops = ["_%s_scalar" % name] + (["_r%s_scalar" % name] if name in ("power", "mod") else [])
    for op in ops:
        x = np.abs(a) + 0.5 if op == "_rpower_scalar" else a
        check_consistency(getattr(mx.sym, op)(mx.sym.var("x"), scalar=BINARY_SCALARS[name]), both(x=(3, 4)),
                          arg_params={"x": x})


def test_logical_not_gpu_matches_cpu():
    check_consistency(mx.sym.logical_not(mx.sym.round(mx.sym.var("x"))), both(x=(4, 5)))


# ---- where, take, pick, slice_like, diag (test_operator_index.py's tables); index arrays and
# conditions are fixed (arg_params), since random values would round differently per dtype
@pytest.mark.parametrize("cshape,xshape", WHERE_CASES)
def test_where_gpu_matches_cpu(cshape, xshape):
    sym, loc, _ = where_case(cshape, xshape)
    check_consistency(sym, both(condition=cshape, x=xshape, y=xshape), arg_params={"condition": loc["condition"]})


@pytest.mark.parametrize("shape,idx,kw", TAKE_CASES)
def test_take_gpu_matches_cpu(shape, idx, kw):
    sym, loc, _, _ = take_case(shape, idx, kw)
    check_consistency(sym, both(a=shape, indices=np.shape(idx)), arg_params={"indices": loc["indices"]})


@pytest.mark.parametrize("shape,kw,idx", PICK_CASES)
def test_pick_gpu_matches_cpu(shape, kw, idx):
    sym, loc, _, _ = pick_case(shape, kw, idx)
    check_consistency(sym, both(data=shape, index=np.shape(idx)), arg_params={"index": loc["index"]})


@pytest.mark.parametrize("shape,like,axes", SLICE_LIKE_CASES)
def test_slice_like_gpu_matches_cpu(shape, like, axes):
    sym = slice_like_case(shape, like, axes)[0]
    check_consistency(sym, both(data=shape, shape_like=like))


@pytest.mark.parametrize("shape,kw", DIAG_CASES)
def test_diag_gpu_matches_cpu(shape, kw):
    check_consistency(mx.sym.diag(mx.sym.var("data"), **kw), both(data=shape))


def test_index_and_creation_ops_of_every_dtype_gpu_match_cpu():
    """The outputs that are not floats (int and bool fills, int64 shapes, one_hot in any dtype)
    and the index arrays of integer dtypes, exactly, on both devices."""
    def same(make):
        np.testing.assert_array_equal(make(GPU).asnumpy(), make(mx.cpu()).asnumpy())

    for idx, kw in ONE_HOT_CASES:
        same(lambda ctx: mx.nd.one_hot(mx.nd.array(idx, ctx=ctx), **kw))
    for kw in ARANGE_CASES:
        same(lambda ctx: mx.nd.arange(ctx=ctx, **kw))
    for dtype in ["int32", "int64", "uint8", "bool", "float16"]:
        same(lambda ctx: mx.nd._full(shape=(3, 2), value=3.7, dtype=dtype, ctx=ctx))
        same(lambda ctx: mx.nd._ones(shape=(5,), dtype=dtype, ctx=str(ctx)))
        same(lambda ctx: mx.nd.take(mx.nd.array(np.arange(12).reshape(3, 4), dtype=dtype, ctx=ctx),
                                    mx.nd.array([2, 0, 1], dtype="int64", ctx=ctx), axis=1))
    a = np.arange(24).reshape(2, 3, 4)
    same(lambda ctx: mx.nd.shape_array(mx.nd.array(a, ctx=ctx)))
    same(lambda ctx: mx.nd.size_array(mx.nd.array(a, ctx=ctx)))
    same(lambda ctx: mx.nd.where(mx.nd.array([1, 0, 2], dtype="int8", ctx=ctx), mx.nd.array(a[0], ctx=ctx),
                                 mx.nd.array(-a[0], ctx=ctx)))
    assert mx.nd._zeros(shape=(2,), ctx=str(GPU)).context == GPU
    with pytest.raises(mx.MXNetError, match=r"take: mode='raise' and an index is outside \[0, 2\]"):
        mx.nd.take(mx.nd.array(a[0], ctx=GPU), mx.nd.array([0, 3], ctx=GPU), mode="raise").wait_to_read()


@pytest.mark.parametrize("op", ["max", "min", "prod", "nansum", "nanprod"])
@pytest.mark.parametrize("shape,kw", AXES_REDUCE_CASES)
def test_reductions_gpu_match_cpu(op, shape, kw):
    # distinct values: max/min and their gradients do not depend on how 16 bits round ties
    x = distinct(shape) / max(1, np.prod(shape) / 10)
    if op.endswith("prod"):  # terms near 1 (and none 0): products stay in range in every dtype
        x = np.abs(x) / 4 + 0.8
    check_consistency(getattr(mx.sym, op)(mx.sym.var("x"), **kw), both(x=shape),
                      arg_params={"x": x.astype(np.float16).astype(np.float64)})


@pytest.mark.parametrize("shape,kw", NORM_CASES)
def test_norm_gpu_matches_cpu(shape, kw):
    check_consistency(mx.sym.norm(mx.sym.var("x"), **kw), both(x=shape))


@pytest.mark.parametrize("op,shape,kw", SEARCH_CASES)
def test_searches_gpu_match_cpu(op, shape, kw):
    x = distinct(shape).astype(np.float16).astype(np.float64)
    check_consistency(getattr(mx.sym, op)(mx.sym.var("x"), **kw), both(x=shape), arg_params={"x": x})


@pytest.mark.parametrize("shape,kw", TOPK_CASES)
@pytest.mark.parametrize("ret", ["value", "indices", "mask", "both"])
def test_topk_gpu_matches_cpu(shape, kw, ret):
    # distinct values, exact in 16 bits: every dtype sees the same order
    x = np.random.RandomState(1).permutation(int(np.prod(shape))).reshape(shape) / 64.0
    check_consistency(mx.sym.topk(mx.sym.var("x"), ret_typ=ret, **kw), both(x=shape), arg_params={"x": x})


@pytest.mark.parametrize("shape,kw", SORT_CASES)
def test_sort_and_argsort_gpu_match_cpu(shape, kw):
    x = np.random.RandomState(1).permutation(int(np.prod(shape))).reshape(shape) / 64.0
    for op in (mx.sym.sort, mx.sym.argsort):
        check_consistency(op(mx.sym.var("x"), **kw), both(x=shape), arg_params={"x": x})


@pytest.mark.parametrize("idx,input_dim,output_dim", EMBEDDING_CASES)
def test_embedding_gpu_matches_cpu(idx, input_dim, output_dim):
    sym, loc, _ = embedding_case(idx, input_dim, output_dim)
    check_consistency(sym, both(data=np.shape(idx), weight=(input_dim, output_dim)),
                      arg_params={"data": loc["data"]})


@pytest.mark.parametrize("shape,kw,lengths", SEQ_CASES)
def test_sequence_ops_gpu_match_cpu(shape, kw, lengths):
    mask, last, loc = seq_case(shape, kw, lengths)
    shapes = {k: v.shape for k, v in loc.items()}
    fixed = {k: v for k, v in loc.items() if k == "sequence_length"}
    for sym in (mask, last):
        check_consistency(sym, both(**shapes), arg_params=fixed)


@pytest.mark.parametrize("shape,mode", SOFTMAX_ACT_CASES)
def test_softmax_activation_gpu_matches_cpu(shape, mode):
    check_consistency(mx.sym.SoftmaxActivation(mx.sym.var("data"), mode=mode), both(data=shape))


@pytest.mark.parametrize("case", CTC_CASES, ids=ctc_case_id)
def test_ctc_loss_gpu_matches_cpu(case):
    sym, loc = ctc_case(*case)
    fixed = {k: v for k, v in loc.items() if k != "data"}  # labels and lengths as the case gives them
    check_consistency(sym, both(**{k: v.shape for k, v in loc.items()}), arg_params=fixed)


@pytest.mark.parametrize("mode,layers,bidirectional,shape,h", RNN_CASES)
def test_rnn_gpu_matches_cpu(mode, layers, bidirectional, shape, h):
    sym, loc = rnn_case(mode, layers, bidirectional, shape, h)
    check_consistency(sym, both(**{k: v.shape for k, v in loc.items()}), arg_params=loc)


@pytest.mark.parametrize("shape,mode,pad_width,value", PAD_CASES)
def test_pad_gpu_matches_cpu(shape, mode, pad_width, value):
    sym, _ = pad_case(shape, mode, pad_width, value)
    check_consistency(sym, both(data=shape))


@pytest.mark.parametrize("shape,kw,like", CROP_CASES)
def test_crop_gpu_matches_cpu(shape, kw, like):
    sym, loc = crop_case(shape, kw, like)
    check_consistency(sym, both(**{k: v.shape for k, v in loc.items()}))


@pytest.mark.parametrize("shape,kw,like", RESIZE_CASES)
def test_bilinear_resize_gpu_matches_cpu(shape, kw, like):
    sym, loc = resize_case(shape, kw, like)
    check_consistency(sym, both(**{k: v.shape for k, v in loc.items()}))


@pytest.mark.parametrize("shape,kw", LP_SAME_POOL_CASES, ids=str)
def test_lp_and_same_pooling_gpu_matches_cpu(shape, kw):
    sym, loc = lp_same_case(shape, kw)
    check_consistency(sym, both(x=shape), arg_params=loc)


@pytest.mark.parametrize("shape,kw", DECONV_CASES, ids=str)
def test_deconvolution_gpu_matches_cpu(shape, kw):
    loc = deconv_location(shape, kw)
    check_consistency(deconv_sym(kw), both(**{k: v.shape for k, v in loc.items()}))


@pytest.mark.parametrize("shapes,kw", UPSAMPLING_CASES, ids=str)
def test_upsampling_gpu_matches_cpu(shapes, kw):
    loc = upsampling_location(shapes, kw)
    check_consistency(upsampling_sym(shapes, kw), both(**{k: v.shape for k, v in loc.items()}))


@pytest.mark.parametrize("lhs,rhs,fmt", BOX_IOU_CASES)
def test_box_iou_gpu_matches_cpu(lhs, rhs, fmt):
    check_consistency(box_iou_sym(fmt), both(lhs=lhs.shape, rhs=rhs.shape), arg_params={"lhs": lhs, "rhs": rhs})


# NMS and matching decisions compare scores and IoUs with thresholds: 16-bit rounding may move a
# value across one, so these two are compared in float64 and float32
@pytest.mark.parametrize("case", range(len(NMS_CASES)))
def test_box_nms_gpu_matches_cpu(case):
    data, kw = NMS_CASES[case]
    check_consistency(nms_sym(kw), both(["float64", "float32"], data=data.shape), arg_params={"data": data})


@pytest.mark.parametrize("scores,kw,known", MATCHING_CASES)
def test_bipartite_matching_gpu_matches_cpu(scores, kw, known):
    sym = mx.sym.contrib.bipartite_matching(mx.sym.var("data"), **kw)
    check_consistency(sym, both(["float64", "float32"], data=scores.shape), arg_params={"data": scores})


@pytest.mark.parametrize("shape,rois,kw", ROI_ALIGN_CASES)
def test_roi_align_gpu_matches_cpu(shape, rois, kw):
    sym, loc = roi_align_case(shape, rois, kw)
    rois = np.round(loc["rois"] * 4) / 4  # exact in 16 bits: every dtype samples the same points
    check_consistency(sym, both(data=shape, rois=rois.shape), arg_params={"rois": rois})


@pytest.mark.parametrize("shape,rois,pooled,scale", ROI_POOL_CASES)
def test_roi_pooling_gpu_matches_cpu(shape, rois, pooled, scale):
    sym, loc = roi_pool_case(shape, rois, pooled, scale)
    check_consistency(sym, both(data=shape, rois=loc["rois"].shape), arg_params={"rois": loc["rois"]})


# the detection ops: their outputs hang on sort orders and thresholds, so the comparison is in
# float64 and float32 (whose rounding does not reorder these tie-free inputs)
from test_operator_multibox import (DETECTION_CASES, PRIOR_CASES, PROPOSAL_CASES, TARGET_CASES,  # noqa: E402
                                    detection_inputs, detection_sym, prior_sym, proposal_inputs, proposal_sym,
                                    target_inputs, target_sym)

DETECTION_DTYPES = ["float64", "float32"]


@pytest.mark.parametrize("h,w,kw", PRIOR_CASES)
def test_multibox_prior_gpu_matches_cpu(h, w, kw):
    check_consistency(prior_sym(kw), both(FLOAT_TYPES, data=(1, 2, h, w)))


@pytest.mark.parametrize("mk,kw", TARGET_CASES)
def test_multibox_target_gpu_matches_cpu(mk, kw):
    loc = target_inputs(**mk)
    check_consistency(target_sym(kw), both(DETECTION_DTYPES, **{k: v.shape for k, v in loc.items()}),
                      arg_params=loc)


@pytest.mark.parametrize("kw", DETECTION_CASES, ids=str)
def test_multibox_detection_gpu_matches_cpu(kw):
    loc = detection_inputs()
    check_consistency(detection_sym(kw), both(DETECTION_DTYPES, **{k: v.shape for k, v in loc.items()}),
                      arg_params=loc)


@pytest.mark.parametrize("mk,kw", PROPOSAL_CASES)
def test_proposal_gpu_matches_cpu(mk, kw):
    loc = proposal_inputs(**mk)
    check_consistency(proposal_sym(dict(kw, output_score=True)),
                      both(DETECTION_DTYPES, **{k: v.shape for k, v in loc.items()}), arg_params=loc)
    loc = proposal_inputs(batches=2, im=((64, 80, 1.0), (40, 60, 0.5)))
    check_consistency(proposal_sym(PROPOSAL_CASES[0][1], multi=True),
                      both(DETECTION_DTYPES, **{k: v.shape for k, v in loc.items()}), arg_params=loc)


def test_custom_op_gpu_matches_cpu():
    """A Custom op's Python code sees arrays on the bind's device and runs mx.nd there."""
    rng = np.random.RandomState(11)
    a, b = rng.randn(3, 4).astype(np.float32), rng.randn(3, 4).astype(np.float32)
    results = []
    for ctx in (mx.cpu(), GPU):
        exe = mx.sym.Custom(a=mx.sym.var("a"), b=mx.sym.var("b"), op_type="test_scale_add",
                            scale=1.5).simple_bind(ctx, a=a.shape, b=b.shape)
        exe.arg_dict["a"][:] = a
        exe.arg_dict["b"][:] = b
        outs = exe.forward(is_train=True)
        assert outs[0].context == ctx
        exe.backward([mx.nd.ones(a.shape, ctx=ctx), mx.nd.ones(a.shape, ctx=ctx)])
        results.append([o.asnumpy() for o in outs] + [g.asnumpy() for g in exe.grad_arrays])
    for c, g in zip(*results):
        assert_almost_equal(g, c, rtol=1e-6, atol=1e-6)
