"""MXNet 1.9.1's callbacks ProgressBar, log_train_metric, LogValidationMetricsCallback and
module_checkpoint log and save as MXNet's."""
import logging

import symnet as mx
from symnet.callback import BatchEndParam


def _metric():
    m = mx.metric.Accuracy()
    m.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.8, 0.2]])])
    return m


def test_logging_callbacks(caplog):
    with caplog.at_level(logging.INFO):
        mx.callback.ProgressBar(total=4, length=8)(BatchEndParam(0, 1, None))
        mx.callback.log_train_metric(2)(BatchEndParam(3, 2, _metric()))
        mx.callback.log_train_metric(2)(BatchEndParam(3, 3, _metric()))  # not every batch
        mx.callback.LogValidationMetricsCallback()(BatchEndParam(1, 5, _metric()))
        mx.callback.LogValidationMetricsCallback()(BatchEndParam(1, 5, None))
    assert [r.getMessage() for r in caplog.records] == [
        "[==------] 25%\r", "Iter[3] Batch[2] Train-accuracy=0.500000",
        "Epoch[1] Validation-accuracy=0.500000"]


def test_module_checkpoint():
    calls = []

    class _Mod:
        def save_checkpoint(self, prefix, epoch, save_optimizer_states):
            calls.append((prefix, epoch, save_optimizer_states))

    cb = mx.callback.module_checkpoint(_Mod(), "p", period=2, save_optimizer_states=True)
    for epoch in range(4):
        cb(epoch)
    assert calls == [("p", 2, True), ("p", 4, True)]
