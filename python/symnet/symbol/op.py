"""mx.sym.op: one function per registered operator, each making a graph node (MXNet generates
the same module from its operator registry). The package mx.sym re-exports them."""
from .._op_gen import populate as _populate
from . import _internal, contrib, image, linalg, sparse

_populate("symbol", globals(), vars(_internal),
          {"contrib": vars(contrib), "image": vars(image), "linalg": vars(linalg), "sparse": vars(sparse)})
