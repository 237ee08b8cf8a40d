"""Data iterators (MXNet 1.9.1's mx.io package): the iterators live in io.py, the helpers
subclasses import in utils.py."""
from . import io, utils
from .io import (CSVIter, DataBatch, DataDesc, DataIter, ImageRecordIter, NDArrayIter, PrefetchingIter,
                 ResizeIter, SyntheticIter, _SingleArrayIter)
from .utils import _getdata_by_idx, _has_instance, _init_data

__all__ = io.__all__
