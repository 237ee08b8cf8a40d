"""Makes `import mxnet` load symnet.

MXNet's image-classification scripts start with `from common import find_mxnet` (this module)
and then `import mxnet as mx`, in the training scripts and in common/data.py and common/fit.py
alike; with this module first, those files run on symnet unchanged. Set
SYMNET_EXAMPLE_USE_MXNET=1 to run them on an installed MXNet instead (to compare the two).
"""
import os
import sys

if os.environ.get("SYMNET_EXAMPLE_USE_MXNET") == "1":
    import mxnet as mx  # noqa: F401
else:
    import symnet as mx  # noqa: F401

    # `import mxnet.io`, `from mxnet.io import DataIter`, ...: every symnet module under its
    # MXNet name (an MXNet already imported keeps its own)
    for _name, _module in list(sys.modules.items()):
        if _name == "symnet" or _name.startswith("symnet."):
            sys.modules.setdefault("mxnet" + _name[len("symnet"):], _module)
