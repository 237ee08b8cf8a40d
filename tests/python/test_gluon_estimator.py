"""gluon.contrib.estimator as MXNet 1.9.1's: a tiny classifier trained with Estimator.fit and its
handlers (logging every 2 batches, validation, checkpoints with save_best and rotation, early
stopping, resuming from a checkpoint) logs the lines and writes the files MXNet 1.9.1 does for the
same script (the expected values below are MXNet 1.9.1's output, timings masked)."""
import io
import logging
import os
import re
import warnings

import numpy as np
import pytest

import symnet as mx
from symnet import gluon
from symnet.gluon.contrib.estimator import (BatchProcessor, CheckpointHandler,
                                            EarlyStoppingHandler, Estimator, LoggingHandler)
from symnet.gluon.contrib.estimator import event_handler
from symnet.gluon import nn


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 4).astype("float32")
    y = (x[:, 0] + x[:, 1] > 0).astype("float32")
    ds = gluon.data.ArrayDataset(mx.nd.array(x), mx.nd.array(y))
    val = gluon.data.ArrayDataset(mx.nd.array(x[:32]), mx.nd.array(y[:32]))
    return (gluon.data.DataLoader(ds, batch_size=16), gluon.data.DataLoader(val, batch_size=16),
            x, rng)


def _net(x, rng):
    """A hybridized 4-8-2 MLP with weights drawn from rng (the same on MXNet)."""
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu", prefix="d0_"), nn.Dense(2, prefix="d1_"))
    net.hybridize()
    net.initialize()
    net(mx.nd.array(x[:2]))
    for _, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))
    return net


def _estimator(net):
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)


def _log_of(est):
    buf = io.StringIO()
    est.logger.addHandler(logging.StreamHandler(buf))
    return buf


MXNET_LOG_HEAD = """\
Training begin: using optimizer SGD with current learning rate 0.5000 
Train for 5 epochs.
[Epoch 0] Begin, current learning rate: 0.5000
[Epoch 0][Batch 0][Samples 16] time/interval: Ts training accuracy: 0.3750, training softmaxcrossentropyloss: 0.7318
[Epoch 0][Batch 2][Samples 48] time/interval: Ts training accuracy: 0.4583, training softmaxcrossentropyloss: 0.7385
Validation Begin
[Epoch 0] Finished in Ts, validation accuracy: 0.5000, validation softmaxcrossentropyloss: 0.6383
[Epoch 0] Finished in Ts, training accuracy: 0.4531, training softmaxcrossentropyloss: 0.7358
[Epoch 1] Begin, current learning rate: 0.5000
"""  # noqa: W291
MXNET_LOG_TAIL = """\
[Epoch 4][Batch 2][Samples 304] time/interval: Ts training accuracy: 0.9583, training softmaxcrossentropyloss: 0.2930
Validation Begin
[Epoch 0] Finished in Ts, validation accuracy: 0.9375, validation softmaxcrossentropyloss: 0.2545
[Epoch 4] Finished in Ts, training accuracy: 0.9688, training softmaxcrossentropyloss: 0.2813
Train finished using total 0s with 5 epochs. training accuracy: 0.9688, training softmaxcrossentropyloss: 0.2813
"""


def test_fit_logs_validates_and_checkpoints_as_mxnet(tmp_path):
    train, val, x, rng = _data()
    est = _estimator(_net(x, rng))
    assert [m.name for m in est.train_metrics] == ["training accuracy",
                                                   "training softmaxcrossentropyloss"]
    assert [m.name for m in est.val_metrics] == ["validation accuracy",
                                                 "validation softmaxcrossentropyloss"]
    buf = _log_of(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ck = CheckpointHandler(str(tmp_path), model_prefix="m", monitor=est.val_metrics[0],
                               save_best=True, max_checkpoints=2)
        es = EarlyStoppingHandler(monitor=est.train_metrics[1], patience=1, mode="min")
    lg = LoggingHandler(log_interval=2, metrics=est.train_metrics)
    est.fit(train, val_data=val, epochs=5, event_handlers=[ck, es, lg])
    log = re.sub(r"\d+\.\d+s", "Ts", buf.getvalue())
    assert log.startswith(MXNET_LOG_HEAD)
    assert log.endswith(MXNET_LOG_TAIL)
    assert len(log.splitlines()) == 33
    # two newest epoch checkpoints kept, the best one apart, the graph of the hybridized net
    assert sorted(os.listdir(tmp_path)) == [
        "m-best.params", "m-best.states", "m-epoch3batch16.params", "m-epoch3batch16.states",
        "m-epoch4batch20.params", "m-epoch4batch20.states", "m-symbol.json"]
    assert (ck.current_epoch, ck.current_batch, es.current_epoch, es.stopped_epoch) == (5, 20, 5, 0)
    sym = mx.sym.load(str(tmp_path / "m-symbol.json"))
    assert "mlp_d1_weight" in sym.list_arguments()


def test_early_stopping_stops_training():
    train, _, x, rng = _data()
    est = _estimator(_net(x, rng))
    buf = _log_of(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # auto mode compares with `greater` (MXNet's test is always true); no epoch gains 1.0
        es = EarlyStoppingHandler(monitor=est.train_metrics[0], min_delta=1, patience=1)
    est.fit(train, epochs=10, event_handlers=[es])
    assert (es.current_epoch, es.stopped_epoch, es.wait, es.stop_training) == (2, 1, 1, True)
    assert es.best == 0.453125  # the first epoch's accuracy (MXNET_LOG_HEAD)
    assert "[Epoch 1] EarlyStoppingHanlder: early stopping due to training accuracy not improving" \
        in buf.getvalue()
    assert "Train finished using total 0s with 2 epochs." in buf.getvalue()


def test_batch_checkpoints_and_resume(tmp_path):
    train, _, x, _ = _data()
    est = _estimator(_net(x, np.random.RandomState(1)))
    ck = CheckpointHandler(str(tmp_path), model_prefix="b", epoch_period=None, batch_period=3,
                           max_checkpoints=2)
    est.fit(train, batches=7, event_handlers=[ck])
    assert (ck.current_batch, ck.current_epoch) == (7, 2)
    names = ["b-epoch0batch2.params", "b-epoch0batch2.states", "b-epoch1batch5.params",
             "b-epoch1batch5.states", "b-symbol.json"]
    assert sorted(os.listdir(tmp_path)) == names
    net2 = _net(x, np.random.RandomState(1))
    est2 = _estimator(net2)
    buf = _log_of(est2)
    ck2 = CheckpointHandler(str(tmp_path), model_prefix="b", epoch_period=None, batch_period=3,
                            max_checkpoints=2, resume_from_checkpoint=True)
    est2.fit(train, batches=9, event_handlers=[ck2])
    assert "Checkpoint resumed from epoch 1 batch 5, continue to train for 3 batches" in \
        buf.getvalue()
    assert (est2.max_batch, ck2.trained_epoch, ck2.trained_batch) == (3, 1, 5)
    # MXNet lists the found checkpoints only into a non-empty list: none here
    assert ck2.saved_checkpoints == ["b-epoch2batch8"]
    assert "b-epoch2batch8.params" in os.listdir(tmp_path)
    np.testing.assert_allclose(net2[1].weight.data().asnumpy().ravel()[:3],
                               [-0.0857601, 0.37215966, -0.36884868], rtol=1e-4)


def test_argument_checks_and_handler_order():
    train, _, x, rng = _data()
    est = _estimator(_net(x, rng))
    with pytest.raises(ValueError):
        est.fit(train, epochs=1, batches=1)
    with pytest.raises(ValueError):
        est.fit(mx.io.NDArrayIter(x, batch_size=4), epochs=1)
    with pytest.raises(ValueError):
        Estimator(est.net, loss="l2")
    with pytest.raises(ValueError):  # a handler of another metric than the estimator's
        est.fit(train, epochs=1, event_handlers=[LoggingHandler(metrics=[mx.metric.Accuracy()])])
    handlers = est._prepare_default_handlers(None, [])
    assert [type(h).__name__ for h in handlers] == [
        "GradientUpdateHandler", "MetricHandler", "StoppingHandler", "LoggingHandler"]
    groups = est._categorize_handlers(handlers)
    assert [len(g) for g in groups] == [2, 2, 1, 4, 2, 1]
    assert isinstance(est.batch_processor, BatchProcessor)
    assert issubclass(event_handler.ValidationHandler, event_handler.EpochEnd)
