"""Testing helpers under the names and with the semantics of MXNet 1.9.1's ``mxnet.test_utils``.

MXNet test files import this module with ``from symnet.test_utils import *``, so every public
name (including the modules MXNet's version imports, such as ``np``, ``rnd`` and ``mx``) sits in
the plain module namespace. Where symnet lacks a feature a helper needs (sparse storage,
``mx.np``, the network), the helper raises a clear error when it is called.

Differences from MXNet, each kept because symnet's own tests rely on it or because MXNet's
behaviour is a plain bug:

* check_numeric_gradient computes in float64 unless ``dtype`` says otherwise (MXNet: float32),
  and accepts symbols with several outputs (each projected by its own random weights).
* numeric_grad also accepts ``numeric_grad(fn, x, eps)``: central differences of a Python
  function of the numpy array ``x``, perturbed in place.
* check_symbolic_forward takes ``is_train``; check_consistency takes ``tol`` (one tolerance
  or a dict dtype -> tolerance, used as both rtol and atol) and returns, per binding, the list
  of its outputs as numpy arrays (MXNet returns its ground-truth dict, which no MXNet test reads).
* assert_almost_equal reports the worst element of broadcast operands correctly (MXNet indexes
  the smaller operand with the broadcast index and fails with an IndexError).
* the tolerance tables also cover bfloat16 (rtol 0.1, atol 0.5: what MXNet's bfloat16 operator
  tests use), int16 and uint16 (exact).
* check_symbolic_backward's random initial gradient buffers are scaled, element by element, to
  the expected gradients' magnitude, so that grad_req='add' is checked to the gradients' own
  precision.
"""
# the standard modules MXNet's test_utils imports are part of what `import *` gives its users
import bz2  # noqa: F401
import errno  # noqa: F401
import functools
import gzip  # noqa: F401
import json
import logging  # noqa: F401
import numbers
import os
import platform
import struct  # noqa: F401
import sys
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager

import numpy as np
import numpy.random as rnd
import numpy.testing as npt


import symnet as mx  # the package is still initialising here: attributes are read at call time

from . import _test_utils_checks as _checks
from . import _test_utils_data as _data

from .base import bfloat16 as _bfloat16, dtype_name as _dtype_name, numpy_dtype as _numpy_dtype
from .context import Context, current_context
from .io import DataIter as _DataIter
from .ndarray import NDArray as _NDArray, array
from .symbol import Symbol  # noqa: F401

from .runtime import Features  # noqa: F401  (MXNet's test_utils hands these out too)
# use_np: MXNet's decorator for NumPy semantics; symnet has no mx.np yet, so calling what it decorates raises
from .util import get_cuda_compute_capability, getenv, setenv, use_np, use_np_default_dtype  # noqa: F401

from ._test_utils_random import (chi_square_check, gen_buckets_probs_with_ppf, mean_check,  # noqa: F401,E402
                                 new_matrix_with_real_eigvals_2d, new_matrix_with_real_eigvals_nd,
                                 new_orthonormal_matrix_2d, new_sym_matrix_with_real_eigvals_2d,
                                 new_sym_matrix_with_real_eigvals_nd, ss, var_check, verify_generator)
  # MXNet's `ss`, imported on first use (scipy.stats takes seconds)


# ---- contexts, dtypes and tolerances --------------------------------------------------------
def default_context():
    """The context tests run on: the current default context."""
    return current_context()


def set_default_context(ctx):
    """Makes `ctx` the default context of this thread (what default_context() returns)."""
    Context._default.value = ctx


def default_dtype():
    """The dtype random test data is made in: float32."""
    return np.float32


_EXACT_TYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)


def default_rtols():
    """The relative tolerance of a comparison of data of each dtype (MXNet's numbers; integer and
    bool data compare exactly)."""
    tols = {np.dtype(t): 0 for t in _EXACT_TYPES}
    tols.update({np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5,
                 _bfloat16: 1e-1})
    return tols


def default_atols():
    """The absolute tolerance of a comparison of data of each dtype (MXNet's numbers)."""
    tols = {np.dtype(t): 0 for t in _EXACT_TYPES}
    tols.update({np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20,
                 _bfloat16: 5e-1})
    return tols


def default_numeric_eps():
    """The finite-difference step for each dtype: powers of two, so that x + eps/2 loses no bits
    of the step."""
    return {np.dtype(np.float16): 2.0 ** -6, np.dtype(np.float32): 2.0 ** -9, np.dtype(np.float64): 2.0 ** -14}


def _as_dtype(dtype):
    """np.dtype of a dtype given as a type, name or dtype ('bfloat16' -> symnet's bfloat16)."""
    return _numpy_dtype(_dtype_name(dtype))


def effective_dtype(dat):
    """The dtype whose tolerances a comparison of `dat` uses: its own dtype. (MXNet treats float32
    on GPUs of compute capability 8.0+ as float16, because it lets cuBLAS/cuDNN use TF32 there;
    symnet keeps float32 GPU math at full float32 precision, so no such demotion applies.)"""
    if not hasattr(dat, "dtype"):
        dat = np.asarray(dat)
    return _as_dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """The tolerance for comparing `dat`: `tol` itself if it is a number; else the entry of the
    dict `tol` (dtype -> tolerance) for dat's effective dtype, falling back to `default_tol`."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    for key, value in (tol or {}).items():
        if _as_dtype(key) == dtype:
            return value
    if dtype not in default_tol:
        raise KeyError("no default tolerance for dtype %s; pass rtol/atol explicitly" % dtype)
    return default_tol[dtype]


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing x with y: given numbers as they are, otherwise the larger of the
    two operands' dtype defaults (or entries of dict tolerances)."""
    x = np.array(x) if isinstance(x, numbers.Number) else x
    y = np.array(y) if isinstance(y, numbers.Number) else y
    return (max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols())),
            max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols())))


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """`atol`, or the default absolute tolerance of `dtype` (float64) when it is None."""
    return default_atols()[_as_dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """`rtol`, or the default relative tolerance of `dtype` (float64) when it is None."""
    return default_rtols()[_as_dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """`etol` (the tolerated fraction of mismatching elements), 0 when None."""
    return 0 if etol is None else etol


# ---- random data ----------------------------------------------------------------------------
def _shape(s):
    return (s,) if isinstance(s, numbers.Integral) else tuple(s)


def random_arrays(*shapes):
    """Standard normal float32 numpy arrays, one per shape (the array itself for one shape)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(_shape(s)) == 0
              else np.random.randn(*_shape(s)).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, **kwargs):
    """A list of numpy arrays uniform on [low, high) (keywords low=0, high=1, dtype=float32)."""
    low, high = kwargs.pop("low", 0.0), kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if kwargs:
        raise TypeError("Got unexpected argument/s : " + str(kwargs.keys()))
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """k distinct elements of the sequence `population`, in random order."""
    assert 0 <= k <= len(population)
    shuffled = population[:]
    np.random.shuffle(shuffled)
    return shuffled[0:k]


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with sides in [1, dim] ([0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with sides in [1, dim] ([0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1), rnd.randint(low, dim2 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape of num_dim sides, each in [1, dim] ([0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return tuple(rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random integer point (x, y) with x in [x_low, x_high) and y in [y_low, y_high)."""
    return np.random.randint(x_low, x_high, dtype=np.int64), np.random.randint(y_low, y_high, dtype=np.int64)


def _no_sparse(stype, what):
    if stype in ("csr", "row_sparse"):
        raise NotImplementedError("%s: storage type '%s' is not available: symnet does not implement sparse "
                                  "storage yet (only stype='default')" % (what, stype))


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """MXNet's random CSR / row-sparse array generator: symnet has no sparse storage, so every
    valid storage type raises NotImplementedError (an unknown one an AssertionError)."""
    assert stype in ("csr", "row_sparse"), "unknown storage type"
    _no_sparse(stype, "rand_sparse_ndarray")


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A dense NDArray of standard normal values (float32 unless dtype says otherwise) on ctx.
    Sparse storage types raise NotImplementedError naming the type."""
    ctx = ctx if ctx else default_context()
    if stype != "default":
        return rand_sparse_ndarray(shape, stype, density=density, modifier_func=modifier_func, dtype=dtype,
                                   shuffle_csr_indices=shuffle_csr_indices, distribution=distribution, ctx=ctx)
    return array(random_arrays(shape), dtype=dtype, ctx=ctx)


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=.5, shuffle_csr_indices=False):
    """MXNet's sparse test array: raises NotImplementedError (symnet has no sparse storage)."""
    if stype not in ("csr", "row_sparse"):
        raise AssertionError("Unknown storage type: " + stype)
    _no_sparse(stype, "create_sparse_array")


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                           modifier_func=None, shuffle_csr_indices=False):
    """MXNet's sparse test array of a given density: raises NotImplementedError (no sparse storage)."""
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                               modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)


def shuffle_csr_column_indices(csr):
    """Shuffles, in place, the column indices within each row of a CSR matrix (anything with
    numpy `indptr` and `indices`, such as scipy's csr_matrix): valid CSR need not sort them."""
    for row in range(len(csr.indptr) - 1):
        begin, end = csr.indptr[row], csr.indptr[row + 1]
        cols = np.array(csr.indices[begin:end])
        np.random.shuffle(cols)
        csr.indices[begin:end] = cols


def assign_each(the_input, function):
    """A float64 array of function(x) for every element x of `the_input` (a copy when function is
    None)."""
    if function is None:
        return np.array(the_input)
    the_input = np.asarray(the_input)
    output = np.zeros(the_input.shape)
    for idx in np.ndindex(*the_input.shape):
        output[idx] = function(the_input[idx])
    return output


def assign_each2(input1, input2, function):
    """A float64 array of function(x, y) for the elements of two same-shaped arrays (a copy of
    input1 when function is None)."""
    if function is None:
        return np.array(input1)
    input1, input2 = np.asarray(input1), np.asarray(input2)
    assert input1.shape == input2.shape
    output = np.zeros(input1.shape)
    for idx in np.ndindex(*input1.shape):
        output[idx] = function(input1[idx], input2[idx])
    return output


def create_2d_tensor(rows, columns, dtype=np.int64):
    """A rows x columns NDArray whose row i is all i (made for large-tensor tests)."""
    column = mx.nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return mx.nd.broadcast_to(column, shape=(rows, columns))


def create_vector(size, dtype=np.int64):
    """The NDArray [0, 1, ..., size - 1] (made for large-vector tests)."""
    return mx.nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """The size x size identity as a float32 NDArray."""
    return array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size):
    """A batch of two size x size identities, shape (2, size, size), float32."""
    eye = np.eye(size, dtype=np.float32)
    return array(np.stack([eye, eye]))


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduces numpy `dat` over `axis` (None, an int or several) one axis at a time with a numpy
    reducer such as np.sum, keeping reduced axes as size 1 when keepdims."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else list(range(len(dat.shape)))
    ret = dat
    for i in sorted(axis, reverse=True):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        kept = list(dat.shape)
        for i in axis:
            kept[i] = 1
        ret = ret.reshape(tuple(kept))
    return ret


# ---- comparisons ----------------------------------------------------------------------------
def _to_numpy(x):
    return x.asnumpy() if isinstance(x, _NDArray) else np.asarray(x)


def _with_dtype(x):
    """x unchanged if it has a dtype (NDArray, numpy), else as a numpy array."""
    return x if hasattr(x, "dtype") and hasattr(x, "shape") else np.asarray(x)


def same(a, b):
    """Whether two arrays have the same shape and elements."""
    return np.array_equal(_to_numpy(a), _to_numpy(b))


def checkShapes(a, b):
    """Raises AssertionError unless a and b have the same shape."""
    if a.shape != b.shape:
        raise AssertionError(npt.build_err_msg([_to_numpy(a), _to_numpy(b)], err_msg=(
            "a.shape = {} and b.shape = {} are not equal".format(str(a.shape), str(b.shape)))))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether |a - b| <= atol + rtol * |b| everywhere (numpy broadcasting unless use_broadcast is
    False); None tolerances take float64's defaults."""
    if not use_broadcast:
        checkShapes(_with_dtype(a), _with_dtype(b))
    return np.allclose(_to_numpy(a), _to_numpy(b), rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan)


def locationError(a, b, index, names, maxError=False):
    """The line naming a mismatching element: its index and the two values."""
    return "Location of %serror: %s, %s=%.8f, %s=%.8f" % (
        "maximum " if maxError else "", str(index), names[0], a[index], names[1], b[index])


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raises AssertionError unless |a - b| <= atol + rtol * |b| for every element of the
    broadcast operands (numpy arrays, NDArrays or numbers).

    rtol / atol: a number, a dict dtype -> number, or None for the larger of the two operands'
    dtype defaults (default_rtols / default_atols). The message gives the worst violation (the
    ratio of |a - b| to the tolerance), the tolerances, the share of mismatching elements and the
    worst element's index and values under `names`; the `mismatches[0]` worst elements are
    printed. use_broadcast=False requires equal shapes. Bool operands must be equal."""
    a, b = _with_dtype(a), _with_dtype(b)
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _to_numpy(a), _to_numpy(b)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if almost_equal(a, b, rtol, atol, equal_nan=equal_nan):
        return
    raise AssertionError(_checks.mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """assert_almost_equal with numpy.testing.assert_allclose's defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"), equal_nan=False,
                                 mismatches=(10, 10)):
    """Like assert_almost_equal, but passes while at most the fraction `etol` of the elements
    mismatch (etol=None or 0: none may)."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan, mismatches=mismatches)
        return
    a, b = _with_dtype(a), _with_dtype(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _to_numpy(a), _to_numpy(b)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if 1 - np.count_nonzero(close) / close.size > etol:
        raise AssertionError(_checks.mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """assert_almost_equal after zeroing, in copies, every element that is NaN in either array."""
    a, b = np.copy(_to_numpy(a)), np.copy(_to_numpy(b))
    nan = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Calls f(*args, **kwargs) and raises AssertionError unless it raises exception_type."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s" % (getattr(f, "__name__", f), exception_type.__name__))


def retry(n):
    """Decorator for stochastic tests: reruns the test up to n times while it fails an assertion."""
    assert n > 0

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    f(*args, **kwargs)
                    return
                except AssertionError:
                    if i == n - 1:
                        raise
                    mx.nd.waitall()
        return wrapper
    return decorate


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """assert_almost_equal over two (nested) tuples of arrays; a None on either side is skipped."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, (tuple, list)):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def collapse_sum_like(a, shape):
    """Sums numpy `a` over the axes that `shape` lacks or has as 1 (the reverse of broadcasting
    an array of `shape` to a.shape)."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    lead = len(a.shape) - len(shape)
    axes = list(range(lead))
    for i, s in enumerate(shape):
        if s != a.shape[lead + i]:
            assert s == 1
            axes.append(lead + i)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def same_array(array1, array2):
    """Whether two NDArrays share memory: adding 1 to array1 must show in array2 (then undone)."""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def same_symbol_structure(sym1, sym2):
    """Whether the nodes of two symbols' graphs run the same operators, node by node."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(n1["op"] == n2["op"] for n1, n2 in zip(nodes1, nodes2))


# ---- symbolic checks ------------------------------------------------------------------------
def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Binds `sym` to the numpy keyword inputs (as float32 NDArrays), runs forward and returns the
    output as numpy (a list of them for several outputs)."""
    ctx = ctx or default_context()
    exe = sym.bind(ctx, args={k: array(v) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=default_dtype()):
    """Finite-difference gradient of the sum of executor.outputs[0] with respect to every float
    argument in `location` (dict name -> numpy array): each element moves by +-eps/2 and the
    forward runs again (aux_states, if given, are restored before each run). Returns a dict of
    numpy arrays in `dtype`.

    symnet also accepts numeric_grad(fn, x, eps): central differences (x +- eps) of the scalar
    Python function fn() with respect to the numpy array x, which is modified in place and
    restored (element by element, so x may be a non-contiguous view)."""
    if callable(executor) and not hasattr(executor, "arg_dict"):
        return _checks.function_grad(executor, location, eps)
    return _checks.finite_differences(executor, location, aux_states, eps, use_forward_train, dtype)


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=np.float64):
    """Checks backward against finite differences: the gradient of sum(output * r), r uniform on
    [0.1, 1.1), from backward (head gradient r) must match the one from numeric_grad.

    location / aux_states: lists in list_arguments() / list_auxiliary_states() order, or dicts
    naming every one. grad_nodes: names (grad_req 'write'), or a dict name -> 'write' / 'add' /
    'null' ('add' checks the gradient added to the buffer's initial values, 'null' that the
    buffer is untouched). numeric_eps / rtol / atol: None for the defaults of the data's dtype.
    dtype: float64 unless given (MXNet's default is float32)."""
    dtype = _checks.float_dtype(dtype)
    ctx = ctx if ctx is not None else default_context()
    _checks.numeric_gradient_check(sym, location, aux_states, numeric_eps, rtol, atol, grad_nodes,
                                   use_forward_train, ctx, grad_stype_dict, dtype)


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype(), is_train=False):
    """Runs forward (inference, or training with is_train=True) with the inputs in `location` in
    `dtype` ('asnumpy': each input's own dtype) and compares every output with `expected` (a list
    in output order or a dict by output name). Returns the outputs (NDArrays)."""
    ctx = ctx if ctx is not None else default_context()
    location = _checks.parse_location(sym, location, ctx, dtype)
    aux_states = _checks.parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    exe = sym.bind(ctx=ctx, args=location, aux_states=aux_states, grad_req="null")
    exe.forward(is_train=is_train)
    for name, expect, output in zip(sym.list_outputs(), expected, exe.outputs):
        assert_almost_equal(expect, output, rtol, atol, ("EXPECTED_%s" % name, "FORWARD_%s" % name),
                            equal_nan=equal_nan)
    return exe.outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=default_dtype()):
    """Runs forward (training) and backward with head gradients `out_grads` (list, dict by output
    name, or None for loss outputs) and compares the gradients with `expected` (dict by argument
    name, or list in argument order). Gradient buffers start with random values (of the expected
    gradients' magnitude): grad_req 'write' must overwrite them, 'add' add the expected gradient
    to them, 'null' leave them. Returns the gradient NDArrays by name."""
    ctx = ctx if ctx is not None else default_context()
    return _checks.symbolic_backward_check(sym, location, out_grads, expected, rtol, atol, aux_states, grad_req,
                                           ctx, grad_stypes, equal_nan, dtype)


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Mean seconds per forward+backward (typ='whole') or forward (typ='forward') of `sym` over N
    runs after one warm-up. location: dict of input arrays, or None to bind with the keyword
    shapes and random normal inputs."""
    ctx = ctx if ctx is not None else default_context()
    return _checks.speed(sym, location, ctx, N, "write" if grad_req is None else grad_req, typ, kwargs)


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None, rtol=None,
                      atol=None, raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64, tol=None):
    """Checks that `sym` (or one symbol per entry) computes the same on every binding of ctx_list
    (dicts of simple_bind arguments: 'ctx', input shapes, optional 'type_dict').

    Every binding gets the same random inputs (normal of std `scale`, or uniform on
    +-0.92 scale; arg_params / aux_params override them, aux states default to 0). Outputs of an
    inference forward, then outputs and gradients of a training forward and backward (head
    gradients: the first binding's outputs in the least precise output dtype) are compared with
    the binding whose first output has the most precise dtype (or with `ground_truth`), at the
    tolerances of the less precise dtype involved unless rtol / atol (or symnet's `tol`, for
    both) are given. raise_on_err=False prints mismatches instead of raising.

    Returns, per binding, its outputs as numpy arrays (those of the training pass unless
    grad_req is 'null')."""
    if tol is not None:
        rtol = tol if rtol is None else rtol
        atol = tol if atol is None else atol
    return _checks.consistency_check(sym, ctx_list, scale, grad_req, arg_params, aux_params, rtol, atol,
                                     raise_on_err, ground_truth, equal_nan, use_uniform, rand_type)


# ---- optimizers -----------------------------------------------------------------------------
def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default", rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Applies one update of opt1 and of opt2 to the same random weight and gradient and compares
    the states (created and updated) and the weights. With a list of shapes, opt2 updates all
    ntensors weights at once (multi-tensor) and opt1 one at a time."""
    _checks.compare_optimizers(opt1, opt2, shape, dtype, w_stype, g_stype, rtol, atol, compare_states, ntensors,
                               None)


def compare_optimizer_noise_seeded(opt1, opt2, shape, dtype, noise_seed, w_stype="default", g_stype="default",
                                   rtol=1e-4, atol=1e-5, compare_states=True):
    """compare_optimizer for optimizers that draw noise (SGLD): the random seed is set to
    noise_seed before each update so that both draw the same noise. (A helper of MXNet's
    test_optimizer.py, offered here too.)"""
    _checks.compare_optimizers(opt1, opt2, shape, dtype, w_stype, g_stype, rtol, atol, compare_states, 1,
                               noise_seed)


# ---- environment, devices and features ------------------------------------------------------
def set_env_var(key, val, default_val=""):
    """Sets environment variable `key` to `val` and returns its previous value (default_val if it
    was unset). (From MXNet 1.x before 1.9, where environment() replaced it.)"""
    previous = os.environ.get(key, default_val)
    os.environ[key] = val
    return previous


@contextmanager
def environment(*args):
    """Sets environment variables for the body of a `with` (or, as a decorator, for each call of
    the function) and restores their previous state afterwards, also on errors.

    environment(name, value) or environment({name: value, ...}); a value of None unsets."""
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = args[0]
    else:
        assert len(args) == 2, "Expecting one dict arg or two args: env var name and value"
        env_vars = {args[0]: args[1]}
    def apply(settings):
        for name, value in settings.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
            if getenv(name) != value:  # os.environ did not reach the C runtime: set it there too
                setenv(name, value)
                if getenv(name) != value:
                    raise RuntimeError("Could not set env var {}={} within C Runtime".format(name, value))

    snapshot = {name: os.environ.get(name) for name in env_vars}
    apply(env_vars)
    try:
        yield
    finally:
        mx.nd.waitall()  # work queued under the changed settings finishes before they revert
        apply(snapshot)


@contextmanager
def discard_stderr():
    """Sends everything written to the process's stderr (file descriptor 2, where the C++ runtime
    writes, and sys.stderr's descriptor if that is another) to /dev/null inside the `with` body."""
    fds = [2]
    try:
        fds.append(sys.stderr.fileno())
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):  # sys.stderr without a descriptor (pytest's capture)
        pass
    fds = sorted(set(fds))
    saved = [os.dup(fd) for fd in fds]
    try:
        with open(os.devnull, "w") as bit_bucket:
            for fd in fds:
                os.dup2(bit_bucket.fileno(), fd)
            try:
                yield
            finally:
                try:
                    sys.stderr.flush()
                except (AttributeError, OSError, ValueError):
                    pass
                for fd, copy in zip(fds, saved):
                    os.dup2(copy, fd)
    finally:
        for copy in saved:
            os.close(copy)


def list_gpus():
    """range over the ids of the GPUs symnet can use (empty without CUDA or a device)."""
    return range(mx.context.num_gpus())


def is_cd_run():
    """Whether this is a continuous-delivery run (environment variable CD_JOB=1)."""
    return os.environ.get("CD_JOB", 0) == "1"


def is_aarch64_run():
    """Whether the machine is aarch64."""
    return platform.machine() == "aarch64"


def _built_with_tvm_ops():
    try:
        return Features().is_enabled("TVM_OP")
    except (NameError, RuntimeError):  # no symnet.runtime, or a build that does not list the feature
        return False


def _compute_capability_at_least_53(ctx):
    try:
        cc = get_cuda_compute_capability(ctx)
    except Exception:  # noqa: BLE001 - any failure means: do not run the TVM operators
        print("Failed to get CUDA compute capability for context {}. The operators built with USE_TVM_OP=1 "
              "will not be run in unit tests.".format(ctx))
        return False
    return cc >= 53


def has_tvm_ops():
    """Whether operators generated by TVM are built in (MXNet's USE_TVM_OP; never in symnet's
    builds), and on a GPU context whether the GPU can run them (compute capability 5.3+)."""
    if not _built_with_tvm_ops():
        return False
    ctx = current_context()
    return ctx.device_type != "gpu" or _compute_capability_at_least_53(ctx)


def is_op_runnable():
    """Whether the operators under test can run on the current context: always, except
    TVM-generated operators on GPUs below compute capability 5.3 (symnet builds have none)."""
    ctx = current_context()
    if ctx.device_type != "gpu" or not _built_with_tvm_ops():
        return True
    return _compute_capability_at_least_53(ctx)


# ---- downloads and data sets ----------------------------------------------------------------
def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Downloads `url` to fname (default: the URL's last part) in dirname (created if needed) and
    returns the file name; an existing file is kept unless overwrite. Makes at most `retries`
    attempts (1 for retries=0); without network access it raises OSError naming the URL."""
    return _data.download(url, fname, dirname, overwrite, retries)


def download_model(model_name, dst_dir="./", meta_info=None):
    """Downloads the symbol and parameters of a model of data.mxnet.io's model zoo (or of
    `meta_info`: name -> {'symbol': url, 'params': url}) into dst_dir. Returns (path prefix, 0),
    or (None, 0) for an unknown model."""
    meta_info = dict(_data.model_zoo_urls() if meta_info is None else meta_info)
    if model_name not in meta_info:
        return (None, 0)
    if not os.path.isdir(dst_dir):
        os.mkdir(dst_dir)
    meta = dict(meta_info[model_name])
    assert "symbol" in meta, "missing symbol url"
    prefix = os.path.join(dst_dir, model_name)
    download(meta["symbol"], prefix + "-symbol.json")
    assert "params" in meta, "mssing parameter file url"
    download(meta["params"], prefix + "-0000.params")
    return (prefix, 0)


def get_mnist():
    """MNIST as a dict of numpy arrays: train_data / test_data (N, 1, 28, 28) float32 in [0, 1]
    and train_label / test_label (int8), read from the four idx .gz files in the current
    directory (downloaded from data.mxnet.io when missing)."""
    base = "http://data.mxnet.io/data/mnist/"
    train_lbl, train_img = _data.read_mnist(download(base + "train-labels-idx1-ubyte.gz"),
                                            download(base + "train-images-idx3-ubyte.gz"))
    test_lbl, test_img = _data.read_mnist(download(base + "t10k-labels-idx1-ubyte.gz"),
                                          download(base + "t10k-images-idx3-ubyte.gz"))
    return {"train_data": train_img, "train_label": train_lbl, "test_data": test_img, "test_label": test_lbl}


def get_mnist_pkl():
    """Makes sure data/mnist.pkl.gz exists (downloading it when missing)."""
    if not os.path.isdir("data"):
        os.makedirs("data")
    if not os.path.exists("data/mnist.pkl.gz"):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_mnist_ubyte():
    """Makes sure the four uncompressed MNIST idx files are in data/ (downloading and unzipping
    mnist.zip when one is missing)."""
    names = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
             "t10k-labels-idx1-ubyte"]
    _data.fetch_zip_into_data(["data/" + n for n in names], "http://data.mxnet.io/mxnet/data/mnist.zip", download)


def get_cifar10():
    """Makes sure data/cifar/{train,test}.{rec,lst} exist (downloading and unzipping cifar10.zip
    when one is missing)."""
    names = ["data/cifar/train.rec", "data/cifar/test.rec", "data/cifar/train.lst", "data/cifar/test.lst"]
    _data.fetch_zip_into_data(names, "http://data.mxnet.io/mxnet/data/cifar10.zip", download)


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, validation) mx.io.MNISTIter iterators over data/ (see get_mnist_ubyte)."""
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(input_shape=input_shape, batch_size=batch_size, flat=flat, num_parts=num_parts,
                  part_index=part_index)
    train = mx.io.MNISTIter(image="data/train-images-idx3-ubyte", label="data/train-labels-idx1-ubyte",
                            shuffle=True, **common)
    val = mx.io.MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte", **common)
    return (train, val)


def get_zip_data(data_dir, url, data_origin_name):
    """Downloads the zip `url` as data_dir/data_origin_name and extracts it into data_dir, unless
    that file exists already."""
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_origin_name):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(data_origin_name) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Downloads the bz2 file `url` and decompresses it to data_dir/data_name (removing the
    download), unless data_name exists already."""
    data_name = os.path.join(data_dir, data_name)
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_name):
        download(url, fname=data_origin_name, overwrite=False)  # (MXNet's also passes dirname, doubling it)
        _data.bunzip(data_origin_name, data_name)
        os.remove(data_origin_name)


def get_im2rec_path(home_env="MXNET_HOME"):
    """The path of tools/im2rec.py: under $MXNET_HOME (or `home_env`) if set, else next to the
    installed package or in the source tree the package was imported from."""
    root = os.environ[home_env] if home_env in os.environ else os.path.dirname(mx.__file__)
    for candidate in (os.path.join(root, "tools", "im2rec.py"), os.path.join(root, "..", "..", "tools", "im2rec.py")):
        if os.path.isfile(candidate):
            return candidate
    raise IOError("Could not find path to tools/im2rec.py")


class DummyIter(_DataIter):
    """A data iterator returning the first batch of `real_iter` forever (for speed tests)."""

    def __init__(self, real_iter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        """The first batch of the real iterator (never StopIteration)."""
        return self.the_batch

    __next__ = next


# ---- Gluon and linear algebra helpers -------------------------------------------------------
@use_np
def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1E-4, atol=1E-4):
    """Checks that a HybridBlock built by net_builder(prefix='net_') gives the same outputs (and
    input gradients) imperatively and hybridized, and matches numpy_func when given. Runs under
    NumPy semantics (use_np), so it needs mx.np."""
    _checks.hybridize_consistency(net_builder, data_l, numpy_func, test_grad, rtol, atol, assert_almost_equal)
