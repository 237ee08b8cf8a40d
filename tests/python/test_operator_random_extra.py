"""The negative binomial and generalized negative binomial samplers (_random_*, _sample_*,
_random_*_like), the _like forms of the other samplers, and _sample_multinomial with its
log-probability output and gradient (operators/random/sample_extra.h).

Every sample is a deterministic function of the seed, so each statistical bound below is checked
once at a fixed seed and cannot flake. The bounds: a sample mean within 5 standard errors of the
closed form, sqrt(var / n); a sample variance within 5 standard errors, sqrt((mu4 - var^2) / n),
mu4 the exact fourth central moment (summed from the pmf); a chi-square statistic below the
0.1% critical value of its degrees of freedom (Wilson-Hilferty's approximation, no scipy)."""
import json
import math
import os

import numpy as np
import pytest

import symnet as mx

N = 200000  # samples for the moment checks


# ---- reference distributions ----------------------------------------------------------------

def _lgamma(x):
    return np.vectorize(math.lgamma, otypes=[np.float64])(x)


def nb_pmf(x, r, q):
    """P(X = x) for Poisson(Gamma(r, (1 - q) / q)): the failures before the r-th success of
    trials succeeding with probability q (real r > 0)."""
    x = np.asarray(x, dtype=np.float64)
    return np.exp(_lgamma(x + r) - _lgamma(r) - _lgamma(x + 1) + r * math.log(q) + x * math.log1p(-q))


def poisson_pmf(x, lam):
    x = np.asarray(x, dtype=np.float64)
    return np.exp(x * math.log(lam) - lam - _lgamma(x + 1))


def gnb_pmf(x, mu, alpha):
    """generalized_negative_binomial(mu, alpha) is NB with r = 1 / alpha, q = 1 / (1 + alpha mu);
    alpha = 0 is Poisson(mu)."""
    if alpha == 0:
        return poisson_pmf(x, mu)
    return nb_pmf(x, 1.0 / alpha, 1.0 / (1.0 + alpha * mu))


def pmf_moments(pmf, upto):
    """Mean, variance and fourth central moment summed over 0..upto (the tail beyond is below
    1e-12 for the parameters used)."""
    x = np.arange(upto + 1, dtype=np.float64)
    w = pmf(x)
    assert 1 - w.sum() < 1e-10
    mean = (w * x).sum()
    var = (w * (x - mean) ** 2).sum()
    return mean, var, (w * (x - mean) ** 4).sum()


def check_moments(x, mean, var, mu4, what):
    n = len(x)
    se_mean, se_var = math.sqrt(var / n), math.sqrt((mu4 - var * var) / n)
    assert abs(x.mean() - mean) < 5 * se_mean, "%s: mean %g, expected %g" % (what, x.mean(), mean)
    assert abs(x.var() - var) < 5 * se_var, "%s: variance %g, expected %g" % (what, x.var(), var)


def chi2_critical(df, z=3.090232):
    """The chi-square value exceeded with probability 1e-3 (z: the normal's 0.999 quantile),
    by Wilson and Hilferty's cube-root approximation."""
    h = 2.0 / (9.0 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def chi2_statistic(counts, expected):
    """Pearson's statistic after merging the tail, from the first bin that expects fewer than 5,
    into one bin (and that into the one before while it still expects fewer); returns
    (statistic, degrees of freedom). The pmfs tested are unimodal, so small bins are a tail."""
    c, e = np.asarray(counts, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    small = np.nonzero(e < 5)[0]
    if len(small):
        t = small[0]
        c = np.append(c[:t], c[t:].sum())
        e = np.append(e[:t], e[t:].sum())
        while len(e) > 1 and e[-1] < 5:
            c = np.append(c[:-2], c[-2:].sum())
            e = np.append(e[:-2], e[-2:].sum())
    assert e.min() >= 5, e
    return float(((c - e) ** 2 / e).sum()), len(e) - 1


def check_counts_fit(x, pmf, what):
    """Chi-square goodness of fit of integer samples x to pmf (bins 0..max, the last one taking
    the tail)."""
    x = np.asarray(x, dtype=np.float64)
    assert np.all(x == np.round(x)) and x.min() >= 0, what
    top = int(x.max())
    counts = np.bincount(x.astype(np.int64), minlength=top + 1)
    p = pmf(np.arange(top + 1))
    p[-1] += max(0.0, 1.0 - p.sum())  # the tail beyond the largest sample
    stat, df = chi2_statistic(counts, len(x) * p)
    assert stat < chi2_critical(df), "%s: chi2 %g with %d df (critical %g)" % (
        what, stat, df, chi2_critical(df))


def test_reference_helpers():
    """The closed forms agree with the pmf sums, the chi-square helper accepts numpy's negative
    binomial samples and rejects shifted ones, and the critical value is close to the exact
    one (10.828 for 1 df, where the approximation is 3% high; 29.588 for 10 df)."""
    for r, q in [(3, 0.4), (0.7, 0.2), (20, 0.3)]:
        mean, var, _ = pmf_moments(lambda x: nb_pmf(x, r, q), 2000)
        assert abs(mean - r * (1 - q) / q) < 1e-9 and abs(var - r * (1 - q) / q ** 2) < 1e-8
    mean, var, _ = pmf_moments(lambda x: gnb_pmf(x, 4.0, 0.5), 2000)
    assert abs(mean - 4.0) < 1e-9 and abs(var - (4.0 + 0.5 * 16.0)) < 1e-8
    x = np.random.RandomState(3).negative_binomial(2, 0.5, size=20000)
    check_counts_fit(x, lambda k: nb_pmf(k, 2, 0.5), "numpy")
    with pytest.raises(AssertionError):
        check_counts_fit(x + 1, lambda k: nb_pmf(k, 2, 0.5), "shifted")
    assert abs(chi2_critical(1) / 10.828 - 1) < 0.04 and abs(chi2_critical(10) / 29.588 - 1) < 0.01


# ---- negative binomial and generalized negative binomial -------------------------------------

# (name, mx.nd.random function, parameters, pmf, closed-form mean, closed-form variance, pmf range)
MIXTURE_CASES = [
    ("nb", "negative_binomial", dict(k=3, p=0.4), lambda x: nb_pmf(x, 3, 0.4), 4.5, 11.25, 400),
    ("nb_large", "negative_binomial", dict(k=20, p=0.3), lambda x: nb_pmf(x, 20, 0.3),
     20 * 0.7 / 0.3, 20 * 0.7 / 0.09, 2000),
    ("nb_k1", "negative_binomial", dict(k=1, p=0.8), lambda x: nb_pmf(x, 1, 0.8), 0.25, 0.3125, 200),
    ("gnb", "generalized_negative_binomial", dict(mu=4.0, alpha=0.5), lambda x: gnb_pmf(x, 4.0, 0.5),
     4.0, 4.0 + 0.5 * 16, 1000),
    ("gnb_small_alpha", "generalized_negative_binomial", dict(mu=30.0, alpha=0.05),
     lambda x: gnb_pmf(x, 30.0, 0.05), 30.0, 30.0 + 0.05 * 900, 1000),
    ("gnb_alpha0", "generalized_negative_binomial", dict(mu=3.0, alpha=0.0),
     lambda x: poisson_pmf(x, 3.0), 3.0, 3.0, 200),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", MIXTURE_CASES, ids=lambda c: c[0])
def test_mixture_moments(case, dtype):
    name, fn, params, pmf, mean, var, upto = case
    mx.random.seed(21)
    out = getattr(mx.nd.random, fn)(shape=(N // 100, 100), dtype=dtype, **params)
    assert out.shape == (N // 100, 100) and out.dtype == np.dtype(dtype)
    x = out.asnumpy().astype(np.float64).ravel()
    assert np.all(x == np.round(x)) and x.min() >= 0
    _, var_pmf, mu4 = pmf_moments(pmf, upto)
    assert abs(var_pmf - var) < 1e-6 * var
    check_moments(x, mean, var, mu4, name)


@pytest.mark.parametrize("fn,params,pmf", [
    ("negative_binomial", dict(k=2, p=0.5), lambda x: nb_pmf(x, 2, 0.5)),
    ("negative_binomial", dict(k=1, p=0.3), lambda x: nb_pmf(x, 1, 0.3)),
    ("generalized_negative_binomial", dict(mu=1.5, alpha=0.8), lambda x: gnb_pmf(x, 1.5, 0.8)),
    ("generalized_negative_binomial", dict(mu=0.7, alpha=2.5), lambda x: gnb_pmf(x, 0.7, 2.5)),
    ("generalized_negative_binomial", dict(mu=2.0, alpha=0.0), lambda x: poisson_pmf(x, 2.0)),
], ids=["nb_2_0.5", "nb_1_0.3", "gnb_1.5_0.8", "gnb_0.7_2.5", "gnb_alpha0"])
def test_mixture_chi_square_fit(fn, params, pmf):
    mx.random.seed(5)
    x = getattr(mx.nd.random, fn)(shape=(20000,), **params).asnumpy()
    check_counts_fit(x, pmf, "%s %s" % (fn, params))


def test_negative_binomial_is_poisson_of_the_gamma_draw():
    """At one seed, negative_binomial's gamma stage draws what random.gamma(k, (1 - p) / p) does
    (same stream, same counters); its Poisson stage, from the derived key, is a Poisson draw of
    that mean, independent of it: the residuals (x - g) / sqrt(g) have mean 0 and variance 1, and
    do not correlate with g."""
    n = 50000
    mx.random.seed(17)
    g = mx.nd.random.gamma(3, 3.0, shape=(n,), dtype="float64").asnumpy()
    mx.random.seed(17)
    x = mx.nd.random.negative_binomial(3, 0.25, shape=(n,), dtype="float64").asnumpy()
    keep = g > 0.5  # Poisson(g)'s standardized residual is far from normal for tiny g
    z = (x[keep] - g[keep]) / np.sqrt(g[keep])
    m = len(z)
    assert abs(z.mean()) < 5 / math.sqrt(m)
    assert abs(z.var() - 1) < 5 * math.sqrt(2.5 / m)
    assert abs(np.corrcoef(z, g[keep])[0, 1]) < 5 / math.sqrt(m)
    # generalized_negative_binomial(mu, alpha): gamma stage Gamma(1 / alpha, mu alpha)
    mx.random.seed(17)
    g = mx.nd.random.gamma(2.0, 2.5, shape=(n,), dtype="float64").asnumpy()
    mx.random.seed(17)
    x = mx.nd.random.generalized_negative_binomial(5.0, 0.5, shape=(n,), dtype="float64").asnumpy()
    z = (x - g) / np.sqrt(np.maximum(g, 1e-300))
    z = z[g > 0.5]
    assert abs(z.mean()) < 5 / math.sqrt(len(z)) and abs(z.var() - 1) < 5 * math.sqrt(2.5 / len(z))


def test_mixture_edge_parameters():
    mx.random.seed(0)
    assert np.all(mx.nd.random.negative_binomial(4, 1.0, shape=(50,)).asnumpy() == 0)  # p = 1
    assert np.all(mx.nd.random.generalized_negative_binomial(0.0, 2.0, shape=(50,)).asnumpy() == 0)
    # a Poisson mean past 1e15 (p tiny) is drawn as a rounded normal, not NaN
    x = mx.nd.random.negative_binomial(1, 1e-17, shape=(2000,), dtype="float64").asnumpy()
    assert np.all(np.isfinite(x)) and abs(x.mean() / 1e17 - 1) < 5 / math.sqrt(2000)


def test_sample_mixtures_per_parameter_element_and_nan_for_bad_parameters():
    """_sample_*: each element's samples follow its own parameters; parameters outside the
    distribution's domain give NaN (as the other _sample_ ops)."""
    k = mx.nd.array([[1.0, 2.5, 8.0]], dtype="float64")
    p = mx.nd.array([[0.5, 0.2, 0.7]], dtype="float64")
    mx.random.seed(9)
    out = mx.nd.random.negative_binomial(k, p, shape=(4000,))
    assert out.shape == (1, 3, 4000) and out.dtype == np.float32
    x = out.asnumpy().astype(np.float64)[0]
    kk, pp = k.asnumpy()[0], p.asnumpy()[0]
    mean, var = kk * (1 - pp) / pp, kk * (1 - pp) / pp ** 2
    assert np.all(np.abs(x.mean(-1) - mean) < 5 * np.sqrt(var / 4000)), (x.mean(-1), mean)
    mu = mx.nd.array([0.5, 4.0, 12.0])
    alpha = mx.nd.array([0.0, 1.0, 0.25])
    y = mx.nd.random.generalized_negative_binomial(mu, alpha, shape=(4000,), dtype="float64").asnumpy()
    m, a = mu.asnumpy()[:, None], alpha.asnumpy()[:, None]
    assert np.all(np.abs(y.mean(-1, keepdims=True) - m) < 5 * np.sqrt((m + a * m * m) / 4000))
    # the op itself, without `shape`
    assert mx.nd._sample_negative_binomial(k, p).shape == (1, 3)
    bad = mx.nd._sample_negative_binomial(mx.nd.array([2, 0, -1, 2, 2, np.nan, 3]),
                                          mx.nd.array([0.5, 0.5, 0.5, 0, 1.5, 0.5, 1.0]),
                                          shape=(3,)).asnumpy()
    assert np.all(np.isnan(bad[1:6])) and np.all(np.isfinite(bad[0])) and np.all(bad[6] == 0)
    bad = mx.nd._sample_generalized_negative_binomial(mx.nd.array([2, -1, 2, 0, np.nan]),
                                                      mx.nd.array([0.5, 0.5, -0.1, 3, 0.5]),
                                                      shape=(3,)).asnumpy()
    assert np.all(np.isnan(bad[[1, 2, 4]])) and np.all(bad[3] == 0) and np.all(np.isfinite(bad[0]))


def test_seeds_repeat_and_cpu_results_are_deterministic():
    """A seed repeats every new sampler; another seed changes them; and element i of a
    _random_ or _like draw depends only on (seed, call, i): a large draw (OpenMP threads) starts
    with a small one's numbers."""
    data = mx.nd.ones((3, 4))

    def draw():
        return [mx.nd.random.negative_binomial(3, 0.4, shape=(6,)).asnumpy(),
                mx.nd.random.generalized_negative_binomial(2.0, 0.7, shape=(6,)).asnumpy(),
                mx.nd.random.multinomial(mx.nd.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
                                         shape=(8,)).asnumpy(),
                mx.nd.random.uniform_like(data).asnumpy(), mx.nd.random.normal_like(data).asnumpy(),
                mx.nd.random.gamma_like(data, alpha=2.0).asnumpy(),
                mx.nd.random.exponential_like(data).asnumpy(),
                mx.nd.random.poisson_like(data, lam=30.0).asnumpy(),
                mx.nd.random.negative_binomial_like(data, k=2, p=0.3).asnumpy(),
                mx.nd.random.generalized_negative_binomial_like(data, mu=5.0, alpha=0.3).asnumpy()]

    mx.random.seed(42)
    a = draw()
    mx.random.seed(42)
    b = draw()
    mx.random.seed(43)
    c = draw()
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)
    for fn, params in [("negative_binomial", dict(k=4, p=0.3)),
                       ("generalized_negative_binomial", dict(mu=20.0, alpha=0.2))]:
        mx.random.seed(8)
        small = getattr(mx.nd.random, fn)(shape=(1000,), **params).asnumpy()
        mx.random.seed(8)
        big = getattr(mx.nd.random, fn)(shape=(300000,), **params).asnumpy()
        mx.random.seed(8)
        again = getattr(mx.nd.random, fn)(shape=(300000,), **params).asnumpy()
        np.testing.assert_array_equal(big[:1000], small)
        np.testing.assert_array_equal(big, again)
    # multinomial: sample i of a call draws at counter 64 i of the call's stream, whatever the
    # thread count, so a repeat of a large call is identical too
    probs = mx.nd.array(np.random.RandomState(0).dirichlet(np.ones(10), size=40))
    mx.random.seed(8)
    m1 = mx.nd.random.multinomial(probs, shape=(5000,)).asnumpy()
    mx.random.seed(8)
    m2 = mx.nd.random.multinomial(probs, shape=(5000,)).asnumpy()
    np.testing.assert_array_equal(m1, m2)


# ---- parameter errors -------------------------------------------------------------------------

MIXTURE_BAD_PARAMS = [
    ("_random_negative_binomial", dict(k=0, p=0.5), r"k \(0\) must be positive"),
    ("_random_negative_binomial", dict(k=-2, p=0.5), r"k \(-2\) must be positive"),
    ("_random_negative_binomial", dict(k=2, p=0), r"p \(0\) must be in \(0, 1\]"),
    ("_random_negative_binomial", dict(k=2, p=1.5), r"p \(1.5\) must be in \(0, 1\]"),
    ("_random_negative_binomial", dict(k=2.5, p=0.5), "expect int"),  # MXNet's k is an int
    ("_random_generalized_negative_binomial", dict(mu=-1), r"mu \(-1\) must be non-negative"),
    ("_random_generalized_negative_binomial", dict(alpha=-0.5), r"alpha \(-0.5\) must be non-negative"),
    ("_random_generalized_negative_binomial", dict(mu=float("inf")), "mu .inf. must be non-negative"),
    ("_random_negative_binomial", dict(dtype="int32"), "int32"),
]


@pytest.mark.parametrize("op,params,match", MIXTURE_BAD_PARAMS)
def test_mixture_bad_parameters_fail_at_node_creation(op, params, match):
    with pytest.raises(mx.MXNetError, match=match):
        getattr(mx.sym, op)(shape=(2,), name="r1", **params)
    with pytest.raises(mx.MXNetError, match=match):
        getattr(mx.nd, op)(shape=(2,), **params)


LIKE_BAD_PARAMS = [
    ("uniform_like", dict(low=2, high=1), r"low \(2\) must not exceed high \(1\)"),
    ("normal_like", dict(scale=0), r"scale \(0\) must be positive"),
    ("gamma_like", dict(alpha=-1), r"alpha \(-1\) must be positive"),
    ("exponential_like", dict(lam=0), r"lam \(0\) must be positive"),
    ("poisson_like", dict(lam=-1), r"lam \(-1\) must be non-negative"),
    ("negative_binomial_like", dict(k=0), r"k \(0\) must be positive"),
    ("negative_binomial_like", dict(p=2), r"p \(2\) must be in \(0, 1\]"),
    ("generalized_negative_binomial_like", dict(alpha=-1), r"alpha \(-1\) must be non-negative"),
]


@pytest.mark.parametrize("fn,params,match", LIKE_BAD_PARAMS)
def test_like_bad_parameters_fail_at_node_creation(fn, params, match):
    with pytest.raises(mx.MXNetError, match=match):
        getattr(mx.sym.random, fn)(mx.sym.var("x"), name="l1", **params)
    with pytest.raises(mx.MXNetError, match=match):
        getattr(mx.nd.random, fn)(mx.nd.ones((2,)), **params)


# ---- the _like forms --------------------------------------------------------------------------

# (function, parameters, the _random_ function that draws the same numbers, its parameters)
LIKE_CASES = [
    ("uniform_like", dict(low=-1.0, high=2.0), "uniform", dict(low=-1.0, high=2.0)),
    ("normal_like", dict(loc=1.0, scale=3.0), "normal", dict(loc=1.0, scale=3.0)),
    ("gamma_like", dict(alpha=0.5, beta=2.0), "gamma", dict(alpha=0.5, beta=2.0)),
    ("exponential_like", dict(lam=4.0), "exponential", dict(scale=0.25)),
    ("poisson_like", dict(lam=12.0), "poisson", dict(lam=12.0)),
    ("negative_binomial_like", dict(k=3, p=0.4), "negative_binomial", dict(k=3, p=0.4)),
    ("generalized_negative_binomial_like", dict(mu=2.0, alpha=0.3), "generalized_negative_binomial",
     dict(mu=2.0, alpha=0.3)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", LIKE_CASES, ids=lambda c: c[0])
def test_like_shape_dtype_and_samples(case, dtype):
    """The output has data's shape and dtype, and the numbers the _random_ op draws for that
    shape and dtype at the same seed (one kernel, one stream)."""
    fn, params, random_fn, random_params = case
    data = mx.nd.zeros((3, 5, 2), dtype=dtype)
    mx.random.seed(12)
    out = getattr(mx.nd.random, fn)(data, **params)
    assert out.shape == (3, 5, 2) and out.dtype == data.dtype
    mx.random.seed(12)
    ref = getattr(mx.nd.random, random_fn)(shape=(3, 5, 2), dtype=dtype, **random_params)
    np.testing.assert_array_equal(out.asnumpy(), ref.asnumpy())
    # positional parameters follow the input, as MXNet's generated signatures
    mx.random.seed(12)
    pos = getattr(mx.nd, "_random_" + fn)(data, *params.values())
    np.testing.assert_array_equal(pos.asnumpy(), out.asnumpy())


def test_like_ops_need_float_data_and_use_only_its_shape():
    with pytest.raises(mx.MXNetError, match="int32.*float"):
        mx.nd.random.uniform_like(mx.nd.ones((2,), dtype="int32"))
    with pytest.raises(mx.MXNetError, match="l1.*int32|int32.*l1"):
        mx.sym.random.poisson_like(mx.sym.var("x"), name="l1").infer_type(x="int32")
    nan = mx.nd.array([np.nan, np.inf, -1.0])
    assert np.all(np.isfinite(mx.nd.random.normal_like(nan).asnumpy()))
    s = mx.sym.random.gamma_like(mx.sym.var("x"), alpha=2.0)
    assert s.infer_shape(x=(4, 0))[1] == [(4, 0)] and s.infer_type(x="float64")[1] == [np.float64]
    assert mx.sym.random.uniform_like(name="q").list_arguments() == ["q_data"]


@pytest.mark.parametrize("case", LIKE_CASES, ids=lambda c: c[0])
def test_like_ops_give_data_a_zero_gradient(case):
    fn, params = case[:2]
    x = mx.sym.var("x")
    sym = mx.sym.elemwise_mul(getattr(mx.sym.random, fn)(x, **params), x)
    for req in ["write", "add"]:
        exe = sym.simple_bind(mx.cpu(), grad_req=req, x=(2, 3))
        exe.arg_dict["x"][:] = 1.5
        exe.grad_dict["x"][:] = 7.0
        out = exe.forward(is_train=True)[0].asnumpy()
        exe.backward([mx.nd.ones((2, 3))])
        # d(sample * x)/dx = sample: the gradient through the _like op's input is zero
        np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), out / 1.5 + (7.0 if req == "add" else 0),
                                   rtol=1e-6)
    data = mx.nd.ones((4,))
    data.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.nd.random, fn)(data, **params)
    y.backward()
    np.testing.assert_array_equal(data.grad.asnumpy(), 0.0)


# ---- multinomial ------------------------------------------------------------------------------

def test_multinomial_frequencies_chi_square():
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25], [0.97, 0.01, 0.01, 0.01]])
    for dtype in ["float32", "float64"]:
        mx.random.seed(31)
        out = mx.nd.random.multinomial(mx.nd.array(probs, dtype=dtype), shape=(20000,))
        assert out.shape == (3, 20000) and out.dtype == np.int32
        x = out.asnumpy()
        for row, p in zip(x, probs):
            counts = np.bincount(row, minlength=4)
            assert counts[p == 0].sum() == 0, counts  # a zero probability is never drawn
            keep = p > 0
            stat, df = chi2_statistic(counts[keep], 20000 * p[keep])
            assert stat < chi2_critical(df), (dtype, p, counts)


def test_multinomial_never_passes_the_last_positive_category():
    """A running sum that ends below u (rounding, or a row that sums to less than 1) takes the
    last category with a positive probability, never an index past the row."""
    mx.random.seed(2)
    x = mx.nd.random.multinomial(mx.nd.array([[0.25, 0.25, 0.0, 0.0]]), shape=(4000,)).asnumpy()
    assert set(np.unique(x)) == {0, 1}
    assert abs((x == 1).mean() - 0.75) < 5 * math.sqrt(0.75 * 0.25 / 4000)
    # a row short of 1 by 1e-4 (about 20 of these samples fall past its sum): category 2, never 3
    x = mx.nd.random.multinomial(mx.nd.array([[0.3, 0.3, 0.3999, 0.0]], dtype="float64"),
                                 shape=(200000,)).asnumpy()
    assert x.max() == 2 and abs((x == 2).mean() - 0.4) < 5 * math.sqrt(0.24 / 200000)
    # a row with nothing positive gives category 0 (log-probability -inf)
    s, lp = mx.nd.random.multinomial(mx.nd.zeros((1, 3)), shape=(4,), get_prob=True)
    assert np.all(s.asnumpy() == 0) and np.all(lp.asnumpy() == -np.inf)


def test_multinomial_shapes_dtypes_and_defaults():
    p = mx.nd.array([0.2, 0.3, 0.5])
    assert mx.nd.random.multinomial(p).shape == (1,)  # MXNet: one sample of one distribution
    assert mx.nd.random.multinomial(p, shape=(2, 3)).shape == (2, 3)
    assert mx.nd.random.multinomial(mx.nd.ones((4, 2, 3)) / 3, shape=5).shape == (4, 2, 5)
    assert mx.nd.random.multinomial(mx.nd.ones((4, 3)) / 3).shape == (4,)
    assert isinstance(mx.nd.random.multinomial(p), mx.nd.NDArray)  # nd: get_prob False
    assert len(mx.sym.random.multinomial(mx.sym.var("x"))) == 2  # sym: get_prob True (MXNet)
    assert mx.random.multinomial is mx.nd.random.multinomial
    probs = mx.nd.array(np.random.RandomState(1).dirichlet(np.ones(300), size=3))
    ref = None
    for dtype in ["int32", "float16", "float32", "float64"]:  # the same indices in each
        mx.random.seed(6)
        out = mx.nd.random.multinomial(probs, shape=(50,), dtype=dtype)
        assert out.dtype == np.dtype(dtype)
        ref = out.asnumpy().astype(np.int64) if ref is None else ref
        np.testing.assert_array_equal(out.asnumpy().astype(np.int64), ref)
    mx.random.seed(6)
    small = mx.nd.random.multinomial(mx.nd.array([[0.5, 0.5]]), shape=(10,), dtype="uint8")
    assert small.dtype == np.uint8 and set(np.unique(small.asnumpy())) <= {0, 1}
    with pytest.raises(mx.MXNetError, match="uint8 cannot hold the indices of 300 categories"):
        mx.nd.random.multinomial(probs, dtype="uint8")
    with pytest.raises(mx.MXNetError, match="valid values"):
        mx.nd.random.multinomial(probs, dtype="int64")  # MXNet's list has no int64
    with pytest.raises(mx.MXNetError, match="int32.*float"):
        mx.nd.random.multinomial(mx.nd.array([1, 2], dtype="int32"))
    with pytest.raises(mx.MXNetError, match="categories"):
        mx.nd.random.multinomial(mx.nd.zeros((2, 0)))
    with pytest.raises(mx.MXNetError, match="axis of categories"):
        mx.nd.random.multinomial(mx.nd.array(0.5))
    assert mx.nd.random.multinomial(mx.nd.zeros((0, 3)), shape=(2,)).shape == (0, 2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_multinomial_get_prob_is_log_of_the_sampled_probability(dtype):
    probs = np.random.RandomState(4).dirichlet(np.ones(6), size=(2, 3))
    data = mx.nd.array(probs, dtype=dtype)
    mx.random.seed(13)
    s, lp = mx.nd.random.multinomial(data, shape=(7,), get_prob=True)
    assert s.shape == lp.shape == (2, 3, 7) and s.dtype == np.int32 and lp.dtype == data.dtype
    mx.random.seed(13)
    np.testing.assert_array_equal(mx.nd.random.multinomial(data, shape=(7,)).asnumpy(), s.asnumpy())
    p = data.asnumpy().astype(np.float64)
    expected = np.log(np.take_along_axis(p, s.asnumpy().reshape(2, 3, 7).astype(np.int64), axis=-1))
    tol = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-15}[dtype]
    np.testing.assert_allclose(lp.asnumpy().astype(np.float64), expected, rtol=tol, atol=tol)


def _multinomial_objective(data, head, seed, shape):
    mx.random.seed(seed)
    s, lp = mx.nd.random.multinomial(mx.nd.array(data, dtype="float64"), shape=shape, get_prob=True)
    return s.asnumpy(), float((lp.asnumpy() * head).sum())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_multinomial_gradient_by_finite_differences(seed):
    """f(data) = sum(head * log p[sample]) with the samples fixed by the seed; its gradient is
    head / p added at the sampled categories (MXNet's). Central differences in float64 with a
    step far below any category boundary's distance from the uniforms drawn (the samples are
    checked to be unchanged)."""
    rng = np.random.RandomState(seed)
    data = rng.dirichlet(np.ones(5), size=3)
    shape = (4, 2)
    head = rng.normal(size=(3,) + shape)
    d = mx.nd.array(data, dtype="float64")
    d.attach_grad()
    mx.random.seed(seed)
    with mx.autograd.record():
        s, lp = mx.nd.random.multinomial(d, shape=shape, get_prob=True)
    lp.backward(mx.nd.array(head, dtype="float64"))
    grad = d.grad.asnumpy()
    samples, _ = _multinomial_objective(data, head, seed, shape)
    np.testing.assert_array_equal(samples, s.asnumpy())
    eps = 1e-7
    numeric = np.zeros_like(data)
    for idx in np.ndindex(*data.shape):
        plus, minus = data.copy(), data.copy()
        plus[idx] += eps
        minus[idx] -= eps
        s_plus, f_plus = _multinomial_objective(plus, head, seed, shape)
        s_minus, f_minus = _multinomial_objective(minus, head, seed, shape)
        np.testing.assert_array_equal(s_plus, samples)
        np.testing.assert_array_equal(s_minus, samples)
        numeric[idx] = (f_plus - f_minus) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)
    # the closed form as well
    expected = np.zeros_like(data)
    for r in range(3):
        np.add.at(expected[r], samples[r].ravel(), head[r].ravel() / data[r, samples[r].ravel()])
    np.testing.assert_allclose(grad, expected, rtol=1e-12)


def test_multinomial_in_a_bound_graph():
    """mx.sym.random.multinomial over softmax(x): samples, log-probabilities, and the gradient
    reaching x through softmax (write and add requests), against numpy."""
    x = mx.sym.var("x")
    samples, logp = mx.sym.random.multinomial(mx.sym.softmax(x), shape=(6,), name="m")
    sym = mx.sym.Group([samples, logp])
    assert sym.list_outputs() == ["m_output0", "m_output1"]
    assert sym.infer_shape(x=(2, 4))[1] == [(2, 6), (2, 6)]
    assert sym.infer_type(x="float64")[1] == [np.int32, np.float64]
    xv = np.random.RandomState(0).normal(size=(2, 4))
    head = np.random.RandomState(1).normal(size=(2, 6))
    p = np.exp(xv) / np.exp(xv).sum(-1, keepdims=True)
    for req in ["write", "add"]:
        exe = sym.simple_bind(mx.cpu(), grad_req=req, x=(2, 4), type_dict={"x": "float64"})
        exe.arg_dict["x"][:] = xv
        exe.grad_dict["x"][:] = 0.5
        mx.random.seed(3)
        s, lp = [o.asnumpy() for o in exe.forward(is_train=True)]
        exe.backward([mx.nd.zeros((2, 6), dtype="int32"), mx.nd.array(head, dtype="float64")])
        s = s.astype(np.int64)
        np.testing.assert_allclose(lp, np.log(np.take_along_axis(p, s, axis=-1)), rtol=1e-12)
        # d/dx of sum(head * log softmax(x)[s]) = sum over samples of head * (onehot(s) - p)
        expected = np.zeros((2, 4))
        for r in range(2):
            for j, h in zip(s[r], head[r]):
                expected[r] += h * (np.eye(4)[j] - p[r])
        np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), expected + (0.5 if req == "add" else 0),
                                   rtol=1e-10, atol=1e-12)


def test_multinomial_without_prob_gives_a_zero_gradient():
    """get_prob=False: one output, the indices, through which no gradient flows."""
    x = mx.sym.var("x")
    s = mx.sym.random.multinomial(x, shape=(3,), get_prob=False)
    assert len(s) == 1
    exe = s.simple_bind(mx.cpu(), x=(2, 4), grad_req="write")
    exe.arg_dict["x"][:] = 0.25
    exe.grad_dict["x"][:] = 7.0
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2, 3), dtype="int32")])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), 0.0)


class _Sampler(mx.gluon.HybridBlock):
    """Draws categories from softmax(x) and negative binomial noise of x's shape."""

    def hybrid_forward(self, F, x):
        s, lp = F.random.multinomial(F.softmax(x), shape=(3,), get_prob=True)
        noise = F.random.negative_binomial_like(x, k=2, p=0.5)
        return s, lp, noise


def test_hybridized_block_draws_what_the_imperative_one_draws():
    x = mx.nd.array(np.random.RandomState(2).normal(size=(4, 5)))
    block = _Sampler()
    mx.random.seed(10)
    eager = [o.asnumpy() for o in block(x)]
    block.hybridize()
    mx.random.seed(10)
    hybrid = [o.asnumpy() for o in block(x)]
    for a, b in zip(eager, hybrid):
        np.testing.assert_array_equal(a, b)
    assert hybrid[0].shape == (4, 3) and hybrid[2].shape == (4, 5)
    # and it is differentiable through the log-probabilities
    x.attach_grad()
    with mx.autograd.record():
        _, lp, _ = block(x)
        loss = lp.sum()
    loss.backward()
    assert x.grad.shape == (4, 5) and np.all(np.isfinite(x.grad.asnumpy()))
    np.testing.assert_allclose(x.grad.asnumpy().sum(-1), 0, atol=1e-5)  # softmax's gradient


# ---- the GPU draws the CPU's numbers ------------------------------------------------------------

# gpu(0) when there is one (SYMNET_GPU_TESTS_ON_CPU=1: the CPU, to check these tests themselves)
GPU = (mx.gpu(0) if mx.num_gpus() > 0 else
       mx.cpu() if os.environ.get("SYMNET_GPU_TESTS_ON_CPU") == "1" else None)
needs_gpu = pytest.mark.skipif(GPU is None, reason="no GPU")


@needs_gpu
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_gpu_mixtures_and_like_forms_draw_the_cpu_samples(dtype):
    def draw(ctx):
        mx.random.seed(13)
        data = mx.nd.zeros((40, 25), dtype=dtype, ctx=ctx)
        k, p = mx.nd.array([1.0, 3.5], ctx=ctx), mx.nd.array([0.3, 0.8], ctx=ctx)
        return [mx.nd.random.negative_binomial(3, 0.4, shape=(1000,), dtype=dtype, ctx=ctx),
                mx.nd.random.generalized_negative_binomial(20.0, 0.3, shape=(1000,), dtype=dtype, ctx=ctx),
                mx.nd.random.negative_binomial(k, p, shape=(300,), dtype=dtype),
                mx.nd.random.generalized_negative_binomial(k, p, shape=(300,), dtype=dtype)] + [
                    getattr(mx.nd.random, fn)(data, **params) for fn, params, _, _ in LIKE_CASES]

    cpu, gpu = draw(mx.cpu()), draw(GPU)
    rtol = {"float64": 1e-12, "float32": 1e-6}.get(dtype, 1e-2)
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b.asnumpy().astype(np.float64), a.asnumpy().astype(np.float64),
                                   rtol=rtol, atol=1e-12)


@needs_gpu
def test_gpu_multinomial_and_its_gradient_match_the_cpu():
    probs = np.random.RandomState(5).dirichlet(np.ones(7), size=(3, 4))
    head = np.random.RandomState(6).normal(size=(3, 4, 50))
    results = []
    for ctx in (mx.cpu(), GPU):
        d = mx.nd.array(probs, dtype="float64", ctx=ctx)
        d.attach_grad()
        mx.random.seed(4)
        with mx.autograd.record():
            s, lp = mx.nd.random.multinomial(d, shape=(50,), get_prob=True)
        lp.backward(mx.nd.array(head, dtype="float64", ctx=ctx))
        results.append([s.asnumpy(), lp.asnumpy(), d.grad.asnumpy()])
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-12)


# ---- Python API and the graph files -------------------------------------------------------------

def test_python_functions_and_aliases():
    for name in ["negative_binomial", "generalized_negative_binomial", "multinomial"]:
        assert getattr(mx.random, name) is getattr(mx.nd.random, name)
        assert name in mx.nd.random.__all__ and name in mx.sym.random.__all__
    for name in ["uniform_like", "normal_like", "gamma_like", "exponential_like", "poisson_like",
                 "negative_binomial_like", "generalized_negative_binomial_like"]:
        assert name in mx.nd.random.__all__ and name in mx.sym.random.__all__
        assert mx._core.op_info("_random_" + name)["aliases"] == []  # MXNet gives them none
    for alias, op in [("random_negative_binomial", "_random_negative_binomial"),
                      ("random_generalized_negative_binomial", "_random_generalized_negative_binomial"),
                      ("sample_negative_binomial", "_sample_negative_binomial"),
                      ("sample_generalized_negative_binomial", "_sample_generalized_negative_binomial"),
                      ("sample_multinomial", "_sample_multinomial")]:
        assert alias in mx._core.op_info(op)["aliases"]
        assert callable(getattr(mx.nd, alias)) and callable(getattr(mx.sym, alias))
    assert mx.nd.random.negative_binomial().shape == (1,)  # number parameters, no shape: 1 sample
    k, p = mx.sym.var("k"), mx.sym.var("p")
    s = mx.sym.random.negative_binomial(k, p, shape=(2,))
    assert s.list_arguments() == ["k", "p"] and '"_sample_negative_binomial"' in s.tojson()
    assert mx.sym.sample_generalized_negative_binomial(name="q").list_arguments() == ["q_mu", "q_alpha"]
    assert mx.sym.sample_multinomial(name="q").list_arguments() == ["q_data"]
    with pytest.raises(TypeError, match="same type"):
        mx.nd.random.negative_binomial(mx.nd.ones((2,)), 0.5)


# MXNet 1.9.1's JSON nodes (op, name, attributes) for the graph below
MXNET_EXTRA_NODES = [
    ["null", "x", {}], ["_sample_multinomial", "m", {"dtype": "int32", "get_prob": "True", "shape": "(2,)"}],
    ["_random_negative_binomial", "nb", {"k": "2", "p": "0.5", "shape": "(3,)"}],
    ["_random_generalized_negative_binomial", "g", {"alpha": "0.25", "dtype": "float64", "mu": "3",
                                                    "shape": "(3,)"}],
    ["_random_uniform_like", "ul", {"low": "0.5"}]]


def test_graph_json_matches_mxnet_and_loads():
    x = mx.sym.var("x")
    m = mx.sym.random.multinomial(x, shape=(2,), name="m")
    nb = mx.sym.random.negative_binomial(2, 0.5, shape=(3,), name="nb")
    g = mx.sym.random.generalized_negative_binomial(3, 0.25, shape=(3,), dtype="float64", name="g")
    ul = mx.sym.random.uniform_like(x, low=0.5, name="ul")
    ours = json.loads(mx.sym.Group([m, nb, g, ul]).tojson())
    assert [[n["op"], n["name"], n.get("attrs", {})] for n in ours["nodes"]] == MXNET_EXTRA_NODES
    graph = {"nodes": [{"op": op, "name": name, "attrs": attrs,
                        "inputs": [[0, 0, 0]] if i in (1, 4) else []}
                       for i, (op, name, attrs) in enumerate(MXNET_EXTRA_NODES)],
             "arg_nodes": [0], "heads": [[1, 0, 0], [1, 1, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0]],
             "attrs": {"mxnet_version": ["int", 10901]}}
    sym = mx.sym.load_json(json.dumps(graph))
    exe = sym.simple_bind(mx.cpu(), grad_req="null", x=(4, 3))
    exe.arg_dict["x"][:] = 1.0 / 3
    assert [(o.shape, o.dtype) for o in exe.forward()] == [
        ((4, 2), np.int32), ((4, 2), np.float32), ((3,), np.float32), ((3,), np.float64),
        ((4, 3), np.float32)]
