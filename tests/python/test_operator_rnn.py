"""The fused RNN op: a NumPy reference of MXNet's cells and packed parameter layout in float32 and
float64, float64 finite differences (data, parameters, initial states), grad_req='add', float16
and bfloat16 against float32, dropout between layers, imperative calls, MXNet's JSON and names,
the bad-input errors, and the oneDNN path against the GEMM path (float32, dropout, native
bfloat16).

RNN_CASES is also what tests/python/gpu/test_operator_gpu.py compares between the CPU and a GPU."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# (mode, num_layers, bidirectional, (T, N, C), state_size)
RNN_CASES = [
    ("lstm", 1, False, (4, 3, 5), 3),
    ("lstm", 2, True, (3, 2, 4), 3),
    ("gru", 1, False, (4, 3, 5), 3),
    ("gru", 2, True, (3, 2, 3), 2),
    ("rnn_tanh", 2, False, (3, 2, 4), 3),
    ("rnn_relu", 1, True, (4, 2, 3), 3),
]
GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def num_params(mode, layers, dirs, c, h):
    g = GATES[mode]
    return sum(dirs * g * h * ((c if l == 0 else dirs * h) + h + 2) for l in range(layers))


def unpack(mode, layers, dirs, c, h, w):
    """MXNet's packed vector: every (layer, direction)'s (W_x, W_h), then every (b_x, b_h)."""
    g, pos, weights, biases = GATES[mode], 0, {}, {}
    for l in range(layers):
        i = c if l == 0 else dirs * h
        for d in range(dirs):
            weights[l, d] = (w[pos:pos + g * h * i].reshape(g * h, i),
                             w[pos + g * h * i:pos + g * h * (i + h)].reshape(g * h, h))
            pos += g * h * (i + h)
    for l in range(layers):
        for d in range(dirs):
            biases[l, d] = (w[pos:pos + g * h], w[pos + g * h:pos + 2 * g * h])
            pos += 2 * g * h
    assert pos == w.size
    return weights, biases


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def rnn_ref(mode, layers, bidirectional, x, w, h0, c0=None):
    """MXNet's RNN in plain NumPy: (output, final hidden states, final cell states)."""
    dirs = 2 if bidirectional else 1
    t_len, _, c = x.shape
    h = h0.shape[2]
    weights, biases = unpack(mode, layers, dirs, c, h, w)
    hy, cy, inp = np.zeros_like(h0), np.zeros_like(h0), x
    for l in range(layers):
        outs = []
        for d in range(dirs):
            wx, wh = weights[l, d]
            bx, bh = biases[l, d]
            hs, cs = h0[l * dirs + d], (c0[l * dirs + d] if c0 is not None else None)
            seq = [None] * t_len
            for t in (range(t_len) if d == 0 else reversed(range(t_len))):
                gx, gh = inp[t] @ wx.T + bx, hs @ wh.T + bh
                if mode == "lstm":
                    i, f, gg, o = np.split(gx + gh, 4, axis=1)
                    cs = sigmoid(f) * cs + sigmoid(i) * np.tanh(gg)
                    hs = sigmoid(o) * np.tanh(cs)
                elif mode == "gru":
                    xr, xz, xn = np.split(gx, 3, axis=1)
                    hr, hz, hn = np.split(gh, 3, axis=1)
                    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
                    n = np.tanh(xn + r * hn)
                    hs = (1 - z) * n + z * hs
                else:
                    a = gx + gh
                    hs = np.tanh(a) if mode == "rnn_tanh" else np.maximum(a, 0)
                seq[t] = hs
            hy[l * dirs + d] = hs
            if cs is not None:
                cy[l * dirs + d] = cs
            outs.append(np.stack(seq) if t_len else np.zeros((0, x.shape[1], h)))
        inp = np.concatenate(outs, axis=2)
    return inp, hy, cy


def rnn_case(mode, layers, bidirectional, shape, h, state_outputs=True, seed=0, **kw):
    rng = np.random.RandomState(seed)
    dirs = 2 if bidirectional else 1
    t_len, n, c = shape
    sym = mx.sym.RNN(mx.sym.var("data"), mx.sym.var("parameters"), mx.sym.var("state"),
                     *([mx.sym.var("state_cell")] if mode == "lstm" else []), state_size=h,
                     num_layers=layers, bidirectional=bidirectional, mode=mode,
                     state_outputs=state_outputs, name="rnn", **kw)
    loc = {"data": rng.uniform(-1, 1, shape),
           "parameters": rng.uniform(-0.6, 0.6, num_params(mode, layers, dirs, c, h)),
           "state": rng.uniform(-1, 1, (layers * dirs, n, h))}
    if mode == "lstm":
        loc["state_cell"] = rng.uniform(-1, 1, (layers * dirs, n, h))
    return sym, loc


def ref_outputs(mode, layers, bidirectional, loc, state_outputs=True):
    y, hy, cy = rnn_ref(mode, layers, bidirectional, loc["data"], loc["parameters"], loc["state"],
                        loc.get("state_cell"))
    if not state_outputs:
        return [y]
    return [y, hy, cy] if mode == "lstm" else [y, hy]


@pytest.mark.parametrize("mode,layers,bidirectional,shape,h", RNN_CASES)
def test_rnn_forward_and_gradient(mode, layers, bidirectional, shape, h):
    sym, loc = rnn_case(mode, layers, bidirectional, shape, h)
    ref = ref_outputs(mode, layers, bidirectional, loc)
    check_symbolic_forward(sym, loc, [r.astype(np.float32) for r in ref], rtol=1e-5, atol=1e-5)
    check_symbolic_forward(sym, loc, ref, rtol=1e-12, atol=1e-12, dtype=np.float64)
    check_numeric_gradient(sym, loc, rtol=1e-6, atol=1e-9)
    check_add_req(sym, loc, [mx.nd.array(randn(*r.shape), dtype="float64") for r in ref])
    check_16bit(sym, loc, rtol_f16=4e-3, rtol_bf16=3e-2)


def test_rnn_names_shapes_and_json_as_mxnet():
    """MXNet 1.9.1's argument and output names, inferred parameter and state shapes, and its JSON
    (attributes as MXNet writes them) loading back."""
    sym = mx.sym.RNN(mx.sym.var("data"), state_size=4, num_layers=2, mode="lstm", bidirectional=True,
                     state_outputs=True, name="rnn")
    assert sym.list_arguments() == ["data", "rnn_parameters", "rnn_state", "rnn_state_cell"]
    assert sym.list_outputs() == ["rnn_output", "rnn_state_output", "rnn_statecell_output"]
    args, outs, _ = sym.infer_shape(data=(5, 3, 6))
    assert args == [(5, 3, 6), (832,), (4, 3, 4), (4, 3, 4)]  # MXNet's figures
    assert outs == [(5, 3, 8), (4, 3, 4), (4, 3, 4)]
    gru = mx.sym.RNN(mx.sym.var("data"), state_size=4, num_layers=2, mode="gru", name="g")
    assert gru.list_arguments() == ["data", "g_parameters", "g_state"]
    assert gru.list_outputs() == ["g_output"]
    assert gru.infer_shape(data=(5, 3, 6))[0][1] == (264,)
    back = mx.sym.load_json(sym.tojson())
    attrs = json.loads(back.tojson())["nodes"][-1]["attrs"]
    assert attrs["mode"] == "lstm" and attrs["state_size"] == "4" and attrs["bidirectional"] == "True"


def test_rnn_imperative_and_state_outputs_off():
    sym, loc = rnn_case("gru", 1, False, (3, 2, 4), 3, state_outputs=False)
    y = mx.nd.RNN(*[mx.nd.array(loc[k]) for k in ("data", "parameters", "state")], state_size=3,
                  num_layers=1, mode="gru")
    np.testing.assert_allclose(y.asnumpy(), ref_outputs("gru", 1, False, loc, False)[0], rtol=1e-5,
                               atol=1e-6)
    check_symbolic_forward(sym, loc, ref_outputs("gru", 1, False, loc, False), rtol=1e-12, atol=1e-12,
                           dtype=np.float64)
    check_numeric_gradient(sym, loc, rtol=1e-6, atol=1e-9)


def test_rnn_dropout_between_layers():
    """p drops the outputs of every layer but the last in training only; a seed repeats the masks;
    the gradient goes through the same masks (checked against a finite difference with the masks
    held fixed by re-seeding before every forward)."""
    sym, loc = rnn_case("lstm", 3, True, (4, 2, 3), 3, p=0.5)
    ref = ref_outputs("lstm", 3, True, loc)
    exe = sym.simple_bind(mx.cpu(), grad_req="write", type_dict={k: "float64" for k in loc},
                          **{k: v.shape for k, v in loc.items()})
    for k, v in loc.items():
        exe.arg_dict[k][:] = v
    np.testing.assert_allclose(exe.forward(is_train=False)[0].asnumpy(), ref[0], rtol=1e-12)
    mx.random.seed(3)
    a = exe.forward(is_train=True)[0].asnumpy()
    mx.random.seed(3)
    b = exe.forward(is_train=True)[0].asnumpy()
    np.testing.assert_array_equal(a, b)
    assert np.abs(a - ref[0]).max() > 1e-3
    # with the masks fixed, the output is a smooth function of the parameters
    dy = randn(*a.shape)
    exe.backward([mx.nd.array(dy, dtype="float64"), mx.nd.zeros(ref[1].shape, dtype="float64"),
                  mx.nd.zeros(ref[2].shape, dtype="float64")])
    grad = exe.grad_dict["parameters"].asnumpy()
    rng = np.random.RandomState(1)
    direction = rng.normal(size=grad.shape)
    eps = 1e-6
    vals = []
    for s in (1, -1):
        exe.arg_dict["parameters"][:] = loc["parameters"] + s * eps * direction
        mx.random.seed(3)
        vals.append((exe.forward(is_train=True)[0].asnumpy() * dy).sum())
    np.testing.assert_allclose((vals[0] - vals[1]) / (2 * eps), (grad * direction).sum(), rtol=1e-6)


def test_rnn_empty_sequence_and_batch():
    """T = 0 passes the initial states through; N = 0 gives empty outputs."""
    sym, loc = rnn_case("lstm", 2, False, (0, 2, 3), 2)
    check_symbolic_forward(sym, loc, ref_outputs("lstm", 2, False, loc), dtype=np.float64)
    check_numeric_gradient(sym, loc)
    sym, loc = rnn_case("gru", 1, True, (3, 0, 3), 2)
    check_symbolic_forward(sym, loc, ref_outputs("gru", 1, True, loc), dtype=np.float64)


@pytest.mark.parametrize("kwargs,match", [
    (dict(projection_size=2), "projection_size"),
    (dict(lstm_state_clip_min=-1, lstm_state_clip_max=1), "lstm_state_clip"),
    (dict(use_sequence_length=True), "use_sequence_length"),
    (dict(state_size=0), "state_size"),
])
def test_rnn_refuses_unsupported_attributes(kwargs, match):
    args = dict(state_size=3, num_layers=1, mode="lstm")
    args.update(kwargs)
    with pytest.raises(mx.MXNetError, match=match):
        mx.sym.RNN(mx.sym.var("data"), **args)


def test_rnn_shape_errors_name_the_input():
    sym = mx.sym.RNN(mx.sym.var("data"), state_size=3, num_layers=1, mode="gru", name="r")
    with pytest.raises(mx.MXNetError, match=r"r.*data must be 3-D"):
        sym.infer_shape(data=(4, 3))
    with pytest.raises(mx.MXNetError, match=r"r_parameters"):
        sym.infer_shape(data=(4, 3, 2), r_parameters=(10,))
    with pytest.raises(mx.MXNetError, match=r"r_state"):
        sym.infer_shape(data=(4, 3, 2), r_state=(1, 2, 3))


def test_rnn_backward_against_reference_exactly():
    """The analytic backward pass against a float64 NumPy backward by finite differences of the
    reference itself (independent of symnet's executor), for a bidirectional 2-layer LSTM."""
    mode, layers, bi = "lstm", 2, True
    sym, loc = rnn_case(mode, layers, bi, (3, 2, 3), 2)
    ref = ref_outputs(mode, layers, bi, loc)
    heads = [randn(*r.shape) for r in ref]

    def objective(name, value):
        l2 = dict(loc)
        l2[name] = value
        return sum((o * h).sum() for o, h in zip(ref_outputs(mode, layers, bi, l2), heads))

    expected = {}
    for name, v in loc.items():
        g = np.zeros_like(v)
        for i in range(v.size):
            e = np.zeros(v.size)
            e[i] = 1e-6
            g.flat[i] = (objective(name, v + e.reshape(v.shape)) - objective(name, v - e.reshape(v.shape))) / 2e-6
        expected[name] = g
    check_symbolic_backward(sym, loc, [mx.nd.array(h, dtype="float64") for h in heads], expected,
                            rtol=1e-6, atol=1e-8, dtype=np.float64)


# ---- the two CPU implementations ----------------------------------------------------------------
# float32 runs through oneDNN's RNN primitives ("dnnl") or symnet's GEMMs and step kernels ("gemm");
# both must give the same outputs, states and gradients. The GEMM path is the one checked against
# NumPy and finite differences above; the oneDNN one is held to it here.


@pytest.fixture
def restore_rnn_impl():
    before = mx._core.rnn_cpu_impl()
    yield
    mx._core.set_rnn_cpu_impl(before)


def run_rnn(impl, sym, loc, grad_req="write", is_train=True, seed=7):
    """Outputs (state outputs included) and gradients of every input in float32 under `impl`; with
    grad_req='add' the gradients start from fixed random values."""
    mx._core.set_rnn_cpu_impl(impl)
    rng = np.random.RandomState(seed)
    exe = sym.simple_bind(mx.cpu(), grad_req=grad_req, **{k: v.shape for k, v in loc.items()})
    for k, v in loc.items():
        exe.arg_dict[k][:] = v
        exe.grad_dict[k][:] = rng.normal(size=v.shape)
    outs = [o.asnumpy() for o in exe.forward(is_train=is_train)]
    if not is_train:
        return outs, {}
    exe.backward([mx.nd.array(rng.normal(size=o.shape)) for o in outs])
    return outs, {k: exe.grad_dict[k].asnumpy() for k in loc}


@pytest.mark.parametrize("grad_req", ["write", "add"])
@pytest.mark.parametrize("mode,layers,bidirectional,shape,h", RNN_CASES)
def test_rnn_dnnl_matches_gemm(mode, layers, bidirectional, shape, h, grad_req, restore_rnn_impl):
    """Training forward (outputs, final states) and every gradient, float32: the two paths differ
    only by float32 rounding (observed below 3e-7), so rtol=atol=1e-5."""
    sym, loc = rnn_case(mode, layers, bidirectional, shape, h)
    ref_y, ref_g = run_rnn("gemm", sym, loc, grad_req)
    y, g = run_rnn("dnnl", sym, loc, grad_req)
    for a, b in zip(y, ref_y):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert g.keys() == ref_g.keys()
    for k in g:
        np.testing.assert_allclose(g[k], ref_g[k], rtol=1e-5, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("mode,layers,bidirectional,shape,h", RNN_CASES)
def test_rnn_dnnl_inference_matches_reference(mode, layers, bidirectional, shape, h, restore_rnn_impl):
    """The inference forward (no workspace) against NumPy, state outputs on and off."""
    for state_outputs in (True, False):
        sym, loc = rnn_case(mode, layers, bidirectional, shape, h, state_outputs=state_outputs)
        ref = ref_outputs(mode, layers, bidirectional, loc, state_outputs)
        y, _ = run_rnn("dnnl", sym, loc, is_train=False)
        for a, b in zip(y, ref):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_rnn_dnnl_inference_with_a_large_state(restore_rnn_impl):
    """At 256 units, weights in the format oneDNN picks for inference ('any') could not be reordered
    into from MXNet's layout (the LM's evaluation failed): the inference primitive takes plain ldigo."""
    sym, loc = rnn_case("lstm", 1, True, (2, 4, 16), 256)
    ref, _ = run_rnn("gemm", sym, loc, is_train=False)
    y, _ = run_rnn("dnnl", sym, loc, is_train=False)
    for a, b in zip(y, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_rnn_dnnl_falls_back_where_it_cannot_run(restore_rnn_impl):
    """float64 and empty sequences take the GEMM path under 'dnnl' too."""
    mx._core.set_rnn_cpu_impl("dnnl")
    sym, loc = rnn_case("gru", 2, True, (3, 2, 3), 2)
    check_symbolic_forward(sym, loc, ref_outputs("gru", 2, True, loc), rtol=1e-12, atol=1e-12,
                           dtype=np.float64)
    sym, loc = rnn_case("lstm", 2, False, (0, 2, 3), 2)
    check_symbolic_forward(sym, loc, ref_outputs("lstm", 2, False, loc), dtype=np.float64)


@pytest.mark.parametrize("mode,layers,bidirectional,p", [("lstm", 3, True, 0.5), ("gru", 2, False, 0.3),
                                                         ("rnn_tanh", 2, True, 0.2)])
def test_rnn_dnnl_dropout_matches_gemm(mode, layers, bidirectional, p, restore_rnn_impl):
    """Dropout between layers runs through oneDNN one primitive per layer with the masks drawn as
    the GEMM path draws them: under one seed both paths drop the same units, so outputs and
    gradients agree to float32 rounding (rtol=atol=1e-5, as without dropout). In inference p
    changes nothing."""
    sym, loc = rnn_case(mode, layers, bidirectional, (4, 3, 5), 4, p=p)
    runs = []
    for impl in ("gemm", "dnnl"):
        mx.random.seed(11)
        runs.append(run_rnn(impl, sym, loc))
    (ref_y, ref_g), (y, g) = runs
    for a, b in zip(y, ref_y):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    for k in g:
        np.testing.assert_allclose(g[k], ref_g[k], rtol=1e-5, atol=1e-5, err_msg=k)
    ref = ref_outputs(mode, layers, bidirectional, loc)
    assert np.abs(y[0] - ref[0]).max() > 1e-3  # the masks did drop something
    mx.random.seed(11)
    again, _ = run_rnn("dnnl", sym, loc)
    np.testing.assert_array_equal(again[0], y[0])
    inference, _ = run_rnn("dnnl", sym, loc, is_train=False)
    for a, b in zip(inference, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def _rnn_grads(sym, loc, dtype, impl, seed=7):
    """Outputs and gradients with every input and head gradient in `dtype` (16-bit representable
    values), as float64 arrays."""
    mx._core.set_rnn_cpu_impl(impl)
    rng = np.random.RandomState(seed)
    exe = sym.simple_bind(mx.cpu(), grad_req="write", type_dict={k: dtype for k in loc},
                          **{k: v.shape for k, v in loc.items()})
    for k, v in loc.items():
        exe.arg_dict[k][:] = v
    outs = exe.forward(is_train=True)
    heads = [rng.uniform(-1, 1, o.shape).astype(np.float16).astype(np.float32) for o in outs]
    exe.backward([mx.nd.array(h, dtype=dtype) for h in heads])
    res = [o.asnumpy().astype(np.float64) for o in outs]
    return res + [exe.grad_dict[k].asnumpy().astype(np.float64) for k in sorted(loc)]


@pytest.mark.skipif(mx.features()["DNNL_BF16_NATIVE"] != "1", reason="CPU lacks AVX512_CORE_BF16 (no native bfloat16)")
@pytest.mark.parametrize("mode,layers,bidirectional,p", [("lstm", 2, True, 0.0), ("gru", 2, False, 0.0),
                                                         ("rnn_relu", 1, True, 0.0), ("lstm", 2, False, 0.4)])
def test_rnn_dnnl_bfloat16_against_float32(mode, layers, bidirectional, p, restore_rnn_impl):
    """bfloat16 through oneDNN's native bfloat16 RNN primitives (cell states and gradients in
    float32 inside) against float32 on the same 16-bit representable inputs: outputs and every
    gradient within 3e-2 of each array's largest magnitude (8 significant bits, rounded at every
    step's hidden state; observed below 1e-2). It also agrees with the GEMM path in bfloat16."""
    sym, loc = rnn_case(mode, layers, bidirectional, (5, 3, 6), 8, p=p)
    loc = {k: v.astype(np.float16).astype(np.float32) for k, v in loc.items()}
    mx.random.seed(2)
    ref = _rnn_grads(sym, loc, "float32", "dnnl")
    for impl in ("dnnl", "gemm"):
        mx.random.seed(2)
        got = _rnn_grads(sym, loc, "bfloat16", impl)
        for i, (a, b) in enumerate(zip(got, ref)):
            scale = np.abs(b).max() + 1e-6
            np.testing.assert_allclose(a, b, rtol=0, atol=3e-2 * scale, err_msg="%s array %d" % (impl, i))


def test_rnn_impl_switch(restore_rnn_impl):
    """The switch takes auto/dnnl/gemm, refuses other names, and starts from SYMNET_RNN_IMPL."""
    import os
    import subprocess
    import sys
    for impl in ("gemm", "dnnl", "auto"):
        mx._core.set_rnn_cpu_impl(impl)
        assert mx._core.rnn_cpu_impl() == impl
    with pytest.raises(mx.MXNetError, match="auto, dnnl or gemm"):
        mx._core.set_rnn_cpu_impl("cudnn")
    env = dict(os.environ, SYMNET_RNN_IMPL="gemm")
    out = subprocess.run([sys.executable, "-c", "import symnet; print(symnet._core.rnn_cpu_impl())"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "gemm"
