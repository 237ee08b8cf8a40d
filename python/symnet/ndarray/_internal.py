"""mx.nd._internal: the operators whose names start with an underscore (_plus_scalar, _zeros,
_adamw_update, ...), filled in by ndarray.op from the operator registry."""
