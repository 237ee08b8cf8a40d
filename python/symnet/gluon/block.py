"""Gluon blocks: Block (imperative), HybridBlock (imperative or traced once per input
signature into a Symbol and run by a bound executor), SymbolBlock (a loaded symbol)."""
import json
import os
import threading
import warnings
import weakref
from collections import OrderedDict

from .. import _core, autograd
from .. import ndarray as nd
from .. import symbol as _sym
from ..context import current_context
from ..name import NameManager, Prefix
from .parameter import DeferredInitializationError, Parameter, ParameterDict
from .utils import HookHandle


class _BlockScope:
    """Naming scope of a block's children and parameters (`with block.name_scope():`)."""

    _current = threading.local()

    def __init__(self, block):
        # weakly: the block holds its scope, and a cycle would keep a dropped block (with its
        # hybridized executors and their input-sized buffers) alive until Python's cycle
        # collector happens to run, which it does by object counts, not by bytes
        self._block_ref = weakref.ref(block)
        self._counter = {}
        self._old = None
        self._names = []  # the Prefix name managers entered, innermost last

    @property
    def _block(self):
        return self._block_ref()

    @staticmethod
    def create(prefix, params, hint):
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = NameManager.current().get(None, hint) + "_"
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix,
                                                                                params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        # symbols made in the scope are named after the block, as in MXNet: a Dense's
        # FullyConnected named 'fwd' becomes 'dense0_fwd' (its output 'dense0_fwd_output',
        # which feature extractors look up), an unnamed relu 'dense0_relu0'
        names = Prefix(self._block.prefix)
        names.__enter__()
        self._names.append(names)
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return False
        self._names.pop().__exit__(*exc)
        _BlockScope._current.value = self._old
        return False


def _flatten(args, what):
    """Nested lists/tuples of arrays or symbols -> flat list and a format to rebuild them."""
    if isinstance(args, (nd.NDArray, _sym.Symbol)):
        return [args], 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        # ValueError as MXNet's: a hybridized block takes no scalars among its inputs
        raise ValueError("%s must be NDArrays or Symbols (or lists of them, or None), not %s"
                         % (what, type(args).__name__))
    flat, fmts = [], []
    for a in args:
        f, fmt = _flatten(a, what)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def _input_kinds(args):
    """What a call's inputs hold, nested lists searched: (any Symbol, any NDArray, the set of
    the NDArrays' contexts, the first NDArray's context). Other values (None, scalars) count as
    neither."""
    has_sym, has_nd, ctxs, first = False, False, set(), None
    stack = list(reversed(args))
    while stack:
        a = stack.pop()
        if isinstance(a, _sym.Symbol):
            has_sym = True
        elif isinstance(a, nd.NDArray):
            has_nd = True
            ctxs.add(a.context)
            first = first or a.context
        elif isinstance(a, (list, tuple)):
            stack.extend(reversed(a))
    return has_sym, has_nd, ctxs, first


def _formats_agree(stored, given):
    """Whether a call's input format fits the traced one: equal, or differing only by trailing
    None arguments (an optional input left at its default), as MXNet allows."""
    if stored == given:
        return True
    short, long_ = (given, stored) if len(given) < len(stored) else (stored, given)
    return short == long_[:len(short)] and all(f == -1 for f in long_[len(short):])


def _regroup(flat, fmt):
    if isinstance(fmt, int):
        if fmt == 0:
            return flat[0], flat[1:]
        return None, flat[1:]
    out = []
    for f in fmt:
        x, flat = _regroup(flat, f)
        out.append(x)
    return out, flat


class Block:
    """Base class of all layers and models (MXNet's gluon.Block). Children assigned as
    attributes are registered; parameters come from self.params.get(...)."""

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        lines = ["%s(" % self.__class__.__name__]
        for key, block in self._children.items():
            body = repr(block).replace("\n", "\n  ")
            lines.append("  (%s): %s" % (key, body))
        return "\n".join(lines) + "\n)" if len(lines) > 1 else lines[0] + ")"

    def __setattr__(self, name, value):
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError("changing attribute %r from %s to %s is not allowed"
                                % (name, type(existing).__name__, type(value).__name__))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                raise AttributeError("overriding Parameter attribute %r is not allowed" % name)
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _alias(self):
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        return self._prefix

    @property
    def name(self):
        return self._name

    @property
    def params(self):
        """This block's own parameters (not its children's)."""
        return self._params

    def name_scope(self):
        return self._scope

    def register_child(self, block, name=None):
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_hook(self, hook):
        """hook(block, inputs, output) after each forward; returns a HookHandle (detach())."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def register_forward_pre_hook(self, hook):
        """hook(block, inputs) before each forward; returns a HookHandle (detach())."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_op_hook(self, callback, monitor_all=False):
        """callback(node name, operator name, array) (names as UTF-8 bytes) for every op output (with monitor_all also
        every op input) when this block's hybridized graphs run, names as MXNet's
        ("<prefix>fwd_output", "<prefix>fwd_data"); set on every descendant too."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)
        self._op_hook = (callback, bool(monitor_all))

    def apply(self, fn):
        """Calls fn(block) on every descendant, children before parents, then on this block;
        returns this block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def _check_container_with_block(self):
        """Warns about Blocks held in a list, tuple or dict attribute and not registered as
        children: their parameters would be missing from collect_params (MXNet's warning)."""
        children = set(map(id, self._children.values()))

        def unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(unregistered(e) for e in data)
            if isinstance(data, dict):
                return any(unregistered(v) for v in data.values())
            return isinstance(data, Block) and id(data) not in children

        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k == "_children"):
                if unregistered(v):
                    warnings.warn('"%s.%s" is an unregistered container with Blocks. Blocks inside '
                                  "a list, tuple or dict are not registered automatically: "
                                  "register them with register_child() or use "
                                  "nn.Sequential/nn.HybridSequential instead."
                                  % (self.__class__.__name__, k), stacklevel=3)

    def collect_params(self, select=None):
        """Every parameter of this block and its children, by full name; select: a regular
        expression the names must match."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        ret.update(self.params if select is None else self.params.select(select))
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        """Parameters by structural name (features.0.weight), as save_parameters writes."""
        if prefix:
            prefix += "."
        ret = {prefix + key: p for key, p in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        for child in self._children.values():
            child.cast(dtype)
        for p in self.params.values():
            p.cast(dtype)

    def zero_grad(self):
        self.collect_params().zero_grad()

    def save_parameters(self, filename, deduplicate=False):
        """Saves parameters under structural names (features.0.weight), as MXNet's Gluon. With
        deduplicate, a parameter shared by several blocks is written once: as MXNet 1.9.1 does,
        under the last of its structural names, at the place of its first one."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            last = {}
            for name, p in params.items():
                last[id(p)] = name  # a later name replaces the value, the key keeps its place
            params = {name: params[name] for name in last.values()}
        arrays = {}
        for name, p in params.items():
            value = p._reduce()
            if value is None:
                raise RuntimeError("Parameter %r (%s) is not initialized; nothing to save"
                                   % (name, p.name))
            arrays[name] = value
        nd.save(filename, arrays)

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current"):
        """Loads a file of structural names (save_parameters, MXNet's Gluon) or of full
        prefixed names (export, collect_params().save). A parameter shared by several blocks
        may be in the file under any one of its names (save_parameters(deduplicate=True)).
        cast_dtype with dtype_source 'current' casts the saved values to the parameters' dtypes,
        with 'saved' casts the parameters to the saved dtypes; without cast_dtype, symnet casts
        to the parameters' dtypes where MXNet stops with an error."""
        from .parameter import _load_into
        loaded = nd.load(filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return  # a block without parameters: MXNet writes a file of no arrays (and no names)
        if not isinstance(loaded, dict):
            if loaded:
                raise ValueError("%s holds unnamed arrays; save_parameters writes names" % filename)
            loaded = {}
        loaded = {k.split(":", 1)[-1]: v for k, v in loaded.items()}
        if loaded and not any(k in params for k in loaded):
            # a file with full names: match the collect_params() names
            params = dict(self.collect_params().items())
            if self.prefix and not any(k in params for k in loaded):
                # save_params (MXNet's legacy form) writes them without the block's prefix
                loaded = {self.prefix + k: v for k, v in loaded.items()}
        dtypes = {id(p): p.dtype for p in params.values()}
        _load_into(params, loaded, ctx, allow_missing, ignore_extra, filename, cast_dtype,
                   dtype_source)
        if any(p.dtype != dtypes[id(p)] for p in params.values()):
            self._drop_cached_graphs()  # their executors hold the arrays of the old dtype

    def _drop_cached_graphs(self):
        """Forgets every hybridized graph in this block's tree (bound to replaced arrays)."""
        if hasattr(self, "_clear_cached"):
            self._clear_cached()
        for child in self._children.values():
            child._drop_cached_graphs()

    def save_params(self, filename):
        """Deprecated (MXNet 1.x's older form): saves the parameters by their full names less
        this block's prefix, the names a SymbolBlock of the exported graph loads."""
        warnings.warn("save_params is deprecated; use save_parameters (or export, to load the "
                      "model as a SymbolBlock)", stacklevel=2)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated: load_parameters (which reads save_params' files too)."""
        warnings.warn("load_params is deprecated; use load_parameters", stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def __call__(self, *args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        raise NotImplementedError

    def summary(self, *inputs):
        """Prints each block's output shape and parameter count for the given inputs."""
        rows = []
        hooks = []

        def add_hook(block):
            if isinstance(block, HybridBlock) and block._active:
                # as MXNet: a hybridized block runs as one graph, its children's hooks unseen
                raise AssertionError('"%s" must not be hybridized to print summary.' % block.name)

            def hook(blk, _, out):
                outs = out if isinstance(out, (list, tuple)) else [out]
                shapes = [o.shape for o in outs if isinstance(o, nd.NDArray)]
                n = sum(int(_prod(p.shape)) for p in blk.params.values() if p.shape)
                rows.append(("%s-%d" % (blk.__class__.__name__, len(rows) + 1),
                             shapes[0] if len(shapes) == 1 else shapes, n))
            hooks.append(block.register_forward_hook(hook))
            for child in block._children.values():
                add_hook(child)

        try:
            add_hook(self)
            self(*inputs)
        finally:
            for handle in hooks:
                handle.detach()
        total = sum(int(_prod(p.shape)) for p in self.collect_params().values() if p.shape)
        print("-" * 72)
        print("%-32s %-28s %10s" % ("Layer (type)", "Output Shape", "Param #"))
        print("=" * 72)
        for name, shape, n in rows:
            print("%-32s %-28s %10d" % (name, shape, n))
        print("=" * 72)
        print("Parameters in total: %d" % total)
        print("-" * 72)


def _prod(shape):
    out = 1
    for d in shape:
        out *= d
    return out


class _Token:
    """Held by a recorded backward: while it lives, its executor's saved activations are needed."""


class _CachedGraph:
    """A hybridized block's traced Symbol and its executors, one (or a few) per input
    signature; MXNet's CachedOp. Counters let tests see that a repeated signature neither
    re-traces nor re-binds."""

    MAX_EXECUTORS = 4  # per signature, for a block called several times in one recording

    def __init__(self, block, symbol, input_names):
        self.block_name = block.name  # not the block, which holds this graph: no cycle
        self.symbol = symbol
        self.input_names = input_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.executors = {}
        self.num_binds = 0
        # the block's parameters cannot change without clearing this graph (register_child,
        # cast and hybridize drop it), so they are looked up once, not on every call
        self.params = {p.name: p for p in block.collect_params().values()}
        self.arg_params = [self.params[n] for n in self.arg_names if n in self.params]
        nodes = json.loads(symbol.tojson())["nodes"]
        self.num_ops = sum(n["op"] != "null" for n in nodes)
        self.op_of_node = {n["name"]: n["op"] for n in nodes if n["op"] != "null"}

    def _op_name(self, monitored):
        """The operator of a monitored array "<node>_<output or input name>"."""
        node = monitored
        while node and node not in self.op_of_node:
            node = node.rpartition("_")[0]
        return self.op_of_node.get(node, "")

    def _install_hook(self, exe, hook):
        exe._op_hook = hook
        callback, monitor_all = hook
        # the names as bytes: MXNet hands its C strings over, and hooks decode them (py_str)
        exe.set_monitor_callback(
            lambda name, arr: callback(name.encode(), self._op_name(name).encode(), arr),
            monitor_all)

    def _bind(self, ctx, inputs, train, tracked, param_grads):
        params = self.params
        args, grads, reqs = {}, {}, {}
        for name, x in zip(self.input_names, inputs):
            args[name] = nd.zeros(x.shape, ctx=ctx, dtype=x.dtype)
        for name in self.arg_names:
            if name in args:
                continue
            if name not in params:
                raise RuntimeError("hybridized block %s: the traced graph reads %r, which is "
                                   "neither an input nor a parameter of the block"
                                   % (self.block_name, name))
            args[name] = params[name].data(ctx)
        for name, x, t in zip(self.input_names, inputs, tracked):
            if t:
                grads[name] = nd.zeros(x.shape, ctx=ctx, dtype=x.dtype)
                reqs[name] = "write"
        if param_grads:
            for name in self.arg_names:
                p = params.get(name)
                if p is not None and p.grad_req != "null":
                    a = args[name]
                    grads[name] = nd.zeros(a.shape, ctx=ctx, dtype=a.dtype)
                    reqs[name] = "write"
        for name in self.arg_names:
            reqs.setdefault(name, "null")
        aux = {name: params[name].data(ctx) for name in self.aux_names}
        self.num_binds += 1
        return self.symbol.bind(ctx, args, args_grad=grads or None, grad_req=reqs,
                                aux_states=aux)

    def __call__(self, inputs, hook=None):
        ctx = inputs[0].context
        recording = autograd.is_recording()
        train = autograd.is_training()
        tracked = tuple(recording and _core.autograd_is_tracked(x.handle) for x in inputs)
        arg_params = self.arg_params
        param_grads = recording and any(p.grad_req != "null" for p in arg_params)
        record = any(tracked) or param_grads
        key = (tuple((x.shape, x.handle.dtype) for x in inputs), str(ctx), train, tracked,
               param_grads)
        pool = self.executors.setdefault(key, [])
        entry = None
        for e in pool:
            if not record or e[1] is None or e[1]() is None:
                entry = e
                break
        if entry is None:
            if len(pool) >= self.MAX_EXECUTORS:
                return None  # every executor holds activations a backward still needs
            entry = [self._bind(ctx, inputs, train, tracked, param_grads), None]
            pool.append(entry)
        exe = entry[0]
        if hook is not None and getattr(exe, "_op_hook", None) is not hook:
            self._install_hook(exe, hook)  # once per executor, not on every call
        for name, x in zip(self.input_names, inputs):
            exe.arg_dict[name].handle.copy_from(x.handle)
        exe.forward(is_train=train)
        outs = [nd.NDArray(o.handle.copy()) for o in exe.outputs]
        if not record:
            return outs
        token = _Token()
        entry[1] = weakref.ref(token)
        names = list(self.input_names) + [p.name for p in arg_params]

        def backward(ograds, exe=exe, token=token):
            exe.backward(ograds)
            return [exe.grad_dict.get(n) for n in names]

        return autograd._record_function(list(inputs) + [p.data(ctx) for p in arg_params],
                                         outs, backward)


class HybridBlock(Block):
    """A block whose hybrid_forward(F, x, ..., **params) works with F = mx.nd (imperative) and
    F = mx.sym (traced). After hybridize(), calls run the traced graph through a bound executor:
    the same passes, memory plan, layout plan and AMP rewrite as simple_bind."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._active = False
        self._cached = None
        self._flags = {}
        self.num_traces = 0

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError("children of a HybridBlock must be HybridBlocks too; %s is a %s "
                             "(use Block as the parent)" % (name, type(block).__name__))
        super().register_child(block, name)
        self._clear_cached()

    def _clear_cached(self):
        if hasattr(self, "_cached"):
            self._cached = None

    def hybridize(self, active=True, static_alloc=False, static_shape=False, **kwargs):
        """Runs later calls through a traced graph (static_alloc / static_shape are accepted:
        symnet's executors always plan memory once per input signature)."""
        self._active = active
        self._flags = dict(static_alloc=static_alloc, static_shape=static_shape, **kwargs)
        self._clear_cached()
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, **kwargs)

    def cast(self, dtype):
        self._clear_cached()
        super().cast(dtype)

    def _trace(self, *args):
        """The block's graph for inputs like args: (symbol, input names, output format). None
        inputs stay None in the traced call and are no graph inputs."""
        flat, fmt = _flatten(args, "inputs")
        count = sum(a is not None for a in flat)
        names = ["data"] if count == 1 else ["data%d" % i for i in range(count)]
        variables = iter([_sym.var(n) for n in names])
        inputs = [None if a is None else next(variables) for a in flat]
        grouped, _ = _regroup(inputs, fmt)  # args is a tuple: fmt is a list, one per arg
        params = {k: v.var() for k, v in self._reg_params.items()}
        with self.name_scope():
            out = self.hybrid_forward(_sym, *grouped, **params)
        outs, out_fmt = _flatten(out, "outputs")
        self.num_traces += 1
        return _sym.Group(outs) if len(outs) > 1 else outs[0], names, out_fmt

    def infer_shape(self, *args):
        """Completes the parameters' unknown shapes from input arrays like args."""
        sym, names, _ = self._trace(*args) if self._cached is None else \
            (self._cached[0].symbol, self._cached[0].input_names, None)
        self._infer_from(sym, names, args)

    def _infer_from(self, sym, names, args):
        flat, _ = _flatten(args, "inputs")
        known = {n: x.shape for n, x in zip(names, [a for a in flat if a is not None])}
        arg_shapes, _, aux_shapes = sym._infer_shape_partial_arrays(**known)  # 0: an empty dim
        shapes = dict(zip(sym.list_arguments(), arg_shapes or []))
        shapes.update(zip(sym.list_auxiliary_states(), aux_shapes or []))
        for p in self.collect_params().values():
            if shapes.get(p.name):
                p.shape = shapes[p.name]

    def _finish_deferred(self, *args):
        params = self.collect_params().values()
        if any(p._deferred is not None for p in params):
            self.infer_shape(*args)
            for p in params:
                p._finish_deferred_init()

    def _call_cached(self, *args):
        flat, in_fmt = _flatten(args, "inputs")
        if self._cached is None:
            sym, names, out_fmt = self._trace(*args)
            self._cached = (_CachedGraph(self, sym, names), out_fmt)
            self._cached_in_fmt = in_fmt
        elif not _formats_agree(self._cached_in_fmt, in_fmt):
            raise ValueError("%s: the inputs' structure %s differs from the one the hybridized "
                             "graph was traced with, %s (None where an input was None)"
                             % (self.name, in_fmt, self._cached_in_fmt))
        self._finish_deferred(*args)  # from the cached graph: no second trace
        graph, out_fmt = self._cached
        if self._inlined(graph):
            return self._imperative(*args)
        outs = graph([a for a in flat if a is not None], getattr(self, "_op_hook", None))
        if outs is None:
            return self._imperative(*args)
        out, _ = _regroup(outs, out_fmt)
        return out

    def _inlined(self, graph):
        """Whether a recorded call runs op by op, as MXNet's CachedOp records a graph of at most
        inline_limit ops (autograd.get_symbol then shows its ops, not one node). Only with an
        explicit hybridize(inline_limit=...): symnet's executors are faster than op-by-op
        calls, and the gradients are the same either way."""
        limit = self._flags.get("inline_limit")
        return (limit is not None and not self._flags.get("static_alloc")
                and autograd.is_recording() and graph.num_ops <= limit)

    def _imperative(self, x, *args):
        if not self._reg_params:  # (activations, pooling: no device to look up)
            return self.hybrid_forward(nd, x, *args)
        ctx = _input_kinds((x,) + args)[3] or current_context()
        try:
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        except DeferredInitializationError:
            self._finish_deferred(x, *args)
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        return self.hybrid_forward(nd, x, *args, **params)

    def forward(self, x, *args):
        # as MXNet's: inputs may nest in lists and be None; NDArrays and Symbols do not mix
        has_sym, has_nd, ctxs, _ = _input_kinds((x,) + args)
        if has_sym and has_nd:
            raise ValueError("%s: the inputs mix NDArrays and Symbols" % self.name)
        if not has_sym and not has_nd:
            raise ValueError("%s: the inputs hold no NDArray and no Symbol (got %s)"
                             % (self.name, ", ".join(type(a).__name__ for a in (x,) + args)))
        if has_sym:
            params = {k: v.var() for k, v in self._reg_params.items()}
            with self.name_scope():
                return self.hybrid_forward(_sym, x, *args, **params)
        if self._active:
            if len(ctxs) > 1:
                raise ValueError("%s: a hybridized block takes its inputs on one context, got %s"
                                 % (self.name, sorted(map(str, ctxs))))
            return self._call_cached(x, *args)
        return self._imperative(x, *args)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError

    @property
    def num_binds(self):
        """How many executors the hybridized graph has bound (one per input signature)."""
        return 0 if self._cached is None else self._cached[0].num_binds

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Writes path-symbol.json and path-%04d.params (arg:/aux: prefixed names, as MXNet's
        export), loadable by SymbolBlock.imports and by MXNet."""
        if self._cached is None:
            raise RuntimeError("export: call hybridize() and run the block once first, so its "
                               "graph is known")
        sym = self._cached[0].symbol
        sym.save("%s-symbol.json" % path, remove_amp_cast=remove_amp_cast)
        params = {p.name: p for p in self.collect_params().values()}
        arrays = {}
        for name in sym.list_arguments():
            if name in params:
                arrays["arg:" + name] = params[name]._reduce()
        for name in sym.list_auxiliary_states():
            if name in params:
                arrays["aux:" + name] = params[name]._reduce()
        nd.save("%s-%04d.params" % (path, epoch), arrays)


class SymbolBlock(HybridBlock):
    """A block made from a Symbol: its inputs are the given variables, every other argument and
    auxiliary state becomes a parameter (MXNet's SymbolBlock)."""

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix="", params=None)
        # parameters keep their full names; a given dict is shared by those names
        self._params = ParameterDict("", params)
        outputs = outputs if isinstance(outputs, _sym.Symbol) else _sym.Group(list(outputs))
        inputs = [inputs] if isinstance(inputs, _sym.Symbol) else list(inputs)
        self._input_names = [i.name for i in inputs]
        self._symbol = outputs
        for name in outputs.list_arguments():
            if name not in self._input_names:
                self.params.get(name, allow_deferred_init=True, grad_req="write")
        for name in outputs.list_auxiliary_states():
            self.params.get(name, allow_deferred_init=True, grad_req="null")
        # structural names for save_parameters: the full names less their common prefix (MXNet's)
        names = list(self.params.keys())
        cut = len(os.path.commonprefix(names)) if names else 0
        self._reg_params = {k[cut:]: p for k, p in self.params.items()}
        self._active = True

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None):
        """Loads an exported model: symbol JSON, its input names, optionally its .params."""
        sym = _sym.load(symbol_file)
        names = [input_names] if isinstance(input_names, str) else list(input_names)
        block = SymbolBlock(sym, [_sym.var(n) for n in names])
        if param_file is not None:
            block.collect_params().load(param_file, ctx=ctx, allow_missing=False,
                                        ignore_extra=True)
        return block

    def hybridize(self, active=True, **kwargs):
        self._active = True  # a SymbolBlock always runs its graph

    def _trace(self, *args):
        self.num_traces += 1
        return self._symbol, self._input_names, [0] * len(self._symbol.list_outputs()) \
            if len(self._symbol.list_outputs()) > 1 else 0

    def infer_shape(self, *args):
        self._infer_from(self._symbol, self._input_names, args)

    def forward(self, x, *args):
        if isinstance(x, _sym.Symbol):
            # on symbols (inside a parent's trace): the graph with its inputs replaced
            flat, _ = _flatten((x,) + args, "inputs")
            if len(flat) != len(self._input_names) or not all(isinstance(a, _sym.Symbol) for a in flat):
                raise ValueError("SymbolBlock: %d input symbols for the inputs %s"
                                 % (len(flat), self._input_names))
            out = self._symbol(**dict(zip(self._input_names, flat)))
            n = len(out.list_outputs())
            return [out[i] for i in range(n)] if n > 1 else out
        return self._call_cached(x, *args)
