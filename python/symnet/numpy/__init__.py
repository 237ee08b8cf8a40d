"""mx.np (mx.numpy): MXNet's NumPy-compatible array interface (mx.np.ndarray, mx.np.array,
mx.np.dot, ...), which symnet does not implement yet. The module exists so that `from mxnet
import np` and `import mxnet.numpy as _mx_np` work in code that only uses mx.np in some places;
reading any name from it raises AttributeError saying that the interface is missing, so only the
code that needs it fails."""


def __getattr__(name):
    # called only for names the module does not have; dunders get Python's usual error, as
    # Python and tools probe optional ones (__wrapped__, __all__, ...)
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    raise AttributeError("mx.np.%s: symnet does not implement MXNet's NumPy interface yet" % name)
