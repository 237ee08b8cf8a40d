"""Optimizers that update weights with fused update ops (sgd_update, sgd_mom_update, ...): SGD,
NAG and Adam here; RMSProp, AdaGrad, AdaDelta, AdamW, LAMB, LARS, Ftrl, Signum and SignSGD in
_optimizers_extra.py, imported at the end of this module."""
import inspect
import warnings

import numpy as np

from . import ndarray as nd
from . import registry as _registry_module


class Optimizer:
    """Base class: learning rate, weight decay, gradient rescaling and clipping, per-name
    lr/wd multipliers."""

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None, **kwargs):
        if kwargs:
            raise TypeError("unknown optimizer arguments for %s: %s (it accepts: %s)"
                            % (type(self).__name__, ", ".join(sorted(kwargs)),
                               ", ".join(self._accepted_arguments())))
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None and lr_scheduler.base_lr != learning_rate:
            # as MXNet: an explicit learning_rate wins over the scheduler's base_lr (MXNet prints
            # the UserWarning rather than raising it)
            print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by "
                              "``learning_rate`` in optimizer."))
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._index_update_count = {}
        self.idx2name = dict(param_idx2name or {})
        # (attribute dict, argument names) of sym: its variables' lr_mult / wd_mult attributes
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        # gluon.Trainer's index -> Parameter: each Parameter's current lr_mult / wd_mult apply
        self.param_dict = param_dict if param_dict else {}
        self.set_lr_mult({})
        self.set_wd_mult({})

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)  # Parameters are not part of a saved optimizer (as MXNet)
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}

    @property
    def learning_rate(self):
        """The current base learning rate: the scheduler's at num_update, or lr."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    @classmethod
    def _accepted_arguments(cls):
        """The keyword arguments the constructors of cls and of its bases take."""
        names = []
        for klass in cls.__mro__:
            init = klass.__dict__.get("__init__")
            if init is None:
                continue
            for p in inspect.signature(init).parameters.values():
                if p.kind == p.POSITIONAL_OR_KEYWORD and p.name != "self" and p.name not in names:
                    names.append(p.name)
        return sorted(names)

    @staticmethod
    def register(klass):
        """Files an Optimizer subclass under its lower-cased class name (create('myopt') then
        finds class MyOpt); returns the class, so it works as a decorator. A second class of the
        same name replaces the first, with a warning."""
        assert isinstance(klass, type), "Optimizer.register takes a class, not %r" % (klass,)
        name = klass.__name__.lower()
        old = Optimizer.opt_registry.get(name)
        if old is not None and old is not klass:
            warnings.warn("WARNING: New optimizer %s.%s is overriding existing optimizer %s.%s"
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__),
                          stacklevel=2)
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An instance of the optimizer registered as `name` (any case) with kwargs."""
        try:
            return Optimizer.opt_registry[name.lower()](**kwargs)
        except KeyError:
            raise ValueError("unknown optimizer '%s'; known: %s"
                             % (name, ", ".join(sorted(Optimizer.opt_registry)))) from None

    def set_learning_rate(self, lr):
        """Sets lr; with a scheduler that owns the rate, raises UserWarning as MXNet does."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of the "
                              "optimizer only when the LRScheduler of the optimizer is undefined.")
        self.lr = lr

    def set_lr_mult(self, args_lr_mult):
        """Replaces the lr multipliers: sym's __lr_mult__ attributes, then args_lr_mult (keys
        are names or indices)."""
        self.lr_mult = self._sym_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Replaces the wd multipliers: 0 for named parameters that are not *_weight or *_gamma,
        sym's __wd_mult__ attributes, then args_wd_mult."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values()
                        if not (n.endswith("_weight") or n.endswith("_gamma"))}
        self.wd_mult.update(self._sym_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _sym_mults(self, key):
        mults = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    mults[name] = float(attr[name][key])
        return mults

    def same_step_on_devices(self, device_updates):
        """Runs each device's update (a function of no arguments) as one step: every device
        sees the step counters as they were before the step (Adam's bias correction, a
        scheduler's rate), and they advance once, not once per device. MXNet 1.x keeps a count
        per device for this; Module and gluon.Trainer both go through here."""
        before = (self.num_update, dict(self._index_update_count))
        after = None
        for d, update in enumerate(device_updates):
            if d > 0:
                self.num_update, self._index_update_count = before[0], dict(before[1])
            update()
            if d == 0:
                after = (self.num_update, dict(self._index_update_count))
        if after is not None:
            self.num_update, self._index_update_count = after

    def _update_count(self, index):
        """Counts one more update of index (or of each index in a list); counts start at
        begin_num_update."""
        for idx in (index if isinstance(index, (list, tuple)) else [index]):
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(self.num_update, count)

    def _mults(self, indices, base, table, attr):
        """base times each index's multiplier: its Parameter's (param_dict), else the one filed
        under the index, else the one under its name, as MXNet looks them up."""
        out = []
        for index in indices:
            if index in self.param_dict:
                out.append(base * getattr(self.param_dict[index], attr))
            elif index in table:
                out.append(base * table[index])
            elif index in self.idx2name:
                out.append(base * table.get(self.idx2name[index], 1.0))
            else:
                out.append(base)
        return out

    def _get_lrs(self, indices):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return self._mults(indices, lr, self.lr_mult, "lr_mult")

    def _get_wds(self, indices):
        return self._mults(indices, self.wd, self.wd_mult, "wd_mult")

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def _common_params(self, index):
        p = {"lr": self._get_lr(index), "wd": self._get_wd(index), "rescale_grad": self.rescale_grad}
        if self.clip_gradient is not None:
            p["clip_gradient"] = self.clip_gradient
        return p

    def create_state(self, index, weight):
        return None

    def create_state_multi_precision(self, index, weight):
        """create_state, for a float16 weight under multi_precision on a float32 master copy:
        (master, create_state(index, master)), MXNet's generic layout."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (master,) + (self.create_state(index, master),)
        if weight.dtype == np.float16:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow "
                          "convergence. Consider using multi_precision=True option of the optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise NotImplementedError()

    def update_multi_precision(self, index, weight, grad, state):
        """update, for a float16 weight under multi_precision on the master copy of
        create_state_multi_precision's state with a float32 gradient; the weight becomes the
        master copy rounded."""
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state[0], state[1]
            self.update(index, master, grad.astype(np.float32), inner)
            nd.Cast(master, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)


# Optimizer.opt_registry (name -> class, filled by register) is mx.registry's entry for Optimizer
# itself, so get_create_func(Optimizer, 'optimizer') finds what register filed, and the other way
Optimizer.opt_registry = Optimizer._registry = _registry_module._registry_of(Optimizer)

_LOW_PRECISION = ("float16", "bfloat16")


def _is_low_precision(arr):
    return arr.handle.dtype in _LOW_PRECISION


@Optimizer.register
class SGD(Optimizer):
    """SGD with optional momentum: mom = momentum*mom - lr*(wd*w + clip(rescale_grad*g));
    w += mom (or w -= lr*(...) without momentum). With multi_precision, 16-bit weights get a
    float32 master copy (and float32 momentum) that the update works on; the 16-bit weight is
    its rounding. update_multi() updates many weights with one fused op call."""

    #: weights per fused multi_* call
    aggregate_num = 60

    def __init__(self, momentum=0.0, lazy_update=True, nesterov=False, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.nesterov = bool(nesterov)  # (nag_)mom_update: MXNet's NAG, PyTorch's nesterov=True

    def create_state(self, index, weight):
        if self.multi_precision and _is_low_precision(weight):
            mom = nd.zeros(weight.shape, weight.context, dtype="float32") if self.momentum else None
            return (mom, weight.astype("float32"))
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)

    create_state_multi_precision = create_state

    def update(self, index, weight, grad, state):
        self._update_count(index)
        p = self._common_params(index)
        kind = "nag" if self.nesterov else "sgd"
        if isinstance(state, tuple):  # (momentum or None, float32 master weight)
            mom, w32 = state
            if mom is not None:
                getattr(nd, "mp_%s_mom_update" % kind)(weight, grad, mom, w32, out=weight,
                                                       momentum=self.momentum, **p)
            else:
                nd.mp_sgd_update(weight, grad, w32, out=weight, **p)
        elif state is not None:
            getattr(nd, "%s_mom_update" % kind)(weight, grad, state, out=weight, momentum=self.momentum, **p)
        else:
            nd.sgd_update(weight, grad, out=weight, **p)

    update_multi_precision = update

    def update_multi(self, indices, weights, grads, states):
        """Updates all given weights with fused multi_(mp_)sgd(_mom)_update calls, grouping the
        weights that share a state layout. (Nesterov has no fused form: one call per weight.)"""
        if self.nesterov:
            for i, w, g, s in zip(indices, weights, grads, states):
                self.update(i, w, g, s)
            return
        groups = {}
        for i, w, g, s in zip(indices, weights, grads, states):
            self._update_count(i)
            mp = isinstance(s, tuple)
            mom = (s[0] if mp else s) is not None
            groups.setdefault((mp, mom), []).append((i, w, g, s))
        for (mp, mom), items in groups.items():
            op = "multi_%ssgd_%supdate" % ("mp_" if mp else "", "mom_" if mom else "")
            for start in range(0, len(items), self.aggregate_num):
                chunk = items[start:start + self.aggregate_num]
                inputs = []
                for _, w, g, s in chunk:
                    inputs += [w, g]
                    if mp:
                        inputs += ([s[0]] if mom else []) + [s[1]]
                    elif mom:
                        inputs.append(s)
                params = {"lrs": tuple(self._get_lr(i) for i, _, _, _ in chunk),
                          "wds": tuple(self._get_wd(i) for i, _, _, _ in chunk),
                          "rescale_grad": self.rescale_grad, "num_weights": len(chunk)}
                if mom:
                    params["momentum"] = self.momentum
                if self.clip_gradient is not None:
                    params["clip_gradient"] = self.clip_gradient
                getattr(nd, op)(*inputs, out=[w for _, w, _, _ in chunk], **params)


@Optimizer.register
class NAG(Optimizer):
    """MXNet 1.9.1's NAG. Its state is the velocity in weight units: with
    g = clip(rescale_grad*grad), w += momentum^2*mom - lr*(momentum+1)*(g + wd*w), then
    mom = momentum*mom - lr*(g + wd*w) with the new w (what MXNet's nag_mom_update computes when
    its output is the weight). Without momentum it is sgd_update. multi_precision: (mom or None,
    float32 master weight) for 16-bit weights, as MXNet lays it out."""

    def __init__(self, momentum=0.0, **kwargs):
        kwargs.pop("nesterov", None)
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        if self.multi_precision and _is_low_precision(weight):
            master = weight.astype("float32")
            return (self.create_state(index, master), master)
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)

    create_state_multi_precision = create_state

    def _step(self, index, weight, grad, mom):
        lr, wd = self._get_lr(index), self._get_wd(index)
        if mom is None:
            kw = {"clip_gradient": self.clip_gradient} if self.clip_gradient else {}
            nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, rescale_grad=self.rescale_grad, **kw)
            return
        # symnet's nag_mom_update keeps the gradient-unit momentum (state = momentum*state + g'),
        # so MXNet's velocity form runs as NDArray arithmetic here
        g = grad * self.rescale_grad
        if self.clip_gradient:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        weight[:] = weight + (self.momentum ** 2 * mom) - lr * (self.momentum + 1) * (g + wd * weight)
        mom[:] = self.momentum * mom - lr * (g + wd * weight)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        if isinstance(state, tuple):  # (momentum or None, float32 master weight)
            mom, master = state
            self._step(index, master, grad.astype("float32"), mom)
            nd.Cast(master, dtype=weight.dtype, out=weight)
        else:
            self._step(index, weight, grad, state)

    update_multi_precision = update

    def update_multi(self, indices, weights, grads, states):
        for i, w, g, s in zip(indices, weights, grads, states):
            self.update(i, w, g, s)


@Optimizer.register
class Adam(Optimizer):
    """Adam (MXNet's update with bias correction folded into the learning rate); float32
    master weights for 16-bit weights with multi_precision."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        if self.multi_precision and _is_low_precision(weight):
            # MXNet's generic multi-precision layout: (float32 master, (mean, var) in float32)
            master = weight.astype("float32")
            return (master, self.create_state(index, master))
        z = lambda: nd.zeros(weight.shape, weight.context, dtype=weight.dtype)  # noqa: E731
        return (z(), z())

    create_state_multi_precision = create_state

    def update(self, index, weight, grad, state):
        self._update_count(index)
        t = self._index_update_count[index]
        p = self._common_params(index)
        p["lr"] *= (1.0 - self.beta2 ** t) ** 0.5 / (1.0 - self.beta1 ** t)
        kw = dict(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon, **p)
        if isinstance(state[1], tuple):
            master, (mean, var) = state
            nd.mp_adam_update(weight, grad, mean, var, master, out=weight, **kw)
        else:
            nd.adam_update(weight, grad, state[0], state[1], out=weight, **kw)

    update_multi_precision = update


def _flat_state(state):
    """The arrays (and Nones) of an optimizer state in order, nested tuples flattened: MXNet's
    multi-precision layout (master, (mean, var)) nests one tuple in another."""
    if isinstance(state, (tuple, list)):
        return [leaf for part in state for leaf in _flat_state(part)]
    return [state]


def _nest_state(leaves, template):
    """_flat_state's inverse: leaves put back into the tuple structure of template (a state
    create_state made)."""
    leaves = iter(leaves)

    def build(t):
        if isinstance(t, (tuple, list)):
            return tuple(build(part) for part in t)
        return next(leaves)
    return build(template)


#: MXNet's module-level name of Optimizer.register: @mx.optimizer.register
register = Optimizer.register

# the other optimizers register themselves on import
from ._optimizers_extra import (DCASGD, FTML, LAMB, LARS, SGLD, AdaDelta, AdaGrad, Adamax,  # noqa: E402,F401
                                AdamW, Ftrl, Nadam, RMSProp, SignSGD, Signum, Test, ccSGD)
# mx.optimizer.contrib.GroupAdaGrad, as in MXNet
from . import _optimizer_contrib as contrib  # noqa: E402,F401


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
        """One update, or one per element when index, grad and weight are lists (MXNet's
        aggregated call); states are made and updates run by the *_multi_precision methods, as
        MXNet's Updater does, so float16 weights get their master copies."""
        if isinstance(index, (list, tuple)):
            for i, g, w in zip(index, grad, weight):
                self(i, g, w)
            return
        if index not in self.states:
            self.states[index] = self.optimizer.create_state_multi_precision(index, weight)
        self.optimizer.update_multi_precision(index, weight, grad, self.states[index])

    def sync_state_context(self, state, context):
        """state (an array, or nested tuples and lists of them) copied to context."""
        if isinstance(state, nd.NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state


def get_updater(optimizer):
    return Updater(optimizer)

__all__ = ["Optimizer", "SGD", "NAG", "Adam", "AdamW", "RMSProp", "AdaGrad", "AdaDelta", "LAMB",
           "LARS", "Ftrl", "Signum", "SignSGD", "SGLD", "FTML", "Adamax", "Nadam", "DCASGD", "Test", "ccSGD",
           "create", "Updater", "get_updater", "register"]
