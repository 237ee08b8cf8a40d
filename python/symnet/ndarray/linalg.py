"""mx.nd.linalg: the linear-algebra operators registered as _linalg_<name>, under <name>
(filled in by ndarray.op from the operator registry)."""
