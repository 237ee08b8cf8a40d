"""MXNet 1.9.1's mx.optimizer.optimizer: optimizers that update weights with fused update ops
(sgd_update, sgd_mom_update, ...), create, Updater and get_updater.

SGD, NAG and Adam come first; then, under MXNet 1.9.1's names, with its constructor
arguments, defaults and numbers: RMSProp (and centered), AdaGrad, AdaDelta, Ftrl, Signum,
SignSGD, LAMB, LARS, SGLD, FTML, Adamax, Nadam, DCASGD, Test, ccSGD, and AdamW (MXNet 2.0's
optimizer over 1.9.1's contrib.adamw_update op).

With multi_precision, a 16-bit weight gets a float32 master copy at the end of its state. LAMB,
AdamW and LARS use their mp_ update ops; the others update the master copy with the float32
gradient and round it into the weight, as MXNet's generic multi-precision wrapper does.

Optimizer.register files each class under its lower-case name (create('rmsprop'), ...).
mx.nd.contrib.adamw_update and mp_adamw_update take a number for rescale_grad, as in MXNet
(see _contrib_adamw)."""
import inspect
import math
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


@Optimizer.register
class RMSProp(_MasterCopy):
    """RMSProp: Tieleman & Hinton's (rmsprop_update: n = (1-gamma1)*g^2 + gamma1*n;
    w -= lr*g/sqrt(n + epsilon)) or, with centered=True, Graves' (rmspropalex_update, with the
    average gradient subtracted and a gamma2 momentum), g = clip(rescale_grad*grad + wd*w).
    clip_weights clips the new weights to [-clip_weights, clip_weights]."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1, self.gamma2, self.epsilon = gamma1, gamma2, epsilon
        self.centered, self.clip_weights = centered, clip_weights

    def _states(self, weight):
        return (_zeros(weight), _zeros(weight), _zeros(weight)) if self.centered else (_zeros(weight),)

    def _step(self, index, weight, grad, states):
        kw = dict(lr=self._get_lr(index), wd=self._get_wd(index), gamma1=self.gamma1,
                  epsilon=self.epsilon, rescale_grad=self.rescale_grad, **_clip_kwargs(self))
        if self.clip_weights:
            kw["clip_weights"] = self.clip_weights
        if self.centered:
            n, g, delta = states
            nd.rmspropalex_update(weight, grad, n, g, delta, out=weight, gamma2=self.gamma2, **kw)
        else:
            (n,) = states
            nd.rmsprop_update(weight, grad, n, out=weight, **kw)


@Optimizer.register
class AdaGrad(_MasterCopy):
    """AdaGrad (Duchi et al.): g = clip(rescale_grad*grad); history += g^2;
    w -= lr*(g/sqrt(history + eps) + wd*w). The state is the history."""

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def _states(self, weight):
        return (_zeros(weight),)

    def _pack(self, states):
        return states[0]

    def _unpack(self, state):
        return (state,)

    def _step(self, index, weight, grad, states):
        (history,) = states
        lr, wd = self._get_lr(index), self._get_wd(index)
        # MXNet's sequence of float32 operations, so that the roundings agree
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        history[:] = history + nd.square(grad)
        div = grad / nd.sqrt(history + self.float_stable_eps)
        weight[:] = weight + (div + weight * wd) * -lr


@Optimizer.register
class AdaDelta(_MasterCopy):
    """AdaDelta (Zeiler): g = clip(rescale_grad*grad); acc_g = rho*acc_g + (1-rho)*g^2;
    delta = sqrt(acc_delta + epsilon)/sqrt(acc_g + epsilon)*g;
    acc_delta = rho*acc_delta + (1-rho)*delta^2; w -= delta + wd*w. No learning rate."""

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho, self.epsilon = rho, epsilon

    def _states(self, weight):
        return (_zeros(weight), _zeros(weight))

    def _step(self, index, weight, grad, states):
        wd = self._get_wd(index)
        acc_g, acc_delta = states
        grad = grad * self.rescale_grad  # MXNet scales the caller's gradient in place; not here
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        acc_g[:] = acc_g * self.rho + (1.0 - self.rho) * grad * grad
        delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * grad
        acc_delta[:] = acc_delta * self.rho + (1.0 - self.rho) * delta * delta
        weight[:] = weight - (delta + wd * weight)


@Optimizer.register
class Ftrl(_MasterCopy):
    """FTRL-Proximal (McMahan et al.) with L1 strength lamda1 and per-coordinate learning rates
    lr/(beta + sqrt(n)); wd is the L2 strength (ftrl_update). The state is (z, n)."""

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.lamda1, self.beta = lamda1, beta

    def _states(self, weight):
        return (_zeros(weight), _zeros(weight))

    def _step(self, index, weight, grad, states):
        z, n = states
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=self._get_lr(index), wd=self._get_wd(index),
                       lamda1=self.lamda1, beta=self.beta, rescale_grad=self.rescale_grad,
                       **_clip_kwargs(self))


@Optimizer.register
class Signum(_MasterCopy):
    """Signum (Bernstein et al.): mom = momentum*mom - (1-momentum)*(wd*w + g);
    w = (1 - lr*wd_lh)*w + lr*sign(mom) (signum_update), g = clip(rescale_grad*grad). With
    momentum 0 it is signSGD: w = (1 - lr*wd)*w - lr*sign(g) (signsgd_update, no state)."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        if wd_lh and momentum <= 0:
            # MXNet passes wd_lh on to signsgd_update, which rejects it
            raise ValueError("%s: wd_lh=%g needs momentum > 0 (signSGD has no decoupled weight "
                             "decay; use wd)" % (type(self).__name__, wd_lh))
        self.momentum, self.wd_lh = momentum, wd_lh

    def _states(self, weight):
        return (_zeros(weight),) if self.momentum != 0.0 else ()

    def _pack(self, states):
        return states[0] if states else None

    def _unpack(self, state):
        return () if state is None else (state,)

    def _step(self, index, weight, grad, states):
        kw = dict(lr=self._get_lr(index), wd=self._get_wd(index), rescale_grad=self.rescale_grad,
                  **_clip_kwargs(self))
        if states:
            if self.momentum > 0:
                kw["momentum"] = self.momentum
            if self.wd_lh:
                kw["wd_lh"] = self.wd_lh
            nd.signum_update(weight, grad, states[0], out=weight, **kw)
        else:
            nd.signsgd_update(weight, grad, out=weight, **kw)


@Optimizer.register
class SignSGD(Signum):
    """signSGD: Signum without momentum (MXNet: Signum(momentum=0)), no state:
    w = (1 - lr*wd)*w - lr*sign(clip(rescale_grad*grad))."""

    def __init__(self, learning_rate=0.01, **kwargs):
        super().__init__(learning_rate=learning_rate, momentum=0.0, **kwargs)


@Optimizer.register
class LAMB(Optimizer):
    """LAMB (You et al.): Adam's direction plus wd*w (lamb_update_phase1), stepped with the
    layer's trust ratio ||w||/||direction|| (lamb_update_phase2), ||w|| bounded by lower_bound and
    upper_bound when given. float32 moments and master weight for 16-bit weights with
    multi_precision (mp_lamb_update_phase1/2)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.bias_correction = bias_correction

    def create_state(self, index, weight):
        if self.multi_precision and _is_low_precision(weight):
            # MXNet's layout: (float32 master copy, (mean, var) in float32)
            master = weight.astype("float32")
            return (master, (_zeros(master), _zeros(master)))
        return (_zeros(weight), _zeros(weight))

    create_state_multi_precision = create_state

    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):  # MXNet's aggregated call: one update per weight
            for i, w, g, s in zip(index, weight, grad, state):
                self.update(i, w, g, s)
            return
        self._update_count(index)
        lr, wd, t = self._get_lr(index), self._get_wd(index), self._index_update_count[index]
        kw = dict(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon, t=t, wd=wd,
                  bias_correction=self.bias_correction, rescale_grad=self.rescale_grad,
                  **_clip_kwargs(self))
        bounds = {}
        if self.lower_bound:
            bounds["lower_bound"] = self.lower_bound
        if self.upper_bound:
            bounds["upper_bound"] = self.upper_bound
        if isinstance(state[1], tuple):
            master, (mean, var) = state
            g = nd.mp_lamb_update_phase1(weight, grad, mean, var, master, **kw)
            nd.mp_lamb_update_phase2(weight, g, master.norm(), g.norm(), master, out=weight,
                                     lr=lr, **bounds)
        else:
            mean, var = state
            g = nd.lamb_update_phase1(weight, grad, mean, var, **kw)
            nd.lamb_update_phase2(weight, g, weight.norm(), g.norm(), out=weight, lr=lr, **bounds)

    update_multi_precision = update


@Optimizer.register
class AdamW(Optimizer):
    """AdamW (Loshchilov & Hutter), as MXNet 2.0's optimizer defines it on the op MXNet 1.9.1
    has (mx.nd.contrib.adamw_update): with g = clip(rescale_grad*grad), Adam's moments, and
    lr_t = learning_rate*sqrt(1-beta2^t)/(1-beta1^t) (learning_rate alone with
    correct_bias=False), w -= lr_t*(mean/(sqrt(var) + epsilon) + wd*w). The weight decay is
    decoupled from the moments. A step whose rescale_grad is 0, inf or NaN changes nothing.
    float32 moments and master weight for 16-bit weights with multi_precision."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 correct_bias=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.correct_bias = correct_bias
        self._rescale_arrays = {}  # context -> (value, (1,) array holding it)

    def create_state(self, index, weight):
        if self.multi_precision and _is_low_precision(weight):
            z = lambda: nd.zeros(weight.shape, weight.context, dtype="float32")  # noqa: E731
            return (z(), z(), weight.astype("float32"))
        return (_zeros(weight), _zeros(weight))

    def _rescale_array(self, ctx):
        """rescale_grad as the (1,) array the op reads (an NDArray rescale_grad is used as is)."""
        if isinstance(self.rescale_grad, nd.NDArray):
            return self.rescale_grad.as_in_context(ctx)
        value, arr = self._rescale_arrays.get(str(ctx), (None, None))
        if value != self.rescale_grad:
            value, arr = self.rescale_grad, nd.full((1,), self.rescale_grad, ctx=ctx, dtype="float32")
            self._rescale_arrays[str(ctx)] = (value, arr)
        return arr

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd, t = self._get_lr(index), self._get_wd(index), self._index_update_count[index]
        if self.correct_bias:
            lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        kw = dict(lr=1.0, eta=lr, wd=wd, beta1=self.beta1, beta2=self.beta2,
                  epsilon=self.epsilon, **_clip_kwargs(self))
        rescale = self._rescale_array(weight.context)
        if len(state) == 3:
            nd._mp_adamw_update(weight, grad, state[0], state[1], state[2], rescale, out=weight, **kw)
        else:
            nd._adamw_update(weight, grad, state[0], state[1], rescale, out=weight, **kw)

    update_multi_precision = update


@Optimizer.register
class LARS(Optimizer):
    """LARS (You et al.): SGD (with momentum) whose learning rate is scaled per layer by
    eta*||w||/(||g|| + wd*||w|| + eps) (||g|| of the rescaled gradient; unscaled when either norm
    is 0). Parameters named *gamma, *beta or *bias keep the plain rate, and only *_weight
    parameters are decayed. With momentum_correction the momentum follows lr changes by
    cur_lr/last_lr. As MXNet's aggregated update, one call's weights share one lr snapshot;
    update_multi is that call. multi_precision: float32 master weights (mp_sgd_* ops)."""

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum, self.lazy_update = momentum, lazy_update
        self.eta, self.eps, self.momentum_correction = eta, eps, momentum_correction
        self.last_lr = self.cur_lr = None
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith("_weight")}

    create_state = SGD.create_state

    def _snapshot_lr(self):
        """MXNet's LARS._get_lrs bookkeeping: the base rate of this call and of the last one."""
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler else self.lr
        self.last_lr = lr if self.cur_lr is None else self.cur_lr
        self.cur_lr = lr

    def _trust_ratio(self, index, weight, grad, wd):
        name = self.idx2name.get(index, str(index))
        if name.endswith("gamma") or name.endswith("beta") or name.endswith("bias"):
            return 1.0
        w_norm = float(nd.norm(weight.astype("float32")).asscalar())
        g_norm = float(nd.norm(grad.astype("float32")).asscalar()) * self.rescale_grad
        if w_norm > 0.0 and g_norm > 0.0:
            return self.eta * w_norm / (g_norm + wd * w_norm + self.eps)
        return 1.0

    def update_multi(self, indices, weights, grads, states):
        for i in indices:
            self._update_count(i)
        self._snapshot_lr()
        kw = {"rescale_grad": self.rescale_grad, **_clip_kwargs(self)}
        if self.momentum > 0:
            correct = self.momentum_correction and self.last_lr != 0
            kw["momentum"] = self.momentum * (self.cur_lr / self.last_lr) if correct else self.momentum
        for i, weight, grad, state in zip(indices, weights, grads, states):
            wd = self._get_wd(i)
            lr = self._get_lr(i) * self._trust_ratio(i, weight, grad, wd)
            if isinstance(state, tuple):  # (momentum or None, float32 master weight)
                mom, master = state
                if mom is not None:
                    nd.mp_sgd_mom_update(weight, grad, mom, master, out=weight, lr=lr, wd=wd, **kw)
                else:
                    nd.mp_sgd_update(weight, grad, master, out=weight, lr=lr, wd=wd, **kw)
            elif state is not None:
                nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kw)
            else:
                nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kw)

    def update(self, index, weight, grad, state):
        self.update_multi([index], [weight], [grad], [state])

    update_multi_precision = update


_ADAMW_PARAMS = ("lr", "eta", "beta1", "beta2", "epsilon", "wd", "clip_gradient")


def _contrib_adamw(op, num_arrays):
    """MXNet's Python front of the AdamW ops (mx.nd.contrib.adamw_update(weight, grad, mean, var,
    rescale_grad, lr, eta, ...), mp_: weight32 before rescale_grad): the op reads rescale_grad
    from a (1,) array; a number given instead is put into one on the weight's context."""

    def update(*args, **kwargs):
        arrays, rest = list(args[:num_arrays]), args[num_arrays:]
        if len(rest) > len(_ADAMW_PARAMS):
            raise TypeError("%s takes at most %d positional arguments" % (op.__name__, num_arrays + len(_ADAMW_PARAMS)))
        for name, value in zip(_ADAMW_PARAMS, rest):
            if name in kwargs:
                raise TypeError("%s got multiple values for argument '%s'" % (op.__name__, name))
            kwargs[name] = value
        if len(arrays) < num_arrays and "rescale_grad" in kwargs:
            arrays.append(kwargs.pop("rescale_grad"))
        if len(arrays) == num_arrays and not isinstance(arrays[-1], nd.NDArray):
            arrays[-1] = nd.full((1,), float(arrays[-1]), ctx=arrays[0].context, dtype="float32")
        return op(*arrays, **kwargs)

    update.__name__ = op.__name__.lstrip("_")
    update.__doc__ = op.__doc__
    return update


nd.contrib.adamw_update = _contrib_adamw(nd._adamw_update, 5)
nd.contrib.mp_adamw_update = _contrib_adamw(nd._mp_adamw_update, 6)


def _rescaled(opt, weight, grad, wd=0.0):
    """clip(rescale_grad*grad + wd*weight) in NDArray arithmetic (clip only when clip_gradient is
    set, as MXNet's Python optimizers do)."""
    g = grad * opt.rescale_grad
    if wd:
        g = g + wd * weight
    if opt.clip_gradient is not None:
        g = nd.clip(g, -opt.clip_gradient, opt.clip_gradient)
    return g


@Optimizer.register
class SGLD(_MasterCopy):
    """Stochastic Gradient Langevin Dynamics (Welling & Teh): a half SGD step plus Gaussian noise
    of variance lr: w += -lr/2*(clip(rescale_grad*grad) + wd*w) + N(0, sqrt(lr)). No state."""

    def _states(self, weight):
        return ()

    def _pack(self, states):
        return None

    def _unpack(self, state):
        return ()

    def _step(self, index, weight, grad, states):
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = _rescaled(self, weight, grad)
        weight[:] = weight + -lr / 2 * (g + wd * weight)
        weight[:] = weight + nd.random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype,
                                              ctx=weight.context)


@Optimizer.register
class FTML(_MasterCopy):
    """FTML, Follow the Moving Leader (Zheng & Kwok), with g = clip(rescale_grad*grad + wd*w):
    v = beta2*v + (1-beta2)*g^2; d_t = (1-beta1^t)/lr*(sqrt(v/(1-beta2^t)) + epsilon);
    z = beta1*z + (1-beta1)*g - (d_t - beta1*d)*w; d = d_t; w = -z/d_t. State (d, v, z).
    (MXNet runs its ftml_update op; symnet has no such op yet, so the same arithmetic runs as
    NDArray operations.)"""

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def _states(self, weight):
        return (_zeros(weight), _zeros(weight), _zeros(weight))

    def _step(self, index, weight, grad, states):
        lr, wd, t = self._get_lr(index), self._get_wd(index), self._index_update_count[index]
        prev_d, prev_v, prev_z = states
        g = grad * self.rescale_grad + wd * weight
        if self.clip_gradient:  # MXNet passes clip_grad to its op only when non-zero
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        v = self.beta2 * prev_v + (1 - self.beta2) * nd.square(g)
        d = (1 - self.beta1 ** t) / lr * (nd.sqrt(v / (1 - self.beta2 ** t)) + self.epsilon)
        z = self.beta1 * prev_z + (1 - self.beta1) * g - (d - self.beta1 * prev_d) * weight
        weight[:] = -z / d
        prev_d[:] = d
        prev_v[:] = v
        prev_z[:] = z


@Optimizer.register
class Adamax(_MasterCopy):
    """AdaMax (Kingma & Ba, section 7), with g = clip(rescale_grad*grad + wd*w): m = beta1*m +
    (1-beta1)*g; u = max(beta2*u, |g|); w -= lr/(1-beta1^t)*m/u. State (m, u)."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2 = beta1, beta2

    def _states(self, weight):
        return (_zeros(weight), _zeros(weight))

    def _step(self, index, weight, grad, states):
        lr, wd, t = self._get_lr(index), self._get_wd(index), self._index_update_count[index]
        lr /= (1. - self.beta1 ** t)
        g = _rescaled(self, weight, grad, wd)
        m, u = states
        m[:] = m * self.beta1 + (1. - self.beta1) * g
        u[:] = nd.maximum(self.beta2 * u, nd.abs(g))
        weight[:] = weight - lr * m / u


@Optimizer.register
class Nadam(_MasterCopy):
    """Nadam (Dozat): Adam with Nesterov momentum and the warming momentum schedule
    mu_t = beta1*(1 - 0.5*0.96^(t*schedule_decay)), g = clip(rescale_grad*grad + wd*w). State
    (m, v); the running product of the mu_t is the optimizer's m_schedule, as in MXNet."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def _states(self, weight):
        return (_zeros(weight), _zeros(weight))

    def _step(self, index, weight, grad, states):
        lr, wd, t = self._get_lr(index), self._get_wd(index), self._index_update_count[index]
        g = _rescaled(self, weight, grad, wd)
        mu_t = self.beta1 * (1. - 0.5 * (0.96 ** (t * self.schedule_decay)))
        mu_next = self.beta1 * (1. - 0.5 * (0.96 ** ((t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * mu_t
        m_schedule_next = self.m_schedule * mu_next
        m, v = states
        m[:] = m * self.beta1 + (1. - self.beta1) * g
        v[:] = v * self.beta2 + (1. - self.beta2) * g * g
        m_bar = (1. - mu_t) * (g / (1. - self.m_schedule)) + mu_next * (m / (1. - m_schedule_next))
        v_hat = v / (1. - self.beta2 ** t)
        weight[:] = weight - lr * m_bar / (nd.sqrt(v_hat) + self.epsilon)


@Optimizer.register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (Zheng et al.): the gradient is corrected by
    lamda*g*g*(w - w_prev); with g = clip(rescale_grad*grad),
    mom = momentum*mom - lr*(g + wd*w + lamda*g*g*(w - w_prev)); w_prev = w; w += mom.
    State (mom or None, previous weight)."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum, self.lamda = momentum, lamda
        self.weight_previous = {}

    def create_state(self, index, weight):
        mom = None if self.momentum == 0.0 else _zeros(weight)
        return (mom, weight.copy())

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = _rescaled(self, weight, grad)
        mom, previous = state
        step = -lr * (g + wd * weight + self.lamda * g * g * (weight - previous))
        if mom is not None:
            mom[:] = mom * self.momentum + step
            step = mom
        previous[:] = weight
        weight[:] = weight + step


@Optimizer.register
class Test(Optimizer):
    """MXNet's test optimizer: w += rescale_grad*grad; the state is a copy of the new weight."""

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context, dtype="float32")

    def update(self, index, weight, grad, state):
        weight[:] = weight + grad * self.rescale_grad
        state[:] = weight


@Optimizer.register
class ccSGD(SGD):  # noqa: N801 (MXNet's name)
    """Deprecated alias of SGD kept by MXNet 1.9.1."""


from ._lbsgd import LBSGD  # noqa: E402 (it builds on Optimizer above)

#: MXNet's name for mx.nd.abs in this module
NDabs = nd.abs


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
           "create", "Updater", "get_updater", "register", "LBSGD", "NDabs"]
