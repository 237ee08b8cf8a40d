"""kvstore.create(...) as MXNet scripts call it. symnet trains in one process (on one device or,
with a Module given several contexts, data-parallel with an all-reduce: NCCL on GPUs), so
'local', 'device' and 'nccl' are accepted and the store reports its type, rank 0 and one
worker; 'dist_*' types raise a clear error."""

_SINGLE_PROCESS = ("local", "device", "nccl", "local_allreduce_cpu", "local_allreduce_device")


class KVStore:
    def __init__(self, kind):
        self.type = kind
        self.rank = 0
        self.num_workers = 1

    def __repr__(self):
        return "KVStore(%r)" % self.type


def create(name="local"):
    if isinstance(name, KVStore):
        return name
    if name not in _SINGLE_PROCESS:
        raise ValueError("kvstore %r is not supported: symnet trains in one process (use one of %s)"
                         % (name, ", ".join(_SINGLE_PROCESS)))
    return KVStore(name)
