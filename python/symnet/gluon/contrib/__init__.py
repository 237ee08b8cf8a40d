"""mx.gluon.contrib: MXNet's contributed Gluon layers."""
from . import nn

__all__ = ["nn"]
