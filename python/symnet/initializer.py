"""Initializers with MXNet's name-suffix dispatch: *_weight gets the initializer's rule,
*_bias and *_beta zeros, *_gamma ones, *_moving_mean zeros, *_moving_var ones. A variable's
__init__ attribute (e.g. '["zero", {}]' from ResNet's zero-init option) takes precedence."""
import json
import logging
import re

import numpy as np

from .base import string_types  # noqa: F401  (MXNet's initializer module exports it)

_REGISTRY = {}


def register(klass):
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def _alias(name, klass):
    """MXNet's other spelling of a registered initializer ('zeros' for Zero)."""
    _REGISTRY[name] = klass


def _same_value(a, b):
    """Whether two initializer arguments are equal; arrays (NDArray or NumPy) by their values."""
    if hasattr(a, "asnumpy") or hasattr(b, "asnumpy") or isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
        b = b.asnumpy() if hasattr(b, "asnumpy") else np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b))
    return a == b


class InitDesc(str):
    """A parameter name that also carries its variable attributes (MXNet passes these)."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


class Initializer:
    """Base: dispatches on the name suffix; subclasses implement _init_weight."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._rng = None  # None: symnet.random's generator (seeded by symnet.random.seed)

    def set_rng(self, rng):
        self._rng = rng
        return self

    @property
    def rng(self):
        if self._rng is not None:
            return self._rng
        from . import random
        return random.host_rng()

    def __eq__(self, other):
        """Equal when of the same class with the same arguments (as MXNet's), so that two blocks
        built alike give their parameters equal initializers."""
        if not isinstance(other, Initializer):
            return NotImplemented
        if type(self) is not type(other) or self._kwargs.keys() != other._kwargs.keys():
            return False
        return all(_same_value(self._kwargs[k], other._kwargs[k]) for k in self._kwargs)

    def __hash__(self):
        # equal initializers are of one class; hashing by it keeps them usable as keys
        return hash(type(self))

    def dumps(self):
        """MXNet's text form: '["xavier", {"magnitude": 2}]'."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        name = str(desc)
        init = getattr(desc, "attrs", {}).get("__init__")
        if init:
            sub = create(init).set_rng(self.rng)
            sub.global_init = self  # FusedRNN(None, ...) falls back to the caller's initializer
            sub._init_weight(name, arr)
            return
        if name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith(("bias", "beta", "moving_mean", "moving_inv_var", "running_mean")):
            arr[:] = 0.0
        elif name.endswith(("gamma", "moving_var", "running_var")):
            arr[:] = 1.0
        else:
            self._init_default(name, arr)

    def _init_weight(self, name, arr):
        raise NotImplementedError()

    def _init_default(self, name, arr):
        raise ValueError("cannot initialize %r: its name does not end in weight, bias, gamma, beta, "
                         "moving_mean or moving_var; name it so or pass its value" % name)


@register
class Zero(Initializer):
    def _init_weight(self, name, arr):
        arr[:] = 0.0


@register
class One(Initializer):
    def _init_weight(self, name, arr):
        arr[:] = 1.0


_alias("zeros", Zero)
_alias("ones", One)


@register
class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, name, arr):
        arr[:] = self.value

    def dumps(self):
        """As MXNet: an array value is written as nested lists, and (MXNet's quirk, kept so that
        `json.dumps([name, init._kwargs])` afterwards gives the same text) _kwargs keeps the lists."""
        val = self._kwargs["value"]
        if not np.isscalar(val):
            self._kwargs["value"] = val.tolist() if isinstance(val, np.ndarray) else val.asnumpy().tolist()
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Uniform in [-scale, scale]."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, name, arr):
        arr[:] = self.rng.uniform(-self.scale, self.scale, arr.shape)


@register
class Normal(Initializer):
    """Normal with mean 0 and standard deviation sigma."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, name, arr):
        arr[:] = self.rng.normal(0, self.sigma, arr.shape)


@register
class Xavier(Initializer):
    """Xavier/Glorot: scale = sqrt(magnitude / factor) where factor is fan_in, fan_out or their
    average; rnd_type 'uniform' draws in [-scale, scale], 'gaussian' with deviation scale."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        if rnd_type not in ("uniform", "gaussian"):
            raise ValueError("rnd_type must be 'uniform' or 'gaussian', not %r" % rnd_type)
        if factor_type not in ("avg", "in", "out"):
            raise ValueError("factor_type must be 'avg', 'in' or 'out', not %r" % factor_type)
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError("Xavier needs a weight of at least 2 dims; %s has shape %s" % (name, shape))
        hw = int(np.prod(shape[2:])) if len(shape) > 2 else 1
        fan_in, fan_out = shape[1] * hw, shape[0] * hw
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[self.factor_type]
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            arr[:] = self.rng.uniform(-scale, scale, shape)
        else:
            arr[:] = self.rng.normal(0, scale, shape)


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialisation (Xavier with magnitude 2/(1+slope^2), gaussian)."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Weights of a bilinear-upsampling kernel (for a Deconvolution): each (H, W) slice is the
    outer product of a tent that peaks at the kernel's centre, the same for every channel pair."""

    def _init_weight(self, name, arr):
        shape = arr.shape
        f = np.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        tent_x = 1 - np.abs(np.arange(shape[3]) / f - c)
        tent_y = 1 - np.abs(np.arange(shape[2]) / f - c)
        # float32 like MXNet, so the values equal its to the last bit
        kernel = (tent_y[:, None] * tent_x[None, :]).astype(np.float32)
        arr[:] = np.broadcast_to(kernel, shape)


@register
class LSTMBias(Initializer):
    """Zeros, except the forget gate's quarter (the second of the gates i, f, c, o), which gets
    `forget_bias`: the gate starts open, so the cell remembers from the start of training.

    Parameters
    ----------
    forget_bias : float
        The value of the forget gate's biases.
    """

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        h = arr.shape[0] // 4
        arr[:] = 0.0
        arr[h:2 * h] = self.forget_bias


@register
class FusedRNN(Initializer):
    """For the fused RNN op's packed parameter vector (MXNet's FusedRNN): each gate's input and
    recurrent weight matrix (H, I) and (H, H) gets `init` (or the initializer of the call, when
    None), the biases zeros, except an LSTM's forget-gate biases: the input and the recurrent one
    both get `forget_bias`, as in MXNet (so the gate starts with twice it)."""

    _GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional,
                         forget_bias=forget_bias)
        if mode not in self._GATES:
            raise ValueError("FusedRNN: mode must be one of %s, not %r" % (sorted(self._GATES), mode))
        self._init, self._h, self._layers = init, int(num_hidden), int(num_layers)
        self._mode, self._dirs, self._forget_bias = mode, 2 if bidirectional else 1, float(forget_bias)
        self.global_init = None

    def __call__(self, desc, arr):
        # the packed vector is all this initializer is for, whatever its name ('lstm_parameters')
        self._init_weight(str(desc), arr)

    def _init_weight(self, name, arr):
        g, h, d = self._GATES[self._mode], self._h, self._dirs
        total = arr.size
        # the input size follows from the vector's length: layer 0 has g*h*(C + h + 2) per direction
        rest = sum(d * g * h * (d * h + h + 2) for _ in range(1, self._layers))
        c = (total - rest) // (d * g * h) - h - 2
        if c < 1 or d * g * h * (c + h + 2) + rest != total:
            raise ValueError("FusedRNN: %s has %d elements, which no input size gives for %d layer(s) "
                             "of %s with num_hidden=%d%s" % (name, total, self._layers, self._mode, h,
                                                             ", bidirectional" if d == 2 else ""))
        init = self._init or self.global_init
        if init is None:
            raise ValueError("FusedRNN(init=None) needs an initializer to fall back to")
        init = create(init).set_rng(self.rng) if self._init is not None else init
        flat = np.zeros(total, dtype=np.float64)
        pos = 0
        for layer in range(self._layers):
            for _ in range(d):
                for cols in (c if layer == 0 else d * h, h):  # input, then recurrent weights
                    for _gate in range(g):
                        w = np.zeros((h, cols), dtype=np.float64)
                        init._init_weight(name + "_weight", w)
                        flat[pos:pos + h * cols] = w.reshape(-1)
                        pos += h * cols
        for _ in range(self._layers * d):
            for _side in range(2):  # input bias, recurrent bias
                if self._mode == "lstm":
                    flat[pos + h:pos + 2 * h] = self._forget_bias  # gate order i, f, g, o
                pos += g * h
        assert pos == total
        arr[:] = flat


@register
class Orthogonal(Initializer):
    """A weight whose rows (or columns, whichever are fewer) are orthonormal, times `scale`: the
    SVD factor of a (rows, prod(rest)) draw from U(-1, 1) (rand_type 'uniform') or N(0, 1)
    ('normal') that has the draw's shape (Saxe et al., 2013; MXNet's Orthogonal)."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, name, arr):
        shape = (arr.shape[0], int(np.prod(arr.shape[1:])))
        if self.rand_type == "uniform":
            draw = self.rng.uniform(-1.0, 1.0, shape)
        elif self.rand_type == "normal":
            draw = self.rng.normal(0.0, 1.0, shape)
        else:  # MXNet fails later on an unbound draw; say why instead
            raise ValueError("Orthogonal: rand_type must be 'uniform' or 'normal', not %r"
                             % (self.rand_type,))
        u, _, v = np.linalg.svd(draw, full_matrices=False)
        res = u if u.shape == draw.shape else v
        arr[:] = self.scale * res.reshape(arr.shape)


class Load:
    """Initializes each parameter found in `param` (a dict, or a .params file, whose arg:/aux:
    prefixes are dropped) with its value (shapes must agree), any other with default_init."""

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            from .ndarray import load
            param = load(param)
        assert isinstance(param, dict)
        self.param = {}
        for name, arr in param.items():
            self.param[name[4:] if name.startswith(("arg:", "aux:")) else name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            value = self.param[name]
            assert arr.shape == value.shape, \
                "Parameter %s cannot be initialized from loading. Shape mismatch, target %s vs " \
                "loaded %s" % (name, str(arr.shape), value.shape)
            if isinstance(arr, np.ndarray) and hasattr(value, "asnumpy"):
                value = value.asnumpy()
            arr[:] = value
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            assert self.default_init is not None, \
                "Cannot Initialize %s. Not found in loaded param and no default Initializer is " \
                "provided." % name
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


class Mixed:
    """Initializes a parameter with the initializer of the first pattern (a regular expression,
    matched at the name's start) that matches its name; no match is an error."""

    def __init__(self, patterns, initializers):
        assert len(patterns) == len(initializers)
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError('Parameter name %s did not match any pattern. Consider add a ".*" '
                         "pattern at the and with default Initializer." % name)


def create(init):
    """An initializer from an instance, a name ('xavier') or MXNet's JSON dump."""
    if isinstance(init, Initializer):
        return init
    if isinstance(init, str):
        text = init.strip()
        if text.startswith("["):
            name, kwargs = json.loads(text)
            return _REGISTRY[name.lower()](**kwargs)
        return _REGISTRY[text.lower()]()
    raise TypeError("cannot make an initializer from %r" % (init,))
