"""mx.gluon: MXNet 1.x's Gluon API on symnet's graph core."""
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import loss
from . import utils
from .trainer import Trainer

__all__ = ["Block", "Constant", "DeferredInitializationError", "HybridBlock", "Parameter",
           "ParameterDict", "SymbolBlock", "Trainer", "loss", "nn", "utils"]
