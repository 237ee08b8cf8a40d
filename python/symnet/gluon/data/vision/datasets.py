"""Vision datasets: MNIST, FashionMNIST, CIFAR10, CIFAR100 read from their standard files, and
images from a RecordIO file (ImageRecordDataset) or a folder per class (ImageFolderDataset).

Samples are (image, label): an (H, W, C) uint8 NDArray and the label, or transform(image, label).
symnet never downloads (it runs without network access): the standard files must already be in
`root`, and a missing one is an error that says which files to put where.
"""
import gzip
import os
import struct
import tarfile
import warnings

import numpy as np

from .... import image, recordio
from .... import ndarray as nd
from ....base import MXNetError
from .. import dataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset"]


def _data_dir():
    return os.path.expanduser(os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")))


class _DownloadedDataset(dataset.Dataset):
    """MXNet's base of the datasets it downloads: _data (an NDArray of images) and _label."""

    def __init__(self, root, transform):
        super().__init__()
        self._transform = transform
        self._data = None
        self._label = None
        self._root = os.path.expanduser(root)
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError

    def _missing(self, names, source):
        raise FileNotFoundError(
            "%s: %s not found in %s. symnet does not download datasets (it has no network "
            "access): get %s from %s and put %s in %s (or pass root= the folder that holds "
            "them)" % (type(self).__name__, ", ".join(names), self._root,
                       "it" if len(names) == 1 else "them", source,
                       "it" if len(names) == 1 else "them", self._root))


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits: (28, 28, 1) uint8 images, int32 labels. Reads
    train-images-idx3-ubyte.gz and train-labels-idx1-ubyte.gz (t10k-... for train=False),
    gzipped or not, from root (default $MXNET_HOME/datasets/mnist, MXNET_HOME = ~/.mxnet)."""

    _source = "http://yann.lecun.com/exdb/mnist/"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "mnist"), train=True,
                 transform=None):
        self._train = train
        super().__init__(root, transform)

    def _find(self, name):
        for candidate in (name, name[:-3]):
            path = os.path.join(self._root, candidate)
            if os.path.isfile(path):
                return path
        return None

    @staticmethod
    def _read(path, magic, what):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            data = f.read()
        ndim = 3 if magic == 2051 else 1
        header = 4 + 4 * ndim
        if len(data) < header or struct.unpack(">I", data[:4])[0] != magic:
            raise ValueError("%s is not an MNIST %s file (IDX magic %d expected)" % (path, what, magic))
        dims = struct.unpack(">" + "I" * ndim, data[4:header])
        body = np.frombuffer(data, dtype=np.uint8, offset=header)
        if body.size != int(np.prod(dims)):
            raise ValueError("%s: the header promises %s values but the file holds %d (truncated?)"
                             % (path, "x".join(map(str, dims)), body.size))
        return body.reshape(dims)

    def _get_data(self):
        prefix = "train" if self._train else "t10k"
        names = ("%s-images-idx3-ubyte.gz" % prefix, "%s-labels-idx1-ubyte.gz" % prefix)
        paths = [self._find(n) for n in names]
        if None in paths:
            self._missing([n for n, p in zip(names, paths) if p is None], self._source)
        data = self._read(paths[0], 2051, "image")
        label = self._read(paths[1], 2049, "label").astype(np.int32)
        if len(data) != len(label):
            raise ValueError("%s holds %d images but %s holds %d labels"
                             % (paths[0], len(data), paths[1], len(label)))
        self._data = nd.array(data[:, :, :, None], dtype=np.uint8)
        self._label = label


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST, a drop-in for MNIST (same files and format); default root
    $MXNET_HOME/datasets/fashion-mnist."""

    _source = "https://github.com/zalandoresearch/fashion-mnist"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "fashion-mnist"), train=True,
                 transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_DownloadedDataset):
    """CIFAR-10: (32, 32, 3) uint8 images, int32 labels, from the binary version's
    data_batch_1.bin ... data_batch_5.bin and test_batch.bin, in root or in
    root/cifar-10-batches-bin (an unextracted cifar-10-binary.tar.gz in root is extracted
    there); default root $MXNET_HOME/datasets/cifar10."""

    _archive = "cifar-10-binary.tar.gz"
    _subdir = "cifar-10-batches-bin"
    _source = "https://www.cs.toronto.edu/~kriz/cifar.html (the binary version)"
    _label_bytes = 1

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar10"), train=True,
                 transform=None):
        self._train = train
        self._train_files = ["data_batch_%d.bin" % i for i in range(1, 6)]
        self._test_files = ["test_batch.bin"]
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _read_batch(self, filename):
        with open(filename, "rb") as fin:
            raw = np.frombuffer(fin.read(), dtype=np.uint8)
        width = 3072 + self._label_bytes
        if raw.size % width:
            raise ValueError("%s is not a CIFAR binary file: its size %d is not a multiple of the "
                             "%d-byte record" % (filename, raw.size, width))
        raw = raw.reshape(-1, width)
        return (raw[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1),
                raw[:, self._label_column()].astype(np.int32))

    def _locate(self, names):
        for folder in (self._root, os.path.join(self._root, self._subdir)):
            if all(os.path.isfile(os.path.join(folder, n)) for n in names):
                return folder
        return None

    def _get_data(self):
        names = self._train_files if self._train else self._test_files
        folder = self._locate(names)
        archive = os.path.join(self._root, self._archive)
        if folder is None and os.path.isfile(archive):
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            with tarfile.open(archive) as tar:
                tar.extractall(self._root, **safe)
            folder = self._locate(names)
        if folder is None:
            self._missing([self._archive + " (or the files it holds: " + ", ".join(names) + ")"],
                          self._source)
        data, label = zip(*(self._read_batch(os.path.join(folder, n)) for n in names))
        self._data = nd.array(np.concatenate(data), dtype=np.uint8)
        self._label = np.concatenate(label)


class CIFAR100(CIFAR10):
    """CIFAR-100: train.bin / test.bin of the binary version, in root or root/cifar-100-binary
    (or cifar-100-binary.tar.gz in root); labels are the 20 coarse classes, or the 100 fine
    ones with fine_label=True. Default root $MXNET_HOME/datasets/cifar100."""

    _archive = "cifar-100-binary.tar.gz"
    _subdir = "cifar-100-binary"
    _label_bytes = 2

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar100"), fine_label=False,
                 train=True, transform=None):
        self._train = train
        self._fine_label = fine_label
        self._train_files = ["train.bin"]
        self._test_files = ["test.bin"]
        _DownloadedDataset.__init__(self, root, transform)

    def _label_column(self):
        return 1 if self._fine_label else 0


class ImageRecordDataset(dataset.RecordFileDataset):
    """The images of a RecordIO file (records of recordio.pack_img / im2rec: header + encoded
    image): samples (image, label) with the image an (H, W, C) uint8 NDArray (flag=1: RGB,
    flag=0: grayscale) and the header's label (a float, or an array for several)."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        record = super().__getitem__(idx)
        header, img = recordio.unpack(record)
        try:
            img = image.imdecode(img, self._flag)
        except MXNetError as e:
            raise MXNetError("ImageRecordDataset: record %s of %s: %s" % (idx, self.filename, e)) \
                from None
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(dataset.Dataset):
    """Images in one sub-folder per class (root/car/0001.jpg, root/bus/0002.png, ...): label i is
    the i-th sub-folder in sorted order (`synsets[i]` names it); `items` lists (path, label).
    .jpg/.jpeg/.png files are read (PNG through Pillow); other files are skipped with a
    warning."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        if not os.path.isdir(root):
            raise FileNotFoundError("ImageFolderDataset: %s is not a folder" % root)
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn("Ignoring %s, which is not a directory." % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn("Ignoring %s of type %s. Only support %s"
                                  % (filename, ext, ", ".join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
