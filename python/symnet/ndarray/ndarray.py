"""NDArray: symnet's array type, with MXNet's nd API (array, zeros, asnumpy, [:] = ...).

Every registered operator is also a function here (symnet.nd.FullyConnected(...)), run at once.
"""
import builtins
import struct

import numpy as np

from .. import _binary_ops, _core, util as _util
from . import _dlpack, _index_rules
from ..base import MXNetError, dtype_name, numeric_types, integer_types, numpy_dtype, param_str
from ..context import Context, current_context  # noqa: F401 (re-exported: mx.nd.current_context)


class NDArray:
    """An n-dimensional array on a device. Indexing the first axis gives views, like MXNet."""

    __slots__ = ("handle",)
    __array_priority__ = 1000.0  # numpy defers to our operators

    def __init__(self, handle):
        self.handle = handle

    # ---- properties -------------------------------------------------------------------------
    @property
    def shape(self):
        return self.handle.shape

    @property
    def dtype(self):
        return numpy_dtype(self.handle.dtype)

    @property
    def size(self):
        return self.handle.size

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def context(self):
        return Context.from_handle(self.handle.device)

    ctx = context

    @property
    def stype(self):
        return "default"

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return "\n%s\n<NDArray %s @%s>" % (
            str(self.asnumpy()), "x".join(str(d) for d in self.shape), self.context)

    # ---- autograd ---------------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        """Allocates a zero gradient buffer and marks the array for autograd: backward writes
        (grad_req='write') or adds ('add') the gradient into .grad."""
        if stype not in (None, "default"):
            raise ValueError("attach_grad: only dense gradients (stype='default') are supported")
        g = zeros(self.shape, ctx=self.context, dtype=self.dtype)
        _core.autograd_mark_variable(self.handle, g.handle, grad_req)

    @property
    def grad(self):
        """The gradient buffer attach_grad made; None for an array without one."""
        g = _core.autograd_grad_of(self.handle)
        return None if g.is_none() else NDArray(g)

    def detach(self):
        """The same data, cut from the recorded graph (no gradient flows through it)."""
        return NDArray(_core.autograd_detach(self.handle))

    @property
    def _fresh_grad(self):
        """MXNet's gradient state: 1 once a backward wrote this variable's gradient, until it is
        set back to False (Gluon's Trainer does that after each update); 0 for untracked arrays,
        whose state cannot be set (MXNetError)."""
        return self.handle.fresh_grad

    @_fresh_grad.setter
    def _fresh_grad(self, state):
        self.handle.fresh_grad = bool(state)

    # ---- DLPack (ndarray/_dlpack.py) ---------------------------------------------------------
    def to_dlpack_for_read(self):
        """A DLPack capsule over this array's memory (mx.nd.to_dlpack_for_read)."""
        return _dlpack.to_dlpack_for_read(self)

    def to_dlpack_for_write(self):
        """A DLPack capsule over this array's memory, for a writer (mx.nd.to_dlpack_for_write)."""
        return _dlpack.to_dlpack_for_write(self)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """The DLPack protocol (numpy.from_dlpack(arr) shares this array's memory)."""
        return _dlpack.dlpack_capsule(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return _dlpack.dlpack_device(self)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Computes the gradient of this array (recorded under autograd.record()) with respect to
        every array attach_grad marked."""
        from .. import autograd
        autograd.backward([self], None if out_grad is None else [out_grad],
                          retain_graph=retain_graph, train_mode=train_mode)

    # ---- conversion -------------------------------------------------------------------------
    def asnumpy(self):
        """A numpy copy (bfloat16 arrays are read out as float32)."""
        return self.handle.asnumpy()

    def asscalar(self):
        if self.size != 1:
            raise ValueError("the array has %d elements, not 1" % self.size)
        return self.asnumpy().reshape(-1)[0]

    def astype(self, dtype, copy=True):
        name = dtype_name(dtype)
        if not copy and name == self.handle.dtype:
            return self
        if _recording():
            return _invoke("Cast", {"dtype": name}, [self])
        return NDArray(self.handle.astype(name))

    def copy(self):
        if _recording():
            return _invoke("_copy", {}, [self])
        return NDArray(self.handle.copy())

    def copyto(self, other):
        """Copies into another NDArray (returned) or to a new array on a Context."""
        if isinstance(other, NDArray):
            other.handle.copy_from(self.handle)
            return other
        if isinstance(other, Context):
            out = empty(self.shape, ctx=other, dtype=self.dtype)
            out.handle.copy_from(self.handle)
            return out
        raise TypeError("copyto takes an NDArray or a Context, not %r" % type(other))

    def as_in_context(self, ctx):
        return self if ctx == self.context else self.copyto(ctx)

    def reshape(self, *shape, **kwargs):
        """A view of the same data with a new shape: x.reshape((2, -1)), x.reshape(2, -1) or
        x.reshape(shape=(2, -1)). As in MXNet, 0 copies the input's dim, -1 infers one dim, -2
        copies all remaining dims, -3 merges two dims, -4 splits one into the next two values,
        and reverse=True applies these from the right. Recorded by autograd under record()."""
        unknown = [k for k in kwargs if k not in ("shape", "reverse")]
        if unknown:
            raise TypeError("Got unknown keywords in reshape: %s. Accepted keyword arguments are "
                            "'shape' and 'reverse'." % ", ".join(unknown))
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        elif not shape:
            shape = kwargs.get("shape")
            assert shape, "Shape must be provided."
        if isinstance(shape, integer_types):
            shape = (shape,)
        target = _resolve_reshape(self.shape, tuple(int(d) for d in shape),
                                  bool(kwargs.get("reverse", False)))
        if _recording():
            return _invoke("Reshape", {"shape": param_str(target)}, [self])
        return NDArray(self.handle.reshape(target))

    def flatten(self, inplace=False):
        """This array as 2-D (first axis kept, the others merged): a copy (the Flatten op), or
        with inplace=True a view sharing this array's memory."""
        return self.reshape((0, -1)) if inplace else _invoke("Flatten", {}, [self])

    def squeeze(self, axis=None, inplace=False):
        """This array without the size-1 axes `axis` (an int, a tuple, or None: all of them;
        squeezing every axis leaves shape (1,)): a copy, or with inplace=True a view."""
        if not inplace:
            params = {} if axis is None else {"axis": param_str(axis)}
            return _invoke("squeeze", params, [self])
        shape = list(self.shape)
        if axis is None:
            shape = [d for d in shape if d != 1]
        else:
            axes = (axis,) if isinstance(axis, integer_types) else tuple(axis)
            if len(set(axes)) != len(axes):
                raise ValueError("squeeze: axis %s repeats an axis" % (axes,))
            resolved = []
            for a in axes:
                if not -len(shape) <= a < len(shape):
                    raise ValueError("squeeze: axis %d is out of range for a %d-d array" % (a, len(shape)))
                resolved.append(a % len(shape))
                if shape[a] != 1:
                    raise ValueError("squeeze: axis %d has size %d, not 1" % (a, shape[a]))
            shape = [d for i, d in enumerate(shape) if i not in resolved]
        return self.reshape(tuple(shape) or (1,))

    def expand_dims(self, axis, inplace=False):
        """This array with a new size-1 axis at `axis`: a copy, or with inplace=True a view."""
        if not inplace:
            return _invoke("expand_dims", {"axis": param_str(axis)}, [self])
        if not -self.ndim - 1 <= axis <= self.ndim:
            raise ValueError("expand_dims: axis %d is out of range for a %d-d array" % (axis, self.ndim))
        shape = list(self.shape)
        shape.insert(axis + self.ndim + 1 if axis < 0 else axis, 1)
        return self.reshape(tuple(shape))

    def split_v2(self, *args, **kwargs):
        """split_v2(self, indices_or_sections, axis=0, squeeze_axis=False); see nd.split_v2."""
        return split_v2(self, *args, **kwargs)

    def tostype(self, stype):
        """A copy with storage type stype. symnet stores dense arrays only: 'default' gives a
        dense copy (recorded by autograd, as MXNet's cast_storage); 'csr' and 'row_sparse' raise
        an error naming the storage type that is missing."""
        if stype == "csr" and self.ndim != 2:
            raise ValueError("To convert to a CSR, the NDArray should be 2 Dimensional. Current "
                             "shape is %s" % str(self.shape))
        if stype == "default":
            return self.copy()
        if stype in ("csr", "row_sparse"):
            from .sparse import _no_sparse
            _no_sparse("NDArray.tostype", stype)
        raise ValueError("tostype: unknown storage type %r; valid values are 'default', 'csr' "
                         "and 'row_sparse'" % (stype,))

    # ---- pickling (copy.copy and copy.deepcopy go through it too) -------------------------------
    # The state is MXNet's: {'handle': one array in MXNet's NDArray save format}, so arrays pickled
    # by MXNet 1.9.1 load here and the other way round.
    def __reduce__(self):
        return NDArray, (None,), self.__getstate__()

    def __getstate__(self):
        if self.handle is None:
            return {"handle": None}
        record = _core.save_ndarrays_bytes([self.handle], [])[len(_LIST_HEAD):-8]
        at = _record_device_offset(record)
        if at is not None:  # the record says where the array lives, as MXNet's does
            dev_type, dev_id = self.handle.device
            record = record[:at] + struct.pack("<ii", dev_type, dev_id) + record[at + 8:]
        return {"handle": bytearray(record)}

    def __setstate__(self, state):
        record = state["handle"]
        if record is None:
            self.handle = None
            return
        record = bytes(record)
        at = _record_device_offset(record)
        dev_type, dev_id = struct.unpack_from("<ii", record, at) if at is not None else (1, 0)
        if at is not None:  # symnet's reader takes host records; the device is applied below
            record = record[:at] + struct.pack("<ii", 1, 0) + record[at + 8:]
        arrays, _ = _core.load_ndarrays_bytes(_LIST_HEAD + record + struct.pack("<Q", 0))
        self.handle = arrays[0]
        # as MXNet: host kinds (cpu, cpu_pinned, cpu_shared) load on cpu(0), a GPU array on its
        # GPU when this machine has it (MXNet needs one; symnet keeps it on the CPU otherwise)
        if dev_type == 2 and not self.handle.is_none() and dev_id < _core.num_gpus():
            self.handle = self.copyto(Context("gpu", dev_id)).handle

    def wait_to_read(self):
        """Waits until the array's value is computed (GPU work is asynchronous; CPU work is not)."""
        self.handle.wait_to_read()

    def wait_to_write(self):
        """Kept for MXNet scripts: symnet runs operations synchronously."""

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError("T is only defined for 2-D arrays")
        return array(self.asnumpy().T, ctx=self.context, dtype=self.dtype)

    # ---- indexing ---------------------------------------------------------------------------
    def _view(self, key):
        """A view for an int or a unit-step slice on the first axis; None otherwise."""
        if isinstance(key, integer_types) and not isinstance(key, bool):
            n = self.shape[0]
            i = key + n if key < 0 else key
            if not 0 <= i < n:
                raise IndexError("index %d is out of bounds for axis 0 with size %d" % (key, n))
            return NDArray(self.handle.at(i))
        # builtins.slice: this module's namespace holds the operator mx.nd.slice
        if isinstance(key, builtins.slice) and key.step in (None, 1):
            start, stop, _ = key.indices(self.shape[0])
            return NDArray(self.handle.slice(start, builtins.max(start, stop)))
        return None

    def _basic_index(self, key):
        """Basic indexing (ints, slices, Ellipsis, None on any axes) through the slice op, so it
        stays on the device and autograd records it; None for advanced indexing."""
        key = key if isinstance(key, tuple) else (key,)
        simple = (builtins.slice, type(Ellipsis), type(None))
        if not all(isinstance(k, simple) or (isinstance(k, integer_types)
                                             and not isinstance(k, bool)) for k in key):
            return None
        n_axes = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
        if n_axes > self.ndim or builtins.sum(1 for k in key if k is Ellipsis) > 1:
            raise IndexError("too many indices (%d) for an array of %d dimensions"
                             % (n_axes, self.ndim))
        expanded = []
        for k in key:
            if k is Ellipsis:
                expanded.extend([builtins.slice(None)] * (self.ndim - n_axes))
            else:
                expanded.append(k)
        begin, end, step, shape = [], [], [], []
        axis = 0
        for k in expanded:
            if k is None:
                shape.append(1)
                continue
            size = self.shape[axis]
            if isinstance(k, builtins.slice):
                b, e, st = k.indices(size)
                if (st > 0 and e < b) or (st < 0 and e > b):
                    e = b  # an empty range, as numpy gives
                begin.append(k.start if k.start is None else b)
                end.append(k.stop if k.stop is None and e != b else e)
                step.append(st)
                shape.append(len(range(b, e, st)))
            else:
                i = k + size if k < 0 else k
                if not 0 <= i < size:
                    raise IndexError("index %d is out of bounds for axis %d with size %d"
                                     % (k, axis, size))
                begin.append(i)
                end.append(i + 1)
                step.append(1)
            axis += 1
        shape.extend(self.shape[axis:])
        view = self._contiguous_view(expanded, tuple(shape))
        if view is not None:
            return view
        out = _invoke("slice", {"begin": param_str(tuple(begin)), "end": param_str(tuple(end)),
                                "step": param_str(tuple(step))}, [self]) if begin else self
        if out.shape != tuple(shape):
            out = out.reshape(tuple(shape)) if _recording() else NDArray(
                out.handle.reshape(tuple(shape)))
        return out

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slc_key, shape):
        """Whether slicing an array of `shape` with `slc_key` (one slice per axis) keeps the
        selected elements adjacent in row-major memory, as MXNet 1.9.1 decides it: reading the
        axes from the last, once an axis takes less than all of itself, every axis further left
        may take at most one element; an axis taking several elements with a step other than 1
        never is contiguous; a selection of at most one element always is."""
        assert len(slc_key) == len(shape)
        counts = [len(range(*slc.indices(n))) for slc, n in zip(slc_key, shape)]
        if int(np.prod(counts)) <= 1:
            return True
        partial = False
        for slc, n, count in zip(reversed(slc_key), reversed(shape), reversed(counts)):
            if count == 0:
                return True
            if count > 1 and slc.indices(n)[2] != 1:
                return False
            if partial and count > 1:
                return False
            partial = partial or count < n
        return True

    def _contiguous_view(self, expanded, shape):
        """For basic indexing (`expanded`: one int or slice per indexed axis, None for a new
        axis) whose elements lie adjacent in memory: a view of `shape` sharing this array's
        memory, as MXNet 1.9.1 returns (writes through it change this array). None otherwise,
        and while autograd records this array (the slice op must be recorded)."""
        if _recording() and _core.autograd_is_tracked(self.handle):
            return None
        keys = [builtins.slice(k, k + 1 if k != -1 else None) if isinstance(k, integer_types) else k
                for k in expanded if k is not None]
        keys += [builtins.slice(None)] * (self.ndim - len(keys))
        if not self._basic_indexing_slice_is_contiguous(keys, self.shape):
            return None
        offset, stride = 0, 1
        for slc, n in zip(reversed(keys), reversed(self.shape)):
            picked = range(*slc.indices(n))
            offset += (picked[0] if len(picked) else 0) * stride
            stride *= n
        count = int(np.prod(shape))
        offset = builtins.min(offset, self.size - count)
        flat = self.handle.reshape((self.size,))
        return NDArray(flat.slice(offset, offset + count).reshape(shape))

    def __getitem__(self, key):
        return _index_rules.legacy_shape(self, key, self._getitem(key))

    def _getitem(self, key):
        # first-axis ints and unit-step slices are views sharing memory, as in MXNet; recorded
        # indexing must be an op for the gradient to flow
        view = None if _recording() and _core.autograd_is_tracked(self.handle) else self._view(key)
        if view is not None:
            return view
        out = self._basic_index(key)
        if out is not None:
            return out
        if isinstance(key, NDArray) and key.ndim == 1 and not np.issubdtype(key.dtype, np.bool_):
            return _invoke("take", {"axis": "0"}, [self, key])
        if _recording() and _core.autograd_is_tracked(self.handle):
            return _index_rules.recorded_gather(self, _numpy_index(key), _invoke, array)
        return array(self.asnumpy()[_numpy_index(key)], ctx=self.context, dtype=self.dtype)

    def __setitem__(self, key, value):
        if _core.autograd_is_recording():
            _index_rules.refuse_recorded_setitem(self, key, value, NDArray)
        whole = isinstance(key, builtins.slice) and key == builtins.slice(None)
        target = self._view(key) if not whole else self
        if target is None:
            data = self.asnumpy()
            index = _numpy_index(key)
            src = value.asnumpy() if isinstance(value, NDArray) else value
            if not isinstance(src, numeric_types) and np.ndim(data[index]) == 0:
                src = np.asarray(src).reshape(())  # one element ([v]) into one place, as MXNet
            data[index] = src
            self.handle.copy_from_numpy(data)
            return
        if isinstance(value, NDArray):
            if value.shape != target.shape and value.size != 1:
                value = array(_broadcast_value(value.asnumpy(), target.shape), dtype=value.dtype)
            if value.size == 1 and target.size != 1:
                target.handle.fill(float(value.asscalar()))
            else:
                target.handle.copy_from(value.handle)
        elif isinstance(value, numeric_types):
            target.handle.fill(float(value))
        else:
            src = np.asarray(value)
            if src.shape != target.shape:
                src = _broadcast_value(src, target.shape)
            target.handle.copy_from_numpy(src)

    # ---- arithmetic -------------------------------------------------------------------------
    def _binary(self, other, op, bop, sop, reverse_sop=None, out=None):
        if isinstance(other, NDArray):
            name = op if other.shape == self.shape else bop
            return _invoke(name, {}, [self, other], out)
        if isinstance(other, numeric_types):
            return _invoke(sop, {"scalar": param_str(float(other))}, [self], out)
        if isinstance(other, np.ndarray):
            return self._binary(array(other, ctx=self.context, dtype=self.dtype), op, bop, sop, out=out)
        return NotImplemented

    def __add__(self, o):
        return self._binary(o, "elemwise_add", "broadcast_add", "_plus_scalar")

    def __radd__(self, o):
        return self.__add__(o)

    def __iadd__(self, o):
        return self._binary(o, "elemwise_add", "broadcast_add", "_plus_scalar", out=self)

    def __sub__(self, o):
        return self._binary(o, "elemwise_sub", "broadcast_sub", "_minus_scalar")

    def __rsub__(self, o):
        if isinstance(o, numeric_types):
            return _invoke("_rminus_scalar", {"scalar": param_str(float(o))}, [self])
        return NotImplemented

    def __isub__(self, o):
        return self._binary(o, "elemwise_sub", "broadcast_sub", "_minus_scalar", out=self)

    def __mul__(self, o):
        return self._binary(o, "elemwise_mul", "broadcast_mul", "_mul_scalar")

    def __rmul__(self, o):
        return self.__mul__(o)

    def __imul__(self, o):
        return self._binary(o, "elemwise_mul", "broadcast_mul", "_mul_scalar", out=self)

    def __truediv__(self, o):
        return self._binary(o, "elemwise_div", "broadcast_div", "_div_scalar")

    def __rtruediv__(self, o):
        if isinstance(o, numeric_types):
            return _invoke("_rdiv_scalar", {"scalar": param_str(float(o))}, [self])
        return NotImplemented

    def __itruediv__(self, o):
        return self._binary(o, "elemwise_div", "broadcast_div", "_div_scalar", out=self)

    def __neg__(self):
        return _invoke("negative", {}, [self])

    def __abs__(self):
        return _invoke("abs", {}, [self])

    def __imod__(self, o):
        return self._binary(o, "_mod", "broadcast_mod", "_mod_scalar", out=self)

    def __bool__(self):
        # MXNet's rule: an empty array is False, one element is its value, more are ambiguous
        if self.size == 0:
            return False
        if self.size == 1:
            return bool(self.asnumpy().reshape(-1)[0])
        raise ValueError("The truth value of an NDArray with %d elements is ambiguous; use "
                         "(a == b).asnumpy().all() or .any()" % self.size)

    __hash__ = object.__hash__  # the comparison operators below return arrays



def _numpy_index(key):
    """An indexing key for the NumPy copy of an array: NDArray index arrays (MXNet's are float
    by default) become NumPy integer arrays, boolean ones stay boolean."""
    def convert(k):
        if isinstance(k, NDArray):
            k = k.asnumpy()
            return k if k.dtype == np.bool_ else k.astype(np.int64)
        return k
    return tuple(convert(k) for k in key) if isinstance(key, tuple) else convert(key)


def _broadcast_value(src, shape):
    """`src` broadcast to `shape` for an assignment; as NumPy's and MXNet's setitem, leading
    dims of size 1 beyond the target's rank are dropped first."""
    while src.ndim > len(shape) and src.shape[0] == 1:
        src = src.reshape(src.shape[1:])
    return np.broadcast_to(src, shape)


def _recording():
    return _core.autograd_is_recording()


def _resolve_reshape(src, target, reverse=False):
    """The shape NDArray.reshape(target) gives an array of shape src, resolving MXNet's special
    values (0, -1, -2, -3, -4; from the right with reverse). Malformed targets raise MXNetError,
    a shape of another size ValueError, as in MXNet."""
    def bad(why):
        from ..base import MXNetError  # noqa: F811 (here so this helper stands on its own)
        raise MXNetError("cannot reshape an array of shape %s to %s%s: %s"
                         % (src, target, " (reverse=True)" if reverse else "", why))
    dims = list(src)[::-1] if reverse else list(src)
    spec = list(target)[::-1] if reverse else list(target)
    out, src_i, infer, i = [], 0, None, 0
    while i < len(spec):
        d = spec[i]
        if d == 0:
            if src_i >= len(dims):
                bad("0 refers past the last input dim")
            out.append(dims[src_i])
            src_i += 1
        elif d == -1:
            if infer is not None:
                bad("only one dim can be inferred (-1)")
            infer = len(out)
            out.append(1)
            src_i += 1
        elif d == -2:
            out.extend(dims[src_i:])
            src_i = len(dims)
        elif d == -3:
            if src_i + 1 >= len(dims):
                bad("-3 needs two input dims")
            out.append(dims[src_i] * dims[src_i + 1])
            src_i += 2
        elif d == -4:
            if i + 2 >= len(spec) or src_i >= len(dims):
                bad("-4 needs an input dim and two following values")
            whole, a, b = dims[src_i], spec[i + 1], spec[i + 2]
            src_i += 1
            if a == -1 and b == -1:
                bad("the two dims -4 splits into cannot both be -1")
            a = whole // b if a == -1 else a
            b = whole // a if b == -1 else b
            if a * b != whole:
                bad("split dims %d, %d do not divide the dim %d" % (a, b, whole))
            out.extend([a, b])
            i += 2
        elif d > 0:
            out.append(d)
            src_i += 1
        else:
            bad("%d is not a dim or one of the special values 0, -1, -2, -3, -4" % d)
        i += 1
    size = int(np.prod(src, dtype=np.int64))
    if infer is not None:
        known = int(np.prod(out, dtype=np.int64))
        if known == 0:
            raise ValueError("Cannot reshape array of size %d into shape %s: the -1 dim cannot be "
                             "inferred next to a 0-size dim" % (size, target))
        out[infer] = size // known
    if reverse:
        out.reverse()
    if int(np.prod(out, dtype=np.int64)) != size:
        raise ValueError("Cannot reshape array of size %d into shape %s" % (size, target))
    return tuple(out)


# one array's record is the part of a one-array, nameless .params list between this head (list
# magic, reserved word, array count) and the trailing name count
_LIST_HEAD = struct.pack("<QQQ", 0x112, 0, 1)
_V1_MAGIC, _V2_MAGIC, _V3_MAGIC = 0xF993FAC8, 0xF993FAC9, 0xF993FACA


def _record_device_offset(record):
    """Where the (device type, device id) pair of one array's saved record starts; None for
    records without one (the none array, sparse arrays, which the loader refuses anyway)."""
    if len(record) < 8:
        return None
    magic = struct.unpack_from("<I", record, 0)[0]
    if magic in (_V2_MAGIC, _V3_MAGIC):
        stype, ndim = struct.unpack_from("<ii", record, 4)
        if stype != 0 or (ndim <= 0 and not (magic == _V3_MAGIC and ndim == 0)):
            return None
        at = 12 + 8 * ndim
    elif magic == _V1_MAGIC:
        ndim = struct.unpack_from("<i", record, 4)[0]
        at = 8 + 8 * ndim if ndim > 0 else None
    else:  # the oldest layout: ndim, then uint32 dims
        at = 4 + 4 * magic if 0 < magic <= 32 else None
    return at if at is not None and at + 8 <= len(record) else None


def _invoke(op, params, inputs, out=None):
    if out is None:
        res = _core.invoke(op, params, [i.handle for i in inputs], [])
        return NDArray(res[0]) if len(res) == 1 else [NDArray(h) for h in res]
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    res = _core.invoke(op, params, [i.handle for i in inputs], [o.handle for o in outs])
    # the handles returned carry autograd's node when the call was recorded
    for o, h in zip(outs, res):
        o.handle = h
    return out


# ---- maximum, power, modulo, equal, greater, ... and their operators (**, %, ==, >, ...) ------
def _apply_binary(op, scalar, arrays):
    if scalar is None:
        same, broadcast = op
        return _invoke(same if arrays[0].shape == arrays[1].shape else broadcast, {}, arrays)
    return _invoke(op, {"scalar": param_str(float(scalar))}, arrays)


def _is_array(x):
    return isinstance(x, NDArray)


for _name in list(_binary_ops.BINARY) + list(_binary_ops.ARITHMETIC):
    globals()[_name] = _binary_ops.make_function(_name, _is_array, numeric_types, _apply_binary)
for _method, _fname, _swapped in _binary_ops.OPERATORS:
    setattr(NDArray, _method, _binary_ops.make_operator(globals()[_fname], _swapped, _is_array,
                                                        numeric_types))


def concatenate(arrays, axis=0, always_copy=True):
    """The arrays (a list, equal in dtype and in every dim but `axis`) joined along `axis`, on
    the first one's context; with always_copy=False a list of one array is returned as is."""
    if not isinstance(arrays, list) or not arrays or not isinstance(arrays[0], NDArray):
        raise TypeError("concatenate expects a non-empty list of NDArrays")
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    first = arrays[0]
    for a in arrays[1:]:
        if a.dtype != first.dtype or a.ndim != first.ndim or \
                a.shape[:axis] != first.shape[:axis] or a.shape[axis + 1:] != first.shape[axis + 1:]:
            raise ValueError("concatenate: %s %s does not join %s %s along axis %d"
                             % (a.shape, a.dtype, first.shape, first.dtype, axis))
    if len(arrays) == 1:
        return first.copy()
    return _invoke("Concat", {"num_args": str(len(arrays)), "dim": str(axis)},
                   [a.as_in_context(first.context) for a in arrays])


def moveaxis(tensor, source, destination):
    """`tensor` with its axes `source` (an int or a sequence) moved to `destination`, the other
    axes keeping their order (NumPy's moveaxis, through transpose)."""
    def axes(value, what):
        seq = [value] if isinstance(value, integer_types) else list(value)
        out = []
        for a in seq:
            if not -tensor.ndim <= a < tensor.ndim:
                raise ValueError("moveaxis: %s axis %d is out of range for a %d-d array"
                                 % (what, a, tensor.ndim))
            out.append(a % tensor.ndim)
        if len(set(out)) != len(out):
            raise ValueError("moveaxis: repeated axis in `%s`" % what)
        return out
    src, dst = axes(source, "source"), axes(destination, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(tensor.ndim) if n not in src]
    for d, sa in sorted(zip(dst, src)):
        order.insert(d, sa)
    return _invoke("transpose", {"axes": param_str(tuple(order))}, [tensor])


def _np_shape_mode():
    """The load semantics of the current np_shape state: 0 off, 1 on in this thread, 2 on in
    every thread (set_np_shape(2)); MXNet's loader takes a V2 file under 2 but not under 1."""
    if _util._np_shape_global[0]:
        return 2
    return 1 if _util.is_np_shape() else 0


def save(fname, data):
    """Saves an NDArray, a list of them or a {name: NDArray} dict in MXNet's .params format
    (readable by mx.nd.load of MXNet 1.x). Under np_shape the file is in MXNet's numpy-shape
    (V3) layout, which MXNet (and mx.nd.load) reads back only under np_shape; without, in the V2
    layout, read back only without np_shape (or with set_np_shape(2)), as MXNet's."""
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        names, arrays = list(data.keys()), list(data.values())
    else:
        names, arrays = [], list(data)
    for a in arrays:
        if not isinstance(a, NDArray):
            raise TypeError("save expects NDArrays, got %r" % type(a))
    _core.save_ndarrays(str(fname), [a.handle for a in arrays], [str(n) for n in names],
                        _util.is_np_shape())


def load(fname):
    """Loads MXNet's .params format: a dict when the file has names, else a list. As MXNet's,
    a V3 (numpy-shape) file needs np_shape on and a V2 file needs it off (or set_np_shape(2))."""
    arrays, names = _core.load_ndarrays(str(fname), _np_shape_mode())
    arrays = [NDArray(h) if not h.is_none() else None for h in arrays]
    return dict(zip(names, arrays)) if names else arrays


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """`ary` split along `axis` as numpy.split: an int n gives n equal parts (ValueError if the
    axis does not divide), a tuple the indices where parts start after the first. One part is
    returned as an array, several as a list. squeeze_axis drops the axis from parts of size 1 on
    it. Each part is a slice of `ary` (MXNet has one _split_v2 op)."""
    size = ary.shape[axis]
    if isinstance(indices_or_sections, integer_types):
        sections = int(indices_or_sections)
        if sections <= 0 or size % sections:
            raise ValueError("array split does not result in an equal division")
        bounds = [i * (size // sections) for i in range(sections)] + [size]
    elif isinstance(indices_or_sections, tuple):
        bounds = [0] + [int(i) for i in indices_or_sections] + [size]
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    parts = []
    for i, (begin, end) in enumerate(zip(bounds[:-1], bounds[1:])):
        if not 0 <= begin <= end <= size:
            raise MXNetError("split_v2: part %d would run from %d to %d on an axis of %d"
                             % (i, begin, end, size))
        # the slice op, not slice_axis, so that an empty part (equal bounds) is allowed
        lead = (None,) * (axis % ary.ndim)
        part = _invoke("slice", {"begin": param_str(lead + (begin,)), "end": param_str(lead + (end,))},
                       [ary])
        if squeeze_axis:
            if end - begin != 1:
                raise MXNetError("split_v2: squeeze_axis needs parts of size 1 on the axis, "
                                 "part %d has %d" % (i, end - begin))
            part = _invoke("squeeze", {"axis": str(axis)}, [part])
        parts.append(part)
    return parts[0] if len(parts) == 1 else parts


# ---- MXNet 1.x's legacy row functions, from existing ops ---------------------------------------
def choose_element_0index(data, index, axis=-1, keepdims=False, mode="clip", out=None):
    """output[i] = data[i, index[i]]: MXNet registers this name for the pick op (out-of-range
    indices clipped by default)."""
    params = {"axis": str(axis), "keepdims": str(bool(keepdims)), "mode": mode}
    return _invoke("pick", params, [data, index], out)


def fill_element_0index(lhs, mhs, rhs, out=None):
    """A copy of the 2-D `lhs` whose element rhs[i] of each row i is mhs[i] (rows whose index is
    out of range are left as they are)."""
    if lhs.ndim != 2:
        raise ValueError("fill_element_0index expects a 2-D lhs, got shape %s" % (lhs.shape,))
    mask = _invoke("one_hot", {"depth": str(lhs.shape[1]), "dtype": dtype_name(lhs.dtype)}, [rhs])
    values = _invoke("broadcast_to", {"shape": param_str(lhs.shape)},
                     [mhs.reshape((-1, 1)).astype(lhs.dtype)])
    return _invoke("where", {}, [mask, values, lhs], out)


def onehot_encode(indices, out):
    """Writes the one-hot rows of `indices` into the 2-D `out` (its second dim is the depth) and
    returns it."""
    if out.ndim != 2:
        raise ValueError("onehot_encode expects a 2-D out, got shape %s" % (out.shape,))
    return _invoke("one_hot", {"depth": str(out.shape[1]), "dtype": dtype_name(out.dtype)},
                   [indices], out)


def load_frombuffer(buf):
    """mx.nd.load of the bytes of a .params file: a dict when it has names, else a list."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError("load_frombuffer expects bytes, not %s" % type(buf).__name__)
    arrays, names = _core.load_ndarrays_bytes(bytes(buf), _np_shape_mode())
    arrays = [NDArray(h) if not h.is_none() else None for h in arrays]
    return dict(zip(names, arrays)) if names else arrays


def waitall():
    """Waits for all pending GPU work (CPU work is synchronous)."""
    for i in range(_core.num_gpus()):
        _core.synchronize(i)


#: MXNet's storage type ids (ndarray.ndarray._STORAGE_TYPE_*); symnet stores dense arrays only
#: until sparse storage lands, but code that maps names to ids imports this table.
_STORAGE_TYPE_UNDEFINED, _STORAGE_TYPE_DEFAULT, _STORAGE_TYPE_ROW_SPARSE, _STORAGE_TYPE_CSR = -1, 0, 1, 2
_STORAGE_TYPE_STR_TO_ID = {"undefined": _STORAGE_TYPE_UNDEFINED, "default": _STORAGE_TYPE_DEFAULT,
                           "row_sparse": _STORAGE_TYPE_ROW_SPARSE, "csr": _STORAGE_TYPE_CSR}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}

#: the builtin slice, under the name MXNet's module gives it (its own `slice` is the operator)
py_slice = builtins.slice

# the creation functions (empty, zeros, ones, full, array, arange, linspace, eye, ...), DLPack
# sharing and MXNet's remaining module functions and tables (kept in their own files; they
# build on NDArray and _invoke above)
from ._creation import (  # noqa: E402,F401
    _ctx, _fill_given, _like_function, arange, array, empty, eye, full, linspace, ones, ones_like, zeros,
    zeros_like)
from ._dlpack import from_dlpack, from_numpy, to_dlpack_for_read, to_dlpack_for_write  # noqa: E402,F401
from ._module_funcs import (  # noqa: E402,F401
    _DTYPE_MX_TO_NP, _DTYPE_NP_TO_MX, _GRAD_REQ_MAP, _new_empty_handle, get_indexing_dispatch_code,
    get_oshape_of_gather_nd_op, histogram, imdecode, indexing_key_expand_implicit_axes)

# what `from .ndarray import *` gives the package: every public name here but the modules
# imported, and the private tables MXNet's __all__ lists too
__all__ = [_n for _n, _v in globals().items() if not _n.startswith("_") and type(_v) is not type(np)]
__all__ += ["_DTYPE_NP_TO_MX", "_DTYPE_MX_TO_NP", "_GRAD_REQ_MAP", "_new_empty_handle"]
