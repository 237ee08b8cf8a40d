"""Datasets: anything with __len__ and __getitem__; Dataset adds MXNet's transform, filter, shard,
take and sample views. Views index the parent lazily, so they cost no copy."""
import os

import numpy as np

from ... import ndarray as nd
from ... import recordio

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """The dataset interface: __getitem__(i) -> one sample, __len__(). A numpy array, an NDArray
    or a list can stand in for one wherever a dataset is expected."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def filter(self, fn):
        """The samples for which fn(sample) is true (fn runs over all samples now)."""
        from .sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Part `index` of `num_shards` contiguous parts; the first len % num_shards parts hold
        one sample more."""
        if num_shards <= 0:
            raise ValueError("shard: num_shards must be positive, not %d" % num_shards)
        if not 0 <= index < num_shards:
            raise ValueError("shard: index %d is out of range for %d shards" % (index, num_shards))
        from .sampler import SequentialSampler
        length = len(self)
        shard_len, rest = divmod(length, num_shards)
        start = shard_len * index + min(index, rest)
        return _SampledDataset(self, SequentialSampler(shard_len + (index < rest), start))

    def take(self, count):
        """The first `count` samples (all of them for None or a count past the end)."""
        from .sampler import SequentialSampler
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices `sampler` yields (once, now)."""
        from .sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise TypeError("sample: expected a gluon.data.Sampler, not %s" % type(sampler).__name__)
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """fn applied to each sample (a tuple sample is passed as fn(*sample)). lazy=False
        transforms everything now, so a random fn is drawn once, not every epoch."""
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        """fn applied to the first field of each sample only (the data, not the label)."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset over any object with len() and [] (a list, a numpy array, ...)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure:
    """A class, not a closure, so a transformed dataset still pickles."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    """The parent's samples at the indices a sampler gave (drawn once, at creation)."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Samples (a[i], b[i], ...) from equally long arrays, lists or datasets; with one array,
    just a[i]. A 1-D NDArray is read into numpy once, so its samples are scalars as in MXNet."""

    def __init__(self, *args):
        if not args:
            raise ValueError("ArrayDataset needs at least one array")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise ValueError("ArrayDataset: all arrays must have the same length; array 0 has "
                                 "%d samples but array %d has %d" % (self._length, i, len(data)))
            if isinstance(data, nd.NDArray) and data.ndim == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The raw records (bytes) of a RecordIO file, indexed by its .idx file (same name, .idx)."""

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._open()

    def _open(self):
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")
        self._pid = os.getpid()

    def __getitem__(self, idx):
        # a forked DataLoader worker shares the parent's file offset: reading through the same
        # descriptor from several processes would interleave seeks, so each process opens its own
        if self._pid != os.getpid():
            self._open()
        keys = self._record.keys
        if isinstance(idx, (int, np.integer)) and not -len(keys) <= idx < len(keys):
            raise IndexError("record %d is out of range: %s has %d records"
                             % (idx, self.filename, len(keys)))
        return self._record.read_idx(keys[idx])

    def __len__(self):
        return len(self._record.keys)

    def __getstate__(self):
        # the open file does not pickle (spawned workers, copies): reopen on unpickling
        state = self.__dict__.copy()
        state.pop("_record", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._open()
