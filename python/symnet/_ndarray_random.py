"""mx.nd.random (and mx.random): MXNet 1.x's sampling functions. Scalar parameters call the
_random_* ops (a `shape` of samples, on `ctx`); NDArray parameters call the _sample_* ops (`shape`
samples per parameter element, the output's shape being the parameters' shape followed by
`shape`). Samples repeat after mx.random.seed(n), on the CPU and a GPU alike."""
from ._random_dispatch import dispatch
from .context import current_context

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "shuffle", "randint"]


def _nd():
    from . import ndarray
    return ndarray


def _call(random_op, sample_op, names, params, shape, dtype, ctx, out, kwargs):
    nd = _nd()
    if shape is None and out is None and not isinstance(params[0], nd.NDArray):
        shape = 1  # number parameters and no shape: one sample, as MXNet
    return dispatch(nd, nd.NDArray, random_op, sample_op, names, params,
                    dict(kwargs, shape=shape, dtype=dtype, ctx=str(ctx or current_context()), out=out),
                    dict(kwargs, shape=shape, dtype=dtype, out=out))


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of uniform distributions on [low, high)."""
    return _call("_random_uniform", "_sample_uniform", ["low", "high"], [low, high], shape, dtype,
                 ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of normal distributions of mean loc and standard deviation scale."""
    return _call("_random_normal", "_sample_normal", ["loc", "scale"], [loc, scale], shape, dtype,
                 ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Standard normal samples (loc and scale may be given as keywords) of shape `shape`."""
    loc, scale = kwargs.pop("loc", 0), kwargs.pop("scale", 1)
    return normal(loc, scale, shape=shape, dtype=kwargs.pop("dtype", None), ctx=kwargs.pop("ctx", None),
                  out=kwargs.pop("out", None), **kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of Poisson distributions of rate lam (as floats)."""
    return _call("_random_poisson", "_sample_poisson", ["lam"], [lam], shape, dtype, ctx, out,
                 kwargs)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of exponential distributions of mean `scale` (rate 1 / scale)."""
    return _call("_random_exponential", "_sample_exponential", ["lam"], [1.0 / scale], shape, dtype,
                 ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of gamma distributions of shape alpha and scale beta."""
    return _call("_random_gamma", "_sample_gamma", ["alpha", "beta"], [alpha, beta], shape, dtype,
                 ctx, out, kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high) (int32 unless dtype='int64')."""
    return _call("_random_randint", None, ["low", "high"], [low, high], shape, dtype, ctx, out,
                 kwargs)


def shuffle(data, **kwargs):
    """`data` with its first axis randomly permuted (a new array)."""
    return _nd()._shuffle(data, **kwargs)
