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


class _SingleArrayIter(DataIter):
    """The iterators MXNet implements in C++ (its MXDataIter: CSVIter, ImageRecordIter, ...):
    getdata() and getlabel() give one NDArray, not a list; the batches hold them as lists."""

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
    remainder."""

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
        sizes = {v.shape[axis] for v in list(self.data.values()) + list(self.label.values())}
        if len(sizes) != 1:
            raise ValueError("data and labels must have the same number of samples, got %s" % sorted(sizes))
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


class ImageRecordIter(_SingleArrayIter):
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

        from . import _core
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
            import re
            shape = re.findall(r"-?\d+", shape)
        self.data_shape = tuple(int(v) for v in shape)
        super().__init__(int(kwargs["batch_size"]))
        self.data_name, self.label_name = data_name, label_name
        self.label_width = int(kwargs.get("label_width", 1))
        dtype = kwargs.get("dtype")
        from .base import dtype_name
        self.dtype = "float32" if dtype is None or dtype == "None" else dtype_name(dtype)
        self.num_data = self._handle.num_records()
        self._cur = None

    @staticmethod
    def options():
        """The option names accepted (MXNet 1.9.1's, plus skip_bad), sorted."""
        from . import _core
        return list(_core.image_record_iter_options())

    @staticmethod
    def _option_text(key, value):
        """An option value as the text MXNet's iterator parses: True/False, (3,32,32), None,
        0.5, 'float32'; rotate_list as 0,90,180."""
        from .base import dtype_name
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
        from .base import numpy_dtype
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

# more iterators (CSVIter, ResizeIter, PrefetchingIter) live in their own module
from ._io_extra import CSVIter, PrefetchingIter, ResizeIter  # noqa: E402,F401

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "ImageRecordIter", "SyntheticIter",
           "CSVIter", "PrefetchingIter", "ResizeIter"]
