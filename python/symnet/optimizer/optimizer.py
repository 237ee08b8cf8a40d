"""MXNet 1.9.1's mx.optimizer.optimizer: optimizers that update weights with fused update ops
(sgd_update, sgd_mom_update, ...), create, Updater and get_updater.

SGD, NAG and Adam come first; then, under MXNet 1.9.1's names, with its constructor
arguments, defaults and numbers: RMSProp (and centered), AdaGrad, AdaDelta, Ftrl, Signum,
SignSGD, LAMB, LARS, SGLD, FTML, Adamax, Nadam, DCASGD, Test, ccSGD, and AdamW (MXNet 2.0's
optimizer over 1.9.1's contrib.adamw_update op).

With multi_precision, a 16-bit weight gets a float32 master copy at the end of its state. LAMB,
AdamW and LARS use their mp_ update ops; the others update the master copy with the float32
gradient and round it into the weight, as MXNet's generic multi-precision wrapper does.

Optimizer.register files each class under its lower-case name (create('rmsprop'), ...).
mx.nd.contrib.adamw_update and mp_adamw_update take a number for rescale_grad, as in MXNet
(see _contrib_adamw)."""
# The base, its registry and shared helpers live in _base.py, the classes in _sgd_family.py and
# _adaptive.py (they import _base, not this module, so there is no import cycle); this module
# re-exports them all under MXNet's mx.optimizer.optimizer names.
from .. import ndarray as nd
from ._adaptive import (  # noqa: F401 (re-exported)
    FTML, LAMB, AdaDelta, AdaGrad, Adam, Adamax, AdamW, Ftrl, Nadam, RMSProp, _ADAMW_PARAMS, _contrib_adamw)
from ._base import (  # noqa: F401 (re-exported)
    _LOW_PRECISION, Optimizer, _clip_kwargs, _flat_state, _is_low_precision, _MasterCopy, _nest_state, _rescaled,
    _zeros, register)
from ._sgd_family import NAG, SGD, DCASGD, LARS, SGLD, Signum, SignSGD, Test, ccSGD  # noqa: F401 (re-exported)

# last: _lbsgd imports Optimizer from this module, bound above
from ._lbsgd import LBSGD  # noqa: E402 I001

# The moved classes keep saying they come from this module, as before the split (register's
# override warning and reprs name the module)
for _cls in (Optimizer, _MasterCopy, SGD, NAG, Adam, RMSProp, AdaGrad, AdaDelta, Ftrl, Signum, SignSGD, LAMB,
             AdamW, LARS, SGLD, FTML, Adamax, Nadam, DCASGD, Test, ccSGD):
    _cls.__module__ = __name__
del _cls

#: MXNet's name for mx.nd.abs in this module
NDabs = nd.abs


def create(name, **kwargs):
    """An optimizer by name: create('sgd', learning_rate=0.1, momentum=0.9)."""
    if isinstance(name, Optimizer):
        return name
    return Optimizer.create_optimizer(name, **kwargs)


class Updater:
    """Applies an optimizer to (index, grad, weight) triples, keeping per-index state."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}

    def __call__(self, index, grad, weight):
        """One update, or one per element when index, grad and weight are lists (MXNet's
        aggregated call); states are made and updates run by the *_multi_precision methods, as
        MXNet's Updater does, so float16 weights get their master copies."""
        if isinstance(index, (list, tuple)):
            for i, g, w in zip(index, grad, weight):
                self(i, g, w)
            return
        if index not in self.states:
            self.states[index] = self.optimizer.create_state_multi_precision(index, weight)
        self.optimizer.update_multi_precision(index, weight, grad, self.states[index])

    def sync_state_context(self, state, context):
        """state (an array, or nested tuples and lists of them) copied to context."""
        if isinstance(state, nd.NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state


def get_updater(optimizer):
    return Updater(optimizer)

__all__ = ["Optimizer", "SGD", "NAG", "Adam", "AdamW", "RMSProp", "AdaGrad", "AdaDelta", "LAMB",
           "LARS", "Ftrl", "Signum", "SignSGD", "SGLD", "FTML", "Adamax", "Nadam", "DCASGD", "Test", "ccSGD",
           "create", "Updater", "get_updater", "register", "LBSGD", "NDabs"]
