"""mx.autograd: record imperative NDArray calls and differentiate them (MXNet 1.x's API).

Recording happens in C++ (symnet/autograd.h): each op call under `record()` whose inputs are
tracked becomes a graph node; `backward` differentiates that graph with the same FGradient rules
the symbolic executor uses, so every registered op with a gradient works here without more code.
"""
from . import _core
# MXNet's autograd module holds these names too, and `from mxnet.autograd import *` (MXNet's own
# tests) relies on them
from .ndarray import NDArray
from .symbol import Symbol

# no __all__: as in MXNet, `from mxnet.autograd import *` gives every public name here


def set_recording(is_recording):
    """Turns recording on or off; returns the previous state."""
    return _core.autograd_set_recording(bool(is_recording))


def set_training(train_mode):
    """Turns training mode on or off; returns the previous state."""
    return _core.autograd_set_training(bool(train_mode))


def is_recording():
    return _core.autograd_is_recording()


def is_training():
    return _core.autograd_is_training()


class _Scope:
    """Sets recording and/or training for a `with` block and restores them after it."""

    def __init__(self, recording, training):
        self._want = (recording, training)
        self._old = (None, None)

    def __enter__(self):
        rec, train = self._want
        self._old = (set_recording(rec) if rec is not None else None,
                     set_training(train) if train is not None else None)
        return self

    def __exit__(self, *exc):
        rec, train = self._old
        if rec is not None:
            set_recording(rec)
        if train is not None:
            set_training(train)
        return False


def record(train_mode=True):
    """Records the calls of a `with` block for backward; train_mode runs them in training mode
    (Dropout drops, BatchNorm uses batch statistics)."""
    return _Scope(True, train_mode)


def pause(train_mode=False):
    """Stops recording inside a record() block."""
    return _Scope(False, train_mode)


def train_mode():
    """Training mode without changing recording."""
    return _Scope(None, True)


def predict_mode():
    """Inference mode without changing recording."""
    return _Scope(None, False)


def _handles(arrays, what):
    if isinstance(arrays, NDArray):
        arrays = [arrays]
    arrays = list(arrays)
    for i, a in enumerate(arrays):
        if not isinstance(a, NDArray):
            raise TypeError("%s[%d] must be an NDArray, got %s" % (what, i, type(a).__name__))
    return arrays


def mark_variables(variables, gradients, grad_reqs="write"):
    """Marks arrays as variables to differentiate for, with their gradient buffers."""
    variables = _handles(variables, "variables")
    gradients = _handles(gradients, "gradients")
    if len(variables) != len(gradients):
        raise ValueError("%d variables but %d gradients" % (len(variables), len(gradients)))
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for v, g, r in zip(variables, gradients, grad_reqs):
        _core.autograd_mark_variable(v.handle, g.handle, r)


def _head_grads(heads, head_grads):
    if head_grads is None:
        return []
    if isinstance(head_grads, NDArray):
        head_grads = [head_grads]
    head_grads = list(head_grads)
    if len(head_grads) != len(heads):
        raise ValueError("%d heads but %d head gradients" % (len(heads), len(head_grads)))
    return [_core.none_array() if g is None else g.handle for g in head_grads]


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Computes the gradients of heads with respect to every array that attach_grad marked and
    writes (or adds, grad_req='add') them into the arrays' .grad."""
    heads = _handles(heads, "heads")
    _core.autograd_backward([h.handle for h in heads], _head_grads(heads, head_grads), [],
                            bool(retain_graph), bool(train_mode))


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):
    """Returns the gradients of heads with respect to variables (a list, or one NDArray when
    variables is one NDArray) without touching any .grad buffer. With create_graph the
    gradients are recorded too and can be differentiated again (docs/mxnet_compat.md lists the
    ops whose gradient has a gradient)."""
    single = isinstance(variables, NDArray)
    heads = _handles(heads, "heads")
    variables = _handles(variables, "variables")
    retain = create_graph if retain_graph is None else retain_graph
    res = _core.autograd_backward([h.handle for h in heads], _head_grads(heads, head_grads),
                                  [v.handle for v in variables], bool(retain), bool(train_mode),
                                  bool(create_graph))
    res = [NDArray(h) for h in res]
    return res[0] if single else res


def get_symbol(x):
    """The graph recorded for x (an NDArray computed under record()) as a Symbol: the arrays
    attach_grad marked are its variables var0, var1, ..., other inputs null0, null1, ..."""
    heads = _handles(x, "x")
    return Symbol(_core.autograd_get_symbol([h.handle for h in heads]))


def _record_function(inputs, outputs, backward_fn):
    """Records outputs (NDArrays computed from inputs outside autograd's view) with
    backward_fn(list of output-gradient NDArrays) -> list of input gradients (None: zero).
    Returns the outputs, tracked when recording and some input is tracked."""

    def call(ograds):
        res = backward_fn([NDArray(h) for h in ograds])
        res = list(res) if isinstance(res, (list, tuple)) else [res]
        return [None if g is None else g.handle for g in res]

    handles = _core.autograd_record_function([i.handle for i in inputs],
                                             [o.handle for o in outputs], call)
    return [NDArray(h) for h in handles]


class Function:
    """A differentiable function written by hand (MXNet's autograd.Function): subclass with
    forward(self, *inputs) and backward(self, *output_grads) on NDArrays; save_for_backward keeps
    what backward needs. Call an instance like a function; it is recorded as one step."""

    def __init__(self):
        self._saved = ()

    def save_for_backward(self, *args):
        self._saved = args

    @property
    def saved_tensors(self):
        return self._saved

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError

    def __call__(self, *inputs):
        with pause(train_mode=is_training()):
            outputs = self.forward(*inputs)
        single = isinstance(outputs, NDArray)
        outputs = [outputs] if single else list(outputs)
        if not is_recording():
            return outputs[0] if single else outputs

        def backward_fn(ograds):
            with pause():
                grads = self.backward(*ograds)
            return [grads] if isinstance(grads, NDArray) else list(grads)

        outputs = _record_function(list(inputs), [o.detach() for o in outputs], backward_fn)
        return outputs[0] if single else outputs
