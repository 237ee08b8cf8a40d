"""Behaviours of MXNet 1.9.1 that its own unit tests rely on and symnet got wrong (issue 38).
Each expected value below was read off real MXNet 1.9.1 running the same calls."""
import json

import numpy as np
import pytest

import symnet as mx
from symnet import gluon
from symnet.gluon import nn
from symnet.name import NameManager


# ---- Module: inference forwards load the batch's labels ------------------------------------
def _label_loss_module():
    """A graph whose output reads the label: (fc(data) - label)^2 per sample."""
    data, label = mx.sym.var("data"), mx.sym.var("label")
    fc = mx.sym.FullyConnected(data, num_hidden=1, name="fc")
    loss = mx.sym.MakeLoss(mx.sym.square(mx.sym.reshape(fc, shape=(-1,)) - label))
    mod = mx.mod.Module(loss, data_names=("data",), label_names=("label",))
    mod.bind(data_shapes=[("data", (4, 3))], label_shapes=[("label", (4,))])
    mod.init_params(mx.init.Xavier())
    return mod


def _expected_loss(mod, x, y):
    args, _ = mod.get_params()
    w, b = args["fc_weight"].asnumpy(), args["fc_bias"].asnumpy()
    return ((x @ w.T + b).reshape(-1) - y) ** 2


def test_inference_forward_reads_the_batch_labels():
    mod = _label_loss_module()
    rng = np.random.RandomState(1)
    x = rng.rand(4, 3).astype(np.float32)
    y_train, y_eval = np.zeros(4, np.float32), np.full(4, 5.0, np.float32)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y_train)]), is_train=True)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y_eval)]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), _expected_loss(mod, x, y_eval), rtol=1e-5)


def test_score_uses_the_eval_labels():
    mod = _label_loss_module()
    rng = np.random.RandomState(2)
    x = rng.rand(8, 3).astype(np.float32)
    y = rng.rand(8).astype(np.float32) * 10
    mod.forward(mx.io.DataBatch([mx.nd.array(x[:4])], [mx.nd.array(np.zeros(4, np.float32))]), is_train=True)
    it = mx.io.NDArrayIter(x, y, batch_size=4, label_name="label")
    (name, value), = mod.score(it, mx.metric.Loss())
    assert name == "loss"
    np.testing.assert_allclose(value, _expected_loss(mod, x, y).mean(), rtol=1e-5)


# ---- nd.zeros / ones / full with out ------------------------------------------------------
def test_creation_functions_fill_and_return_out():
    out = mx.nd.array([[5, 5], [5, 5]])
    assert mx.nd.ones((2, 2), out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), np.ones((2, 2)))
    assert mx.nd.zeros((2, 2), out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((2, 2)))
    assert mx.nd.full((2, 2), 7, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 2), 7))
    # full writes into out whatever shape and dtype were asked for (MXNet: out[:] = val)
    ints = mx.nd.zeros((3,), dtype="int32")
    assert mx.nd.full((2, 2), 3.7, dtype="float64", out=ints) is ints
    assert ints.dtype == np.int32
    np.testing.assert_array_equal(ints.asnumpy(), [3, 3, 3])
    # zeros and ones check out against the requested shape and dtype (float32 by default)
    ints = mx.nd.ones((2,), dtype="int32")
    assert mx.nd.zeros((2,), dtype="int32", out=ints) is ints
    np.testing.assert_array_equal(ints.asnumpy(), [0, 0])
    with pytest.raises(mx.base.MXNetError, match="shape"):
        mx.nd.zeros((2, 2), out=mx.nd.ones((4,)))
    with pytest.raises(mx.base.MXNetError, match="dtype"):
        mx.nd.ones((2,), out=ints)


def test_zeros_like_and_ones_like_ignore_dtype():
    a = mx.nd.array([[1, 2], [3, 4]])
    z = mx.nd.zeros_like(a, dtype="int32")
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z.asnumpy(), np.zeros((2, 2)))
    o = mx.nd.ones_like(mx.nd.array([1, 2], dtype="float64"), dtype="float32")
    assert o.dtype == np.float64
    np.testing.assert_array_equal(o.asnumpy(), [1, 1])
    np.testing.assert_array_equal(a.zeros_like(dtype="int32").asnumpy(), np.zeros((2, 2)))
    x = mx.sym.var("x")
    out = mx.sym.zeros_like(x, dtype="int32").eval(x=a)[0]
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((2, 2)))


# ---- prelu's gamma starts at 0.25 -----------------------------------------------------------
def test_prelu_gamma_gets_mxnets_initializer():
    data = mx.sym.var("data")
    implicit = mx.sym.LeakyReLU(data, act_type="prelu", name="lr")
    assert json.loads(implicit.attr_dict()["lr_gamma"]["__init__"]) == ["Constant", {"value": 0.25}]
    explicit = mx.sym.LeakyReLU(data, gamma=mx.sym.var("mygamma"), act_type="prelu", name="lr2")
    own = mx.sym.LeakyReLU(data, gamma=mx.sym.var("own_gamma", init=mx.init.Constant(3.0)),
                           act_type="prelu", name="lr3")
    for sym, name, value in ((implicit, "lr_gamma", 0.25), (explicit, "mygamma", 0.25), (own, "own_gamma", 3.0)):
        mod = mx.mod.Module(sym, label_names=None)
        mod.bind(data_shapes=[("data", (2, 3, 4, 4))])
        mod.init_params(mx.init.Xavier())
        np.testing.assert_array_equal(mod.get_params()[0][name].asnumpy(), np.full(3, value, np.float32))
    # the attribute is written into the JSON, as MXNet writes it
    nodes = json.loads(implicit.tojson())["nodes"]
    assert [n for n in nodes if n["name"] == "lr_gamma"][0]["attrs"]["__init__"] == \
        '["Constant", {"value": 0.25}]'
    leaky = mx.sym.LeakyReLU(data, act_type="leaky", name="lk")
    assert leaky.list_arguments() == ["data"]


# ---- Symbol.get_children --------------------------------------------------------------------
def test_get_children_lists_a_multi_output_nodes_inputs_once():
    d = mx.sym.var("data")
    sc = mx.sym.SliceChannel(d, num_outputs=3, name="sc")
    assert sc.get_children().list_outputs() == ["data"]
    assert sc[1].get_children().list_outputs() == ["data"]
    assert mx.sym.Group([sc[0], sc[2]]).get_children().list_outputs() == ["data"]
    fc = mx.sym.FullyConnected(d, num_hidden=2, name="fc")
    relu = mx.sym.relu(d, name="r")
    assert mx.sym.Group([fc, relu]).get_children().list_outputs() == ["data", "fc_weight", "fc_bias", "data"]
    assert mx.sym.Group([fc, fc]).get_children().list_outputs() == ["data", "fc_weight", "fc_bias"]
    assert mx.sym.Group([sc[0], fc, sc[1]]).get_children().list_outputs() == ["data", "data", "fc_weight",
                                                                              "fc_bias"]
    bn = mx.sym.BatchNorm(d, output_mean_var=True, name="bn")
    assert bn.get_children().list_outputs() == ["data", "bn_gamma", "bn_beta", "bn_moving_mean",
                                                "bn_moving_var"]
    assert d.get_children() is None


# ---- Gluon parameter files ------------------------------------------------------------------
class _Shared(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.a = nn.Dense(3, in_units=2)
            self.b = nn.Dense(3, in_units=2, params=self.a.params)
            self.c = nn.Dense(1, in_units=3)

    def hybrid_forward(self, F, x):
        return self.c(self.a(x) + self.b(x))


def test_deduplicated_parameters_load_back(tmp_path):
    net = _Shared()
    net.initialize(mx.init.Xavier())
    path = str(tmp_path / "dedup.params")
    net.save_parameters(path, deduplicate=True)
    # MXNet 1.9.1 keeps a shared parameter's last structural name
    assert list(mx.nd.load(path)) == ["b.weight", "b.bias", "c.weight", "c.bias"]
    other = _Shared()
    other.load_parameters(path)
    x = mx.nd.array(np.random.rand(4, 2))
    np.testing.assert_allclose(other(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(other.a.weight.data().asnumpy(), net.a.weight.data().asnumpy())


def test_load_parameters_dtype_source(tmp_path):
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    dense.cast("float16")
    path = str(tmp_path / "f16.params")
    dense.save_parameters(path)
    saved = nn.Dense(2, in_units=3)
    saved.load_parameters(path, cast_dtype=True, dtype_source="saved")
    assert saved.weight.data().dtype == np.float16 and saved.bias.data().dtype == np.float16
    np.testing.assert_array_equal(saved.weight.data().asnumpy(), dense.weight.data().asnumpy())
    initialized = nn.Dense(2, in_units=3)
    initialized.initialize()
    initialized.load_parameters(path, cast_dtype=True, dtype_source="saved")
    assert initialized.weight.data().dtype == np.float16
    current = nn.Dense(2, in_units=3)
    current.load_parameters(path, cast_dtype=True, dtype_source="current")
    assert current.weight.data().dtype == np.float32
    with pytest.raises(AssertionError):
        nn.Dense(2, in_units=3).load_parameters(path, cast_dtype=True, dtype_source="other")


def test_hybridized_block_runs_in_the_loaded_dtype(tmp_path):
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    path = str(tmp_path / "f64.params")
    dense.cast("float64")
    dense.save_parameters(path)
    net = nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 3)))  # a graph bound to the float32 parameters
    net.load_parameters(path, cast_dtype=True, dtype_source="saved")
    x = mx.nd.ones((1, 3), dtype="float64")
    np.testing.assert_allclose(net(x).asnumpy(), dense(x).asnumpy())
    # float32 data no longer fits the float64 weights (MXNet: "Incompatible attr"), rather than
    # running the graph bound before the load with the replaced float32 arrays
    with pytest.raises(mx.base.MXNetError):
        net(mx.nd.ones((1, 3)))


# a .params file of no arrays, as MXNet 1.9.1 writes it for a block without parameters
# (its bytes, from save_parameters of nn.Activation('relu')): magic 0x112, a reserved word,
# 0 arrays, 0 names
_MXNET_EMPTY_PARAMS = bytes.fromhex("1201000000000000" + "00" * 8 + "00" * 8 + "00" * 8)


def test_block_without_parameters_loads_mxnets_file(tmp_path):
    path = tmp_path / "empty.params"
    path.write_bytes(_MXNET_EMPTY_PARAMS)
    nn.Activation("relu").load_parameters(str(path))
    seq = nn.HybridSequential()
    seq.add(nn.Activation("relu"))
    seq.load_parameters(str(path))
    mine = str(tmp_path / "mine.params")
    seq.save_parameters(mine)
    nn.Activation("relu").load_parameters(mine)
    with pytest.raises(AssertionError, match="missing"):
        nn.Dense(2, in_units=3).load_parameters(str(path))


def test_parameter_dict_get_does_not_compare_allow_deferred_init():
    pd = gluon.ParameterDict("p_")
    pd.get("w", shape=(2, 3))
    assert pd.get("w", allow_deferred_init=True) is pd["p_w"]
    # as in MXNet, later gets must agree with the first value a get gave
    assert pd.get("w", allow_deferred_init=True) is pd["p_w"]
    with pytest.raises(ValueError, match="allow_deferred_init"):
        pd.get("w", allow_deferred_init=False)
    with pytest.raises(ValueError, match="lr_mult"):
        pd.get("w", lr_mult=2.0)


def test_tied_embedding_and_dense():
    class LM(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.emb = nn.Embedding(10, 4)
                self.out = nn.Dense(10, flatten=False, params=self.emb.params)

        def hybrid_forward(self, F, x):
            return self.out(self.emb(x))

    with NameManager():
        lm = LM()
    lm.initialize()
    assert lm(mx.nd.array([[1, 2]])).shape == (1, 2, 10)
    assert list(lm.collect_params().keys()) == ["lm0_embedding0_weight", "lm0_embedding0_bias"]


def test_reset_ctx_of_an_uninitialized_parameter_raises_value_error():
    with pytest.raises(ValueError, match="not been initialized"):
        gluon.Parameter("y", shape=(2,)).reset_ctx(mx.cpu())


# ---- F1 / MCC / Pearson instance counts -----------------------------------------------------
def _f1_batches():
    return [([mx.nd.array([1, 0]), mx.nd.array([1, 0])],
             [mx.nd.array([[0.1, 0.9], [0.5, 0.5]]), mx.nd.array([[0.85, 0.15], [1.0, 0.0]])]),
            ([mx.nd.array([0]), mx.nd.array([1])],
             [mx.nd.array([[0.6, 0.4]]), mx.nd.array([[0.2, 0.8]])])]


@pytest.mark.parametrize("name", ["f1", "mcc"])
def test_micro_metrics_count_samples_macro_count_updates(name):
    micro, macro = mx.metric.create(name, average="micro"), mx.metric.create(name, average="macro")
    counts = []
    for labels, preds in _f1_batches():
        micro.update(labels, preds)
        macro.update(labels, preds)
        counts.append((micro.num_inst, macro.num_inst))
        np.testing.assert_allclose(micro.sum_metric, micro.get()[1] * micro.num_inst)
    assert counts == [(4, 1), (6, 2)]
    if name == "f1":
        np.testing.assert_allclose(micro.get()[1], 2.0 * 2 / (2 * 2 + 1))
        np.testing.assert_allclose(macro.get()[1], (2.0 / 3 + 1.0) / 2)
    micro.reset_local()
    assert micro.num_inst == 0 and np.isnan(micro.get()[1])
    labels, preds = _f1_batches()[1]
    micro.update(labels, preds)
    assert micro.num_inst == 2


def test_pearson_counts_each_label_prediction_pair():
    rng = np.random.RandomState(0)
    l1, p1, l2, p2 = [rng.rand(5) for _ in range(4)]
    macro = mx.metric.PearsonCorrelation(average="macro")
    macro.update([mx.nd.array(l1), mx.nd.array(l2)], [mx.nd.array(p1), mx.nd.array(p2)])
    assert macro.num_inst == 2
    want = (np.corrcoef(p1, l1)[0, 1] + np.corrcoef(p2, l2)[0, 1]) / 2
    np.testing.assert_allclose(macro.get()[1], want, rtol=1e-5)
    micro = mx.metric.PearsonCorrelation(average="micro")
    micro.update([mx.nd.array(l1), mx.nd.array(l2)], [mx.nd.array(p1), mx.nd.array(p2)])
    assert micro.num_inst == 2
    np.testing.assert_allclose(micro.get()[1], np.corrcoef(np.r_[p1, p2], np.r_[l1, l2])[0, 1], rtol=1e-5)


# ---- output names of graphs traced from Gluon blocks ----------------------------------------
class Two(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.a = nn.Dense(2)
            self.b = nn.Dense(3)

    def hybrid_forward(self, F, x):
        return self.a(x), self.b(x)


class Unnamed(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.relu(x), x * 2 + 1


def test_traced_gluon_graphs_have_mxnets_output_names():
    d = mx.sym.var("data")
    with NameManager():
        assert nn.Dense(3)(d).list_outputs() == ["dense0_fwd_output"]
        act = nn.Dense(3, activation="relu")(d)
        assert act.list_outputs() == ["dense1_relu_fwd_output"]
        assert act.get_internals().list_outputs() == ["data", "dense1_weight", "dense1_bias", "dense1_fwd_output",
                                                      "dense1_relu_fwd_output"]
        seq = nn.HybridSequential()
        with seq.name_scope():
            seq.add(nn.Dense(4, activation="relu"), nn.Dense(2))
        out = seq(d)
        assert out.list_outputs() == ["hybridsequential0_dense1_fwd_output"]
        assert "hybridsequential0_dense0_relu_fwd_output" in out.get_internals().list_outputs()
        two = [s.list_outputs() for s in Two()(d)]
        assert two == [["two0_dense0_fwd_output"], ["two0_dense1_fwd_output"]]
        unnamed = Unnamed()
        for _ in range(2):  # each trace names from 0 again, as MXNet's per-scope counters do
            assert [s.list_outputs() for s in unnamed(d)] == [["unnamed0_relu0_output"],
                                                              ["unnamed0__plusscalar0_output"]]
        layers = [(nn.Conv2D(2, 3), "conv0_fwd_output"), (nn.BatchNorm(), "batchnorm0_fwd_output"),
                  (nn.Activation("relu"), "relu0_fwd_output"), (nn.MaxPool2D(), "pool0_fwd_output"),
                  (nn.Flatten(), "flatten0_flatten0_output"), (nn.Dropout(0.5), "dropout0_fwd_output"),
                  (nn.Embedding(5, 2), "embedding0_fwd_output"), (nn.LeakyReLU(0.1), "leakyrelu0_fwd_output"),
                  (nn.PReLU(), "prelu0_fwd_output"), (nn.LayerNorm(), "layernorm0_layernorm0_output"),
                  (nn.ELU(), "elu0_leakyrelu0_output")]
        for block, name in layers:
            assert block(d).list_outputs() == [name], type(block).__name__


def test_exported_graph_keeps_the_fwd_names(tmp_path):
    with NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 5)))
    net.export(str(tmp_path / "m"))
    sym = mx.sym.load(str(tmp_path / "m-symbol.json"))
    assert sym.list_outputs() == ["hybridsequential0_dense1_fwd_output"]
    assert sym.get_internals().list_outputs() == [
        "data", "hybridsequential0_dense0_weight", "hybridsequential0_dense0_bias",
        "hybridsequential0_dense0_fwd_output", "hybridsequential0_dense0_relu_fwd_output",
        "hybridsequential0_dense1_weight", "hybridsequential0_dense1_bias", "hybridsequential0_dense1_fwd_output"]
    # a feature extractor looks the inner output up by that name
    inner = sym.get_internals()["hybridsequential0_dense0_relu_fwd_output"]
    block = gluon.SymbolBlock(inner, mx.sym.var("data"), params=net.collect_params())
    np.testing.assert_allclose(block(mx.nd.ones((1, 5))).asnumpy(), net[0](mx.nd.ones((1, 5))).asnumpy(),
                               rtol=1e-6)
