"""mx.sym.contrib: the operators registered as _contrib_<name>, under <name> (filled in by
symbol.op from the operator registry)."""
