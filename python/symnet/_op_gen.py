"""Generates symnet.sym.<Op> and symnet.nd.<Op> functions from the C++ operator registry."""

from . import _core
from .base import param_str


def _doc(info):
    lines = [info["description"] or info["name"], "", "Parameters", "----------"]
    for name, type_info, desc in info["inputs"]:
        lines.append("%s : %s" % (name, type_info))
        if desc:
            lines.append("    " + desc)
    for name, type_info, desc in info["params"]:
        lines.append("%s : %s" % (name, type_info))
        if desc:
            lines.append("    " + desc)
    lines.append("name : str, optional\n    Name of the resulting symbol.")
    return "\n".join(lines)


def _none_params(info):
    """Parameters whose type takes None as a value (slice_axis's end, "int or None"): an explicit
    None is written as "None", as MXNet writes it. For the others None means "not given"."""
    return {name for name, type_info, _ in info["params"] if "or None" in type_info}


def _split_params(kwargs, is_input, keep_none=()):
    inputs, params = {}, {}
    for key, value in kwargs.items():
        if is_input(value):
            inputs[key] = value
        elif value is not None or key in keep_none:
            params[key] = param_str(value)
    return inputs, params


def _take_positional(op_name, info, args, is_array):
    """MXNet's generated signatures are (inputs..., parameters...): after the input arrays, the
    positional arguments fill the parameters in order, so mx.nd.clip(x, 0, 6) sets a_min and
    a_max. Returns the positional arrays and the parameters given positionally."""
    args = list(args)
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and info["key_var_num_args"]:
        return list(args[0]), {}
    n_arrays = 0
    while n_arrays < len(args) and is_array(args[n_arrays]):
        n_arrays += 1
    rest = args[n_arrays:]
    if not rest or info["key_var_num_args"]:
        return args, {}
    inputs = [i[0] for i in info["inputs"]]
    if n_arrays < len(inputs):
        raise TypeError("%s: positional argument %d (%s) must be an array or symbol, got %r"
                        % (op_name, n_arrays, inputs[n_arrays], type(rest[0])))
    names = [p[0] for p in info["params"]]
    if len(rest) > len(names):
        raise TypeError("%s takes at most %d positional parameters after its inputs (%s), got %d"
                        % (op_name, len(names), ", ".join(names), len(rest)))
    keep_none = _none_params(info)
    return args[:n_arrays], {n: v for n, v in zip(names, rest) if v is not None or n in keep_none}


def _merge(op_name, positional, kwargs):
    twice = sorted(set(positional) & set(kwargs))
    if twice:
        raise TypeError("%s: %s given both positionally and by keyword" % (op_name, ", ".join(twice)))
    kwargs.update(positional)
    return kwargs


def _make_symbol_function(op_name, info):
    from .symbol.symbol import Symbol, _compose
    keep_none = _none_params(info)

    def op_function(*args, **kwargs):
        name = kwargs.pop("name", None)
        attr = kwargs.pop("attr", None)
        kwargs.pop("out", None)
        args, positional = _take_positional(op_name, info, args, lambda v: isinstance(v, Symbol))
        for a in args:
            if not isinstance(a, Symbol):
                raise TypeError("%s: positional arguments must be Symbols, got %r" % (op_name, type(a)))
        kwargs = _merge(op_name, positional, kwargs)
        sym_kwargs, params = _split_params(kwargs, lambda v: isinstance(v, Symbol), keep_none)
        return _compose(op_name, name, params, args, sym_kwargs, attr)

    op_function.__name__ = op_name
    op_function.__doc__ = _doc(info)
    return op_function


_PLAIN = {str: str, int: str, float: str, bool: str}


def _fast_params(args, kwargs, keep_none, NDArray):
    """The parameters of a call whose positional arguments are all arrays (NDArray: the class,
    passed in, since this module is imported before ndarray.py) and whose keyword values are all
    parameters, as _split_params writes them; None when the call is another kind (an array by
    keyword, a parameter given positionally) and needs the general path."""
    for a in args:
        if not isinstance(a, NDArray):
            return None
    params = {}
    for key, value in kwargs.items():
        plain = _PLAIN.get(type(value))
        if plain is not None:
            params[key] = plain(value)  # str(True) is "True", as param_str writes it
        elif value is None:
            if key in keep_none:
                params[key] = "None"
        elif isinstance(value, NDArray):
            return None
        else:
            params[key] = param_str(value)
    return params


def _make_ndarray_function(op_name, info):
    from .ndarray.ndarray import NDArray, _invoke

    input_names = [i[0] for i in info["inputs"]]
    keep_none = _none_params(info)

    def op_function(*args, **kwargs):
        out = kwargs.pop("out", None)
        kwargs.pop("name", None)
        # the common call (arrays positionally, parameters by keyword) without the general
        # argument handling below: imperative code makes this call per op, so its Python cost
        # is a large part of a small layer's time (example/benchmark/imperative_overhead.py)
        params = _fast_params(args, kwargs, keep_none, NDArray)
        if params is not None:
            return _invoke(op_name, params, args, out)
        args, positional = _take_positional(op_name, info, args, lambda v: isinstance(v, NDArray))
        kwargs = _merge(op_name, positional, kwargs)
        nd_kwargs, params = _split_params(kwargs, lambda v: isinstance(v, NDArray), keep_none)
        inputs = list(args)
        for name in input_names[len(inputs):]:
            if name in nd_kwargs:
                inputs.append(nd_kwargs.pop(name))
        if nd_kwargs:
            raise TypeError("%s: unexpected array arguments %s" % (op_name, sorted(nd_kwargs)))
        return _invoke(op_name, params, inputs, out)

    op_function.__name__ = op_name
    op_function.__doc__ = _doc(info)
    return op_function


# MXNet's op modules: an op registered as _contrib_X is also contrib.X (mx.nd.contrib.X,
# mx.sym.contrib.X), _linalg_X is linalg.X, _image_X image.X and _sparse_X sparse.X
SUBMODULE_PREFIXES = (("_contrib_", "contrib"), ("_linalg_", "linalg"), ("_image_", "image"),
                      ("_sparse_", "sparse"))


def populate(kind, op, internal, submodules):
    """Makes one function per operator (and alias), backward ops left out, for `kind` ("ndarray" or
    "symbol"): every one goes into `op` (a module's globals: mx.nd.op), those whose name starts with
    an underscore also into `internal` (mx.nd._internal), and the prefixed ones of
    SUBMODULE_PREFIXES under their short name into submodules[<module>] where given."""
    make = _make_symbol_function if kind == "symbol" else _make_ndarray_function
    for op_name in _core.list_ops():
        info = _core.op_info(op_name)
        if info["is_backward"] or op_name.startswith("_backward"):
            continue
        for name in [op_name] + list(info["aliases"]):
            function = op[name] = make(name, info)
            if name.startswith("_"):
                internal[name] = function
            for prefix, module in SUBMODULE_PREFIXES:
                if name.startswith(prefix) and module in submodules:
                    short = make(name, info)
                    short.__name__ = name[len(prefix):]
                    submodules[module][short.__name__] = short
