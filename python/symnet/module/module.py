"""Module: MXNet's high-level training interface over a bound symbol (bind, init_params,
init_optimizer, forward/backward/update, fit, score, predict, checkpoints).

With a list of contexts the Module trains data-parallel in one process, as MXNet's: each device
binds a slice of the batch, gradients are summed across devices (NCCL on GPUs) and every device
applies the same update to its own copy of the weights.

With symnet.amp.init(...) the bound graph is the mixed-precision one; symnet.amp.init_trainer
(module) adds dynamic loss scaling (the scale shows in the logs and is saved with the
optimizer states).

The devices' executors are a DataParallelExecutorGroup (mod._exec_group); the loops (fit,
score, predict) are BaseModule's.
"""
import logging
import time

import numpy as np

from .. import _core
from .. import initializer as init_mod
from .. import model as model_mod
from .. import ndarray as nd
from .. import optimizer as opt_mod
from ..base import MXNetError
from ..context import current_context
from ..io import DataDesc
from ..kvstore import global_metric_values
from .base_module import BaseModule, _check_input_names, _parse_data_desc
from .executor_group import DataParallelExecutorGroup
from .updater import ModuleUpdater


def _copy_state(state, ctx):
    """An optimizer state (None, an NDArray or a tuple/list of them) copied to `ctx`."""
    if state is None:
        return None
    if isinstance(state, (list, tuple)):
        return type(state)(_copy_state(s, ctx) for s in state)
    return state.copyto(ctx)


def _check_param_shape(name, given, bound):
    """A given parameter must have the bound one's shape (numpy would broadcast some, or fail
    without naming the parameter)."""
    if tuple(np.shape(given)) != tuple(bound.shape):
        raise MXNetError("parameter '%s' has shape %s, but the network needs %s (parameters of "
                         "another model, or another input shape?)"
                         % (name, tuple(np.shape(given)), tuple(bound.shape)))


def _descs(shapes):
    out = []
    for s in shapes or []:
        out.append(s if isinstance(s, DataDesc) else DataDesc(s[0], s[1]))
    return out


class Module(BaseModule):
    """A symbol bound on one or more devices (see the module docstring). state_names: inputs
    that are neither data nor labels nor parameters (recurrent states: set_states, get_states).
    work_load_list: each device's relative share of a batch. group2ctxs: MXNet's ctx_group
    placement; checked and kept, but a symnet executor runs all its ops on its own device."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), context=None,
                 work_load_list=None, fixed_param_names=None, logger=logging, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        contexts = list(context) if isinstance(context, (list, tuple)) else [context or current_context()]
        if not contexts:
            raise ValueError("Module needs at least one context")
        if len(set(contexts)) != len(contexts):
            raise ValueError("each context may appear once; got %r" % (contexts,))
        if len({c.device_type for c in contexts}) > 1:
            raise ValueError("data-parallel training needs devices of one type; got %r" % (contexts,))
        self._symbol = symbol
        self._contexts = contexts
        self._context = contexts[0]
        self._work_load_list = list(work_load_list) if work_load_list is not None else [1] * len(contexts)
        if len(self._work_load_list) != len(contexts):
            raise ValueError("work_load_list: %d entries for %d contexts" % (len(self._work_load_list), len(contexts)))
        self._group2ctxs = group2ctxs
        args = symbol.list_arguments()
        self._data_names = list(data_names or [])
        self._label_names = [n for n in (label_names or []) if n in args]
        self._state_names = list(state_names or [])
        _check_input_names(symbol, self._data_names, "data", True)
        _check_input_names(symbol, self._state_names, "state", True)
        _check_input_names(symbol, list(fixed_param_names or []), "fixed_param", True)
        self._fixed = set(fixed_param_names or [])
        inputs = set(self._data_names) | set(self._label_names) | set(self._state_names)
        self._param_names = [n for n in args if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._exec_group = None
        self._data_shapes = self._label_shapes = None
        self._grad_req = None
        self._opt_index = None  # {parameter name: optimizer index}, a lender's when borrowed
        self._arg_params = self._aux_params = None
        self._optimizer = None
        self._states = {}
        self._dev_states = {}
        self._amp_loss_scaler = None
        self._preload_opt_states = None
        self._dist_kvstore = None  # a distributed store (dist_sync): gradients are summed over ranks
        # MXNet's: the store a module of several devices (or ranks) uses, its _updater the
        # module's (see ModuleUpdater); None on one device
        self._kvstore = None
        self._reducer = self._reducer_exec = None
        self._reduce_pending = False
        self.gradient_bucket_bytes = 25 << 20
        # False: the buckets are summed at update() instead of during backward (for measuring)
        self.overlap_gradient_reduction = True
        self.gradient_wait_seconds = 0.0  # time update() waited for the sums over the ranks
        self.num_skipped_updates = 0
        self.consecutive_nonfinite = 0  # non-finite gradients without AMP, in a row

    # ---- properties -------------------------------------------------------------------------
    @property
    def _execs(self):
        """The devices' executors (the executor group's)."""
        return self._exec_group.execs if self._exec_group is not None else []

    @property
    def _exec(self):
        """The first device's executor: its arrays are the module's parameters."""
        return self._exec_group.execs[0] if self._exec_group is not None else None

    @property
    def _updater(self):
        return ModuleUpdater(self)

    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._symbol.list_outputs()

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        assert self.binded
        return self._exec_group.get_output_shapes()

    @property
    def loss_scale(self):
        return self._amp_loss_scaler.loss_scale if self._amp_loss_scaler else None

    @property
    def optimizer(self):
        return self._optimizer

    # ---- binding and parameters ---------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write", bind_options=None):
        """MXNet's Module.bind; bind_options (symnet's) is passed to every device's bind as its
        options (layout, cuda_graphs, workspace_mb, fuse). With shared_module (a bound,
        initialised Module: BucketingModule's default bucket) this module's executors work on
        its parameter, gradient and auxiliary arrays, and it uses its optimizer."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        data_descs, label_descs = _parse_data_desc(self._data_names, self._label_names, data_shapes, label_shapes)
        # labels of names the symbol does not take (an iterator's softmax_label for a graph
        # without one) are not bound
        label_descs = [d for d in label_descs or [] if d.name in self._label_names]
        shared_group = None
        if shared_module is not None:
            assert isinstance(shared_module, Module) and shared_module.binded and \
                shared_module.params_initialized, "shared_module must be a bound and initialised Module"
            shared_group = shared_module._exec_group
        group = DataParallelExecutorGroup(
            self._symbol, self._contexts, self._work_load_list, data_descs, label_descs or None, self._param_names,
            for_training, inputs_need_grad, shared_group=shared_group, logger=self.logger,
            fixed_param_names=sorted(self._fixed), grad_req=grad_req, state_names=self._state_names,
            group2ctxs=self._group2ctxs, bind_options=bind_options)
        if shared_module is not None:
            self._check_shared(shared_module, group)
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._grad_req, self._bind_options = grad_req, bind_options
        self._data_shapes, self._label_shapes = data_descs, label_descs
        self._exec_group = group
        self._total_exec_bytes = group._total_exec_bytes
        self.binded = True
        self._install_monitor_on_execs()
        if shared_module is not None:  # the parameters are the shared module's arrays
            self.params_initialized = True
            self._sync_params_from_exec()
            if shared_module.optimizer_initialized:
                self.borrow_optimizer(shared_module)
        elif self.params_initialized:  # rebinding keeps the parameters
            group.set_params(self._arg_params, self._aux_params)

    def _check_shared(self, shared_module, group):
        """Every parameter must be one of the shared module's arrays: a bucket cannot train a
        parameter the default bucket lacks."""
        lender = shared_module._exec
        own = group.execs[0]
        missing = [n for n in self._param_names if n not in lender.arg_dict
                   or tuple(lender.arg_dict[n].shape) != tuple(own.arg_dict[n].shape)]
        missing += [n for n in self._aux_names if n not in lender.aux_dict
                    or tuple(lender.aux_dict[n].shape) != tuple(own.aux_dict[n].shape)]
        if missing:
            raise MXNetError("Module.bind(shared_module=...): parameters %s are not the shared module's (absent "
                             "there, or of another shape); the shared module (BucketingModule's default bucket) "
                             "must hold every parameter" % ", ".join(missing))

    def borrow_optimizer(self, shared_module):
        """Uses shared_module's optimizer, its states and update counts (their parameter
        indices are the shared module's), and its loss scaler."""
        assert shared_module.optimizer_initialized, "the shared module has no optimizer yet"
        index = shared_module._param_index()
        missing = [n for n in self._param_names if n not in index]
        if missing:
            raise MXNetError("borrow_optimizer: the lending module has no parameters %s" % ", ".join(missing))
        self._optimizer = shared_module._optimizer
        self._states, self._dev_states = shared_module._states, shared_module._dev_states
        self._opt_index = index
        self._base_rescale = shared_module._base_rescale
        self._amp_loss_scaler = shared_module._amp_loss_scaler
        self._kvstore, self._dist_kvstore = shared_module._kvstore, shared_module._dist_kvstore
        self.optimizer_initialized = True

    def _param_index(self):
        """{parameter name: the optimizer's index of it}."""
        if self._opt_index is not None:
            return self._opt_index
        return {n: i for i, n in enumerate(self._param_names)}

    def install_monitor(self, mon):
        """Installs an mx.monitor.Monitor on every device's executor (and on those of later
        binds and reshapes)."""
        assert self.binded, "call bind before install_monitor"
        self._monitor = mon
        self._install_monitor_on_execs()

    def _install_monitor_on_execs(self):
        mon = getattr(self, "_monitor", None)
        if mon is None:
            return
        mon.exes = [e for e in mon.exes if e not in getattr(self, "_monitored", ())]
        self._exec_group.install_monitor(mon)
        self._monitored = list(self._execs)

    def reshape(self, data_shapes, label_shapes=None):
        """MXNet's Module.reshape: binds again for other input shapes (another batch size),
        keeping the parameters (the new executors work on the same arrays) and the optimizer
        state. If the new shapes do not fit the network (a weight of another shape), the error
        names the node and the module stays bound as it was."""
        assert self.binded, "call bind before reshape"
        data_descs, label_descs = _descs(data_shapes), _descs(label_shapes)
        if label_shapes is None and self._label_shapes:  # labels follow the data's batch size
            batch = data_descs[0].shape[0]
            label_descs = [DataDesc(d.name, (batch,) + tuple(d.shape[1:]), d.dtype) for d in self._label_shapes]
        if self.params_initialized:
            self._sync_params_from_exec()
        group = self._exec_group.reshaped(data_descs, label_descs or None)
        if self.params_initialized:
            for n, old in list(self._arg_params.items()) + list(self._aux_params.items()):
                new = group.execs[0].arg_dict.get(n, group.execs[0].aux_dict.get(n))
                if new is not None and tuple(new.shape) != tuple(old.shape):
                    raise MXNetError(
                        "Module: inputs of shapes %s need parameter '%s' of shape %s, but the "
                        "module's is %s (it was bound for %s); the module stays bound as it was"
                        % ([d.shape for d in data_descs], n, tuple(new.shape), tuple(old.shape),
                           [d.shape for d in self._data_shapes]))
            group.set_params(self._arg_params, self._aux_params)
        self._data_shapes, self._label_shapes = data_descs, label_descs
        self._exec_group = group
        self._total_exec_bytes = group._total_exec_bytes
        self._install_monitor_on_execs()
        if self.params_initialized:
            self._sync_params_from_exec()

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False, seed=None):
        if self.params_initialized and not force_init:
            self.logger.warning("Parameters already initialized and force_init=False")
            return
        assert self.binded, "call bind before init_params"
        initializer = init_mod.create(initializer or init_mod.Uniform(0.01))
        if seed is not None:
            initializer.set_rng(np.random.RandomState(seed))
        attrs = self._symbol.attr_dict()
        for names, given, target in ((self._param_names, arg_params, self._exec.arg_dict),
                                     (self._aux_names, aux_params, self._exec.aux_dict)):
            for n in names:
                if given is not None and n in given:
                    _check_param_shape(n, given[n], target[n])
                    target[n][:] = given[n]
                elif given is not None and not allow_missing:
                    raise RuntimeError("%s is not presented" % n)
                else:
                    initializer(init_mod.InitDesc(n, attrs.get(n, {})), target[n])
        if not allow_extra:
            extra = [k for k in (arg_params or {}) if k not in self._param_names] + \
                    [k for k in (aux_params or {}) if k not in self._aux_names]
            if extra:
                raise ValueError("unknown parameters: %s (use allow_extra=True)" % ", ".join(extra))
        for e in self._execs[1:]:  # every device starts from the same values
            e.copy_params_from({n: self._exec.arg_dict[n] for n in self._param_names},
                               {n: self._exec.aux_dict[n] for n in self._aux_names})
        self._sync_params_from_exec()
        self.params_initialized = True

    def _sync_params_from_exec(self):
        """Parameters are the first device's (all devices hold the same weights); auxiliary
        states (BatchNorm statistics, computed per device) are averaged over the devices."""
        self._arg_params = {n: self._exec.arg_dict[n] for n in self._param_names}
        if len(self._execs) <= 1:
            self._aux_params = {n: self._exec.aux_dict[n] for n in self._aux_names}
            return
        self._aux_params = {n: nd.array(np.mean([e.aux_dict[n].asnumpy() for e in self._execs], axis=0),
                                        dtype=self._exec.aux_dict[n].dtype) for n in self._aux_names}

    def get_params(self):
        """Copies of (arg_params, aux_params); those of a loaded module before its bind too."""
        assert self.params_initialized
        if self.binded:
            self._sync_params_from_exec()
        return ({k: v.copy() for k, v in self._arg_params.items()},
                {k: v.copy() for k, v in self._aux_params.items()})

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        self.init_params(None, arg_params, aux_params, allow_missing, force_init, allow_extra)

    # ---- optimizer ------------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        assert self.binded and self.params_initialized
        from .. import kvstore as kvs
        kv = kvs.create(kvstore)
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring")
            return
        # a distributed store of one rank (the script run without mpirun) has nothing to sum
        self._dist_kvstore = kv if kv.is_distributed and kv.num_workers > 1 else None
        self._kvstore = kv if (len(self._contexts) > 1 or self._dist_kvstore is not None) else None
        if self._kvstore is not None and getattr(self._kvstore, "_updater", None) is None:
            self._kvstore._updater = self._updater
        params = dict(optimizer_params)
        if "rescale_grad" not in params:  # gradients are summed over the ranks: the global batch
            params["rescale_grad"] = 1.0 / (self._data_shapes[0].shape[0] * kv.num_workers)
        if self._dist_kvstore is not None:  # every rank starts from rank 0's parameters
            self._broadcast_params()
        self._opt_index = None
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            # as MXNet: the symbol's lr_mult / wd_mult variable attributes set the multipliers
            optimizer = opt_mod.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **params)
        elif not optimizer.idx2name:  # an Optimizer object made without parameter names
            optimizer.idx2name = idx2name
        self._optimizer = optimizer
        self._base_rescale = optimizer.rescale_grad
        if self._amp_loss_scaler is not None:
            optimizer.multi_precision = True
        self._states = {}
        self._dev_states = {}
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _broadcast_params(self):
        names = [(self._exec.arg_dict, n) for n in self._param_names] + \
                [(self._exec.aux_dict, n) for n in self._aux_names]
        _core.dist.broadcast([d[n].handle for d, n in names], 0)
        for e in self._execs[1:]:
            e.copy_params_from({n: self._exec.arg_dict[n] for n in self._param_names},
                               {n: self._exec.aux_dict[n] for n in self._aux_names})
        self._sync_params_from_exec()

    @property
    def _rank0(self):
        return self._dist_kvstore is None or self._dist_kvstore.rank == 0

    def _overlapped_reducer(self):
        """With a distributed store, one device and every gradient written (not added): the
        reducer that sums gradient buckets over the ranks while backward runs (made again after
        a rebind; its construction is collective)."""
        if self._dist_kvstore is None or len(self._execs) != 1:
            return None
        e = self._exec
        if self._reducer is not None and self._reducer_exec is e:
            return self._reducer
        train = [n for n in self._param_names if n not in self._fixed and e.grad_dict.get(n) is not None]
        if not isinstance(self._grad_req, str) or self._grad_req != "write":
            return None
        args = self._symbol.list_arguments()
        slot = {n: i for i, n in enumerate(train)}
        arg_to_grad = [slot.get(n, -1) for n in args]
        ready = [arg_to_grad[a] for a in _core.executor_gradient_ready_order(e.handle) if arg_to_grad[a] >= 0]
        self._reducer = _core.dist.GradientReducer([e.grad_dict[n].handle for n in train], ready,
                                                   int(self.gradient_bucket_bytes))
        if self.overlap_gradient_reduction:
            self._reducer.attach(e.handle, [i if i >= 0 else 2 ** 64 - 1 for i in arg_to_grad])
        self._reducer_exec = e
        return self._reducer

    def _sum_gradients_over_ranks(self, train):
        """Every rank ends with the gradient sums over all ranks (after the devices' sum)."""
        if self._dist_kvstore is None:
            return
        if not self._reduce_pending:  # summed already (update() again without a backward)
            return
        start = time.perf_counter()
        reducer = self._reducer if self._reducer_exec is self._exec else None
        if reducer is not None:
            reducer.wait()
        else:  # the devices hold the same sums: the first device's go over the ranks
            _core.dist.allreduce_sum([self._exec.grad_dict[n].handle for n in train])
            for e in self._execs[1:]:
                for n in train:
                    self._exec.grad_dict[n].copyto(e.grad_dict[n])
        self._reduce_pending = False
        self.gradient_wait_seconds += time.perf_counter() - start

    # ---- computation ----------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        assert self.binded and self.params_initialized
        is_train = self.for_training if is_train is None else is_train
        if not isinstance(data_batch, list):  # a list holds each device's slice already
            self._reshape_for(data_batch)
        # labels are loaded in inference forwards too (score() of a graph whose loss reads
        # them must see this batch's labels), whenever the module was bound with label shapes
        self._exec_group.forward(data_batch, is_train)

    def _reshape_for(self, data_batch):
        """As MXNet's Module.forward: a batch of other shapes than the bound ones (a smaller last
        batch, another image size) binds the module again for them (reshape)."""
        data = list(data_batch.data)
        if len(data) != len(self._data_names):
            raise MXNetError("Module.forward: the batch has %d data arrays, the module takes %d (%s)"
                             % (len(data), len(self._data_names), ", ".join(self._data_names)))
        new_data = [tuple(a.shape) for a in data]
        labels = list(getattr(data_batch, "label", None) or []) if self._label_names else []
        new_label = [tuple(a.shape) for a in labels] if len(labels) == len(self._label_shapes) else None
        if new_data == [d.shape for d in self._data_shapes] and \
                (new_label is None or new_label == [d.shape for d in self._label_shapes]):
            return
        data_descs = [DataDesc(d.name, s, d.dtype) for d, s in zip(self._data_shapes, new_data)]
        label_descs = None
        if new_label is not None:
            label_descs = [DataDesc(d.name, s, d.dtype) for d, s in zip(self._label_shapes, new_label)]
        self.logger.info("Module: binding again for the batch's shapes %s (bound for %s)",
                         new_data, [d.shape for d in self._data_shapes])
        self.reshape(data_descs, label_descs)

    def backward(self, out_grads=None):
        """Gradients on every device; out_grads (one per output, of the whole batch) are cut
        into the devices' slices along the outputs' batch axes."""
        assert self.binded and self.params_initialized
        reducer = self._overlapped_reducer()
        if reducer is not None and self._reduce_pending:
            reducer.wait()  # a backward without update before: finish its sums first
        self._reduce_pending = self._dist_kvstore is not None
        for e in self._execs:
            e.handle.set_loss_scale(self._amp_loss_scaler.loss_scale if self._amp_loss_scaler else 1.0)
        self._exec_group.backward(out_grads)

    def update(self):
        """Applies the optimizer; returns False when the update was skipped. With a loss scaler:
        on inf/nan gradients the update is skipped entirely and the scale halves. Without one,
        inf/nan gradients (a NaN/Inf loss: bad data, a too high learning rate) skip the update
        too, so that the weights and optimizer state stay finite; fit() counts such batches."""
        assert self.optimizer_initialized
        # trained: the parameters with gradients (not fixed, grad_req not 'null')
        train = [n for n in self._param_names if n not in self._fixed and n in self._exec.grad_dict]
        grads = [self._exec.grad_dict[n] for n in train]
        if len(self._execs) > 1:  # sum the gradients over the devices (NCCL on GPUs)
            _core.allreduce_sum([[e.grad_dict[n].handle for n in train] for e in self._execs])
        self._sum_gradients_over_ranks(train)
        scale = 1.0
        if self._amp_loss_scaler is not None:
            scale = self._amp_loss_scaler.check_step(grads)
            if scale == 0.0:
                self.num_skipped_updates += 1
                return False
        elif _core.LossScaler.has_overflow([g.handle for g in grads if g is not None]):
            self.num_skipped_updates += 1
            self.consecutive_nonfinite += 1
            return False
        self.consecutive_nonfinite = 0
        self._optimizer.rescale_grad = self._base_rescale / scale
        index = self._param_index()
        indices = [index[n] for n in train]
        opt = self._optimizer
        # states first: a device's state starts as a copy of the first device's before any update
        states = [[self._state(d, i, e.arg_dict[n]) for i, n in zip(indices, train)]
                  for d, e in enumerate(self._execs)]

        def device_update(d, e):
            weights = [e.arg_dict[n] for n in train]
            grads = [e.grad_dict[n] for n in train]
            if hasattr(opt, "update_multi"):
                return lambda: opt.update_multi(indices, weights, grads, states[d])
            return lambda: [opt.update(i, w, g, s)
                            for i, w, g, s in zip(indices, weights, grads, states[d])]

        opt.same_step_on_devices([device_update(d, e) for d, e in enumerate(self._execs)])
        return True

    def _checked_state(self, fname, index, parts, is_tuple):
        """The optimizer state to keep for a loaded entry. A .states file of another model or
        optimizer is an error here, naming the file and the parameter, not a shape error inside
        the first update; a state the optimizer no longer keeps (momentum turned off since) is
        dropped with a warning, one it keeps but the file lacks starts fresh."""
        if not 0 <= index < len(self._param_names):
            raise MXNetError("optimizer states '%s': state for parameter index %d, but the network has "
                             "%d parameters (a file of another model?)" % (fname, index, len(self._param_names)))
        name = self._param_names[index]
        weight = self._exec.arg_dict[name]
        saved = [p for p in parts if p is not None]
        for p in saved:
            if p.shape != weight.shape:
                raise MXNetError("optimizer states '%s': the state of parameter '%s' has shape %s, the "
                                 "network's weight needs %s (a file of another model?)"
                                 % (fname, name, p.shape, weight.shape))
        template = self._optimizer.create_state(index, weight)
        # (a nested state, MXNet's (master, (mean, var)), is checked and saved flattened)
        fresh = tuple(opt_mod._flat_state(template)) if isinstance(template, tuple) else template
        need = [w for w in (fresh if isinstance(fresh, tuple) else (fresh,)) if w is not None]
        if not need:
            if saved:
                self.logger.warning("optimizer states '%s': %s keeps no state for '%s'; the saved one is "
                                    "dropped", fname, type(self._optimizer).__name__, name)
            return template
        if not saved:
            return template
        if len(saved) != len(need):
            raise MXNetError("optimizer states '%s': parameter '%s' has %d saved state array(s), optimizer "
                             "%s needs %d (saved by another optimizer?)"
                             % (fname, name, len(saved), type(self._optimizer).__name__, len(need)))
        # found by the atheris target: a one-array state saved as a tuple passed, then broke the
        # first update inside the optimizer
        fresh_parts = len(fresh) if isinstance(fresh, tuple) else None
        saved_parts = len(parts) if is_tuple else None
        if fresh_parts != saved_parts:
            def form(n):
                return "one array" if n is None else "a tuple of %d" % n
            raise MXNetError("optimizer states '%s': the state of parameter '%s' is %s, optimizer %s keeps %s "
                             "(saved by another optimizer?)" % (fname, name, form(saved_parts),
                                                                type(self._optimizer).__name__, form(fresh_parts)))
        for p, f in zip(parts, fresh if fresh_parts is not None else (fresh,)):
            if p is not None and f is not None and p.dtype != f.dtype:  # also found by the fuzzer
                raise MXNetError("optimizer states '%s': the state of parameter '%s' has dtype %s, optimizer %s "
                                 "keeps %s" % (fname, name, np.dtype(p.dtype).name,
                                               type(self._optimizer).__name__, np.dtype(f.dtype).name))
        return opt_mod._nest_state(parts, template) if is_tuple else parts[0]

    def _state(self, device, index, weight):
        """Optimizer state of weight `index` on `device`; devices other than the first start as
        copies of the first device's state (which is what checkpoints save and load). The first
        device's state is asked for first (update's order)."""
        if index not in self._states:
            self._states[index] = self._optimizer.create_state(index, weight)
        if device == 0:
            return self._states[index]
        key = (device, index)
        if key not in self._dev_states:
            self._dev_states[key] = _copy_state(self._states[index], weight.context)
        return self._dev_states[key]

    def memory_report(self):
        """The bound executor's memory plan (arena, no-sharing and lower-bound bytes)."""
        assert self.binded, "bind first"
        return self._exec.memory_report()

    def get_outputs(self, merge_multi_context=True):
        """The outputs (joined over the devices along their batch axes, or per output a list of
        the devices' arrays)."""
        assert self.binded and self.params_initialized
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs, in data_names order (bind with inputs_need_grad)."""
        assert self.binded and self.params_initialized and self.inputs_need_grad
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        """The state inputs (state_names): per state the list of the devices' arrays."""
        assert self.binded and self.params_initialized
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        """Sets the state inputs from per-state lists of per-device arrays (get_outputs(
        merge_multi_context=False) of the states), or all of them to `value`."""
        assert self.binded and self.params_initialized
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """The metric over the whole batch's outputs (each device's, with pre_sliced labels)."""
        if pre_sliced:
            self._exec_group.update_metric(eval_metric, labels, pre_sliced=True)
            return
        eval_metric.update(labels, self.get_outputs())

    # ---- hooks of BaseModule.fit ---------------------------------------------------------------
    def _fit_started(self):
        self.consecutive_nonfinite = 0  # counted per fit call

    def _after_update(self, applied, epoch, nbatch, max_nonfinite_batches):
        if applied:
            return
        if self._amp_loss_scaler is None:
            self._report_nonfinite(epoch, nbatch, max_nonfinite_batches)
        else:  # AMP: an overflow skip, normal now and then; shown, not warned
            self.logger.info("Epoch[%d] Batch [%d]: gradients overflowed; update skipped, loss scale now %g",
                             epoch, nbatch, self.loss_scale)

    def _global_metric_values(self, eval_metric, local=None):
        if self._dist_kvstore is None:
            return super()._global_metric_values(eval_metric, local)
        # every rank trained or scored its part: the metric over all of them
        return global_metric_values(eval_metric, self._dist_kvstore)

    def _epoch_end_params(self):
        self._sync_params_from_exec()
        return self._arg_params, self._aux_params

    def _report_nonfinite(self, epoch, nbatch, limit):
        n = self.consecutive_nonfinite
        self.logger.warning("Epoch[%d] Batch [%d]: the loss or gradients are NaN/Inf; update skipped "
                            "(%d such batches in a row)", epoch, nbatch, n)
        if limit is not None and n >= limit:
            raise MXNetError(
                "training stopped at epoch %d, batch %d: %d batches in a row had NaN/Inf loss or "
                "gradients (max_nonfinite_batches=%d); the weights are those before the first of "
                "them. Check the data for NaN/Inf, the labels, and the learning rate"
                % (epoch, nbatch, n, limit))

    # ---- checkpoints ----------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """prefix-symbol.json, prefix-%04d.states (when asked) and last prefix-%04d.params, each
        replaced atomically; the .params file, written last, marks the set complete
        (mx.model.latest_checkpoint). With a distributed store only rank 0 writes (every rank
        holds the same parameters; BatchNorm statistics are rank 0's)."""
        self._sync_params_from_exec()
        if not self._rank0:
            return
        if save_optimizer_states:
            self.save_optimizer_states("%s-%04d.states" % (prefix, epoch))
        model_mod.save_checkpoint(prefix, epoch, self._symbol, self._arg_params, self._aux_params,
                                  remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        sym, args, auxs = model_mod.load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params, mod._aux_params = args, auxs
        mod.params_initialized = True  # bind() copies them into the executor
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_optimizer_states(self, fname):
        """Optimizer states, update counts and the loss scaler in one .params-format file (the
        C++ codec the C++ Trainer writes and reads too). With a distributed store only rank 0
        writes."""
        assert self.optimizer_initialized
        if not self._rank0:
            return
        states = {}
        for i, st in self._states.items():
            parts = opt_mod._flat_state(st) if isinstance(st, tuple) else (st,)
            states[int(i)] = ([a.handle if a is not None else None for a in parts], isinstance(st, tuple))
        scaler = self._amp_loss_scaler
        _core.save_optimizer_states(str(fname), int(self._optimizer.num_update),
                                    {int(k): int(v) for k, v in self._optimizer._index_update_count.items()},
                                    states, scaler._impl if scaler is not None else None)

    def load_optimizer_states(self, fname):
        assert self.optimizer_initialized
        loaded = _core.load_optimizer_states(str(fname))
        self._optimizer.num_update = loaded["num_update"]
        self._optimizer._index_update_count = dict(loaded["index_update_count"])
        # cleared in place: modules that borrowed this optimizer (other buckets) share the dicts
        self._states.clear()
        self._dev_states.clear()
        for i, (parts, is_tuple) in loaded["states"].items():
            parts = [nd.NDArray(h).as_in_context(self._context) if h is not None else None for h in parts]
            self._states[i] = self._checked_state(fname, i, parts, is_tuple)
        # a file of a model with fewer parameters fits the first ones: say which start afresh
        trained = [(i, n) for i, n in enumerate(self._param_names) if n not in self._fixed]
        missing = [n for i, n in trained if i not in loaded["states"]]
        if loaded["states"] and missing:
            self.logger.warning("optimizer states '%s': no saved state for %d of the %d trained parameters "
                                "(%s); they start with fresh optimizer state (a file of another model?)",
                                fname, len(missing), len(trained), ", ".join(missing))
        if loaded["loss_scaler"] is not None:
            from ..amp import LossScaler
            if self._amp_loss_scaler is None:
                self._amp_loss_scaler = LossScaler()
            self._amp_loss_scaler._impl = loaded["loss_scaler"]
            self._optimizer.multi_precision = True  # as amp.init_trainer set it when these were saved

