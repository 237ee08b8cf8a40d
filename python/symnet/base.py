"""Errors and small helpers shared by the symnet Python package, with the public names of
MXNet 1.9.1's mxnet.base that scripts and libraries import (py_str, _Null, data_dir,
NotImplementedForSymbol, classproperty, ...). MXNet's ctypes handles and C-API helpers are not
here: symnet's core is a Python extension module, not a C API. The one exception is _LIB's
MXListAllOpNames (see _CApiSubset), which MXNet's AMP coverage test calls through ctypes."""
import inspect
import os
import platform

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

#: error classes by name, filled by register_error (MXNet maps C-API error names to them)
error_types = {}


def py_str(x):
    """Text from the UTF-8 bytes a native call returned (MXNet's py_str)."""
    return x.decode("utf-8")


def data_dir_default():
    """Where downloads go when MXNET_HOME is not set: %APPDATA%\\mxnet on Windows, ~/.mxnet
    elsewhere (the same folder MXNet uses, so models it downloaded are found again)."""
    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA"), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """The folder for downloaded data sets and model files: $MXNET_HOME, else data_dir_default()."""
    return os.getenv("MXNET_HOME", data_dir_default())


class _NullType:
    """The type of _Null, the marker of an argument left out (None can be a real value)."""

    def __repr__(self):
        return "_Null"


_Null = _NullType()


def register_error(func_name=None, cls=None):
    """Files an error class in error_types under its name (or func_name). Works as @register_error,
    @register_error("Name") and register_error("Name", cls); returns the class."""
    if callable(func_name):
        cls, func_name = func_name, func_name.__name__

    def register(klass):
        error_types[func_name if isinstance(func_name, str) else klass.__name__] = klass
        return klass
    return register if cls is None else register(cls)


def _describe_call(function, alias, args, where):
    text = "Function %s" % function
    if alias:
        text += ' (namely operator "%s")' % alias
    if args:
        text += " with arguments (%s)" % ", ".join(args)
    return text + where


class _UnavailableCall(MXNetError):
    """A function called on an object kind it does not serve: keeps the call for the message."""
    _WHAT = ""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = function.__name__
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        return _describe_call(self.function, self.alias, self.args, self._WHAT)


@register_error
class NotImplementedForSymbol(_UnavailableCall):
    """A function that exists for NDArrays only, called on a Symbol."""
    _WHAT = " is not implemented for Symbol and only available in NDArray."


class NotSupportedForSparseNDArray(_UnavailableCall):
    """A function that exists for dense NDArrays only, called on a sparse one."""
    _WHAT = " is not supported for SparseNDArray and only available in NDArray."


class _MXClassPropertyDescriptor:
    """What classproperty returns: a property read (and, with .setter, written) on the class."""

    def __init__(self, fget, fset=None):
        self.fget = fget
        self.fset = fset

    def __get__(self, obj, klass=None):
        return self.fget.__get__(obj, type(obj) if klass is None else klass)()

    def __set__(self, obj, value):
        if not self.fset:
            raise MXNetError("cannot use the setter: %s to set attribute" % obj.__name__)
        klass = obj if inspect.isclass(obj) else type(obj)
        return self.fset.__get__(None if inspect.isclass(obj) else obj, klass)(value)

    def setter(self, func):
        self.fset = func if isinstance(func, (classmethod, staticmethod)) else classmethod(func)
        return self


class _MXClassPropertyMetaClass(type):
    """Routes assignments to a class attribute that is a classproperty through its setter (a
    plain class attribute assignment would replace the descriptor)."""

    def __setattr__(cls, key, value):
        prop = cls.__dict__.get(key)
        if isinstance(prop, _MXClassPropertyDescriptor):
            return prop.__set__(cls, value)
        return super().__setattr__(key, value)


def with_metaclass(meta, *bases):
    """A base class whose subclasses are made by `meta` (six's helper: class C(with_metaclass(M,
    B)) gives C the metaclass M and the bases `bases`)."""
    class _Stand_in(type):
        # replaced by `meta` as soon as a class derives from the stand-in
        def __new__(cls, name, this_bases, namespace):
            return meta(name, bases, namespace)

        @classmethod
        def __prepare__(cls, name, this_bases):
            return meta.__prepare__(name, bases)
    return type.__new__(_Stand_in, "temporary_class", (), {})


def classproperty(func):
    """A read-only property of the class (give the class _MXClassPropertyMetaClass as metaclass
    for the setter)."""
    return _MXClassPropertyDescriptor(func if isinstance(func, (classmethod, staticmethod))
                                      else classmethod(func))


def build_param_doc(arg_names, arg_types, arg_descs, remove_dup=True):
    """A numpydoc 'Parameters' section from parallel lists of names, types and descriptions
    (num_args and, with remove_dup, repeated names are left out)."""
    seen = set()
    entries = []
    for name, type_info, desc in zip(arg_names, arg_types, arg_descs):
        if (remove_dup and name in seen) or name == "num_args":
            continue
        seen.add(name)
        entries.append("%s : %s" % (name, type_info) + ("\n    " + desc if desc else ""))
    return "Parameters\n----------\n%s\n" % "\n".join(entries)


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
    """obj itself when it is a list or tuple (as MXNet, a tuple stays a tuple), else [obj]."""
    if isinstance(obj, (list, tuple)):
        return obj
    return [obj]


class _CApiSubset:
    """Stands in for MXNet's ctypes library handle (mxnet.base._LIB) for the calls that only
    read: MXListAllOpNames(ctypes.byref(c_uint), ctypes.byref(POINTER(c_char_p))) fills the
    count and the name array (kept alive here) and returns 0, as the C function does. Any other
    C-API name raises AttributeError saying that symnet has no C API."""

    def __init__(self):
        self._op_names = None

    def MXListAllOpNames(self, out_size, out_array):  # noqa: N802 - MXNet's C name
        import ctypes
        if self._op_names is None:
            names = [n.encode("utf-8") for n in _core.list_ops()]
            self._op_names = (ctypes.c_char_p * len(names))(*names)
        # byref() objects hold their target in _obj: write the count and the array's address
        out_size._obj.value = len(self._op_names)
        ctypes.c_void_p.from_address(ctypes.addressof(out_array._obj)).value = ctypes.addressof(self._op_names)
        return 0

    def __getattr__(self, name):
        raise AttributeError("mxnet.base._LIB.%s: symnet has no C API (its core is a Python extension "
                             "module); only MXListAllOpNames is provided" % name)


_LIB = _CApiSubset()
