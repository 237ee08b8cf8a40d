"""Executor: a bound symbol. forward(), backward(), and the arrays by name."""
from .ndarray import NDArray, array


class Executor:
    """Returned by Symbol.simple_bind / Symbol.bind."""

    def __init__(self, handle, symbol, ctx):
        self.handle = handle
        self._symbol = symbol
        self._ctx = ctx
        self.arg_arrays = [NDArray(h) for h in handle.arg_arrays]
        self.grad_arrays = [None if h.is_none() else NDArray(h) for h in handle.grad_arrays]
        self.aux_arrays = [NDArray(h) for h in handle.aux_arrays]
        self.outputs = [NDArray(h) for h in handle.outputs]
        names = symbol.list_arguments()
        self.arg_dict = dict(zip(names, self.arg_arrays))
        self.grad_dict = {n: g for n, g in zip(names, self.grad_arrays) if g is not None}
        self.aux_dict = dict(zip(symbol.list_auxiliary_states(), self.aux_arrays))
        self.output_dict = dict(zip(symbol.list_outputs(), self.outputs))
        self._grad_req = dict(zip(names, handle.grad_reqs))

    @property
    def symbol(self):
        return self._symbol

    @property
    def options(self):
        """The bind options this executor was bound with (a dict; see Symbol.simple_bind)."""
        return self.handle.options

    def forward(self, is_train=False, **kwargs):
        """Copies keyword arrays into the arguments of those names, runs forward, returns outputs."""
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise ValueError("forward: '%s' is not an argument of the symbol; arguments: %s"
                                 % (name, ", ".join(self.arg_dict)))
            self.arg_dict[name][:] = value
        self.handle.forward(bool(is_train))
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Computes gradients into grad_arrays (written or added per grad_req). out_grads: one
        array per output (default: ones; loss outputs ignore it)."""
        if out_grads is None:
            heads = []
        else:
            if isinstance(out_grads, NDArray):
                out_grads = [out_grads]
            heads = [(g if isinstance(g, NDArray) else array(g)).handle for g in out_grads]
        self.handle.backward(heads)

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        for name, value in arg_params.items():
            if name in self.arg_dict:
                self.arg_dict[name][:] = value
            elif not allow_extra_params:
                raise ValueError("'%s' is not an argument of the bound symbol" % name)
        for name, value in (aux_params or {}).items():
            if name in self.aux_dict:
                self.aux_dict[name][:] = value
            elif not allow_extra_params:
                raise ValueError("'%s' is not an auxiliary state of the bound symbol" % name)

    def get_optimized_symbol(self):
        """The forward graph this executor runs, after the bind's rewrites (common
        subexpressions merged, fusions), as MXNet's."""
        from .symbol import Symbol
        return Symbol(self.handle.optimized_symbol())

    def memory_report(self):
        """Bytes of the memory plan: arena_bytes, no_sharing_bytes, lower_bound_bytes,
        num_inplace, external_bytes (arguments, gradients, auxiliary states)."""
        return self.handle.memory_report()

    def debug_str(self):
        """The bound graph, one line per op with its outputs' shapes and arena offsets, then the
        memory plan; it ends as MXNet's does with "Total <n> MB allocated", n being the arena
        this executor holds for its internal arrays, in whole MiB."""
        return "%s\nTotal %d MB allocated\n" % (self.handle.debug_str().rstrip("\n"),
                                                 self.memory_report()["arena_bytes"] >> 20)

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor of the same symbol for new input shapes (kwargs: name=shape), as
        MXNet 1.9.1's: an array whose shape does not change is shared; one that shrinks (or
        keeps its size) becomes a view of the start of the old one's memory; one that grows
        is allocated anew, which needs allow_up_sizing=True. An array not named in kwargs may
        change shape only with partial_shaping=True. The new executor reuses this one's
        internal memory (outputs included) when it fits, as MXNet's shared_exec."""
        from .base import MXNetError
        from .ndarray import empty
        sym = self._symbol
        arg_shapes, _, aux_shapes = sym.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError("Executor.reshape: cannot infer every shape from %s" % (kwargs,))

        def fit(name, old, shape):
            if old is None or old.shape == tuple(shape):
                return old
            if not partial_shaping and name not in kwargs:
                raise MXNetError("Shape of unspecified array %s changed. This can cause the new "
                                 "executor to not share parameters with the old one. Please check "
                                 "for error in network. If this is intended, set "
                                 "partial_shaping=True to suppress this warning." % name)
            size = 1
            for d in shape:
                size *= d
            if size > old.size:
                if not allow_up_sizing:
                    raise MXNetError("New shape of %s is larger than the original. First making a "
                                     "big executor and then down sizing it is more efficient than "
                                     "the reverse. If you really want to up size, set "
                                     "allow_up_sizing=True to enable allocation of new arrays."
                                     % name)
                return empty(tuple(shape), ctx=old.context, dtype=old.dtype)
            flat = old.handle.reshape((old.size,))
            return NDArray(flat.slice(0, size).reshape(tuple(shape)))

        names = sym.list_arguments()
        args = [fit(n, a, s) for n, a, s in zip(names, self.arg_arrays, arg_shapes)]
        grads = [fit(n, g, s) for n, g, s in zip(names, self.grad_arrays, arg_shapes)]
        aux = [fit(n, a, s) for n, a, s in zip(sym.list_auxiliary_states(), self.aux_arrays,
                                              aux_shapes)]
        return sym.bind(self._ctx, args, args_grad=grads, grad_req=dict(self._grad_req),
                        aux_states=aux, options=self.options, shared_exec=self)

    def set_monitor_callback(self, callback, monitor_all=False):
        """Calls callback(name, array) after every op of forward and backward, for each output
        (and with monitor_all each input); the array is valid only during the call. None
        removes the callback. mx.monitor.Monitor installs itself here."""
        if callback is None:
            self.handle.set_monitor_callback(None, False)
            return
        self.handle.set_monitor_callback(lambda name, h: callback(name, NDArray(h)), bool(monitor_all))

    def set_profiling(self, on=True):
        """Times every op call (summed per operator) from now on; see op_profile()."""
        self.handle.set_profiling(bool(on))

    def op_profile(self):
        """{operator name: (seconds, calls)} since set_profiling(True)."""
        return self.handle.op_profile()
