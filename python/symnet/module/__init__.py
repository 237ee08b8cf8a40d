"""mx.mod: MXNet's Module API (bind, init_params, init_optimizer, fit, score, predict), laid out
as MXNet 1.9.1's package."""
from . import module
from .module import Module
