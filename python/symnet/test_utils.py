"""Testing helpers in MXNet's style: forward/backward checks against references and
finite-difference gradient checks (in float64 by default)."""
import numpy as np

from .context import current_context
from .ndarray import NDArray, array


def default_context():
    return current_context()


def assert_almost_equal(a, b, rtol=1e-5, atol=1e-20, names=("a", "b"), equal_nan=False):
    """Asserts |a - b| <= atol + rtol * |b| elementwise, reporting the worst element."""
    a = a.asnumpy() if isinstance(a, NDArray) else np.asarray(a)
    b = b.asnumpy() if isinstance(b, NDArray) else np.asarray(b)
    if a.shape != b.shape:
        raise AssertionError("shape mismatch: %s %s vs %s %s" % (names[0], a.shape, names[1], b.shape))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    err = np.abs(a64 - b64) - (atol + rtol * np.abs(b64))
    idx = np.unravel_index(np.nanargmax(err), err.shape) if err.size else ()
    raise AssertionError(
        "arrays differ (rtol=%g, atol=%g): worst at %s: %s=%r, %s=%r; max abs diff %g"
        % (rtol, atol, idx, names[0], a64[idx], names[1], b64[idx], np.nanmax(np.abs(a64 - b64))))


def _location(sym, location):
    names = sym.list_arguments()
    if isinstance(location, dict):
        missing = set(names) - set(location)
        if missing:
            raise ValueError("location is missing %s" % sorted(missing))
        return {k: np.asarray(v.asnumpy() if isinstance(v, NDArray) else v) for k, v in location.items()}
    return {k: np.asarray(v.asnumpy() if isinstance(v, NDArray) else v) for k, v in zip(names, location)}


def _aux(sym, aux_states):
    if aux_states is None:
        return {}
    if isinstance(aux_states, dict):
        return {k: np.asarray(v) for k, v in aux_states.items()}
    return dict(zip(sym.list_auxiliary_states(), [np.asarray(v) for v in aux_states]))


def _bind(sym, location, aux, grad_req, ctx, dtype):
    type_dict = {k: dtype for k in location} if dtype is not None else {k: v.dtype for k, v in location.items()}
    exe = sym.simple_bind(ctx or default_context(), grad_req=grad_req, type_dict=type_dict,
                          **{k: v.shape for k, v in location.items()})
    for k, v in location.items():
        exe.arg_dict[k][:] = v
    for k, v in aux.items():
        exe.aux_dict[k][:] = v
    return exe


def check_symbolic_forward(sym, location, expected, rtol=1e-4, atol=None, aux_states=None,
                           ctx=None, dtype=np.float32, is_train=False):
    """Runs forward and compares every output with `expected` (list or dict by output name)."""
    location = _location(sym, location)
    exe = _bind(sym, location, _aux(sym, aux_states), "null", ctx, dtype)
    outputs = [o.asnumpy() for o in exe.forward(is_train=is_train)]
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    for name, out, exp in zip(sym.list_outputs(), outputs, expected):
        assert_almost_equal(out, exp, rtol, 1e-20 if atol is None else atol, names=(name, "expected"))
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=1e-5, atol=None,
                            aux_states=None, grad_req="write", ctx=None, dtype=np.float32):
    """Runs forward (training) and backward with `out_grads` and compares gradients with
    `expected` (dict by argument name, or list). With grad_req='add' the gradient arrays start
    from random values and must end at those values plus the expected gradients."""
    location = _location(sym, location)
    names = sym.list_arguments()
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected))
    reqs = {n: (grad_req if n in expected else "null") for n in names}
    exe = _bind(sym, location, _aux(sym, aux_states), reqs, ctx, dtype)
    rng = np.random.RandomState(1234)
    initial = {}
    for n in expected:
        init = rng.normal(size=location[n].shape) if grad_req == "add" else np.zeros(location[n].shape)
        exe.grad_dict[n][:] = init
        initial[n] = exe.grad_dict[n].asnumpy().astype(np.float64)
    exe.forward(is_train=True)
    if out_grads is not None:
        out_grads = [array(g, dtype=dtype) if not isinstance(g, NDArray) else g
                     for g in (out_grads if isinstance(out_grads, (list, tuple)) else [out_grads])]
    exe.backward(out_grads)
    got = {}
    for n, exp in expected.items():
        g = exe.grad_dict[n].asnumpy()
        want = np.asarray(exp, dtype=np.float64) + (initial[n] if grad_req == "add" else 0)
        assert_almost_equal(g, want, rtol, 1e-20 if atol is None else atol,
                            names=("grad of " + n, "expected"))
        got[n] = g
    return got


def numeric_grad(fn, x, eps):
    """Central differences of the scalar function fn at x (modified in place, then restored).
    Indexes x element by element: x may be a non-contiguous view (a transposed array), where
    x.reshape(-1) would be a copy and the perturbations would never reach fn."""
    grad = np.zeros(x.shape, dtype=np.float64)
    for i in np.ndindex(*x.shape):
        old = x[i]
        x[i] = old + eps
        fp = fn()
        x[i] = old - eps
        fm = fn()
        x[i] = old
        grad[i] = (fp - fm) / (2 * eps)
    return grad


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, grad_nodes=None, ctx=None, dtype=np.float64, is_train=True,
                           seed=0):
    """Compares backward with central finite differences of sum(out * r) for random r.

    Runs in float64 by default, where the difference quotient is accurate to ~1e-9 for smooth
    ops, so tight tolerances catch real gradient bugs."""
    location = {k: v.astype(dtype) for k, v in _location(sym, location).items()}
    aux = _aux(sym, aux_states)
    grad_nodes = list(grad_nodes or location.keys())
    reqs = {n: ("write" if n in grad_nodes else "null") for n in sym.list_arguments()}
    exe = _bind(sym, location, aux, reqs, ctx, dtype)
    rng = np.random.RandomState(seed)
    outs = exe.forward(is_train=is_train)
    proj = [rng.normal(size=o.shape).astype(dtype) for o in outs]
    exe.backward([array(p, dtype=dtype) for p in proj])
    symbolic = {n: exe.grad_dict[n].asnumpy() for n in grad_nodes}

    def objective():
        for k, v in location.items():
            exe.arg_dict[k][:] = v
        for k, v in aux.items():
            exe.aux_dict[k][:] = v
        return float(sum(np.sum(o.asnumpy().astype(np.float64) * p)
                         for o, p in zip(exe.forward(is_train=is_train), proj)))

    for n in grad_nodes:
        num = numeric_grad(objective, location[n], numeric_eps)
        assert_almost_equal(symbolic[n], num, rtol, atol, names=("symbolic grad of " + n, "numeric"))
    return symbolic


#: Tolerance (rtol = atol) of check_consistency for results computed in each dtype.
CONSISTENCY_TOL = {"float64": 1e-5, "float32": 1e-3, "float16": 1e-1, "bfloat16": 1e-1}


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None,
                      tol=None, seed=0):
    """MXNet's check_consistency: binds `sym` once per entry of ctx_list (a dict with 'ctx', the
    input shapes and optionally 'type_dict'), feeds every binding the same inputs and head
    gradients, runs forward (training mode) and backward, and compares every output and gradient
    with those of the most precise binding (float64 first, then earlier entries), using the
    tolerance of the less precise dtype (CONSISTENCY_TOL or `tol`). Returns the outputs."""
    from .base import dtype_name
    rank = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3}
    tol = dict(CONSISTENCY_TOL, **(tol or {}))
    rng = np.random.RandomState(seed)
    exes, dtypes = [], []
    for spec in ctx_list:
        spec = dict(spec)
        ctx = spec.pop("ctx")
        type_dict = {k: dtype_name(v) for k, v in spec.pop("type_dict", {}).items()}
        exes.append(sym.simple_bind(ctx, grad_req=grad_req, type_dict=type_dict, **spec))
        dtypes.append(dtype_name(exes[-1].outputs[0].dtype) if exes[-1].outputs else "float32")
    first = exes[0]
    args = {k: (arg_params[k] if arg_params and k in arg_params else rng.normal(size=v.shape) * scale)
            for k, v in first.arg_dict.items()}
    auxs = {k: (aux_params[k] if aux_params and k in aux_params else np.abs(rng.normal(size=v.shape)) + 0.5)
            for k, v in first.aux_dict.items()}
    head = [rng.normal(size=o.shape) for o in first.outputs]
    results = []
    for exe in exes:
        for k, v in args.items():
            exe.arg_dict[k][:] = np.asarray(v, dtype=np.float64)
        for k, v in auxs.items():
            exe.aux_dict[k][:] = np.asarray(v, dtype=np.float64)
        exe.forward(is_train=True)
        outs = [o.asnumpy().astype(np.float64) for o in exe.outputs]
        if grad_req != "null":
            exe.backward([array(h, ctx=exe.outputs[i].context, dtype=exe.outputs[i].dtype)
                          for i, h in enumerate(head)])
        grads = {k: g.asnumpy().astype(np.float64) for k, g in exe.grad_dict.items()}
        results.append((outs, grads))
    ref = min(range(len(exes)), key=lambda i: (rank.get(dtypes[i], 1), i))
    for i, (outs, grads) in enumerate(results):
        if i == ref:
            continue
        t = tol[dtypes[i]] if rank.get(dtypes[i], 1) >= rank.get(dtypes[ref], 1) else tol[dtypes[ref]]
        where = "binding %d (%s, %s) vs binding %d (%s, %s)" % (
            i, ctx_list[i]["ctx"], dtypes[i], ref, ctx_list[ref]["ctx"], dtypes[ref])
        for k, (a, b) in enumerate(zip(outs, results[ref][0])):
            assert_almost_equal(a, b, rtol=t, atol=t, names=("output %d of %s" % (k, where), "reference"))
        for name, g in grads.items():
            assert_almost_equal(g, results[ref][1][name], rtol=t, atol=t,
                                names=("gradient of %s, %s" % (name, where), "reference"))
    return [r[0] for r in results]
