"""Random seeding: symnet.random.seed(n) makes Dropout masks and parameter initialization
repeatable (like MXNet's mx.random.seed)."""
import numpy as np

from . import _core

_host = {"rng": np.random.RandomState(0)}


def seed(seed_state, ctx="all"):
    """Restarts every random stream from `seed_state` (an int)."""
    seed_state = int(seed_state) & 0xFFFFFFFFFFFFFFFF
    _core.random_seed(seed_state)
    _host["rng"] = np.random.RandomState(seed_state % (2 ** 32))


def host_rng():
    """The numpy generator initializers draw from (reset by seed())."""
    return _host["rng"]


# mx.random.uniform, normal, ...: the NDArray sampling functions (as MXNet's mx.random)
from .ndarray.random import (exponential, gamma, generalized_negative_binomial,  # noqa: E402,F401
                              multinomial, negative_binomial, normal, poisson, randint, randn,
                              shuffle, uniform)
