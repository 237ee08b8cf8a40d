"""Gluon parameters: an NDArray per context, its gradient, deferred shape inference."""
import re
from collections import OrderedDict

import numpy as np

from .. import _core, autograd
from .. import initializer as _init
from .. import ndarray as nd
from .. import symbol as _sym
from ..base import dtype_name
from ..context import Context, current_context


class DeferredInitializationError(RuntimeError):
    """A parameter's shape is not known yet; it is completed at the first forward."""


def _ctx_list(ctx):
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


def _known(shape):
    return shape is not None and all(d > 0 for d in shape)


class Parameter:
    """A parameter of a Block (MXNet's gluon.Parameter): one NDArray per context, and a gradient
    per context unless grad_req is 'null'. A shape with unknown (0) dimensions is completed from
    the first input (deferred initialization)."""

    def __init__(self, name, grad_req="write", shape=None, dtype="float32", lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True,
                 stype="default", grad_stype="default"):
        if stype != "default" or grad_stype != "default":
            raise ValueError("Parameter %r: only dense storage (stype='default') is supported"
                             % name)
        self.name = name
        self._shape = None if shape is None else ((shape,) if isinstance(shape, int)
                                                  else tuple(shape))
        self.dtype = _DTypeName(dtype_name(dtype) or "float32")
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        self.allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        self._grad_req = grad_req if differentiable else "null"
        if self._grad_req not in ("write", "add", "null"):
            raise ValueError("Parameter %r: grad_req must be 'write', 'add' or 'null', not %r"
                             % (name, grad_req))
        self._data = None   # OrderedDict ctx -> NDArray
        self._grad = None
        self._deferred = None  # (init, ctxs, default_init) waiting for the shape

    def __repr__(self):
        return "Parameter %s (shape=%s, dtype=%s)" % (self.name, self._shape, self.dtype)

    # ---- attributes ---------------------------------------------------------------------------
    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new):
        new = tuple(new)
        if self._shape is not None:
            ok = len(self._shape) == len(new) and all(
                a in (0, b) or b == 0 for a, b in zip(self._shape, new))
            if not ok:
                raise ValueError("Parameter %r has shape %s; it cannot become %s"
                                 % (self.name, self._shape, new))
            new = tuple(b if b > 0 else a for a, b in zip(self._shape, new))
        self._shape = new

    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in ("write", "add", "null"):
            raise ValueError("grad_req must be 'write', 'add' or 'null', not %r" % (req,))
        if not self._differentiable:
            req = "null"
        if req == self._grad_req:
            return
        self._grad_req = req
        if self._data is not None:
            self._init_grad()

    # ---- initialization -----------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False):
        """Allocates and initializes the data on each context (deferred while the shape has
        unknown dimensions)."""
        if self._data is not None and not force_reinit:
            return
        default_init = default_init or _init.Uniform()
        ctxs = _ctx_list(ctx)
        if init is None:
            # as MXNet: without an initializer of its own, the default one initializes the
            # parameter directly (its name does not pick the method: ParameterDict 'x' with
            # init='zeros' is zeros)
            init = default_init if self.init is None else self.init
        if not _known(self._shape):
            if not self.allow_deferred_init:
                raise ValueError("Parameter %r has unknown shape %s and cannot be initialized "
                                 "without deferred initialization" % (self.name, self._shape))
            self._deferred = (init, ctxs, default_init)
            return
        self._finish_init(init, ctxs, default_init)

    def _finish_init(self, init, ctxs, default_init):
        value = nd.zeros(self._shape, ctx=ctxs[0], dtype=self.dtype)
        desc = _init.InitDesc(self.name, {"__init__": init} if init is not None else {})
        with autograd.pause():
            _init.create(default_init)(desc, value)
        self._deferred = None
        self._data = OrderedDict((c, value.copyto(c) if i else value) for i, c in enumerate(ctxs))
        self._init_grad()

    def _init_from(self, value, ctx):
        """Initializes with `value` (a loaded file's array): no initializer runs, and a deferred
        shape is completed from it; ctx None keeps the contexts a deferred initialize named."""
        self.shape = value.shape
        if ctx is None and self._deferred is not None:
            ctxs = self._deferred[1]
        else:
            ctxs = _ctx_list(ctx)
        self._deferred = None
        self._data = OrderedDict((c, value.copyto(c)) for c in ctxs)
        self._init_grad()

    def _finish_deferred_init(self):
        if self._deferred is None:
            return
        if not _known(self._shape):
            raise DeferredInitializationError(
                "Parameter %r: shape %s is still unknown after shape inference"
                % (self.name, self._shape))
        self._finish_init(*self._deferred)

    def _init_grad(self):
        self._grad = None
        if self._grad_req == "null":
            # a frozen parameter is not tracked: the gradient pass never reaches it
            self._data = OrderedDict((c, d.detach()) for c, d in self._data.items())
            return
        self._grad = OrderedDict()
        for c, d in self._data.items():
            d.attach_grad(self._grad_req)
            self._grad[c] = d.grad

    def _check(self, ctx):
        if self._data is None:
            if self._deferred is not None:
                raise DeferredInitializationError(
                    "Parameter %r has not been initialized yet because its shape %s is not "
                    "known; it is initialized at the first forward" % (self.name, self._shape))
            raise RuntimeError("Parameter %r has not been initialized; call initialize() on it "
                               "or on the block's collect_params()" % self.name)
        if ctx is None:
            ctx = next(iter(self._data)) if len(self._data) == 1 else current_context()
        if ctx not in self._data:
            raise RuntimeError("Parameter %r was not initialized on context %s; it lives on %s"
                               % (self.name, ctx, ", ".join(str(c) for c in self._data)))
        return ctx

    # ---- access -------------------------------------------------------------------------------
    def data(self, ctx=None):
        data = self._data
        if data is not None and ctx is not None:
            arr = data.get(ctx)  # every imperative layer call asks: the checks only on a miss
            if arr is not None:
                return arr
        return data[self._check(ctx)]

    def list_data(self):
        self._check(next(iter(self._data)) if self._data else None)
        return list(self._data.values())

    def grad(self, ctx=None):
        ctx = self._check(ctx)
        if self._grad is None:
            raise RuntimeError("Parameter %r has grad_req='null': it has no gradient" % self.name)
        return self._grad[ctx]

    def list_grad(self):
        if self._data is not None and self._grad is None:
            raise RuntimeError("Parameter %r has grad_req='null': it has no gradient" % self.name)
        self._check(next(iter(self._data)) if self._data else None)
        return list(self._grad.values())

    def list_ctx(self):
        if self._data is None:
            if self._deferred is not None:
                return list(self._deferred[1])
            raise RuntimeError("Parameter %r has not been initialized" % self.name)
        return list(self._data)

    def set_data(self, data):
        """Sets the value on every context (shape must match; completes a deferred shape)."""
        shape = tuple(data.shape)
        self.shape = shape
        if self._data is None:
            if self._deferred is None:
                raise RuntimeError("Parameter %r has not been initialized" % self.name)
            self._finish_deferred_init()
        for d in self._data.values():
            with autograd.pause():
                d[:] = data

    def zero_grad(self):
        if self._grad is None:
            return
        for g in self._grad.values():
            g[:] = 0

    def reset_ctx(self, ctx):
        ctxs = _ctx_list(ctx)
        if self._data is None:
            if self._deferred is not None:
                self._deferred = (self._deferred[0], ctxs, self._deferred[2])
                return
            raise ValueError("Parameter %r has not been initialized; its context cannot be reset"
                             % self.name)  # ValueError, as MXNet raises
        value = next(iter(self._data.values()))
        self._data = OrderedDict((c, value.detach().copyto(c)) for c in ctxs)
        self._init_grad()

    def cast(self, dtype):
        self.dtype = _DTypeName(dtype_name(dtype))
        if self._data is None:
            return
        with autograd.pause():
            self._data = OrderedDict((c, d.detach().astype(self.dtype))
                                     for c, d in self._data.items())
        self._init_grad()

    def var(self):
        """The symbol variable standing for this parameter in a traced graph: one variable for
        every use, so that a block called twice in a graph (a shared layer, a recurrent cell
        stepped T times) has one argument whose gradient sums over the uses (two variables of
        one name would each get part of it, and one would overwrite the other)."""
        shape = self._shape if _known(self._shape) else None
        key = (shape, self.dtype, self.lr_mult, self.wd_mult, self.init)
        cached = getattr(self, "_var_cache", None)
        if cached is None or cached[0] != key:
            # the initializer rides along as the variable's __init__ (as MXNet's), so a Module
            # bound to the graph initializes it the same way (an LSTM cell's LSTMBias)
            cached = (key, _sym.var(self.name, shape=shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                    wd_mult=self.wd_mult, init=self.init))
            self._var_cache = cached
        return cached[1]

    def _reduce(self):
        """The value to save: the first context's copy, as MXNet saves."""
        return next(iter(self._data.values())).detach() if self._data else None

    def _fresh_grad(self, ctx):
        """Whether backward wrote this context's gradient since the last check (clears it)."""
        return _core.autograd_take_fresh(self._data[ctx].handle)


class _DTypeName(str):
    """A parameter's dtype name ('float16') that also equals the NumPy type (np.float16):
    MXNet's Parameter.dtype holds whatever it was given or loaded, so code compares it with
    either form."""

    def __eq__(self, other):
        if isinstance(other, (type, np.dtype)):
            try:
                return np.dtype(other) == np.dtype(str(self))
            except TypeError:  # bfloat16, or a type that is no dtype
                return False
        return str.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = str.__hash__


class Constant(Parameter):
    """A parameter that is never updated (grad_req 'null'), initialized to a given value."""

    def __init__(self, name, value):
        if not isinstance(value, nd.NDArray):
            value = nd.array(np.asarray(value, dtype=np.float32))
        self.value = value
        # the value as the initializer too: a graph variable of this parameter then carries it
        # as its __init__, so a Module bound to an exported graph fills it in
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=_init.Constant(value))

    def _finish_init(self, init, ctxs, default_init):
        self._deferred = None
        self._data = OrderedDict((c, self.value.copyto(c)) for c in ctxs)
        self._init_grad()

    def __repr__(self):
        return "Constant %s (shape=%s, dtype=%s)" % (self.name, self._shape, self.dtype)

    @Parameter.grad_req.setter
    def grad_req(self, req):
        if req != "null":
            raise ValueError("a Constant's grad_req stays 'null'")


#: Parameter arguments MXNet stores privately: ParameterDict.get does not compare them with
#: those the parameter was created with
_UNCOMPARED = ("allow_deferred_init", "differentiable", "stype", "grad_stype")


class ParameterDict:
    """Parameters by full name, with a prefix added by get() (MXNet's gluon.ParameterDict)."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = "\n".join("  " + repr(p) for p in self._params.values())
        # MXNet's form: 'net1_ (' with a prefix, a bare '(' without one
        return "%s(\n%s\n)" % (self._prefix + " " if self._prefix else "", body)

    @property
    def prefix(self):
        return self._prefix

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter prefix+name, created with kwargs when it does not exist; an existing
        one must agree with kwargs (unknown shape dims are completed)."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if v is None:
                continue
            if k == "shape":
                param.shape = v
            elif k == "dtype":
                if dtype_name(v) != param.dtype:
                    raise ValueError("Parameter %r has dtype %s, not %s"
                                     % (name, param.dtype, dtype_name(v)))
            elif k in _UNCOMPARED:
                # MXNet keeps these private, so sharing does not compare them with the creator's
                # values: the first get of the existing parameter records its value and later
                # gets must agree with that one (tied embeddings: Embedding's weight fetched by
                # a Dense with allow_deferred_init=True)
                given = param.__dict__.setdefault("_shared_get_attrs", {})
                if given.setdefault(k, v) != v:
                    raise ValueError("Parameter %r was fetched with %s=%r before, not %r"
                                     % (name, k, given[k], v))
            elif k == "init":
                if param.init is None:
                    param.init = v  # as MXNet: an existing parameter without one takes it
            elif hasattr(param, k) and getattr(param, k) != v:
                existing = getattr(param, k)
                raise ValueError("Parameter %r already has %s=%r, not %r"
                                 % (name, k, existing, v))
        return param

    def get_constant(self, name, value=None):
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("no constant %r and no value to create it" % name)
            param = Constant(name, value)
            self._params[name] = param
        return param

    def update(self, other):
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise ValueError("cannot update: a different parameter named %r exists" % k)
            self._params[k] = v

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        init = init if init is not None else _init.Uniform()
        for p in self.values():
            p.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        for p in self.values():
            p.zero_grad()

    def reset_ctx(self, ctx):
        for p in self.values():
            p.reset_ctx(ctx)

    def list_ctx(self):
        out = []
        for p in self.values():
            for c in p.list_ctx():
                if c not in out:
                    out.append(c)
        return out

    def setattr(self, name, value):
        for p in self.values():
            setattr(p, name, value)

    def select(self, pattern):
        """The parameters whose names match the regular expression (MXNet: collect_params's
        select argument)."""
        regex = re.compile(pattern)
        out = ParameterDict(self._prefix)
        for k, v in self.items():
            if regex.match(k):
                out._params[k] = v
        return out

    def save(self, filename, strip_prefix=""):
        arrays = {}
        for p in self.values():
            name = p.name[len(strip_prefix):] if p.name.startswith(strip_prefix) else p.name
            arrays[name] = p._reduce()
        nd.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="",
             cast_dtype=False, dtype_source="current"):
        raw = nd.load(filename)
        if not isinstance(raw, dict):
            if raw:
                raise ValueError("%s holds unnamed arrays; ParameterDict.save writes names" % filename)
            raw = {}  # a file of no arrays (MXNet's for a block without parameters)
        loaded = {restore_prefix + k.split(":", 1)[-1]: v for k, v in raw.items()}
        _load_into(self._params, loaded, ctx, allow_missing, ignore_extra, filename, cast_dtype,
                   dtype_source)


def _load_into(params, loaded, ctx, allow_missing, ignore_extra, filename, cast_dtype=False,
               dtype_source="current"):
    if cast_dtype and dtype_source not in ("current", "saved"):
        raise AssertionError("dtype_source must be 'current' or 'saved', not %r" % (dtype_source,))
    if not allow_missing:
        # a parameter shared under several names is loaded when the file has any one of them
        present = {id(params[k]) for k in loaded if k in params}
        missing = [k for k, p in params.items() if id(p) not in present]
        if missing:
            raise AssertionError("Parameter(s) %s are missing in file %s (allow_missing=True "
                                 "skips them)" % (", ".join(missing), filename))
    for name, value in loaded.items():
        if name not in params:
            if ignore_extra:
                continue
            raise AssertionError("Parameter %r in file %s is not in the network (ignore_extra="
                                 "True skips it); the network has: %s"
                                 % (name, filename, ", ".join(params)))
        p = params[name]
        saved = value.handle.dtype
        if saved != p.dtype and cast_dtype and dtype_source == "saved":
            p.cast(saved)  # the parameter (and its gradient) takes the file's dtype
        value = value if saved == p.dtype else value.astype(p.dtype)
        if p._data is None:
            p._init_from(value, ctx)
        else:
            p.set_data(value)
