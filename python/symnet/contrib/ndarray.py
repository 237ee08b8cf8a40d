"""mx.contrib.ndarray (also mx.contrib.nd): the NDArray functions of the contrib operators, the
same operators mx.nd.contrib holds, under MXNet's older namespace (see _op_namespace)."""
from ._op_namespace import fill as _fill

__all__ = []
_fill("ndarray", globals())
