"""mx.nd.op: one function per registered operator, run at once (MXNet generates the same module
from its operator registry). The package mx.nd re-exports them."""
from .._op_gen import populate as _populate
from . import _internal, contrib, image, linalg, sparse

_populate("ndarray", globals(), vars(_internal),
          {"contrib": vars(contrib), "image": vars(image), "linalg": vars(linalg), "sparse": vars(sparse)})
