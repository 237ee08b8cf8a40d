"""mx.gluon: MXNet 1.x's Gluon API on symnet's graph core."""
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import contrib
from . import loss
from . import utils
from . import data
from . import model_zoo
from . import rnn
from .trainer import Trainer

__all__ = ["Block", "Constant", "DeferredInitializationError", "HybridBlock", "Parameter",
           "ParameterDict", "SymbolBlock", "Trainer", "contrib", "data", "loss", "model_zoo", "nn", "rnn",
           "utils"]
