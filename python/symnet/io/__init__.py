"""Data iterators (MXNet 1.9.1's mx.io package): the iterators live in io.py (CSVIter in _csv_iter.py,
MNISTIter in _mnist.py), the helpers subclasses import in utils.py."""
from . import io, utils
from .io import *  # noqa: F401,F403
from .utils import _getdata_by_idx, _has_instance, _init_data  # noqa: F401

__all__ = io.__all__
