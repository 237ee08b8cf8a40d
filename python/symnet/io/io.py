"""MXNet 1.9.1's mx.io.io: DataDesc, DataBatch, DataIter, NDArrayIter, ImageRecordIter,
CSVIter, ResizeIter, PrefetchingIter (and symnet's SyntheticIter). CSVIter lives in _csv_iter.py and
MNISTIter in _mnist.py (both build on MXDataIter here); they are imported back at the end.

CSVIter, ResizeIter and PrefetchingIter hand out fresh arrays for every batch, so a consumer may
keep a batch while the next one is read (PrefetchingIter relies on that)."""
import queue
import re
import threading
from collections import OrderedDict, namedtuple

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..ndarray import NDArray


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

    def __str__(self):
        # MXNet's text: the shapes of the data arrays, and of the labels (None without labels)
        labels = [a.shape for a in self.label] if self.label else None
        return "%s: data shapes: %s label shapes: %s" % (type(self).__name__, [a.shape for a in self.data], labels)


class DataIter:
    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def next(self):
        if self.iter_next():
            return DataBatch(self.getdata(), self.getlabel(), self.getpad(), self.getindex(),
                             provide_data=self.provide_data, provide_label=self.provide_label)
        raise StopIteration

    def __next__(self):
        # through next(), as MXNet: a subclass that overrides only next() works in a for loop
        return self.next()

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


class MXDataIter(DataIter):
    """The base of the iterators MXNet implements in C++ (CSVIter, ImageRecordIter, MNISTIter,
    ...; MXNet's class of this name wraps their C handle): getdata() and getlabel() give one
    NDArray, not a list; the batches hold them as lists."""

    def next(self):
        if self.iter_next():
            return DataBatch([self.getdata()], [self.getlabel()], self.getpad(), self.getindex(),
                             provide_data=self.provide_data, provide_label=self.provide_label)
        raise StopIteration


def _as_named(data, default_name):
    if data is None:
        return OrderedDict()
    if isinstance(data, (np.ndarray, NDArray)) or not isinstance(data, (dict, list, tuple)):
        data = [data]
    if isinstance(data, (list, tuple)):
        names = [default_name] if len(data) == 1 else ["_%d_%s" % (i, default_name) for i in range(len(data))]
        data = OrderedDict(zip(names, data))
    # MXNet orders the arrays by name (so a dict's insertion order does not count, and with 11 or
    # more list entries '_10_data' comes before '_2_data'); batch.data[i] is provide_data[i]
    data = OrderedDict(sorted(data.items(), key=lambda kv: kv[0]))
    # as MXNet's (mx.nd.array's default): an NDArray keeps its dtype, anything else (numpy
    # arrays of integer labels, float64 data, lists) becomes float32
    return OrderedDict((k, v.asnumpy() if isinstance(v, NDArray) else np.asarray(v, dtype=np.float32))
                       for k, v in data.items())


def _first_samples(array, count, axis):
    """array's first `count` samples along the batch axis."""
    if array.shape[axis] == count:
        return array
    return array[(slice(None),) * axis + (slice(0, count),)]


class NDArrayIter(DataIter):
    """Batches over in-memory arrays. last_batch_handle: 'pad' (fill the last batch from the
    start; batch.pad says how many), 'discard' (drop it) or 'roll_over' (carry it into the next
    epoch). With shuffle the order is a fresh permutation per epoch, drawn from `seed`.

    num_parts/part_index (symnet's; ImageRecordIter's split a file by bytes, as MXNet's) give a
    rank of a distributed job its share: sample i belongs to part i % num_parts, and every part
    gets the same number of samples (floor(n / num_parts); the rest is left out) so that the
    ranks step together.

    layout (MXNet's): where 'N' stands is the batch axis of data and labels alike ('TNC': the
    arrays are sliced along axis 1). hard_reset() starts the epoch again, dropping a rolled-over
    remainder.

    The number of samples is the first data array's (by name), as MXNet's: labels or weights
    for more samples are used up to it (MXNet's last padded batch would carry their extra rows
    as well; here every batch has provide_label's shape)."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW", seed=0, num_parts=1,
                 part_index=0):
        super().__init__(batch_size)
        self.layout = layout
        self._axis = axis = layout.find("N")
        if axis < 0:
            raise ValueError("NDArrayIter: layout %r has no batch axis 'N'" % (layout,))
        self.data = _as_named(data, data_name)
        self.label = _as_named(label, label_name)
        for k, v in list(self.data.items()) + list(self.label.items()):
            if v.ndim <= axis:
                raise ValueError("NDArrayIter: %r has %d dimensions, too few for the batch axis %d of layout %r"
                                 % (k, v.ndim, axis, layout))
        # MXNet's count of samples is the first data array's (by name); a longer array (labels
        # or sample weights for more samples than the data) is used up to it, a shorter one is
        # refused here (MXNet's would fail at the first batch past its end)
        if not self.data:
            raise ValueError("NDArrayIter: no data arrays given")
        first = next(iter(self.data))
        count = self.data[first].shape[axis]
        for k, v in list(self.data.items()) + list(self.label.items()):
            if v.shape[axis] < count:
                raise ValueError("data and labels must have at least as many samples as the first data array "
                                 "%r (%d): %r has %d" % (first, count, k, v.shape[axis]))
        self.data = OrderedDict((k, _first_samples(v, count, axis)) for k, v in self.data.items())
        self.label = OrderedDict((k, _first_samples(v, count, axis)) for k, v in self.label.items())
        sizes = {count}
        if not (num_parts >= 1 and 0 <= part_index < num_parts):
            raise ValueError("NDArrayIter: part_index %d is not in [0, num_parts=%d)" % (part_index, num_parts))
        if num_parts > 1:
            share = np.arange(part_index, (min(sizes) // num_parts) * num_parts, num_parts)
            self.data = OrderedDict((k, np.take(v, share, axis=axis)) for k, v in self.data.items())
            self.label = OrderedDict((k, np.take(v, share, axis=axis)) for k, v in self.label.items())
            sizes = {len(share)}
        self.num_data = sizes.pop()
        if self.num_data == 0:
            raise ValueError("NDArrayIter: the data set is empty (0 samples); nothing to iterate over")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over'")
        if batch_size < 1:
            raise ValueError("NDArrayIter: batch_size must be at least 1, got %d" % batch_size)
        if last_batch_handle == "discard" and batch_size > self.num_data:
            raise ValueError("NDArrayIter: batch_size %d does not fit %d samples; with last_batch_handle="
                             "'discard' no batch would be left (use 'pad')" % (batch_size, self.num_data))
        self.shuffle, self.last_batch_handle, self.seed = shuffle, last_batch_handle, seed
        self.epoch = 0
        self._carry = np.zeros(0, dtype=np.int64)
        self._start_epoch()

    def _descs(self, arrays):
        a = self._axis
        return [DataDesc(k, v.shape[:a] + (self.batch_size,) + v.shape[a + 1:], v.dtype, self.layout)
                for k, v in arrays.items()]

    @property
    def provide_data(self):
        return self._descs(self.data)

    @property
    def provide_label(self):
        return self._descs(self.label)

    def _start_epoch(self):
        order = np.arange(self.num_data)
        if self.shuffle:
            order = np.random.RandomState(self.seed + self.epoch).permutation(self.num_data)
        self._order = np.concatenate([self._carry, order]) if len(self._carry) else order
        self._carry = np.zeros(0, dtype=np.int64)
        self._cursor = -self.batch_size
        self._batch_idx = None

    @property
    def idx(self):
        """The epoch's order of the samples (MXNet's attribute): with batch_size 1 and no
        roll-over, batch i holds sample idx[i] of the data as given."""
        return self._order[len(self._order) - self.num_data:]

    def reset(self):
        if self.last_batch_handle == "roll_over" and self._cursor + self.batch_size < len(self._order):
            pass  # the remainder was already carried in iter_next
        self.epoch += 1
        self._start_epoch()

    def hard_reset(self):
        """Back to the start of the data, leaving out what roll_over carried (MXNet's)."""
        self._carry = np.zeros(0, dtype=np.int64)
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
        # fill from the start, around as often as needed (a batch larger than the data set)
        fill = np.resize(self._order, self._pad)
        self._batch_idx = np.concatenate([self._order[self._cursor:], fill])
        return True

    def _take(self, arrays):
        return [nd.array(np.take(v, self._batch_idx, axis=self._axis), dtype=v.dtype) for v in arrays.values()]

    def getdata(self):
        return self._take(self.data)

    def getlabel(self):
        return self._take(self.label)

    def getpad(self):
        return self._pad

    def getindex(self):
        return self._batch_idx


class ImageRecordIter(MXDataIter):
    """Batches of decoded, augmented images from an MXNet .rec file (JPEG records), decoded in
    C++ worker threads ahead of training. Every option of MXNet 1.9.1's mx.io.ImageRecordIter is
    accepted and implemented, with MXNet's names and defaults (``mx.io.ImageRecordIter.options()``
    lists them; see include/symnet/image_record_iter.h and src/io/image_augment.h): the record
    reader (path_imgrec, path_imgidx, path_imglist, label_width, data_shape, preprocess_threads,
    num_parts, part_index, shuffle_chunk_size/seed, seed_aug, device_id, verbose), shuffle, seed,
    batch_size, round_batch, prefetch_buffer, ctx, dtype, the default augmenter (resize,
    rand_crop, random_resized_crop, min/max_random_area, min/max_aspect_ratio, max_rotate_angle,
    rotate, rotate_list, max_shear_ratio, min/max_random_scale, min/max_img_size,
    min/max_crop_size, pad, fill_value, inter_method, brightness, contrast, saturation,
    pca_noise, random_h/s/l) and normalisation (mirror, rand_mirror, mean_img, mean_r/g/b/a,
    std_r/g/b/a, scale, max_random_contrast, max_random_illumination); plus symnet's skip_bad.
    data_name and label_name name the batches' arrays. The options reach the C++ iterator as
    strings, as MXNet's took them (data_shape=(3, 32, 32) -> "(3,32,32)"); an unknown option or
    a bad value is an MXNetError naming it. With verbose (the default) the set-up is reported
    through the logging module (INFO)."""

    def __init__(self, data_name="data", label_name="softmax_label", **kwargs):
        import logging

        from .. import _core
        if "path_imgrec" not in kwargs or "data_shape" not in kwargs:
            raise ValueError("ImageRecordIter needs path_imgrec and data_shape")
        kwargs = dict(kwargs)
        for drop in ("num_parts", "part_index"):
            if kwargs.get(drop) is None:
                kwargs.pop(drop, None)
        options = {str(k): self._option_text(k, v) for k, v in kwargs.items()}
        self._handle = _core.ImageRecordIter(options)
        for message in self._handle.take_messages():
            logging.getLogger(__name__).info(message)
        shape = kwargs["data_shape"]
        if isinstance(shape, str):  # MXNet's text form, "(3, 224, 224)"
            shape = re.findall(r"-?\d+", shape)
        self.data_shape = tuple(int(v) for v in shape)
        super().__init__(int(kwargs["batch_size"]))
        self.data_name, self.label_name = data_name, label_name
        self.label_width = int(kwargs.get("label_width", 1))
        dtype = kwargs.get("dtype")
        from ..base import dtype_name
        self.dtype = "float32" if dtype is None or dtype == "None" else dtype_name(dtype)
        self.num_data = self._handle.num_records()
        self._cur = None

    @staticmethod
    def options():
        """The option names accepted (MXNet 1.9.1's, plus skip_bad), sorted."""
        from .. import _core
        return list(_core.image_record_iter_options())

    @staticmethod
    def _option_text(key, value):
        """An option value as the text MXNet's iterator parses: True/False, (3,32,32), None,
        0.5, 'float32'; rotate_list as 0,90,180."""
        from ..base import dtype_name
        if value is None:
            return "None"
        if isinstance(value, (bool, np.bool_)):
            return "True" if value else "False"
        if key == "dtype":
            return dtype_name(value)
        if key == "ctx" and hasattr(value, "device_type"):
            return "gpu" if value.device_type == "gpu" else "cpu"
        if isinstance(value, (list, tuple, np.ndarray)):
            items = [str(int(v)) if float(v) == int(v) else repr(float(v)) for v in value]
            return ",".join(items) if key == "rotate_list" else "(" + ",".join(items) + ")"
        if isinstance(value, (float, np.floating)):
            return repr(float(value))
        if isinstance(value, np.integer):
            return str(int(value))
        return str(value)

    @property
    def provide_data(self):
        from ..base import numpy_dtype
        return [DataDesc(self.data_name, (self.batch_size,) + self.data_shape, numpy_dtype(self.dtype))]

    @property
    def provide_label(self):
        shape = (self.batch_size,) if self.label_width == 1 else (self.batch_size, self.label_width)
        return [DataDesc(self.label_name, shape)]

    def reset(self):
        self._handle.reset()

    def set_epoch(self, epoch):
        self._handle.set_epoch(int(epoch))

    def iter_next(self):
        self._cur = self._handle.next()
        return self._cur is not None

    def getdata(self):
        return NDArray(self._cur[0])

    def getlabel(self):
        return NDArray(self._cur[1])

    def getpad(self):
        return self._cur[2]

    def getindex(self):
        return np.array(self._cur[3], dtype=np.uint64)

    @property
    def num_skipped(self):
        return self._handle.num_skipped()

    @property
    def num_prefetched(self):
        """Batches decoded and waiting (at most prefetch_buffer; 0 with ctx='cpu')."""
        return self._handle.num_prefetched()

    @property
    def num_threads(self):
        """Decoding threads: preprocess_threads, at most the processors."""
        return self._handle.num_threads()


def ImageRecordUInt8Iter(**kwargs):  # noqa: N802 (MXNet's name)
    """ImageRecordIter with uint8 batches (MXNet's iterator of that name: dtype='uint8')."""
    kwargs.setdefault("dtype", "uint8")
    return ImageRecordIter(**kwargs)


def ImageRecordInt8Iter(**kwargs):  # noqa: N802 (MXNet's name)
    """ImageRecordIter with int8 batches (MXNet's iterator of that name: dtype='int8')."""
    kwargs.setdefault("dtype", "int8")
    return ImageRecordIter(**kwargs)


# MXNet 1.9.1's older record iterators take the same options as the current ones
ImageRecordIter_v1 = ImageRecordIter
ImageRecordUInt8Iter_v1 = ImageRecordUInt8Iter


def LibSVMIter(**kwargs):  # noqa: N802 (MXNet's name)
    """MXNet's LibSVM iterator gives CSR sparse batches; symnet has no sparse storage."""
    raise MXNetError("mx.io.LibSVMIter: symnet has no sparse (CSR) arrays, which this iterator's batches are; "
                     "read the file into dense arrays and use NDArrayIter")


def ImageDetRecordIter(**kwargs):  # noqa: N802 (MXNet's name)
    """MXNet's C++ detection record iterator is not implemented; mx.image.ImageDetIter reads the
    same .rec files (labels packed by im2rec --pack-label) with MXNet's detection augmenters."""
    raise MXNetError("mx.io.ImageDetRecordIter is not implemented in symnet; use mx.image.ImageDetIter("
                     "batch_size, data_shape, path_imgrec=..., path_imgidx=...), which reads the same "
                     "files and augments with MXNet's detection augmenters")


class SyntheticIter(DataIter):
    """Fixed random batches (for benchmarks): num_batches per epoch of data_shape images."""

    def __init__(self, data_shape, batch_size, num_classes=1000, num_batches=100, dtype="float32",
                 data_name="data", label_name="softmax_label", seed=0):
        super().__init__(batch_size)
        rng = np.random.RandomState(seed)
        self.data_shape = tuple(data_shape)
        self._data = nd.array(rng.normal(size=(batch_size,) + self.data_shape), dtype=dtype)
        self._label = nd.array(rng.randint(0, num_classes, batch_size))
        self.num_batches, self.data_name, self.label_name = num_batches, data_name, label_name
        self.num_data = num_batches * batch_size
        self._i = 0

    @property
    def provide_data(self):
        return [DataDesc(self.data_name, (self.batch_size,) + self.data_shape, self._data.dtype)]

    @property
    def provide_label(self):
        return [DataDesc(self.label_name, (self.batch_size,))]

    def reset(self):
        self._i = 0

    def iter_next(self):
        self._i += 1
        return self._i <= self.num_batches

    def getdata(self):
        return [self._data]

    def getlabel(self):
        return [self._label]


def _next_of(it):
    """A batch from an MXNet-style iterator (its next(), which subclasses override) or any
    Python iterator."""
    step = getattr(it, "next", None)
    return step() if callable(step) else next(it)


class _WrappingIter(DataIter):
    """An iterator that hands out whole batches of other iterators: iter_next() sets
    current_batch, and the accessors read it."""

    def __next__(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    next = __next__

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_WrappingIter):
    """Makes an epoch of data_iter exactly `size` batches: a shorter one is reset and read on
    (wrapping around), a longer one is cut off. reset() resets data_iter too unless
    reset_internal=False (then the next epoch goes on where this one stopped)."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__(data_iter.batch_size)
        if int(size) < 0:
            raise ValueError("ResizeIter: size must be >= 0 batches, got %r" % (size,))
        self.data_iter, self.size, self.reset_internal = data_iter, int(size), reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = _next_of(self.data_iter)
        except StopIteration:
            self.data_iter.reset()
            try:
                self.current_batch = _next_of(self.data_iter)
            except StopIteration:
                raise ValueError("ResizeIter: the wrapped iterator gives no batches even right "
                                 "after reset()") from None
        self.cur += 1
        return True


_STOP = object()


def _prefetch_worker(it, requests, results):
    """Reads a batch of `it` per request: the batch, None at the end of the epoch, or the
    exception it raised (re-raised in the consumer)."""
    while True:
        req = requests.get()
        if req is _STOP:
            return
        if req == "reset":
            try:
                it.reset()
                results.put(None)
            except BaseException as e:  # noqa: BLE001 - handed to the consumer
                results.put(e)
            continue
        try:
            results.put(_next_of(it))
        except StopIteration:
            results.put(None)
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            results.put(e)


def _renamed(descs, mapping):
    if mapping is None:
        return list(descs)
    out = []
    for d in descs:
        if not isinstance(d, DataDesc):
            d = DataDesc(*d)
        out.append(DataDesc(mapping.get(d.name, d.name), d.shape, d.dtype, d.layout))
    return out


class PrefetchingIter(_WrappingIter):
    """Reads the next batch of one or several iterators in background threads (one per
    iterator) while the current one is used. With several, a batch holds their data (and
    labels) side by side, in the order of `iters`; they must give the same number of batches
    with the same pad. rename_data / rename_label: one {old name: new name} dict per iterator
    for provide_data / provide_label (names not in a dict stay).

    An exception in an iterator is raised by next() here (MXNet's thread dies and next() waits
    for ever). close() (or dropping the object) ends the threads."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        if not isinstance(iters, (list, tuple)):
            iters = [iters]
        iters = list(iters)
        if not iters:
            raise ValueError("PrefetchingIter: needs at least one iterator")
        for what, ren in (("rename_data", rename_data), ("rename_label", rename_label)):
            if ren is not None and len(ren) != len(iters):
                raise ValueError("PrefetchingIter: %s has %d dicts for %d iterators"
                                 % (what, len(ren), len(iters)))
        self.iters, self.n_iter = iters, len(iters)
        self.rename_data, self.rename_label = rename_data, rename_label
        super().__init__(self.provide_data[0][1][0])
        self.current_batch = None
        self._requests = [queue.Queue() for _ in iters]
        self._results = [queue.Queue() for _ in iters]
        self._pending = [False] * self.n_iter
        self._ended = False
        self._threads = []
        for i, it in enumerate(iters):
            t = threading.Thread(target=_prefetch_worker, args=(it, self._requests[i], self._results[i]),
                                 name="PrefetchingIter-%d" % i, daemon=True)
            t.start()
            self._threads.append(t)
        self._ask()

    @property
    def provide_data(self):
        ren = self.rename_data or [None] * self.n_iter
        return sum((_renamed(it.provide_data, r) for it, r in zip(self.iters, ren)), [])

    @property
    def provide_label(self):
        ren = self.rename_label or [None] * self.n_iter
        return sum((_renamed(it.provide_label or [], r) for it, r in zip(self.iters, ren)), [])

    def _ask(self, what="next"):
        if not self._threads:
            raise RuntimeError("PrefetchingIter: the iterator was closed")
        for i in range(self.n_iter):
            if not self._pending[i]:
                self._requests[i].put(what)
                self._pending[i] = True

    def _collect(self):
        out = []
        for i in range(self.n_iter):
            out.append(self._results[i].get() if self._pending[i] else None)
            self._pending[i] = False
        return out

    def reset(self):
        self._collect()  # a batch read ahead (or its error) belongs to the old epoch
        self._ask("reset")
        errors = [e for e in self._collect() if isinstance(e, BaseException)]
        self._ended = False
        if errors:
            raise errors[0]
        self._ask()

    def iter_next(self):
        if not self._threads:
            raise RuntimeError("PrefetchingIter: the iterator was closed")
        if self._ended:
            return False
        self._ask()  # nothing read ahead after an error: read now
        batches = self._collect()
        for b in batches:
            if isinstance(b, BaseException):
                raise b
        done = [b is None for b in batches]
        if all(done):
            self._ended = True
            return False
        if any(done):
            raise ValueError("PrefetchingIter: iterator %d ended its epoch while iterator %d still gave "
                             "a batch; the iterators must give the same number of batches"
                             % (done.index(True), done.index(False)))
        pads = [b.pad for b in batches]
        if any(p != pads[0] for p in pads):
            raise ValueError("PrefetchingIter: the iterators' batches have different pads %s; they "
                             "must hold the same number of examples" % pads)
        self.current_batch = DataBatch(sum((list(b.data or []) for b in batches), []),
                                       sum((list(b.label or []) for b in batches), []),
                                       pads[0], batches[0].index, provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        self._ask()  # read the next batch while this one is used
        return True

    def close(self):
        """Ends the reading threads (after the batch they are reading)."""
        threads, self._threads = getattr(self, "_threads", []), []
        for i, t in enumerate(threads):
            self._requests[i].put(_STOP)
        for t in threads:
            if t is not threading.current_thread():
                t.join()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


from ._csv_iter import CSVIter  # noqa: E402 (it builds on MXDataIter above)
from ._mnist import MNISTIter  # noqa: E402 (it builds on MXDataIter above)

__all__ = ["DataDesc", "DataBatch", "DataIter", "MXDataIter", "NDArrayIter", "ImageRecordIter", "SyntheticIter",
           "CSVIter", "PrefetchingIter", "ResizeIter", "MNISTIter", "ImageRecordUInt8Iter", "ImageRecordInt8Iter",
           "ImageRecordIter_v1", "ImageRecordUInt8Iter_v1", "LibSVMIter", "ImageDetRecordIter"]
