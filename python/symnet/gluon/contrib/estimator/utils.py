"""Checks the Estimator and its handlers share: metric lists, metric references, the metric a
loss suggests (MXNet 1.9.1's gluon.contrib.estimator.utils)."""
from ...loss import SoftmaxCrossEntropyLoss
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric


def _check_metrics(metrics):
    """A metric, a composite (flattened into its members) or a list of metrics -> a list."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for member in metrics.metrics for m in _check_metrics(member)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = metrics or []
    if not all(isinstance(m, EvalMetric) for m in metrics):
        raise ValueError("metrics must be a Metric or a list of Metric, "
                         "refer to mxnet.metric.EvalMetric: {}".format(metrics))
    return metrics


def _check_handler_metric_ref(handler, known_metrics):
    """Every metric a handler holds (any attribute whose name contains 'metric'; MXNet's test
    `'metric' or 'monitor'` only ever looks for 'metric') must be one the estimator updates."""
    for attribute in dir(handler):
        if "metric" not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference:
            continue
        for metric in reference if isinstance(reference, list) else [reference]:
            _check_metric_known(handler, metric, known_metrics)


def _check_metric_known(handler, metric, known_metrics):
    if metric not in known_metrics:
        raise ValueError(
            "Event handler {} refers to a metric instance {} outside of the known training and "
            "validation metrics. Please use the metrics from estimator.train_metrics and "
            "estimator.val_metrics instead.".format(type(handler).__name__, metric))


def _suggest_metric_for_loss(loss):
    """Accuracy for a softmax cross-entropy loss, nothing for any other loss."""
    if isinstance(loss, SoftmaxCrossEntropyLoss):
        return Accuracy()
    return None
