"""mx.sym.random: MXNet 1.x's sampling functions for graphs. Scalar parameters make a _random_*
node (no inputs); Symbol parameters a _sample_* node (`shape` samples per parameter element).
The *_like functions make a node of their input's shape and dtype; multinomial one of category
indices (and, by default, their log-probabilities). A bound graph draws new samples at every
forward."""
from .._random_dispatch import dispatch

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint",
           "exponential_like", "gamma_like", "generalized_negative_binomial_like",
           "negative_binomial_like", "normal_like", "poisson_like", "uniform_like"]


def _sym():
    from .. import symbol
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


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    """Samples of negative binomial distributions, Poisson(Gamma(k, (1 - p) / p)), as floats (mean
    k (1 - p) / p; p is MXNet's "failure probability" in (0, 1])."""
    return _call("_random_negative_binomial", "_sample_negative_binomial", ["k", "p"], [k, p], shape,
                 dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
    """Samples of generalized negative binomial distributions of mean mu and dispersion alpha
    (Poisson(mu) for alpha = 0), as floats."""
    return _call("_random_generalized_negative_binomial", "_sample_generalized_negative_binomial",
                 ["mu", "alpha"], [mu, alpha], shape, dtype, kwargs)


def multinomial(data, shape=None, get_prob=True, dtype="int32", **kwargs):
    """Category indices drawn from the distributions along data's last axis, of shape
    data.shape[:-1] + shape; with get_prob (the default here, as MXNet's symbol API) a second
    output, the samples' log-probabilities, whose gradient reaches data."""
    return _sym()._sample_multinomial(data, shape=shape, get_prob=get_prob, dtype=dtype, **kwargs)


def _like(op, data, params, name, attr, kwargs):
    args = [] if data is None else [data]
    kwargs.pop("out", None)
    return getattr(_sym(), op)(*args, name=name, attr=attr, **dict(kwargs, **params))


def uniform_like(data=None, low=None, high=None, name=None, attr=None, out=None, **kwargs):
    """Samples of the uniform distribution on [low, high) of data's shape and dtype."""
    return _like("_random_uniform_like", data, dict(low=low, high=high), name, attr, kwargs)


def normal_like(data=None, loc=None, scale=None, name=None, attr=None, out=None, **kwargs):
    """Samples of the normal distribution of mean loc and standard deviation scale, of data's
    shape and dtype."""
    return _like("_random_normal_like", data, dict(loc=loc, scale=scale), name, attr, kwargs)


def gamma_like(data=None, alpha=None, beta=None, name=None, attr=None, out=None, **kwargs):
    """Samples of the gamma distribution of shape alpha and scale beta, of data's shape and
    dtype."""
    return _like("_random_gamma_like", data, dict(alpha=alpha, beta=beta), name, attr, kwargs)


def exponential_like(data=None, lam=None, name=None, attr=None, out=None, **kwargs):
    """Samples of the exponential distribution of rate lam, of data's shape and dtype."""
    return _like("_random_exponential_like", data, dict(lam=lam), name, attr, kwargs)


def poisson_like(data=None, lam=None, name=None, attr=None, out=None, **kwargs):
    """Samples of the Poisson distribution of rate lam, of data's shape and (float) dtype."""
    return _like("_random_poisson_like", data, dict(lam=lam), name, attr, kwargs)


def negative_binomial_like(data=None, k=None, p=None, name=None, attr=None, out=None, **kwargs):
    """Samples of the negative binomial distribution of k and p, of data's shape and dtype."""
    return _like("_random_negative_binomial_like", data, dict(k=k, p=p), name, attr, kwargs)


def generalized_negative_binomial_like(data=None, mu=None, alpha=None, name=None, attr=None, out=None,
                                       **kwargs):
    """Samples of the generalized negative binomial distribution of mean mu and dispersion
    alpha, of data's shape and dtype."""
    return _like("_random_generalized_negative_binomial_like", data, dict(mu=mu, alpha=alpha), name,
                 attr, kwargs)


def shuffle(data, **kwargs):
    """`data` with its first axis randomly permuted."""
    return _sym()._shuffle(data, **kwargs)
