"""MXNet 1.9.1's adaptive-rate optimizers (mx.optimizer.optimizer re-exports them): Adam,
RMSProp (and centered), AdaGrad, AdaDelta, Ftrl, LAMB, AdamW (MXNet 2.0's optimizer over
1.9.1's contrib.adamw_update op, whose Python front _contrib_adamw is installed here as
mx.nd.contrib.adamw_update and mp_adamw_update), FTML, Adamax and Nadam."""
import math

from .. import ndarray as nd
from ._base import Optimizer, _MasterCopy, _clip_kwargs, _is_low_precision, _rescaled, _zeros


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
