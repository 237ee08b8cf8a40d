"""SGD update ops and the SGD optimizer against the formulas written out in numpy."""
import numpy as np
import pytest

import symnet as mx


def test_sgd_update_formula():
    w, g = np.random.randn(10), np.random.randn(10) * 5
    lr, wd, rescale, clip = 0.1, 0.01, 0.5, 1.0
    weight = mx.nd.array(w)
    mx.nd.sgd_update(weight, mx.nd.array(g), out=weight, lr=lr, wd=wd, rescale_grad=rescale,
                     clip_gradient=clip)
    expected = (1 - lr * wd) * w - lr * np.clip(rescale * g, -clip, clip)
    np.testing.assert_allclose(weight.asnumpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("clip", [None, 0.3])
def test_sgd_mom_update_formula(clip):
    w, g, m = np.random.randn(10), np.random.randn(10), np.random.randn(10)
    lr, mom, wd, rescale = 0.05, 0.9, 1e-3, 0.25
    weight, grad, state = mx.nd.array(w), mx.nd.array(g), mx.nd.array(m)
    kwargs = dict(lr=lr, momentum=mom, wd=wd, rescale_grad=rescale)
    if clip is not None:
        kwargs["clip_gradient"] = clip
    mx.nd.sgd_mom_update(weight, grad, state, out=weight, **kwargs)
    gg = rescale * g if clip is None else np.clip(rescale * g, -clip, clip)
    m_new = mom * m - lr * wd * w - lr * gg
    np.testing.assert_allclose(state.asnumpy(), m_new, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weight.asnumpy(), w + m_new, rtol=1e-5, atol=1e-6)


def test_sgd_optimizer_momentum_two_steps():
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.0, rescale_grad=1.0)
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.array([1.0, 2.0])
    g = mx.nd.array([0.5, -1.0])
    updater(0, g, w)
    updater(0, g, w)
    # m1 = -0.1 g; m2 = 0.9 m1 - 0.1 g = -0.19 g; w = w0 - 0.29 g
    np.testing.assert_allclose(w.asnumpy(), [1.0 - 0.145, 2.0 + 0.29], rtol=1e-6)
    assert opt.num_update == 2


def test_unknown_optimizer():
    with pytest.raises(ValueError, match="unknown optimizer"):
        mx.optimizer.create("adamw2")


def test_weight_decay_applies_to_weights_and_gammas_only_as_mxnet():
    opt = mx.optimizer.create("sgd", learning_rate=0.1, wd=0.5,
                              param_idx2name={0: "fc_weight", 1: "fc_bias", 2: "bn_gamma", 3: "bn_beta"})
    assert [opt._get_wd(i) for i in range(4)] == [0.5, 0.0, 0.5, 0.0]
    w = mx.nd.array(np.ones(3, np.float32))
    opt.update(1, w, mx.nd.array(np.zeros(3, np.float32)), opt.create_state(1, w))
    np.testing.assert_array_equal(w.asnumpy(), np.ones(3))  # a zero gradient leaves the bias alone


@pytest.mark.parametrize("mp", [False, True])
def test_nag_mom_update_formula_and_nag_optimizer(mp):
    rng = np.random.RandomState(3)
    w, g, m = rng.randn(10), rng.randn(10), rng.randn(10)
    lr, mom, wd, rescale, clip = 0.05, 0.9, 1e-2, 0.5, 0.4
    gg = np.clip(rescale * g, -clip, clip) + wd * w
    m_new = mom * m + gg
    w_new = w - lr * (gg + mom * m_new)
    kw = dict(lr=lr, momentum=mom, wd=wd, rescale_grad=rescale, clip_gradient=clip)
    if mp:
        weight, w32 = mx.nd.array(w, dtype="float16"), mx.nd.array(w.astype(np.float16), dtype="float32")
        state = mx.nd.array(m, dtype="float32")
        mx.nd.mp_nag_mom_update(weight, mx.nd.array(g, dtype="float16"), state, w32, out=weight, **kw)
        ref_w = w.astype(np.float16).astype(np.float64)
        gg = np.clip(rescale * g.astype(np.float16).astype(np.float64), -clip, clip) + wd * ref_w
        m_new = mom * m + gg
        w_new = ref_w - lr * (gg + mom * m_new)
        np.testing.assert_allclose(w32.asnumpy(), w_new, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(weight.asnumpy().astype(np.float64), w_new, rtol=2e-3, atol=2e-3)
    else:
        weight, state = mx.nd.array(w), mx.nd.array(m)
        mx.nd.nag_mom_update(weight, mx.nd.array(g), state, out=weight, **kw)
        np.testing.assert_allclose(weight.asnumpy(), w_new, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.asnumpy(), m_new, rtol=1e-4, atol=1e-5)
    # the optimizer (name 'nag', or sgd with nesterov=True) applies the same op
    for opt in (mx.optimizer.create("nag", learning_rate=lr, momentum=mom),
                mx.optimizer.create("sgd", learning_rate=lr, momentum=mom, nesterov=True)):
        x = mx.nd.array(w)
        st = opt.create_state(0, x)
        opt.update_multi([0], [x], [mx.nd.array(g)], [st])
        np.testing.assert_allclose(x.asnumpy(), w - lr * (g + mom * g), rtol=1e-5, atol=1e-6)
