"""MXNet's legacy Python operators PythonOp, NumpyOp and NDArrayOp (deprecated in MXNet 1.9.1,
which still runs them with a warning), carried by symnet's Custom operator: each instance
registers a CustomOpProp of its own under a private op_type, and calling the instance (or
get_symbol) makes a Custom symbol with it. The legacy interface is kept: list_arguments,
list_outputs, infer_shape(in_shape) -> (in_shapes, out_shapes), forward(in_data, out_data) and
backward(out_grad, in_data, out_data, in_grad) writing their arrays in place (NumPy arrays for
NumpyOp, NDArrays for NDArrayOp), need_top_grad and declare_backward_dependency."""
import itertools
import warnings

import numpy as np

from . import operator as _op

_IDS = itertools.count()


class PythonOp:
    """Base of the legacy operators."""

    _ref_holder = []  # MXNet keeps every instance alive for the C callbacks; so does symnet

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp")

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        raise NotImplementedError("Must override this")

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_


class _LegacyOp(PythonOp):
    """What NumpyOp and NDArrayOp share: the Custom op that runs them."""

    _numpy = False

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        self._op_type = None

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)

    def get_symbol(self, *args, **kwargs):
        from . import symbol
        if self._op_type is None:
            self._op_type = "_legacy_%s_%d" % (type(self).__name__, next(_IDS))
            _op.register(self._op_type)(_prop_class(self))
            PythonOp._ref_holder.append(self)
        return symbol.Custom(*args, op_type=self._op_type, **kwargs)


def _prop_class(legacy):
    """A CustomOpProp subclass (its constructor takes no arguments) answering for `legacy`."""

    class _Prop(_op.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=legacy.need_top_grad())

        def list_arguments(self):
            return legacy.list_arguments()

        def list_outputs(self):
            return legacy.list_outputs()

        def infer_shape(self, in_shape):
            ins, outs = legacy.infer_shape(in_shape)[:2]
            return ins, outs, []

        def declare_backward_dependency(self, out_grad, in_data, out_data):
            return legacy.declare_backward_dependency(out_grad, in_data, out_data)

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return _Runner(legacy)

    return _Prop


class _Runner(_op.CustomOp):
    """Calls the legacy forward/backward: NDArrayOp on the executor's arrays, NumpyOp on NumPy
    copies whose results are assigned back as req says."""

    def __init__(self, legacy):
        super().__init__()
        self.legacy = legacy

    def _call(self, fn, inputs, outputs, req):
        if not self.legacy._numpy:
            fn(*inputs, outputs)
            return
        arrays = [[a.asnumpy() for a in group] for group in inputs]
        results = [np.zeros(o.shape, dtype=o.dtype) for o in outputs]
        fn(*arrays, results)
        for dst, r, src in zip(outputs, req, results):
            self.assign(dst, r, src)

    def forward(self, is_train, req, in_data, out_data, aux):
        self._call(self.legacy.forward, [in_data], out_data, req)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._call(self.legacy.backward, [out_grad, in_data, out_data], in_grad, req)


class NumpyOp(_LegacyOp):
    """A legacy operator computed on NumPy arrays (MXNet's NumpyOp, deprecated)."""

    _numpy = True

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp")


class NDArrayOp(_LegacyOp):
    """A legacy operator computed on NDArrays (MXNet's NDArrayOp, deprecated)."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp")
