"""mx.gluon.contrib: MXNet's contributed Gluon layers and data pieces."""
from . import nn
from . import rnn
from . import estimator
from . import data

__all__ = ["nn", "rnn", "estimator", "data"]
