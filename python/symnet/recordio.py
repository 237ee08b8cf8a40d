"""RecordIO (MXNet's mx.recordio): MXRecordIO, MXIndexedRecordIO, IRHeader, pack/unpack and
pack_img/unpack_img. Files are byte-compatible with MXNet's im2rec output.

Like MXNet (which uses OpenCV), pack_img takes and unpack_img returns images in BGR channel
order; the JPEG bytes themselves hold the true colours.
"""
from collections import namedtuple
import io as _pyio
import os

import numpy as np

from . import _core
from .fileio import write_atomically

IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])


class MXRecordIO:
    """Sequential reading ('r') or writing ('w') of a .rec file."""

    def __init__(self, uri, flag):
        self.uri, self.flag = str(uri), flag
        self.handle = None
        self.open()

    def open(self):
        self.handle = _core.RecordIOFile(self.uri, self.flag)
        self.writable = self.flag == "w"

    def close(self):
        """Ends reading, or publishes the written file (it appears complete, only now)."""
        if self.handle is not None:
            handle, self.handle = self.handle, None
            handle.close()

    def abort(self):
        """Ends writing without publishing: an earlier file of that name stays as it was."""
        if self.handle is not None:
            handle, self.handle = self.handle, None
            handle.abort()

    def __del__(self):
        self.close()  # like MXNet: an open writer still publishes when it is collected

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        # leaving a `with` block by an exception publishes nothing: no half-written .rec
        (self.abort if exc_type is not None else self.close)()

    def reset(self):
        self.close()
        self.open()

    def write(self, buf):
        return self.handle.write(bytes(buf))

    def read(self):
        """The next record (bytes), or None at the end."""
        return self.handle.read()

    def tell(self):
        return self.handle.tell()


def parse_index(lines, path, key_type=int):
    """The "key<TAB>offset" lines of an .idx file -> ({key: offset}, keys in file order); a bad
    line raises ValueError naming the file and the line."""
    idx, keys = {}, []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise ValueError("%s line %d is not 'key<TAB>offset'" % (path, n))
        try:
            key, offset = key_type(parts[0]), int(parts[1])
        except ValueError:
            offset = -1
        if offset < 0:
            raise ValueError("%s line %d: %r is not 'key<TAB>offset' with an integer offset >= 0"
                             % (path, n, line.rstrip("\n")))
        idx[key] = offset
        keys.append(key)
    return idx, keys


class MXIndexedRecordIO(MXRecordIO):
    """A .rec file with an .idx file of "key\\toffset" lines for random access."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path, self.key_type = str(idx_path), key_type
        self.idx, self.keys = {}, []
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx, self.keys = {}, []
        if self.writable:
            self.fidx = _pyio.StringIO()  # written, atomically, after the .rec file on close
        else:
            with open(self.idx_path, encoding="utf-8", errors="surrogateescape") as f:
                self.idx, self.keys = parse_index(f, self.idx_path, self.key_type)
            self._size = os.path.getsize(self.uri)  # once: seek checks every offset against it

    def close(self):
        fidx, self.fidx = getattr(self, "fidx", None), None
        super().close()  # the .rec file first: an .idx never points into a file not yet there
        if fidx is not None:
            write_atomically(self.idx_path, fidx.getvalue())

    def abort(self):
        self.fidx = None
        super().abort()

    def seek(self, idx):
        if idx not in self.idx:
            raise KeyError("record key %r is not in the index %s" % (idx, self.idx_path))
        offset = self.idx[idx]
        if not self.writable and offset >= self._size:
            raise ValueError("%s: the offset %d of key %r is at or past the end of %s (the index and "
                             "the data file do not match)" % (self.idx_path, offset, idx, self.uri))
        self.handle.seek(offset)

    def read_idx(self, idx):
        self.seek(idx)  # an offset at or past the end is a ValueError there
        return self.read()

    def write_idx(self, idx, buf):
        key = self.key_type(idx)
        pos = self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


def pack(header, s):
    """header (IRHeader, or any 4-sequence flag, label, id, id2 as MXNet takes it; label a float
    or an array of floats) + bytes -> record."""
    header = IRHeader(*header)
    label = header.label
    if isinstance(label, (int, float, np.number)):
        return _core.pack_image_record(0, [], float(label), int(header.id), int(header.id2), bytes(s))
    labels = [float(v) for v in np.asarray(label).ravel()]
    return _core.pack_image_record(len(labels), labels, 0.0, int(header.id), int(header.id2), bytes(s))


def unpack(s):
    """record -> (IRHeader, payload bytes); the label is an array when there are several."""
    flag, label, labels, id_, id2, payload = _core.unpack_image_record(bytes(s))
    if flag > 0:
        label = np.array(labels, dtype=np.float32)
    return IRHeader(flag, label, id_, id2), payload


def _pil():
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("pack_img/unpack_img need Pillow (pip install pillow, or symnet[image])") from e
    return Image


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """Encodes a BGR (or grayscale) uint8 image and packs it with header."""
    Image = _pil()
    img = np.asarray(img)
    if img.ndim == 3:
        img = img[:, :, ::-1]  # BGR -> RGB for the encoder
    buf = _pyio.BytesIO()
    fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG"}[img_fmt.lower()]
    kw = {"quality": int(quality)} if fmt == "JPEG" else {"compress_level": min(9, max(0, int(quality)))}
    Image.fromarray(np.ascontiguousarray(img.astype(np.uint8))).save(buf, format=fmt, **kw)
    return pack(header, buf.getvalue())


def unpack_img(s, iscolor=-1):
    """record -> (IRHeader, image as a BGR uint8 array; grayscale with iscolor=0)."""
    Image = _pil()
    header, payload = unpack(s)
    im = Image.open(_pyio.BytesIO(payload))
    if iscolor == 0:
        return header, np.asarray(im.convert("L"))
    return header, np.asarray(im.convert("RGB"))[:, :, ::-1]
