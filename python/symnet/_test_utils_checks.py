"""The machinery behind symnet.test_utils' checks: finite differences, the symbolic forward /
backward / consistency checks, the chi-square test and the optimizer comparison. Private: the
public names (and their documentation) are in test_utils."""
import importlib
import time as _time
from collections import OrderedDict

import numpy as np
import numpy.testing as npt

from . import test_utils as _tu  # circular on purpose: attributes are read at call time
from .base import dtype_name
from .ndarray import NDArray, array
from .symbol import Symbol

_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


class LazyModule:
    """Stands for a module that is imported on first attribute access; false when it cannot be
    imported (as MXNet's `ss` is None without scipy)."""

    def __init__(self, name):
        self._name = name

    def _load(self):
        return importlib.import_module(self._name)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self._load(), attr)

    def __bool__(self):
        try:
            self._load()
        except ImportError:
            return False
        return True

    def __repr__(self):
        return "<module %r, imported on first use>" % self._name


def float_dtype(dtype):
    """np.dtype of float16 / float32 / float64 given as a type, dtype or name; else an error."""
    try:
        d = np.dtype(dtype_name(dtype))
    except TypeError:
        d = None
    if d not in _FLOATS:
        raise AssertionError("dtype must be float16, float32 or float64, not %r" % (dtype,))
    return d


# ---- assert_almost_equal's report -----------------------------------------------------------
def violations(a, b, rtol, atol, equal_nan):
    """For same-shaped numpy a and b: (index of the worst violation, its ratio |a-b| / (atol +
    rtol |b|), number of mismatching elements, [(index, ratio)] of the mismatches worst first)."""
    if a.dtype.kind in "biu":
        a = a.astype(np.float64)
    if b.dtype.kind in "biu":
        b = b.astype(np.float64)
    with np.errstate(all="ignore"):
        absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))  # inf == inf is no error
        ratio = np.asarray(absdiff / (atol + rtol * np.abs(b) + 1e-20), dtype=np.float64)
    bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    score = np.where(bad, np.where(np.isnan(ratio), np.inf, ratio), -1.0)
    if a.ndim == 0:
        return (), float(ratio), int(bad), []
    order = np.argsort(-score, axis=None, kind="stable")[:int(bad.sum())]
    ranked = [(tuple(int(i) for i in np.unravel_index(f, a.shape)), float(ratio.flat[f])) for f in order]
    if not ranked:
        return (), float(np.max(ratio)), 0, []
    return ranked[0][0], ranked[0][1], len(ranked), ranked


def mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches):
    """Prints the worst mismatches of (broadcast) a and b and returns the assertion text."""
    a, b = np.broadcast_arrays(a, b)
    index, worst, count, ranked = violations(a, b, rtol, atol, equal_nan)
    if index == ():
        err = "Error %f exceeds tolerance rtol=%e, atol=%e.\n" % (worst, rtol, atol)
    else:
        print("\n*** Maximum errors for vector of size {}:  rtol={}, atol={}\n".format(a.size, rtol, atol))
        for i, (idx, err_i) in enumerate(ranked[:max(mismatches[0], 0)]):
            print("%3d: Error %f  %s" % (i + 1, err_i, _tu.locationError(a, b, idx, names)))
        err = "Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %f%%).\n%s" % (
            worst, rtol, atol, 100.0 * count / a.size, _tu.locationError(a, b, index, names, maxError=True))
    with np.printoptions(threshold=4, suppress=True):
        return npt.build_err_msg([a, b], err_msg=err)


# ---- locations and finite differences -------------------------------------------------------
def _to_nd(value, ctx, dtype):
    """An NDArray of value on ctx in dtype ('asnumpy': the value's own dtype)."""
    if isinstance(value, NDArray):
        src = value
        own = value.dtype
    else:
        src = np.asarray(value)
        own = src.dtype
    return array(src, ctx=ctx, dtype=own if isinstance(dtype, str) and dtype == "asnumpy" else dtype)


def _check_dtype(dtype):
    if not (isinstance(dtype, str) and dtype == "asnumpy"):
        float_dtype(dtype)


def parse_location(sym, location, ctx, dtype):
    """location (list in argument order, or dict naming every argument) as an OrderedDict of
    NDArrays sorted by name; numpy values become NDArrays in dtype, NDArrays stay."""
    assert isinstance(location, (dict, list, tuple))
    _check_dtype(dtype)
    names = sym.list_arguments()
    if isinstance(location, dict):
        if set(location.keys()) != set(names):
            raise ValueError("Symbol arguments and keys of the given location do not match. symbol args:%s, "
                             "location.keys():%s" % (str(set(names)), str(set(location.keys()))))
    else:
        if len(location) != len(names):
            raise ValueError("location has %d arrays but the symbol has %d arguments %s"
                             % (len(location), len(names), names))
        location = dict(zip(names, location))
    location = {k: v if isinstance(v, NDArray) else _to_nd(v, ctx, dtype) for k, v in location.items()}
    return OrderedDict(sorted(location.items(), key=lambda kv: kv[0]))


def parse_aux_states(sym, aux_states, ctx, dtype):
    """aux_states (None, list in list_auxiliary_states() order, or dict naming every one) as a
    dict of NDArrays in dtype."""
    _check_dtype(dtype)
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states.keys()) != set(names):
            raise ValueError("Symbol aux_states names and given aux_states do not match. symbol aux_names:%s, "
                             "aux_states.keys:%s" % (str(set(names)), str(set(aux_states.keys()))))
    else:
        aux_states = dict(zip(names, aux_states))
    return {k: _to_nd(v, ctx, dtype) for k, v in aux_states.items()}


def function_grad(fn, x, eps):
    """Central differences (x +- eps) of the scalar function fn() in the numpy array x, which is
    perturbed in place element by element (so that a non-contiguous view works) and restored."""
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


def finite_differences(executor, location, aux_states, eps, is_train, dtype, names=None, proj=None):
    """Gradient by differences of forward runs with each element of the float arguments `names`
    (default: all of `location`, dict name -> numpy) at x + eps/2 and x - eps/2. The objective is
    the sum of outputs[0], or with `proj` (a float64 array per output) sum_k sum(out_k * proj_k).
    aux_states (name -> numpy) are restored before every run. Returns numpy arrays in dtype."""
    dtype = float_dtype(dtype)
    work = {k: np.array(v, order="C", copy=True) for k, v in location.items()}
    grads = {k: np.zeros(v.shape, dtype=dtype) for k, v in work.items()}

    def cast(v):
        return v.astype(dtype) if v.dtype.kind == "f" else v

    for k, v in work.items():
        executor.arg_dict[k][:] = cast(v)

    def run():
        for key, val in (aux_states or {}).items():
            executor.aux_dict[key][:] = val
        executor.forward(is_train=is_train)
        outs = executor.outputs if proj is not None else executor.outputs[:1]
        return [o.asnumpy().astype(np.float64) for o in outs]

    weights = proj if proj is not None else [1.0]
    for k in (names if names is not None else list(work)):
        v = work[k]
        if v.dtype.kind != "f":
            continue
        flat, original = v.reshape(-1), v.copy()
        target, out = executor.arg_dict[k], grads[k].reshape(-1)
        for i in range(flat.size):
            flat[i] = original.flat[i] + eps / 2.0
            target[:] = cast(v)
            plus = run()
            flat[i] = original.flat[i] - eps / 2.0
            target[:] = cast(v)
            minus = run()
            out[i] = sum(np.sum((p - m) * w) for p, m, w in zip(plus, minus, weights)) / eps
            flat[i] = original.flat[i]
        target[:] = cast(original)
    return grads


def _grad_of(exe, name, given):
    return exe.grad_dict[name] if name in exe.grad_dict else given[name]


def numeric_gradient_check(sym, location, aux_states, numeric_eps, rtol, atol, grad_nodes, use_forward_train, ctx,
                           grad_stype_dict, dtype):
    """check_numeric_gradient's body (see there)."""
    location = parse_location(sym, location, ctx, dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux = parse_aux_states(sym, aux_states, ctx, dtype)
    aux_npy = None if aux is None else {k: v.asnumpy() for k, v in aux.items()}
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
        grad_nodes = list(grad_nodes.keys())
    else:
        raise ValueError("grad_nodes must be None, a list of argument names or a dict name -> grad_req")
    for name, stype in (grad_stype_dict or {}).items():
        if stype not in (None, "default"):
            _tu._no_sparse(stype, "check_numeric_gradient (gradient of %s)" % name)
    # gradient buffers in each argument's dtype (an NDArray in location keeps its own, as in MXNet)
    given = {k: array(np.random.normal(0, 0.01, size=location[k].shape), ctx=ctx, dtype=location[k].dtype)
             for k in grad_nodes}
    initial = {k: g.asnumpy() for k, g in given.items()}
    exe = sym.bind(ctx, args=location, args_grad=given, grad_req=grad_req, aux_states=aux)
    outputs = exe.forward(is_train=True)
    try:
        eps = _tu.get_tolerance(outputs[0], numeric_eps, _tu.default_numeric_eps())
    except KeyError:  # an output of a dtype without a default step: use the data's
        eps = _tu.get_tolerance(np.empty(0, dtype), numeric_eps, _tu.default_numeric_eps())
    if dtype in (np.float32, np.float16):
        assert eps >= 1e-5, "finite differences in %s need numeric_eps >= 1e-5, got %g" % (dtype, eps)
    heads = [array(np.random.rand(*o.shape) + 0.1, ctx=ctx, dtype=o.dtype) for o in outputs]
    proj = [h.asnumpy().astype(np.float64) for h in heads]
    exe.backward(heads)
    symbolic = {k: _grad_of(exe, k, given) for k in grad_nodes}
    numeric = finite_differences(exe, location_npy, aux_npy, eps, use_forward_train, dtype, names=grad_nodes,
                                 proj=proj)
    for name in grad_nodes:
        names = ("NUMERICAL_%s" % name, "BACKWARD_%s" % name)
        req = grad_req[name]
        if req == "write":
            _tu.assert_almost_equal(numeric[name], symbolic[name], rtol, atol, names)
        elif req == "add":
            _tu.assert_almost_equal(numeric[name], symbolic[name].asnumpy() - initial[name], rtol, atol, names)
        elif req == "null":
            _tu.assert_almost_equal(initial[name], symbolic[name], rtol, atol, names)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (req, name))


def _head_grads(out_grads, sym, ctx, dtype):
    def conv(v):
        if isinstance(v, NDArray):
            return v
        return _to_nd(v, ctx, dtype)
    if out_grads is None:
        return None
    if isinstance(out_grads, dict):
        return [conv(out_grads[k]) for k in sym.list_outputs()]
    if isinstance(out_grads, (list, tuple)):
        return [conv(v) for v in out_grads]
    return [conv(out_grads)]


def _magnitudes(expected):
    """Per element, the scale of the random initial gradient buffer: |expected| (so that 'add'
    accumulates with no more rounding than the gradient's own), or where that is 0 or not finite
    the largest finite |expected| (1 if none)."""
    mag = np.abs(expected.astype(np.float64))
    finite = np.isfinite(mag) & (mag > 0)
    fallback = float(mag[finite].max()) if finite.any() else 1.0
    return np.where(finite, mag, fallback)


def symbolic_backward_check(sym, location, out_grads, expected, rtol, atol, aux_states, grad_req, ctx, grad_stypes,
                            equal_nan, dtype):
    """check_symbolic_backward's body (see there)."""
    location = parse_location(sym, location, ctx, dtype)
    aux = parse_aux_states(sym, aux_states, ctx, dtype)
    names = sym.list_arguments()
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected))
    expected = {k: v.asnumpy() if isinstance(v, NDArray) else np.asarray(v) for k, v in expected.items()}
    asnumpy = isinstance(dtype, str) and dtype == "asnumpy"
    given = {}
    for k in sorted(expected):
        if grad_stypes is not None and grad_stypes.get(k) not in (None, "default"):
            _tu._no_sparse(grad_stypes[k], "check_symbolic_backward (gradient of %s)" % k)
        given[k] = array(np.random.normal(size=expected[k].shape) * _magnitudes(expected[k]), ctx=ctx,
                         dtype=expected[k].dtype if asnumpy else dtype)
    initial = {k: g.asnumpy() for k, g in given.items()}
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in names}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(names, grad_req))
    exe = sym.bind(ctx=ctx, args=location, args_grad=given, aux_states=aux, grad_req=grad_req)
    exe.forward(is_train=True)
    exe.backward(_head_grads(out_grads, sym, ctx, "float32" if asnumpy else dtype))
    grads = {k: _grad_of(exe, k, given) for k in given}
    for name in expected:
        req = grad_req.get(name, "null")
        labels = ("EXPECTED_%s" % name, "BACKWARD_%s" % name)
        if req == "write":
            _tu.assert_almost_equal(expected[name], grads[name], rtol, atol, labels, equal_nan=equal_nan)
        elif req == "add":
            _tu.assert_almost_equal(expected[name], grads[name].asnumpy() - initial[name], rtol, atol, labels,
                                    equal_nan=equal_nan)
        elif req == "null":
            _tu.assert_almost_equal(initial[name], grads[name], rtol, atol, labels, equal_nan=equal_nan)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (req, name))
    return grads


def speed(sym, location, ctx, N, grad_req, typ, kwargs):
    """check_speed's body (see there)."""
    import symnet as mx
    if location is None:
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {k: np.random.normal(size=arr.shape, scale=1.0) for k, arr in exe.arg_dict.items()}
    else:
        assert isinstance(location, dict), 'Expect dict, get "location"=%s' % str(location)
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        exe.arg_dict[name][:] = value
    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')
    train = typ == "whole"

    def step():
        exe.forward(is_train=train)
        if train:
            exe.backward(out_grads=exe.outputs)

    step()
    for output in exe.outputs:
        output.wait_to_read()
    tic = _time.time()
    for _ in range(N):
        step()
    mx.nd.waitall()
    return (_time.time() - tic) / N


# ---- check_consistency ----------------------------------------------------------------------
def _precision(dtype):
    """Sort key of output dtypes: more mantissa bits is more precise (bfloat16 has 7)."""
    dtype = _tu._as_dtype(dtype)
    if dtype == _tu._bfloat16:
        return 7
    if dtype.kind == "f":
        return np.finfo(dtype).nmant
    return dtype.itemsize * 8


def _smaller(dt1, dt2):
    """The dtype of fewer bytes (dt2 on a tie), as MXNet picks the least precise dtype."""
    if dt2 is None:
        return dt1
    return dt1 if _tu._as_dtype(dt1).itemsize < _tu._as_dtype(dt2).itemsize else dt2


def _compare(arr, ref, rtol, atol, names, equal_nan, raise_on_err, header):
    try:
        _tu.assert_almost_equal(arr, ref, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan)
    except AssertionError as e:
        print(header)
        if raise_on_err:
            raise
        print(str(e))


def consistency_check(sym, ctx_list, scale, grad_req, arg_params, aux_params, rtol, atol, raise_on_err,
                      ground_truth, equal_nan, use_uniform, rand_type):
    """check_consistency's body (see there)."""
    assert len(ctx_list) > 1
    syms = [sym] * len(ctx_list) if isinstance(sym, Symbol) else list(sym)
    assert len(syms) == len(ctx_list)
    output_names, arg_names = syms[0].list_outputs(), syms[0].list_arguments()
    exes = []
    for i, (s, spec) in enumerate(zip(syms, ctx_list)):
        assert s.list_arguments() == arg_names, "symbol %d has arguments %s, symbol 0 %s" % (
            i, s.list_arguments(), arg_names)
        assert s.list_outputs() == output_names, "symbol %d has outputs %s, symbol 0 %s" % (
            i, s.list_outputs(), output_names)
        exes.append(s.simple_bind(grad_req=grad_req, **spec))
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for name, arr in sorted(exes[0].arg_dict.items(), key=lambda kv: kv[0]):
        if name not in arg_params:
            if use_uniform:
                value = np.random.uniform(low=-0.92 * scale, high=0.92 * scale, size=arr.shape)
            else:
                value = np.random.normal(size=arr.shape, scale=scale)
            arg_params[name] = value.astype(rand_type)
    for name in exes[0].aux_dict:
        aux_params.setdefault(name, 0)
    for exe in exes:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == "add":
            for arr in exe.grad_dict.values():
                arr[:] = 0
    dtypes = [_tu._as_dtype(exe.outputs[0].dtype) for exe in exes]
    ref = max(range(len(exes)), key=lambda i: (_precision(dtypes[i]), -i))

    def label(i, name):
        if i is None:
            return "ground truth %s" % name
        return "binding %d (%s, %s) %s" % (i, exes[i]._ctx, dtype_name(dtypes[i]), name)

    ref_label = None if ground_truth is not None else ref

    def truth(names_arrays):
        return ground_truth if ground_truth is not None else dict(names_arrays)

    for exe in exes:
        exe.forward(is_train=False)
    gt = truth(zip(output_names, exes[ref].outputs))
    for i, exe in enumerate(exes):
        if i == ref:
            continue
        for name, arr in zip(output_names, exe.outputs):
            _compare(arr, gt[name], rtol, atol, (label(i, name), label(ref_label, name)), equal_nan, raise_on_err,
                     "Predict Err: ctx %d vs ctx %d at %s" % (i, ref, name))
    if grad_req != "null":
        for exe in exes:
            exe.forward(is_train=True)
        least = [o.dtype for o in exes[0].outputs]
        for exe in exes:
            least = [_smaller(o.dtype, dt) for o, dt in zip(exe.outputs, least)]
        golden = [o.astype(dtype_name(dt)).asnumpy() for o, dt in zip(exes[0].outputs, least)]
        for exe in exes:
            exe.backward([array(g, ctx=o.context, dtype=o.dtype) for g, o in zip(golden, exe.outputs)])
        ref_grads = [exes[ref].grad_dict.get(n) for n in arg_names]
        gt = truth(list(zip(output_names, exes[ref].outputs)) + list(zip(arg_names, ref_grads)))
        for i, exe in enumerate(exes):
            if i == ref:
                continue
            grads = [exe.grad_dict.get(n) for n in arg_names]
            for name, arr in zip(output_names + arg_names, list(exe.outputs) + grads):
                ref_arr = gt.get(name)
                if ref_arr is None:
                    assert arr is None, "binding %d has a gradient for %s, the reference none" % (i, name)
                    continue
                rt, at = rtol, atol
                small, small_ref = _smaller(arr.dtype, dtypes[i]), _smaller(ref_arr.dtype, dtypes[ref])
                if _tu._as_dtype(small) != _tu._as_dtype(arr.dtype) or \
                        _tu._as_dtype(small_ref) != _tu._as_dtype(ref_arr.dtype):
                    rt, at = _tu.get_tols(np.empty(0, _tu._as_dtype(small)), np.empty(0, _tu._as_dtype(small_ref)),
                                          rtol, atol)
                _compare(arr, ref_arr, rt, at, (label(i, name), label(ref_label, name)), equal_nan, raise_on_err,
                         "Train Err: %s ctx %d vs %s ctx %d at %s" % (dtype_name(arr.dtype), i,
                                                                      dtype_name(ref_arr.dtype), ref, name))
    return [[o.asnumpy() for o in exe.outputs] for exe in exes]


# ---- chi-square -----------------------------------------------------------------------------
def chi_square(generator, buckets, probs, nsamples):
    """chi_square_check's body (see there): Pearson's statistic against the expected counts and
    its chi-square(len(buckets) - 1) survival probability."""
    assert isinstance(buckets, list)
    samples = _tu._to_numpy(generator(nsamples))
    assert len(probs) == len(buckets)
    continuous = isinstance(buckets[0], (list, tuple))
    if continuous:
        edges = np.zeros(len(buckets) * 2, dtype=np.float64)
        for i, (low, high) in enumerate(buckets):
            assert low <= high
            if i < len(buckets) - 1:
                assert high <= buckets[i + 1][0]
            edges[2 * i], edges[2 * i + 1] = low, high
        ids = np.searchsorted(edges, samples, side="right") // 2
    else:
        ids = np.asarray(samples)
    expected = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    observed = np.zeros(len(buckets), dtype=np.int64)
    for i, bucket in enumerate(buckets):
        observed[i] = (ids == (i if continuous else bucket)).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = float(np.sum((observed - expected) ** 2 / expected.astype(np.float64)))
    return float(_tu.ss.chi2.sf(stat, len(buckets) - 1)), observed, expected


# ---- optimizers -----------------------------------------------------------------------------
def _random_pair(shape, stype, dtype, ctx):
    import symnet as mx
    if stype == "default":
        second = mx.random.uniform(shape=shape, ctx=ctx, dtype=dtype)
        return second.copyto(ctx), second
    if stype in ("row_sparse", "csr"):
        _tu._no_sparse(stype, "compare_optimizer")
    raise Exception("type not supported yet")


def _method(opt, name, fallback):
    return getattr(opt, name, None) or getattr(opt, fallback)


def compare_optimizers(opt1, opt2, shape, dtype, w_stype, g_stype, rtol, atol, compare_states, ntensors,
                       noise_seed):
    """compare_optimizer's body; with noise_seed, the random seed is reset before each update."""
    import symnet as mx
    ctx = _tu.default_context()
    if not isinstance(shape, list):
        assert ntensors == 1
        w1, w2 = _random_pair(shape, w_stype, dtype, ctx)
        g1, g2 = _random_pair(shape, g_stype, dtype, ctx)
        state1 = _method(opt1, "create_state_multi_precision", "create_state")(0, w1)
        state2 = _method(opt2, "create_state_multi_precision", "create_state")(0, w2)
        if compare_states:
            _tu.compare_ndarray_tuple(state1, state2)
        for opt, w, g, state in ((opt1, w1, g1, state1), (opt2, w2, g2, state2)):
            if noise_seed is not None:
                mx.random.seed(noise_seed)
            _method(opt, "update_multi_precision", "update")(0, w, g, state)
        if compare_states:
            _tu.compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        _tu.assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(mx.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(mx.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2, g2 = tuple(w.copy() for w in w1), tuple(g.copy() for g in g1)
    create2 = _method(opt2, "create_state_multi_precision", "create_state")
    state2 = [create2(0, w2[i]) for i in range(ntensors)]
    _method(opt2, "update_multi_precision", "update")(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = _method(opt1, "create_state_multi_precision", "create_state")(i, w1[i])
        _method(opt1, "update_multi_precision", "update")(i, w1[i], g1[i], state1)
        if compare_states:
            _tu.compare_ndarray_tuple(state1, state2[i], rtol, atol)
        _tu.compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


# ---- Gluon and linear algebra ---------------------------------------------------------------
def hybridize_consistency(net_builder, data_l, numpy_func, test_grad, rtol, atol, assert_close):
    """check_gluon_hybridize_consistency's body: every (hybridize, autograd) combination must give
    the outputs (and input gradients) of the first, with the parameters of the first build."""
    import symnet as mx

    class _Cached(mx.init.Initializer):
        def __init__(self, values):
            super().__init__()
            self._values = values

        def _init_weight(self, name, arr):
            arr[()] = self._values[name]

    saved_out = saved_grads = init = None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix="net_")
            net.initialize() if init is None else net.initialize(init)
            if hybridize:
                net.hybridize()
            inputs = [x.copy() for x in data_l]
            if use_autograd:
                for x in inputs:
                    x.attach_grad()
                with mx.autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if init is None:
                init = _Cached({k: v.data().asnumpy() for k, v in net.collect_params().items()})
            if saved_out is None:
                saved_out = out.asnumpy()
            else:
                assert_close(out.asnumpy(), saved_out, rtol=rtol, atol=atol)
            if use_autograd:
                if saved_grads is None:
                    saved_grads = [x.grad.asnumpy() for x in inputs]
                else:
                    for x, g in zip(inputs, saved_grads):
                        assert_close(x.grad.asnumpy(), g, rtol=rtol, atol=atol)
    if numpy_func is not None:
        assert_close(saved_out, numpy_func(*[x.asnumpy() for x in data_l]), rtol=rtol, atol=atol)


def matrix_with_real_eigvals(n):
    """Q^-1 D Q for D diagonal uniform on [-10, 10] and Q = (Householder reflection) x (diagonal
    uniform on [-1, 1]) redrawn until its 2-norm condition number is below 3."""
    while True:
        scales = np.diag(np.random.uniform(-1.0, 1.0, n))
        v = np.random.uniform(-1., 1., n).reshape(n, 1)
        v = v / np.linalg.norm(v, axis=-2, keepdims=True)
        q = np.matmul(np.eye(n) - 2 * np.matmul(v, v.T), scales)
        if np.linalg.cond(q, 2) < 3:
            break
    d = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(np.linalg.inv(q), d), q)
