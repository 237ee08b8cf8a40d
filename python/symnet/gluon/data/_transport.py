"""How a batch travels from a DataLoader worker process to the parent: NDArrays become numpy
arrays (NDArrayPayload) so the worker creates no arrays the parent would have to share, and the
numpy buffers go through the pipe out of band (pickle protocol 5): no copy into a pickle."""
import pickle

from ... import ndarray as nd
from ...base import dtype_name


class NDArrayPayload:
    """A numpy array that the parent turns into an NDArray of `dtype`."""

    __slots__ = ("array", "dtype")

    def __init__(self, array, dtype):
        self.array = array
        self.dtype = dtype_name(dtype)

    def __reduce__(self):
        return NDArrayPayload, (self.array, self.dtype)


def _rebuild(obj, items):
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*items)
    return type(obj)(items)


def encode(obj):
    """NDArrays in a (nested list/tuple/dict) batch -> NDArrayPayload; other values as they are."""
    if isinstance(obj, nd.NDArray):
        return NDArrayPayload(obj.asnumpy(), obj.dtype)
    if isinstance(obj, (list, tuple)):
        return _rebuild(obj, [encode(x) for x in obj])
    if isinstance(obj, dict):
        return type(obj)((k, encode(v)) for k, v in obj.items())
    return obj


def decode(obj, ctx=None):
    """The inverse of encode, in the parent: each NDArrayPayload becomes an NDArray on ctx."""
    if isinstance(obj, NDArrayPayload):
        return nd.array(obj.array, ctx=ctx, dtype=obj.dtype)
    if isinstance(obj, (list, tuple)):
        return _rebuild(obj, [decode(x, ctx) for x in obj])
    if isinstance(obj, dict):
        return type(obj)((k, decode(v, ctx)) for k, v in obj.items())
    return obj


def send(conn, obj):
    """Pickles obj (raising before anything is written if it does not pickle), then writes the
    pickle and each contiguous buffer as its own message."""
    buffers = []
    head = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    conn.send_bytes(pickle.dumps((head, [r.nbytes for r in raws]), protocol=5))
    for r in raws:
        if r.nbytes:
            conn.send_bytes(r)


def recv(conn):
    """Reads what send wrote; the arrays own fresh, writable memory."""
    head, sizes = pickle.loads(conn.recv_bytes())
    buffers = []
    for n in sizes:
        buf = bytearray(n)
        if n:
            conn.recv_bytes_into(buf)
        buffers.append(buf)
    return pickle.loads(head, buffers=buffers)
