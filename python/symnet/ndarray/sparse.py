"""mx.nd.sparse: MXNet's sparse arrays (CSR and row_sparse). symnet stores dense arrays only so
far: the operators registered as _sparse_<name> are here under <name> (filled in by ndarray.op),
and the constructors of sparse arrays raise an error that says so."""
from ..base import MXNetError


def _no_sparse(what, stype):
    raise MXNetError("%s: symnet has no sparse storage yet (storage type '%s'); use dense arrays "
                     "(stype='default')" % (what, stype))


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSR array in MXNet; here an error naming the missing storage type."""
    _no_sparse("mx.nd.sparse.csr_matrix", "csr")


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A row_sparse array in MXNet; here an error naming the missing storage type."""
    _no_sparse("mx.nd.sparse.row_sparse_array", "row_sparse")


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """Zeros of storage type `stype`: dense ('default') arrays only so far."""
    if stype != "default":
        _no_sparse("mx.nd.sparse.zeros", stype)
    from .ndarray import zeros as dense_zeros
    return dense_zeros(shape, ctx=ctx, dtype=dtype)


def empty(stype, shape, ctx=None, dtype=None):
    """An uninitialized array of storage type `stype`: dense ('default') arrays only so far."""
    if stype != "default":
        _no_sparse("mx.nd.sparse.empty", stype)
    from .ndarray import empty as dense_empty
    return dense_empty(shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a scipy.sparse matrix in MXNet; dense sources are refused here too, as
    MXNet refuses them."""
    _no_sparse("mx.nd.sparse.array", getattr(source_array, "format", "csr"))
