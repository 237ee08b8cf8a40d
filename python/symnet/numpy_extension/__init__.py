"""mx.npx (mx.numpy_extension): MXNet's extensions of its NumPy interface, which symnet does not
implement yet. The module exists so that `from mxnet import npx` works in code that only uses
mx.npx in some places. It holds what MXNet's npx takes from elsewhere and symnet has: the
switches set_np / reset_np / is_np_array / is_np_shape (set_np raises, since it turns the
missing interface on; reset_np works), get_cuda_compute_capability, waitall and the context
helpers (cpu, gpu, num_gpus, current_context, ...). Any other name (npx.relu, npx.softmax, ...:
operators on mx.np arrays) raises AttributeError saying that the interface is missing, so only
the code that needs it fails."""
from ..context import Context, cpu, cpu_pinned, current_context, gpu, gpu_memory_info, num_gpus  # noqa: F401
from ..ndarray import waitall  # noqa: F401
from ..util import get_cuda_compute_capability, is_np_array, is_np_shape, reset_np, set_np  # noqa: F401


def __getattr__(name):
    # called only for names the module does not have; dunders get Python's usual error
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    raise AttributeError("mx.npx.%s: symnet does not implement MXNet's NumPy interface yet" % name)
