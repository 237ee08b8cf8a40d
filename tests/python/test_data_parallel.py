"""Data-parallel Module over several devices in one process: CPU "devices" cpu(0), cpu(1), ...
exercise the same code path GPUs take (slicing, all-reduce, per-device updates); on GPUs the
all-reduce is NCCL's (tests/python/gpu)."""
import numpy as np
import pytest

import symnet as mx
from symnet import _core


def mlp(bn=False):
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=16, name="fc1")
    if bn:
        net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn1")
    net = mx.sym.Activation(net, act_type="relu")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=3, name="fc2"), name="softmax")


def data(n=48, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 10).astype(np.float32)
    return x, (x[:, 0] + x[:, 1] > 0).astype(np.float32) + (x[:, 2] > 1)


def train(contexts, optimizer="sgd", params=None, epochs=2, bn=False, batch=12):
    x, y = data()
    mod = mx.mod.Module(mlp(bn), context=contexts)
    mod.bind([("data", (batch, 10))], [("softmax_label", (batch,))])
    mod.init_params(mx.init.Xavier(), seed=0)
    mod.init_optimizer(optimizer=optimizer, optimizer_params=params or {"learning_rate": 0.1, "momentum": 0.9,
                                                                         "wd": 1e-3})
    for _ in range(epochs):
        for b in mx.io.NDArrayIter(x, y, batch_size=batch):
            mod.forward_backward(b)
            mod.update()
    return mod


@pytest.mark.parametrize("optimizer,params", [("sgd", None), ("adam", {"learning_rate": 0.01})])
def test_two_devices_train_like_one(optimizer, params):
    one = train([mx.cpu(0)], optimizer, params)
    two = train([mx.cpu(0), mx.cpu(1)], optimizer, params)
    three = train([mx.cpu(0), mx.cpu(1), mx.cpu(2)], optimizer, params)
    a, _ = one.get_params()
    for other in (two, three):
        b, _ = other.get_params()
        for k in a:
            np.testing.assert_allclose(b[k].asnumpy(), a[k].asnumpy(), rtol=1e-4, atol=1e-5, err_msg=k)
    # every device holds the same weights
    for k in a:
        np.testing.assert_array_equal(three._execs[2].arg_dict[k].asnumpy(), three._execs[0].arg_dict[k].asnumpy())
    assert two.optimizer.num_update == one.optimizer.num_update


def test_outputs_merge_and_scoring_sees_the_whole_batch():
    mod = train([mx.cpu(0), mx.cpu(1)])
    x, y = data()
    assert mod.output_shapes == [("softmax_output", (12, 3))]
    single = train([mx.cpu(0)])
    acc2 = dict(mod.score(mx.io.NDArrayIter(x, y, batch_size=12), "acc"))["accuracy"]
    acc1 = dict(single.score(mx.io.NDArrayIter(x, y, batch_size=12), "acc"))["accuracy"]
    assert acc2 == pytest.approx(acc1, abs=1e-9)
    out = mod.predict(mx.io.NDArrayIter(x, y, batch_size=12))
    assert out.shape == (48, 3)


def test_batchnorm_statistics_are_averaged_over_devices():
    mod = train([mx.cpu(0), mx.cpu(1)], bn=True, epochs=1)
    _, aux = mod.get_params()
    per_dev = [e.aux_dict["bn1_moving_mean"].asnumpy() for e in mod._execs]
    assert not np.allclose(per_dev[0], per_dev[1])  # each device normalises its own slice
    np.testing.assert_allclose(aux["bn1_moving_mean"].asnumpy(), np.mean(per_dev, axis=0), rtol=1e-6)


def _amp_module(make):
    """A Module made by make() and bound for bfloat16 AMP on cpu(0) and cpu(1)."""
    mx.amp.init("bfloat16")
    try:
        mod = make()
        mod.bind([("data", (12, 10))], [("softmax_label", (12,))])
    finally:
        mx.amp.shutdown()
    return mod


def _flat_states(mod):
    return {i: [a.asnumpy() for a in (st if isinstance(st, tuple) else (st,)) if a is not None]
            for i, st in mod._states.items()}


def test_amp_with_loss_scaling_on_two_devices(tmp_path):
    x, y = data()
    batch = lambda: next(iter(mx.io.NDArrayIter(x, y, batch_size=12)))
    devices = [mx.cpu(0), mx.cpu(1)]
    mod = _amp_module(lambda: mx.mod.Module(mlp(), context=devices))
    mod.init_params(mx.init.Xavier(), seed=0)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    # a short window: the scale grows during the run (128 * 2**3 after 32 clean steps), so the
    # restored scaler differs from a default one in its scale, settings and step count
    mx.amp.init_trainer(mod, mx.amp.LossScaler(init_scale=128, scale_window=10))
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=12), num_epoch=8)
    acc = dict(mod.score(mx.io.NDArrayIter(x, y, batch_size=12), "acc"))["accuracy"]
    assert acc > 0.7
    assert mod.loss_scale == 1024 and mod.optimizer.num_update == 32
    mod.save_checkpoint(str(tmp_path / "dp"), 1, save_optimizer_states=True)
    saved, _ = mod.get_params()

    back = _amp_module(lambda: mx.mod.Module.load(str(tmp_path / "dp"), 1, load_optimizer_states=True,
                                                  context=devices))
    back.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    # parameters (on every device), optimizer states, update counts and the loss scaler come back exactly
    got, _ = back.get_params()
    assert sorted(got) == sorted(saved)
    for k in saved:
        np.testing.assert_array_equal(got[k].asnumpy(), saved[k].asnumpy(), err_msg=k)
        for e in back._execs:
            np.testing.assert_array_equal(e.arg_dict[k].asnumpy(), saved[k].asnumpy(), err_msg=k)
    want, have = _flat_states(mod), _flat_states(back)
    assert sorted(have) == sorted(want) and len(want) == 4
    for i in want:
        assert len(have[i]) == len(want[i]) >= 1
        for a, b in zip(have[i], want[i]):
            np.testing.assert_array_equal(a, b, err_msg=str(i))
    assert back.optimizer.num_update == mod.optimizer.num_update
    assert back.optimizer._index_update_count == mod.optimizer._index_update_count
    assert back._amp_loss_scaler.state_dict() == mod._amp_loss_scaler.state_dict()
    assert back.loss_scale == 1024
    # one more identical step on both gives bit-identical parameters
    for m in (mod, back):
        m.forward_backward(batch())
        assert m.update()
    a, _ = mod.get_params()
    b, _ = back.get_params()
    for k in a:
        assert not np.array_equal(a[k].asnumpy(), saved[k].asnumpy()), k
        np.testing.assert_array_equal(b[k].asnumpy(), a[k].asnumpy(), err_msg=k)
    assert back._amp_loss_scaler.state_dict() == mod._amp_loss_scaler.state_dict()


def test_allreduce_sums_across_cpu_devices():
    parts = [[mx.nd.array(np.full((3, 2), d + 1.0), ctx=mx.cpu(d))] for d in range(3)]
    _core.allreduce_sum([[a.handle for a in p] for p in parts])
    for p in parts:
        np.testing.assert_array_equal(p[0].asnumpy(), np.full((3, 2), 6.0))


def test_bad_device_lists_are_clear_errors():
    with pytest.raises(ValueError, match="cannot be split over 3 devices"):
        mx.mod.Module(mlp(), context=[mx.cpu(0), mx.cpu(1), mx.cpu(2)]).bind(
            [("data", (2, 10))], [("softmax_label", (2,))])
    with pytest.raises(ValueError, match="once"):
        mx.mod.Module(mlp(), context=[mx.cpu(0), mx.cpu(0)])
    with pytest.raises(ValueError, match="one type"):
        mx.mod.Module(mlp(), context=[mx.cpu(0), mx.gpu(0)])
