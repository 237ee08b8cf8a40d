"""mx.sym.random: MXNet 1.x's sampling functions for graphs. Scalar parameters make a _random_*
node (no inputs); Symbol parameters a _sample_* node (`shape` samples per parameter element).
A bound graph draws new samples at every forward."""
from ._random_dispatch import dispatch

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "shuffle", "randint"]


def _sym():
    from . import symbol
    return symbol


def _call(random_op, sample_op, names, params, shape, dtype, kwargs):
    sym = _sym()
    return dispatch(sym, sym.Symbol, random_op, sample_op, names, params,
                    dict(kwargs, shape=shape, dtype=dtype), dict(kwargs, shape=shape, dtype=dtype))


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    """Samples of uniform distributions on [low, high)."""
    return _call("_random_uniform", "_sample_uniform", ["low", "high"], [low, high], shape, dtype,
                 kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    """Samples of normal distributions of mean loc and standard deviation scale."""
    return _call("_random_normal", "_sample_normal", ["loc", "scale"], [loc, scale], shape, dtype,
                 kwargs)


def randn(*shape, **kwargs):
    """Standard normal samples (loc and scale may be given as keywords) of shape `shape`."""
    loc, scale = kwargs.pop("loc", 0), kwargs.pop("scale", 1)
    return normal(loc, scale, shape=shape, dtype=kwargs.pop("dtype", None), **kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    """Samples of Poisson distributions of rate lam (as floats)."""
    return _call("_random_poisson", "_sample_poisson", ["lam"], [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    """Samples of exponential distributions of mean `scale` (rate 1 / scale)."""
    return _call("_random_exponential", "_sample_exponential", ["lam"], [1.0 / scale], shape, dtype,
                 kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    """Samples of gamma distributions of shape alpha and scale beta."""
    return _call("_random_gamma", "_sample_gamma", ["alpha", "beta"], [alpha, beta], shape, dtype,
                 kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    """Integers drawn uniformly from [low, high) (int32 unless dtype='int64')."""
    return _call("_random_randint", None, ["low", "high"], [low, high], shape, dtype, kwargs)


def shuffle(data, **kwargs):
    """`data` with its first axis randomly permuted."""
    return _sym()._shuffle(data, **kwargs)
