"""Random seeding: symnet.random.seed(n) makes Dropout masks (and later initializers) repeatable."""
from . import _core


def seed(seed_state, ctx="all"):
    """Restarts every random stream from `seed_state` (an int)."""
    _core.random_seed(int(seed_state) & 0xFFFFFFFFFFFFFFFF)
