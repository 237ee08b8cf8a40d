"""Errors and small helpers shared by the symnet Python package."""
import numpy as np

from . import _core

#: The exception symnet raises (also reachable as symnet.base.MXNetError, like MXNet's).
MXNetError = _core.MXNetError

#: MXNet's name for the default real type.
mx_real_t = np.float32

#: numpy has no bfloat16; like MXNet, symnet names it with a structured dtype.
bfloat16 = np.dtype([("bfloat16", np.uint16)])

string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)


def dtype_name(dtype):
    """'float32' for np.float32, 'float32', np.dtype('float32'); 'bfloat16' for bfloat16."""
    if dtype is None:
        return None
    if isinstance(dtype, str):
        return "float32" if dtype == "float" else dtype
    if dtype is bfloat16 or (isinstance(dtype, np.dtype) and dtype == bfloat16):
        return "bfloat16"
    return np.dtype(dtype).name


def numpy_dtype(name):
    """The numpy dtype for a symnet dtype name (bfloat16 -> the bfloat16 marker dtype)."""
    if name == "bfloat16":
        return bfloat16
    return np.dtype(name)


def param_str(value):
    """An op parameter as MXNet writes it: True/False, (3, 3), 0.5, 'relu'."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (list, tuple)):
        return str(tuple(int(v) if isinstance(v, integer_types) else v for v in value))
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return dtype_name(value)
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


def _as_list(obj):
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]
