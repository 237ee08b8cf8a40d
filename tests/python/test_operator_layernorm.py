"""LayerNorm, InstanceNorm and GroupNorm (MXNet 1.9.1's semantics): NumPy references in float32
and float64 (outputs and the mean/std statistics), float64 finite differences for data, gamma
and beta, the float32 gradient (oneDNN's for LayerNorm over the last axis) against float64,
grad_req='add', float16 and bfloat16 against float32, imperative calls, MXNet's JSON and
parameter shapes, and the bad-input errors.

The case tables are also what tests/python/gpu/test_operator_gpu.py compares between the CPU and
a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# (data shape, attributes). The last-axis float32 cases run oneDNN's primitive; other axes, and
# float64, the OpenMP loops.
LAYERNORM_CASES = [
    ((3, 5), dict()),
    ((2, 3, 8), dict(output_mean_var=True)),
    ((2, 3, 4), dict(axis=1)),
    ((2, 3, 4), dict(axis=0, eps=1e-3)),
    ((2, 3, 2, 3), dict(axis=-2, output_mean_var=True)),
    ((6,), dict()),
]
INSTANCENORM_CASES = [
    ((2, 3, 4), dict()),
    ((2, 2, 3, 3), dict(eps=1e-5)),
    ((1, 2, 2, 2, 3), dict()),
]
# gamma and beta hold one value per group (MXNet 1.9.1)
GROUPNORM_CASES = [
    ((2, 4, 3), dict(num_groups=2)),
    ((2, 6, 2, 2), dict(num_groups=3, output_mean_var=True)),
    ((1, 4, 5), dict()),
    ((2, 4, 2, 2), dict(num_groups=4, eps=1e-3)),
]


def _eps(attrs, default):
    return float(np.float32(attrs.get("eps", default)))  # a float attribute, as in MXNet


def np_layer_norm(x, gamma, beta, axis=-1, eps=1e-5, **_):
    m = x.mean(axis=axis, keepdims=True)
    sd = np.sqrt(x.var(axis=axis, keepdims=True) + eps)
    shape = [1] * x.ndim
    shape[axis] = -1
    return [(x - m) / sd * gamma.reshape(shape) + beta.reshape(shape), m, sd]


def np_instance_norm(x, gamma, beta, eps=1e-3):
    axes = tuple(range(2, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return [(x - m) / np.sqrt(v + eps) * gamma.reshape(shape) + beta.reshape(shape)]


def np_group_norm(x, gamma, beta, num_groups=1, eps=1e-5, **_):
    n, g = x.shape[0], num_groups
    xg = x.reshape(n, g, -1)
    m = xg.mean(axis=2, keepdims=True)
    sd = np.sqrt(xg.var(axis=2, keepdims=True) + eps)
    y = ((xg - m) / sd * gamma.reshape(1, g, 1) + beta.reshape(1, g, 1)).reshape(x.shape)
    return [y, m.reshape(n, g), sd.reshape(n, g)]


def norm_case(op, shape, attrs):
    """(symbol, inputs, numpy outputs of the visible outputs, attributes without output_mean_var)."""
    if op == "LayerNorm":
        axis = attrs.get("axis", -1)
        pshape = (shape[axis],)
    elif op == "InstanceNorm":
        pshape = (shape[1],)
    else:
        pshape = (attrs.get("num_groups", 1),)
    # a draw of its own per case: the float32 gradient of a normalization over 2 elements is
    # ill-conditioned when they nearly tie (error ~ 1/gap), so a draw that depended on the tests
    # run before could land there
    r = np.random.RandomState(sum(shape) * 31 + len(attrs))
    loc = {"x": r.normal(size=shape) * 2 + 0.5, "gamma": r.normal(size=pshape), "beta": r.normal(size=pshape)}
    sym = getattr(mx.sym, op)(mx.sym.var("x"), mx.sym.var("gamma"), mx.sym.var("beta"), name="n", **attrs)
    if op == "LayerNorm":
        outs = np_layer_norm(loc["x"], loc["gamma"], loc["beta"], axis=attrs.get("axis", -1),
                             eps=_eps(attrs, 1e-5))
    elif op == "InstanceNorm":
        outs = np_instance_norm(loc["x"], loc["gamma"], loc["beta"], eps=_eps(attrs, 1e-3))
    else:
        outs = np_group_norm(loc["x"], loc["gamma"], loc["beta"], num_groups=attrs.get("num_groups", 1),
                             eps=_eps(attrs, 1e-5))
    visible = outs if attrs.get("output_mean_var") else outs[:1]
    plain = {k: v for k, v in attrs.items() if k != "output_mean_var"}
    return sym, loc, visible, plain


ALL_CASES = ([("LayerNorm",) + c for c in LAYERNORM_CASES] + [("InstanceNorm",) + c for c in INSTANCENORM_CASES]
             + [("GroupNorm",) + c for c in GROUPNORM_CASES])


def _case_id(c):
    return "%s-%s-%s" % (c[0], "x".join(map(str, c[1])), "-".join("%s=%s" % kv for kv in sorted(c[2].items())))


def _float64_grads(sym, loc, dy):
    exe = sym.simple_bind(mx.cpu(), grad_req="write", type_dict={k: "float64" for k in loc},
                          **{k: v.shape for k, v in loc.items()})
    for k, v in loc.items():
        exe.arg_dict[k][:] = v
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(dy, dtype="float64")])
    return {k: exe.grad_dict[k].asnumpy() for k in loc}


@pytest.mark.parametrize("op,shape,attrs", ALL_CASES, ids=[_case_id(c) for c in ALL_CASES])
def test_normalization(op, shape, attrs):
    sym, loc, expected, plain = norm_case(op, shape, attrs)
    assert sym.list_arguments() == ["x", "gamma", "beta"]
    assert len(sym.list_outputs()) == len(expected)
    for dtype, rtol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        check_symbolic_forward(sym, {k: v.astype(dtype) for k, v in loc.items()}, expected, rtol=rtol,
                               atol=rtol, dtype=dtype)
    # finite differences and the float32 backward, through the out output only (mean and std
    # pass no gradient back, as in MXNet)
    one = getattr(mx.sym, op)(mx.sym.var("x"), mx.sym.var("gamma"), mx.sym.var("beta"), name="n", **plain)
    check_numeric_gradient(one, loc, rtol=1e-6, atol=1e-8)
    dy = randn(*shape)
    want = _float64_grads(one, loc, dy)
    for req in ("write", "add"):
        check_symbolic_backward(one, {k: v.astype(np.float32) for k, v in loc.items()}, [dy.astype(np.float32)],
                                want, rtol=1e-4, atol=1e-4, grad_req=req)
    check_add_req(one, loc)
    check_16bit(sym, loc, rtol_f32=1e-5)
    nd_out = getattr(mx.nd, op)(*(mx.nd.array(loc[k], dtype="float64") for k in ("x", "gamma", "beta")), **attrs)
    nd_out = nd_out if isinstance(nd_out, (list, tuple)) else [nd_out]
    for o, e in zip(nd_out, expected):
        np.testing.assert_allclose(o.asnumpy(), e.reshape(o.shape), rtol=1e-12, atol=1e-12)


def test_statistics_get_no_gradient():
    """MXNet ignores the head gradients of mean and std: the data gradient is the same with
    and without them."""
    x, g, b = randn(2, 3, 4), randn(4), randn(4)
    sym = mx.sym.LayerNorm(mx.sym.var("x"), mx.sym.var("gamma"), mx.sym.var("beta"), output_mean_var=True)
    dy = randn(2, 3, 4)
    grads = []
    for dstat in (np.zeros((2, 3, 1)), randn(2, 3, 1)):
        exe = sym.simple_bind(mx.cpu(), grad_req="write", x=x.shape, gamma=g.shape, beta=b.shape)
        for k, v in (("x", x), ("gamma", g), ("beta", b)):
            exe.arg_dict[k][:] = v
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(dy), mx.nd.array(dstat), mx.nd.array(dstat)])
        grads.append([exe.grad_dict[k].asnumpy() for k in ("x", "gamma", "beta")])
    for a, c in zip(*grads):
        np.testing.assert_array_equal(a, c)


def test_constant_rows_normalize_to_beta():
    """A constant group has variance 0: eps keeps it finite and the output is beta."""
    x = np.full((2, 5), 3.0)
    y, m, sd = mx.nd.LayerNorm(mx.nd.array(x), mx.nd.ones(5), mx.nd.array(np.arange(5.0)), output_mean_var=True)
    np.testing.assert_allclose(y.asnumpy(), np.tile(np.arange(5.0), (2, 1)), atol=1e-6)
    np.testing.assert_allclose(sd.asnumpy(), np.sqrt(np.float32(1e-5)), rtol=1e-6)
    np.testing.assert_array_equal(m.asnumpy(), np.full((2, 1), 3.0))


def test_norm_defaults_and_mxnet_json():
    """MXNet 1.9.1's JSON (three outputs per node in node_row_ptr) loads, with its defaults."""
    js = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                    {"op": "null", "name": "ln_gamma", "inputs": []},
                    {"op": "null", "name": "ln_beta", "inputs": []},
                    {"op": "LayerNorm", "name": "ln", "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
                    {"op": "null", "name": "in_gamma", "inputs": []},
                    {"op": "null", "name": "in_beta", "inputs": []},
                    {"op": "InstanceNorm", "name": "in", "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0]]},
                    {"op": "null", "name": "gn_gamma", "inputs": []},
                    {"op": "null", "name": "gn_beta", "inputs": []},
                    {"op": "GroupNorm", "name": "gn", "attrs": {"num_groups": "2"},
                     "inputs": [[6, 0, 0], [7, 0, 0], [8, 0, 0]]}],
          "arg_nodes": [0, 1, 2, 4, 5, 7, 8], "node_row_ptr": [0, 1, 2, 3, 6, 7, 8, 11, 12, 13, 16],
          "heads": [[9, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
    sym = mx.sym.load_json(json.dumps(js))
    assert sym.list_outputs() == ["gn_output"]
    args, outs, _ = sym.infer_shape(data=(2, 4, 3, 5))
    assert dict(zip(sym.list_arguments(), args)) == {
        "data": (2, 4, 3, 5), "ln_gamma": (5,), "ln_beta": (5,), "in_gamma": (4,), "in_beta": (4,),
        "gn_gamma": (2,), "gn_beta": (2,)}
    x = randn(2, 4, 3, 5)
    p = {k: randn(*s) for k, s in zip(sym.list_arguments()[1:], args[1:])}
    y = np_layer_norm(x, p["ln_gamma"], p["ln_beta"])[0]
    y = np_instance_norm(y, p["in_gamma"], p["in_beta"], eps=float(np.float32(1e-3)))[0]
    y = np_group_norm(y, p["gn_gamma"], p["gn_beta"], num_groups=2, eps=float(np.float32(1e-5)))[0]
    check_symbolic_forward(sym, dict(p, data=x), [y], rtol=1e-4, atol=1e-5)
    back = json.loads(mx.sym.load_json(sym.tojson()).tojson())
    attrs = {n["name"]: n.get("attrs", {}) for n in back["nodes"]}
    assert attrs["ln"] == {} and attrs["in"] == {} and attrs["gn"] == {"num_groups": "2"}
    ln = mx.sym.LayerNorm(mx.sym.var("data"), output_mean_var=True, name="ln")
    assert ln.list_outputs() == ["ln_output", "ln_mean", "ln_std"]
    assert ln.infer_shape(data=(2, 3, 4))[1] == [(2, 3, 4), (2, 3, 1), (2, 3, 1)]
    gn = mx.sym.GroupNorm(mx.sym.var("data"), num_groups=3, output_mean_var=True, name="gn")
    assert gn.infer_shape(data=(2, 6, 4))[1] == [(2, 6, 4), (2, 3), (2, 3)]


def test_norm_bad_inputs():
    d = mx.sym.var("data")
    with pytest.raises(mx.MXNetError, match=r"node 'ln'.*LayerNorm axis 2 is out of range for 2-D data"):
        mx.sym.LayerNorm(d, axis=2, name="ln").infer_shape(data=(3, 4))
    with pytest.raises(mx.MXNetError, match=r"node 'ln'.*'gamma'.*has shape \(3,\) but the operator expects \(4,\)"):
        mx.sym.LayerNorm(d, name="ln").infer_shape(data=(3, 4), ln_gamma=(3,))
    with pytest.raises(mx.MXNetError, match=r"node 'ln'.*floating-point"):
        mx.sym.LayerNorm(d, name="ln").infer_type(data="int32")
    with pytest.raises(mx.MXNetError, match=r"node 'in'.*at least 2 dims, got shape \(4,\)"):
        mx.sym.InstanceNorm(d, name="in").infer_shape(data=(4,))
    with pytest.raises(mx.MXNetError, match=r"node 'gn'.*at least 3 dims, got shape \(2, 4\)"):
        mx.sym.GroupNorm(d, num_groups=2, name="gn").infer_shape(data=(2, 4))
    with pytest.raises(mx.MXNetError, match=r"'gn'.*6 channels of data \(2, 6, 3\) do not split into num_groups=4"):
        mx.sym.GroupNorm(d, num_groups=4, name="gn").infer_shape(data=(2, 6, 3))
    with pytest.raises(mx.MXNetError, match=r"node 'gn'.*num_groups must be at least 1"):
        mx.sym.GroupNorm(d, num_groups=0, name="gn")
    with pytest.raises(mx.MXNetError, match=r"node 'gn'.*'gamma'.*has shape \(4,\) but the operator expects \(2,\)"):
        mx.sym.GroupNorm(d, num_groups=2, name="gn").infer_shape(data=(2, 4, 3), gn_gamma=(4,))
    with pytest.raises(mx.MXNetError, match=r"node 'in'.*eps"):
        mx.sym.InstanceNorm(d, eps="big", name="in")
