"""mx.sym: symnet's Symbol and one graph-building function per registered operator, laid out as
MXNet 1.9.1's package: symbol.symbol (the class), op (the generated functions), _internal,
contrib, linalg, image, sparse and random."""
from . import symbol, _internal, contrib, image, linalg, sparse, op, random
from .op import *  # the public operator functions
from .symbol import *  # the class and its constructors win over same-named ops
from .symbol import _compose
from .._fluent import add_fluent_methods as _add_fluent_methods

# the underscore operators stay reachable as mx.sym._<name> as well, as scripts call them
globals().update({_k: _v for _k, _v in vars(_internal).items() if _k.startswith("_") and not _k.startswith("__")})

_add_fluent_methods(Symbol, vars(op))
