"""symnet: a symbolic-graph deep-learning framework with MXNet's symbol API and automatic
mixed precision. MXNet scripts run with `import symnet as mx` for the supported subset."""
try:
    from . import _core
except ImportError as _e:  # a system library the wheel does not carry: name it
    from ._native import explain as _explain
    raise _explain(_e) from None
from ._version import __version__, MXNET_API_VERSION
from .base import MXNetError
from .context import Context, cpu, cpu_pinned, current_context, gpu, gpu_memory_info, num_gpus
from . import base, context, name, attribute, engine, libinfo
from .attribute import AttrScope
from . import util
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape  # MXNet's top-level names
from .util import is_np_array, np_array, use_np_array, use_np
from . import runtime
from . import registry
from . import numpy
from . import numpy_extension
from . import numpy as np
from . import numpy_extension as npx
from . import ndarray
from . import ndarray as nd
from . import autograd
from . import symbol
from . import symbol as sym
from . import executor
from . import optimizer
from . import random
from . import models
from .contrib.amp import amp  # symnet.amp: the same module as mx.contrib.amp.amp
from . import trainer
from . import model
from . import fileio
from . import initializer
from . import initializer as init
from . import lr_scheduler
from . import metric
from . import io
from . import recordio
from . import image
from . import visualization
from . import visualization as viz  # mx.viz is mx.visualization, as in MXNet
from . import profiler
from . import monitor
from . import monitor as mon
from . import callback
from . import kvstore
from . import kvstore as kv
from . import contrib
from . import operator
from . import module
from . import module as mod
from . import test_utils
from . import gluon
from . import rnn
from . import rtc
from . import executor_manager  # MXNet's model.py imports it: an attribute of mx


def default_bind_options():
    """The bind options used where a bind gives none: layout ('auto' | 'NHWC' | 'off'),
    cuda_graphs, workspace_mb, fuse; from SYMNET_LAYOUT (or SYMNET_CHANNELS_LAST=0),
    SYMNET_CUDA_GRAPHS, SYMNET_CUDNN_WORKSPACE_MB and SYMNET_FUSE, read once."""
    return _core.default_bind_options()



def features():
    """Build features and versions: CUDA, CUDNN, DNNL, F16C, AVX512_BF16, ..."""
    return _core.features()


import sys as _sys  # noqa: E402

_sys.modules[__name__ + ".amp"] = amp  # `import symnet.amp` finds the same module
_sys.modules[__name__ + ".viz"] = visualization  # and `import symnet.viz` (symnet's earlier module name)
