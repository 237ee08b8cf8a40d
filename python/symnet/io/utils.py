"""MXNet 1.9.1's mx.io.utils: the helpers NDArrayIter's subclasses elsewhere (GluonCV,
insightface, the rnn bucketing iterators) import: _init_data, _has_instance, _getdata_by_idx.
symnet has no sparse or h5py inputs, so every array here is a dense NDArray."""
from collections import OrderedDict

import numpy as np

from ..ndarray import NDArray, array


def _init_data(data, allow_empty, default_name):
    """`data` (an array, a list of them or a dict name -> array) as a list of (name, NDArray),
    sorted by name as MXNet's: one array is named `default_name`, a list's are '_<i>_<name>'."""
    assert data is not None or allow_empty
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty:
            assert len(data) > 0
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict(("_%d_%s" % (i, default_name), d) for i, d in enumerate(data))
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, h5py.Dataset a list of them or dict with them "
                        "as values")
    data = dict(data)
    for k, v in data.items():
        if not isinstance(v, NDArray):
            try:
                data[k] = array(v)
            except Exception:
                raise TypeError("Invalid type '%s' for %s, should be NDArray, numpy.ndarray or h5py.Dataset"
                                % (type(v), k)) from None
    return sorted(data.items())


def _has_instance(data, dtype):
    """Whether one array of `data` (a list of (name, array), from _init_data) is a `dtype`."""
    return any(isinstance(arr, dtype) for _, arr in data)


def _getdata_by_idx(data, idx):
    """`data` (a list of (name, NDArray)) with each array's rows taken in the order `idx`."""
    return [(k, array(v.asnumpy()[idx], v.context)) for k, v in data]
