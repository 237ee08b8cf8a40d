"""MXNet 1.x's (legacy NDArray) indexing rules that symnet's own indexing does not give by itself:
a tuple index that takes one element gives shape (1,) (not a 0-d array, unless np_shape is on), and
x[key] = value while autograd records fails as MXNet's: MXNet writes it with an op whose output is
x, and recording refuses an output already in the graph, and an output written over an input of a
recorded op; symnet's setitem is no op (a copy or fill of a view), so ndarray.py asks here first."""
import builtins

import numpy as np

from .. import _core, util
from ..base import MXNetError, numeric_types

ASSIGNING_TRACKED = (
    "Assigning to NDArrays that are already in a computational graph will cause undefined behavior "
    "when evaluating gradients. Please call backward first to clear the graph or do this out side of "
    "a record section. Also note that you cannot use inplace operations like +=, *=, relu(x, out=x), "
    "y[idx]=x, etc inside a record section."
)
INPLACE = "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with autograd."


def _whole_key(key):
    """Whether x[key] is all of x (None, ..., :, or a tuple of those): MXNet copies or fills."""
    parts = key if isinstance(key, tuple) else (key,)
    full = builtins.slice(None)
    return all(p is None or p is Ellipsis or (isinstance(p, builtins.slice) and p == full) for p in parts)


def refuse_recorded_setitem(arr, key, value, ndarray_class):
    """Raises MXNet's error for arr[key] = value under autograd.record(): an arr already in the
    graph (unless NumPy data goes into all of it: no op), or a part of an untracked arr set from a
    tracked array (arr is the op's input too, MXNet's in-place case). Otherwise returns."""
    tracked = _core.autograd_is_tracked
    is_nd = isinstance(value, ndarray_class)
    whole = _whole_key(key)
    if tracked(arr.handle) and (not whole or is_nd or isinstance(value, numeric_types)):
        raise MXNetError(ASSIGNING_TRACKED)
    if not whole and is_nd and tracked(value.handle):
        raise MXNetError(INPLACE)


def legacy_shape(arr, key, out):
    """out = arr[key] as MXNet 1.x shapes it: one element taken by a tuple of indices has shape
    (1,). A single int keeps giving a 0-d element of a 1-d arr (MXNet: (1,)): NumPy 2 reads an
    NDArray as a sequence through arr[i], and elements of shape (1,) would nest without end
    (np.all(arr == v) fails); MXNet's NumPy 1 built 32 levels of object arrays there."""
    if out.ndim == 0 and isinstance(key, tuple) and arr.ndim > 0 and not util.is_np_shape():
        return out.reshape((1,))
    return out


def recorded_gather(arr, np_key, invoke, array):
    """arr[np_key] (advanced indexing) of a tracked arr while autograd records, as an op the
    gradient flows through (MXNet's gather_nd): take from the flattened arr at the flat positions
    that np_key selects, with their shape."""
    flat = np.arange(arr.size, dtype=np.int64).reshape(arr.shape)[np_key]
    positions = array(flat, ctx=arr.context, dtype="int64")
    return invoke("take", {"axis": "0"}, [arr.reshape((-1,)), positions])
