"""Optimizers that update weights with fused update ops (sgd_update, sgd_mom_update)."""
from . import ndarray as nd


class Optimizer:
    """Base class: learning rate, weight decay, gradient rescaling and clipping, per-name
    lr/wd multipliers."""

    _registry = {}

    def __init__(self, learning_rate=0.01, wd=0.0, rescale_grad=1.0, clip_gradient=None,
                 lr_scheduler=None, param_idx2name=None, multi_precision=False, **kwargs):
        if kwargs:
            raise TypeError("unknown optimizer arguments: %s" % ", ".join(sorted(kwargs)))
        self.lr = learning_rate
        self.wd = wd
        self.rescale_grad = rescale_grad
        self.clip_gradient = clip_gradient
        self.lr_scheduler = lr_scheduler
        self.multi_precision = multi_precision
        self.idx2name = dict(param_idx2name or {})
        self.lr_mult = {}
        self.wd_mult = {}
        self.num_update = 0
        self._index_update_count = {}

    @classmethod
    def register(cls, klass):
        cls._registry[klass.__name__.lower()] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        try:
            return Optimizer._registry[name.lower()](**kwargs)
        except KeyError:
            raise ValueError("unknown optimizer '%s'; known: %s"
                             % (name, ", ".join(sorted(Optimizer._registry)))) from None

    def set_learning_rate(self, lr):
        self.lr = lr

    def set_lr_mult(self, args_lr_mult):
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        self.wd_mult.update(args_wd_mult)

    def _update_count(self, index):
        count = self._index_update_count.get(index, 0) + 1
        self._index_update_count[index] = count
        self.num_update = max(self.num_update, count)

    def _get_lr(self, index):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler else self.lr
        return lr * self.lr_mult.get(self.idx2name.get(index, index), 1.0)

    def _get_wd(self, index):
        return self.wd * self.wd_mult.get(self.idx2name.get(index, index), 1.0)

    def _common_params(self, index):
        p = {"lr": self._get_lr(index), "wd": self._get_wd(index), "rescale_grad": self.rescale_grad}
        if self.clip_gradient is not None:
            p["clip_gradient"] = self.clip_gradient
        return p

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        raise NotImplementedError()


@Optimizer.register
class SGD(Optimizer):
    """SGD with optional momentum: mom = momentum*mom - lr*(wd*w + clip(rescale_grad*g));
    w += mom (or w -= lr*(...) without momentum)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        p = self._common_params(index)
        if state is not None:
            nd.sgd_mom_update(weight, grad, state, out=weight, momentum=self.momentum, **p)
        else:
            nd.sgd_update(weight, grad, out=weight, **p)


def create(name, **kwargs):
    """An optimizer by name: create('sgd', learning_rate=0.1, momentum=0.9)."""
    if isinstance(name, Optimizer):
        return name
    return Optimizer.create_optimizer(name, **kwargs)


class Updater:
    """Applies an optimizer to (index, grad, weight) triples, keeping per-index state."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}

    def __call__(self, index, grad, weight):
        if index not in self.states:
            self.states[index] = self.optimizer.create_state(index, weight)
        self.optimizer.update(index, weight, grad, self.states[index])


def get_updater(optimizer):
    return Updater(optimizer)
