"""mx.contrib.autograd: MXNet's first (pre-1.0) autograd API, kept for old scripts.

It predates mx.autograd's record()/pause(): one switch, "training", turns recording and
training mode on together. Everything runs on symnet.autograd (the C++ tape); this module only
keeps the old names and their quirks (set_is_training returns the previous *recording* state,
backward always differentiates in training mode, grad_and_loss differentiates after leaving the
training section).
"""
import functools

from .. import autograd as _ag
from ..base import string_types
# MXNet's module imports these names and `from mxnet.contrib.autograd import *` (its own tests)
# brings them along, so they stay importable from here
from ..ndarray import NDArray, zeros_like
from ..ndarray.ndarray import _GRAD_REQ_MAP

# no __all__: as in MXNet, a star import gives every public name here


def set_is_training(is_train):
    """Turns training mode and recording on or off together; returns the previous state.

    MXNet sets training first and recording second and reports what the second call returned,
    so the value returned is the previous recording state."""
    _ag.set_training(bool(is_train))
    return bool(_ag.set_recording(bool(is_train)))


class TrainingStateScope(object):
    """Sets the training state (recording + training mode) for a `with` block.

    On exit the previous state comes back only when it differs from the one entered, as in
    MXNet: a block entered in the state it already had changes nothing on exit."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """A `with` block whose calls are recorded and run in training mode."""
    return TrainingStateScope(True)


def test_section():
    """A `with` block (typically inside train_section) that neither records nor trains."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Marks NDArrays as variables to differentiate for, with the arrays their gradients go to.

    grad_reqs is one of 'null', 'write', 'add' for all variables, or a list with one per
    variable; an unknown name raises KeyError as MXNet's table lookup does."""
    if isinstance(grad_reqs, string_types):
        reqs = [grad_reqs] * len(variables)
    else:
        reqs = list(grad_reqs)
    for r in reqs:
        _GRAD_REQ_MAP[r]  # noqa: B018 -- the check MXNet's lookup makes
    _ag.mark_variables(list(variables), list(gradients), reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Computes the gradients of outputs with respect to the marked variables.

    outputs must be a list or tuple; out_grads has one NDArray (or None: ones) per output."""
    assert isinstance(outputs, (list, tuple)), "outputs must be a list or tuple of NDArrays"
    if out_grads is not None:
        assert len(out_grads) == len(outputs), "outputs and out_grads must have the same length"
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads),
                 retain_graph=retain_graph, train_mode=True)


def compute_gradient(outputs):
    """Deprecated. Please use backward"""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Returns a function that runs func and returns (gradients of the chosen arguments, value).

    argnum is an int or a list of ints naming the NDArray arguments to differentiate for;
    None means every argument (then all must be NDArrays)."""

    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            argnum_ = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in argnum_]
        for x in variables:
            assert isinstance(x, NDArray), "type of autograd input should NDArray."
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs

    return wrapped


def grad(func, argnum=None):
    """Returns a function that runs func and returns the gradients of the chosen arguments
    (see grad_and_loss)."""
    grad_with_loss_func = grad_and_loss(func, argnum)

    @functools.wraps(grad_with_loss_func)
    def wrapped(*args):
        return grad_with_loss_func(*args)[0]

    return wrapped
