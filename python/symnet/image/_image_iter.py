"""mx.image.image's ImageIter (re-exported there)."""
import logging
import os
import random

import numpy as np

from .. import io
from .. import ndarray as nd
from .. import recordio
from ._augmenters import CreateAugmenter, _numpy_ready
from ._functions import _decode_np, imdecode


# ---- ImageIter ----
# Reads images from a .rec file (path_imgrec, with path_imgidx for shuffling and partitions), or
# image files named by a .lst file (path_imglist + path_root) or a Python list (imglist); decodes
# them (RGB), runs the augmenter list (aug_list, or CreateAugmenter(data_shape, **kwargs)) and
# batches them as float32 (N, C, H, W). The hooks MXNet's subclasses override are here with the
# same names and roles: next_sample, imdecode, read_image, check_valid_image,
# augmentation_transform, postprocess_data, check_data_shape.
#
# When the list holds only symnet's own augmenters and no hook is overridden, an image goes
# through the list as a numpy array (the same numbers, without an NDArray per step).

_LABEL_DTYPES = ("int32", "float32", "int64", "float64")


def _read_imglist_file(path, dtype):
    """A .lst file -> ({index: (labels, relative path)}, indices in file order)."""
    items, keys = {}, []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            parts = line.strip().split("\t")
            if len(parts) < 3:
                raise ValueError("ImageIter: %s line %d: expected 'index<TAB>label...<TAB>path', got %r"
                                 % (path, n, line.rstrip("\n")))
            try:
                key = int(parts[0])
                labels = np.array([float(v) for v in parts[1:-1]]).astype(dtype)
            except ValueError as e:
                raise ValueError("ImageIter: %s line %d: the index must be an integer and the labels "
                                 "numbers (%s)" % (path, n, e)) from None
            items[key] = (labels, parts[-1])
            keys.append(key)
    return items, keys


def _read_imglist(imglist, dtype):
    """[[label(s)..., path], ...] -> ({1-based index: (labels, path)}, indices)."""
    items, keys = {}, []
    for k, entry in enumerate(imglist, 1):
        if not isinstance(entry, (list, tuple)) or len(entry) < 2:
            raise ValueError("ImageIter: imglist[%d] must be [label(s), path], got %r" % (k - 1, entry))
        if len(entry) > 2:
            labels = entry[:-1]
        elif isinstance(entry[0], (int, float, np.number)):
            labels = [entry[0]]
        else:
            labels = entry[0]
        if isinstance(labels, nd.NDArray):
            labels = labels.asnumpy()
        items[k] = (np.asarray(labels, dtype=np.float64).ravel().astype(dtype), entry[-1])
        keys.append(k)
    return items, keys


class ImageIter(io.DataIter):
    """Batches of augmented images, as mx.image.ImageIter.

    Sources: path_imgrec (a .rec file; path_imgidx, its .idx, is needed for shuffle and
    num_parts), path_imglist (a .lst file: index, label(s), path relative to path_root) or
    imglist (a list of [label(s), path]). With a .rec and a list, the list gives the labels.
    data_shape is (3, H, W); label_width the number of labels per image. shuffle reorders the
    images every epoch (Python's random.shuffle, as MXNet). part_index / num_parts: the
    part_index-th of num_parts contiguous, equal parts. dtype is the type the list's labels are
    read as (the batch's labels are float32, as MXNet's).

    last_batch_handle: 'pad' (the last batch is completed from the start of the data, freshly
    augmented; batch.pad counts them), 'discard' (it is dropped) or 'roll_over' (its images
    open the next epoch's first batch). One difference from MXNet: that rolled-over batch has
    pad 0 (it holds only real images; MXNet reports the count it had to add).

    Other keyword arguments go to CreateAugmenter (resize, rand_crop, rand_mirror, mean, std,
    brightness, ...) when aug_list is None."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="softmax_label",
                 dtype="float32", last_batch_handle="pad", **kwargs):
        super().__init__(batch_size)
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ValueError("ImageIter: give path_imgrec, path_imglist or imglist (a list)")
        dtype = np.dtype(dtype).name
        if dtype not in _LABEL_DTYPES:
            raise ValueError("ImageIter: label dtype %r is not supported; use one of %s"
                             % (dtype, ", ".join(_LABEL_DTYPES)))
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("ImageIter: last_batch_handle must be 'pad', 'discard' or 'roll_over', "
                             "got %r" % (last_batch_handle,))
        if int(batch_size) < 1:
            raise ValueError("ImageIter: batch_size must be at least 1, got %r" % (batch_size,))
        self.batch_size = int(batch_size)
        if path_imgrec:
            logging.info("ImageIter: loading recordio %s...", path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
                self.imgidx = None
        else:
            self.imgrec, self.imgidx = None, None
        keys = None
        if path_imglist:
            logging.info("ImageIter: loading image list %s...", path_imglist)
            self.imglist, keys = _read_imglist_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            self.imglist, keys = _read_imglist(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.data_shape = tuple(int(v) for v in data_shape)
        self.label_width = int(label_width)
        self.data_name, self.label_name = data_name, label_name
        self.dtype = dtype
        self.provide_data = [io.DataDesc(data_name, (self.batch_size,) + self.data_shape, np.float32)]
        label_shape = (self.batch_size, self.label_width) if self.label_width > 1 else (self.batch_size,)
        self.provide_label = [io.DataDesc(label_name, label_shape, np.float32)]
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ValueError("ImageIter: shuffle and num_parts > 1 need path_imgidx (the .idx file of %s)"
                                 % path_imgrec)
            self.seq = self.imgidx
        else:
            self.seq = None  # the .rec file read front to back
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ValueError("ImageIter: part_index %d is not in [0, num_parts=%d)" % (part_index, num_parts))
            share = len(self.seq) // num_parts
            self.seq = self.seq[part_index * share:(part_index + 1) * share]
        if aug_list is None:
            self.auglist = CreateAugmenter(self.data_shape, **kwargs)
        else:
            if kwargs:
                logging.warning("ImageIter: aug_list is given, so %s (CreateAugmenter's arguments) are "
                                "ignored", sorted(kwargs))
            self.auglist = aug_list
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self.num_data = self.num_image
        self.cur = 0
        self._allow_read = True
        self._cache = None  # roll_over: (data, label, count) of the unfinished batch
        self._where = None
        self.reset()

    # ---- epochs ----------------------------------------------------------------------------------
    def reset(self):
        """Starts the next epoch (reshuffled with shuffle). With roll_over and images held over,
        the data is not rewound: the held images and the rest go on."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache is None:
            if self.imgrec is not None and self.seq is None:  # (reads by key seek anyway)
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Starts the next epoch from the beginning, dropping images held over by roll_over."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None and self.seq is None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache = None

    # ---- samples ---------------------------------------------------------------------------------
    def next_sample(self):
        """(label, image bytes) of the next image; StopIteration at the end of the data (then the
        data is rewound, except with 'discard')."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:  # sequential .rec
            s = self.imgrec.read()
            if s is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(s)
            self._where = "record %d of %s" % (header.id, self.imgrec.uri)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            self._where = "record %r of %s" % (idx, self.imgrec.uri)
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            if self.imglist is None:
                return header.label, img
            if idx not in self.imglist:
                raise KeyError("ImageIter: record key %r of %s is not in the image list" % (idx, self.imgrec.uri))
            return self.imglist[idx][0], img
        label, fname = self.imglist[idx]
        self._where = "file %s" % fname
        return label, self.read_image(fname)

    def read_image(self, fname):
        """The bytes of image file fname (relative to path_root)."""
        with open(os.path.join(self.path_root or "", fname), "rb") as f:
            return f.read()

    def imdecode(self, s):
        """Image bytes -> (H, W, 3) RGB uint8 NDArray; a broken image is a RuntimeError naming it."""
        try:
            return imdecode(s)
        except Exception as e:
            raise RuntimeError("ImageIter: broken image (%s): %s" % (self._where, e)) from None

    def _imdecode_np(self, s):
        try:
            return _decode_np(s)
        except Exception as e:
            raise RuntimeError("ImageIter: broken image (%s): %s" % (self._where, e)) from None

    def check_valid_image(self, data):
        """Raises RuntimeError for an image that cannot be used (such images are skipped)."""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def augmentation_transform(self, data):
        """Runs the augmenter list on one (H, W, C) image."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """The augmented (H, W, C) image -> the (C, H, W) batch entry."""
        if isinstance(datum, nd.NDArray):  # (any dtype: symnet's transpose op takes floats only)
            arr = np.ascontiguousarray(datum.asnumpy().transpose(2, 0, 1))
            return nd.array(arr, dtype=arr.dtype)
        return np.transpose(datum, (2, 0, 1))

    def check_data_shape(self, data_shape):
        """data_shape must be (3, H, W)."""
        if len(data_shape) != 3:
            raise ValueError("ImageIter: data_shape should have length 3, with dimensions CxHxW, got %s"
                             % (data_shape,))
        if data_shape[0] != 3:
            raise ValueError("ImageIter: this iterator expects inputs to have 3 channels, got data_shape %s"
                             % (data_shape,))

    # ---- batches ---------------------------------------------------------------------------------
    def _numpy_path(self):
        cls = type(self)
        return all(getattr(cls, m) is getattr(ImageIter, m) for m in
                   ("imdecode", "augmentation_transform", "postprocess_data", "check_valid_image")) and \
            all(_numpy_ready(a) for a in self.auglist)

    def _store_label(self, batch_label, i, label):
        if isinstance(label, nd.NDArray):
            label = label.asnumpy()
        values = np.asarray(label, dtype=np.float64).ravel()
        if values.size != self.label_width:
            raise ValueError("ImageIter: %s has %d label value(s), but label_width is %d"
                             % (self._where, values.size, self.label_width))
        batch_label[i] = values[0] if self.label_width == 1 else values

    def _new_label_batch(self):
        """The numpy array a batch's labels are filled into (ImageDetIter's starts at -1)."""
        return np.zeros(self.provide_label[0].shape, dtype=np.float32)

    def _batchify(self, batch_data, batch_label, start=0):
        """Fills batch_data / batch_label (numpy) from index start; returns how many are filled
        (StopIteration when the data ended before the first)."""
        i = start
        fast = self._numpy_path()
        c, h, w = self.data_shape
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self._imdecode_np(s) if fast else self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping: %s", e)
                    continue
                if fast:
                    datum = np.transpose(self.augmentation_transform(data), (2, 0, 1))
                else:
                    datum = self.postprocess_data(self.augmentation_transform(data))
                    datum = datum.asnumpy() if isinstance(datum, nd.NDArray) else np.asarray(datum)
                if datum.shape != (c, h, w):
                    raise ValueError("ImageIter: %s is %s (CxHxW) after augmentation, but data_shape is %s; "
                                     "the augmenters must crop or resize it to that"
                                     % (self._where, "x".join(map(str, datum.shape)), self.data_shape))
                batch_data[i] = datum
                self._store_label(batch_label, i, label)
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next DataBatch; StopIteration at the end of the epoch."""
        if self._cache is not None:  # roll_over: complete the batch held over from the last epoch
            batch_data, batch_label, i = self._cache
        else:
            batch_data = np.zeros((self.batch_size,) + self.data_shape, dtype=np.float32)
            batch_label = self._new_label_batch()
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache is None:
                self._cache = (batch_data, batch_label, i)
                raise StopIteration
            filled = self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache = None
                pad = self.batch_size - filled  # 0: a rolled-over batch holds only real images
        return io.DataBatch([nd.array(batch_data)], [nd.array(batch_label)], pad=pad,
                            provide_data=self.provide_data, provide_label=self.provide_label)

    def __next__(self):
        return self.next()
