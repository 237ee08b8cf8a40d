"""Trainer: a bound symbol plus an optimizer, one call per training step.

    trainer = symnet.trainer.Trainer(net, {"data": (32, 64)}, optimizer="sgd",
                                     optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    trainer.init_params(symnet.init.Xavier())
    trainer.step(data=x, softmax_label=y)

With symnet.amp.init_trainer(trainer) the steps use dynamic loss scaling: loss heads scale
their gradients by the current scale; one multi_all_finite checks all gradients; an overflow
skips the whole update (weights, master weights and optimizer state untouched) and halves the
scale; otherwise the update uses rescale_grad = 1/(batch_size * scale).
"""
import numpy as np

from . import initializer as initializer_mod
from . import optimizer as opt
from .context import current_context


class Trainer:
    def __init__(self, symbol, data_shapes, label_names=("softmax_label",), optimizer="sgd",
                 optimizer_params=None, ctx=None, type_dict=None, fixed_param_names=()):
        self.data_names = [k for k in data_shapes]
        inputs = set(self.data_names) | set(label_names)
        self.param_names = [n for n in symbol.list_arguments()
                            if n not in inputs and n not in set(fixed_param_names)]
        self.executor = symbol.simple_bind(ctx or current_context(),
                                           grad_req={n: "write" for n in self.param_names},
                                           type_dict=type_dict, **data_shapes)
        params = dict(optimizer_params or {})
        self._base_rescale = params.pop("rescale_grad", 1.0)
        self.optimizer = opt.create(optimizer, rescale_grad=self._base_rescale,
                                    param_idx2name=dict(enumerate(self.param_names)), **params)
        self._states = {}
        self._amp_loss_scaler = None
        self.num_skipped = 0

    @property
    def loss_scale(self):
        return self._amp_loss_scaler.loss_scale if self._amp_loss_scaler else 1.0

    def init_params(self, initializer=None, arg_params=None, aux_params=None, seed=None):
        """Fills parameters with an initializer (default: He-normal weights, MXNet's suffix rules
        for the rest) and copies any given arg/aux params over them."""
        init = initializer_mod.create(initializer or initializer_mod.Xavier("gaussian", "in", 2))
        if seed is not None:
            init.set_rng(np.random.RandomState(seed))
        attrs = self.executor.symbol.attr_dict()
        for n in self.param_names:
            init(initializer_mod.InitDesc(n, attrs.get(n, {})), self.executor.arg_dict[n])
        for n, a in self.executor.aux_dict.items():
            init(initializer_mod.InitDesc(n, attrs.get(n, {})), a)
        self.executor.copy_params_from(arg_params or {}, aux_params or {}, allow_extra_params=True)

    def forward_backward(self, **inputs):
        """Forward (training) and backward; the loss scale, if any, is applied by the loss heads."""
        self.executor.handle.set_loss_scale(self.loss_scale)
        self.executor.forward(is_train=True, **inputs)
        self.executor.backward()
        return self.executor.outputs

    def update(self, batch_size):
        """Updates every parameter; returns False (and changes nothing) on gradient overflow."""
        grads = [self.executor.grad_dict[n] for n in self.param_names]
        scaler = self._amp_loss_scaler
        if scaler is not None:
            scale = scaler.check_step(grads)
            if scale == 0.0:
                self.num_skipped += 1
                return False
        else:
            scale = 1.0
        self.optimizer.rescale_grad = self._base_rescale / (batch_size * scale)
        weights = [self.executor.arg_dict[n] for n in self.param_names]
        for i, w in enumerate(weights):
            if i not in self._states:
                self._states[i] = self.optimizer.create_state(i, w)
        indices = list(range(len(weights)))
        states = [self._states[i] for i in indices]
        if hasattr(self.optimizer, "update_multi"):
            self.optimizer.update_multi(indices, weights, grads, states)
        else:
            for i, w, g, s in zip(indices, weights, grads, states):
                self.optimizer.update(i, w, g, s)
        return True

    def step(self, batch_size=None, **inputs):
        """forward_backward then update; returns whether the weights were updated."""
        if batch_size is None:
            batch_size = self.executor.arg_dict[self.data_names[0]].shape[0]
        self.forward_backward(**inputs)
        return self.update(batch_size)

    def optimizer_states(self):
        return self._states
