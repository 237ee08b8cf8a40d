"""mx.contrib.tensorboard.LogMetricsCallback as MXNet 1.9.1's: each metric of the callback's
eval_metric goes to mxboard's SummaryWriter.add_scalar at step param.epoch, named
'<prefix>-<name>' with a prefix; no eval_metric, nothing. mxboard is not installed here, so a
stand-in module records the calls; without it, construction logs how to install it (as MXNet)
and the first call raises ImportError naming mxboard (MXNet: AttributeError)."""
import logging
import sys
import types

import pytest

import symnet as mx
from symnet.contrib.tensorboard import LogMetricsCallback


def _param(metric):
    return mx.model.BatchEndParam(epoch=3, nbatch=1, eval_metric=metric, locals=None)


def _metric():
    m = mx.metric.create(["acc", "mse"])
    m.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8]])])
    return m


def test_writes_each_metric_through_mxboard(monkeypatch, tmp_path):
    calls = []

    class SummaryWriter:
        def __init__(self, logdir):
            calls.append(("init", logdir))

        def add_scalar(self, name, value, global_step=None):
            calls.append((name, pytest.approx(value, rel=1e-6), global_step))

    monkeypatch.setitem(sys.modules, "mxboard", types.SimpleNamespace(SummaryWriter=SummaryWriter))
    LogMetricsCallback(str(tmp_path / "train"), prefix="train")(_param(_metric()))
    cb = LogMetricsCallback(str(tmp_path / "eval"))
    cb(_param(_metric()))
    assert cb(_param(None)) is None
    assert calls == [("init", str(tmp_path / "train")), ("train-accuracy", 1.0, 3), ("train-mse", 0.375, 3),
                     ("init", str(tmp_path / "eval")), ("accuracy", 1.0, 3), ("mse", 0.375, 3)]


def test_without_mxboard(monkeypatch, tmp_path, caplog):
    monkeypatch.setitem(sys.modules, "mxboard", None)  # makes `import mxboard` raise ImportError
    with caplog.at_level(logging.ERROR):
        cb = LogMetricsCallback(str(tmp_path))
    assert "pip install mxboard" in caplog.text
    assert cb(_param(None)) is None  # nothing to write: no error, as in MXNet
    with pytest.raises(ImportError, match="mxboard"):
        cb(_param(_metric()))
