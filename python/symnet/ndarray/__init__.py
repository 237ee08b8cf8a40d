"""mx.nd: symnet's NDArray and one function per registered operator, run at once, laid out as
MXNet 1.9.1's package: ndarray.ndarray (the class), op (the generated functions), _internal,
contrib, linalg, image, sparse, random and utils."""
from . import ndarray, _internal, contrib, image, linalg, sparse, op, random, utils
from .op import *  # the public operator functions
from .ndarray import *  # the class and creation functions win over same-named ops
from .ndarray import _invoke, _STORAGE_TYPE_STR_TO_ID
from ._cached_op import CachedOp
from .._fluent import add_fluent_methods as _add_fluent_methods

# the underscore operators stay reachable as mx.nd._<name> as well, as scripts call them
globals().update({_k: _v for _k, _v in vars(_internal).items() if _k.startswith("_") and not _k.startswith("__")})

_add_fluent_methods(NDArray, vars(op))
