"""mx.io.CSVIter (MXNet 1.9.1's C++ CSV iterator, here in numpy): batches of the rows of CSV
files, with the batching rules of MXNet's C++ reader, including its odd ones (the last batch of
an epoch with round_batch, and what a reset after it does); they are spelled out on the class.
CSVIter hands out fresh arrays for every batch, so a consumer may keep a batch while the next
one is read (PrefetchingIter relies on that)."""
import os
import re

import numpy as np

from .. import ndarray as nd
from .io import DataDesc, MXDataIter

_CSV_DTYPES = ("float32", "int32", "int64")


def _csv_files(path, what):
    """The files a data_csv/label_csv path stands for: the file, or every file directly in a
    folder (by name, as one stream of rows)."""
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path)
                       if os.path.isfile(os.path.join(path, f)))
        if not files:
            raise ValueError("CSVIter: %s %s is a folder without files" % (what, path))
        return files
    if not os.path.exists(path):
        raise FileNotFoundError("CSVIter: %s %s does not exist" % (what, path))
    return [path]


# a number as MXNet's CSV reader (dmlc-core's strtof / integer parser) accepts it: sign, digits,
# a fraction, an exponent, an 'f' suffix; or inf / infinity / nan
_NUMBER = re.compile(r"^([+-]?)(?:(infinity|inf|nan)|(\d*)(?:\.(\d*))?(?:[eE]([+-]?)(\d*))?[fF]?)$",
                     re.IGNORECASE | re.ASCII)
_F32 = np.float32
_F32_MAX_SIGNIFICAND = _F32(3.402823466)  # the largest significand at exponent 38
_F32_MIN_SIGNIFICAND = _F32(1.175494351)  # the smallest at exponent -38


def _parse_number(token, floating):
    """One CSV value the way MXNet reads it: for float32, the integer digits and the fraction
    (its first 19 digits, divided in double) are each rounded to float32 and added in float32,
    then scaled by a power of ten built in float32 (exponents clipped to 38); this is not always
    the float32 nearest to the decimal (1.84 gives 1.8399999). Integers take the sign and the
    digits before any '.' or exponent. ValueError for anything else."""
    m = _NUMBER.match(token.strip())
    if m is None or (m.group(2) is None and not (m.group(3) or m.group(4))):
        raise ValueError(token)
    sign, special, ip, fp, exp_sign, exp_digits = m.groups()
    neg = sign == "-"
    if not floating:
        if special:
            raise ValueError(token)
        return -int(ip or 0) if neg else int(ip or 0)
    if special:
        value = _F32("nan") if special.lower() == "nan" else _F32("inf")
        return -value if neg else value
    value = _F32(int(ip or 0))
    if fp is not None:
        digits = fp[:19]  # the reader ignores digits after the 19th
        value = value + _F32(float(int(digits or 0)) / float(10 ** len(digits)))
    if exp_digits is not None:
        shrink = exp_sign == "-"
        expon = min(int(exp_digits or 0), 38)
        if expon == 38 and ((not shrink and value > _F32_MAX_SIGNIFICAND) or (shrink and value < _F32_MIN_SIGNIFICAND)):
            value = _F32_MIN_SIGNIFICAND if shrink else _F32_MAX_SIGNIFICAND
        scale = _F32(1.0)
        with np.errstate(over="ignore"):
            while expon >= 8:
                scale, expon = scale * _F32(1e8), expon - 8
            while expon > 0:
                scale, expon = scale * _F32(10.0), expon - 1
            value = value / scale if shrink else value * scale
    return -value if neg else value


def _parse_tokens(tokens, floating):
    """An array of value strings -> float32 (or int64) values, or the index of the first one
    that is not a number (as (None, index)). Plain decimals are converted as whole arrays, the
    rest value by value."""
    t = np.char.strip(tokens)
    neg = np.char.startswith(t, "-")
    body = np.char.lstrip(t, "+-")
    signs_ok = np.char.str_len(t) - np.char.str_len(body) <= 1
    try:
        if not floating:
            if (signs_ok & np.char.isdigit(body)).all():
                ints = body.astype(np.int64)
                return np.where(neg, -ints, ints), None
        else:
            whole, _, frac = np.char.partition(body, ".")
            plain = signs_ok & (np.char.isdigit(whole) | (whole == "")) & \
                (np.char.isdigit(frac) | (frac == "")) & ((whole != "") | (frac != ""))
            if plain.all():
                # the integer part and the first 19 fraction digits, each rounded to float32, added
                ints = np.where(whole == "", "0", whole).astype(np.int64)
                digits = frac.astype("<U19")
                fracs = np.where(digits == "", "0", digits).astype(np.uint64).astype(np.float64)
                fracs /= 10.0 ** np.char.str_len(digits).astype(np.float64)
                values = ints.astype(np.float32) + fracs.astype(np.float32)
                return np.where(neg, -values, values), None
    except (ValueError, OverflowError):
        pass  # digits int() does not take (other scripts' digits), or too long: value by value
    out = np.zeros(t.shape, dtype=np.float32 if floating else np.int64)
    for i, token in enumerate(t.tolist()):
        try:
            out[i] = _parse_number(token, floating)
        except (ValueError, OverflowError):
            return None, i
    return out, None


def _parse_csv_file(path, width, dtype, what, shape_arg):
    """One CSV file -> (rows, width) array of dtype. Blank lines are skipped; a row of another
    width or a value that is not a number is a ValueError naming the file and the line."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    for n, line in numbered:
        got = line.count(",") + 1
        if got != width:
            raise ValueError("CSVIter: %s line %d has %d values, expected %d (the size of %s)"
                             % (path, n, got, width, shape_arg))
    if not numbered:
        return np.zeros((0, width), dtype=dtype)
    tokens = np.array(",".join(line for _, line in numbered).split(","))
    values, bad = _parse_tokens(tokens, dtype.kind == "f")
    if bad is not None:
        raise ValueError("CSVIter: %s line %d, value %d: %r is not a number"
                         % (path, numbered[bad // width][0], bad % width + 1, str(tokens[bad]).strip()))
    return values.reshape(len(numbered), width).astype(dtype)


def _read_csv(path, shape, dtype, what):
    shape_arg = "%s %s" % ("data_shape" if what == "data_csv" else "label_shape", tuple(shape))
    width = int(np.prod(shape))
    parts = [_parse_csv_file(f, width, dtype, what, shape_arg) for f in _csv_files(path, what)]
    rows = np.concatenate(parts) if len(parts) > 1 else parts[0]
    return rows.reshape((len(rows),) + tuple(shape))


class CSVIter(MXDataIter):
    """Batches of rows of a CSV file (or of every file in a folder): each row, reshaped to
    data_shape, is one example; label_csv gives the labels the same way (label_shape; without
    it every label is 0). dtype: 'float32' (default), 'int32' or 'int64', for data and labels.
    A label of one value per row gives a (batch_size,) label array.

    The end of an epoch, as in MXNet (src/io/iter_batchloader.h):
    - round_batch=True (default): the last, incomplete batch is filled from the start of the
      file and batch.pad says how many rows were added. reset() after such a batch does not go
      back to the start: the next epoch begins after the rows used to fill it (so over epochs
      every row is seen equally often). After a batch that ended exactly at the end, reset()
      starts again at row 0.
    - round_batch=False: the last batch has batch.pad rows at its end that are left over from
      the batch before (MXNet reuses its buffer); reset() always starts at row 0.
    reset() is meant to be called once after the end of an epoch (as Module.fit does).
    batch.index holds the rows' numbers in the file (uint64). prefetch_buffer and ctx are
    accepted for MXNet's sake and have no effect."""

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=None,
                 round_batch=True, dtype=None, prefetch_buffer=4, ctx="gpu", data_name="data",
                 label_name="softmax_label"):
        if batch_size is None:
            raise ValueError("CSVIter: batch_size is required")
        batch_size = int(batch_size)
        if batch_size < 1:
            raise ValueError("CSVIter: batch_size must be at least 1, got %d" % batch_size)
        super().__init__(batch_size)
        dtype = "float32" if dtype is None else np.dtype(dtype).name
        if dtype not in _CSV_DTYPES:
            raise ValueError("CSVIter: dtype %r is not supported; use one of %s"
                             % (dtype, ", ".join(_CSV_DTYPES)))
        self.dtype = np.dtype(dtype)
        self.data_shape = tuple(int(v) for v in data_shape)
        self.label_shape = tuple(int(v) for v in label_shape)
        for what, shape in (("data_shape", self.data_shape), ("label_shape", self.label_shape)):
            if not shape or min(shape) < 1:
                raise ValueError("CSVIter: %s must be a non-empty shape of positive sizes, got %s"
                                 % (what, shape))
        self.round_batch = bool(round_batch)
        self.data_name, self.label_name = data_name, label_name
        self._data = _read_csv(str(data_csv), self.data_shape, self.dtype, "data_csv")
        n = len(self._data)
        if n == 0:
            raise ValueError("CSVIter: data_csv %s holds no rows" % data_csv)
        if label_csv is None or label_csv == "NULL":
            self._label = np.zeros((n,) + self.label_shape, dtype=self.dtype)
        else:
            self._label = _read_csv(str(label_csv), self.label_shape, self.dtype, "label_csv")
            if len(self._label) != n:
                raise ValueError("CSVIter: label_csv %s has %d rows but data_csv %s has %d"
                                 % (label_csv, len(self._label), data_csv, n))
        if int(np.prod(self.label_shape)) == 1:  # one value per example: a (batch,) label
            self._label = self._label.reshape(n)
        self.num_data = n
        # the batch being assembled; rows a batch does not fill keep the previous batch's
        self._buf_data = np.zeros((batch_size,) + self._data.shape[1:], dtype=self.dtype)
        self._buf_label = np.zeros((batch_size,) + self._label.shape[1:], dtype=self.dtype)
        self._buf_index = np.zeros(batch_size, dtype=np.uint64)
        self._pos = 0  # the next row to read
        self._overflow = 0  # rows taken from the start to complete the last batch
        self._pad = 0
        self._out = None

    @property
    def provide_data(self):
        return [DataDesc(self.data_name, (self.batch_size,) + self._data.shape[1:], self.dtype)]

    @property
    def provide_label(self):
        return [DataDesc(self.label_name, (self.batch_size,) + self._label.shape[1:], self.dtype)]

    def reset(self):
        if self.round_batch and self._overflow:
            self._overflow = 0  # go on after the rows the last batch borrowed
        else:
            self._pos = 0

    def _put(self, slot):
        self._buf_data[slot] = self._data[self._pos]
        self._buf_label[slot] = self._label[self._pos]
        self._buf_index[slot] = self._pos
        self._pos += 1

    def iter_next(self):
        if self._overflow:
            return False  # the epoch ended with a filled-up batch; wait for reset()
        n, top = self.num_data, 0
        while top < self.batch_size and self._pos < n:
            self._put(top)
            top += 1
        if top == 0:
            return False
        self._pad = 0
        if top < self.batch_size:
            if self.round_batch:
                if self.batch_size - top > n:
                    raise ValueError("CSVIter: batch_size %d is too large for %d rows: round_batch cannot "
                                     "fill the last batch (it may take each row once more)"
                                     % (self.batch_size, n))
                self._pos = 0
                while top < self.batch_size:
                    self._put(top)
                    top += 1
                    self._overflow += 1
                self._pad = self._overflow
            else:
                self._pad = self.batch_size - top
        self._out = (self._buf_data.copy(), self._buf_label.copy(), self._buf_index.copy())
        return True

    def getdata(self):
        return nd.array(self._out[0], dtype=self.dtype)

    def getlabel(self):
        return nd.array(self._out[1], dtype=self.dtype)

    def getpad(self):
        return self._pad

    def getindex(self):
        return self._out[2]
