"""rand_zipfian for mx.nd.contrib and mx.sym.contrib (MXNet 1.9.1 writes it in Python too):
candidate sampling from the log-uniform (Zipfian) distribution
P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1) over [0, range_max), with replacement."""
import math


def rand_zipfian(F, true_classes, num_sampled, range_max, ctx=None):
    """Returns (sampled_classes, expected_count_true, expected_count_sampled), built from the ops
    of F (symnet.ndarray or symnet.symbol): exp(u) - 1 for u uniform in [0, log(range_max + 1))
    is log-uniform, its floor is the class (the modulo only catches the rounding at the top);
    a class k's expected count is num_sampled * P(k), in float64."""
    log_range = math.log(range_max + 1)
    kwargs = {} if ctx is None else {"ctx": ctx}
    rand = F.random.uniform(low=0, high=log_range, shape=(num_sampled,), dtype="float64", **kwargs)
    # in float64 before the cast: the classes stay exact (< 2**53) and no integer kernel is needed
    sampled = F.Cast(F.floor(F.exp(rand) - 1) % range_max, dtype="int64")

    def expected_count(classes):
        c = F.Cast(classes, dtype="float64")
        return F.log((c + 2.0) / (c + 1.0)) / log_range * num_sampled

    return sampled, expected_count(true_classes), expected_count(sampled)
