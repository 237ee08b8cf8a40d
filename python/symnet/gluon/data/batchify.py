"""Batchify functions: a list of samples -> one batch. The default stacks NDArrays (nd.stack),
batchifies each field of tuple samples separately (returning a list), and turns numbers and
numpy arrays into an NDArray of their numpy dtype, as MXNet's default_batchify_fn."""
import numpy as np

from ... import ndarray as nd
from ._transport import NDArrayPayload

__all__ = ["default_batchify_fn", "default_mp_batchify_fn"]


def _check_shapes(shapes):
    first = shapes[0]
    for i, s in enumerate(shapes):
        if s != first:
            raise ValueError("default_batchify_fn cannot stack samples of different shapes: sample "
                             "0 is %s but sample %d is %s (resize/crop them to one shape in a "
                             "transform, or pass a batchify_fn that pads)" % (first, i, s))


def _as_numpy_batch(data):
    try:
        arr = np.asarray(data)
    except ValueError:  # numpy refuses ragged nested sequences
        arr = None
    if arr is None or arr.dtype == object:
        _check_shapes([np.shape(d) for d in data])
        raise ValueError("default_batchify_fn cannot make an array of samples of type %s"
                         % type(data[0]).__name__)
    return arr


def default_batchify_fn(data):
    """Samples -> a batch NDArray (a list of them for tuple samples, one per field)."""
    if isinstance(data[0], nd.NDArray):
        _check_shapes([d.shape for d in data])
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    arr = _as_numpy_batch(data)
    return nd.array(arr, dtype=arr.dtype)


# MXNet stacks into shared memory here for its worker processes; symnet's workers send numpy
# batches instead (see dataloader.py), so both names mean the same function
default_mp_batchify_fn = default_batchify_fn


def numpy_batchify_fn(data):
    """default_batchify_fn's batch as numpy arrays wrapped in NDArrayPayload: what a worker
    process builds without creating NDArrays; the parent turns each into the same NDArray."""
    if isinstance(data[0], nd.NDArray):
        _check_shapes([d.shape for d in data])
        return NDArrayPayload(np.stack([d.asnumpy() for d in data]), data[0].dtype)
    if isinstance(data[0], tuple):
        return [numpy_batchify_fn(list(field)) for field in zip(*data)]
    arr = _as_numpy_batch(data)
    return NDArrayPayload(arr, arr.dtype)
