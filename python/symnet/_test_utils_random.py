"""The random-number helpers of symnet.test_utils (MXNet 1.9.1's names): statistical checks of a
sampler (chi-square against bucket probabilities, mean and variance bounds) and makers of random
matrices with known spectra for the linear-algebra tests. test_utils re-exports every name."""
import numpy as np

from . import _test_utils_checks as _checks

ss = _checks.LazyModule("scipy.stats")  # MXNet's `ss`, imported on first use (scipy.stats takes seconds)


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """nbuckets equiprobable buckets [(ppf(i/n), ppf((i+1)/n))] and their probabilities (1/n each)
    for the quantile function ppf, as chi_square_check takes them."""
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the mean of generator(nsamples) lies within mu +- 3 sigma / sqrt(nsamples)."""
    sample_mean = np.array(generator(nsamples)).mean()
    bound = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - bound < sample_mean < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance of generator(nsamples) lies within sigma^2 +- 3 sqrt(2 sigma^4
    / (nsamples - 1)) (its standard error for normal data)."""
    sample_var = np.array(generator(nsamples)).var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - bound < sample_var < sigma ** 2 + bound)


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of generator(nsamples) against bucket probabilities `probs`.
    buckets: ascending, disjoint (low, high) ranges for a continuous distribution, or the values
    of a discrete one. Returns (p value, observed counts, expected counts)."""
    if not ss:
        raise ImportError("scipy is not available. Please check if the scipy python bindings are installed.")
    return _checks.chi_square(generator, buckets, probs, nsamples)


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Runs chi_square_check nrepeat times; raises AssertionError unless a p value above alpha
    comes out in at least the fraction success_rate of them. Returns the p values."""
    results = [chi_square_check(generator=generator, buckets=buckets, probs=probs, nsamples=nsamples)
               for _ in range(nrepeat)]
    pvalues = [r[0] for r in results]
    if (np.array(pvalues) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s.\nbuckets=%s, "
                             "probs=%s" % (str(pvalues), str([r[1] for r in results]), str([r[2] for r in results]),
                                           str(buckets), str(probs)))
    return pvalues




def new_matrix_with_real_eigvals_2d(n):
    """A random n x n matrix Q^-1 D Q with real eigenvalues D uniform on [-10, 10] and a
    well-conditioned Q (condition number below 3)."""
    return _checks.matrix_with_real_eigvals(n)


def new_matrix_with_real_eigvals_nd(shape):
    """A stack of new_matrix_with_real_eigvals_2d matrices of shape (..., n, n)."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(count)]).reshape(shape)


def new_orthonormal_matrix_2d(n):
    """A random n x n orthonormal matrix (the Q of a QR factorisation)."""
    x = np.random.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric n x n matrix Q^T D Q with eigenvalues uniform on [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    return np.matmul(np.matmul(q.T, np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A stack of new_sym_matrix_with_real_eigvals_2d matrices of shape (..., n, n)."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(count)]).reshape(shape)
