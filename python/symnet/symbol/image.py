"""mx.sym.image: the image operators registered as _image_<name>, under <name> (filled in by
symbol.op from the operator registry)."""
