"""mx.nd.random (and mx.random): MXNet 1.x's sampling functions. Scalar parameters call the
_random_* ops (a `shape` of samples, on `ctx`); NDArray parameters call the _sample_* ops (`shape`
samples per parameter element, the output's shape being the parameters' shape followed by
`shape`). The *_like functions draw samples of an array's shape and dtype; multinomial draws
category indices from rows of probabilities. Samples repeat after mx.random.seed(n), on the CPU
and a GPU alike."""
from .._random_dispatch import dispatch
from ..context import current_context

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint",
           "exponential_like", "gamma_like", "generalized_negative_binomial_like",
           "negative_binomial_like", "normal_like", "poisson_like", "uniform_like"]


def _nd():
    from .. import ndarray
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


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of negative binomial distributions, Poisson(Gamma(k, (1 - p) / p)), as floats: k
    is the limit of unsuccessful experiments (an int for number parameters, as MXNet's) and p
    MXNet's "failure probability" in (0, 1]; the mean is k (1 - p) / p."""
    return _call("_random_negative_binomial", "_sample_negative_binomial", ["k", "p"], [k, p], shape,
                 dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of generalized negative binomial distributions of mean mu and dispersion alpha,
    Poisson(Gamma(1 / alpha, mu alpha)) (Poisson(mu) for alpha = 0), as floats."""
    return _call("_random_generalized_negative_binomial", "_sample_generalized_negative_binomial",
                 ["mu", "alpha"], [mu, alpha], shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
    """Category indices drawn from the distributions along data's last axis (probabilities
    summing to 1): an array of shape data.shape[:-1] + shape, or with get_prob=True the list
    [indices, log-probabilities of the samples], whose gradient reaches data."""
    return _nd()._sample_multinomial(data, shape=shape, get_prob=get_prob, out=out, dtype=dtype,
                                     **kwargs)


def _like(op, data, params, out, name, kwargs):
    args = [] if data is None else [data]
    return getattr(_nd(), op)(*args, out=out, name=name, **dict(kwargs, **params))


def uniform_like(data=None, low=None, high=None, out=None, name=None, **kwargs):
    """Samples of the uniform distribution on [low, high) of data's shape and dtype."""
    return _like("_random_uniform_like", data, dict(low=low, high=high), out, name, kwargs)


def normal_like(data=None, loc=None, scale=None, out=None, name=None, **kwargs):
    """Samples of the normal distribution of mean loc and standard deviation scale, of data's
    shape and dtype."""
    return _like("_random_normal_like", data, dict(loc=loc, scale=scale), out, name, kwargs)


def gamma_like(data=None, alpha=None, beta=None, out=None, name=None, **kwargs):
    """Samples of the gamma distribution of shape alpha and scale beta, of data's shape and
    dtype."""
    return _like("_random_gamma_like", data, dict(alpha=alpha, beta=beta), out, name, kwargs)


def exponential_like(data=None, lam=None, out=None, name=None, **kwargs):
    """Samples of the exponential distribution of rate lam (not the scale, as MXNet's), of
    data's shape and dtype."""
    return _like("_random_exponential_like", data, dict(lam=lam), out, name, kwargs)


def poisson_like(data=None, lam=None, out=None, name=None, **kwargs):
    """Samples of the Poisson distribution of rate lam, of data's shape and (float) dtype."""
    return _like("_random_poisson_like", data, dict(lam=lam), out, name, kwargs)


def negative_binomial_like(data=None, k=None, p=None, out=None, name=None, **kwargs):
    """Samples of the negative binomial distribution of k and p, of data's shape and dtype."""
    return _like("_random_negative_binomial_like", data, dict(k=k, p=p), out, name, kwargs)


def generalized_negative_binomial_like(data=None, mu=None, alpha=None, out=None, name=None, **kwargs):
    """Samples of the generalized negative binomial distribution of mean mu and dispersion
    alpha, of data's shape and dtype."""
    return _like("_random_generalized_negative_binomial_like", data, dict(mu=mu, alpha=alpha), out,
                 name, kwargs)


def shuffle(data, **kwargs):
    """`data` with its first axis randomly permuted (a new array)."""
    return _nd()._shuffle(data, **kwargs)
