"""mx.nd.image: the image operators registered as _image_<name>, under <name> (filled in by
ndarray.op from the operator registry)."""
