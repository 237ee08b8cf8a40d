"""mx.gluon.contrib.data: MXNet 1.9.1's contributed Gluon data pieces: IntervalSampler and the
WikiText language-modelling datasets (in .text)."""
from . import text
from .sampler import *  # noqa: F403 -- MXNet re-exports the sampler module's __all__ here
from .sampler import IntervalSampler  # noqa: F401 -- named for readers and linters
