"""gluon.contrib.data.sampler: IntervalSampler, the order that reads a sequence as `interval`
interleaved streams (0, k, 2k, ..., then 1, 1 + k, ...)."""
from ...data import sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(sampler.Sampler):
    """Samples [0, length) every `interval` items: 0, k, 2k, ... and then, with rollover, again
    from 1, from 2, ... up to k - 1, so every index comes once; without rollover only the first
    pass. IntervalSampler(13, 3) gives 0 3 6 9 12 1 4 7 10 2 5 8 11.

    As MXNet's: interval > length fails an assertion, len() is `length` even without rollover
    (where fewer indices come), and an interval of 0 or less yields nothing."""

    def __init__(self, length, interval, rollover=True):
        assert interval <= length, "Interval {} must be smaller than or equal to length {}".format(
            interval, length)
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self):
        return self._length
