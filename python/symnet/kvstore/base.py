"""MXNet 1.9.1's mx.kvstore.base: the store interface KVStoreBase (with its registry), the
TestStore, and create, which makes a registered store or one of the built-in types
(kvstore.py)."""
import warnings

from .. import ndarray as nd
from ..base import MXNetError

__all__ = ["KVStoreBase", "TestStore", "create"]


def _listed(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _keyed(key, value):
    """(keys, values) with one value (or list of per-device values) per key."""
    if isinstance(key, (list, tuple)):
        values = list(value) if value is not None else [None] * len(key)
        if len(values) != len(key):
            raise MXNetError("kvstore: %d keys but %d values" % (len(key), len(values)))
        return list(key), values
    return [key], [value]


class KVStoreBase:
    """MXNet's interface of a key-value store for data-parallel training (mx.kv.KVStoreBase):
    broadcast, pushpull, set_optimizer, is_capable, optimizer state files, type, rank and
    num_workers. A subclass filed with KVStoreBase.register is what create(its lower-case class
    name) makes, before the built-in types are looked at."""

    #: the capability is_capable asks about: can the store run the optimizer on pushes
    OPTIMIZER = "optimizer"

    #: lower-case class name -> class, filled by register
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        raise NotImplementedError()

    def is_capable(self, capability):
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()

    @property
    def type(self):
        raise NotImplementedError()

    @property
    def rank(self):
        raise NotImplementedError()

    @property
    def num_workers(self):
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Files a KVStoreBase subclass under its lower-case class name (create('mystore')
        then makes MyStore()); a second class of that name replaces the first with a warning.
        Returns the class, so it works as a decorator."""
        assert isinstance(klass, type), "KVStoreBase.register takes a class, not %r" % (klass,)
        name = klass.__name__.lower()
        old = KVStoreBase.kv_registry.get(name)
        if old is not None and old is not klass:
            warnings.warn("WARNING: New kvstore %s.%s is overriding existing kvstore %s.%s"
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


class _OneProcessStore(KVStoreBase):
    """A store whose job is this one process (rank 0 of 1 worker): TestStore and the KVStore of
    kvstore.py, whose DistKVStore asks MPI instead."""

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1


@KVStoreBase.register
class TestStore(_OneProcessStore):
    """MXNet's store for tests: one process, no optimizer (set_optimizer and the optimizer state
    files raise KVStoreBase's NotImplementedError); pushpull sums the values given (one per
    device) on the first value's context, and broadcast copies value into out."""

    def broadcast(self, key, value, out, priority=0):
        for o in _listed(out):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, nd.NDArray):
            if out is not None:
                for o in _listed(out):
                    o[:] = value
            return
        ctx = value[0].context
        reduced = value[0].as_in_context(ctx).copy()
        for v in value[1:]:
            reduced += v.as_in_context(ctx)
        for o in (value if out is None else _listed(out)):
            o[:] = reduced

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    @property
    def type(self):
        return "teststore"


def create(name="local"):
    """A store by type name: a class filed with KVStoreBase.register (by lower-case name), else
    one of the built-in types. A store given instead of a name is returned as it is."""
    if isinstance(name, KVStoreBase):
        return name
    if name is None:
        name = "local"
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    if name.lower() in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name.lower()]()
    from .kvstore import _DISTRIBUTED, _SINGLE_PROCESS, DistKVStore, KVStore  # kvstore.py imports this module
    if name in _SINGLE_PROCESS:
        return KVStore(name)
    if name in _DISTRIBUTED:
        return DistKVStore(name)
    if "async" in name or name == "dist":
        raise MXNetError("kvstore %r: asynchronous training needs a parameter server, which symnet "
                         "does not have; use 'dist_sync' (synchronous all-reduce over MPI)" % name)
    raise MXNetError("kvstore %r is not known; use one of %s" % (name, ", ".join(_SINGLE_PROCESS + _DISTRIBUTED)))
