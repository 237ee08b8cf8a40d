"""Evaluation metrics (MXNet's): Accuracy, TopKAccuracy, CrossEntropy, NegativeLogLikelihood,
Perplexity, MAE, MSE, RMSE, F1, MCC, PearsonCorrelation, Loss, CompositeEvalMetric, CustomMetric,
and metric.create('acc'), with MXNet 1.9.1's names, defaults and per-batch averaging."""
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


@register("nll_loss", "negativeloglikelihood")
class NegativeLogLikelihood(CrossEntropy):
    """The mean negative log-likelihood of the labels under the predicted probabilities."""

    def __init__(self, eps=1e-12, name="nll-loss", **kw):
        super().__init__(eps=eps, name=name, **kw)


class _PerBatch(EvalMetric):
    """Regression metrics as MXNet 1.x computes them: one value per (label, prediction) pair,
    averaged over the pairs (not over the elements). 1-D arrays count as (N, 1)."""

    def _value(self, err):
        raise NotImplementedError()

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            l, p = _np(label).astype(np.float64), _np(pred).astype(np.float64)
            l = l.reshape(-1, 1) if l.ndim == 1 else l
            p = p.reshape(-1, 1) if p.ndim == 1 else p
            if l.shape[0] != p.shape[0]:
                raise ValueError("metric %s: %d labels for %d predictions" % (self.name, l.shape[0], p.shape[0]))
            self.sum_metric += float(self._value(l - p))
            self.num_inst += 1


@register("mae")
class MAE(_PerBatch):
    def __init__(self, name="mae", **kw):
        super().__init__(name, **kw)

    def _value(self, err):
        return np.abs(err).mean()


@register("mse")
class MSE(_PerBatch):
    def __init__(self, name="mse", **kw):
        super().__init__(name, **kw)

    def _value(self, err):
        return (err ** 2).mean()


@register("rmse")
class RMSE(_PerBatch):
    def __init__(self, name="rmse", **kw):
        super().__init__(name, **kw)

    def _value(self, err):
        return np.sqrt((err ** 2).mean())


class _Counted(EvalMetric):
    """Metrics computed from counts that do not add up as values (F1, MCC, Pearson's r):
    average='macro' scores each update call and averages the scores, as MXNet does by default;
    'micro' scores the counts of every update since the last reset (get) or since reset (get_global).
    As in MXNet, a micro metric's num_inst is the number of samples its counts hold (a macro
    one's the number of scores averaged), and sum_metric is the score times that number."""

    def __init__(self, name, average="macro", **kw):
        if average not in ("macro", "micro"):
            raise ValueError("metric %s: average must be 'macro' or 'micro', got %r" % (name, average))
        self.average = average
        super().__init__(name, **kw)

    def _zero(self):
        raise NotImplementedError()

    def _score(self, counts):
        raise NotImplementedError()

    def _count(self, label, pred):
        raise NotImplementedError()

    def reset(self):
        super().reset()
        self._local, self._global = self._zero(), self._zero()

    def reset_local(self):
        if self.average == "micro":
            self._global = self._global + self._local
            self._local = self._zero()
        super().reset_local()

    def _samples(self, counts):
        """How many samples `counts` hold."""
        raise NotImplementedError()

    def _add_micro(self, counts):
        self._local = self._local + counts
        self.num_inst = self._samples(self._local)
        self.sum_metric = self._score(self._local) * self.num_inst if self.num_inst else 0.0

    def update(self, labels, preds):
        counts = self._zero()
        for label, pred in _pairs(labels, preds):
            counts = counts + self._count(label, pred)
        if self.average == "macro":
            self.sum_metric += self._score(counts)
            self.num_inst += 1
        else:
            self._add_micro(counts)

    def get(self):
        if self.average == "macro" or self.num_inst == 0:
            return super().get()
        return self.name, self._score(self._local)

    def get_global(self):
        if self.average == "macro" or self.global_num_inst + self.num_inst == 0:
            return super().get_global()
        return self.name, self._score(self._global + self._local)


class _Binary(_Counted):
    """Binary classification counts (tp, fp, fn, tn): predictions (N, 2) of which the larger
    column is the predicted class, labels 0 or 1."""

    def _zero(self):
        return np.zeros(4)

    def _samples(self, counts):
        return int(counts.sum())  # tp + fp + fn + tn

    def _count(self, label, pred):
        p = _np(pred)
        if p.ndim != 2:
            raise ValueError("metric %s: predictions must be (batch, 2) scores, got shape %s" % (self.name, p.shape))
        lab = _class_labels(label, p.shape[1], self.name)
        if lab.size != p.shape[0]:
            raise ValueError("metric %s: %d labels for %d predictions" % (self.name, lab.size, p.shape[0]))
        if p.shape[1] != 2 or (lab > 1).any():
            raise ValueError("metric %s supports binary classification only (2 classes), got %d"
                             % (self.name, max(p.shape[1], int(lab.max()) + 1)))
        yes, truth = p.argmax(axis=1) == 1, lab == 1
        return np.array([(yes & truth).sum(), (yes & ~truth).sum(), (~yes & truth).sum(),
                         (~yes & ~truth).sum()], dtype=np.float64)


@register("f1")
class F1(_Binary):
    """2 * precision * recall / (precision + recall) of class 1 (0 when undefined)."""

    def __init__(self, name="f1", average="macro", **kw):
        super().__init__(name, average=average, **kw)

    def _score(self, c):
        tp, fp, fn, _ = c
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


@register("mcc")
class MCC(_Binary):
    """Matthews' correlation coefficient; factors of the denominator that are 0 count as 1 (as in
    MXNet), so a constant prediction scores 0."""

    def __init__(self, name="mcc", average="macro", **kw):
        super().__init__(name, average=average, **kw)

    def _score(self, c):
        tp, fp, fn, tn = c
        if c.sum() == 0:
            return 0.0
        denom = 1.0
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            denom *= t if t != 0 else 1.0
        return float((tp * tn - fp * fn) / np.sqrt(denom))


@register("pearsonr", "pearsoncorrelation")
class PearsonCorrelation(_Counted):
    """Pearson's correlation of predictions and labels (flattened, same shape)."""

    def __init__(self, name="pearsonr", average="macro", **kw):
        super().__init__(name, average=average, **kw)

    def _zero(self):
        return np.zeros(6)  # n, sum x, sum y, sum x^2, sum y^2, sum xy

    def update(self, labels, preds):
        # unlike F1 and MCC, MXNet's Pearson's r counts each (label, prediction) pair as one
        # instance: macro averages one score per pair, micro pools the pairs' values
        for label, pred in _pairs(labels, preds):
            counts = self._count(label, pred)
            if self.average == "macro":
                self.sum_metric += self._score(counts)
            else:
                self._local = self._local + counts
            self.num_inst += 1

    def _count(self, label, pred):
        l, p = _np(label), _np(pred)
        if l.shape != p.shape:
            raise ValueError("metric %s: labels %s and predictions %s differ in shape" % (self.name, l.shape, p.shape))
        y, x = l.astype(np.float64).ravel(), p.astype(np.float64).ravel()
        return np.array([x.size, x.sum(), y.sum(), (x * x).sum(), (y * y).sum(), (x * y).sum()])

    def _score(self, c):
        n, sx, sy, sxx, syy, sxy = c
        cov, vx, vy = sxy - sx * sy / n, sxx - sx * sx / n, syy - sy * sy / n
        return float(cov / np.sqrt(vx * vy))


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
