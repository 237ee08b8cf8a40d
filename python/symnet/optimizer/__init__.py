"""Optimizer API (MXNet 1.9.1's mx.optimizer package): the optimizers, create, Updater and
get_updater in optimizer.py; GroupAdaGrad in contrib.py (mx.optimizer.contrib)."""
from . import contrib, optimizer
from .optimizer import *  # noqa: F401,F403
from .optimizer import _flat_state, _is_low_precision, _nest_state  # noqa: F401 (symnet's own importers)

__all__ = optimizer.__all__ + ["contrib"]
