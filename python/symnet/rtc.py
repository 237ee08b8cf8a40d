"""mx.rtc (CUDA runtime compilation of user kernels). symnet does not compile CUDA source at run
time, on any device: creating a CudaModule raises MXNetError as MXNet 1.9.1 built without
USE_CUDA/ENABLE_CUDA_RTC does, naming what to use instead (NDArray operators or a
mx.operator.CustomOp)."""
from .base import MXNetError, numeric_types, string_types  # noqa: F401  (MXNet's rtc exports them)

_MESSAGE = ("mx.rtc: symnet has no CUDA runtime compilation (MXNet needs USE_CUDA=1 and "
            "ENABLE_CUDA_RTC=1 for it): write the kernel's computation with NDArray operators, or "
            "as a Python operator (subclass mx.operator.CustomOp and CustomOpProp, register it, "
            "and call mx.nd.Custom / mx.sym.Custom)")


class CudaModule(object):
    """MXNet's compiled CUDA module: unavailable in symnet (raises MXNetError)."""

    def __init__(self, source, options=(), exports=()):
        raise MXNetError(_MESSAGE)

    def get_kernel(self, name, signature):
        raise MXNetError(_MESSAGE)


class CudaKernel(object):
    """A kernel of a CudaModule: unavailable in symnet (raises MXNetError)."""

    def __init__(self, handle, name, is_ndarray, dtypes):
        raise MXNetError(_MESSAGE)

    def launch(self, args, ctx, grid_dims, block_dims, shared_mem=0):
        raise MXNetError(_MESSAGE)
