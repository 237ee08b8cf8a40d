"""mx.sym._internal: the operators whose names start with an underscore, filled in by symbol.op
from the operator registry."""
