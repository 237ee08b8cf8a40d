"""Symbol: MXNet's symbolic API. Build a network from ops, inspect it, infer shapes, bind it.

Every registered operator is a function here: symnet.sym.FullyConnected(data, num_hidden=10).
"""
import builtins
import json
import warnings


from .. import _binary_ops, _core
from ..base import MXNetError, NotImplementedForSymbol, dtype_name, numeric_types, numpy_dtype, param_str
from ..context import current_context
from ..attribute import current_attrs
from ..name import NameManager
from ..util import is_np_shape


class Symbol:
    """A network (or part of one): the list of its outputs."""

    __slots__ = ("handle",)

    def __init__(self, handle):
        self.handle = handle

    # ---- structure --------------------------------------------------------------------------
    @property
    def name(self):
        if self.handle.num_outputs() != 1:
            return None
        return self.handle.name()

    def __repr__(self):
        if self.handle.num_outputs() == 1:
            return "<Symbol %s>" % self.name
        return "<Symbol group [%s]>" % ", ".join(self.list_outputs())

    def __len__(self):
        return self.handle.num_outputs()

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        if isinstance(index, str):
            return Symbol(self.handle.output_by_name(index))
        if isinstance(index, builtins.slice):  # the module's `slice` is the operator
            return Group([self[i] for i in range(len(self))[index]])
        n = len(self)
        if not -n <= index < n:
            raise IndexError("output index %d out of range for %d outputs" % (index, n))
        return Symbol(self.handle.output(index % n))

    def list_arguments(self):
        return self.handle.list_arguments()

    def list_outputs(self):
        return self.handle.list_outputs()

    def list_auxiliary_states(self):
        return self.handle.list_auxiliary_states()

    def list_inputs(self):
        return self.handle.list_inputs()

    def get_internals(self):
        return Symbol(self.handle.get_internals())

    def get_children(self):
        """The inputs of this symbol's nodes, or None when they have none (a variable). As in
        MXNet, a node lists its inputs once however many of its outputs this symbol holds
        (SliceChannel's three outputs: its one input)."""
        children = self.handle.get_children()
        return Symbol(children) if children.num_outputs() else None

    def attr(self, key):
        value = self.handle.attr(key)
        return value if value != "" else None

    def list_attr(self):
        d = self.handle.attr_dict().get(self.name, {})
        return {k.strip("_") if k.startswith("__") else k: v for k, v in d.items()}

    def attr_dict(self):
        return self.handle.attr_dict()

    def _set_attr(self, **kwargs):
        self.handle.set_attr({k: str(v) for k, v in kwargs.items()})

    def __copy__(self):
        return Symbol(self.handle.copy())

    def __deepcopy__(self, memo):
        return Symbol(self.handle.copy())

    def reshape(self, *args, **kwargs):
        """x.reshape((0, -1)) or x.reshape(shape=(0, -1)), as on an NDArray."""
        return _op("reshape")(self, *args, **kwargs)

    def astype(self, dtype):
        """This symbol cast to `dtype` (a Cast node)."""
        return _op("Cast")(self, dtype=dtype_name(dtype))

    def copy(self):
        return self.__copy__()

    # ---- inference --------------------------------------------------------------------------
    def _known(self, args, kwargs, convert):
        known = {}
        if args:
            names = self.list_arguments()
            for name, value in zip(names, args):
                if value is not None:
                    known[name] = convert(value)
        for name, value in kwargs.items():
            if value is not None:
                known[name] = convert(value)
        return known

    def _infer_shape_native(self, args, kwargs, zero_unknown=True):
        """The core's inference on the given shapes. The core reads 0 as an empty dim and None
        as an unknown one. As in MXNet 1.x, a 0 given here is an unknown dim (with NumPy shapes
        on, -1 is, and 0 stays empty); zero_unknown=False keeps a 0 an empty dim."""
        if is_np_shape():
            def convert(shape):
                return tuple(None if d is None or d < 0 else d for d in shape)
        elif zero_unknown:
            def convert(shape):
                return tuple(None if d is None or d == 0 else d for d in shape)
        else:
            convert = tuple
        return self.handle.infer_shape(self._known(args, kwargs, convert), True)

    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes) from known shapes given by position or name;
        (None, None, None) with a warning when some shape cannot be inferred. A 0 given is first
        an unknown dim, as in MXNet 1.x, to be decided by the graph; where the graph leaves
        shapes undecided, symnet reads it as an empty dim (zero-size arrays) and tries again."""
        retry = not is_np_shape() and _gives_zero(args, kwargs)
        try:
            arg, out, aux, complete = self._infer_shape_native(args, kwargs)
        except MXNetError:
            if not retry:
                raise
            complete = False  # an op that refuses the unknown dims may take empty ones
        if not complete and retry:
            arg, out, aux, complete = self._infer_shape_native(args, kwargs, zero_unknown=False)
        if not complete:
            unknown = [n for n, s in zip(self.list_arguments(), arg) if s is None or None in s]
            warnings.warn("cannot infer the shapes of: %s" % ", ".join(unknown), stacklevel=2)
            return None, None, None
        return arg, out, aux

    def infer_shape_partial(self, *args, **kwargs):
        """Like infer_shape, but returns what is known. Unknown parts are written as MXNet 1.9.1
        writes them: an unknown dim is 0 and an unknown shape () (with NumPy shapes on: -1 and
        None)."""
        return self._partial_shapes(args, kwargs, True)

    def _infer_shape_partial_arrays(self, **shapes):
        """infer_shape_partial from the shapes of actual arrays (Gluon's deferred initialization):
        a 0 there is an empty dim (a batch of none), not MXNet 1.x's unknown one."""
        return self._partial_shapes((), shapes, False)

    def _partial_shapes(self, args, kwargs, zero_unknown):
        arg, out, aux, _ = self._infer_shape_native(args, kwargs, zero_unknown)
        np_mode = is_np_shape()
        unknown_dim, unknown_shape = (-1, None) if np_mode else (0, ())

        def convert(shapes):
            return [unknown_shape if s is None else tuple(unknown_dim if d is None else d for d in s)
                    for s in shapes]

        return convert(arg), convert(out), convert(aux)

    def infer_type(self, *args, **kwargs):
        """(arg_types, out_types, aux_types) as numpy dtypes, from known dtypes."""
        arg, out, aux, complete = self.handle.infer_type(self._known(args, kwargs, dtype_name), True)
        if not complete:
            return None, None, None
        return _np_types(arg), _np_types(out), _np_types(aux)

    def infer_type_partial(self, *args, **kwargs):
        """Like infer_type, but returns what is known, with None for a dtype still unknown."""
        arg, out, aux, _ = self.handle.infer_type(self._known(args, kwargs, dtype_name), True)
        return _np_types(arg), _np_types(out), _np_types(aux)

    # ---- serialisation ----------------------------------------------------------------------
    def tojson(self, remove_amp_cast=True):
        """The graph as MXNet 1.x JSON. As in MXNet, the casts an AMP conversion inserted are left
        out unless remove_amp_cast=False: the file then describes the float32 network."""
        text = self._for_saving(remove_amp_cast).tojson()
        if is_np_shape():
            # MXNet marks a graph written under NumPy shape semantics: its 0 dims are empty dims
            at = text.rfind('"mxnet_version"')
            if at < 0:
                raise MXNetError("tojson: the core wrote no graph attributes to mark")
            text = text[:at] + '"is_np_shape": ["int", 1],\n    ' + text[at:]
        return text

    def save(self, fname, remove_amp_cast=True):
        self._for_saving(remove_amp_cast).save(fname)

    def _for_saving(self, remove_amp_cast):
        return _core.amp_remove_casts(self.handle) if remove_amp_cast else self.handle

    def _gen_atomic_symbol(self):
        """A new node of this symbol's head operator, with its attributes and its own input
        variables (MXNet's atomic symbol, which graph rewriters use to clone an op)."""
        doc = json.loads(self.handle.tojson())
        node = doc["nodes"][doc["heads"][0][0]]
        if node["op"] == "null":
            raise MXNetError("_gen_atomic_symbol: %s is a variable, not an operator"
                             % node["name"])
        return Symbol(_core.Symbol.create(node["op"], node["name"], dict(node.get("attrs", {})),
                                          [], {}))

    def debug_str(self):
        return json.dumps(json.loads(self.tojson(remove_amp_cast=False)), indent=1)

    # ---- binding ----------------------------------------------------------------------------
    def simple_bind(self, ctx=None, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None, shared_buffer=None,
                    options=None, **kwargs):
        """Infers all shapes from the given input shapes, allocates arrays and binds.

        options: a dict of bind options overriding the defaults (mx.default_bind_options()):
        layout ('auto' | 'NHWC' | 'off'), cuda_graphs (bool), workspace_mb (int), fuse (bool:
        binds without gradients fold BatchNorm into convolutions)."""
        from ..executor import Executor
        from .. import amp
        ctx = ctx or current_context()
        sym = amp._maybe_convert(self)
        reqs, default = _grad_req_args(grad_req, self.list_arguments())
        types = {k: dtype_name(v) for k, v in (type_dict or {}).items()}
        shapes = {k: tuple(v) for k, v in kwargs.items()}
        handle = _core.Executor.simple_bind(sym.handle, ctx._handle(), shapes, types, reqs, default,
                                            options)
        return Executor(handle, sym, ctx)

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None, options=None):
        """Binds to given arrays (lists in list_arguments() order, or dicts by name); options as
        in simple_bind. With shared_exec the new executor reuses that one's internal memory
        when it is large enough (the two must not run at the same time), as MXNet's."""
        from ..executor import Executor
        from .. import amp
        sym = amp._maybe_convert(self)
        arg_names = self.list_arguments()
        args = _array_list(args, arg_names, "args")
        aux = _array_list(aux_states or [], self.list_auxiliary_states(), "aux_states")
        reqs, default = _grad_req_args(grad_req, arg_names)
        req_list = [reqs.get(n, default) for n in arg_names]
        if args_grad is None:
            grads = [None] * len(arg_names)
            req_list = ["null"] * len(arg_names)
        else:
            grads = _array_list(args_grad, arg_names, "args_grad", allow_missing=True)
        req_list = ["null" if g is None else r for g, r in zip(grads, req_list)]
        from ..ndarray import NDArray
        none = _core.none_array()
        handle = _core.Executor.bind(sym.handle, ctx._handle(), [a.handle for a in args],
                                     [g.handle if isinstance(g, NDArray) else none for g in grads],
                                     req_list, [a.handle for a in aux], options,
                                     shared_exec.handle if shared_exec is not None else None)
        return Executor(handle, sym, ctx)

    def eval(self, ctx=None, **kwargs):
        """Binds with the given arrays and runs forward (inference); returns the outputs."""
        exe = self.bind(ctx or current_context(), kwargs)
        return exe.forward()

    # ---- arithmetic -------------------------------------------------------------------------
    def _binary(self, other, op, sop):
        if isinstance(other, Symbol):
            return _compose(op, None, {}, [self, other], {}, None)
        if isinstance(other, numeric_types):
            return _compose(sop, None, {"scalar": param_str(float(other))}, [self], {}, None)
        return NotImplemented

    def __add__(self, o):
        return self._binary(o, "_Plus", "_PlusScalar")

    def __radd__(self, o):
        return self.__add__(o)

    def __sub__(self, o):
        return self._binary(o, "_Minus", "_MinusScalar")

    def __rsub__(self, o):
        if isinstance(o, numeric_types):
            return _compose("_RMinusScalar", None, {"scalar": param_str(float(o))}, [self], {}, None)
        return NotImplemented

    def __mul__(self, o):
        return self._binary(o, "_Mul", "_MulScalar")

    def __rmul__(self, o):
        return self.__mul__(o)

    def __truediv__(self, o):
        return self._binary(o, "_Div", "_DivScalar")

    def __rtruediv__(self, o):
        if isinstance(o, numeric_types):
            return _compose("_RDivScalar", None, {"scalar": param_str(float(o))}, [self], {}, None)
        return NotImplemented

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return _op("abs")(self)

    def __bool__(self):
        # a symbol has no value to test; MXNet raises rather than let `if sym:` be always true
        raise NotImplementedForSymbol(self.__bool__, "bool")

    __nonzero__ = __bool__

    # ---- composition and pickling -----------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """A copy of this symbol with the variables named in kwargs replaced by the symbols
        given (net(fc3_data=other)); name= renames the copy's head node."""
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args, **kwargs):
        """Replaces, in place, the variables named in kwargs by the given single-output symbols.
        As in MXNet 1.9.1, a general graph is composed by keyword only."""
        name = kwargs.pop("name", None)
        if args:
            raise MXNetError("General composition only support kwargs for now: composing "
                             "positional arguments into a graph is not supported")
        for k, v in kwargs.items():
            if not isinstance(v, Symbol):
                raise TypeError("Compose expect `Symbol` as arguments")
            if len(v) != 1:
                raise MXNetError("Keyword Argument %s is a tuple, single value is required" % k)
        doc = json.loads(self.handle.tojson())
        names = self.list_inputs()
        for k in kwargs:
            if k not in names:
                raise MXNetError("Symbol.Compose: keyword argument name %s not found; candidate "
                                 "arguments: %s" % (k, ", ".join(names)))
        self.handle = _core.Symbol.from_json(json.dumps(_compose_json(doc, kwargs, name)))

    def __getstate__(self):
        # the core's graph object cannot be pickled; its JSON (AMP casts kept) rebuilds it
        return {"handle": self.tojson(remove_amp_cast=False)}

    def __setstate__(self, state):
        self.handle = _core.Symbol.from_json(state["handle"])

    __hash__ = object.__hash__  # the comparison operators below return symbols


def _gives_zero(args, kwargs):
    """Whether some shape given to infer_shape has a 0 dim (MXNet 1.x's unknown dim)."""
    shapes = list(args) + list(kwargs.values())
    return any(s is not None and 0 in tuple(s) for s in shapes)


def _np_types(names):
    """dtype names from the core as MXNet's infer_type gives them: numpy scalar types (bfloat16
    as its numpy dtype), None where unknown."""
    return [None if t is None else numpy_dtype(t).type if t != "bfloat16" else numpy_dtype(t)
            for t in names]


def _compose_json(doc, replace, name):
    """The graph `doc` (symbol JSON) with the variable nodes named in `replace` swapped for the
    graphs of those symbols; `name` (if given) renames the node of the first head."""
    nodes, remap, subst = [], {}, {}
    for var_name, sym in replace.items():
        sub = json.loads(sym.handle.tojson())
        base = len(nodes)
        for node in sub["nodes"]:
            node = dict(node)
            node["inputs"] = [[base + e[0]] + list(e[1:]) for e in node["inputs"]]
            nodes.append(node)
        head = sub["heads"][0]
        subst[var_name] = [base + head[0]] + list(head[1:])
    for i, node in enumerate(doc["nodes"]):
        if node["op"] == "null" and node["name"] in subst:
            remap[i] = ("entry", subst[node["name"]])
            continue
        node = dict(node)
        node["inputs"] = [_remap_entry(e, remap) for e in node["inputs"]]
        remap[i] = ("node", len(nodes))
        nodes.append(node)
    heads = [_remap_entry(e, remap) for e in doc["heads"]]
    if name:
        nodes[heads[0][0]]["name"] = name
    out = {"nodes": nodes, "arg_nodes": [i for i, n in enumerate(nodes) if n["op"] == "null"],
           "heads": heads}
    if "attrs" in doc:
        out["attrs"] = doc["attrs"]
    return out


def _remap_entry(entry, remap):
    """A node entry [node, output, version] of the old graph in the new one: a moved node keeps
    the output index; a replaced variable stands for its symbol's head entry."""
    kind, target = remap[entry[0]]
    return list(target) if kind == "entry" else [target] + list(entry[1:])


# ---- maximum, power, hypot and the operators **, %, ==, >, ... (same-shape ops, as MXNet) ---
def _op(name):
    """The generated function of operator `name` (symbol.op, filled in after this module)."""
    from . import op
    return getattr(op, name)


def _apply_binary(op, scalar, symbols):
    if scalar is None:
        return _compose(op[0], None, {}, symbols, {}, None)
    return _compose(op, None, {"scalar": param_str(float(scalar))}, symbols, {}, None)


def _is_symbol(x):
    return isinstance(x, Symbol)


for _name in ("maximum", "minimum", "power", "hypot"):
    globals()[_name] = _binary_ops.make_function(_name, _is_symbol, numeric_types, _apply_binary)
pow = globals()["power"]  # MXNet's mx.sym.pow
for _method, _fname, _swapped in _binary_ops.OPERATORS:
    setattr(Symbol, _method, _binary_ops.make_operator(
        _binary_ops.make_function(_fname, _is_symbol, numeric_types, _apply_binary), _swapped,
        _is_symbol, numeric_types))


def _grad_req_args(grad_req, arg_names):
    if isinstance(grad_req, str):
        return {}, grad_req
    if isinstance(grad_req, dict):
        return dict(grad_req), "null"
    if isinstance(grad_req, (list, tuple)):
        return dict(zip(arg_names, grad_req)), "null"
    raise TypeError("grad_req must be a str, list or dict")


def _array_list(arrays, names, what, allow_missing=False):
    if isinstance(arrays, dict):
        missing = [n for n in names if n not in arrays]
        if missing and not allow_missing:
            raise MXNetError("bind: %s is missing %s" % (what, ", ".join(missing)))
        extra = [k for k in arrays if k not in names]
        if extra:
            raise MXNetError("bind: %s has unknown names %s; expected %s"
                             % (what, ", ".join(extra), ", ".join(names)))
        return [arrays.get(n) for n in names]
    arrays = list(arrays)
    if len(arrays) != len(names):
        raise MXNetError("bind: %s has %d arrays but the symbol has %d (%s)"
                         % (what, len(arrays), len(names), ", ".join(names)))
    return arrays


def _compose(op_name, name, params, args, kwargs, attr):
    # MXNet names an unnamed contrib node after its python function (bilinearresize2d0)
    hint = op_name[len("_contrib_"):] if op_name.startswith("_contrib_") else op_name
    name = NameManager.current().get(name, hint)
    # MXNet's hidden keys: lr_mult= / wd_mult= given to an operator are no operator parameters
    # but attributes of its node and of the variables composition creates for it (FC's weight
    # and bias), where Module's optimizer reads them
    mults = {"__%s__" % k: str(params.pop(k)) for k in ("lr_mult", "wd_mult") if k in params}
    handle = _core.Symbol.create(op_name, name, params, [a.handle for a in args],
                                 {k: v.handle for k, v in kwargs.items()})
    sym = Symbol(handle)
    # MXNet's: the current AttrScope's attributes under the call's own, on the node and on the
    # input variables composition created for it (FullyConnected's weight and bias)
    attr = current_attrs(attr)
    if attr:
        _set_hidden_attrs(handle, {k: str(v) for k, v in attr.items()},
                          [a.handle for a in args] + [v.handle for v in kwargs.values()])
    if mults:
        _set_hidden_attrs(handle, mults, [a.handle for a in args] + [v.handle for v in kwargs.values()])
    if op_name == "LeakyReLU" and params.get("act_type") == "prelu":
        _prelu_gamma_init(handle)
    return sym


def _set_hidden_attrs(handle, attrs, given):
    """attrs on the node of handle and on its input variables that composition created (those
    not among the given symbols)."""
    handle.set_attr(attrs)
    given_names = {g.name() for g in given if g.is_variable()}
    children = handle.get_children()
    for i in range(children.num_outputs()):
        child = children.output(i)
        if child.is_variable() and child.name() not in given_names:
            child.set_attr(attrs)


#: the initializer MXNet's LeakyReLU gives its prelu gamma input
_PRELU_GAMMA_INIT = '["Constant", {"value": 0.25}]'


def _prelu_gamma_init(handle):
    """As MXNet's LeakyReLU does when composed: its gamma input, when a variable without an
    __init__ attribute, gets one of Constant(0.25), which initializers honour before the name
    suffix ('gamma' alone would start the slopes at 1). The C++ operator lacks this input-variable
    hook (FInputVarAttrs, as BatchNorm has for its moving statistics), so it is set here."""
    children = handle.get_children()
    if children.num_outputs() < 2:
        return
    gamma = children.output(1)
    if gamma.is_variable() and gamma.attr("__init__") == "":
        gamma.set_attr({"__init__": _PRELU_GAMMA_INIT})


def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
        stype=None, **kwargs):
    """A variable: a network input, parameter or auxiliary state."""
    if not isinstance(name, str):
        raise TypeError("a variable name must be a str")
    attrs = dict(current_attrs(attr))  # the current AttrScope's, under the call's own
    if shape is not None:
        attrs["__shape__"] = str(tuple(shape))
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(_DTYPE_FLAGS[dtype_name(dtype)])
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            attrs[k] = str(v)
        else:
            raise ValueError("unknown variable attribute %r; use attr={...}" % k)
    return Symbol(_core.Symbol.variable(name, attrs))


Variable = var

_DTYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5,
                "int64": 6, "bool": 7, "bfloat16": 12}


def Group(symbols):
    """One symbol whose outputs are those of all `symbols`."""
    symbols = list(symbols)
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Group expects a non-empty list of Symbols")
    return Symbol(_core.Symbol.group([s.handle for s in symbols]))


def load_json(json_str):
    """A symbol from MXNet symbol JSON text."""
    return Symbol(_core.Symbol.from_json(json_str))


def load(fname):
    """A symbol from an MXNet symbol JSON file."""
    return Symbol(_core.Symbol.load(fname))


# ---- creation: MXNet's mx.sym.zeros/ones/full/arange, the _zeros/_ones/_full/_arange ops --------
# (those functions come from the registry, below; the dtype is written into the JSON, as MXNet's)
def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros of `shape` (float32 unless dtype says otherwise)."""
    return _op("_zeros")(shape=shape, dtype=dtype_name(dtype) or "float32", **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones of `shape` (float32 unless dtype says otherwise)."""
    return _op("_ones")(shape=shape, dtype=dtype_name(dtype) or "float32", **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol of `shape` filled with `val` (float32 unless dtype says otherwise)."""
    return _op("_full")(shape=shape, dtype=dtype_name(dtype) or "float32", value=float(val),
                              **kwargs)


def _like_function(op_name):
    """sym.zeros_like / sym.ones_like, which ignore any parameter given (a dtype too), as MXNet's
    do; symnet's operators would refuse them."""
    def like(data=None, name=None, attr=None, out=None, **ignored):
        return _compose(op_name, name, {}, [data], {}, attr)

    like.__name__ = op_name
    like.__doc__ = "A symbol of %s with the shape and dtype of `data` (other arguments are " \
                   "ignored, as in MXNet)." % op_name.split("_")[0]
    return like


zeros_like = _like_function("zeros_like")
ones_like = _like_function("ones_like")
Symbol.zeros_like = lambda self, *args, **kwargs: zeros_like(self, *args, **kwargs)
Symbol.ones_like = lambda self, *args, **kwargs: ones_like(self, *args, **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """start, start + step, ... before stop, each `repeat` times; [0, start) without stop."""
    return _op("_arange")(start=start, stop=stop, step=step, repeat=repeat,
                                infer_range=infer_range, name=name,
                                dtype=dtype_name(dtype) or "float32")


# what `from .symbol import *` gives the package: every public name here but the modules imported
__all__ = [_n for _n, _v in globals().items() if not _n.startswith("_") and type(_v) is not type(json)]
