"""Devices: symnet.cpu(), symnet.gpu(i), and the default-context scope."""
import threading
import warnings

from . import _core


class _ContextMeta(type):
    """Gives Context MXNet's deprecated class attribute default_ctx, readable and assignable on
    the class (Context.default_ctx = cpu(1)), per thread like the `with ctx:` scope."""

    @property
    def default_ctx(cls):
        warnings.warn("Context.default_ctx is deprecated (as in MXNet); use current_context()",
                      DeprecationWarning, stacklevel=2)
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, ctx):
        warnings.warn("Context.default_ctx is deprecated (as in MXNet); use `with ctx:` or "
                      "test_utils.set_default_context", DeprecationWarning, stacklevel=2)
        Context._default.value = ctx


class Context(metaclass=_ContextMeta):
    """A device, as MXNet's Context: device_type plus device_id. The types are MXNet's: 'cpu',
    'gpu', and MXNet's two kinds of host memory, 'cpu_pinned' (page-locked) and 'cpu_shared'
    (shared between processes). symnet allocates both as ordinary host memory: arrays there are
    CPU arrays whose context keeps the name."""

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}
    _default = threading.local()

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        if device_type not in self.devstr2type:
            raise ValueError("unknown device type %r; expected one of %s"
                             % (device_type, ", ".join(repr(t) for t in self.devstr2type)))
        self.device_type = device_type
        self.device_id = int(device_id)

    @property
    def device_typeid(self):
        return self.devstr2type[self.device_type]

    def _handle(self):
        return (self.device_typeid, self.device_id)

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    __str__ = __repr__

    # the contexts a `with` replaced, per thread: a stack rather than a field of the object, so
    # that one Context (from_handle's shared ones) may be entered twice, nested
    def __enter__(self):
        stack = Context._default.__dict__.setdefault("stack", [])
        stack.append(current_context())
        Context._default.value = self
        return self

    def __exit__(self, *exc):
        Context._default.value = Context._default.stack.pop()

    @property
    def default_ctx(self):
        """The thread's default context (MXNet's deprecated spelling, also on instances)."""
        return type(self).default_ctx

    _by_handle = {}

    @staticmethod
    def from_handle(handle):
        """The Context of a device handle (type id, device id). Arrays ask for theirs on every
        imperative layer call, so each device's Context is made once and shared."""
        ctx = Context._by_handle.get(handle)
        if ctx is None:
            ctx = Context._by_handle[handle] = Context(Context.devtype2str[handle[0]], handle[1])
        return ctx


def cpu(device_id=0):
    """The CPU context."""
    return Context("cpu", device_id)


def cpu_pinned(device_id=0):
    """MXNet's page-locked host memory context; symnet gives it ordinary host memory."""
    return Context("cpu_pinned", device_id)


def gpu(device_id=0):
    """GPU context `device_id`. Arrays on it need a CUDA build and a GPU (see num_gpus())."""
    return Context("gpu", device_id)


def num_gpus():
    """Number of GPUs symnet can use (0 without a CUDA build or a device)."""
    return _core.num_gpus()


def gpu_memory_info(device_id=0):
    """(free, total) bytes of GPU `device_id`, as MXNet's mx.context.gpu_memory_info."""
    return _core.gpu_memory_info(device_id)


def gpu_memory_stats(device_id=0):
    """symnet's GPU pool: bytes in arrays ('in_use'), kept for reuse ('cached'), and the peak."""
    return _core.gpu_pool_stats(device_id)


def current_context():
    """The default context (cpu(0) unless changed with `with ctx:`)."""
    return getattr(Context._default, "value", None) or Context("cpu", 0)
