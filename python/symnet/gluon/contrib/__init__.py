"""mx.gluon.contrib: MXNet's contributed Gluon layers."""
from . import nn
from . import rnn
from . import estimator

__all__ = ["nn", "rnn", "estimator"]
