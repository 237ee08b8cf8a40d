"""mx.gluon.data: datasets, samplers, the DataLoader and vision datasets and transforms."""
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
from .dataloader import *  # noqa: F401,F403
from . import batchify, dataloader, dataset, sampler  # noqa: F401
from . import vision  # noqa: F401
