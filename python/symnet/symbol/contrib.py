"""mx.sym.contrib: the operators registered as _contrib_<name>, under <name> (filled in by
symbol.op from the operator registry)."""


def rand_zipfian(true_classes, num_sampled, range_max):
    """The symbol form of mx.nd.contrib.rand_zipfian: three outputs (sampled classes, expected
    counts of true_classes, expected counts of the sampled classes). See symnet._zipfian."""
    from .. import _zipfian, symbol

    return _zipfian.rand_zipfian(symbol, true_classes, num_sampled, range_max)
