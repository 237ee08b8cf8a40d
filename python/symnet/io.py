"""Data iterators (MXNet's names): DataDesc, DataBatch, DataIter, NDArrayIter."""
from collections import OrderedDict, namedtuple

import numpy as np

from . import ndarray as nd
from .ndarray import NDArray


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """(name, shape) plus dtype and layout, like MXNet's DataDesc."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super().__new__(cls, name, tuple(shape))
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, np.dtype(self.dtype).name, self.layout)


class DataBatch:
    def __init__(self, data, label=None, pad=0, index=None, bucket_key=None, provide_data=None,
                 provide_label=None):
        self.data, self.label, self.pad, self.index = data, label, pad, index
        self.bucket_key = bucket_key
        self.provide_data, self.provide_label = provide_data, provide_label


class DataIter:
    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def __next__(self):
        if self.iter_next():
            return DataBatch(self.getdata(), self.getlabel(), self.getpad(), self.getindex(),
                             provide_data=self.provide_data, provide_label=self.provide_label)
        raise StopIteration

    next = __next__

    def iter_next(self):
        raise NotImplementedError()

    def getdata(self):
        raise NotImplementedError()

    def getlabel(self):
        return None

    def getindex(self):
        return None

    def getpad(self):
        return 0


def _as_named(data, default_name):
    if data is None:
        return OrderedDict()
    if isinstance(data, (np.ndarray, NDArray)) or not isinstance(data, (dict, list, tuple)):
        data = [data]
    if isinstance(data, (list, tuple)):
        names = [default_name] if len(data) == 1 else ["_%d_%s" % (i, default_name) for i in range(len(data))]
        data = OrderedDict(zip(names, data))
    return OrderedDict((k, v.asnumpy() if isinstance(v, NDArray) else np.asarray(v)) for k, v in data.items())


class NDArrayIter(DataIter):
    """Batches over in-memory arrays. last_batch_handle: 'pad' (fill the last batch from the
    start; batch.pad says how many), 'discard' (drop it) or 'roll_over' (carry it into the next
    epoch). With shuffle the order is a fresh permutation per epoch, drawn from `seed`."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", seed=0):
        super().__init__(batch_size)
        self.data = _as_named(data, data_name)
        self.label = _as_named(label, label_name)
        sizes = {len(v) for v in list(self.data.values()) + list(self.label.values())}
        if len(sizes) != 1:
            raise ValueError("data and labels must have the same number of samples, got %s" % sorted(sizes))
        self.num_data = sizes.pop()
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over'")
        if batch_size < 1 or (last_batch_handle == "discard" and batch_size > self.num_data):
            raise ValueError("batch_size %d does not fit %d samples" % (batch_size, self.num_data))
        self.shuffle, self.last_batch_handle, self.seed = shuffle, last_batch_handle, seed
        self.epoch = 0
        self._carry = np.zeros(0, dtype=np.int64)
        self._start_epoch()

    @property
    def provide_data(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.data.items()]

    @property
    def provide_label(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.label.items()]

    def _start_epoch(self):
        order = np.arange(self.num_data)
        if self.shuffle:
            order = np.random.RandomState(self.seed + self.epoch).permutation(self.num_data)
        self._order = np.concatenate([self._carry, order]) if len(self._carry) else order
        self._carry = np.zeros(0, dtype=np.int64)
        self._cursor = -self.batch_size
        self._batch_idx = None

    def reset(self):
        if self.last_batch_handle == "roll_over" and self._cursor + self.batch_size < len(self._order):
            pass  # the remainder was already carried in iter_next
        self.epoch += 1
        self._start_epoch()

    def set_epoch(self, epoch):
        """Jumps to the shuffle order of `epoch` (used when resuming training)."""
        self.epoch = epoch
        self._carry = np.zeros(0, dtype=np.int64)
        self._start_epoch()

    def iter_next(self):
        self._cursor += self.batch_size
        n = len(self._order)
        if self._cursor >= n:
            return False
        end = self._cursor + self.batch_size
        if end <= n:
            self._batch_idx, self._pad = self._order[self._cursor:end], 0
            return True
        if self.last_batch_handle == "discard":
            return False
        if self.last_batch_handle == "roll_over":
            self._carry = self._order[self._cursor:]
            return False
        self._pad = end - n
        self._batch_idx = np.concatenate([self._order[self._cursor:], self._order[:self._pad]])
        return True

    def _take(self, arrays):
        return [nd.array(v[self._batch_idx], dtype=v.dtype) for v in arrays.values()]

    def getdata(self):
        return self._take(self.data)

    def getlabel(self):
        return self._take(self.label)

    def getpad(self):
        return self._pad

    def getindex(self):
        return self._batch_idx
