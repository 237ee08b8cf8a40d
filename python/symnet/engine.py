"""MXNet 1.9.1's mx.engine: bulk execution settings. MXNet's asynchronous engine can run up to
`size` operators of imperative code (and of a graph's forward or backward) as one bulk, to save
scheduling overhead. symnet has no asynchronous engine: an operator runs when it is called and
a bound graph runs as one planned program, so there is nothing to bulk. set_bulk_size and bulk
are kept so that MXNet code runs unchanged: they remember the size (and return the previous one,
as MXNet's) without changing how anything executes."""
import contextlib
import threading

__all__ = ["set_bulk_size", "bulk"]

# MXNet's default (MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN's imperative counterpart) is 0: no bulking
_state = threading.local()


def _size():
    return getattr(_state, "size", 0)


def set_bulk_size(size):
    """Sets the bulk size for imperative code (a no-op on symnet, see the module's docstring);
    returns the previous size."""
    prev = _size()
    _state.size = int(size)
    return prev


@contextlib.contextmanager
def bulk(size):
    """`with mx.engine.bulk(size):` sets the bulk size for the block and restores the previous
    one after it, as MXNet's; operators run as they always do on symnet."""
    prev = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(prev)
