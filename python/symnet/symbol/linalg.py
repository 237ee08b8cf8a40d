"""mx.sym.linalg: the linear-algebra operators registered as _linalg_<name>, under <name>
(filled in by symbol.op from the operator registry)."""
