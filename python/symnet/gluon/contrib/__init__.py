"""mx.gluon.contrib: MXNet's contributed Gluon layers."""
from . import nn
from . import rnn

__all__ = ["nn", "rnn"]
