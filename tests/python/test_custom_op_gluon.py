"""Custom operators (mx.operator) as MXNet scripts use them from Gluon: several inputs and
outputs, auxiliary states, loss-like ops (need_top_grad=False), declare_backward_dependency,
infer_type, string parameters, hybridized against imperative, export/SymbolBlock.imports, under
amp.init(), the errors, and MXNet 1.9.1's outputs and gradients for the same definitions
(tests/mxnet_parity/custom_ops.py, written once for both frameworks)."""
import os
import sys

import numpy as np
import pytest

import symnet as mx
from symnet import autograd, gluon
from parity_checks import ref_file

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mxnet_parity"))
import custom_ops  # noqa: E402  (the shared definitions, registered with symnet here)

OPS = custom_ops.define(mx)


def _run(net, inputs, hybridize):
    return custom_ops.run(mx, net, inputs, hybridize)


@pytest.mark.parametrize("case", sorted(custom_ops.CASES))
def test_hybridized_equals_imperative(case):
    make, inputs = custom_ops.CASES[case](np.random.RandomState(1))
    runs = []
    for hybridize in (False, True):
        net = make(mx, OPS)
        custom_ops.set_params(mx, net, np.random.RandomState(2))
        runs.append(_run(net, inputs, hybridize))
    (o0, g0), (o1, g1) = runs
    for a, b in zip(o0, o1):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert sorted(g0) == sorted(g1)
    for k in g0:
        np.testing.assert_allclose(g0[k], g1[k], rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("case", sorted(custom_ops.CASES))
def test_against_mxnet(case):
    """MXNet 1.9.1 ran the same definitions on the same inputs and parameters (hybridized and
    not: its two results agree, the references keep the hybridized one)."""
    ref = np.load(ref_file(os.path.join("custom_ops", case + ".npz")))
    make, inputs = custom_ops.CASES[case](np.random.RandomState(1))
    for hybridize in (False, True):
        net = make(mx, OPS)
        custom_ops.set_params(mx, net, np.random.RandomState(2))
        outs, grads = _run(net, inputs, hybridize)
        for i, o in enumerate(outs):
            np.testing.assert_allclose(o, ref["out%d" % i], rtol=1e-5, atol=1e-6)
        for k, g in grads.items():
            np.testing.assert_allclose(g, ref["grad_" + k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_auxiliary_state_updates_in_training_both_ways():
    for hybridize in (False, True):
        net = OPS["RunningMeanNet"]()
        net.initialize()
        if hybridize:
            net.hybridize()
        x = mx.nd.array(np.arange(12, dtype=np.float32).reshape(4, 3))
        x.attach_grad()
        net(x)  # inference: no update
        np.testing.assert_array_equal(net.moving_mean.data().asnumpy(), 0)
        with autograd.record():
            y = net(x)
        y.backward()
        np.testing.assert_allclose(net.moving_mean.data().asnumpy(), x.asnumpy().mean(axis=0) * 0.5)
        np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
        np.testing.assert_array_equal(x.grad.asnumpy(), 2.0)


def test_infer_type_sets_the_output_dtype():
    x = mx.nd.array([[1.5, -2.0]])
    y, idx = mx.nd.Custom(x, op_type="pm_argmax")
    assert y.dtype == np.float32 and idx.dtype == np.int32
    np.testing.assert_array_equal(idx.asnumpy(), [0])
    s = mx.sym.Custom(data=mx.sym.var("x"), op_type="pm_argmax")
    _, out_types, _ = s.infer_type(x="float32")
    assert [np.dtype(t) for t in out_types] == [np.float32, np.int32]


def test_string_parameters_reach_the_prop():
    # every parameter arrives as a string, as MXNet passes them (scale=3 -> "3")
    net = OPS["ScaleAddNet"](scale=3)
    a, b = mx.nd.ones((1, 2)), mx.nd.ones((1, 2))
    np.testing.assert_allclose(net(a, b)[0].asnumpy(), 4.0)
    assert OPS["seen_kwargs"][-1] == {"scale": "3"}


def test_export_and_symbolblock_imports(tmp_path):
    make, inputs = custom_ops.CASES["dense_scale_add"](np.random.RandomState(1))
    net = make(mx, OPS)
    custom_ops.set_params(mx, net, np.random.RandomState(2))
    net.hybridize()
    xs = [mx.nd.array(a) for a in inputs]
    want = [o.asnumpy() for o in net(*xs)]
    prefix = str(tmp_path / "custom")
    net.export(prefix)
    back = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data0", "data1"], prefix + "-0000.params")
    got = back(*xs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-6)
    back.hybridize()
    for a, b in zip(back(*xs), want):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-6)


def test_custom_gets_float32_under_amp():
    """Custom is a float32 op in both AMP lists (as MXNet's): Python code written for float32
    sees float32 whatever the 16-bit layers around it run in."""
    from symnet import amp
    amp.init(target_dtype="bfloat16")
    try:
        for hybridize in (False, True):
            OPS["seen_dtypes"].clear()
            net = OPS["DenseRecordNet"]()
            net.initialize(mx.init.Xavier())
            if hybridize:
                net.hybridize()
            x = mx.nd.ones((2, 4))
            with autograd.record():
                y = net(x)
            y.backward()
            assert OPS["seen_dtypes"] and set(OPS["seen_dtypes"]) == {"float32"}, OPS["seen_dtypes"]
            assert y.dtype == np.float32
    finally:
        amp.shutdown()


def test_loss_head_trains_with_a_gluon_trainer():
    net = OPS["SoftmaxLossNet"]()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    rng = np.random.RandomState(0)
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.5]], dtype=np.float32)
    y = rng.randint(0, 3, 60)
    x = mx.nd.array(centers[y] + rng.randn(60, 2).astype(np.float32) * 0.5)
    label = mx.nd.array(y.astype(np.float32))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    for _ in range(30):
        with autograd.record():
            prob = net(x, label)
        prob.backward()
        trainer.step(60)
    acc = (net(x, label).asnumpy().argmax(axis=1) == y).mean()
    assert acc > 0.9, acc


def test_errors_name_the_problem():
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.Custom(x, op_type="pm_not_registered")
    for hybridize in (False, True):
        net = Net()
        if hybridize:
            net.hybridize()
        with pytest.raises((mx.MXNetError, ValueError), match="pm_not_registered.*not registered"):
            net(mx.nd.ones((2,)))
    with pytest.raises((mx.MXNetError, ValueError),
                       match="pm_bad_counts.infer_shape returned 2 output entries; expected 1"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="pm_bad_counts")
