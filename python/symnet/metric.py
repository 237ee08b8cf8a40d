"""Evaluation metrics (MXNet's): Accuracy, TopKAccuracy, CrossEntropy, Loss, CompositeEvalMetric,
and metric.create('acc')."""
import numpy as np

from .base import MXNetError
from .ndarray import NDArray

_REGISTRY = {}


def register(*names):
    def deco(klass):
        for n in names:
            _REGISTRY[n.lower()] = klass
        return klass
    return deco


def _np(x):
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)


def _listed(x):
    """A bare array (NDArray or numpy) as a one-element list, as MXNet's metrics accept it."""
    return [x] if isinstance(x, (NDArray, np.ndarray)) else x


def _pairs(labels, preds):
    labels, preds = _listed(labels), _listed(preds)
    if len(labels) != len(preds):
        raise ValueError("metric update: %d label arrays for %d prediction arrays"
                         % (len(labels), len(preds)))
    return zip(labels, preds)


def _class_labels(label, num_classes, metric):
    """Labels as class indices (int64, flat), checked as the training ops check them: a label
    that is fractional, NaN or outside [0, num_classes) is an error naming the metric, the
    position in the batch and the value, not a silently wrong score."""
    lab = _np(label).astype(np.float64).ravel()
    ok = np.isfinite(lab) & (lab >= 0) & (lab == np.floor(lab))
    if num_classes is not None:
        ok &= lab < num_classes
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        v = lab[i]
        if num_classes is not None and not (0 <= v < num_classes):
            why = "is outside [0, %d), the number of classes" % num_classes
        elif not (v >= 0):
            why = "is not a class index (negative or NaN)"
        else:
            why = "is not a whole number (labels are class indices)"
        raise MXNetError("metric %s: label %g at batch position %d %s" % (metric, v, i, why))
    return lab.astype(np.int64)


class EvalMetric:
    def __init__(self, name, output_names=None, label_names=None):
        self.name = name
        self.output_names, self.label_names = output_names, label_names
        self.reset()

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Starts a new local window (what Speedometer prints) and keeps the global totals
        (what the epoch summary prints)."""
        self.global_num_inst += self.num_inst
        self.global_sum_metric += self.sum_metric
        self.num_inst = 0
        self.sum_metric = 0.0

    def update(self, labels, preds):
        raise NotImplementedError()

    def get_global(self):
        num = self.global_num_inst + self.num_inst
        if num == 0:
            return self.name, float("nan")
        return self.name, (self.global_sum_metric + self.sum_metric) / num

    def get_global_name_value(self):
        name, value = self.get_global()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))

    def update_dict(self, label, pred):
        self.update(list(label.values()), list(pred.values()))

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, self.sum_metric / self.num_inst

    def get_name_value(self):
        name, value = self.get()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))

    def __str__(self):
        return "EvalMetric: %s" % dict(self.get_name_value())


@register("acc", "accuracy")
class Accuracy(EvalMetric):
    def __init__(self, axis=1, name="accuracy", **kw):
        self.axis = axis
        super().__init__(name, **kw)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            p, l = _np(pred), _np(label)
            num_classes = None
            if p.shape != l.shape:
                num_classes = p.shape[self.axis]
                p = p.argmax(axis=self.axis)
            p, l = p.astype(np.int64).ravel(), _class_labels(l, num_classes, self.name)
            if p.shape != l.shape:
                raise ValueError("labels %s and predictions %s do not match" % (l.shape, p.shape))
            self.sum_metric += float((p == l).sum())
            self.num_inst += len(p)


@register("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    def __init__(self, top_k=1, name="top_k_accuracy", **kw):
        self.top_k = top_k
        super().__init__("%s_%d" % (name, top_k), **kw)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            p = _np(pred)
            l = _class_labels(label, p.shape[1], self.name)
            top = np.argsort(-p, axis=1)[:, :self.top_k]
            self.sum_metric += float((top == l[:, None]).any(axis=1).sum())
            self.num_inst += len(l)


@register("ce", "cross-entropy")
class CrossEntropy(EvalMetric):
    def __init__(self, eps=1e-12, name="cross-entropy", **kw):
        self.eps = eps
        super().__init__(name, **kw)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            p = _np(pred)
            l = _class_labels(label, p.shape[1], self.name)
            prob = p[np.arange(len(l)), l]
            self.sum_metric += float(-np.log(prob + self.eps).sum())
            self.num_inst += len(l)


@register("perplexity")
class Perplexity(EvalMetric):
    """exp of the mean negative log-likelihood of the labels (MXNet's Perplexity): predictions are
    probabilities over `axis`; labels equal to ignore_label (padding) are not counted."""

    def __init__(self, ignore_label=None, axis=-1, name="perplexity", **kw):
        self.ignore_label, self.axis = ignore_label, axis
        super().__init__(name, **kw)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            p = np.moveaxis(_np(pred), self.axis, -1)
            p = p.reshape(-1, p.shape[-1])
            lab = np.asarray(_np(label)).reshape(-1)
            if lab.size != p.shape[0]:
                raise ValueError("perplexity: %d labels for %d predictions" % (lab.size, p.shape[0]))
            if self.ignore_label is not None:
                keep = lab != self.ignore_label
                lab, p = lab[keep], p[keep]
            l = _class_labels(lab, p.shape[1], self.name)
            prob = p[np.arange(l.size), l]
            self.sum_metric += float(-np.log(np.maximum(prob, 1e-10)).sum())
            self.num_inst += l.size

    def get(self):
        name, value = super().get()
        return name, float(np.exp(value))

    def get_global(self):
        name, value = super().get_global()
        return name, float(np.exp(value))


@register("loss")
class Loss(EvalMetric):
    """The mean of the outputs (for nets whose output is their loss)."""

    def __init__(self, name="loss", **kw):
        super().__init__(name, **kw)

    def update(self, _, preds):
        for pred in _listed(preds):
            p = _np(pred)
            self.sum_metric += float(p.sum())
            self.num_inst += p.size


class CompositeEvalMetric(EvalMetric):
    def __init__(self, metrics=None, name="composite", **kw):
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, **kw)

    def add(self, metric):
        self.metrics.append(create(metric))

    def reset(self):
        for m in getattr(self, "metrics", []):
            m.reset()

    def reset_local(self):
        for m in self.metrics:
            m.reset_local()

    def update(self, labels, preds):
        for m in self.metrics:
            m.update(labels, preds)

    def get(self):
        return self._collect("get")

    def get_global(self):
        return self._collect("get_global")

    def _collect(self, getter):
        names, values = [], []
        for m in self.metrics:
            n, v = getattr(m, getter)()
            names += n if isinstance(n, list) else [n]
            values += v if isinstance(v, list) else [v]
        return names, values


def create(metric, *args, **kwargs):
    """A metric from an instance, a name ('acc', 'ce', 'top_k_accuracy'), a list, or a callable."""
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, (list, tuple)):
        return CompositeEvalMetric([create(m) for m in metric])
    if isinstance(metric, str):
        try:
            return _REGISTRY[metric.lower()](*args, **kwargs)
        except KeyError:
            raise ValueError("unknown metric %r; known: %s" % (metric, ", ".join(sorted(_REGISTRY)))) from None
    if callable(metric):
        return CustomMetric(metric)
    raise TypeError("cannot make a metric from %r" % (metric,))


class CustomMetric(EvalMetric):
    def __init__(self, feval, name=None, **kw):
        self._feval = feval
        super().__init__(name or getattr(feval, "__name__", "custom"), **kw)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            self.sum_metric += float(self._feval(_np(label), _np(pred)))
            self.num_inst += 1
