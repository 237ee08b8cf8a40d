"""AMP for imperative calls and non-hybridized Gluon blocks (MXNet's amp.init() semantics).

Under amp.init(target) every imperative op call casts its float inputs as the graph rewrite
would: target-precision ops (Convolution, FullyConnected) to the target dtype, float32 ops
(softmax, losses, norms) to float32, widest-type ops to the widest input dtype, neutral ops only
when their type rule refuses a mix. Integer and index inputs are never cast. The casts are
amp_cast calls that autograd records, so gradients come back in the inputs' own dtypes.

Tolerances: where both sides run the same kernel on the same 16-bit inputs the results should
agree bit for bit; the checks allow one unit in the last place of the 16-bit format
(bfloat16: 2**-7 relative, float16: 2**-10). Comparisons between a hybridized graph and the
imperative calls, or through training steps, allow a few such units.
"""
import contextlib
import json
import warnings

import numpy as np
import pytest

import symnet as mx
from symnet import _core, amp, autograd, gluon, nd
from symnet.gluon import nn

TARGETS = ["bfloat16", "float16"]
EPS = {"bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}


@pytest.fixture(autouse=True)
def _amp_off():
    amp.shutdown()
    yield
    amp.shutdown()


def _init(target, **kw):
    with warnings.catch_warnings():  # "slower than float32 on this machine" is not the point here
        warnings.simplefilter("ignore", RuntimeWarning)
        return amp.init(target, **kw)


def _dtype_name(a):
    return "bfloat16" if a.dtype not in (np.float16, np.float32, np.float64) and \
        a.dtype.names == ("bfloat16",) else np.dtype(a.dtype).name


def f32(a):
    """An NDArray of any float dtype as a float32 numpy array."""
    return a.astype("float32").asnumpy()


def rand(*shape, seed=0, scale=1.0):
    return nd.array(np.random.RandomState(seed).normal(0, scale, shape).astype(np.float32))


@contextlib.contextmanager
def op_counts():
    """{op name: imperative calls} made inside the block (the profiler's per-op totals)."""
    counts = {}
    mx.profiler.set_config(profile_imperative=True, profile_symbolic=False, profile_api=False,
                           profile_memory=False, aggregate_stats=True)
    mx.profiler.dumps(reset=True)
    mx.profiler.set_state("run")
    try:
        yield counts
    finally:
        mx.profiler.set_state("stop")
        stats = json.loads(mx.profiler.dumps(reset=True, format="json"))
        for per_dev in stats.get("Time", {}).values():
            for op, s in per_dev.items():
                counts[op] = counts.get(op, 0) + s["Count"]


# ---- the rule, op by op -----------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_fully_connected_and_convolution_run_in_the_target_like_a_hand_cast(target):
    x, w, b = rand(4, 12), rand(5, 12, seed=1), rand(5, seed=2)
    cx, cw, cb = rand(2, 3, 8, 8, seed=3), rand(4, 3, 3, 3, seed=4), rand(4, seed=5)
    conv = dict(kernel=(3, 3), num_filter=4, pad=(1, 1))
    ref_fc = nd.FullyConnected(x.astype(target), w.astype(target), b.astype(target), num_hidden=5)
    ref_conv = nd.Convolution(cx.astype(target), cw.astype(target), cb.astype(target), **conv)
    assert _init(target) == target
    fc = nd.FullyConnected(x, w, b, num_hidden=5)
    out = nd.Convolution(cx, cw, cb, **conv)
    assert _dtype_name(fc) == _dtype_name(out) == target
    for got, ref in ((fc, ref_fc), (out, ref_conv)):
        np.testing.assert_allclose(f32(got), f32(ref), rtol=EPS[target], atol=EPS[target])
    # the inputs themselves are untouched
    assert x.dtype == w.dtype == np.float32


@pytest.mark.parametrize("target", TARGETS)
def test_float32_ops_return_float32_from_16_bit_inputs(target):
    x16 = rand(3, 10).astype(target)
    _init(target)
    label = nd.array([1, 4, 9])
    for y in (nd.softmax(x16), nd.log_softmax(x16), nd.SoftmaxOutput(x16, label), nd.norm(x16),
              nd.sum(x16), nd.LayerNorm(x16, nd.ones((10,)), nd.zeros((10,)))):
        assert y.dtype == np.float32
    np.testing.assert_allclose(nd.softmax(x16).asnumpy(), nd.softmax(x16.astype("float32")).asnumpy(),
                               rtol=1e-6)
    # the conditional rule: softrelu runs in float32, relu in what it gets
    assert nd.Activation(x16, act_type="softrelu").dtype == np.float32
    assert _dtype_name(nd.Activation(x16, act_type="relu")) == target


@pytest.mark.parametrize("target", TARGETS)
def test_widest_type_ops_cast_to_the_widest_input(target):
    a, b = rand(2, 3).astype(target), rand(2, 3, seed=1)
    _init(target)
    for y in (nd.elemwise_add(a, b), a + b, b * a, nd.add_n(a, b, a), nd.broadcast_sub(a, b)):
        assert y.dtype == np.float32
    np.testing.assert_array_equal((a + b).asnumpy(), f32(a) + b.asnumpy())
    # two 16-bit inputs stay 16-bit
    assert _dtype_name(a + a) == target
    # a neutral op whose type rule refuses the mix also takes the widest dtype (as the graph pass)
    assert nd.Concat(a, b, dim=0).dtype == np.float32


def test_with_amp_off_nothing_changes():
    x, w, b = rand(4, 12), rand(5, 12, seed=1), rand(5, seed=2)
    a16 = rand(2, 3).astype("float16")
    _init("bfloat16")
    amp.shutdown()
    assert _core.amp_imperative_target() == ""
    with op_counts() as counts:
        assert nd.FullyConnected(x, w, b, num_hidden=5).dtype == np.float32
        assert nd.softmax(a16).dtype == np.float16
    assert "amp_cast" not in counts
    with pytest.raises(mx.base.MXNetError):
        nd.elemwise_add(a16, rand(2, 3)).wait_to_read()


def test_auto_that_leaves_amp_off_leaves_imperative_calls_alone(monkeypatch):
    _init("bfloat16")
    monkeypatch.setattr(amp, "auto_dtype", lambda ctx=None: ("float32", "float32: test"))
    assert amp.init("auto") is None
    assert _core.amp_imperative_target() == ""
    assert nd.FullyConnected(rand(2, 3), rand(4, 3), rand(4), num_hidden=4).dtype == np.float32


def test_overrides_take_precedence():
    x, w, b = rand(4, 12), rand(5, 12, seed=1), rand(5, seed=2)
    _init("float16", fp32_ops=["FullyConnected"], target_precision_ops=["softmax"],
          conditional_fp32_ops=[("Activation", "act_type", ["relu"])])
    assert _core.amp_imperative_target() == "float16"
    assert nd.FullyConnected(x, w, b, num_hidden=5).dtype == np.float32
    assert nd.softmax(x).dtype == np.float16
    assert nd.Activation(x.astype("float16"), act_type="relu").dtype == np.float32


@pytest.mark.parametrize("target", TARGETS)
def test_integer_and_index_inputs_are_never_cast(target):
    # 3001 is exact in neither float16 (spacing 2 above 2048) nor bfloat16 (exact only to 256)
    idx = nd.array([3001, 7])
    weight = rand(4000, 6)
    _init(target)
    with op_counts() as counts:
        emb = nd.Embedding(idx, weight, input_dim=4000, output_dim=6)
        emb_int = nd.Embedding(idx.astype("int32"), weight, input_dim=4000, output_dim=6)
        taken = nd.take(weight, idx)
        picked = nd.pick(rand(2, 4000), idx)
    assert "amp_cast" not in counts, counts
    for y in (emb, emb_int, taken):
        np.testing.assert_array_equal(y.asnumpy(), weight.asnumpy()[[3001, 7]])
    assert picked.shape == (2,)
    # SoftmaxOutput: its 16-bit data is cast to float32, its (float32) label is not cast
    data = rand(2, 4000).astype(target)
    data.attach_grad()
    with op_counts() as counts:
        with autograd.record():
            out = nd.SoftmaxOutput(data, idx)
        out.backward()
    assert counts.get("amp_cast") == 1, counts
    assert out.dtype == np.float32
    p = nd.softmax(data.astype("float32")).asnumpy()
    p[np.arange(2), [3001, 7]] -= 1
    np.testing.assert_allclose(f32(data.grad), p, rtol=EPS[target], atol=EPS[target])
    assert _dtype_name(data.grad) == target
    # where(): an integer condition stays as it is, x and y meet at the widest dtype
    cond = nd.array([[1, 0, 1]]).astype("int32")
    y = nd.where(cond, rand(1, 3).astype(target), rand(1, 3, seed=1))
    assert y.dtype == np.float32


# ---- autograd ---------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_gradients_come_back_in_the_parameters_own_dtype(target):
    x, w, b = rand(4, 12), rand(5, 12, seed=1), rand(5, seed=2)
    cw, cb = rand(4, 5, 1, 1, seed=3), rand(4, seed=4)

    def run(cast):
        params = [a.copy() for a in (w, b, cw, cb)]
        for p in params:
            p.attach_grad()
        pw, pb, pcw, pcb = params
        c = (lambda a: a.astype(target)) if cast else (lambda a: a)
        with autograd.record():
            h = nd.FullyConnected(c(x), c(pw), c(pb), num_hidden=5)
            h = nd.Activation(h, act_type="relu").reshape((4, 5, 1, 1))
            h = nd.Convolution(c(h), c(pcw), c(pcb), kernel=(1, 1), num_filter=4)
            loss = nd.sum(nd.square(h.astype("float32") if cast else h))
        loss.backward()
        return loss, [p.grad for p in params]

    ref_loss, ref = run(cast=True)  # AMP off: casts by hand
    _init(target)
    loss, got = run(cast=False)
    assert loss.dtype == np.float32
    np.testing.assert_allclose(loss.asnumpy(), ref_loss.asnumpy(), rtol=4 * EPS[target])
    for g, r in zip(got, ref):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=4 * EPS[target],
                                   atol=4 * EPS[target] * np.abs(r.asnumpy()).max())
    # a 16-bit input's gradient is 16-bit
    x16 = x.astype("float16")
    x16.attach_grad()
    with autograd.record():
        y = nd.sum(nd.FullyConnected(x16, w, b, num_hidden=5))
    y.backward()
    assert x16.grad.dtype == np.float16


# ---- Gluon: non-hybridized blocks -------------------------------------------------------------
def _mlp():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(32, activation="relu"), nn.Dense(16, activation="relu"), nn.Dense(4))
    return net


def _convnet():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Conv2D(8, 3, padding=1), nn.Activation("relu"), nn.Flatten(),
                nn.Dense(4))
    return net


def _data(kind, n=32):
    rng = np.random.RandomState(7)
    x = rng.normal(size=(n, 10) if kind == "mlp" else (n, 1, 8, 8)).astype(np.float32)
    teacher = rng.normal(size=(x[0].size, 4))
    y = (x.reshape(n, -1) @ teacher).argmax(1).astype(np.float32)
    return nd.array(x), nd.array(y)


def _net(kind, seed=0):
    mx.random.seed(seed)
    np.random.seed(seed)
    net = _mlp() if kind == "mlp" else _convnet()
    net.initialize(mx.init.Xavier())
    return net


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_non_hybridized_training_with_amp_lowers_the_loss(kind, target):
    x, y = _data(kind)
    net = _net(kind)
    _init(target)
    out = net(x)
    assert _dtype_name(out) == target  # the last Dense ran in the target dtype
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    amp.init_trainer(trainer)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses, stepped = [], []
    for _ in range(25):
        with autograd.record():
            loss = loss_fn(net(x), y)
            assert loss.dtype == np.float32
            with amp.scale_loss(loss, trainer) as scaled:
                autograd.backward(scaled)
        stepped.append(trainer.step(x.shape[0]))
        losses.append(float(loss.mean().asscalar()))
    for p in net.collect_params().values():
        assert p.data().dtype == np.float32
        assert p.grad_req == "null" or p.grad().dtype == np.float32
    # float16 gradients overflow at the initial scale (2**16) until it has come down a little
    assert stepped.count(False) <= 5 and stepped[-10:] == [True] * 10, stepped
    assert losses[-1] < 0.7 * losses[0], losses


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_hybridized_and_imperative_agree_under_amp(kind, target):
    x, _ = _data(kind, n=8)
    net = _net(kind)
    net(x)  # shapes known
    _init(target)
    imperative = f32(net(x))
    net.hybridize()
    hybrid = net(x)
    assert hybrid.dtype == np.float32  # a converted graph's float outputs come back as float32
    ref = net(x).asnumpy()
    amp.shutdown()
    net.hybridize(False)
    full = net(x).asnumpy()
    scale = np.abs(full).max()
    np.testing.assert_allclose(imperative, hybrid.asnumpy(), rtol=0, atol=8 * EPS[target] * scale)
    np.testing.assert_array_equal(hybrid.asnumpy(), ref)
    # and both differ from float32 by 16-bit rounding only
    np.testing.assert_allclose(imperative, full, rtol=0, atol=4 * EPS[target] * scale)


@pytest.mark.parametrize("inject", ["huge_loss", "inf_grad"])
def test_overflow_skips_the_non_hybridized_step_bit_identically(inject):
    x, y = _data("mlp", n=8)
    net = _net("mlp")
    _init("bfloat16")
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    amp.init_trainer(trainer, amp.LossScaler(init_scale=128.0))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def backward(factor=1.0):
        with autograd.record():
            loss = loss_fn(net(x), y) * factor
            with amp.scale_loss(loss, trainer) as scaled:
                autograd.backward(scaled)

    backward()
    assert trainer.step(8)
    before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    states = {k: [a.asnumpy().copy() for a in (s if isinstance(s, tuple) else [s]) if a is not None]
              for k, s in trainer._states.items()}
    scale = trainer.loss_scale
    if inject == "huge_loss":
        backward(factor=1e38)  # times the loss scale: inf in float32
    else:
        backward()
        g = net[1].weight.grad()
        g[:] = np.where(np.arange(g.size).reshape(g.shape) == 3, np.inf, g.asnumpy())
    assert trainer.step(8) is False
    for k, p in net.collect_params().items():
        np.testing.assert_array_equal(p.data().asnumpy(), before[k])
    for k, s in trainer._states.items():
        for a, b in zip([a for a in (s if isinstance(s, tuple) else [s]) if a is not None], states[k]):
            np.testing.assert_array_equal(a.asnumpy(), b)
    assert trainer.loss_scale == scale / 2
    assert trainer.num_skipped == 1
    backward()
    assert trainer.step(8)
