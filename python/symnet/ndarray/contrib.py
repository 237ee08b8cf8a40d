"""mx.nd.contrib: the operators registered as _contrib_<name>, under <name> (filled in by
ndarray.op from the operator registry)."""


# ---- element tests MXNet 1.9.1 writes in Python from existing comparison ops ------------------
def isinf(data):
    """1 where an element of `data` is +inf or -inf, 0 elsewhere (NaN included), in data's dtype."""
    return data.abs() == float("inf")


def isfinite(data):
    """1 where an element of `data` is neither infinite nor NaN, 0 elsewhere."""
    not_nan = data == data  # NaN is the one value unequal to itself
    return (data.abs() != float("inf")) * not_nan  # the product of two 0/1 masks is their "and"


def isnan(data):
    """1 where an element of `data` is NaN, 0 elsewhere."""
    return data != data


# ---- candidate sampling MXNet 1.9.1 writes in Python ----------------------------------------
def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """Draws num_sampled classes in [0, range_max) from the log-uniform (Zipfian) distribution,
    with replacement; returns (sampled_classes (int64), the expected counts of true_classes and
    of the sampled classes (float64)). See symnet._zipfian."""
    from .. import _zipfian, context, ndarray

    if ctx is None:
        ctx = context.current_context()
    return _zipfian.rand_zipfian(ndarray, true_classes.as_in_context(ctx), num_sampled, range_max,
                                 ctx)
