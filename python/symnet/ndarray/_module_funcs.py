"""The remaining public functions and tables of MXNet 1.9.1's mxnet.ndarray.ndarray module:
histogram, the deprecated imdecode, the indexing helpers its __getitem__ dispatches with
(indexing_key_expand_implicit_axes, get_indexing_dispatch_code, get_oshape_of_gather_nd_op),
the dtype-flag tables and the grad_req codes. mx.nd.ndarray re-exports them."""
import warnings

import numpy as np

from ..base import MXNetError, bfloat16, integer_types

# MXNet's dtype flags (the numbers in .params files and in JSON's __dtype__) and back
_DTYPE_NP_TO_MX = {None: -1, np.float32: 0, np.float64: 1, np.float16: 2, np.uint8: 3,
                   np.int32: 4, np.int8: 5, np.int64: 6, np.bool_: 7, bfloat16: 12}
_DTYPE_MX_TO_NP = {v: k for k, v in _DTYPE_NP_TO_MX.items()}
# MXNet's OpReqType codes for grad_req names
_GRAD_REQ_MAP = {"null": 0, "write": 1, "add": 3}

# get_indexing_dispatch_code's answers and indexing_key_expand_implicit_axes' 0-d bool marks
_NDARRAY_UNSUPPORTED_INDEXING, _NDARRAY_BASIC_INDEXING = -1, 0
_NDARRAY_ADVANCED_INDEXING, _NDARRAY_EMPTY_TUPLE_INDEXING = 1, 2
_NDARRAY_NO_ZERO_DIM_BOOL_ARRAY, _NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE = -1, 0
_NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE = 1


def _new_empty_handle():
    """The handle of the none array (MXNet's empty handle, which an op fills as its output)."""
    from .. import _core
    return _core.none_array()


def histogram(a, bins=10, range=None):  # noqa: A002 (MXNet's argument name)
    """(counts, bin edges) of the flattened `a`, as MXNet's histogram: `bins` an NDArray of edges
    (rightmost included) or a count of equal bins over `range`; a count without a range gives
    numpy's answer over the data's span, with MXNet's warning. Counts are int64, edges in a's
    dtype (numpy's for a count without range, as MXNet returns them)."""
    from .ndarray import NDArray, array
    data = a.asnumpy().ravel()
    if isinstance(bins, NDArray):
        edges = bins.asnumpy()
        if edges.dtype != data.dtype:
            raise MXNetError("histogram: bins have dtype %s, data has %s; they must match"
                             % (edges.dtype, data.dtype))
        counts, _ = np.histogram(data, bins=edges)
        return array(counts, ctx=a.context, dtype=np.int64), bins.copy()
    if isinstance(bins, integer_types):
        if range is None:
            warnings.warn("range is not specified, using numpy's result "
                          "to ensure consistency with numpy")
            counts, edges = np.histogram(data, bins=bins)
            return array(counts), array(edges)
        lo, hi = float(range[0]), float(range[1])
        edges = np.linspace(lo, hi, int(bins) + 1).astype(data.dtype)
        counts, _ = np.histogram(data, bins=int(bins), range=(lo, hi))
        return (array(counts, ctx=a.context, dtype=np.int64),
                array(edges, ctx=a.context, dtype=data.dtype))
    raise ValueError("bins argument should be either an integer or an NDArray")


def imdecode(str_img, clip_rect=(0, 0, 0, 0), out=None, index=0, channels=3, mean=None):
    """DEPRECATED (use mx.image.imdecode): decodes image bytes into a float32 (channels, h, w)
    array, channels in OpenCV's order (BGR), clipped to the rectangle (x0, y0, x1, y1) unless
    y1 == y0, minus `mean` (shaped like the result) when given; with `out` (3-d, or 4-d and
    `index`) the result is written there. MXNet's own function fails in 1.9.1 (its bytes cross
    the C API as a string); this is what its kernel computes."""
    from .. import image
    from .ndarray import NDArray, array
    flag = 0 if channels == 1 else 1
    img = image.imdecode(str_img, flag=flag, to_rgb=False).asnumpy()
    x0, y0, x1, y1 = (int(v) for v in clip_rect)
    if y1 - y0 == 0:
        x0, y0, x1, y1 = 0, 0, img.shape[1], img.shape[0]
    if x1 > img.shape[1] or y1 > img.shape[0]:
        raise MXNetError("imdecode: clip_rect %s exceeds the %dx%d image"
                         % (tuple(clip_rect), img.shape[1], img.shape[0]))
    if channels > img.shape[2]:
        raise MXNetError("imdecode: %d channels asked of an image with %d"
                         % (channels, img.shape[2]))
    chw = img[y0:y1, x0:x1, :channels].transpose(2, 0, 1)
    dtype = np.float32 if mean is None else mean.dtype
    res = chw.astype(dtype)
    if mean is not None:
        res = res - mean.asnumpy()
    if out is None:
        return array(res, dtype=dtype)
    if not isinstance(out, NDArray):
        raise TypeError("imdecode: out must be an NDArray")
    if out.ndim == 3:
        out[:] = res
    else:
        out[index] = res
    return out


def get_indexing_dispatch_code(key):
    """Which indexing a key needs (MXNet's codes): 0 basic (ints, slices, None), 1 advanced
    (arrays, lists, tuples, ranges), 2 an empty tuple inside the key."""
    from .ndarray import NDArray
    assert isinstance(key, tuple)
    for idx in key:
        if isinstance(idx, (NDArray, np.ndarray, list, tuple, range)):
            if isinstance(idx, tuple) and len(idx) == 0:
                return _NDARRAY_EMPTY_TUPLE_INDEXING
            return _NDARRAY_ADVANCED_INDEXING
        if not (isinstance(idx, (slice, integer_types)) or idx is None):
            raise ValueError("NDArray does not support slicing with key {} of type {}."
                             .format(idx, type(idx)))
    return _NDARRAY_BASIC_INDEXING


def indexing_key_expand_implicit_axes(key, shape):
    """(key with every axis explicit, 0-d bool mark), as MXNet: the ellipsis (or the axes left
    out at the end) becomes slice(None)s, 0-d index arrays become ints, and a 0-d bool index
    marks a new axis (1: True, 0: False, -1: none). Boolean arrays of more dims need numpy
    semantics in MXNet and are refused here, as there."""
    from .ndarray import NDArray
    key = key if isinstance(key, tuple) else (key,)
    ell_idx, num_none, nonell_key = None, 0, []
    prepend = _NDARRAY_NO_ZERO_DIM_BOOL_ARRAY
    for i, idx in enumerate(key):
        if idx is Ellipsis:
            if ell_idx is not None:
                raise IndexError("Cannot use more than one ellipsis (`...`) for indexing")
            ell_idx = i
            continue
        if isinstance(idx, bool):
            prepend = _NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE if idx else _NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE
            continue
        if idx is None:
            num_none += 1
        if isinstance(idx, NDArray) and idx.dtype == np.bool_:
            if idx.ndim == 0:
                prepend = (_NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE if idx.asnumpy()
                           else _NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE)
                continue
            raise ValueError("Cannot perform boolean indexing in legacy mode. Please activate numpy "
                             "semantics by calling `npx.set_np()` in the global scope before "
                             "calling this function.")
        if isinstance(idx, NDArray) and idx.ndim == 0:
            nonell_key.append(int(idx.asnumpy().item()))
        else:
            nonell_key.append(idx)
    nonell_key = tuple(nonell_key)
    if ell_idx is None:
        ell_idx = len(nonell_key)
    ell_ndim = len(shape) + num_none - len(nonell_key)
    expanded = nonell_key[:ell_idx] + (slice(None),) * ell_ndim + nonell_key[ell_idx:]
    return expanded, prepend


def get_oshape_of_gather_nd_op(dshape, ishape):
    """The output shape of gather_nd for data of shape dshape and indices of shape ishape."""
    assert len(dshape) > 0 and len(ishape) > 0
    oshape = list(ishape[1:])
    if ishape[0] < len(dshape):
        oshape.extend(dshape[ishape[0]:])
    return tuple(oshape)
