"""Arrays shared with other frameworks without a copy (MXNet 1.9.1's DLPack functions):
to_dlpack_for_read/write give a "dltensor" capsule over an NDArray's memory, from_dlpack makes an
NDArray over a capsule's memory (consuming it), and from_numpy(zero_copy=True) makes one over a
numpy array's buffer, which becomes read-only, as in MXNet. NDArray also has __dlpack__ and
__dlpack_device__, so numpy.from_dlpack(nd_array) shares the memory the other way."""
import ctypes

from .. import _core
from ..base import MXNetError

# whether a capsule still holds an unconsumed tensor (a consumer renames it "used_dltensor")
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_is_valid.restype = ctypes.c_int


def to_dlpack_for_read(data):
    """A DLPack capsule over `data`'s memory, once pending writes to it are done (MXNet's
    to_dlpack_for_read). The capsule keeps the memory alive until a consumer (mx.nd.from_dlpack,
    a framework's from_dlpack) takes it, or until it is dropped unconsumed."""
    data.wait_to_read()
    return data.handle.to_dlpack()


def to_dlpack_for_write(data):
    """As to_dlpack_for_read, for a consumer that writes the memory: it waits for pending reads
    and writes (symnet's CPU work is synchronous; a GPU array's stream is drained)."""
    data.wait_to_read()
    return data.handle.to_dlpack()


def from_dlpack(dlpack):
    """An NDArray over the memory of a DLPack capsule named "dltensor" (from to_dlpack_for_read,
    numpy's ndarray.__dlpack__(), another framework's to_dlpack). The capsule is consumed: a
    second from_dlpack of it is an AssertionError, as in MXNet. An object with __dlpack__ (a
    numpy array) is taken too, as numpy.from_dlpack takes one."""
    from .ndarray import NDArray
    if not _is_capsule(dlpack) and hasattr(dlpack, "__dlpack__"):
        dlpack = dlpack.__dlpack__()
    if not _is_capsule(dlpack):
        raise TypeError("from_dlpack expects a DLPack capsule (or an object with __dlpack__), "
                        "not %s" % type(dlpack).__name__)
    if not _capsule_is_valid(dlpack, b"dltensor"):
        raise AssertionError("Invalid DLPack Tensor. DLTensor capsules can be consumed only once.")
    return NDArray(_core.from_dlpack(dlpack))


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def from_numpy(ndarray, zero_copy=True, array_cls=None):
    """An NDArray from a numpy array (MXNet's from_numpy). zero_copy=True (the default) shares
    the buffer, which must be C-contiguous (ValueError otherwise): the numpy array is made
    read-only, since writes through it would bypass the NDArray, while writes to the NDArray are
    seen by the numpy array. zero_copy=False copies (mx.nd.array, keeping the dtype)."""
    from .ndarray import NDArray, array
    array_cls = array_cls or NDArray
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags["C_CONTIGUOUS"]:
        raise ValueError("Only c-contiguous arrays are supported for zero-copy")
    try:
        handle = _core.share_numpy(ndarray)  # holds a reference to the array
    except MXNetError as e:
        raise ValueError("from_numpy: %s" % e) from None
    ndarray.flags["WRITEABLE"] = False
    return array_cls(handle)


def dlpack_device(arr):
    """NDArray.__dlpack_device__: (DLPack device type, device id): (1, 0) for the CPU, (2, id)
    for a GPU, (3, 0) for pinned host memory."""
    ctx = arr.context
    return {"gpu": (2, ctx.device_id), "cpu_pinned": (3, 0)}.get(ctx.device_type, (1, 0))


def dlpack_capsule(arr, stream=None, max_version=None, dl_device=None, copy=None):
    """NDArray.__dlpack__: the unversioned "dltensor" capsule (consumers asking for a newer
    version accept it, per the DLPack protocol). copy=True shares a copy; `stream` is accepted
    and ignored, as the array is synchronized first."""
    if dl_device is not None and tuple(dl_device) != dlpack_device(arr):
        raise BufferError("__dlpack__: the array is on %s, not on DLPack device %s"
                          % (arr.context, tuple(dl_device)))
    src = arr.copy() if copy else arr
    return to_dlpack_for_read(src)
