"""gluon.Trainer: applies an optimizer to a set of Parameters (MXNet's gluon.Trainer)."""
from collections.abc import MutableMapping

import numpy as np

from .. import _state_files
from .. import kvstore as kvs
from .. import ndarray as nd
from .. import optimizer as opt
from .parameter import Parameter, ParameterDict


class Trainer:
    """Updates parameters from their gradients: step(batch_size) = allreduce_grads() (sum over
    contexts) + update(batch_size). With mx.amp.init_trainer, a step whose gradients overflow
    is skipped (weights and optimizer state untouched) and the loss scale adapts."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = list(params.values())
        if not isinstance(params, (list, tuple)):
            raise ValueError("Trainer: params must be a ParameterDict, a dict or a list of "
                             "Parameters, not %s" % type(params).__name__)
        self._params = []
        seen = set()
        for p in params:
            if not isinstance(p, Parameter):
                raise ValueError("Trainer: %r is not a Parameter" % (p,))
            if id(p) not in seen:
                seen.add(id(p))
                self._params.append(p)
        kv = kvs.create(kvstore) if kvstore is not None else None
        # a distributed store: gradients are summed over the ranks at each step and the weights
        # start as rank 0's (broadcast now, or at the first step for deferred parameters)
        self._kv = kv if getattr(kv, "is_distributed", False) else None
        # MXNet's attributes, set by _init_kvstore at the first step: the store the gradients go
        # through (None for one context and no distributed job) and whether it runs the
        # optimizer (symnet's Trainer always updates here: False, or None without a store)
        self._created_kv = kv
        self._kvstore_arg, self._update_on_kvstore_arg = kvstore, update_on_kvstore
        self._kvstore = None
        self._update_on_kvstore = None
        self._kv_initialized = False
        self._params_synced = False
        self._local_fresh = self._any_fresh = None
        self._scale = 1.0
        optimizer_params = dict(optimizer_params or {})
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise ValueError("optimizer_params must be empty when optimizer is an instance")
            self._optimizer = optimizer
        else:
            self._optimizer = opt.create(optimizer, **optimizer_params)
        self._scale = self._optimizer.rescale_grad
        # as MXNet: each index's lr_mult / wd_mult is its Parameter's current one (no name rule)
        self._optimizer.param_dict = {i: p for i, p in enumerate(self._params)}
        self._states = {}
        self._amp_loss_scaler = None
        self._amp_original_scale = self._scale
        self.num_skipped = 0
        if self._kv is not None and all(p._data is not None for p in self._params):
            self._broadcast_params()

    def _init_kvstore(self):
        """Picks the store as MXNet's Trainer does: the one given (an object), else the named
        one when the parameters live on several contexts or in a distributed job. A store that
        cannot run optimizers (is_capable) refuses update_on_kvstore=True with ValueError."""
        ctxs = []
        for p in self._params:
            for c in (p.list_ctx() if p._data is not None else []):
                if c not in ctxs:
                    ctxs.append(c)
        kv = self._created_kv
        if kv is not None and not isinstance(self._kvstore_arg, kvs.KVStoreBase):
            if len(ctxs) <= 1 and self._kv is None:
                kv = None
        if kv is not None and self._update_on_kvstore_arg and not kv.is_capable(kvs.KVStoreBase.OPTIMIZER):
            raise ValueError("Please set update_on_kvstore=False when training with %s" % type(kv).__name__)
        self._kvstore = kv
        self._update_on_kvstore = None if kv is None else False
        self._kv_initialized = True

    @property
    def _updaters(self):
        """MXNet's per-context updaters: element c has .optimizer and .states, index -> state of
        the c-th context's copy (a live view of the Trainer's states)."""
        n = max((len(p.list_ctx()) for p in self._params if p._data is not None), default=1)
        return [_ContextUpdater(self, c) for c in range(n)]

    def _broadcast_params(self):
        for p in self._params:
            data = p.list_data()
            self._kv._from_root(data[:1])
            for d in data[1:]:
                data[0].copyto(d)
        self._params_synced = True

    @property
    def learning_rate(self):
        o = self._optimizer
        return o.lr_scheduler(o.num_update) if o.lr_scheduler else o.lr

    @property
    def optimizer(self):
        return self._optimizer

    def set_learning_rate(self, lr):
        self._optimizer.set_learning_rate(lr)

    @property
    def loss_scale(self):
        """The dynamic loss scale with AMP (1.0 without)."""
        return 1.0 if self._amp_loss_scaler is None else self._amp_loss_scaler.loss_scale

    def _trained(self):
        return [(i, p) for i, p in enumerate(self._params) if p.grad_req != "null"]

    def allreduce_grads(self):
        """Sums each parameter's gradients over its contexts and gives every context the sum
        (through the store's pushpull when a store of another kind than symnet's was given)."""
        if not self._kv_initialized:
            self._init_kvstore()
        custom = self._kvstore is not None and not isinstance(self._kvstore, kvs.KVStore)
        for i, p in self._trained():
            grads = p.list_grad()
            if custom:
                self._kvstore.pushpull(i, grads, priority=-i)
            elif len(grads) > 1:
                total = nd.add_n(*[g.as_in_context(grads[0].context) for g in grads])
                for g in grads:
                    total.copyto(g)
        if self._kv is not None:
            self._sum_over_ranks()

    def _sum_over_ranks(self):
        """Gradients summed over the ranks. A gradient that backward did not write on a rank (a
        branch that rank did not take) adds nothing there, and a parameter is updated on every
        rank when any rank wrote its gradient, so that the ranks' weights stay the same."""
        if not self._params_synced:
            self._broadcast_params()
        trained = self._trained()
        self._local_fresh = {(i, ctx): p._fresh_grad(ctx) for i, p in trained for ctx in p.list_ctx()}
        written = []
        for i, p in trained:
            written.append(all(self._local_fresh[(i, ctx)] for ctx in p.list_ctx()))
            if not written[-1]:
                for g in p.list_grad():
                    g[:] = 0
        mask = nd.array(np.array(written, dtype=np.float64), dtype="float64")
        self._kv._sum_over_workers([g for _, p in trained for g in p.list_grad()] + [mask])
        self._any_fresh = {i: m > 0 for (i, _), m in zip(trained, mask.asnumpy())}

    def step(self, batch_size, ignore_stale_grad=False):
        """allreduce_grads() then update(batch_size): gradients are divided by batch_size."""
        self.allreduce_grads()
        return self.update(batch_size, ignore_stale_grad)

    def update(self, batch_size, ignore_stale_grad=False):
        """Applies the optimizer; returns False when AMP found an overflow and skipped it."""
        if not self._kv_initialized:
            self._init_kvstore()
        trained = self._trained()
        fresh = {}
        local, any_rank = self._local_fresh, self._any_fresh  # set when summed over ranks
        self._local_fresh = self._any_fresh = None
        for i, p in trained:
            for ctx in p.list_ctx():
                fresh[(i, ctx)] = local[(i, ctx)] if local is not None else p._fresh_grad(ctx)
                if not fresh[(i, ctx)] and not ignore_stale_grad:
                    raise UserWarning(
                        "Gradient of Parameter '%s' on context %s has not been updated by "
                        "backward since the last step. This could mean a bug in your model that "
                        "made it only use a subset of the Parameters (Blocks) for this "
                        "iteration. If you are intentionally only using a subset, call step "
                        "with ignore_stale_grad=True to suppress this warning and skip updating "
                        "of Parameters with stale gradient" % (p.name, ctx))
        if any_rank is not None:  # one decision on every rank
            fresh = {(i, ctx): any_rank[i] for i, p in trained for ctx in p.list_ctx()}
        if self._amp_loss_scaler is not None:
            grads = [g for _, p in trained for g in p.list_grad()]
            if self._amp_loss_scaler.check_step(grads) == 0.0:
                self.num_skipped += 1
                return False
        # gradients summed over the ranks are divided by the global batch
        workers = self._kv.num_workers if self._kv is not None else 1
        self._optimizer.rescale_grad = self._scale / (batch_size * workers)
        opt = self._optimizer
        updates = []
        for c in range(max((len(p.list_ctx()) for _, p in trained), default=0)):
            indices, weights, grads, states = [], [], [], []
            for i, p in trained:
                ctxs = p.list_ctx()
                if c >= len(ctxs) or not fresh[(i, ctxs[c])] and ignore_stale_grad:
                    continue
                w, g = p.list_data()[c], p.list_grad()[c]
                if (i, c) not in self._states:
                    self._states[(i, c)] = self._optimizer.create_state(i, w)
                indices.append(i)
                weights.append(w)
                grads.append(g)
                states.append(self._states[(i, c)])
            if not indices:
                continue
            if hasattr(opt, "update_multi"):
                updates.append(lambda a=(indices, weights, grads, states): opt.update_multi(*a))
            else:
                updates.append(lambda a=(indices, weights, grads, states):
                               [opt.update(*u) for u in zip(*a)])
        # every context applies the same step; the counters advance once
        opt.same_step_on_devices(updates)
        return True

    # ---- optimizer state files ----------------------------------------------------------------
    def save_states(self, fname):
        """Writes the optimizer state in symnet's own format: an MXNet .params file of the state
        arrays plus a JSON header (no pickle: loading it runs no code). In a distributed job
        only rank 0 writes (every rank holds the same state)."""
        if self._kv is not None and self._kv.rank != 0:
            return
        scaler = None if self._amp_loss_scaler is None else self._amp_loss_scaler.state_dict()
        _state_files.save(fname, "symnet-trainer-states-1",
                          {"%d/%d" % ic: st for ic, st in self._states.items()}, self._optimizer,
                          {"loss_scaler": scaler})

    def load_states(self, fname):
        def place(ic, arr):
            return arr.as_in_context(self._params[ic[0]].list_ctx()[ic[1]])

        self._states, meta = _state_files.load(fname, "symnet-trainer-states-1", "Trainer", self._optimizer,
                                               lambda key: tuple(int(v) for v in key.split("/")), place)
        if meta.get("loss_scaler") and self._amp_loss_scaler is not None:
            self._amp_loss_scaler.load_state_dict(meta["loss_scaler"])


class _ContextUpdater:
    """One context's view of a Trainer's optimizer states, shaped as MXNet's Updater."""

    def __init__(self, trainer, ctx_index):
        self._trainer, self._c = trainer, ctx_index

    @property
    def optimizer(self):
        return self._trainer._optimizer

    @property
    def states(self):
        return _StatesView(self._trainer._states, self._c)


class _StatesView(MutableMapping):
    """index -> state of one context, read from and written to the Trainer's {(index,
    context index): state}."""

    def __init__(self, states, ctx_index):
        self._states, self._c = states, ctx_index

    def __getitem__(self, i):
        return self._states[(i, self._c)]

    def __setitem__(self, i, value):
        self._states[(i, self._c)] = value

    def __delitem__(self, i):
        del self._states[(i, self._c)]

    def __iter__(self):
        return iter([i for (i, c) in list(self._states) if c == self._c])

    def __len__(self):
        return sum(1 for (_, c) in self._states if c == self._c)
