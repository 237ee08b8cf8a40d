"""BucketingModule: one Module per bucket key (sequence length, ...) over shared parameters.

sym_gen(bucket_key) returns (symbol, data_names, label_names). The default bucket's module is
bound first and holds the parameters; every other bucket's module is bound on the default
bucket's parameter, gradient and auxiliary arrays (Module.bind(shared_module=...)), and uses
its optimizer and optimizer states, so that training any bucket trains the one set of weights.
The default bucket must therefore have every parameter (in MXNet, the largest bucket).

Each call of sym_gen runs under a fresh NameManager, so unnamed operators get the same names
(embedding0, ...) in every bucket.
"""
import logging

import numpy as np

from .. import model as model_mod
from .. import ndarray as nd
from .. import symbol as sym_mod
from ..context import cpu
from ..initializer import Uniform
from ..io import DataDesc
from ..name import NameManager
from .base_module import BaseModule, _check_input_names
from .module import Module


class BucketingModule(BaseModule):
    """See the module docstring. The other arguments are Module's, given to every bucket."""

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None, work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        assert default_bucket_key is not None, "BucketingModule needs a default_bucket_key"
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._fixed_param_names = list(fixed_param_names or [])
        self._state_names = list(state_names or [])
        _check_input_names(symbol, list(data_names or []), "data", True)
        _check_input_names(symbol, list(label_names or []), "label", False)
        _check_input_names(symbol, self._state_names, "state", True)
        _check_input_names(symbol, self._fixed_param_names, "fixed_param", True)
        self._compression_params = compression_params
        self._context = context if context is not None else cpu()
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _call_sym_gen(self, *args, **kwargs):
        with NameManager():
            return self._sym_gen(*args, **kwargs)

    def _new_module(self, symbol, data_names, label_names):
        return Module(symbol, data_names, label_names, logger=self.logger, context=self._context,
                      work_load_list=self._work_load_list, fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    # ---- properties -------------------------------------------------------------------------
    @property
    def data_names(self):
        if self.binded:
            return self._curr_module.data_names
        return self._call_sym_gen(self._default_bucket_key)[1]

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        assert self.binded
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        assert self.binded
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        assert self.binded
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        assert self.binded
        return self._curr_module.symbol

    # ---- parameters -------------------------------------------------------------------------
    def get_params(self):
        assert self.params_initialized
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            self.logger.warning("Parameters already initialized and force_init=False. set_params call ignored.")
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing, force_init=force_init,
                                     allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        assert self.binded, "call bind before initializing the parameters"
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                      allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        assert self.binded and self.params_initialized
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        assert self.binded and self.params_initialized
        self._curr_module.set_states(states, value)

    # ---- binding and buckets ----------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Binds the default bucket's module for these shapes (the largest bucket's)."""
        arg_params = aux_params = None
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        assert shared_module is None, "shared_module for BucketingModule is not supported"
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        module = self._buckets.get(self._default_bucket_key)
        if module is None:
            symbol, data_names, label_names = self._call_sym_gen(self._default_bucket_key)
            module = self._new_module(symbol, data_names, label_names)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind=False,
                    shared_module=None, grad_req=grad_req)
        self.binded = True
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if arg_params is not None:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Makes bucket_key's module the current one, binding it (on the default bucket's
        parameters) the first time."""
        assert self.binded, "call bind before switching bucket"
        module = self._buckets.get(bucket_key)
        if module is None:
            symbol, data_names, label_names = self._call_sym_gen(bucket_key)
            module = self._new_module(symbol, data_names, label_names)
            self._buckets[bucket_key] = module
        if not module.binded:
            if data_shapes is None:
                raise ValueError("bucket %r is not bound yet: switch_bucket needs its data shapes" % (bucket_key,))
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key], grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
        self._curr_module = module
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """The default bucket's module makes the optimizer (it has every parameter, so its
        parameter indices cover every bucket); the others use it and its states."""
        assert self.binded and self.params_initialized
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        lender = self._buckets[self._default_bucket_key]
        lender.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        for module in self._buckets.values():
            if module is not lender and module.binded:
                module.borrow_optimizer(lender)
        self.optimizer_initialized = True

    # ---- computation ------------------------------------------------------------------------
    def _batch_key_and_shapes(self, data_batch):
        """(bucket key, data shapes, label shapes) of a batch: its own, or the default key and
        the arrays' shapes under the current module's names where the batch has none."""
        key = getattr(data_batch, "bucket_key", None)
        key = self._default_bucket_key if key is None else key
        data_shapes = getattr(data_batch, "provide_data", None)
        label_shapes = getattr(data_batch, "provide_label", None)
        if data_shapes is None:
            data_shapes = [DataDesc(n, a.shape) for n, a in zip(self._curr_module.data_names, data_batch.data)]
        if label_shapes is None and getattr(data_batch, "label", None) and self._curr_module.label_names:
            label_shapes = [DataDesc(n, a.shape) for n, a in zip(self._curr_module.label_names, data_batch.label)]
        return key, data_shapes, label_shapes

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Binds the batch's bucket ahead of its forward; the current bucket stays current."""
        assert self.binded and self.params_initialized
        original = self._curr_bucket_key
        self.switch_bucket(*self._batch_key_and_shapes(data_batch))
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        assert self.binded and self.params_initialized
        self.switch_bucket(*self._batch_key_and_shapes(data_batch))
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        assert self.binded and self.params_initialized
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        """The current bucket's update (of the shared parameters); False when it was skipped."""
        assert self.binded and self.params_initialized and self.optimizer_initialized
        self._params_dirty = True
        return self._curr_module.update()

    # fit's hooks: the buckets' modules share one optimizer, store and loss scaler
    @property
    def _rank0(self):
        return self._curr_module._rank0 if self._curr_module is not None else True

    def _fit_started(self):
        for module in self._buckets.values():
            module._fit_started()

    def _after_update(self, applied, epoch, nbatch, max_nonfinite_batches):
        self._curr_module._after_update(applied, epoch, nbatch, max_nonfinite_batches)

    def _global_metric_values(self, eval_metric, local=None):
        return self._curr_module._global_metric_values(eval_metric, local)

    def get_outputs(self, merge_multi_context=True):
        assert self.binded and self.params_initialized
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        assert self.binded and self.params_initialized and self.inputs_need_grad
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        assert self.binded and self.params_initialized
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        assert self.binded
        self._monitor = mon
        for module in self._buckets.values():
            if module.binded:
                module.install_monitor(mon)

    # ---- checkpoints ------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """prefix-%04d.params (the shared parameters), prefix-<key>-symbol.json per bucket and
        prefix.buckets (the bucket keys, int32), as MXNet writes them."""
        assert self._buckets, "Empty BucketingModule cannot be saved"
        self.save_params("%s-%04d.params" % (prefix, epoch))
        for key, module in self._buckets.items():
            module.symbol.save("%s-%s-symbol.json" % (prefix, key), remove_amp_cast=remove_amp_cast)
        nd.save("%s.buckets" % prefix, nd.array(list(self._buckets.keys()), dtype=np.int32))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule of the buckets save_checkpoint wrote, with their parameters (bound
        when bind is called; kwargs go to the BucketingModule and every bucket's Module)."""
        assert sym_gen is not None, "sym_gen is required for loading BucketingModule"
        assert default_bucket_key is not None, "default_bucket_key is required for loading BucketingModule"
        keys = nd.load("%s.buckets" % prefix)
        keys = keys[0] if isinstance(keys, list) else list(keys.values())[0]
        symbols = {}
        for key in keys.asnumpy().astype(np.int32).tolist():
            symbols[key] = sym_mod.load("%s-%s-symbol.json" % (prefix, key))
        arg_params, aux_params = model_mod.load_params(prefix, epoch)
        return BucketingModule.load_dict(symbols, sym_gen, default_bucket_key, arg_params, aux_params, **kwargs)

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None, aux_params=None,
                  **kwargs):
        """A BucketingModule of the given {bucket key: symbol} and parameters."""
        assert sym_dict is not None, "sym_dict needs to be provided for BucketingModule.load_dict"
        assert arg_params is not None, "arg_params need to be provided for BucketingModule.load_dict"
        assert aux_params is not None, "aux_params need to be provided for BucketingModule.load_dict"
        assert default_bucket_key is not None, "default_bucket_key needs to be provided for load_dict"
        assert default_bucket_key in sym_dict, "the default bucket %r has no symbol" % (default_bucket_key,)
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for key, symbol in sym_dict.items():
            _, data_names, label_names = mod._call_sym_gen(key)
            mod._buckets[key] = Module(symbol, data_names, label_names, **kwargs)
        mod._curr_module = mod._buckets[default_bucket_key]
        mod._curr_bucket_key = default_bucket_key
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod
