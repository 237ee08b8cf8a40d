"""The base of MXNet 1.9.1's mx.optimizer.optimizer: Optimizer (its registry, register and
create_optimizer), the module-level register, and the helpers the optimizer classes share
(_MasterCopy, the float32 master-copy wrapper of the optimizers whose update op has no mp_
form; state flattening; gradient rescaling). Kept apart from the classes so that
_sgd_family.py and _adaptive.py can import it without importing optimizer.py."""
import inspect
import warnings

import numpy as np

from .. import ndarray as nd
from .. import registry as _registry_module


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


def _zeros(weight):
    return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)


class _MasterCopy(Optimizer):
    """Base of the optimizers whose update op has no mp_ form. Subclasses give _states(weight),
    the tuple of state arrays for a weight, and _step(index, weight, grad, states); _pack and
    _unpack convert between that tuple and MXNet's layout of a full-precision weight's state."""

    def _states(self, weight):
        raise NotImplementedError()

    def _step(self, index, weight, grad, states):
        raise NotImplementedError()

    def _pack(self, states):
        return states

    def _unpack(self, state):
        return state

    def create_state(self, index, weight):
        if self.multi_precision and _is_low_precision(weight):
            # MXNet's generic multi-precision layout: (float32 master copy, its state)
            master = weight.astype("float32")
            return (master, self._pack(tuple(self._states(master))))
        return self._pack(tuple(self._states(weight)))

    create_state_multi_precision = create_state

    def _master(self, weight, state):
        """The float32 master copy in `state` (laid out (master, inner state)), or None when the
        weight has none."""
        if not (_is_low_precision(weight) and isinstance(state, tuple) and len(state) == 2):
            return None
        master = state[0]
        if not isinstance(master, nd.NDArray) or master.dtype != "float32" or master.shape != weight.shape:
            return None
        return master

    def update(self, index, weight, grad, state):
        master = self._master(weight, state)
        if master is not None:
            self.update(index, master, grad.astype("float32"), state[1])
            nd.Cast(master, dtype=weight.dtype, out=weight)
        else:
            self._update_count(index)
            self._step(index, weight, grad, self._unpack(state))

    update_multi_precision = update


def _clip_kwargs(opt):
    """clip_gradient as MXNet's fused-op optimizers pass it: only when set and non-zero."""
    return {"clip_gradient": opt.clip_gradient} if opt.clip_gradient else {}


def _rescaled(opt, weight, grad, wd=0.0):
    """clip(rescale_grad*grad + wd*weight) in NDArray arithmetic (clip only when clip_gradient is
    set, as MXNet's Python optimizers do)."""
    g = grad * opt.rescale_grad
    if wd:
        g = g + wd * weight
    if opt.clip_gradient is not None:
        g = nd.clip(g, -opt.clip_gradient, opt.clip_gradient)
    return g
