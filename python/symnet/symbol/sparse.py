"""mx.sym.sparse: the operators registered as _sparse_<name>, under <name> (filled in by
symbol.op from the operator registry; symnet has no sparse storage yet, so there are none)."""
