"""mx.io.MNISTIter (MXNet 1.9.1's C++ iterator, here in numpy): batches of the MNIST idx files.

As MXNet's: pixels are scaled by 1/256 to float32, images are (1, 28, 28) or, with flat,
(784,); the whole file is read at construction and shuffled once then (reset() starts the same
order again); only full batches are given (the remainder of the data set is left out);
num_parts/part_index give a rank its contiguous share. The shuffled order comes from numpy's
generator seeded with `seed`, not from MXNet's std::mt19937, so it differs from MXNet's."""
import gzip
import logging
import struct

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from .io import DataDesc, MXDataIter

_IMAGE_MAGIC, _LABEL_MAGIC = 2051, 2049


def _read_idx(path, magic, what):
    """The array of an idx file (optionally gzip-compressed); MXNetError naming the file."""
    try:
        with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise MXNetError("MNISTIter: cannot read the %s file %s: %s" % (what, path, e)) from None
    if len(raw) < 8 or struct.unpack(">I", raw[:4])[0] != magic:
        raise MXNetError("MNISTIter: %s is not an MNIST %s file (idx magic %d expected)" % (path, what, magic))
    ndim = 3 if magic == _IMAGE_MAGIC else 1
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise MXNetError("MNISTIter: %s is truncated (%d bytes of data for shape %s)" % (path, body.size, dims))
    return body.reshape(dims)


class MNISTIter(MXDataIter):
    """Iterates over MNIST (see the module docstring). Arguments as MXNet's: image, label,
    batch_size, shuffle, flat, seed, silent, num_parts, part_index, data_name, label_name,
    dtype (of the data; float32 by default); prefetch_buffer and ctx are accepted and unused."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte", batch_size=128,
                 shuffle=True, flat=False, seed=0, silent=False, num_parts=1, part_index=0, prefetch_buffer=4,
                 ctx="gpu", dtype=None, data_name="data", label_name="softmax_label", **kwargs):
        # other arguments (data_shape, input_shape, ...) are ignored, as MXNet's iterator ignores
        # parameters it does not know; the shape follows from `flat`
        super().__init__(int(batch_size))
        images = _read_idx(image, _IMAGE_MAGIC, "image")
        labels = _read_idx(label, _LABEL_MAGIC, "label")
        if len(images) != len(labels):
            raise MXNetError("MNISTIter: %s has %d images but %s %d labels" % (image, len(images), label, len(labels)))
        if int(num_parts) > 1:
            share = len(images) // int(num_parts)
            part = slice(int(part_index) * share, (int(part_index) + 1) * share)
            images, labels = images[part], labels[part]
        if shuffle:
            order = np.random.RandomState(int(seed)).permutation(len(images))
            images, labels = images[order], labels[order]
        dtype = "float32" if dtype in (None, "None") else np.dtype(dtype).name
        self._images = (images.astype(np.float32) * np.float32(1.0 / 256)).astype(dtype)
        self._images = self._images.reshape((len(images), -1) if flat else (len(images), 1) + images.shape[1:])
        self._labels = labels.astype(np.float32)
        if len(self._images) < self.batch_size:
            raise MXNetError("MNISTIter: %d images (of %s) do not fill one batch of %d"
                             % (len(self._images), image, self.batch_size))
        if not silent:
            logging.info("MNISTIter: load %d images, shuffle=%d, shape=%s", len(self._images), bool(shuffle),
                         (self.batch_size,) + self._images.shape[1:])
        self.data_name, self.label_name = data_name, label_name
        self.num_data = len(self._images)
        self._cursor = -self.batch_size

    @property
    def provide_data(self):
        return [DataDesc(self.data_name, (self.batch_size,) + self._images.shape[1:], self._images.dtype)]

    @property
    def provide_label(self):
        return [DataDesc(self.label_name, (self.batch_size,))]

    def reset(self):
        self._cursor = -self.batch_size

    def iter_next(self):
        self._cursor += self.batch_size
        return self._cursor + self.batch_size <= self.num_data

    def _rows(self, array):
        return nd.array(array[self._cursor:self._cursor + self.batch_size], dtype=array.dtype)

    def getdata(self):
        return self._rows(self._images)

    def getlabel(self):
        return self._rows(self._labels)

    def getindex(self):
        return np.arange(self._cursor, self._cursor + self.batch_size, dtype=np.uint64)

    def getpad(self):
        return 0
