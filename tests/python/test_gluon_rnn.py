"""mx.gluon.rnn: the layers (RNN, LSTM, GRU on the fused RNN op) and the cells against MXNet
1.9.1 (its save_parameters files, outputs, final states and gradients), NumPy float64 references
(one cell step, finite differences, LSTM projection, state clipping, sequence lengths), layers
against the same network as cells, hybridized against imperative, deferred input sizes,
begin_state, the errors, MXNet loading symnet's files, and a small language model that learns."""
import json
import os
import subprocess

import numpy as np
import pytest

import symnet as mx
from symnet import autograd, gluon, nd
from symnet.gluon import nn, rnn
from parity_checks import MXNET_PYTHON, close, ref_file


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# ---- MXNet 1.9.1 parity ------------------------------------------------------------------------

def build_rnn_block(spec):
    """The block a case of OUT/gluon_rnn.json describes (make_references.py's GLUON_RNN_CASES)."""
    cls = getattr(rnn, spec["cls"])
    if "children" in spec:
        block = cls()
        for child in spec["children"]:
            block.add(build_rnn_block(child))
        return block
    if "base" in spec:
        return cls(build_rnn_block(spec["base"]))
    if "l" in spec:
        return cls(build_rnn_block(spec["l"]), build_rnn_block(spec["r"]))
    return cls(*spec.get("args", []), **spec.get("kwargs", {}))


def _run_case(meta, case, ref, params_file, hybridize):
    """symnet's outputs, final states and gradients for one reference case."""
    block = build_rnn_block(case["spec"])
    block.load_parameters(params_file)
    if hybridize:
        block.hybridize()
    named = block._collect_params_with_prefix()
    n_states = len([k for k in ref.files if k.startswith("state")])
    xs = [nd.array(ref["x"])] + [nd.array(ref["state%d" % i]) for i in range(n_states)]
    for a in xs:
        a.attach_grad()
    call = case["call"]
    with autograd.record():
        if "layout" not in call:  # a layer
            out, states = block(xs[0], xs[1:])
        else:
            valid = nd.array(ref["valid_length"]) if "valid_length" in ref.files else None
            out, states = block.unroll(meta["length"], xs[0], begin_state=xs[1:],
                                       layout=call["layout"], merge_outputs=True,
                                       valid_length=valid)
    heads = [out] + list(states)
    head_grads = [nd.array(ref["head_out"])] + [nd.array(ref["head_state%d" % i])
                                                for i in range(len(states))]
    autograd.backward(heads, head_grads)
    grads = {"x": xs[0].grad.asnumpy()}
    grads.update(("state%d" % i, a.grad.asnumpy()) for i, a in enumerate(xs[1:]))
    grads.update((k, p.grad().asnumpy()) for k, p in named.items())
    return out.asnumpy(), [s.asnumpy() for s in states], grads


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_layers_and_cells_match_mxnet(hybridize):
    """Every case loads MXNet's save_parameters file and gives MXNet's outputs and final states
    (rtol 1e-4) and gradients of the input, the initial states and every parameter (1e-3)."""
    with open(ref_file("gluon_rnn.json")) as f:
        meta = json.load(f)
    assert len(meta["cases"]) >= 17
    for case in meta["cases"]:
        name = case["name"]
        ref = np.load(ref_file(os.path.join("gluon_rnn", name + ".npz")))
        out, states, grads = _run_case(meta, case, ref,
                                       ref_file(os.path.join("gluon_rnn", name + ".params")),
                                       hybridize)
        close(out, ref["out"], 1e-4, "%s: output" % name)
        assert len(states) == len([k for k in ref.files if k.startswith("out_state")]), name
        for i, s in enumerate(states):
            close(s, ref["out_state%d" % i], 1e-4, "%s: final state %d" % (name, i))
        close(grads.pop("x"), ref["grad_x"], 1e-3, "%s: input gradient" % name)
        for i in range(len(states)):
            close(grads.pop("state%d" % i), ref["grad_state%d" % i], 1e-3,
                  "%s: initial state %d gradient" % (name, i))
        want = sorted(k[5:] for k in ref.files if k.startswith("grad:"))
        assert sorted(grads) == want, name  # save_parameters names are MXNet's
        for key, g in grads.items():
            close(g, ref["grad:" + key], 1e-3, "%s: gradient of %s" % (name, key))


def test_save_parameters_names_are_mxnets(tmp_path):
    """symnet writes the names MXNet's file holds, for layers and for cell stacks."""
    with open(ref_file("gluon_rnn.json")) as f:
        meta = json.load(f)
    for case in meta["cases"]:
        theirs = ref_file(os.path.join("gluon_rnn", case["name"] + ".params"))
        block = build_rnn_block(case["spec"])
        block.load_parameters(theirs)
        mine = str(tmp_path / (case["name"] + ".params"))
        block.save_parameters(mine)
        a, b = nd.load(mine), nd.load(theirs)
        assert sorted(a) == sorted(b), case["name"]
        for k in a:
            np.testing.assert_array_equal(a[k].asnumpy(), b[k].asnumpy())


MXNET_LOADS = r"""
import json, sys
import numpy as np
import mxnet as mx
from mxnet.gluon import rnn
d = sys.argv[1]
x = mx.nd.array(np.load(d + "/x.npy"))
layer = rnn.LSTM(5, num_layers=2, bidirectional=True, layout="NTC")
layer.load_parameters(d + "/layer.params")
stack = rnn.HybridSequentialRNNCell()
stack.add(rnn.GRUCell(4))
stack.add(rnn.ResidualCell(rnn.LSTMCell(4)))
stack.load_parameters(d + "/stack.params")
out, _ = stack.unroll(x.shape[1], x[:, :, :4], layout="NTC", merge_outputs=True)
print(json.dumps({"layer": layer(x).asnumpy().tolist(), "stack": out.asnumpy().tolist()}))
"""


def test_mxnet_loads_symnets_files(tmp_path):
    """save_parameters files written by symnet load in MXNet 1.9.1 and give symnet's outputs."""
    if not os.access(MXNET_PYTHON, os.X_OK):
        reason = "no MXNet 1.9.1 venv at %s (tools/run_tests.sh makes it)" % MXNET_PYTHON
        if os.environ.get("SYMNET_REQUIRE_MXNET_REFS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 4, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    layer = rnn.LSTM(5, num_layers=2, bidirectional=True, layout="NTC")
    layer.initialize(mx.init.Uniform(0.5))
    layer(nd.array(x))
    layer.save_parameters(str(tmp_path / "layer.params"))
    stack = rnn.HybridSequentialRNNCell()
    stack.add(rnn.GRUCell(4))
    stack.add(rnn.ResidualCell(rnn.LSTMCell(4)))
    stack.initialize(mx.init.Uniform(0.5))
    mine, _ = stack.unroll(4, nd.array(x[:, :, :4]), layout="NTC", merge_outputs=True)
    stack.save_parameters(str(tmp_path / "stack.params"))
    out = subprocess.run([MXNET_PYTHON, "-c", MXNET_LOADS, str(tmp_path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    theirs = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(np.array(theirs["layer"]), layer(nd.array(x)).asnumpy(),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.array(theirs["stack"]), mine.asnumpy(), rtol=1e-4, atol=1e-6)


# ---- NumPy float64 references ------------------------------------------------------------------

def np_cell_step(mode, x, states, w):
    """One MXNet cell step in NumPy: (output, new states)."""
    gx = x @ w["i2h_weight"].T + w["i2h_bias"]
    gh = states[0] @ w["h2h_weight"].T + w["h2h_bias"]
    if mode in ("relu", "tanh"):
        h = np.maximum(gx + gh, 0) if mode == "relu" else np.tanh(gx + gh)
        return h, [h]
    if mode == "lstm":
        i, f, g, o = np.split(gx + gh, 4, axis=1)
        c = sigmoid(f) * states[1] + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        return h, [h, c]
    xr, xz, xn = np.split(gx, 3, axis=1)
    hr, hz, hn = np.split(gh, 3, axis=1)
    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    h = (1 - z) * n + z * states[0]
    return h, [h]


def _make_cell(mode, hidden, **kw):
    if mode in ("relu", "tanh"):
        return rnn.RNNCell(hidden, activation=mode, **kw)
    return {"lstm": rnn.LSTMCell, "gru": rnn.GRUCell}[mode](hidden, **kw)


def _cell_values(cell, rng):
    return {k: rng.uniform(-0.8, 0.8, p.shape) for k, p in cell._collect_params_with_prefix().items()}


def _set(block, values):
    for k, p in block._collect_params_with_prefix().items():
        p.set_data(nd.array(values[k], dtype=p.dtype))


@pytest.mark.parametrize("mode", ["relu", "tanh", "lstm", "gru"])
def test_cell_step_matches_numpy_float64(mode):
    rng = np.random.RandomState(0)
    cell = _make_cell(mode, 4, input_size=3)
    cell.cast("float64")
    cell.initialize()
    values = _cell_values(cell, rng)
    _set(cell, values)
    x = rng.uniform(-1, 1, (2, 3))
    states = [rng.uniform(-1, 1, s["shape"]) for s in cell.state_info(2)]
    out, new = cell(nd.array(x, dtype="float64"), [nd.array(s, dtype="float64") for s in states])
    want, want_states = np_cell_step(mode, x, states, values)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12, atol=1e-14)
    for a, b in zip(new, want_states):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_cell_gradients_match_finite_differences_float64(mode):
    """Two steps of the cell; the gradient of sum(head * (output, states)) with respect to the
    inputs, the initial states and every parameter, against central differences."""
    rng = np.random.RandomState(1)
    cell = _make_cell(mode, 2, input_size=3)
    cell.cast("float64")
    cell.initialize()
    values = _cell_values(cell, rng)
    values["x"] = rng.uniform(-1, 1, (2, 2, 3))  # (T, N, C)
    for i, s in enumerate(cell.state_info(2)):
        values["state%d" % i] = rng.uniform(-1, 1, s["shape"])
    n_states = len(cell.state_info())
    heads = [rng.uniform(-1, 1, (2, 2, 2))] + [rng.uniform(-1, 1, (2, 2))] * n_states

    def run(vals, record=False):
        _set(cell, vals)
        arrays = {k: nd.array(vals[k], dtype="float64")
                  for k in ["x"] + ["state%d" % i for i in range(n_states)]}
        for a in arrays.values():
            a.attach_grad()
        with autograd.record(record):
            out, states = cell.unroll(2, arrays["x"], [arrays["state%d" % i] for i in
                                                       range(n_states)], layout="TNC",
                                      merge_outputs=True)
            loss = (out * nd.array(heads[0], dtype="float64")).sum()
            for s, h in zip(states, heads[1:]):
                loss = loss + (s * nd.array(h, dtype="float64")).sum()
        if record:
            loss.backward()
            grads = {k: a.grad.asnumpy() for k, a in arrays.items()}
            grads.update((k, p.grad().asnumpy())
                         for k, p in cell._collect_params_with_prefix().items())
            return grads
        return float(loss.asscalar())

    grads = run(values, record=True)
    eps = 1e-6
    for key, value in values.items():
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            plus = {k: v.copy() for k, v in values.items()}
            minus = {k: v.copy() for k, v in values.items()}
            plus[key][idx] += eps
            minus[key][idx] -= eps
            numeric[idx] = (run(plus) - run(minus)) / (2 * eps)
        np.testing.assert_allclose(grads[key], numeric, rtol=1e-6, atol=1e-8, err_msg=key)


def np_layer(mode, x, states, weights, layers, dirs, lengths=None, clip=None, clip_nan=False):
    """MXNet's (cuDNN's) recurrent layers in NumPy, one sequence at a time: x (T, N, C),
    weights["l0_i2h_weight"] etc. Returns (output, final states)."""
    t_len, batch, _ = x.shape
    lstm = mode == "lstm"
    lengths = [t_len] * batch if lengths is None else [int(v) for v in lengths]
    hs, cs = states[0].copy(), (states[1].copy() if lstm else None)
    layer_in = x
    for layer in range(layers):
        outs = []
        for k, d in enumerate("lr"[:dirs]):
            w = {g: weights["%s%d_%s" % (d, layer, g)] for g in
                 ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias", "h2r_weight")
                 if "%s%d_%s" % (d, layer, g) in weights}
            size = w["h2r_weight"].shape[0] if "h2r_weight" in w else w["h2h_weight"].shape[0] // \
                {"lstm": 4, "gru": 3}.get(mode, 1)
            out = np.zeros((t_len, batch, size))
            for b in range(batch):
                n = lengths[b]
                h = hs[layer * dirs + k, b:b + 1]
                c = cs[layer * dirs + k, b:b + 1] if lstm else None
                for t in (range(n) if k == 0 else reversed(range(n))):
                    if lstm:
                        gates = (layer_in[t, b:b + 1] @ w["i2h_weight"].T + w["i2h_bias"]
                                 + h @ w["h2h_weight"].T + w["h2h_bias"])
                        i, f, g, o = np.split(gates, 4, axis=1)
                        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
                        if clip is not None:
                            if clip_nan:
                                c = np.where(np.isnan(c), clip[0], c)
                            c = np.clip(c, *clip)
                        h = sigmoid(o) * np.tanh(c)
                        if "h2r_weight" in w:
                            h = h @ w["h2r_weight"].T
                    else:
                        h, _ = np_cell_step(mode, layer_in[t, b:b + 1], [h], w)
                    out[t, b] = h[0]
                hs[layer * dirs + k, b] = h[0]
                if lstm:
                    cs[layer * dirs + k, b] = c[0]
            outs.append(out)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, ([hs, cs] if lstm else [hs])


def _layer_values(layer, rng, scale=0.6):
    return {k: rng.uniform(-scale, scale, p.shape) for k, p in layer._reg_params.items()}


def _set_layer(layer, values):
    for k, p in layer._reg_params.items():
        p.set_data(nd.array(values[k], dtype=p.dtype))


@pytest.mark.parametrize("mode,layers,bidirectional,layout", [
    ("rnn_relu", 2, True, "TNC"), ("rnn_tanh", 1, False, "NTC"), ("lstm", 2, True, "NTC"),
    ("gru", 2, False, "TNC")])
def test_layer_matches_numpy_float64(mode, layers, bidirectional, layout):
    rng = np.random.RandomState(2)
    kw = dict(num_layers=layers, bidirectional=bidirectional, layout=layout, dtype="float64")
    if mode.startswith("rnn"):
        layer = rnn.RNN(4, activation=mode[4:], **kw)
    else:
        layer = {"lstm": rnn.LSTM, "gru": rnn.GRU}[mode](4, **kw)
    layer.initialize()
    x = rng.uniform(-1, 1, (5, 3, 3))
    layer(nd.array(x if layout == "TNC" else x.transpose(1, 0, 2), dtype="float64"))
    values = _layer_values(layer, rng)
    _set_layer(layer, values)
    states = [rng.uniform(-1, 1, s["shape"]) for s in layer.state_info(3)]
    xin = x if layout == "TNC" else x.transpose(1, 0, 2)
    out, new = layer(nd.array(xin, dtype="float64"), [nd.array(s, dtype="float64")
                                                       for s in states])
    want, want_states = np_layer(mode.replace("rnn_", ""), x, states, values, layers,
                                 2 if bidirectional else 1)
    got = out.asnumpy() if layout == "TNC" else out.asnumpy().transpose(1, 0, 2)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    for a, b in zip(new, want_states):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-10, atol=1e-12)


def _np_run(layer, rng, x, lengths=None, clip=None, clip_nan=False):
    values = _layer_values(layer, rng)
    _set_layer(layer, values)
    states = [rng.uniform(-1, 1, s["shape"]) for s in layer.state_info(x.shape[1])]
    args = [nd.array(x, dtype="float64"), [nd.array(s, dtype="float64") for s in states]]
    if lengths is not None:
        args.append(nd.array(lengths, dtype="float64"))
    out, new = layer(*args)
    want, want_states = np_layer(layer._mode.replace("rnn_", ""), x, states, values,
                                 layer._num_layers, layer._dir, lengths, clip, clip_nan)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-10, atol=1e-12)
    for a, b in zip(new, want_states):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-10, atol=1e-12)


def test_lstm_projection_matches_numpy():
    """LSTMP (projection_size): h2r_weight per layer and direction, states [h (projected), c]."""
    rng = np.random.RandomState(4)
    layer = rnn.LSTM(5, num_layers=2, bidirectional=True, projection_size=3, input_size=4,
                     dtype="float64")
    layer.initialize()
    assert layer.l0_h2r_weight.shape == (3, 5) and layer.l0_h2h_weight.shape == (20, 3)
    assert layer.l1_i2h_weight.shape == (20, 6)
    assert [s["shape"] for s in layer.state_info(2)] == [(4, 2, 3), (4, 2, 5)]
    assert "_unfused.1.r_cell.h2r_weight" in layer._collect_params_with_prefix()
    _np_run(layer, rng, rng.uniform(-1, 1, (4, 2, 4)))


def test_lstm_state_clipping_matches_numpy():
    rng = np.random.RandomState(5)
    layer = rnn.LSTM(4, state_clip_min=-0.2, state_clip_max=0.3, state_clip_nan=True,
                     input_size=3, dtype="float64")
    layer.initialize()
    _np_run(layer, rng, rng.uniform(-2, 2, (6, 2, 3)), clip=(-0.2, 0.3), clip_nan=True)


@pytest.mark.parametrize("cls", [rnn.GRU, rnn.LSTM])
def test_sequence_length_matches_numpy(cls):
    """use_sequence_length: zero outputs past each end, final states at the end, the backward
    direction starting at the last valid step."""
    rng = np.random.RandomState(6)
    layer = cls(4, num_layers=2, bidirectional=True, use_sequence_length=True, input_size=3,
                dtype="float64")
    layer.initialize()
    _np_run(layer, rng, rng.uniform(-1, 1, (5, 3, 3)), lengths=[5, 2, 4])
    with pytest.raises(ValueError, match="sequence_length"):
        layer(nd.ones((5, 3, 3), dtype="float64"))


# ---- layer vs cells, hybridized vs imperative ---------------------------------------------------

def _stack_states(layer, states):
    """A layer's states (layers*dirs, N, H) as its _unfuse() stack's list, and back."""
    per_cell = [[s[i] for s in states] for i in range(states[0].shape[0])]
    return [a for cell in per_cell for a in cell]


@pytest.mark.parametrize("mode", ["rnn_relu", "rnn_tanh", "lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_layer_equals_unfused_cells(mode, bidirectional):
    """The fused layer and the stack of cells with its parameters (_unfuse, as in MXNet): same
    outputs, final states and parameter gradients (NTC layout, 2 layers)."""
    rng = np.random.RandomState(7)
    kw = dict(num_layers=2, bidirectional=bidirectional, layout="NTC", input_size=3)
    layer = (rnn.RNN(5, activation=mode[4:], **kw) if mode.startswith("rnn") else
             {"lstm": rnn.LSTM, "gru": rnn.GRU}[mode](5, **kw))
    layer.initialize(mx.init.Uniform(0.5))
    cells = layer._unfuse()
    assert set(p.name for p in cells.collect_params().values()) == \
        set(p.name for p in layer.collect_params().values())
    x = nd.array(rng.uniform(-1, 1, (2, 4, 3)))
    states = [nd.array(rng.uniform(-1, 1, s["shape"])) for s in layer.state_info(2)]
    head = nd.array(rng.uniform(-1, 1, (2, 4, 10 if bidirectional else 5)))

    def grads():
        g = {p.name: p.grad().asnumpy().copy() for p in layer.collect_params().values()}
        layer.collect_params().zero_grad()
        return g

    with autograd.record():
        out, new = layer(x, states)
        (out * head).sum().backward()
    g_layer = grads()
    with autograd.record():
        out2, new2 = cells.unroll(4, x, begin_state=_stack_states(layer, states), layout="NTC",
                                  merge_outputs=True)
        (out2 * head).sum().backward()
    g_cells = grads()
    np.testing.assert_allclose(out.asnumpy(), out2.asnumpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(_stack_states(layer, [s.asnumpy() for s in new]), new2):
        np.testing.assert_allclose(a, b.asnumpy(), rtol=1e-5, atol=1e-6)
    for k in g_layer:
        np.testing.assert_allclose(g_layer[k], g_cells[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_sequence_length_layer_equals_cells_with_valid_length():
    rng = np.random.RandomState(8)
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True, use_sequence_length=True,
                     input_size=3)
    layer.initialize(mx.init.Uniform(0.5))
    x = nd.array(rng.uniform(-1, 1, (5, 3, 3)))
    states = [nd.array(rng.uniform(-1, 1, s["shape"])) for s in layer.state_info(3)]
    lengths = nd.array([2, 5, 3])
    out, new = layer(x, states, lengths)
    out2, new2 = layer._unfuse().unroll(5, x, begin_state=_stack_states(layer, states),
                                        layout="TNC", merge_outputs=True, valid_length=lengths)
    np.testing.assert_allclose(out.asnumpy(), out2.asnumpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(_stack_states(layer, [s.asnumpy() for s in new]), new2):
        np.testing.assert_allclose(a, b.asnumpy(), rtol=1e-5, atol=1e-6)


def _grads_of(block, inputs, heads, **kw):
    inputs[0].attach_grad()
    with autograd.record():
        out = block(*inputs, **kw)
    outs = out if isinstance(out, (list, tuple)) else [out]
    flat = []
    for o in outs:
        flat.extend(o if isinstance(o, (list, tuple)) else [o])
    autograd.backward(flat, heads[:len(flat)])
    g = {p.name: p.grad().asnumpy().copy() for p in block.collect_params().values()}
    g["input"] = inputs[0].grad.asnumpy().copy()
    block.collect_params().zero_grad()
    return [o.asnumpy() for o in flat], g


@pytest.mark.parametrize("make", [
    lambda: rnn.LSTM(4, num_layers=2, bidirectional=True, layout="NTC", dtype="float64"),
    lambda: rnn.GRU(4, num_layers=2, dtype="float64"),
    lambda: rnn.RNN(4, activation="tanh", bidirectional=True, dtype="float64"),
    lambda: rnn.LSTM(4, projection_size=3, bidirectional=True, dtype="float64"),
    lambda: rnn.GRU(4, bidirectional=True, use_sequence_length=True, dtype="float64"),
], ids=["lstm", "gru", "rnn", "lstmp", "gru_lengths"])
def test_layer_hybridized_equals_imperative(make):
    """Outputs, states and gradients (float64), for two sequence lengths; a second call with
    the same shapes neither re-traces nor re-binds."""
    layer = make()
    layer.initialize(mx.init.Uniform(0.5))
    results = {}
    for hybrid in (False, True):
        layer.hybridize(hybrid)
        for t_len in (4, 6):
            shape = (3, t_len, 2) if layer._layout == "NTC" else (t_len, 3, 2)
            x = nd.array(np.random.RandomState(t_len).uniform(-1, 1, shape), dtype="float64")
            states = [nd.array(np.random.RandomState(t_len + 1).uniform(-1, 1, s["shape"]),
                               dtype="float64") for s in layer.state_info(3)]
            kw = {}
            if layer._use_sequence_length:
                kw["sequence_length"] = nd.array([t_len, 1, t_len - 2], dtype="float64")
            head = nd.array(np.random.RandomState(t_len + 2).uniform(
                -1, 1, (shape[0], shape[1], (layer._projection_size or 4) * layer._dir)),
                dtype="float64")
            x.attach_grad()
            for s in states:
                s.attach_grad()
            with autograd.record():
                out, new = layer(x, states, **kw)
                loss = (out * head).sum() + sum((s * s).sum() for s in new)
            loss.backward()
            g = {p.name: p.grad().asnumpy().copy() for p in layer.collect_params().values()}
            g["x"] = x.grad.asnumpy()
            g.update(("state%d" % i, s.grad.asnumpy()) for i, s in enumerate(states))
            results[hybrid, t_len] = (out.asnumpy(), [s.asnumpy() for s in new], g)
            layer.collect_params().zero_grad()
        if hybrid:
            traces = layer.num_traces
            layer(x, states, **kw)
            assert layer.num_traces == traces
    for t_len in (4, 6):
        a, b = results[False, t_len], results[True, t_len]
        np.testing.assert_allclose(a[0], b[0], rtol=1e-10, atol=1e-12)
        for s1, s2 in zip(a[1], b[1]):
            np.testing.assert_allclose(s1, s2, rtol=1e-10, atol=1e-12)
        for k in a[2]:
            np.testing.assert_allclose(np.array(a[2][k]), np.array(b[2][k]), rtol=1e-9,
                                       atol=1e-11, err_msg=k)


class _CellNet(gluon.HybridBlock):
    """A stack of cells unrolled in hybrid_forward, a BidirectionalCell with valid lengths and a
    cell used twice: each parameter is one graph input whose gradient sums all its uses."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.stack = rnn.HybridSequentialRNNCell()
            self.stack.add(rnn.LSTMCell(4))
            self.stack.add(rnn.ResidualCell(rnn.GRUCell(4)))
            self.bi = rnn.BidirectionalCell(rnn.GRUCell(3), rnn.RNNCell(2, activation="relu"))
            self.out = nn.Dense(2, flatten=False)

    def hybrid_forward(self, F, x, valid_length):
        y, _ = self.stack.unroll(5, x, layout="NTC", merge_outputs=True)
        z, _ = self.bi.unroll(5, y, layout="NTC", merge_outputs=True, valid_length=valid_length)
        return self.out(z)


def test_cells_hybridized_parent_equals_imperative():
    rng = np.random.RandomState(10)
    net = _CellNet()
    net.initialize(mx.init.Uniform(0.5))
    x = nd.array(rng.uniform(-1, 1, (3, 5, 2)))
    lengths = nd.array([5, 2, 3])
    head = nd.array(rng.uniform(-1, 1, (3, 5, 2)))
    eager = _grads_of(net, [x, lengths], [head])
    net.hybridize()
    hybrid = _grads_of(net, [x, lengths], [head])
    assert net.num_traces == 1
    np.testing.assert_allclose(eager[0][0], hybrid[0][0], rtol=1e-5, atol=1e-6)
    assert set(eager[1]) == set(hybrid[1])
    for k in eager[1]:
        np.testing.assert_allclose(eager[1][k], hybrid[1][k], rtol=1e-4, atol=1e-6, err_msg=k)
    # the padded steps are zero in the output of the bidirectional cell
    out = net.bi.unroll(5, nd.array(rng.uniform(-1, 1, (3, 5, 4))), layout="NTC",
                        merge_outputs=True, valid_length=lengths)[0].asnumpy()
    # (the valid steps' GRU half is nonzero; the relu half may hold exact zeros)
    assert not out[1, 2:].any() and not out[2, 3:].any() and out[1, :2, :3].all()


def test_hybridized_cell_step():
    cell = rnn.LSTMCell(3, input_size=2)
    cell.initialize()
    x = nd.array(np.random.RandomState(0).uniform(-1, 1, (4, 2)))
    states = cell.begin_state(4)
    a, sa = cell(x, states)
    cell.hybridize()
    b, sb = cell(x, states)
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    for s1, s2 in zip(sa, sb):
        np.testing.assert_allclose(s1.asnumpy(), s2.asnumpy(), rtol=1e-6)


# ---- deferred shapes, begin_state, naming, errors ----------------------------------------------

def test_deferred_input_size():
    layer = rnn.LSTM(6, num_layers=2, bidirectional=True)
    layer.initialize()
    assert layer.l0_i2h_weight.shape == (24, 0) and layer.l1_i2h_weight.shape == (24, 12)
    assert layer(nd.ones((3, 2, 5))).shape == (3, 2, 12)
    assert layer.l0_i2h_weight.shape == (24, 5) and layer.r0_i2h_weight.shape == (24, 5)
    assert repr(layer) == "LSTM(5 -> 6, TNC, num_layers=2, bidirectional)"
    cell = rnn.GRUCell(4)
    cell.initialize()
    cell.unroll(3, nd.ones((2, 3, 7)))
    assert cell.i2h_weight.shape == (12, 7) and repr(cell) == "GRUCell(7 -> 12)"


class _LM(gluon.HybridBlock):
    def __init__(self, vocab, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(vocab, 8)
            self.lstm = rnn.LSTM(16, layout="NTC")  # input size from the embedding
            self.out = nn.Dense(vocab, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(self.lstm(self.embed(x)))


def test_deferred_input_size_inside_hybridized_parent():
    """A layer with input_size 0 traced inside a hybridized parent completes its shapes from the
    parent's inputs and gives the imperative result."""
    net = _LM(10)
    net.initialize(mx.init.Uniform(0.3))
    net.hybridize()
    x = nd.array(np.random.RandomState(0).randint(0, 10, (2, 5)))
    y = net(x)
    assert net.lstm.l0_i2h_weight.shape == (64, 8) and y.shape == (2, 5, 10)
    net.hybridize(False)
    np.testing.assert_allclose(net(x).asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-7)


def test_begin_state_shapes_and_funcs():
    assert [s.shape for s in rnn.LSTM(5, num_layers=3, bidirectional=True).begin_state(4)] == \
        [(6, 4, 5), (6, 4, 5)]
    assert [s.shape for s in rnn.GRU(5, num_layers=2).begin_state(3)] == [(2, 3, 5)]
    assert [s.shape for s in rnn.LSTM(5, projection_size=2).begin_state(3)] == \
        [(1, 3, 2), (1, 3, 5)]
    layer = rnn.RNN(5, dtype="float64")
    (state,) = layer.begin_state(2, func=nd.ones)
    assert state.dtype == np.float64 and state.asnumpy().min() == 1
    (sym,) = layer.begin_state(func=mx.sym.var)
    assert isinstance(sym, mx.sym.Symbol) and sym.name == layer.prefix + "h0_0"
    stack = rnn.SequentialRNNCell()
    stack.add(rnn.LSTMCell(3))
    stack.add(rnn.DropoutCell(0.5))
    stack.add(rnn.ResidualCell(rnn.GRUCell(3)))
    assert [s.shape for s in stack.begin_state(batch_size=2)] == [(2, 3)] * 3
    assert [i["shape"] for i in stack.state_info(7)] == [(7, 3)] * 3
    bi = rnn.BidirectionalCell(rnn.LSTMCell(3), rnn.RNNCell(2))
    assert [s.shape for s in bi.begin_state(batch_size=2)] == [(2, 3), (2, 3), (2, 2)]
    syms = rnn.LSTMCell(3, prefix="enc_").begin_state(func=mx.sym.zeros)
    assert [s.name for s in syms] == ["enc_begin_state_0", "enc_begin_state_1"]


def test_names_follow_mxnet():
    layer = rnn.GRU(3, num_layers=2, bidirectional=True, prefix="gru_")
    assert list(layer.collect_params()) == [
        "gru_%s%d_%s" % (d, i, n) for i in range(2) for d in "lr"
        for n in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias")]
    assert sorted(rnn.LSTM(3)._collect_params_with_prefix()) == [
        "_unfused.0.h2h_bias", "_unfused.0.h2h_weight", "_unfused.0.i2h_bias",
        "_unfused.0.i2h_weight"]
    cell = rnn.LSTMCell(4, prefix="c_")
    assert list(cell.collect_params()) == ["c_i2h_weight", "c_h2h_weight", "c_i2h_bias",
                                           "c_h2h_bias"]
    assert cell.i2h_weight.shape == (16, 0) and cell.h2h_weight.shape == (16, 4)
    stack = rnn.HybridSequentialRNNCell()
    stack.add(rnn.RNNCell(2, input_size=3))
    stack.add(rnn.ResidualCell(rnn.RNNCell(2, input_size=2)))
    assert sorted(stack._collect_params_with_prefix()) == [
        "0.h2h_bias", "0.h2h_weight", "0.i2h_bias", "0.i2h_weight", "1.base_cell.h2h_bias",
        "1.base_cell.h2h_weight", "1.base_cell.i2h_bias", "1.base_cell.i2h_weight"]


def test_errors_name_what_was_expected():
    with pytest.raises(ValueError, match="'TNC'.*'NTC'"):
        rnn.LSTM(3, layout="NCT")
    with pytest.raises(ValueError, match="'relu' or 'tanh'"):
        rnn.RNN(3, activation="sigmoid")
    layer = rnn.LSTM(3, layout="NTC")
    layer.initialize()
    with pytest.raises(ValueError, match=r"3-D input in layout NTC \(batch size, sequence "
                                         r"length, features\), got shape \(2, 5\)"):
        layer(nd.ones((2, 5)))
    with pytest.raises(ValueError, match=r"Expecting \(1, 2, 3\), got \(1, 4, 3\)"):
        layer(nd.ones((2, 5, 4)), [nd.zeros((1, 4, 3)), nd.zeros((1, 4, 3))])
    with pytest.raises(ValueError, match="takes 2 state arrays, got 1"):
        layer(nd.ones((2, 5, 4)), nd.zeros((1, 2, 3)))
    cell = rnn.LSTMCell(3)
    cell.initialize()
    with pytest.raises(ValueError, match=r"unroll\(length=4\).*3 steps"):
        cell.unroll(4, nd.ones((2, 3, 5)))
    bi = rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2))
    with pytest.raises(NotImplementedError, match="unroll"):
        bi(nd.ones((2, 3)), bi.begin_state(batch_size=2))
    base = rnn.GRUCell(2)
    rnn.ZoneoutCell(base, zoneout_outputs=0.5)
    with pytest.raises(RuntimeError, match="modifier"):
        base.begin_state(batch_size=2)
    with pytest.raises(RuntimeError, match="already modified"):
        rnn.ResidualCell(base)
    with pytest.raises(ValueError, match="sequence length"):
        layer = rnn.LSTM(3, projection_size=2)
        layer(mx.sym.var("x"))


def test_zoneout_and_dropout_cells():
    cell = rnn.ZoneoutCell(rnn.LSTMCell(4, input_size=3), zoneout_outputs=0.5,
                           zoneout_states=0.5)
    cell.initialize()
    plain = rnn.LSTMCell(4, input_size=3, prefix=cell.base_cell.prefix,
                         params=cell.base_cell.params)
    x = nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 4, 3)))
    a = cell.unroll(4, x, merge_outputs=True)[0].asnumpy()  # predicting: no zoneout
    b = plain.unroll(4, x, merge_outputs=True)[0].asnumpy()
    np.testing.assert_allclose(a, b, rtol=1e-6)
    mx.random.seed(1)
    with autograd.train_mode():
        c = cell.unroll(4, x, merge_outputs=True)[0].asnumpy()
    assert not np.allclose(c, b)
    drop = rnn.DropoutCell(0.5)
    y = nd.ones((3, 4, 5))
    assert drop.unroll(4, y)[0] is not None
    np.testing.assert_array_equal(drop.unroll(4, y, merge_outputs=True)[0].asnumpy(), 1)
    # training: each input element is dropped with probability rate, the kept ones scaled by
    # 1 / (1 - rate), in train_mode and under autograd.record, merged or step by step
    rate, shape = 0.3, (100, 4, 250)  # 100000 elements
    drop = rnn.DropoutCell(rate)
    ones = nd.ones(shape)
    mx.random.seed(3)
    with autograd.train_mode():
        merged = drop.unroll(4, ones, merge_outputs=True)[0].asnumpy()
        steps = np.stack([o.asnumpy() for o in drop.unroll(4, ones, merge_outputs=False)[0]], axis=1)
    with autograd.record():
        recorded = drop.unroll(4, ones, merge_outputs=True)[0].asnumpy()
    for how, out in (("merged", merged), ("step by step", steps), ("autograd.record", recorded)):
        assert out.shape == shape, how
        kept = out != 0
        np.testing.assert_allclose(out[kept], 1 / (1 - rate), rtol=1e-6, err_msg=how)
        # the dropped fraction: binomial, sd sqrt(0.3 * 0.7 / 1e5) = 0.00145; 0.01 is 6.9 sd
        # (a false failure once in 1e11 seeds), while a rate 0.03 off fails
        assert abs(1 - kept.mean() - rate) < 0.01, "%s: %.4f dropped, rate %s" % (how, 1 - kept.mean(), rate)
    assert not np.array_equal(merged, recorded)  # a new mask each call


# ---- a language model that learns ---------------------------------------------------------------

def test_lstm_language_model_loss_falls():
    """Embedding -> 2-layer LSTM -> Dense over tokens that follow a fixed rule (next = 3*tok + 1
    mod 11), trained with gluon.Trainer and hybridized: the loss falls well below chance."""
    mx.random.seed(0)
    rng = np.random.RandomState(0)
    vocab = 11
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Embedding(vocab, 16), rnn.LSTM(32, num_layers=2, layout="NTC"),
                nn.Dense(vocab, flatten=False))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.02})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(40):
        seq = np.zeros((16, 9), dtype=np.int64)
        seq[:, 0] = rng.randint(0, vocab, 16)
        for t in range(1, 9):
            seq[:, t] = (3 * seq[:, t - 1] + 1) % vocab
        x, y = nd.array(seq[:, :-1]), nd.array(seq[:, 1:])
        with autograd.record():
            loss = loss_fn(net(x), y).mean()
        loss.backward()
        trainer.step(1)
        losses.append(float(loss.asscalar()))
    assert losses[0] > 2.0  # about log(11)
    assert np.mean(losses[-5:]) < 0.25 * losses[0], losses
