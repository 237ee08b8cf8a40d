"""The training front end: initializers, schedulers, metrics, NDArrayIter, callbacks, Module
(fit, score, predict, checkpoints and bit-identical resume), and AMP through a Module."""
import io as pyio
import json
import logging

import numpy as np
import pytest

import symnet as mx


# ---- initializers -------------------------------------------------------------------------------
def test_initializer_suffix_dispatch_and_rules():
    rng = np.random.RandomState(0)
    init = mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3).set_rng(rng)
    w = mx.nd.zeros((64, 32))
    init("fc_weight", w)
    bound = np.sqrt(3.0 / ((64 + 32) / 2))
    assert np.abs(w.asnumpy()).max() <= bound and np.abs(w.asnumpy()).max() > 0.9 * bound
    for name, value in (("fc_bias", 0), ("bn_gamma", 1), ("bn_beta", 0), ("bn_moving_mean", 0),
                        ("bn_moving_var", 1)):
        a = mx.nd.full((3,), 5.0)
        init(name, a)
        assert (a.asnumpy() == value).all(), name
    g = mx.nd.zeros((256, 128, 3, 3))
    mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2).set_rng(rng)("c_weight", g)
    assert abs(g.asnumpy().std() - np.sqrt(2.0 / (128 * 9))) < 0.02 * np.sqrt(2.0 / (128 * 9)) * 5
    m = mx.nd.zeros((128, 64, 3, 3))
    mx.init.MSRAPrelu(slope=0.0).set_rng(rng)("c_weight", m)
    assert abs(m.asnumpy().std() - np.sqrt(2.0 / ((128 + 64) * 9 / 2))) < 0.01
    for cls, args, check in ((mx.init.Normal, (0.5,), lambda a: abs(a.std() - 0.5) < 0.05),
                             (mx.init.Uniform, (0.2,), lambda a: np.abs(a).max() <= 0.2),
                             (mx.init.Constant, (3.0,), lambda a: (a == 3).all()),
                             (mx.init.Zero, (), lambda a: (a == 0).all()),
                             (mx.init.One, (), lambda a: (a == 1).all())):
        a = mx.nd.zeros((40, 40))
        cls(*args).set_rng(rng)("x_weight", a)
        assert check(a.asnumpy()), cls
    # a variable's __init__ attribute wins (ResNet's zero-init of the last gamma)
    desc = mx.init.InitDesc("bn3_gamma", {"__init__": '["zero", {}]'})
    a = mx.nd.ones((4,))
    init(desc, a)
    assert (a.asnumpy() == 0).all()
    assert mx.init.create(mx.init.Xavier(magnitude=2).dumps()).magnitude == 2
    with pytest.raises(ValueError, match="cannot initialize"):
        init("mystery", mx.nd.zeros((2,)))


# ---- schedulers --------------------------------------------------------------------------------
def test_lr_schedulers():
    f = mx.lr_scheduler.FactorScheduler(step=10, factor=0.5, base_lr=1.0)
    # MXNet 1.9.1's values: the rate drops after update 10, 20, ...
    assert [f(n) for n in (1, 10, 11, 20, 21, 25)] == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    fw = mx.lr_scheduler.FactorScheduler(step=10, factor=0.5, base_lr=1.0, warmup_steps=5,
                                         warmup_begin_lr=0.1)
    assert [fw(n) for n in (0, 3, 5, 10, 11, 16, 25)] == pytest.approx([0.1, 0.64, 1.0, 1.0, 0.5, 0.5, 0.25])
    fs = mx.lr_scheduler.FactorScheduler(step=7, factor=0.1, base_lr=1.0, stop_factor_lr=0.05)
    assert [fs(n) for n in (7, 8, 15)] == pytest.approx([1.0, 0.1, 0.05])
    m = mx.lr_scheduler.MultiFactorScheduler(step=[5, 8], factor=0.1, base_lr=1.0)
    assert [m(n) for n in (5, 6, 8, 9)] == pytest.approx([1.0, 0.1, 0.1, 0.01])
    c = mx.lr_scheduler.CosineScheduler(max_update=100, base_lr=1.0, final_lr=0.0)
    assert c(0) == pytest.approx(1.0) and c(50) == pytest.approx(0.5) and c(100) == 0.0
    p = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=2)
    assert p(5) == pytest.approx(0.25)
    w = mx.lr_scheduler.CosineScheduler(max_update=20, base_lr=1.0, warmup_steps=10, warmup_begin_lr=0.0)
    assert w(5) == pytest.approx(0.5) and w(10) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        mx.lr_scheduler.MultiFactorScheduler(step=[5, 3])


# ---- metrics -------------------------------------------------------------------------------------
def test_metrics():
    pred = mx.nd.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
    label = mx.nd.array([1, 1, 2])
    acc = mx.metric.create("acc")
    acc.update([label], [pred])
    assert acc.get() == ("accuracy", pytest.approx(2 / 3))
    top2 = mx.metric.TopKAccuracy(top_k=2)
    top2.update([label], [pred])
    assert top2.get()[1] == pytest.approx(1.0)
    ce = mx.metric.create("ce")
    ce.update([label], [pred])
    assert ce.get()[1] == pytest.approx(-np.log([0.7, 0.3, 0.5]).mean())
    loss = mx.metric.Loss()
    loss.update(None, [mx.nd.array([1.0, 3.0])])
    assert loss.get()[1] == 2.0
    comp = mx.metric.create(["acc", "ce"])
    comp.update([label], [pred])
    names, values = comp.get()
    assert names == ["accuracy", "cross-entropy"]
    with pytest.raises(ValueError, match="unknown metric"):
        mx.metric.create("accuracyy")


# ---- NDArrayIter -------------------------------------------------------------------------------------
@pytest.mark.parametrize("handle,batches,pads", [("pad", 4, [0, 0, 0, 2]), ("discard", 3, [0, 0, 0]),
                                                 ("roll_over", 3, [0, 0, 0])])
def test_ndarray_iter(handle, batches, pads):
    x = np.arange(10, dtype=np.float32)[:, None] * np.ones((1, 2), np.float32)
    y = np.arange(10, dtype=np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=3, last_batch_handle=handle)
    assert it.provide_data[0].shape == (3, 2) and it.provide_label[0].name == "softmax_label"
    got = list(it)
    assert len(got) == batches and [b.pad for b in got] == pads
    if handle == "pad":
        np.testing.assert_array_equal(got[-1].label[0].asnumpy(), [9, 0, 1])
    it.reset()
    first = next(iter(it))
    if handle == "roll_over":  # the leftover sample 9 starts the next epoch
        np.testing.assert_array_equal(first.label[0].asnumpy(), [9, 0, 1])
    else:
        np.testing.assert_array_equal(first.label[0].asnumpy(), [0, 1, 2])
    sh = mx.io.NDArrayIter({"data": x}, {"softmax_label": y}, batch_size=5, shuffle=True, seed=3)
    e0 = np.concatenate([b.label[0].asnumpy() for b in sh])
    sh.reset()
    e1 = np.concatenate([b.label[0].asnumpy() for b in sh])
    assert sorted(e0) == list(range(10)) and (e0 != e1).any()
    sh.set_epoch(0)
    np.testing.assert_array_equal(np.concatenate([b.label[0].asnumpy() for b in sh]), e0)


# ---- Module ---------------------------------------------------------------------------------------
def digits(n_train=1200):
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.float32)
    order = np.random.RandomState(0).permutation(len(x))
    return x[order][:n_train], y[order][:n_train], x[order][n_train:], y[order][n_train:]


def mlp():
    net = mx.sym.var("data")
    net = mx.sym.Activation(mx.sym.FullyConnected(net, num_hidden=64, name="fc1"), act_type="relu")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=10, name="fc2"), name="softmax")


def fit(mod, x, y, epochs, begin_epoch=0, prefix=None, seed=1):
    mx.random.seed(7)
    it = mx.io.NDArrayIter(x, y, batch_size=40, shuffle=True, seed=seed)
    cbs = [mx.callback.do_checkpoint(prefix, save_optimizer_states=True)] if prefix else None
    sched = mx.lr_scheduler.MultiFactorScheduler(step=[60, 120], factor=0.5, base_lr=0.2)
    mod.fit(it, num_epoch=epochs, begin_epoch=begin_epoch, optimizer="sgd",
            optimizer_params={"learning_rate": 0.2, "momentum": 0.9, "wd": 1e-4, "lr_scheduler": sched},
            initializer=mx.init.Xavier(), epoch_end_callback=cbs)


def test_module_fit_score_predict():
    pytest.importorskip("sklearn")
    x, y, xt, yt = digits()
    mod = mx.mod.Module(mlp())
    fit(mod, x, y, 8)
    val = mx.io.NDArrayIter(xt, yt, batch_size=40)
    acc = dict(mod.score(val, "acc"))["accuracy"]
    assert acc >= 0.95
    pred = mod.predict(val)
    assert pred.shape == (len(xt), 10)
    assert abs((pred.asnumpy().argmax(1) == yt).mean() - acc) < 1e-9
    args, auxs = mod.get_params()
    assert set(args) == {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"}


def test_checkpoint_resume_is_bit_identical(tmp_path):
    pytest.importorskip("sklearn")
    x, y, _, _ = digits(400)
    prefix = str(tmp_path / "mlp")
    full = mx.mod.Module(mlp())
    fit(full, x, y, 4)
    part = mx.mod.Module(mlp())
    fit(part, x, y, 2, prefix=prefix)
    resumed = mx.mod.Module.load(prefix, 2, load_optimizer_states=True)
    fit(resumed, x, y, 4, begin_epoch=2)
    a, _ = full.get_params()
    b, _ = resumed.get_params()
    for k in a:
        np.testing.assert_array_equal(a[k].asnumpy(), b[k].asnumpy(), err_msg=k)


def test_speedometer_and_log_writer(tmp_path, caplog):
    pytest.importorskip("sklearn")
    x, y, _, _ = digits(400)
    log = str(tmp_path / "log.jsonl")
    writer = mx.callback.LogWriter(log, batch_size=40)
    bar = pyio.StringIO()
    speed = mx.callback.Speedometer(40, frequent=2, progress_bar=True, stream=bar)
    mod = mx.mod.Module(mlp())
    mx.amp.init_trainer(mod)
    with caplog.at_level(logging.INFO):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=40), num_epoch=1, optimizer="sgd",
                optimizer_params={"learning_rate": 0.1}, initializer=mx.init.Xavier(),
                batch_end_callback=[speed, writer])
    writer.close()
    assert any("samples/sec" in r.message and "loss_scale" in r.message for r in caplog.records)
    assert "img/s" in bar.getvalue() and "10/10" in bar.getvalue()
    recs = [json.loads(l) for l in open(log)]
    assert len(recs) == 10 and {"epoch", "batch", "accuracy", "lr", "loss_scale", "img_per_s"} <= set(recs[0])


def test_module_with_amp_trains_and_saves_the_loss_scale(tmp_path):
    pytest.importorskip("sklearn")
    x, y, xt, yt = digits()
    mx.amp.init("bfloat16")
    try:
        mod = mx.mod.Module(mlp())
        mx.amp.init_trainer(mod)
        fit(mod, x, y, 8)
    finally:
        mx.amp.shutdown()
    assert "amp_cast" in mod._exec.debug_str()
    assert mod.loss_scale is not None
    acc = dict(mod.score(mx.io.NDArrayIter(xt, yt, batch_size=40), "acc"))["accuracy"]
    assert acc >= 0.95
    prefix = str(tmp_path / "amp")
    mod.save_checkpoint(prefix, 8, save_optimizer_states=True)
    again = mx.mod.Module.load(prefix, 8, load_optimizer_states=True)
    again.bind([("data", (40, 64))], [("softmax_label", (40,))])
    again.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    assert again.loss_scale == mod.loss_scale


def test_states_files_written_before_the_shared_codec_still_load(tmp_path):
    """A .states file whose meta JSON Python's json.dumps wrote (the layout of earlier
    releases, a static scaler) loads into a Module. A tuple state with a missing part is read by the
    codec, and refused by a Module whose optimizer keeps one array (before, it loaded and the next
    update used the saved array as a float32 master weight)."""
    x = np.random.RandomState(0).rand(40, 64).astype(np.float32)
    y = (np.arange(40) % 10).astype(np.float32)
    mod = mx.mod.Module(mlp())
    mod.bind([("data", (40, 64))], [("softmax_label", (40,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    names = mod._param_names
    mom0 = np.arange(np.prod(mod._exec.arg_dict[names[0]].shape), dtype=np.float32)
    meta = {"num_update": 7, "index_update_count": {"0": 7, "1": 6},
            "layout": {"0": [True, False], "1": [True, False]},
            "loss_scaler": {"loss_scale": 256.0, "clean_steps": 3, "num_overflows": 2,
                            "scale_factor": 2.0, "scale_window": 2000, "min_scale": 1.0,
                            "max_scale": 2.0 ** 24, "dynamic": False}}
    shape1 = mod._exec.arg_dict[names[1]].shape
    arrays = {"state:0:0": mx.nd.array(mom0.reshape(mod._exec.arg_dict[names[0]].shape)),
              "state:1:0": mx.nd.array(np.ones(shape1, np.float32)),
              "meta": mx.nd.array(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), dtype="uint8")}
    fname = str(tmp_path / "legacy.states")
    mx.nd.save(fname, arrays)
    mod.load_optimizer_states(fname)
    assert mod._optimizer.num_update == 7 and mod._optimizer._index_update_count == {0: 7, 1: 6}
    np.testing.assert_array_equal(mod._states[0].asnumpy().ravel(), mom0)
    np.testing.assert_array_equal(mod._states[1].asnumpy(), np.ones(shape1))
    assert mod.loss_scale == 256.0 and not mod._amp_loss_scaler.dynamic
    assert mod._amp_loss_scaler.state_dict() == meta["loss_scaler"]
    # and what it writes back reads the same
    mod.save_optimizer_states(str(tmp_path / "again.states"))
    again = json.loads(bytes(mx.nd.load(str(tmp_path / "again.states"))["meta"].asnumpy()).decode())
    assert again == meta
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    mod.update()
    assert mod.loss_scale == 256.0  # static: a clean step does not move it
    tuple_meta = dict(meta, layout={"0": [True, False], "1": [False, True, True]})
    tuple_file = str(tmp_path / "tuple.states")
    mx.nd.save(tuple_file, {"state:0:0": arrays["state:0:0"], "state:1:1": arrays["state:1:0"],
                            "meta": mx.nd.array(np.frombuffer(json.dumps(tuple_meta).encode(), dtype=np.uint8),
                                                dtype="uint8")})
    parts, is_tuple = mx._core.load_optimizer_states(tuple_file)["states"][1]
    assert is_tuple and parts[0] is None and parts[1] is not None
    with pytest.raises(mx.base.MXNetError, match="is a tuple of 2, optimizer SGD keeps one array"):
        mod.load_optimizer_states(tuple_file)
    bad = str(tmp_path / "bad.states")
    mx.nd.save(bad, {"meta": mx.nd.array(np.frombuffer(b'{"num_update": 1}', dtype=np.uint8), dtype="uint8")})
    with pytest.raises(mx.base.MXNetError, match="bad.states.*no 'index_update_count'"):
        mod.load_optimizer_states(bad)


def test_csv_log_with_validation_and_training_plot(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    x, y, xt, yt = digits(400)
    logs = {}
    for run in ("float32", "amp"):
        logs[run] = str(tmp_path / (run + ".csv"))
        writer = mx.callback.LogWriter(logs[run], batch_size=40, run_name=run)
        mod = mx.mod.Module(mlp())
        if run == "amp":
            mx.amp.init_trainer(mod)
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=40), eval_data=mx.io.NDArrayIter(xt, yt, batch_size=40),
                num_epoch=2, optimizer="sgd", optimizer_params={"learning_rate": 0.1},
                initializer=mx.init.Xavier(), batch_end_callback=writer, eval_end_callback=writer.log_eval)
        writer.close()
    import csv
    rows = list(csv.DictReader(open(logs["amp"])))
    assert len(rows) == 2 * 10 + 2
    val = [r for r in rows if r["val_accuracy"]]
    assert [int(r["epoch"]) for r in val] == [0, 1]
    assert all(r["accuracy"] for r in rows if not r["val_accuracy"])  # earlier rows kept their values
    assert float(val[-1]["val_accuracy"]) > 0.5
    png = mx.viz.plot_training(logs, str(tmp_path / "curves.png"))
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_synthetic_iter():
    it = mx.io.SyntheticIter((3, 8, 8), batch_size=4, num_classes=10, num_batches=3, dtype="bfloat16")
    batches = list(it)
    assert len(batches) == 3 and it.provide_data[0].shape == (4, 3, 8, 8)
    assert batches[0].data[0].dtype == it.provide_data[0].dtype == mx.nd.array(np.zeros(1), dtype="bfloat16").dtype
    assert 0 <= batches[0].label[0].asnumpy().min() and batches[0].label[0].asnumpy().max() < 10
    it.reset()
    assert len(list(it)) == 3


def test_metric_local_window_and_global_totals():
    m = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), mx.metric.CrossEntropy()])
    p = np.array([[0.9, 0.1], [0.2, 0.8]], np.float32)
    m.update([np.array([0, 0])], [p])          # 1 of 2 right
    m.reset_local()
    m.update([np.array([0, 1])], [p])          # 2 of 2 right
    assert dict(m.get_name_value())["accuracy"] == 1.0
    glob = dict(m.get_global_name_value())
    assert glob["accuracy"] == 0.75
    np.testing.assert_allclose(glob["cross-entropy"], -np.log([0.9, 0.2, 0.9, 0.8]).mean(), rtol=1e-6)
    m.reset()
    assert np.isnan(dict(m.get_global_name_value())["accuracy"])


@pytest.mark.parametrize("ext", ["jsonl", "csv"])
def test_log_writer_append_continues_a_log(tmp_path, ext):
    path = str(tmp_path / ("log." + ext))
    metric = mx.metric.Accuracy()
    metric.update([np.array([0])], [np.array([[0.9, 0.1]])])
    for append, epoch in ((False, 0), (True, 1)):
        w = mx.callback.LogWriter(path, 4, run_name="r", append=append)
        w(mx.callback.BatchEndParam(epoch, 1, metric))
        w.log_eval(mx.callback.BatchEndParam(epoch, 1, metric))
        w.close()
    if ext == "csv":
        import csv
        rows = list(csv.DictReader(open(path)))
    else:
        rows = [json.loads(l) for l in open(path)]
    assert [int(r["epoch"]) for r in rows] == [0, 0, 1, 1]
    assert float(rows[-1]["val_accuracy"]) == 1.0 and float(rows[0]["accuracy"]) == 1.0
