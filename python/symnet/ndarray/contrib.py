"""mx.nd.contrib: the operators registered as _contrib_<name>, under <name> (filled in by
ndarray.op from the operator registry)."""
