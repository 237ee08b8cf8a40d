"""User-defined operators in Python, as MXNet's mx.operator: subclass CustomOpProp (the
interface: arguments, outputs, auxiliary states, shape and type rules) and CustomOp (forward and
backward on NDArrays), register the prop with @register("name"), and use it as
mx.sym.Custom(..., op_type="name") or mx.nd.Custom(..., op_type="name"). Symbols that hold it
bind, train (Module, simple_bind), save and load like any other; the registration must happen
before a symbol that uses it is created or loaded.

The arrays a CustomOp receives are the executor's own memory: read and write them during the
call, but keep copies (not the arrays) for later, since the memory is reused afterwards.
"""
import collections

from . import _core
from .base import dtype_name, numpy_dtype
from .ndarray import NDArray

_DTYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5,
                "int64": 6, "bool": 7, "bfloat16": 12}


class CustomOp:
    """The computation of a user-defined operator. Subclass it and define forward and backward;
    write outputs with self.assign(dst, req, src) so that every req ('write', 'inplace', 'add',
    'null') is honoured."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Computes out_data from in_data (lists of NDArrays, in list_arguments/list_outputs
        order); aux holds the auxiliary states, which forward may update."""
        raise NotImplementedError("%s must define forward" % type(self).__name__)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Computes in_grad (one per argument) from out_grad and the forward's data."""
        raise NotImplementedError("%s must define backward to be trained through" % type(self).__name__)

    def assign(self, dst, req, src):
        """Writes src into dst as req says: 'write'/'inplace' copy, 'add' accumulates, 'null'
        does nothing."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst += src
        else:
            raise ValueError("unknown req %r; expected 'null', 'write', 'inplace' or 'add'" % (req,))


class CustomOpProp:
    """The interface of a user-defined operator. need_top_grad=False makes it a loss: its
    backward does not use the output gradient (the executor then scales its input gradients by
    the AMP loss scale itself)."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """(argument shapes, output shapes, aux shapes) from the argument shapes; by default every
        output has the first argument's shape."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """(argument types, output types, aux types); by default all are the first argument's."""
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def infer_storage_type(self, in_stype):
        """Storage types: symnet's arrays are all dense ('default')."""
        for i, stype in enumerate(in_stype):
            if stype != "default":
                raise ValueError("input %d has storage type %r; symnet supports only dense arrays"
                                 % (i, stype))
        return in_stype, ["default"] * len(self.list_outputs()), ["default"] * len(self.list_auxiliary_states())

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """The ids backward needs (kept for MXNet scripts; symnet always passes them all)."""
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The CustomOp for a device and the argument shapes and dtypes (MXNet's dtype ids)."""
        return CustomOp()


_REGISTERED = {}


def register(reg_name):
    """Class decorator: registers a CustomOpProp subclass as op_type `reg_name`."""
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError("@mx.operator.register(%r) decorates a CustomOpProp subclass, got %r"
                            % (reg_name, prop_cls))
        _REGISTERED[reg_name] = prop_cls
        _core.register_custom_op(reg_name, lambda kwargs: _Bridge(reg_name, prop_cls(**kwargs)))
        return prop_cls
    return do_register


def get_all_registered_operators():
    """Names of every registered operator (built-in ones and Custom op_types)."""
    return list(_core.list_ops()) + sorted(_REGISTERED)


def _three(ret, n_in, n_out, n_aux, what, op_type):
    """The (arguments, outputs, aux) lists of an infer_shape/infer_type result (aux optional)."""
    if not isinstance(ret, (list, tuple)) or len(ret) not in (2, 3):
        raise ValueError("%s.%s must return 2 or 3 lists, got %r" % (op_type, what, ret))
    parts = [list(ret[0]), list(ret[1]), list(ret[2]) if len(ret) == 3 else []]
    for part, n, name in zip(parts, (n_in, n_out, n_aux), ("argument", "output", "auxiliary state")):
        if len(part) != n:
            raise ValueError("%s.%s returned %d %s entries; expected %d"
                             % (op_type, what, len(part), name, n))
    return parts


def _shape_known(s):
    return s is not None and all(d is not None for d in s)


class _Bridge:
    """What symnet's Custom op calls (python/src/custom_op_py.cc): one per graph node. It holds
    the user's prop and the CustomOp that forward and backward share."""

    def __init__(self, op_type, prop):
        self.op_type = op_type
        self.prop = prop
        self.op = None
        self.op_key = None

    def list_arguments(self):
        return [str(a) for a in self.prop.list_arguments()]

    def list_outputs(self):
        return [str(a) for a in self.prop.list_outputs()]

    def list_auxiliary_states(self):
        return [str(a) for a in self.prop.list_auxiliary_states()]

    def need_top_grad(self):
        return bool(getattr(self.prop, "need_top_grad_", True))

    def _counts(self):
        return len(self.prop.list_arguments()), len(self.prop.list_outputs()), len(self.prop.list_auxiliary_states())

    def infer_shape(self, shapes):
        """`shapes` holds the arguments' then the aux states'; MXNet hands infer_shape the
        arguments' as lists of ints, [] for an unknown shape. While some argument is unknown a
        failing rule means "not yet" (None); once all are known it is an error."""
        shapes = shapes[:len(self.prop.list_arguments())]
        known = [_shape_known(s) for s in shapes]
        try:
            ret = self.prop.infer_shape([list(s) if k else [] for s, k in zip(shapes, known)])
        except Exception:
            if all(known):
                raise
            return None
        parts = _three(ret, *self._counts(), "infer_shape", self.op_type)
        out = []
        for i, part in enumerate(parts):
            conv = []
            for j, s in enumerate(part):
                s = tuple(int(d) for d in s) if s is not None else None
                # an empty shape is "unknown" (MXNet's convention), unless it was a known scalar
                if s == () and not (i == 0 and known[j]):
                    s = None
                conv.append(s)
            out.append(conv)
        return tuple(out)

    def infer_type(self, types):
        types = types[:len(self.prop.list_arguments())]  # the user's rule sees the arguments'
        known = [t is not None for t in types]
        in_type = [numpy_dtype(t).type if t not in (None, "bfloat16") else t for t in types]
        try:
            ret = self.prop.infer_type(in_type)
        except Exception:
            if all(known):
                raise
            return None
        parts = _three(ret, *self._counts(), "infer_type", self.op_type)
        return tuple([dtype_name(t) if t is not None else None for t in part] for part in parts)

    def _operator(self, ctx, in_data):
        shapes = [list(a.shape) for a in in_data]
        dtypes = [_DTYPE_FLAGS.get(dtype_name(a.dtype), -1) for a in in_data]
        key = (ctx, tuple(map(tuple, shapes)), tuple(dtypes))
        if self.op is None or self.op_key != key:
            self.op = self.prop.create_operator(ctx, shapes, dtypes)
            self.op_key = key
        return self.op

    def forward(self, is_train, req, in_data, out_data, aux):
        in_data, out_data, aux = _wrap(in_data), _wrap(out_data), _wrap(aux)
        ctx = (in_data or out_data)[0].context
        op = self._operator(ctx, in_data)
        with ctx:
            op.forward(is_train=is_train, req=list(req), in_data=in_data, out_data=out_data, aux=aux)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux, loss_scale):
        out_grad, in_data, out_data = _wrap(out_grad), _wrap(in_data), _wrap(out_data)
        in_grad, aux = _wrap(in_grad), _wrap(aux)
        ctx = (in_data or out_data)[0].context
        op = self._operator(ctx, in_data)
        req = list(req)
        # a loss ignores the head gradient, which carries the AMP loss scale: apply it here
        scale = loss_scale if (not self.need_top_grad() and loss_scale != 1.0) else None
        targets = list(in_grad)
        if scale is not None:
            for i, r in enumerate(req):
                if r == "add":
                    targets[i] = NDArray(_core.empty(in_grad[i].shape, dtype_name(in_grad[i].dtype),
                                                     ctx._handle()))
                    req[i] = "write"
        with ctx:
            op.backward(req=req, out_grad=out_grad, in_data=in_data, out_data=out_data,
                        in_grad=targets, aux=aux)
            if scale is not None:
                for i, r in enumerate(req):
                    if r == "null":
                        continue
                    if targets[i] is in_grad[i]:
                        in_grad[i] *= scale
                    else:
                        in_grad[i] += targets[i] * scale


def _wrap(handles):
    return [NDArray(h) for h in handles]


def _custom_inputs(kwargs, is_array):
    """Splits Custom's keyword arguments into arrays and parameters."""
    op_type = kwargs.get("op_type")
    if op_type not in _REGISTERED:
        raise ValueError("Custom: op_type %r is not registered (registered: %s)"
                         % (op_type, ", ".join(sorted(_REGISTERED)) or "none"))
    arrays = {k: v for k, v in kwargs.items() if is_array(v)}
    params = {k: v for k, v in kwargs.items() if not is_array(v) and v is not None}
    return arrays, params


def _nd_custom(*args, **kwargs):
    """mx.nd.Custom(*inputs, op_type=name, **params): runs a registered CustomOp imperatively."""
    from .base import param_str
    from .ndarray import _invoke
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    arrays, params = _custom_inputs(kwargs, lambda v: isinstance(v, NDArray))
    params = {k: param_str(v) for k, v in params.items()}
    prop = _REGISTERED[params["op_type"]](**{k: v for k, v in params.items() if k != "op_type"})
    names = list(prop.list_arguments()) + list(prop.list_auxiliary_states())
    inputs = list(args)
    for name in names[len(inputs):]:
        if name not in arrays:
            raise TypeError("Custom (op_type %r): input %r is missing; its inputs are %s"
                            % (params["op_type"], name, names))
        inputs.append(arrays.pop(name))
    if arrays:
        raise TypeError("Custom (op_type %r): unexpected array arguments %s; its inputs are %s"
                        % (params["op_type"], sorted(arrays), names))
    return _invoke("Custom", params, inputs, out)


def _install():
    from . import ndarray
    _nd_custom.__doc__ = ndarray.Custom.__doc__
    ndarray.Custom = _nd_custom


_install()


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name):
    """An operator's inputs then parameters: OperatorArguments(narg, names, types)."""
    info = _core.op_info(op_name)
    entries = list(info["inputs"]) + list(info["params"])
    return OperatorArguments(len(entries), [e[0] for e in entries], [e[1] for e in entries])


def __getattr__(name):
    # the legacy operators are built on this module's CustomOp and register: loaded on use
    if name in ("PythonOp", "NumpyOp", "NDArrayOp"):
        from . import _legacy_op
        return getattr(_legacy_op, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
