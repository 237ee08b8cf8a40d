"""Fills mx.contrib.ndarray / mx.contrib.symbol, MXNet's older homes of the contrib operators.

MXNet generates every operator registered as _contrib_<name> into mx.nd.contrib (or
mx.sym.contrib) and again, as separate functions, into mx.contrib.ndarray (or .symbol), whose
__all__ lists them. The Python helpers mx.nd.contrib adds (foreach, cond, isnan, ...) are not
there, so this builds the functions from the operator registry the same way mx.nd.contrib's are
built rather than copying that module."""
from .. import _op_gen

# symnet registers these optimizer ops under a _contrib_ alias too; MXNet 1.9.1 has no such
# alias (its mx.nd.contrib.adamw_update is a Python wrapper), so mx.contrib.nd lacks them
_NOT_IN_MXNET = ("adamw_update", "mp_adamw_update")


def fill(kind, namespace):
    """Puts one function per contrib operator of `kind` ("ndarray" or "symbol") into
    `namespace` (a module's globals) and appends its name to the namespace's __all__."""
    made = {}
    _op_gen.populate(kind, {}, {}, {"contrib": made})
    for name in sorted(made):
        if name in _NOT_IN_MXNET:
            continue
        function = made[name]
        function.__module__ = namespace["__name__"]
        namespace[name] = function
        namespace["__all__"].append(name)
