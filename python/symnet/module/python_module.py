"""PythonModule: a module computed in Python (no parameters, no executor), for the parts of a
SequentialModule that are easier to write by hand; PythonLossModule: a loss whose gradient a
Python function gives (grad_func(scores, labels)).
"""
import logging

from .. import ndarray as nd
from ..initializer import Uniform
from .base_module import BaseModule


class PythonModule(BaseModule):
    """Base of modules written in Python: it has names and shapes but no parameters, so
    init_params, init_optimizer and update do nothing. A subclass gives
    _compute_output_shapes, forward, backward, get_outputs and get_input_grads."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = list(data_names) if isinstance(data_names, tuple) else data_names
        self._label_names = list(label_names) if isinstance(label_names, tuple) else label_names
        self._output_names = output_names
        self._data_shapes = self._label_shapes = self._output_shapes = None

    @property
    def data_names(self):
        return self._data_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        return self._output_shapes

    def get_params(self):
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Nothing to initialise; the module counts as initialised (a chain checks it)."""
        self.params_initialized = True

    def update(self):
        """No parameters: nothing to update."""

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError("PythonModule does not support presliced labels")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        assert grad_req == "write", "Python module only support write gradient"
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        names = [d[0] for d in data_shapes]
        if names != list(self._data_names):
            raise ValueError("PythonModule: data shapes for %s, the module's data names are %s"
                             % (names, self._data_names))
        if label_shapes is not None:
            assert self._label_names is not None, "labels given to a module without label names"
            if [d[0] for d in label_shapes] != list(self._label_names):
                raise ValueError("PythonModule: label shapes for %s, the module's label names are %s"
                                 % ([d[0] for d in label_shapes], self._label_names))
        self._data_shapes, self._label_shapes = data_shapes, label_shapes
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """[(output name, shape)] from self._data_shapes and self._label_shapes."""
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """No parameters: no optimizer."""
        self.optimizer_initialized = True


class PythonLossModule(PythonModule):
    """A loss: its output is its input (the scores), its input gradient grad_func(scores,
    labels) (an NDArray or anything nd.array takes)."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",), logger=logging,
                 grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        assert len(data_names) == 1 and len(label_names) == 1, "a loss module takes one data and one label"
        assert grad_func is None or callable(grad_func), "grad_func must be callable"
        self._grad_func = grad_func
        self._scores = self._labels = self._scores_grad = None

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        assert merge_multi_context, "a loss module has one context"
        return [self._scores]

    def backward(self, out_grads=None):
        assert out_grads is None, "For a loss module, out_grads should be None"
        assert self.for_training, "bind with for_training=True to run backward"
        self._backward_impl()

    def _backward_impl(self):
        """Sets the scores' gradient; a subclass without grad_func overrides this."""
        if self._grad_func is None:
            raise NotImplementedError("give grad_func or override _backward_impl")
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context=True):
        assert merge_multi_context, "a loss module has one context"
        return [self._scores_grad]

    def install_monitor(self, mon):
        raise NotImplementedError("a Python module has no executor to monitor")
