"""MXNet 1.9.1 Gluon-side API that MXNet's own tests use (issue 38): initializers (Bilinear,
LSTMBias, Constant.dumps of an array), metric configs and registry names (get_config, PCC),
losses (PoissonNLL, CosineEmbedding, SDML), the recurrent cells' node names and
gluon.contrib.rnn, Context.default_ctx. Expected values come from the formulas, in NumPy."""
import json
import warnings

import numpy as np
import pytest

import symnet as mx
from symnet import gluon


# ---- initializers ----

def test_bilinear_kernel_is_outer_product_of_tents():
    arr = mx.nd.zeros((2, 3, 4, 6))
    mx.init.Bilinear()._init_weight(None, arr)

    def tent(n, f):
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        return 1 - np.abs(np.arange(n) / f - c)

    f = np.ceil(6 / 2.0)  # MXNet takes the factor from the width for both axes
    want = np.outer(tent(4, f), tent(6, f))
    got = arr.asnumpy()
    for o in range(2):
        for i in range(3):
            np.testing.assert_allclose(got[o, i], want, rtol=1e-6)
    assert mx.init.create("bilinear").__class__ is mx.init.Bilinear


def test_lstm_bias_is_one_class_for_init_and_legacy_rnn():
    from symnet.rnn._lstm_bias import LSTMBias
    assert mx.init.LSTMBias is LSTMBias
    arr = mx.nd.zeros((12,))
    mx.init.create('["lstmbias", {"forget_bias": 2.5}]')._init_weight("b", arr)
    np.testing.assert_array_equal(arr.asnumpy(), [0] * 3 + [2.5] * 3 + [0] * 6)


def test_constant_dumps_an_array_value_as_lists():
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    init = mx.init.Constant(mx.nd.array(value))
    text = init.dumps()
    name, kwargs = json.loads(text)
    assert name == "constant" and kwargs["value"] == value.tolist()
    # MXNet's quirk: the lists replace the array in _kwargs, so dumping _kwargs gives the same
    assert text == json.dumps([name, init._kwargs])
    arr = mx.nd.zeros((2, 3))
    mx.init.create(text)._init_weight("w", arr)
    np.testing.assert_array_equal(arr.asnumpy(), value)
    assert mx.init.Constant(1).dumps() == '["constant", {"value": 1}]'


# ---- metrics ----

@pytest.mark.parametrize("name, args, kwargs", [
    ("acc", (), {"axis": 0}), ("f1", (), {"average": "micro"}), ("mcc", (), {}),
    ("perplexity", (-1,), {}), ("pearsonr", (), {}), ("pcc", (), {}), ("nll_loss", (), {}),
    ("loss", (), {}), ("TopKAccuracy", (), {"top_k": 3}), ("ce", (), {"eps": 1e-5}),
    ("torch", (), {}), ("caffe", (), {})])
def test_metric_config_round_trip(name, args, kwargs):
    metric = mx.metric.create(name, *args, **kwargs)
    config = metric.get_config()
    assert config["metric"] == type(metric).__name__
    again = mx.metric.create(json.dumps(config))
    assert type(again) is type(metric)
    assert again.get_config() == config
    for key, value in kwargs.items():
        assert config[key] == value


def test_composite_metric_config_and_dict_create():
    composite = mx.metric.create(["acc", "f1"])
    config = composite.get_config()
    assert [c["metric"] for c in config["metrics"]] == ["Accuracy", "F1"]
    again = mx.metric.create(config)
    assert again.get_config() == config
    assert mx.metric.create('["acc", {"axis": 0}]').axis == 0
    with pytest.raises(NotImplementedError):
        mx.metric.CustomMetric(lambda l, p: 0.0).get_config()


def test_custom_metric_name_and_tuple_result():
    metric = mx.metric.create(lambda l, p: (float(np.abs(l - p).sum()), l.size))
    assert metric.name == "custom(<lambda>)"
    metric.update([mx.nd.array([1, 2, 3])], [mx.nd.array([1, 1, 1])])
    assert metric.get()[1] == pytest.approx(3.0 / 3)


def _confusion(pred, label, k):
    cm = np.zeros((k, k))
    for p, l in zip(pred, label):
        cm[p, l] += 1
    return cm


def test_pcc_matches_the_confusion_matrix_formula_and_mcc():
    rng = np.random.RandomState(3)
    label = rng.randint(0, 3, size=40)
    scores = rng.rand(40, 3)
    pcc = mx.metric.create("pcc")
    pcc.update([mx.nd.array(label)], [mx.nd.array(scores)])
    cm = _confusion(scores.argmax(1), label, 3)
    k = 3
    num = sum(cm[a, a] * cm[b, c] - cm[a, b] * cm[c, a] for a in range(k) for b in range(k) for c in range(k))
    rows = sum(cm[a].sum() * sum(cm[f].sum() for f in range(k) if f != a) for a in range(k))
    cols = sum(cm[:, a].sum() * sum(cm[:, g].sum() for g in range(k) if g != a) for a in range(k))
    assert pcc.get()[1] == pytest.approx(num / np.sqrt(rows * cols))
    # counts, not per-batch averages: the same samples one at a time, reversed, give the same
    one_by_one = mx.metric.create("pcc")
    for i in reversed(range(40)):
        one_by_one.update([mx.nd.array(label[i:i + 1])], [mx.nd.array(scores[i:i + 1])])
    assert one_by_one.get()[1] == pytest.approx(pcc.get()[1])
    assert one_by_one.num_inst == 40 and pcc.num_inst == 1

    binary = rng.randint(0, 2, size=30)
    bscores = rng.rand(30, 2)
    pcc2, mcc = mx.metric.create("pcc"), mx.metric.create("mcc")
    for m in (pcc2, mcc):
        m.update([mx.nd.array(binary)], [mx.nd.array(bscores)])
    assert pcc2.get()[1] == pytest.approx(mcc.get()[1])
    pcc2.reset_local()
    assert np.isnan(pcc2.get()[1]) and pcc2.get_global()[1] == pytest.approx(mcc.get()[1])


# ---- losses ----

def test_poisson_nll_loss():
    rng = np.random.RandomState(1)
    pred, target = rng.uniform(0.5, 3, (4, 5)), rng.uniform(0.5, 4, (4, 5))
    p, t = mx.nd.array(pred), mx.nd.array(target)
    got = gluon.loss.PoissonNLLLoss()(p, t).asnumpy()
    np.testing.assert_allclose(got, np.mean(np.exp(pred) - target * pred), rtol=1e-5)
    got = gluon.loss.PoissonNLLLoss(from_logits=False)(p, t).asnumpy()
    np.testing.assert_allclose(got, np.mean(pred - target * np.log(pred + 1e-8)), rtol=1e-5)
    stirling = (target * np.log(target) - target + 0.5 * np.log(2 * np.pi * target)) * (target > 1)
    want = np.mean(pred - target * np.log(pred + 1e-8) + stirling)
    net = gluon.loss.PoissonNLLLoss(from_logits=False, compute_full=True)
    np.testing.assert_allclose(net(p, t).asnumpy(), want, rtol=1e-5)
    net.hybridize()
    np.testing.assert_allclose(net(p, t).asnumpy(), want, rtol=1e-5)


def test_cosine_embedding_loss():
    rng = np.random.RandomState(2)
    a, b = rng.randn(6, 4), rng.randn(6, 4)
    label = np.array([1, -1, 1, -1, -1, 0])
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    margin = 0.2
    want = np.where(label == 1, 1 - cos, np.where(label == -1, np.maximum(0, cos - margin), 0))
    loss = gluon.loss.CosineEmbeddingLoss(margin=margin)
    args = (mx.nd.array(a), mx.nd.array(b), mx.nd.array(label))
    np.testing.assert_allclose(loss(*args).asnumpy(), want.reshape(-1, 1), rtol=1e-5, atol=1e-6)
    loss.hybridize()
    np.testing.assert_allclose(loss(*args).asnumpy(), want.reshape(-1, 1), rtol=1e-5, atol=1e-6)


def test_sdml_loss_and_its_gradient_direction():
    rng = np.random.RandomState(4)
    x1, x2 = rng.randn(4, 3), rng.randn(4, 3)
    s = 0.3
    dist = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(2)
    logp = -dist - np.log(np.exp(-dist).sum(1, keepdims=True))
    target = np.full((4, 4), s / 3) + np.eye(4) * (1 - s - s / 3)
    want = (target * (np.log(target + 1e-12) - logp)).mean(1)
    a, b = mx.nd.array(x1), mx.nd.array(x2)
    a.attach_grad()
    with mx.autograd.record():
        loss = gluon.loss.SDMLLoss(smoothing_parameter=s)(a, b)
    loss.backward()
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)
    # a small step against the gradient lowers the loss
    stepped = gluon.loss.SDMLLoss(smoothing_parameter=s)(a - 0.01 * a.grad, b)
    assert stepped.sum().asscalar() < loss.sum().asscalar()


# ---- recurrent cells ----

@pytest.mark.parametrize("cell_class", [gluon.rnn.RNNCell, gluon.rnn.LSTMCell, gluon.rnn.GRUCell])
def test_cell_steps_are_named_as_mxnet(cell_class):
    cell = cell_class(8, prefix="rnn_")
    outputs, _ = cell.unroll(3, [mx.sym.var("rnn_t%d_data" % i) for i in range(3)])
    assert mx.sym.Group(outputs).list_outputs() == ["rnn_t%d_out_output" % i for i in range(3)]
    internals = mx.sym.Group(outputs).get_internals().list_outputs()
    assert "rnn_t1_i2h_output" in internals and "rnn_t2_h2h_output" in internals


def test_bidirectional_residual_dropout_names():
    cell = gluon.rnn.BidirectionalCell(gluon.rnn.LSTMCell(4, prefix="rnn_l0_"),
                                       gluon.rnn.LSTMCell(4, prefix="rnn_r0_"),
                                       output_prefix="rnn_bi_")
    outputs, _ = cell.unroll(2, [mx.sym.var("t%d" % i) for i in range(2)])
    assert mx.sym.Group(outputs).list_outputs() == ["rnn_bi_t0_output", "rnn_bi_t1_output"]
    outputs, _ = cell.unroll(2, mx.sym.var("t"), merge_outputs=True)
    assert outputs.list_outputs() == ["rnn_bi_out_output"]
    res = gluon.rnn.ResidualCell(gluon.rnn.GRUCell(4, prefix="rnn_"))
    stepped, _ = res(mx.sym.var("x"), [mx.sym.var("h")])
    # the modifier's prefix is the base cell's plus the class name (MXNet's, no separator)
    assert stepped.list_outputs() == ["rnn_residualcellt0_fwd_output"]
    drop = gluon.rnn.DropoutCell(0.5, prefix="drop_")
    out, _ = drop(mx.sym.var("x"), [])
    assert out.list_outputs() == ["drop_t0_fwd_output"]


def test_cell_values_unchanged_by_naming():
    rng = np.random.RandomState(5)
    cell = gluon.rnn.GRUCell(3, input_size=2)
    cell.initialize()
    x, h = rng.randn(4, 2), rng.randn(4, 3)
    out, _ = cell(mx.nd.array(x), [mx.nd.array(h)])
    w_i, w_h = cell.i2h_weight.data().asnumpy(), cell.h2h_weight.data().asnumpy()
    b_i, b_h = cell.i2h_bias.data().asnumpy(), cell.h2h_bias.data().asnumpy()
    gi, gh = x @ w_i.T + b_i, h @ w_h.T + b_h
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    r, z = sig(gi[:, :3] + gh[:, :3]), sig(gi[:, 3:6] + gh[:, 3:6])
    n = np.tanh(gi[:, 6:] + r * gh[:, 6:])
    np.testing.assert_allclose(out.asnumpy(), (1 - z) * n + z * h, rtol=1e-5, atol=1e-6)


def test_lstm_bias_reaches_a_module_through_the_cell_graph():
    cell = gluon.rnn.LSTMCell(5, i2h_bias_initializer=mx.init.LSTMBias(2.0), prefix="l0_")
    out, _ = cell.unroll(1, mx.sym.var("data"), merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None)
    mod.bind(data_shapes=[("data", (3, 1, 4))])
    mod.init_params()
    np.testing.assert_array_equal(mod.get_params()[0]["l0_i2h_bias"].asnumpy(),
                                  [0] * 5 + [2] * 5 + [0] * 10)


def test_lstmp_cell_matches_numpy():
    rng = np.random.RandomState(6)
    cell = gluon.contrib.rnn.LSTMPCell(4, 2, input_size=3)
    cell.initialize(mx.init.Uniform(0.5))
    x, r, c = rng.randn(5, 3), rng.randn(5, 2), rng.randn(5, 4)
    out, (r1, c1) = cell(mx.nd.array(x), [mx.nd.array(r), mx.nd.array(c)])
    p = {k.split("_", 1)[1]: v.data().asnumpy() for k, v in cell.collect_params().items()}
    g = x @ p["i2h_weight"].T + p["i2h_bias"] + r @ p["h2h_weight"].T + p["h2h_bias"]
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    i, f, cand, o = sig(g[:, :4]), sig(g[:, 4:8]), np.tanh(g[:, 8:12]), sig(g[:, 12:])
    c_want = f * c + i * cand
    r_want = (o * np.tanh(c_want)) @ p["h2r_weight"].T
    np.testing.assert_allclose(c1.asnumpy(), c_want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), r_want, rtol=1e-5, atol=1e-6)
    assert r1.shape == (5, 2)


@pytest.mark.parametrize("drop_states", [0.0, 0.3])
def test_variational_dropout_keeps_one_mask_per_sequence(drop_states):
    cell = gluon.contrib.rnn.VariationalDropoutCell(gluon.rnn.RNNCell(50), drop_outputs=0.5,
                                                    drop_states=drop_states)
    cell.initialize(mx.init.Uniform(1.0))
    data = mx.nd.array(np.random.RandomState(7).randn(2, 6, 8) + 1)
    with mx.autograd.train_mode():
        outs, _ = cell.unroll(6, data, merge_outputs=True)
    zero = outs.asnumpy() == 0
    assert 0 < zero[:, 0].mean() < 1
    for t in range(1, 6):
        np.testing.assert_array_equal(zero[:, t], zero[:, 0])
    # predicting: no dropout at all, the base cell's outputs
    plain, _ = cell.unroll(6, data, merge_outputs=True)
    cell.base_cell._modified = False
    base, _ = cell.base_cell.unroll(6, data, merge_outputs=True)
    np.testing.assert_allclose(plain.asnumpy(), base.asnumpy(), rtol=1e-6)


# ---- Context.default_ctx ----

def test_context_default_ctx_class_attribute():
    Context = mx.context.Context
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert Context.default_ctx == mx.cpu(0)
        with mx.cpu(3):
            assert Context.default_ctx == mx.cpu(3)
            assert mx.cpu(1).default_ctx == mx.cpu(3)
        old = Context.default_ctx
        try:
            Context.default_ctx = mx.cpu(2)
            assert mx.current_context() == mx.cpu(2)
            assert mx.nd.zeros((1,)).context == mx.cpu(2)
        finally:
            Context.default_ctx = old
    with pytest.warns(DeprecationWarning):
        Context.default_ctx


# ---- blocks ----

class _AddOptional(gluon.HybridBlock):
    def hybrid_forward(self, F, a, b=None):
        if a is None:
            return b * 2
        return a if b is None else a + b


@pytest.mark.parametrize("hybridize", [False, True])
def test_hybrid_block_takes_none_inputs(hybridize):
    net = _AddOptional()
    if hybridize:
        net.hybridize()
    one = mx.nd.ones((3,))
    np.testing.assert_array_equal(net(None, one).asnumpy(), [2, 2, 2])
    with pytest.raises(ValueError):
        net(None, None)
    with pytest.raises(ValueError):
        net(one, mx.sym.var("b"))
    if hybridize:
        # the graph was traced with (None, x): another structure is an error, as in MXNet
        with pytest.raises(ValueError):
            net(one, one)
        fresh = _AddOptional()
        fresh.hybridize()
        # a trailing None is the default: both spellings reuse one graph
        np.testing.assert_array_equal(fresh(one).asnumpy(), fresh(one, None).asnumpy())
        assert fresh.num_traces == 1


def test_hybrid_block_unhybridized_passes_lists_and_scalars():
    class Sum(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            a = sum(a) if isinstance(a, list) else a
            return a + b

    net = Sum()
    out = net([mx.nd.ones((2,)), mx.nd.ones((2,))], 3)
    np.testing.assert_array_equal(out.asnumpy(), [5, 5])
    net.hybridize()
    with pytest.raises(ValueError):
        net(mx.nd.ones((2,)), 3)  # a traced graph has no scalar inputs


def test_symbol_block_composes_on_symbols_and_saves_parameters():
    model = gluon.nn.HybridSequential(prefix="m_")
    with model.name_scope():
        model.add(gluon.nn.Dense(4, in_units=3), gluon.nn.Dense(2, in_units=4))
    model.initialize()
    data = mx.sym.var("data")
    internals = model(data).get_internals()
    outs = [internals["m_dense0_fwd_output"], internals["m_dense1_fwd_output"]]
    sblock = gluon.SymbolBlock(outs, data, params=model.collect_params())
    composed = sblock(mx.sym.var("x"))
    assert len(composed) == 2 and "x" in composed[0].list_arguments()

    class Net(gluon.HybridBlock):
        def __init__(self, inner, **kw):
            super().__init__(**kw)
            self.inner = inner

        def hybrid_forward(self, F, x):
            a, b = self.inner(x)
            return F.sum(a) + F.sum(b)

    x = mx.nd.array(np.random.RandomState(0).randn(5, 3))
    net = Net(sblock)
    want = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    # structural names: the parameter names less their common prefix, cut character-wise
    # as MXNet's ('m_dense' here)
    assert sorted(sblock._collect_params_with_prefix()) == ["0_bias", "0_weight", "1_bias", "1_weight"]


def test_legacy_save_params_load_into_symbol_block(tmp_path):
    net = gluon.nn.HybridSequential(prefix="")
    with net.name_scope():  # an explicit name: auto names count the Dense layers made before in the process
        net.add(gluon.nn.Dense(3, in_units=2, prefix="dense0_"))
    net.initialize()
    graph = net(mx.sym.var("data"))
    with pytest.warns(UserWarning):
        net.save_params(str(tmp_path / "p.params"))
    assert sorted(mx.nd.load(str(tmp_path / "p.params"))) == ["dense0_bias", "dense0_weight"]
    block = gluon.SymbolBlock(graph, mx.sym.var("data"))
    with pytest.warns(UserWarning):
        block.load_params(str(tmp_path / "p.params"))
    x = mx.nd.ones((1, 2))
    np.testing.assert_allclose(block(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)


def test_hook_handles_apply_and_summary_guard():
    calls = []
    dense = gluon.nn.Dense(2)
    dense.initialize()
    handle = dense.register_forward_hook(lambda b, x, y: calls.append("post"))
    pre = dense.register_forward_pre_hook(lambda b, x: calls.append("pre"))
    dense(mx.nd.ones((1, 3)))
    handle.detach()
    dense(mx.nd.ones((1, 3)))
    with pre:
        pass  # leaving the with detaches
    dense(mx.nd.ones((1, 3)))
    assert calls == ["pre", "post", "pre"]

    seq = gluon.nn.HybridSequential(prefix="s_")
    with seq.name_scope():
        seq.add(gluon.nn.Dense(2), gluon.nn.Dropout(0.5))
    seen = []
    assert seq.apply(lambda b: seen.append(b.name)) is seq
    assert seen == ["s_dense0", "s_dropout0", "s"]
    seq.initialize()
    seq.hybridize()
    with pytest.raises(AssertionError):
        seq.summary(mx.nd.ones((1, 3)))
    assert not seq._children["0"]._forward_hooks  # no hook left behind


def test_unregistered_block_containers_and_sequential_warn():
    class Listed(gluon.Block):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.layers = [gluon.nn.Dense(2)]
            self.config = {"a": 1}

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        Listed().collect_params()
    assert any("unregistered container" in str(x.message) for x in w)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        seq = gluon.nn.Sequential()
        seq.add(gluon.nn.Dense(2))
        seq.collect_params()
        seq.hybridize()
    assert len(w) == 1 and "HybridSequential" in str(w[0].message)


def test_parameter_dict_repr_and_shared_initializer_equality():
    params = gluon.ParameterDict("net1_")
    params.get("w", shape=(2, 3))
    lines = repr(params).splitlines()
    assert lines[0] == "net1_ (" and "net1_w" in lines[1] and lines[-1] == ")"
    assert repr(gluon.ParameterDict()).splitlines()[0] == "("
    assert mx.init.Constant(-10.0) == mx.init.Constant(-10.0)
    assert mx.init.Constant(1.0) != mx.init.Constant(2.0)
    assert mx.init.Xavier() != mx.init.Uniform()
    assert mx.init.Constant(mx.nd.ones((2,))) == mx.init.Constant(np.ones(2))
    const = gluon.Constant("c", [[1, 2], [3, 4]])
    assert repr(const).startswith("Constant c ")


def test_constant_parameter_value_reaches_a_module():
    class WithConst(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.c = self.params.get_constant("c", [[1.0, 2.0, 3.0]])

        def hybrid_forward(self, F, x, c):
            return F.broadcast_add(x, c)

    out = WithConst(prefix="w_")(mx.sym.var("data"))
    mod = mx.mod.Module(out, label_names=None)
    mod.bind(data_shapes=[("data", (2, 3))])
    mod.init_params()
    np.testing.assert_array_equal(mod.get_params()[0]["w_c"].asnumpy(), [[1, 2, 3]])


def test_reflection_pad_2d():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    out = gluon.nn.ReflectionPad2D(2)(mx.nd.array(x)).asnumpy()
    np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="reflect"))


def test_parameter_dtype_equals_name_and_numpy_type(tmp_path):
    net = gluon.nn.Dense(4, in_units=3)
    net.initialize()
    net.cast("float16")
    net.save_parameters(str(tmp_path / "h.params"))
    net.cast("float32")
    assert net.weight.dtype == "float32" and net.weight.dtype == np.float32
    net.load_parameters(str(tmp_path / "h.params"), cast_dtype=True, dtype_source="saved")
    assert net.weight.dtype == np.float16 and net.weight.dtype == "float16"
    assert net.weight.dtype != np.float32 and np.dtype(net.weight.dtype) == np.float16
    assert {net.weight.dtype: 1}["float16"] == 1
