"""mx.gluon.data.vision: image datasets and transforms."""
from .datasets import *  # noqa: F401,F403
from . import datasets, transforms  # noqa: F401
