"""mx.nd.CachedOp: a Symbol run imperatively on NDArrays, recorded by autograd as one step."""
from .. import _core
from .ndarray import NDArray, zeros


class CachedOp:
    """Runs `sym` on NDArrays given in sym.list_inputs() order (arguments and auxiliary states
    as they appear in the graph): op(*inputs, out=None) returns the output (a list for several).
    Executors are bound once per input signature and reused while autograd is not recording;
    a recorded call binds its own, whose activations its backward reads. `flags` (MXNet's
    CachedOp options: static_alloc, ...) are accepted and do not change the results."""

    def __init__(self, sym, flags=()):
        self._sym = sym
        self._flags = dict(flags)
        self._inputs = sym.list_inputs()
        self._args = sym.list_arguments()
        self._aux = sym.list_auxiliary_states()
        self._executors = {}

    def _bind(self, ctx, arrays, grad_names):
        args = {n: zeros(arrays[n].shape, ctx=ctx, dtype=arrays[n].dtype) for n in self._args}
        aux = {n: zeros(arrays[n].shape, ctx=ctx, dtype=arrays[n].dtype) for n in self._aux}
        grads = {n: zeros(args[n].shape, ctx=ctx, dtype=args[n].dtype) for n in grad_names}
        reqs = {n: "write" if n in grads else "null" for n in self._args}
        return self._sym.bind(ctx, args, args_grad=grads or None, grad_req=reqs, aux_states=aux)

    def __call__(self, *args, **kwargs):
        from .. import autograd
        out = kwargs.pop("out", None)
        if kwargs:
            raise TypeError("CachedOp called with unknown keyword arguments %s" % ", ".join(kwargs))
        if len(args) != len(self._inputs):
            raise ValueError("CachedOp expects %d inputs (%s), got %d"
                             % (len(self._inputs), ", ".join(self._inputs), len(args)))
        if not all(isinstance(a, NDArray) for a in args):
            raise TypeError("CachedOp's inputs must be NDArrays")
        arrays = dict(zip(self._inputs, args))
        ctx = args[0].context
        recording = autograd.is_recording()
        train = autograd.is_training()
        tracked = [n for n in self._args if recording and _core.autograd_is_tracked(arrays[n].handle)]
        if tracked:
            exe = self._bind(ctx, arrays, tracked)
        else:
            key = (tuple((a.shape, a.handle.dtype) for a in args), str(ctx), train)
            exe = self._executors.get(key)
            if exe is None:
                exe = self._executors[key] = self._bind(ctx, arrays, ())
        for name in self._args:
            exe.arg_dict[name].handle.copy_from(arrays[name].handle)
        for name in self._aux:
            exe.aux_dict[name].handle.copy_from(arrays[name].handle)
        exe.forward(is_train=train)
        outs = [NDArray(o.handle.copy()) for o in exe.outputs]
        if train:  # auxiliary states (BatchNorm's running statistics) are updated, as MXNet's
            for name in self._aux:
                arrays[name].handle.copy_from(exe.aux_dict[name].handle)
        if tracked:
            inputs = [arrays[n] for n in tracked]

            def backward(ograds):
                exe.backward(ograds)
                return [exe.grad_dict[n] for n in tracked]

            outs = autograd._record_function(inputs, outs, backward)
        if out is not None:
            targets = [out] if isinstance(out, NDArray) else list(out)
            if len(targets) != len(outs):
                raise ValueError("CachedOp: out holds %d arrays for %d outputs" % (len(targets), len(outs)))
            for target, value in zip(targets, outs):
                target[:] = value
            return out
        return outs[0] if len(outs) == 1 else outs
