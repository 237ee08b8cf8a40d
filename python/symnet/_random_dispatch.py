"""The dispatch both mx.nd.random and mx.sym.random use, as MXNet's: number parameters make a
_random_* call (a `shape` of samples), array or symbol parameters a _sample_* call (`shape`
samples per parameter element). All parameters of one call must be of one kind."""
from .base import numeric_types


def dispatch(ns, array_type, random_op, sample_op, names, params, random_kwargs, sample_kwargs):
    """Calls ns.<sample_op>(*params, **sample_kwargs) for arrays of `array_type`, else
    ns.<random_op>(**random_kwargs, names=params)."""
    if isinstance(params[0], array_type):
        kind = array_type
    elif isinstance(params[0], numeric_types):
        kind = numeric_types
    else:
        raise ValueError("Distribution parameters must be either %s or numbers, but got %s."
                         % (array_type.__name__, type(params[0])))
    for p in params[1:]:
        if not isinstance(p, kind):
            raise TypeError("Distribution parameters must all have the same type, but got both "
                            "%s and %s." % (type(params[0]), type(p)))
    if kind is array_type:
        if sample_op is None:
            raise TypeError("%s takes numbers as low and high, not %ss" % (random_op, array_type.__name__))
        return getattr(ns, sample_op)(*params, **sample_kwargs)
    random_kwargs.update(zip(names, params))
    return getattr(ns, random_op)(**random_kwargs)
