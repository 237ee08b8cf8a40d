"""mx.contrib.symbol (also mx.contrib.sym): the Symbol functions of the contrib operators, the
same operators mx.sym.contrib holds, under MXNet's older namespace (see _op_namespace)."""
from ._op_namespace import fill as _fill

__all__ = []
_fill("symbol", globals())
