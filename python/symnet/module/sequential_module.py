"""SequentialModule: modules chained one after another, each one's outputs the next one's data.

add(module, take_labels=True) gives that module the batch's labels (the loss at the end, or a
module with a metric of its own); add(module, auto_wiring=True) renames the previous module's
outputs to this module's data names when they are bound. Backward runs from the last module to
the first, each module's input gradients being the head gradients of the module before it, so
every module after the first is bound with inputs_need_grad when training.
"""
import copy
import logging

from ..initializer import Uniform
from .base_module import BaseModule


class SequentialModule(BaseModule):
    """See the module docstring."""

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {SequentialModule.META_TAKE_LABELS, SequentialModule.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Appends a module (take_labels=..., auto_wiring=...); returns self, to chain adds.
        Adding unbinds the chain: bind and initialise it again."""
        for key in kwargs:
            if key not in self._meta_keys:
                raise ValueError('Unknown meta "%s" (known: %s), a typo?' % (key, ", ".join(sorted(self._meta_keys))))
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = self.params_initialized = self.optimizer_initialized = False
        return self

    def _takes_labels(self, i):
        return bool(self._metas[i].get(SequentialModule.META_TAKE_LABELS, False))

    # ---- properties -------------------------------------------------------------------------
    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        assert self.binded
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        assert self.binded
        return self._label_shapes

    @property
    def output_shapes(self):
        assert self.binded
        return self._modules[-1].output_shapes

    # ---- parameters -------------------------------------------------------------------------
    def get_params(self):
        """Every module's parameters in one pair of dicts."""
        assert self.binded and self.params_initialized
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialises every module; two modules with a parameter of one name are an error (the
        chain's parameters are saved and loaded in one dict)."""
        if self.params_initialized and not force_init:
            return
        assert self.binded, "call bind before initializing the parameters"
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                               allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        owners = ({}, {})
        for i, module in enumerate(self._modules):
            for names, seen in zip(module.get_params(), owners):
                for name in names:
                    if name in seen:
                        raise ValueError('Duplicated parameter names: name "%s" in layer %d (%s) is already used in '
                                         "layer %d (%s)." % (name, i, type(module).__name__, seen[name],
                                                             type(self._modules[seen[name]]).__name__))
                    seen[name] = i
        self.params_initialized = True

    # ---- binding ----------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad:
            assert for_training, "inputs_need_grad needs for_training"
        assert shared_module is None, "Shared module is not supported"
        assert self._modules, "Attempting to bind an empty SequentialModule"
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._label_shapes = label_shapes
        shapes = data_shapes
        any_labels = False
        for i, module in enumerate(self._modules):
            labels = label_shapes if self._takes_labels(i) else None
            any_labels = any_labels or self._takes_labels(i)
            if self._metas[i].get(SequentialModule.META_AUTO_WIRING, False):
                names = module.data_names
                assert len(names) == len(shapes), "auto_wiring: %d outputs for %d data names" % (len(shapes),
                                                                                                 len(names))
                shapes = [(name, shape) for name, (_, shape) in zip(names, shapes)]
            module.bind(data_shapes=shapes, label_shapes=labels, for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and i > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        if not any_labels:
            self._label_shapes = None
        self.binded = True

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        assert self.binded and self.params_initialized
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                                  force_init=force_init)
        self.optimizer_initialized = True

    # ---- computation ------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        assert self.binded and self.params_initialized
        batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            batch.data = module.get_outputs()
            if hasattr(batch, "provide_data"):
                names = [name for name, _ in module.output_shapes]
                batch.provide_data = [(name, x.shape) for name, x in zip(names, batch.data)]

    def backward(self, out_grads=None):
        assert self.binded and self.params_initialized
        for i in range(len(self._modules) - 1, -1, -1):
            self._modules[i].backward(out_grads=out_grads)
            if i > 0:
                out_grads = self._modules[i].get_input_grads()

    def update(self):
        """Every module's update; False when one of them skipped its update."""
        assert self.binded and self.params_initialized and self.optimizer_initialized
        results = [module.update() for module in self._modules]
        return all(r is not False for r in results)

    def get_outputs(self, merge_multi_context=True):
        assert self.binded and self.params_initialized
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        assert self.binded and self.params_initialized and self.inputs_need_grad
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """The metric over the outputs of each module that takes the labels."""
        assert self.binded and self.params_initialized
        for i, module in enumerate(self._modules):
            if self._takes_labels(i):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        assert self.binded
        for module in self._modules:
            module.install_monitor(mon)
