"""Evaluation metrics (MXNet's): Accuracy, TopKAccuracy, CrossEntropy, NegativeLogLikelihood,
Perplexity, MAE, MSE, RMSE, F1, MCC, PearsonCorrelation, Loss, CompositeEvalMetric, CustomMetric,
and metric.create('acc'), with MXNet 1.9.1's names, defaults and per-batch averaging."""
import json

import numpy as np

from .base import MXNetError
from .ndarray import NDArray

_REGISTRY = {}


def register(*names):
    """Registers a metric class under its own name (lower case, as MXNet's registry keys it, so
    that get_config's 'metric': 'TopKAccuracy' finds it) and under the given aliases."""
    def deco(klass):
        for n in (klass.__name__,) + names:
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
    """Base of the metrics. Keyword arguments beyond the names are the subclass's settings, kept
    for get_config (as MXNet keeps them)."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names, self.label_names = output_names, label_names
        kwargs.pop("has_global_stats", None)  # MXNet's flag; every symnet metric keeps global totals
        self._kwargs = kwargs
        self.reset()

    def get_config(self):
        """The settings that metric.create(config) (or create(json.dumps(config))) builds the same
        metric from: the class name under 'metric', the name, output and label names, and the
        subclass's own arguments."""
        config = dict(self._kwargs)
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

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
        super().__init__(name, axis=axis, **kw)

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
        self._base_name = name
        super().__init__("%s_%d" % (name, top_k), top_k=top_k, **kw)

    def get_config(self):
        # the name as given: MXNet's config holds the suffixed one, so its copy reads
        # 'top_k_accuracy_3_3'
        config = super().get_config()
        config["name"] = self._base_name
        return config

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
        super().__init__(name, eps=eps, **kw)

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
        # MXNet leaves `average` out of get_config, so a micro metric comes back macro; kept here
        super().__init__(name, average=average, **kw)

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


def _clipped_class_labels(lab, num_classes):
    """Labels as class indices the way MXNet's Perplexity reads them: cast to int32 (truncating
    toward zero) and picked in pick's default 'clip' mode, so a label past the last class reads
    the last class and a negative one the first. Language-model data relies on it (MXNet's own
    bucketing test feeds label 50 with 50 classes). NaN reads as class 0 (x86's float-to-int
    gives INT_MIN, which clips to 0)."""
    lab = np.nan_to_num(np.asarray(lab, dtype=np.float64), nan=0.0, posinf=num_classes,
                        neginf=0.0)
    return np.clip(np.trunc(lab), 0, num_classes - 1).astype(np.int64)


@register("perplexity")
class Perplexity(EvalMetric):
    """exp of the mean negative log-likelihood of the labels (MXNet's Perplexity): predictions are
    probabilities over `axis`; labels equal to ignore_label (padding) are not counted. Labels out
    of range are clipped to the nearest class, not refused (MXNet's pick in 'clip' mode)."""

    def __init__(self, ignore_label=None, axis=-1, name="perplexity", **kw):
        self.ignore_label, self.axis = ignore_label, axis
        # get_config has `axis` too (MXNet's lacks it, so its copy would use axis -1)
        super().__init__(name, ignore_label=ignore_label, axis=axis, **kw)

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
            l = _clipped_class_labels(lab, p.shape[1])
            prob = p[np.arange(l.size), l]
            self.sum_metric += float(-np.log(np.maximum(prob, 1e-10)).sum())
            self.num_inst += l.size

    def get(self):
        name, value = super().get()
        return name, float(np.exp(value))

    def get_global(self):
        name, value = super().get_global()
        return name, float(np.exp(value))


@register()
class PCC(EvalMetric):
    """MXNet's PCC: the multiclass form of Matthews' correlation, computed from the confusion
    matrix of every update since the last reset (get) or since reset (get_global), not averaged
    over batches. Predictions are class scores (argmax over axis 1) or class indices shaped like
    the labels; the matrix grows to the largest class seen. NaN while a row or column sum leaves
    no variance (a single class predicted or present)."""

    def __init__(self, name="pcc", **kw):
        self.k = 2
        super().__init__(name, **kw)

    @staticmethod
    def _score(cm):
        n = cm.sum()
        pred_tot, true_tot = cm.sum(axis=1), cm.sum(axis=0)
        var_pred, var_true = np.sum(pred_tot * (n - pred_tot)), np.sum(true_tot * (n - true_tot))
        if var_pred == 0 or var_true == 0:
            return float("nan")
        return float(np.sum(cm.diagonal() * n - pred_tot * true_tot) / (var_pred * var_true) ** 0.5)

    def _grow(self, k):
        pad = ((0, k - self.k), (0, k - self.k))
        self._lcm, self._gcm = np.pad(self._lcm, pad), np.pad(self._gcm, pad)
        self.k = k

    def reset(self):
        self.global_num_inst = 0
        self._gcm = np.zeros((self.k, self.k))
        self.num_inst = 0
        self._lcm = np.zeros((self.k, self.k))

    def reset_local(self):
        self.num_inst = 0
        self._lcm = np.zeros((self.k, self.k))

    # as in MXNet, the sums are views of the confusion matrices (score times update count)
    @property
    def sum_metric(self):
        return self._score(self._lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._score(self._gcm) * self.global_num_inst

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            lab, p = _np(label).astype(np.int64), _np(pred)
            p = p.argmax(axis=1) if p.shape != lab.shape else p.astype(np.int64)
            lab, p = lab.ravel(), p.ravel()
            if lab.size != p.size:
                raise ValueError("metric %s: %d labels for %d predictions" % (self.name, lab.size, p.size))
            if lab.size and ((lab < 0).any() or (p < 0).any()):
                raise ValueError("metric %s: class indices must not be negative" % self.name)
            top = int(max(p.max(initial=0), lab.max(initial=0))) + 1
            if top > self.k:
                self._grow(top)
            cm = np.zeros((self.k, self.k))
            np.add.at(cm, (p, lab), 1)
            self._lcm += cm
            self._gcm += cm
        # one instance per update call, not per sample (MXNet's counting)
        self.num_inst += 1
        self.global_num_inst += 1

    def get_global(self):
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, self._score(self._gcm)


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


@register()
class Torch(Loss):
    """MXNet's Loss metric under the name 'torch'."""

    def __init__(self, name="torch", **kw):
        super().__init__(name, **kw)


@register()
class Caffe(Loss):
    """MXNet's Loss metric under the name 'caffe'."""

    def __init__(self, name="caffe", **kw):
        super().__init__(name, **kw)


@register("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; get returns their names and values as lists. `metrics`
    may hold metrics, names or get_config dicts."""

    def __init__(self, metrics=None, name="composite", **kw):
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, **kw)

    def get_config(self):
        config = super().get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config

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


def create(metric=None, *args, **kwargs):
    """A metric from an instance, a registered name ('acc', 'ce', 'TopKAccuracy'), a get_config
    dict or its JSON text, MXNet's '["name", {kwargs}]' text, a list (a CompositeEvalMetric whose
    children get the same arguments), or a function (label, pred) -> value (a CustomMetric)."""
    if metric is None:
        if "metric" not in kwargs:
            raise TypeError("metric.create needs a metric (a name, a config or a function)")
        metric = kwargs.pop("metric")
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise ValueError("metric.create: %r is already a metric; it takes no further arguments" % metric)
        return metric
    if isinstance(metric, (list, tuple)):
        return CompositeEvalMetric([create(m, *args, **kwargs) for m in metric])
    if isinstance(metric, dict):
        return create(**metric)
    if isinstance(metric, str):
        text = metric.strip()
        if text.startswith(("[", "{")):
            if args or kwargs:
                raise ValueError("metric.create: a JSON config takes no further arguments")
            config = json.loads(text)
            if isinstance(config, dict):
                return create(**config)
            name, config = config
            return create(name, **config)
        try:
            klass = _REGISTRY[metric.lower()]
        except KeyError:
            raise ValueError("unknown metric %r; known: %s" % (metric, ", ".join(sorted(_REGISTRY)))) from None
        return klass(*args, **kwargs)
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    raise TypeError("cannot make a metric from %r" % (metric,))


@register()
class CustomMetric(EvalMetric):
    """A metric from a function feval(label, pred) of NumPy arrays that returns a value (one
    instance) or a (sum, count) pair. allow_extra_outputs: more predictions than labels is not an
    error (the extra ones, e.g. an RNN's states, are skipped)."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, **kw):
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs
        if name is None:
            name = getattr(feval, "__name__", "custom")
            name = "custom(%s)" % name if "<" in name else name  # MXNet's name for a lambda
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs, **kw)

    def update(self, labels, preds):
        if self._allow_extra_outputs:
            pairs = zip(_listed(labels), _listed(preds))
        else:
            pairs = _pairs(labels, preds)
        for label, pred in pairs:
            value = self._feval(_np(label), _np(pred))
            if isinstance(value, tuple):
                self.sum_metric += float(value[0])
                self.num_inst += value[1]
            else:
                self.sum_metric += float(value)
                self.num_inst += 1

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized: its function is not data")
