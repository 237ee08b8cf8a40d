"""The loss heads (LogisticRegressionOutput, MAERegressionOutput, SVMOutput, MakeLoss, make_loss,
SoftmaxOutput's normalizations) and the unary math ops with attributes (smooth_l1, hard_sigmoid,
softmin), plus the special functions' accuracy (erfinv, gamma, gammaln and digamma, gammaln's
gradient).

A loss head ignores its head gradient: its backward is the gradient of a loss, so the
finite-difference checks here differentiate that loss (written out in NumPy, in float64) rather
than sum(output * head). The case tables are also what tests/python/gpu/test_operator_gpu.py
compares between the CPU and a GPU."""
import math

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import (check_numeric_gradient, check_symbolic_backward, check_symbolic_forward,
                               numeric_grad)
from test_operator import check_16bit, check_add_req

# (op, data shape, label shape, attributes): the label may be (n,) for (n, 1) data, or any shape
# with the data's batch and size (MXNet's rule)
LOSS_REGRESSION_CASES = [
    ("LogisticRegressionOutput", (4, 3), (4, 3), {}),
    ("LogisticRegressionOutput", (5, 1), (5,), {"grad_scale": 2.0}),
    ("MAERegressionOutput", (4, 3), (4, 3), {"grad_scale": 0.5}),
    ("MAERegressionOutput", (3, 2, 2), (3, 4), {}),
    ("LinearRegressionOutput", (5, 1), (5,), {"grad_scale": 3.0}),
]
# (data shape, attributes); labels are class indices along the last axis
SVM_CASES = [
    ((4, 5), {}),
    ((4, 5), {"use_linear": True}),
    ((3, 2, 4), {"margin": 0.7, "regularization_coefficient": 2.0}),
    ((3, 2, 4), {"margin": 1.5, "regularization_coefficient": 0.5, "use_linear": True}),
]
# (data shape, attributes)
MAKE_LOSS_CASES = [
    ((3, 4), {}),
    ((3, 4), {"grad_scale": 3.0, "normalization": "batch"}),
    ((2, 3, 2), {"grad_scale": 2.0, "normalization": "valid", "valid_thresh": 0.1}),
    ((2, 3), {"normalization": "valid", "valid_thresh": 10.0}),  # nothing valid: divides by 1
]
# (op, attributes, numpy reference)
PARAM_UNARY_CASES = [
    ("smooth_l1", {}, lambda x: np.where(np.abs(x) < 1, 0.5 * x * x, np.abs(x) - 0.5)),
    ("smooth_l1", {"scalar": 2.0}, lambda x: np.where(np.abs(x) < 0.25, 2 * x * x, np.abs(x) - 0.125)),
    # alpha and beta are float32 attributes (as MXNet's), so the reference uses their float32 values
    ("hard_sigmoid", {}, lambda x: np.clip(_f32(0.2) * x + 0.5, 0, 1)),
    ("hard_sigmoid", {"alpha": 0.6, "beta": 0.3}, lambda x: np.clip(_f32(0.6) * x + _f32(0.3), 0, 1)),
    ("softmin", {}, lambda x: _np_softmax(-x, -1)),
    ("softmin", {"axis": 0, "temperature": 2.5}, lambda x: _np_softmax(-x / 2.5, 0)),
]


def _f32(v):
    return float(np.float32(v))


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def loss_regression_inputs(op, dshape, lshape, seed=3):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=dshape)
    if op == "LogisticRegressionOutput":
        label = rng.uniform(0, 1, size=lshape)
    elif op == "MAERegressionOutput":  # a label at least 0.2 from its prediction (no tie, no kink)
        label = x.reshape(lshape) + rng.choice([-1, 1], size=lshape) * rng.uniform(0.2, 1, size=lshape)
    else:
        label = rng.normal(size=lshape)
    return x, label


def _regression_loss(op, x, label, grad_scale):
    """The loss whose gradient the head yields: averaged over the outputs of a sample."""
    m = label.size / label.shape[0]
    lab = label.reshape(x.shape)
    if op == "LogisticRegressionOutput":
        p = _sigmoid(x)
        per = -(lab * np.log(p) + (1 - lab) * np.log(1 - p))
    elif op == "MAERegressionOutput":
        per = np.abs(x - lab)
    else:
        per = 0.5 * (x - lab) ** 2
    return per.sum() * grad_scale / m


@pytest.mark.parametrize("op,dshape,lshape,kw", LOSS_REGRESSION_CASES)
def test_loss_regression_outputs(op, dshape, lshape, kw):
    x, label = loss_regression_inputs(op, dshape, lshape)
    sym = getattr(mx.sym, op)(mx.sym.var("data"), mx.sym.var("label"), **kw)
    if len(dshape) == 2:
        assert sym.infer_shape(data=dshape)[0][1] == lshape  # the label shape MXNet infers
    loc = {"data": x, "label": label}
    fwd = _sigmoid(x) if op == "LogisticRegressionOutput" else x
    check_symbolic_forward(sym, loc, [fwd], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, loc, [fwd], rtol=1e-12, atol=1e-12, dtype=np.float64)
    xd = x.copy()
    fd = numeric_grad(lambda: _regression_loss(op, xd, label, kw.get("grad_scale", 1.0)), xd, 1e-6)
    head = [mx.nd.array(np.random.RandomState(5).normal(size=dshape), dtype="float64")]  # ignored
    check_symbolic_backward(sym, loc, head, {"data": fd, "label": np.zeros(lshape)}, rtol=1e-6, atol=1e-8,
                            dtype=np.float64)
    check_add_req(sym, loc, head)
    check_16bit(sym, loc)


def test_loss_mae_tie_counts_as_minus_one_and_label_errors():
    sym = mx.sym.MAERegressionOutput(mx.sym.var("data"), mx.sym.var("label"), name="mae")
    x = np.array([[1.0, 2.0], [3.0, -1.0]])
    got = check_symbolic_backward(sym, {"data": x, "label": np.array([[1.0, 1.0], [4.0, -1.0]])}, None,
                                  {"data": np.array([[-0.5, 0.5], [-0.5, -0.5]])})
    assert got["data"].shape == (2, 2)
    # a label of the wrong size (or batch) names the node, the label and both shapes
    with pytest.raises(mx.MXNetError, match=r"'mae'.*label.*\(2, 3\).*\(2, 2\)|'mae'.*label.*\(2, 2\).*\(2, 3\)"):
        sym.infer_shape(data=(2, 3), label=(2, 2))
    with pytest.raises(mx.MXNetError, match=r"'mae'.*label"):
        sym.infer_shape(data=(2, 3), label=(3, 2))
    mx.sym.LogisticRegressionOutput(mx.sym.var("data"), mx.sym.var("label")).infer_shape(data=(2, 3), label=(2, 3, 1))


def _svm_loss(x, label, margin=1.0, regularization_coefficient=1.0, use_linear=False):
    """One-vs-rest hinge over the last axis: h(margin - s_label) + sum_other h(margin + s_j)."""
    k = x.shape[-1]
    s = x.reshape(-1, k)
    own = np.eye(k)[label.reshape(-1).astype(int)].astype(bool)
    z = np.where(own, margin - s, margin + s)
    h = np.maximum(z, 0) if use_linear else np.maximum(z, 0) ** 2
    return regularization_coefficient * h.sum()


def svm_case_inputs(dshape, kw, seed=4):
    """Scores at least 0.05 from the hinge's kinks (|s| = margin), labels class indices."""
    rng = np.random.RandomState(seed)
    margin = kw.get("margin", 1.0)
    x = rng.uniform(-2, 2, size=dshape) * margin
    near = np.abs(np.abs(x) - margin) < 0.05
    x[near] += 0.1
    label = rng.randint(0, dshape[-1], size=dshape[:-1]).astype(np.float64)
    return x, label


@pytest.mark.parametrize("dshape,kw", SVM_CASES)
def test_loss_svm_output(dshape, kw):
    x, label = svm_case_inputs(dshape, kw)
    sym = mx.sym.SVMOutput(mx.sym.var("data"), mx.sym.var("label"), **kw)
    assert sym.infer_shape(data=dshape)[0][1] == dshape[:-1]
    loc = {"data": x, "label": label}
    check_symbolic_forward(sym, loc, [x], rtol=1e-6, atol=1e-7)
    xd = x.copy()
    fd = numeric_grad(lambda: _svm_loss(xd, label, **kw), xd, 1e-6)
    head = [mx.nd.array(np.random.RandomState(6).normal(size=dshape), dtype="float64")]  # ignored
    check_symbolic_backward(sym, loc, head, {"data": fd, "label": np.zeros(dshape[:-1])}, rtol=1e-6,
                            atol=1e-7, dtype=np.float64)
    check_add_req(sym, loc, head)
    check_16bit(sym, loc)


def test_loss_svm_output_matches_mxnet_values():
    """MXNet 1.9.1's gradients for these scores (L2 and L1, regularization_coefficient 0.5)."""
    s = np.array([[1.5, -2, 0.5, 0.9], [0.2, 0.3, -1.1, -0.95], [-0.5, 2.0, 1.0, 0.0]])
    label = np.array([0.0, 2, 3])
    want = {False: [[0, 0, 1.5, 1.9], [1.2, 1.3, -2.1, 0.05], [0.5, 3, 2, -1]],
            True: [[0, 0, 0.5, 0.5], [0.5, 0.5, -0.5, 0.5], [0.5, 0.5, 0.5, -0.5]]}
    for linear, g in want.items():
        sym = mx.sym.SVMOutput(mx.sym.var("data"), mx.sym.var("label"), margin=1.0,
                               regularization_coefficient=0.5, use_linear=linear)
        check_symbolic_backward(sym, {"data": s, "label": label}, None, {"data": np.array(g)}, rtol=1e-6,
                                atol=1e-6)
    assert mx.sym.SVMOutput(mx.sym.var("data"), name="svm").list_arguments() == ["data", "svm_label"]
    with pytest.raises(mx.MXNetError, match=r"'svm'.*at least 2 dims"):
        mx.sym.SVMOutput(mx.sym.var("data"), name="svm").infer_shape(data=(4,))
    with pytest.raises(mx.MXNetError, match=r"'svm'.*label.*\(4,\)"):
        mx.sym.SVMOutput(mx.sym.var("data"), mx.sym.var("label"), name="svm").infer_shape(data=(4, 3), label=(3,))


def _make_loss_norm(x, kw):
    """What MakeLoss divides grad_scale by: 1, the batch size, or the elements above valid_thresh."""
    if kw.get("normalization") == "batch":
        return x.shape[0]
    if kw.get("normalization") == "valid":
        return max(1, int((x > kw.get("valid_thresh", 0.0)).sum()))
    return 1


@pytest.mark.parametrize("dshape,kw", MAKE_LOSS_CASES)
def test_loss_make_loss(dshape, kw):
    x = np.random.RandomState(2).normal(size=dshape)
    sym = mx.sym.MakeLoss(mx.sym.var("data"), **kw)
    loc = {"data": x}
    check_symbolic_forward(sym, loc, [x], rtol=1e-6, atol=1e-7)
    # the gradient of grad_scale * sum(x) / normalization (the count is piecewise constant in x)
    norm, xd = _make_loss_norm(x, kw), x.copy()
    fd = numeric_grad(lambda: kw.get("grad_scale", 1.0) * xd.sum() / norm, xd, 1e-6)
    head = [mx.nd.array(np.random.RandomState(6).normal(size=dshape), dtype="float64")]  # ignored
    check_symbolic_backward(sym, loc, head, {"data": fd}, rtol=1e-8, atol=1e-10, dtype=np.float64)
    check_add_req(sym, loc, head)
    check_16bit(sym, loc)


def test_loss_make_loss_function_and_names():
    """make_loss: no attributes, output named 'loss', gradient 1 whatever the head gradient (MXNet)."""
    x = mx.sym.var("x")
    loss = mx.sym.make_loss(x * 2, name="l")
    assert loss.list_outputs() == ["l_loss"]
    assert mx.sym.MakeLoss(x, name="m").list_outputs() == ["m_output"]
    exe = loss.simple_bind(mx.current_context(), x=(2, 3))
    exe.arg_dict["x"][:] = np.arange(6).reshape(2, 3)
    exe.forward(is_train=True)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), 2 * np.arange(6).reshape(2, 3))
    exe.backward([mx.nd.ones((2, 3)) * 7])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.full((2, 3), 2.0))
    with pytest.raises(mx.MXNetError, match=r"normalization"):
        mx.sym.MakeLoss(x, normalization="mean")
    # both round-trip through MXNet's JSON spelling
    for s in (loss, mx.sym.MakeLoss(x, normalization="valid", valid_thresh=0.5)):
        assert mx.sym.load_json(s.tojson()).tojson() == s.tojson()


def np_softmax_output_grad(x, label, normalization="null", multi_output=False, preserve_shape=False,
                           use_ignore=False, ignore_label=-1.0, grad_scale=1.0):
    """MXNet 1.9.1's SoftmaxOutput data gradient (checked against it on the CPU): softmax - onehot
    (rows of an ignored label zero with use_ignore) times grad_scale, divided by
    - "null": the positions per sample with multi_output (H*W of (N, C, H, W) data), else 1;
    - "batch": the number of labels (N*H*W with multi_output, N for (N, C) data);
    - "valid": the labels other than ignore_label, counted with or without use_ignore (at least 1).
    Class probabilities (a label of the data's shape) get grad_scale and no divisor at all."""
    axis = 1 if multi_output else x.ndim - 1
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    p = e / e.sum(axis=axis, keepdims=True)
    if label.shape == x.shape:
        return (p - label) * grad_scale
    pm = np.moveaxis(p, axis, -1)
    g = pm - (np.arange(pm.shape[-1]) == label[..., None])
    ignored = label == ignore_label
    if use_ignore:
        g[ignored] = 0
    positions = x.size // (x.shape[0] * x.shape[1]) if multi_output else 1
    divisor = {"null": positions, "batch": label.size, "valid": max(int((~ignored).sum()), 1)}[normalization]
    return np.moveaxis(g * grad_scale / divisor, -1, axis)


# (data shape, attributes): labels are drawn from the classes, with some ignore_label entries
SOFTMAX_OUTPUT_CASES = [
    ((2, 3, 4, 5), dict(multi_output=True)),
    ((3, 4, 6), dict(multi_output=True)),
    ((4, 5), dict(multi_output=True)),
    ((5, 4), dict()),
    ((2, 3, 5), dict(preserve_shape=True)),
]


@pytest.mark.parametrize("normalization", ["null", "batch", "valid"])
@pytest.mark.parametrize("use_ignore,ignore_label", [(False, -1.0), (False, 1.0), (True, -1.0), (True, 2.0)])
@pytest.mark.parametrize("dshape,kw", SOFTMAX_OUTPUT_CASES, ids=str)
def test_softmax_output_normalization(dshape, kw, normalization, use_ignore, ignore_label):
    """SoftmaxOutput's gradient against np_softmax_output_grad for each normalization, with and
    without use_ignore, grad_scale 0.5 (float64), and the float32 kernel against it."""
    rs = np.random.RandomState(3)
    x = rs.normal(size=dshape) * 2
    classes = dshape[1] if kw.get("multi_output") else dshape[-1]
    lshape = (dshape[0],) + dshape[2:] if kw.get("multi_output") else dshape[:-1]
    label = rs.randint(0, classes, size=lshape).astype(np.float64)
    if use_ignore or 0 <= ignore_label < classes:  # without use_ignore, a class "valid" leaves out
        label.flat[::3] = ignore_label
    attrs = dict(kw, normalization=normalization, use_ignore=use_ignore, ignore_label=ignore_label,
                 grad_scale=0.5)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("data"), mx.sym.var("label"), **attrs)
    want = np_softmax_output_grad(x, label, **dict(attrs))
    loc = {"data": x, "label": label}
    check_symbolic_backward(sym, loc, None, {"data": want}, rtol=1e-10, atol=1e-12, dtype=np.float64)
    check_symbolic_backward(sym, loc, None, {"data": want}, rtol=1e-5, atol=1e-7, dtype=np.float32)


@pytest.mark.parametrize("normalization", ["null", "batch", "valid"])
@pytest.mark.parametrize("dshape,kw", [((2, 3, 4, 5), dict(multi_output=True)), ((5, 4), dict())], ids=str)
def test_softmax_output_class_probabilities_are_not_normalized(dshape, kw, normalization):
    """A label of the data's shape (class probabilities): softmax - label times grad_scale, whatever
    the normalization and multi_output, as MXNet 1.9.1."""
    rs = np.random.RandomState(4)
    x = rs.normal(size=dshape)
    label = rs.uniform(size=dshape)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("data"), mx.sym.var("label"), normalization=normalization,
                               grad_scale=3.0, **kw)
    want = np_softmax_output_grad(x, label, normalization, grad_scale=3.0, **kw)
    check_symbolic_backward(sym, {"data": x, "label": label}, None, {"data": want}, rtol=1e-10,
                            atol=1e-12, dtype=np.float64)


def param_unary_input(op, kw, shape, seed=7):
    """Inputs away from the kinks: smooth_l1's |x| = 1/sigma^2, hard_sigmoid's 0 and 1 corners."""
    x = np.random.RandomState(seed).normal(size=shape) * 2
    if op == "smooth_l1":
        k = 1 / kw.get("scalar", 1.0) ** 2
        x[np.abs(np.abs(x) - k) < 0.02] += 0.05
    elif op == "hard_sigmoid":
        a, b = kw.get("alpha", 0.2), kw.get("beta", 0.5)
        for corner in ((0 - b) / a, (1 - b) / a):
            x[np.abs(x - corner) < 0.02] += 0.05
    return x


@pytest.mark.parametrize("op,kw,ref", PARAM_UNARY_CASES,
                         ids=["%s%d" % (c[0], i) for i, c in enumerate(PARAM_UNARY_CASES)])
def test_param_unary_math(op, kw, ref):
    x = param_unary_input(op, kw, (3, 4, 5))
    sym = getattr(mx.sym, op)(mx.sym.var("x"), **kw)
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-5, atol=1e-6)
    check_symbolic_forward(sym, {"x": x}, [ref(x)], rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, {"x": x})
    check_add_req(sym, {"x": x}, [mx.nd.array(np.random.RandomState(8).normal(size=x.shape), dtype="float64")])
    check_16bit(sym, {"x": x}, rtol_f16=4e-3, rtol_bf16=3e-2)
    np.testing.assert_allclose(getattr(mx.nd, op)(mx.nd.array(x), **kw).asnumpy(), ref(x), rtol=1e-5, atol=1e-6)


def _fwd_bwd(op, x, **kw):
    """Output and input gradient (head gradient 1) of op at x, in float64."""
    x = np.asarray(x, dtype=np.float64)
    exe = getattr(mx.sym, op)(mx.sym.var("x"), **kw).simple_bind(mx.current_context(), type_dict={"x": "float64"},
                                                                  x=x.shape)
    exe.arg_dict["x"][:] = x
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones(x.shape, dtype="float64")])
    return exe.outputs[0].asnumpy(), exe.grad_dict["x"].asnumpy()


def test_param_unary_math_mxnet_values():
    """MXNet 1.9.1's outputs and gradients at the corners: hard_sigmoid's gradient is 0 at the
    corners, smooth_l1's is continuous there."""
    y, g = _fwd_bwd("hard_sigmoid", [-3, -2.5, 0, 2.5, 3], alpha=0.2, beta=0.5)
    np.testing.assert_allclose(y, [0, 0, 0.5, 1, 1])
    np.testing.assert_allclose(g, [0, 0, 0.2, 0, 0])
    y, g = _fwd_bwd("smooth_l1", [-1, -0.25, 0.25, 0.1, 2], scalar=2.0)
    np.testing.assert_allclose(y, [0.875, 0.125, 0.125, 0.02, 1.875])
    np.testing.assert_allclose(g, [-1, -1, 1, 0.4, 1])
    np.testing.assert_allclose(mx.nd.smooth_l1(mx.nd.array([1, 2, 3, 4])).asnumpy(), [0.5, 1.5, 2.5, 3.5])
    y, g = _fwd_bwd("softmin", [[1, 2, 3.0], [3, 2, 1]], axis=1, temperature=2.0)
    np.testing.assert_allclose(y[0], [0.5064804, 0.3071959, 0.1863237], rtol=1e-6)
    np.testing.assert_allclose(g, np.zeros((2, 3)), atol=1e-15)
    with pytest.raises(mx.MXNetError, match=r"alpha"):
        mx.sym.hard_sigmoid(mx.sym.var("x"), alpha="steep")


# ---- the special functions: accuracy over their whole ranges ------------------------------------

def test_erfinv_accuracy_and_special_values():
    # |y| up to 1 - 1e-15: the tails, where erf has saturated and the inverse works on erfc
    t = np.concatenate([np.linspace(-0.999, 0.999, 41), 1 - np.logspace(-15, -3, 13), -1 + np.logspace(-12, -4, 5)])
    x = mx.nd.erfinv(mx.nd.array(t, dtype="float64")).asnumpy()
    # erfc(|x|) against 1 - |t| keeps the tails' digits (erf(x) would round to 1)
    np.testing.assert_allclose([math.erfc(abs(v)) for v in x], 1 - np.abs(t), rtol=1e-13, atol=1e-16)
    assert (np.sign(x) == np.sign(t)).all()
    x32 = mx.nd.erfinv(mx.nd.array(t[:41], dtype="float32")).asnumpy()
    np.testing.assert_allclose(x32, x[:41], rtol=2e-6, atol=1e-7)
    # MXNet's values: erfinv(+-1) = +-inf, NaN outside [-1, 1]; its gradient sqrt(pi)/2 exp(y^2)
    y = mx.nd.erfinv(mx.nd.array([-1, 1, 1.5, -2, 0], dtype="float64")).asnumpy()
    np.testing.assert_array_equal(y[:2], [-np.inf, np.inf])
    assert np.isnan(y[2:4]).all() and y[4] == 0
    np.testing.assert_allclose(mx.nd.erfinv(mx.nd.array([0.5, 0.9999], dtype="float64")).asnumpy(),
                               [0.4769363, 2.7510639], rtol=1e-7)


def _digamma_reference(x):
    """SciPy's digamma (rtol 1e-12) where installed, else central differences of math.lgamma."""
    try:
        from scipy.special import digamma
        return digamma(x), 1e-12
    except ImportError:
        h = 1e-5
        return np.array([(math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h) for v in x]), 1e-7


def test_gammaln_gradient_is_digamma_and_gamma_values():
    x = np.array([-7.3, -2.5, -0.5, -1e-3, 1e-3, 0.1, 0.5, 1, 1.5, 2, 3.7, 9.9, 10, 10.1, 57.2, 1e4, 1e8])
    y, g = _fwd_bwd("gammaln", x)
    np.testing.assert_allclose(y, [math.lgamma(v) for v in x], rtol=1e-13)
    ref, rtol = _digamma_reference(x)
    np.testing.assert_allclose(g, ref, rtol=rtol, atol=rtol)
    # the poles: MXNet's digamma gives the largest finite value; gamma is NaN at -1, inf at 0
    y, g = _fwd_bwd("gammaln", [0.0, -1.0, -3.0])
    np.testing.assert_array_equal(y, [np.inf] * 3)
    np.testing.assert_array_equal(g, [np.finfo(np.float64).max] * 3)
    y, g = _fwd_bwd("gamma", [0.5, 1, 2, 3.7])
    np.testing.assert_allclose(g, [math.gamma(v) * d for v, d in zip([0.5, 1, 2, 3.7], _digamma_reference(
        np.array([0.5, 1, 2, 3.7]))[0])], rtol=1e-7)
    g = mx.nd.gamma(mx.nd.array([-2.5, -1, 0, 0.5, 5], dtype="float64")).asnumpy()
    np.testing.assert_allclose(g[[0, 3, 4]], [-0.9453087205, 1.7724538509, 24.0], rtol=1e-9)
    assert np.isnan(g[1]) and g[2] == np.inf
