"""MXNet 1.9.1's mx.kvstore.kvstore: the KVStore over symnet's collectives.

Types:
- 'local', 'device', 'nccl' (and MXNet's 'local_allreduce_*'): one process. push sums the values
  given for a key (one per device), pull copies the stored value out.
- 'dist_sync', 'dist_device_sync', 'horovod': a job of several processes started by mpirun
  (`mpirun -np 2 python3 train.py --kv-store dist_sync`). push sums over the devices of this
  process, then over every rank (an MPI all-reduce: no parameter server), so all ranks hold the
  same value; init takes rank 0's value. Module and gluon.Trainer use the store for their
  gradients, bucketed and overlapped with backward (docs/distributed.md).
- 'dist_async' is refused: it needs a parameter server, which symnet does not have.

With set_optimizer (update on the store) a push applies the optimizer to the stored value with
the summed gradient, as MXNet's stores do.
"""
import copy
import sys

import numpy as np

from .. import _core
from .. import _state_files
from .. import ndarray as nd
from .. import optimizer as opt_mod
from ..base import MXNetError
from .base import KVStoreBase, _keyed, _listed, _OneProcessStore, create  # noqa: F401 (create: mx.kvstore.kvstore.create)

__all__ = ["KVStore", "DistKVStore", "start_distributed", "global_metric_values"]

_SINGLE_PROCESS = ("local", "device", "nccl", "local_allreduce_cpu", "local_allreduce_device")
_DISTRIBUTED = ("dist_sync", "dist_device_sync", "dist_sync_device", "horovod")


class KVStore(_OneProcessStore):
    """A store of one process (types 'local', 'device', 'nccl')."""

    def __init__(self, kind="local"):
        self._type = kind
        self._store = {}
        self._optimizer = None
        self._updater = None
        self._updater_takes_keys = False  # _set_updater's function gets the key, not an index

    @staticmethod
    def is_capable(capability):
        """The store runs optimizers (set_optimizer): True for KVStoreBase.OPTIMIZER."""
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError("Unknown capability: {}".format(capability))

    def _set_updater(self, updater):
        """Each push then calls updater(key, summed value, stored value), which updates the
        stored value in place (MXNet's low-level form of set_optimizer)."""
        self._updater = updater
        self._updater_takes_keys = True

    def __repr__(self):
        return "KVStore(%r, rank %d of %d)" % (self.type, self.rank, self.num_workers)

    @property
    def type(self):
        return self._type

    @property
    def local_rank(self):
        """This process's index among the ranks on its machine: the GPU it should use."""
        return 0

    @property
    def is_distributed(self):
        return False

    # the collective steps a distributed store adds; one process has nothing to add
    def _sum_over_workers(self, arrays):
        pass

    def _from_root(self, arrays):
        pass

    def init(self, key, value):
        keys, values = _keyed(key, value)
        for k, v in zip(keys, values):
            first = _listed(v)[0]
            stored = first.copy()
            self._from_root([stored])
            self._store[k] = stored

    def _stored(self, k):
        if k not in self._store:
            raise MXNetError("kvstore: key %r was never init()ed" % (k,))
        return self._store[k]

    def push(self, key, value, priority=0):
        keys, values = _keyed(key, value)
        merged = []
        for k, v in zip(keys, values):
            stored = self._stored(k)
            parts = _listed(v)
            for p in parts:
                if tuple(p.shape) != tuple(stored.shape):
                    raise MXNetError("kvstore.push: key %r has shape %s, the value pushed %s"
                                     % (k, tuple(stored.shape), tuple(p.shape)))
            total = parts[0].copy()
            for p in parts[1:]:
                total += p.as_in_context(total.context)
            merged.append(total)
        self._sum_over_workers(merged)
        for k, total in zip(keys, merged):
            if self._updater is not None:
                self._updater(k if self._updater_takes_keys else self._index(k), total, self._store[k])
            else:
                self._store[k] = total

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        if out is None:
            raise MXNetError("kvstore.pull: give the arrays to fill with out=")
        keys, outs = _keyed(key, out)
        for k, o in zip(keys, outs):
            stored = self._stored(k)
            for dst in _listed(o):
                dst[:] = stored.as_in_context(dst.context)

    def pushpull(self, key, value, out=None, priority=0):
        self.push(key, value, priority)
        self.pull(key, out if out is not None else value, priority)

    def broadcast(self, key, value, out, priority=0):
        self.init(key, value)
        self.pull(key, out, priority)

    def _index(self, k):
        """The optimizer's index of key k: an int key itself, a str key its init order."""
        return k if isinstance(k, int) else list(self._store).index(k)

    def _by_index(self, i):
        return self._store[i] if i in self._store else self._store[list(self._store)[i]]

    def set_optimizer(self, optimizer):
        """Update on the store: each push applies the optimizer to the stored value."""
        self._optimizer = opt_mod.create(optimizer)
        self._updater = opt_mod.get_updater(self._optimizer)
        self._updater_takes_keys = False

    def set_gradient_compression(self, compression_params):
        raise MXNetError("kvstore: gradient compression is not supported by symnet")

    def barrier(self):
        pass

    _barrier = barrier

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """The update-on-store optimizer's states (symnet's state file format; rank 0 writes in
        a distributed job). dump_optimizer is not supported: the file holds no code."""
        if self._updater is None:
            raise MXNetError("kvstore.save_optimizer_states: no optimizer set (set_optimizer)")
        if dump_optimizer:
            raise MXNetError("kvstore.save_optimizer_states(dump_optimizer=True): symnet's state "
                             "files hold arrays only; create the optimizer again when loading")
        if self.rank == 0:
            _state_files.save(fname, "symnet-kvstore-states-1",
                              {str(k): s for k, s in self._updater.states.items()}, self._optimizer)

    def load_optimizer_states(self, fname):
        if self._updater is None:
            raise MXNetError("kvstore.load_optimizer_states: no optimizer set (set_optimizer)")
        states, _ = _state_files.load(fname, "symnet-kvstore-states-1", "kvstore", self._optimizer,
                                      lambda key: int(key) if key.lstrip("-").isdigit() else key,
                                      lambda i, arr: arr.as_in_context(self._by_index(i).context))
        self._updater.states = states


def start_distributed():
    """Starts this process's part of an mpirun job (once). An uncaught Python exception then
    ends the rank at once, without finishing MPI, so the other ranks' watchdogs name it as
    failed instead of waiting in their next collective."""
    dist = _core.dist
    if dist.initialized():
        return
    dist.init()
    if dist.size() == 1:  # a script run without mpirun: nothing to tell other ranks
        return
    previous = sys.excepthook

    def _hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stdout.flush()
        sys.stderr.flush()
        dist.abort_process(1)

    sys.excepthook = _hook


class DistKVStore(KVStore):
    """dist_sync / dist_device_sync / horovod: every rank of an mpirun job holds the same values."""

    def __init__(self, kind):
        super().__init__(kind)
        start_distributed()

    @property
    def rank(self):
        return _core.dist.rank()

    @property
    def num_workers(self):
        return _core.dist.size()

    @property
    def local_rank(self):
        return _core.dist.local_rank()

    @property
    def is_distributed(self):
        return True

    def _sum_over_workers(self, arrays):
        _core.dist.allreduce_sum([a.handle for a in arrays])

    def _from_root(self, arrays):
        _core.dist.broadcast([a.handle for a in arrays], 0)

    def barrier(self):
        _core.dist.barrier()

    _barrier = barrier

    def any(self, flag):
        """True on every rank when flag is true on one (e.g. a gradient overflow)."""
        return _core.dist.any(bool(flag))

    def allgather(self, array):
        """Shape (num_workers,) + array.shape: row r is rank r's array."""
        return nd.NDArray(_core.dist.allgather(array.handle))


def global_metric_values(eval_metric, kv):
    """(name, value) pairs of eval_metric over every rank: each metric's totals are added across
    the ranks, then the metric's own formula applies (the metric itself keeps this rank's)."""
    if kv is None or not kv.is_distributed:
        return eval_metric.get_global_name_value()
    leaves = eval_metric.metrics if hasattr(eval_metric, "metrics") else [eval_metric]
    sums = [[m.global_sum_metric + m.sum_metric, m.global_num_inst + m.num_inst] for m in leaves]
    total = nd.array(np.array(sums, dtype=np.float64), dtype="float64")
    kv._sum_over_workers([total])
    out = []
    for m, (s, n) in zip(leaves, total.asnumpy()):
        whole = copy.copy(m)
        whole.global_sum_metric, whole.global_num_inst = float(s), int(round(n))
        whole.sum_metric, whole.num_inst = 0.0, 0
        out.extend(whole.get_global_name_value())
    return out
