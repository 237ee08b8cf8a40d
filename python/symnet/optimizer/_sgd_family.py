"""MXNet 1.9.1's SGD-family optimizers (mx.optimizer.optimizer re-exports them): SGD, NAG,
Signum, SignSGD, LARS, SGLD, DCASGD, Test and ccSGD. Each is filed under its lower-case
name by Optimizer.register."""
import math

from .. import ndarray as nd
from ._base import Optimizer, _MasterCopy, _clip_kwargs, _is_low_precision, _rescaled, _zeros


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
