"""MXNet 1.9.1's array creation functions of mxnet.ndarray.ndarray: empty, zeros, ones, full,
zeros_like, ones_like, array, arange, linspace and eye (and NDArray.zeros_like/ones_like).
They build on NDArray and _invoke, so ndarray.py imports this module at its end and
re-exports every name."""
import numpy as np

from .. import _core
from ..base import MXNetError, dtype_name, integer_types, param_str
from ..context import current_context
from .ndarray import NDArray, _invoke


def _ctx(ctx):
    return (ctx or current_context())._handle()


def empty(shape, ctx=None, dtype=None):
    """An uninitialised array (float32 unless dtype says otherwise)."""
    shape = (shape,) if isinstance(shape, integer_types) else tuple(shape)
    return NDArray(_core.empty(shape, dtype_name(dtype) or "float32", _ctx(ctx)))


def _fill_given(out, shape, dtype, value, what):
    """zeros/ones(..., out=arr) as MXNet's _zeros/_ones ops with an output: `out` must have the
    requested shape and dtype (float32 unless given); it is filled and returned (its context
    wins over ctx)."""
    if not isinstance(out, NDArray):
        raise TypeError("%s: out must be an NDArray, not %s" % (what, type(out).__name__))
    shape = (shape,) if isinstance(shape, integer_types) else tuple(shape)
    if tuple(out.shape) != shape:
        raise MXNetError("%s: out has shape %s, but the requested shape is %s"
                         % (what, tuple(out.shape), shape))
    want, have = dtype_name(dtype) or "float32", dtype_name(out.dtype)
    if have != want:
        raise MXNetError("%s: out has dtype %s, but the requested dtype is %s"
                         % (what, have, want))
    out[:] = value
    return out


def zeros(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of zeros (float32 unless dtype says otherwise); with out, fills out (which must
    have that shape and dtype) and returns it."""
    if out is not None:
        return _fill_given(out, shape, dtype, 0.0, "zeros")
    a = empty(shape, ctx, dtype)
    a.handle.fill(0.0)
    return a


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of ones (float32 unless dtype says otherwise); with out, fills out (which must
    have that shape and dtype) and returns it."""
    if out is not None:
        return _fill_given(out, shape, dtype, 1.0, "ones")
    a = empty(shape, ctx, dtype)
    a.handle.fill(1.0)
    return a


def full(shape, val, ctx=None, dtype=None, out=None, **kwargs):
    """An array filled with val; with out, as MXNet, every element of out is set to val and out
    returned whatever its shape and dtype (shape, ctx and dtype are then not used)."""
    if out is not None:
        out[:] = val
        return out
    a = empty(shape, ctx, dtype)
    a.handle.fill(float(val))
    return a


def _like_function(op_name):
    """nd.zeros_like / nd.ones_like: MXNet's operators take no parameters and ignore any given
    (a dtype too: the result has the input's dtype), where symnet's operator refuses unknown
    ones; the call goes to the operator without them."""
    def like(data=None, out=None, name=None, **ignored):
        return _invoke(op_name, {}, [data], out)

    like.__name__ = op_name
    like.__doc__ = "An array of %s with the shape and dtype of `data` (other arguments are ignored, " \
                   "as in MXNet)." % op_name.split("_")[0]
    return like


zeros_like = _like_function("zeros_like")
ones_like = _like_function("ones_like")
NDArray.zeros_like = lambda self, *args, **kwargs: zeros_like(self, *args, **kwargs)
NDArray.ones_like = lambda self, *args, **kwargs: ones_like(self, *args, **kwargs)


def array(source_array, ctx=None, dtype=None):
    """An NDArray from a numpy array, list or NDArray. dtype defaults to float32 (as in MXNet)
    unless the source is an NDArray."""
    if isinstance(source_array, NDArray):
        dtype = source_array.dtype if dtype is None else dtype
        source_array = source_array.asnumpy()
    name = dtype_name(dtype) or "float32"
    src = np.asarray(source_array, dtype=None if name == "bfloat16" else np.dtype(name))
    return NDArray(_core.from_numpy(src, name, _ctx(ctx)))


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """MXNet's nd.arange, through the _arange op: start + (i // repeat) * step, computed in dtype
    (float32 by default; an integer dtype truncates start and step first), [0, start) without
    stop. infer_range is accepted and ignored, as MXNet 1.9.1 does imperatively."""
    params = {"start": param_str(start), "stop": "None" if stop is None else param_str(stop),
              "step": param_str(step), "repeat": param_str(repeat), "infer_range": "False",
              "ctx": str(ctx or current_context()), "dtype": dtype_name(dtype) or "float32"}
    return _invoke("_arange", params, [])


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None):
    """`num` evenly spaced values from start to stop (stop left out with endpoint=False), in
    dtype (float32 by default). As MXNet's _linspace, each value is start + i * step computed in
    double precision, then converted (an integer dtype truncates)."""
    num = int(num)
    if num < 0:
        raise ValueError("linspace: num must be >= 0, got %d" % num)
    step = (stop - start) / (num - 1 if endpoint else num) if num > (1 if endpoint else 0) else 0.0
    index = arange(0, num, ctx=ctx, dtype="float64")
    values = _invoke("_plus_scalar", {"scalar": param_str(float(start))},
                     [_invoke("_mul_scalar", {"scalar": param_str(float(step))}, [index])])
    return values.astype(dtype_name(dtype) or "float32")


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """An N x M (M=0: N x N) array with ones on diagonal k (k > 0 above the main diagonal, k < 0
    below it) and zeros elsewhere, in dtype (float32 by default)."""
    if kwargs:
        raise TypeError("eye: unknown arguments %s" % ", ".join(sorted(kwargs)))
    N, M, k = int(N), int(M) or int(N), int(k)
    rows = arange(k, k + N, ctx=ctx, dtype="float64") if N else empty((0,), ctx=ctx, dtype="float64")
    # one_hot leaves a row of zeros for an index outside [0, M): the rows the diagonal misses
    return _invoke("one_hot", {"depth": str(M), "dtype": dtype_name(dtype) or "float32"}, [rows])
