"""MXNet 1.9.1's optimizer API details that its own unittest/test_optimizer.py,
test_gluon_trainer.py and test_kvstore.py rely on (issue 38): the learning_rate property,
scheduler rules, the generic multi-precision state layout, NAG's velocity state, the optimizers
SGLD, FTML, Adamax, Nadam, DCASGD and Test, LAMB's aggregated call and per-Parameter
multipliers. References are numpy formulas, not recorded numbers."""
import math

import numpy as np
import pytest

import symnet as mx


def _arrays(seed, shape=(3, 4), n=2):
    rng = np.random.RandomState(seed)
    return [rng.uniform(0.1, 1.0, shape).astype(np.float32) for _ in range(n)]


def test_learning_rate_property_and_scheduler_rules():
    o = mx.optimizer.Optimizer(learning_rate=0.01)
    o.set_learning_rate(0.2)
    assert o.learning_rate == 0.2
    sched = mx.lr_scheduler.FactorScheduler(step=1)
    o = mx.optimizer.Optimizer(lr_scheduler=sched, learning_rate=0.3)
    assert sched.base_lr == 0.3 and o.learning_rate == 0.3  # learning_rate wins over base_lr
    sched.base_lr = 0.4
    assert o.learning_rate == 0.4
    with pytest.raises(UserWarning):  # the scheduler owns the rate
        o.set_learning_rate(0.5)
    o = mx.optimizer.Optimizer(lr_scheduler=mx.lr_scheduler.FactorScheduler(step=1, base_lr=1024))
    assert o.learning_rate == 1024


def test_update_count_takes_index_lists_and_begin_num_update():
    o = mx.optimizer.Optimizer(begin_num_update=5)
    o._update_count([0, 1])
    o._update_count(1)
    assert o._index_update_count == {0: 6, 1: 7} and o.num_update == 7


def test_param_dict_multipliers_follow_the_parameter():
    p = mx.gluon.Parameter("w", shape=(2,), lr_mult=0.5, wd_mult=3.0)
    o = mx.optimizer.SGD(learning_rate=0.1, wd=0.01, param_dict={0: p})
    assert o._get_lr(0) == 0.1 * 0.5 and o._get_wd(0) == 0.01 * 3.0
    p.lr_mult = 2.0
    assert o._get_lr(0) == 0.1 * 2.0
    assert o._get_lr(1) == 0.1  # an index without a Parameter keeps the base rate


def test_generic_multi_precision_layout_and_step():
    """AdaDelta has no mp_ op: MXNet's wrapper keeps (float32 master, inner state) and steps the
    master with the float32 gradient; the float16 weight is the master rounded."""
    w, g = _arrays(1)
    opt = mx.optimizer.AdaDelta(multi_precision=True, rho=0.9, epsilon=1e-5)
    ref = mx.optimizer.AdaDelta(rho=0.9, epsilon=1e-5)
    w16 = mx.nd.array(w, dtype="float16")
    state = opt.create_state_multi_precision(0, w16)
    assert state[0].dtype == np.float32 and isinstance(state[1], tuple) and len(state[1]) == 2
    w32 = mx.nd.array(w.astype(np.float16).astype(np.float32), dtype="float32")
    ref_state = ref.create_state(0, w32)
    opt.update_multi_precision(0, w16, mx.nd.array(g, dtype="float16"), state)
    ref.update(0, w32, mx.nd.array(g.astype(np.float16).astype(np.float32), dtype="float32"), ref_state)
    np.testing.assert_allclose(state[0].asnumpy(), w32.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(w16.asnumpy(), w32.asnumpy().astype(np.float16))


def test_base_optimizer_wraps_a_float32_update_for_float16_weights():
    class Plain(mx.optimizer.Optimizer):
        def create_state(self, index, weight):
            return mx.nd.zeros(weight.shape, weight.context, dtype="float32")

        def update(self, index, weight, grad, state):
            state[:] = state + grad
            weight[:] = weight - 0.5 * state

    w, g = _arrays(2)
    opt = Plain(multi_precision=True)
    w16 = mx.nd.array(w, dtype="float16")
    state = opt.create_state_multi_precision(0, w16)
    opt.update_multi_precision(0, w16, mx.nd.array(g, dtype="float16"), state)
    want = w.astype(np.float16).astype(np.float32) - 0.5 * g.astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(state[0].asnumpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(w16.asnumpy(), want.astype(np.float16))


@pytest.mark.parametrize("mp", [False, True])
def test_nag_keeps_mxnet_velocity_state(mp):
    w, g = _arrays(3)
    lr, mom, wd, rescale, clip = 0.1, 0.9, 0.03, 0.8, 0.5
    opt = mx.optimizer.NAG(learning_rate=lr, momentum=mom, wd=wd, rescale_grad=rescale, clip_gradient=clip,
                           multi_precision=mp)
    dtype = "float16" if mp else "float32"
    weight = mx.nd.array(w, dtype=dtype)
    state = opt.create_state_multi_precision(0, weight)
    ref_w = w.astype(dtype).astype(np.float64)
    m = np.zeros_like(ref_w)
    for _ in range(2):
        opt.update_multi_precision(0, weight, mx.nd.array(g, dtype=dtype), state)
        gg = np.clip(rescale * g.astype(dtype).astype(np.float64), -clip, clip)
        ref_w = ref_w + mom ** 2 * m - lr * (mom + 1) * (gg + wd * ref_w)
        m = mom * m - lr * (gg + wd * ref_w)
    mom_arr = state[0] if mp else state
    np.testing.assert_allclose(mom_arr.asnumpy(), m, rtol=1e-4, atol=1e-5)
    if mp:
        np.testing.assert_allclose(state[1].asnumpy(), ref_w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(weight.asnumpy().astype(np.float64), ref_w, rtol=2e-3, atol=2e-3)


def test_adamax_nadam_ftml_dcasgd_match_their_formulas():
    w, g = _arrays(4)
    lr, wd, b1, b2 = 0.01, 0.02, 0.9, 0.999
    gg = g + wd * w
    # Adamax, one step from zero state
    weight = mx.nd.array(w)
    opt = mx.optimizer.create("adamax", learning_rate=lr, wd=wd, beta1=b1, beta2=b2)
    opt.update(0, weight, mx.nd.array(g), opt.create_state(0, weight))
    m, u = (1 - b1) * gg, np.abs(gg)
    np.testing.assert_allclose(weight.asnumpy(), w - lr / (1 - b1) * m / u, rtol=1e-5)
    # Nadam
    weight = mx.nd.array(w)
    opt = mx.optimizer.create("nadam", learning_rate=lr, wd=wd)
    opt.update(0, weight, mx.nd.array(g), opt.create_state(0, weight))
    mu1 = 0.9 * (1 - 0.5 * 0.96 ** 0.004)
    mu2 = 0.9 * (1 - 0.5 * 0.96 ** 0.008)
    m, v = 0.1 * gg, 0.001 * gg * gg
    m_bar = (1 - mu1) * gg / (1 - mu1) + mu2 * m / (1 - mu1 * mu2)
    want = w - lr * m_bar / (np.sqrt(v / 0.001) + 1e-8)
    np.testing.assert_allclose(weight.asnumpy(), want, rtol=1e-5)
    # FTML
    weight = mx.nd.array(w)
    opt = mx.optimizer.create("ftml", learning_rate=lr, wd=wd)
    state = opt.create_state(0, weight)
    opt.update(0, weight, mx.nd.array(g), state)
    v = 0.001 * gg * gg
    d = (1 - 0.6) / lr * (np.sqrt(v / 0.001) + 1e-8)
    z = 0.4 * gg - d * w
    np.testing.assert_allclose(weight.asnumpy(), -z / d, rtol=1e-5)
    np.testing.assert_allclose(state[0].asnumpy(), d, rtol=1e-5)
    # DCASGD: the first step has w == w_prev, so it is SGD
    weight = mx.nd.array(w)
    opt = mx.optimizer.create("dcasgd", learning_rate=lr, wd=wd, momentum=0.9)
    state = opt.create_state(0, weight)
    opt.update(0, weight, mx.nd.array(g), state)
    np.testing.assert_allclose(weight.asnumpy(), w - lr * gg, rtol=1e-5)
    np.testing.assert_allclose(state[1].asnumpy(), w)


def test_sgld_is_half_sgd_step_plus_noise_of_variance_lr():
    w, g = _arrays(5, shape=(200, 100))
    lr = 0.04
    weight = mx.nd.array(w)
    opt = mx.optimizer.create("sgld", learning_rate=lr)
    opt.update(0, weight, mx.nd.array(g), opt.create_state(0, weight))
    noise = weight.asnumpy() - (w - lr / 2 * g)
    assert abs(noise.mean()) < 0.01 and abs(noise.std() - math.sqrt(lr)) < 0.01


def test_test_optimizer_and_cc_sgd_are_registered():
    w, g = _arrays(6)
    weight = mx.nd.array(w)
    opt = mx.optimizer.create("test", rescale_grad=0.5)
    state = opt.create_state(0, weight)
    opt.update(0, weight, mx.nd.array(g), state)
    np.testing.assert_allclose(weight.asnumpy(), w + 0.5 * g, rtol=1e-6)
    np.testing.assert_allclose(state.asnumpy(), weight.asnumpy())
    assert isinstance(mx.optimizer.create("ccsgd"), mx.optimizer.SGD)


def test_lamb_float16_state_layout_and_aggregated_call():
    """LAMB keeps MXNet's (master, (mean, var)) for float16 weights, and an update with lists of
    indices (MXNet's aggregated form) equals one update per weight."""
    ws, gs = _arrays(7, n=2)
    opt = mx.optimizer.LAMB(multi_precision=True, learning_rate=0.01)
    w16 = mx.nd.array(ws[0], dtype="float16")
    state = opt.create_state_multi_precision(0, w16)
    assert state[0].dtype == np.float32 and [s.dtype for s in state[1]] == [np.float32, np.float32]
    opt.update_multi_precision(0, w16, mx.nd.array(gs[0], dtype="float16"), state)
    np.testing.assert_allclose(w16.asnumpy(), state[0].asnumpy().astype(np.float16))
    one, many = mx.optimizer.LAMB(learning_rate=0.01), mx.optimizer.LAMB(learning_rate=0.01)
    w1, w2 = [mx.nd.array(x) for x in ws], [mx.nd.array(x) for x in ws]
    s1, s2 = [one.create_state(i, w) for i, w in enumerate(w1)], [many.create_state(i, w) for i, w in enumerate(w2)]
    for i in range(2):
        one.update(i, w1[i], mx.nd.array(gs[i]), s1[i])
    many.update_multi_precision([0, 1], w2, [mx.nd.array(x) for x in gs], s2)
    for a, b in zip(w1, w2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert many._index_update_count == {0: 1, 1: 1}


def test_factor_scheduler_multiplies_step_by_step_as_mxnet():
    """MXNet decays base_lr by one multiplication per step passed: the float result differs from
    base_lr * factor**n in the last bits, and gluon tests compare with ==."""
    sched = mx.lr_scheduler.FactorScheduler(2, factor=0.1, base_lr=1, stop_factor_lr=1e-8)
    want = 1
    for k in range(20):
        assert sched(2 * k + 1) == want, k
        want = max(want * 0.1, 1e-8)
    assert 1 * 0.1 * 0.1 * 0.1 * 0.1 != 0.1 ** 4  # why this test exists
    sched.base_lr = 0.4  # a changed base_lr starts the products again
    assert sched(3) == 0.4 * 0.1


def _two_context_param(name="x"):
    x = mx.gluon.Parameter(name, shape=(4,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    return x


def _backward_ones(x):
    with mx.autograd.record():
        for w in x.list_data():
            (w + 1).backward()


def test_trainer_reads_lr_mult_from_the_parameter_at_each_step():
    x = _two_context_param()
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0})
    _backward_ones(x)
    trainer.step(1)
    x.lr_mult = 0.5  # set after the Trainer was made: MXNet's param_dict sees it
    _backward_ones(x)
    trainer.step(1)
    # each step: the summed gradient (2 contexts) times lr * lr_mult
    np.testing.assert_array_equal(x.data(mx.cpu(1)).asnumpy(), np.full(4, -2.0 - 2.0 * 0.5))
    assert trainer._optimizer.param_dict[0] is x


def test_trainer_kvstore_attributes_and_per_context_updaters():
    x = _two_context_param()
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5})
    assert trainer._kvstore is None and not trainer._kv_initialized
    _backward_ones(x)
    trainer.step(1)
    assert trainer._kvstore.type == "device" and trainer._update_on_kvstore is False
    ups = trainer._updaters
    assert len(ups) == 2 and ups[0].optimizer is trainer._optimizer
    assert list(ups[1].states) == [0] and ups[1].states[0] is trainer._states[(0, 1)]
    y = mx.gluon.Parameter("y", shape=(4,))
    y.initialize(ctx=mx.cpu(0), init="zeros")
    single = mx.gluon.Trainer([y], "sgd")
    _backward_ones(y)
    single.step(1)
    assert single._kvstore is None and single._update_on_kvstore is None  # one context: no store


def test_registered_kvstore_is_created_by_name_and_used_by_trainer():
    calls = []

    @mx.kv.KVStoreBase.register
    class CountingStore(mx.kv.TestStore):
        def pushpull(self, key, value, out=None, priority=0):
            calls.append(key)
            super().pushpull(key, value, out, priority)

    kv = mx.kv.create("countingstore")
    assert isinstance(kv, CountingStore) and not kv.is_capable(mx.kv.KVStoreBase.OPTIMIZER)
    x = _two_context_param()
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, kvstore=kv)
    _backward_ones(x)
    trainer.step(1)
    assert calls == [0] and trainer._kvstore is kv and trainer._update_on_kvstore is False
    np.testing.assert_array_equal(x.data(mx.cpu(1)).asnumpy(), np.full(4, -2.0))
    with pytest.raises(ValueError):  # this store cannot run the optimizer
        mx.gluon.Trainer([x], "sgd", kvstore=kv, update_on_kvstore=True)._init_kvstore()
    with pytest.raises(TypeError):
        mx.kv.create(3)


def test_kvstore_set_updater_gets_keys():
    kv = mx.kv.create("local")
    kv.init(["a", 3], [mx.nd.zeros((2,)), mx.nd.zeros((2,))])
    seen = []

    def updater(key, recv, stored):
        seen.append(key)
        stored += recv

    kv._set_updater(updater)
    kv.push("a", [mx.nd.ones((2,), ctx=mx.cpu(i)) for i in range(3)])
    kv.push(3, mx.nd.ones((2,)))
    kv.push("a", mx.nd.ones((2,)))
    out = mx.nd.zeros((2,))
    kv.pull("a", out=out)
    assert seen == ["a", 3, "a"]
    np.testing.assert_array_equal(out.asnumpy(), [4.0, 4.0])


def test_module_optimizer_takes_lr_and_wd_mult_from_variable_attributes():
    data = mx.sym.Variable("data")
    w = mx.sym.Variable("fc1_weight", lr_mult=0.0)
    b = mx.sym.Variable("fc1_bias", wd_mult=0.5)
    net = mx.sym.FullyConnected(data=data, weight=w, bias=b, name="fc1", num_hidden=3)
    mod = mx.mod.Module(net, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (2, 4))])
    mod.init_params(initializer=mx.init.Uniform(1.0))
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0, "wd": 0.1})
    assert mod._optimizer.lr_mult == {"fc1_weight": 0.0}
    assert mod._optimizer.wd_mult == {"fc1_bias": 0.5}
    before = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2, 4))], label=None), is_train=True)
    mod.backward([mx.nd.ones((2, 3))])
    mod.update()
    after = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    np.testing.assert_array_equal(after["fc1_weight"], before["fc1_weight"])  # lr_mult 0: frozen
    assert not np.allclose(after["fc1_bias"], before["fc1_bias"])


def test_adam_float16_state_is_master_then_moments():
    w, g = _arrays(8)
    opt = mx.optimizer.Adam(multi_precision=True, learning_rate=0.01)
    ref = mx.optimizer.Adam(learning_rate=0.01)
    w16 = mx.nd.array(w, dtype="float16")
    state = opt.create_state_multi_precision(0, w16)
    assert state[0].dtype == np.float32 and [s.dtype for s in state[1]] == [np.float32, np.float32]
    w32 = mx.nd.array(w.astype(np.float16).astype(np.float32), dtype="float32")
    ref_state = ref.create_state(0, w32)
    opt.update_multi_precision(0, w16, mx.nd.array(g, dtype="float16"), state)
    ref.update(0, w32, mx.nd.array(g.astype(np.float16).astype(np.float32), dtype="float32"), ref_state)
    np.testing.assert_allclose(state[0].asnumpy(), w32.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(state[1][0].asnumpy(), ref_state[0].asnumpy(), rtol=1e-6)


def test_operator_lr_mult_and_wd_mult_become_attributes_of_its_created_variables():
    data = mx.sym.Variable("data")
    bias = mx.sym.Variable("fc1_bias", lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(data=data, bias=bias, name="fc1", num_hidden=4, lr_mult=0)
    attrs = fc1.attr_dict()
    assert attrs["fc1_weight"]["__lr_mult__"] == "0" and attrs["fc1"]["__lr_mult__"] == "0"
    assert attrs["fc1_bias"]["__lr_mult__"] == "1.0"  # a given variable keeps its own
    assert "__lr_mult__" not in attrs.get("data", {})
    opt = mx.optimizer.create("sgd", sym=fc1, param_idx2name={0: "fc1_weight", 1: "fc1_bias"})
    assert opt.lr_mult == {"fc1_weight": 0.0, "fc1_bias": 1.0}
    ex = fc1.simple_bind(mx.cpu(), data=(2, 3))  # the operator takes no lr_mult parameter
    assert ex.forward()[0].shape == (2, 4)


def test_parameter_without_init_takes_the_default_initializer_whatever_its_name():
    """MXNet's ParameterDict.initialize(init=...) hands its initializer to every parameter that
    has none as the parameter's own, so 'x' (no weight/bias suffix) is initialized, and a
    Trainer then steps from the loaded values."""
    params = mx.gluon.ParameterDict()
    x = params.get("x", shape=(4,))
    params.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    np.testing.assert_array_equal(x.data(mx.cpu(1)).asnumpy(), np.zeros(4))
    y = params.get("y_moving_mean", shape=(3,))  # not zeros by name: the default applies
    y.initialize(default_init=mx.init.One())
    np.testing.assert_array_equal(y.data().asnumpy(), np.ones(3))
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
    _backward_ones(x)
    trainer.step(1)
    np.testing.assert_allclose(x.data(mx.cpu(0)).asnumpy(), np.full(4, -0.2), rtol=1e-6)


def test_updater_uses_multi_precision_methods_and_takes_lists():
    w, g = _arrays(9)
    up = mx.optimizer.get_updater(mx.optimizer.AdaGrad(multi_precision=True, learning_rate=0.1))
    w16 = mx.nd.array(w, dtype="float16")
    up([0, 1], [mx.nd.array(g, dtype="float16"), mx.nd.array(g)], [w16, mx.nd.array(w)])
    assert up.states[0][0].dtype == np.float32  # (master, history) for the float16 weight
    assert up.states[1].dtype == np.float32 and up.states[1].shape == w.shape
    np.testing.assert_array_equal(w16.asnumpy(), up.states[0][0].asnumpy().astype(np.float16))
    moved = up.sync_state_context(up.states[0], mx.cpu(1))
    assert isinstance(moved, tuple) and moved[0].context == mx.cpu(1)


def test_group_adagrad_keeps_one_history_per_row():
    w, g = _arrays(10, shape=(3, 4))
    lr, eps = 0.1, 1e-5
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=lr, eps=eps)
    assert isinstance(mx.optimizer.create("groupadagrad"), mx.optimizer.contrib.GroupAdaGrad)
    weight = mx.nd.array(w)
    state = opt.create_state(0, weight)
    assert state.shape == (3, 1)
    opt.update(0, weight, mx.nd.array(g), state)
    hist = np.mean(g * g, axis=1, keepdims=True)
    np.testing.assert_allclose(state.asnumpy(), hist, rtol=1e-6)
    np.testing.assert_allclose(weight.asnumpy(), w - lr * g / np.sqrt(hist + eps), rtol=1e-5)
