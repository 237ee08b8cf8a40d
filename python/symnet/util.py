"""General helpers of MXNet 1.9.1's mxnet.util: the NumPy-semantics switches, the C runtime's
environment, GPU counts and set_module.

NumPy shape semantics (np_shape(True), set_np_shape(True), use_np_shape) are a per-thread flag
(set_np_shape(2): every thread), as in MXNet: with it on, Symbol.infer_shape_partial reports an
unknown dim as -1 and an unknown shape as None (off: 0 and ()), infer_shape(_partial) take -1
as an unknown dim in the shapes given, and tojson marks the graph "is_np_shape". symnet's core
already reads 0 in an array's shape as an empty dimension and () as a scalar in both modes.
symnet does not implement MXNet's NumPy array interface (mx.np / mx.npx) yet: turning NumPy
array semantics on (np_array(True), use_np_array, use_np, set_np with array=True) raises
NotImplementedError. The decorators decorate at once, since MXNet code applies them at import
time; it is calling the decorated function or method that raises.
"""
import ctypes
import functools
import inspect
import threading

import numpy as np

from . import _core


class NumpyInterfaceNotImplemented(NotImplementedError):
    """Raised where code turns on MXNet's NumPy semantics, which need mx.np (not in symnet yet)."""


def _refuse_numpy(what):
    raise NumpyInterfaceNotImplemented(
        "%s turns on MXNet's NumPy semantics (NumPy shapes: () is a scalar and 0 an empty "
        "dimension, and mx.np arrays); symnet's NumPy interface (mx.np / mx.npx) is not "
        "implemented yet" % what)


# ---- NumPy shape semantics --------------------------------------------------------------------
_np_shape_state = threading.local()
_np_shape_global = [False]  # set_np_shape(2): on in every thread


def is_np_shape():
    """Whether NumPy shape semantics are on in this thread (or globally)."""
    return _np_shape_global[0] or getattr(_np_shape_state, "on", False)


def set_np_shape(active):
    """Turns NumPy shape semantics on (True or 1: in this thread; 2: in every thread, as MXNet's
    GlobalOn) or off (False or 0, which also ends a global on, as in MXNet); returns the
    previous state."""
    if is_np_array() and not active:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    prev = is_np_shape()
    _np_shape_global[0] = not isinstance(active, bool) and active == 2
    _np_shape_state.on = bool(active) and not _np_shape_global[0]
    return prev


class _NumpyShapeScope:
    """The `with` scope np_shape(active) returns (None leaves the state as it is)."""

    def __init__(self, is_np_shape):  # noqa: F811 (MXNet's argument name)
        self._enter_is_np_shape = is_np_shape
        self._prev_is_np_shape = None

    def __enter__(self):
        if self._enter_is_np_shape is not None:
            self._prev_is_np_shape = set_np_shape(self._enter_is_np_shape)
        return self

    def __exit__(self, ptype, value, trace):
        if self._enter_is_np_shape is not None and self._prev_is_np_shape != self._enter_is_np_shape:
            set_np_shape(self._prev_is_np_shape)


def np_shape(active=True):
    """A `with` scope with NumPy shape semantics on or off."""
    return _NumpyShapeScope(active)


def _decorate(func, scope, decorator):
    """MXNet's decorator pattern: a function runs inside `scope()`; for a class, each of its
    functions, methods and properties does. Decorating never calls anything."""
    if inspect.isclass(func):
        members = inspect.getmembers(
            func, lambda f: inspect.isfunction(f) or inspect.ismethod(f) or isinstance(f, property))
        for name, member in members:
            if isinstance(member, property):
                fget = member.fget and _decorate(member.fget, scope, decorator)
                fset = member.fset and _decorate(member.fset, scope, decorator)
                setattr(func, name, property(fget, fset, member.fdel, member.__doc__))
            else:
                setattr(func, name, _decorate(member, scope, decorator))
        return func
    if callable(func):
        @functools.wraps(func)
        def scoped(*args, **kwargs):
            with scope():
                return func(*args, **kwargs)
        return scoped
    raise TypeError("%s can only decorate classes and callable objects, while received a %s"
                    % (decorator, type(func)))


def use_np_shape(func):
    """Decorates a function or class to run under NumPy shape semantics."""
    return _decorate(func, lambda: np_shape(True), "use_np_shape")


# ---- NumPy array semantics (mx.np arrays instead of mx.nd ones) -------------------------------
class _NumpyArrayScope:
    """The `with` scope np_array(active) returns; entering it with active=True raises."""

    _current = threading.local()

    def __init__(self, is_np_array):  # noqa: F811 (MXNet's argument name)
        self._old_scope = None
        self._is_np_array = is_np_array

    def __enter__(self):
        if self._is_np_array:
            _refuse_numpy("np_array(True)")
        self._old_scope = getattr(_NumpyArrayScope._current, "value", None)
        _NumpyArrayScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        _NumpyArrayScope._current.value = self._old_scope


def np_array(active=True):
    """A `with` scope with NumPy array semantics on (raises on entry in symnet) or off."""
    return _NumpyArrayScope(active)


def is_np_array():
    """Whether NumPy array semantics are on: never in symnet."""
    scope = getattr(_NumpyArrayScope._current, "value", None)
    return bool(scope is not None and scope._is_np_array)


def use_np_array(func):
    """Decorates a function or class to run under NumPy array semantics; in symnet calling it
    raises NotImplementedError."""
    return _decorate(func, lambda: np_array(True), "use_np_array")


def use_np(func):
    """use_np_shape and use_np_array together (MXNet's decorator for mx.np code); decorating
    works, calling raises NotImplementedError in symnet."""
    return use_np_shape(use_np_array(func))


def set_np(shape=True, array=True):
    """Sets both NumPy semantics; as in MXNet, array semantics need shape semantics. Array
    semantics on raises NotImplementedError in symnet (no mx.np yet); shape semantics alone work."""
    if not shape and array:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    if array:
        _refuse_numpy("set_np(shape=%s, array=%s)" % (shape, array))
    set_np_shape(shape)


def reset_np():
    """Turns both NumPy semantics off."""
    set_np(shape=False, array=False)


# MXNet 2.x's switch for float64 as mx.np's default dtype; symnet's test_utils looks these up
def is_np_default_dtype():
    """Whether mx.np creates float64 arrays by default: never in symnet (no mx.np)."""
    return False


def set_np_default_dtype(is_np_default_dtype=True):  # noqa: F811 (MXNet's argument name)
    """Switching NumPy's default dtype off works (returns the previous state, False); on raises."""
    if is_np_default_dtype:
        _refuse_numpy("set_np_default_dtype(True)")
    return False


class _NumpyDefaultDtypeScope:
    def __init__(self, active):
        self._active = active

    def __enter__(self):
        if self._active:
            _refuse_numpy("np_default_dtype(True)")
        return self

    def __exit__(self, ptype, value, trace):
        pass


def np_default_dtype(active=True):
    """A `with` scope for NumPy's default dtype (raises on entry with active=True)."""
    return _NumpyDefaultDtypeScope(active)


def use_np_default_dtype(func):
    """Decorates to run with NumPy's default dtype; calling the result raises in symnet."""
    return _decorate(func, lambda: np_default_dtype(True), "use_np_default_dtype")


def default_array(source_array, ctx=None, dtype=None):
    """An array of the active array kind: mx.nd.array here, since NumPy array semantics are
    never on in symnet."""
    from .ndarray import array
    return array(source_array, ctx=ctx, dtype=dtype)


def dtype_from_number(number):
    """The dtype an array made from a Python or numpy scalar gets: bool_ for bool, int64 for int,
    float32 for float (float64 would need NumPy's default dtype, never on here), a numpy
    scalar's own dtype."""
    if isinstance(number, (bool, np.bool_)):
        return np.bool_
    if isinstance(number, int):
        return np.int64
    if isinstance(number, float):
        return np.float64 if is_np_default_dtype() else np.float32
    if isinstance(number, np.generic):
        return number.dtype
    raise TypeError("type %s is not a number: it has no dtype" % type(number).__name__)


# ---- the C runtime's environment, devices ------------------------------------------------------
_libc = ctypes.CDLL(None)
_libc.getenv.restype = ctypes.c_char_p
_libc.getenv.argtypes = [ctypes.c_char_p]
_libc.setenv.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
_libc.unsetenv.argtypes = [ctypes.c_char_p]


def getenv(name):
    """The environment variable `name` as the native library sees it (the C runtime's
    environment, which os.environ writes through to but does not read back), or None."""
    value = _libc.getenv(name.encode())
    return None if value is None else value.decode()


def setenv(name, value):
    """Sets (or with None, removes) `name` in the C runtime's environment, where symnet's core
    reads its settings. As in MXNet, os.environ is not changed."""
    if value is None:
        _libc.unsetenv(name.encode())
    else:
        _libc.setenv(name.encode(), str(value).encode(), 1)


def get_gpu_count():
    """The number of GPUs symnet can use (0 without a CUDA build or a device)."""
    return _core.num_gpus()


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of GPU gpu_dev_id."""
    return tuple(_core.gpu_memory_info(gpu_dev_id))


def get_cuda_compute_capability(ctx):
    """The CUDA compute capability of GPU context `ctx` as one number (70 for sm_70), from the
    CUDA driver. ValueError for a context that is not a GPU, OSError without the driver."""
    if ctx.device_type != "gpu":
        raise ValueError("Expecting a gpu context to get cuda compute capability, while received "
                         "ctx %s" % ctx)
    for libname in ("libcuda.so", "libcuda.so.1"):
        try:
            cuda = ctypes.CDLL(libname)
            break
        except OSError:
            continue
    else:
        raise OSError("get_cuda_compute_capability(%s): the CUDA driver library (libcuda.so) "
                      "cannot be loaded" % ctx)
    major, minor, device = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()

    def check(ret, call):
        if ret != 0:
            text = ctypes.c_char_p()
            cuda.cuGetErrorString(ret, ctypes.byref(text))
            raise RuntimeError("%s failed with error code %d: %s"
                               % (call, ret, (text.value or b"?").decode()))
    check(cuda.cuInit(0), "cuInit")
    check(cuda.cuDeviceGet(ctypes.byref(device), ctx.device_id), "cuDeviceGet")
    # cuDeviceComputeCapability is deprecated; the attributes give the same numbers
    check(cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device), "cuDeviceGetAttribute")
    check(cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device), "cuDeviceGetAttribute")
    return major.value * 10 + minor.value


def set_module(module):
    """A decorator that sets a function's or class's __module__ (None leaves it as it is)."""
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator
