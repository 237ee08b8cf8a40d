"""The random samplers (_random_*, _sample_*, _shuffle) and mx.nd.random / mx.sym.random /
mx.random: moments and Kolmogorov-Smirnov tests at a fixed seed (float32 and float64), the 16-bit
outputs against float64 at the same seed, _sample_* per-element parameters, reproducibility under
mx.random.seed, shuffle, and the parameter, shape and dtype errors.

The samples are deterministic functions of the seed, so the statistical bounds below (5 standard
errors, KS p-value > 1e-3) are checked once, not re-drawn: a test cannot flake. The KS statistic
and its asymptotic p-value are computed here, without scipy.

RANDOM_CASES is also what tests/python/gpu/test_operator_gpu.py compares between the CPU and a
GPU (same seed, same numbers)."""
import math

import numpy as np
import pytest

import symnet as mx

N_SAMPLES = 20000


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def normal_cdf(x, loc, scale):
    return 0.5 * (1 + _erf((x - loc) / (scale * math.sqrt(2))))


def gamma_cdf(x, alpha, beta):
    """Closed forms for the shapes tested: alpha = 1/2 (a scaled chi-square of 1 degree of freedom)
    and integer alpha (Erlang)."""
    x = np.maximum(np.asarray(x, dtype=np.float64) / beta, 0)
    if alpha == 0.5:
        return _erf(np.sqrt(x))
    assert alpha == int(alpha)
    term, total = np.ones_like(x), np.zeros_like(x)
    for j in range(int(alpha)):
        total += term
        term = term * x / (j + 1)
    return 1 - np.exp(-x) * total


def ks_pvalue(samples, cdf):
    """The one-sample KS statistic D and the asymptotic p-value (Kolmogorov's series, with
    Stephens' small-sample correction of the argument)."""
    x = np.sort(np.asarray(samples, dtype=np.float64))
    n = len(x)
    f = cdf(x)
    d = max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return d, min(max(p, 0.0), 1.0)


def test_ks_pvalue_helper():
    """The helper itself: numpy's normal samples pass, shifted ones fail."""
    z = np.random.RandomState(1).normal(size=5000)
    assert ks_pvalue(z, lambda x: normal_cdf(x, 0, 1))[1] > 0.01
    assert ks_pvalue(z + 0.1, lambda x: normal_cdf(x, 0, 1))[1] < 1e-6


# (name, mx.nd.random function, parameters, mean, variance, 4th central moment, CDF or None)
RANDOM_CASES = [
    ("uniform", "uniform", dict(low=-2.0, high=3.0), 0.5, 25 / 12, 5 ** 4 / 80,
     lambda x: np.clip((x + 2) / 5, 0, 1)),
    ("normal", "normal", dict(loc=1.5, scale=2.0), 1.5, 4.0, 3 * 16.0,
     lambda x: normal_cdf(x, 1.5, 2.0)),
    ("gamma_small", "gamma", dict(alpha=0.5, beta=2.0), 1.0, 2.0, 3 * 0.5 * 2.5 * 16,
     lambda x: gamma_cdf(x, 0.5, 2.0)),
    ("gamma", "gamma", dict(alpha=3.0, beta=0.5), 1.5, 0.75, 3 * 3 * 5 * 0.5 ** 4,
     lambda x: gamma_cdf(x, 3, 0.5)),
    ("exponential", "exponential", dict(scale=2.0), 2.0, 4.0, 9 * 16.0,
     lambda x: 1 - np.exp(-np.maximum(x, 0) / 2.0)),
    ("poisson_small", "poisson", dict(lam=3.0), 3.0, 3.0, 3.0 * (1 + 9.0), None),
    ("poisson_large", "poisson", dict(lam=40.0), 40.0, 40.0, 40.0 * (1 + 120.0), None),
]


def poisson_pmf(k, lam):
    return np.exp(k * math.log(lam) - lam - np.vectorize(math.lgamma)(k + 1.0))


def check_moments(x, mean, var, mu4, what):
    n = len(x)
    se_mean, se_var = math.sqrt(var / n), math.sqrt((mu4 - var * var) / n)
    assert abs(x.mean() - mean) < 5 * se_mean, "%s: mean %g, expected %g" % (what, x.mean(), mean)
    assert abs(x.var() - var) < 5 * se_var, "%s: variance %g, expected %g" % (what, x.var(), var)


def check_poisson_counts(x, lam, what):
    """Every count's frequency within 5 standard errors (plus one) of the pmf."""
    assert np.all(x == np.round(x)) and x.min() >= 0, what
    ks = np.arange(0, int(x.max()) + 1)
    counts = np.bincount(x.astype(np.int64), minlength=len(ks))
    expected = len(x) * poisson_pmf(ks, lam)
    bound = 5 * np.sqrt(expected * (1 - expected / len(x))) + 1
    bad = np.abs(counts - expected) > bound
    assert not bad.any(), "%s: counts %s, expected %s" % (what, counts[bad], expected[bad])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", RANDOM_CASES, ids=lambda c: c[0])
def test_random_distribution(case, dtype):
    name, fn, params, mean, var, mu4, cdf = case
    mx.random.seed(11)
    out = getattr(mx.nd.random, fn)(shape=(N_SAMPLES // 100, 100), dtype=dtype, **params)
    assert out.dtype == np.dtype(dtype) and out.shape == (N_SAMPLES // 100, 100)
    x = out.asnumpy().astype(np.float64).ravel()
    check_moments(x, mean, var, mu4, name)
    if cdf is None:
        check_poisson_counts(x, params["lam"], name)
    else:
        d, p = ks_pvalue(x, cdf)
        assert p > 1e-3, "%s: KS D = %g, p = %g" % (name, d, p)
    if fn == "uniform":
        assert x.min() >= params["low"] and x.max() < params["high"]
    if fn in ("gamma", "exponential"):
        assert x.min() >= 0


@pytest.mark.parametrize("case", RANDOM_CASES, ids=lambda c: c[0])
def test_random_16bit_outputs_are_float64_samples_rounded(case):
    """At one seed every dtype draws the same samples: float32/16/bfloat16 are the float64 ones
    rounded (poisson's counts are exact in all of them below 256)."""
    _, fn, params = case[:3]
    outs = {}
    for dtype in ["float64", "float32", "float16", "bfloat16"]:
        mx.random.seed(3)
        a = getattr(mx.nd.random, fn)(shape=(500,), dtype=dtype, **params)
        assert a.dtype == mx.base.numpy_dtype(dtype)
        outs[dtype] = a.asnumpy().astype(np.float64)
    ref = outs["float64"]
    # float16's subnormals (below 2^-14) are spaced 2^-24 apart
    for dtype, rtol, atol in [("float32", 1e-7, 1e-30), ("float16", 2 ** -11, 2 ** -25),
                              ("bfloat16", 2 ** -8, 1e-30)]:
        np.testing.assert_allclose(outs[dtype], ref, rtol=rtol, atol=atol, err_msg=dtype)


def test_uniform_float32_stays_below_high():
    """low + (high - low) u can round up to high in float32; the kernel keeps it below."""
    mx.random.seed(0)
    x = mx.nd.random.uniform(1.0, 1.0 + 2 ** -20, shape=(4000,)).asnumpy()
    assert x.min() >= 1.0 and x.max() < np.float32(1.0 + 2 ** -20)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_randint(dtype):
    mx.random.seed(5)
    out = mx.nd.random.randint(-3, 4, shape=(N_SAMPLES,), dtype=dtype)
    assert out.dtype == np.dtype(dtype)
    x = out.asnumpy()
    assert x.min() == -3 and x.max() == 3
    counts = np.bincount(x + 3)
    assert np.all(np.abs(counts - N_SAMPLES / 7) < 5 * math.sqrt(N_SAMPLES / 7 * 6 / 7)), counts
    assert mx.nd.random.randint(0, 5, shape=(3,)).dtype == np.int32  # MXNet's default


def test_randint_wide_int64_range():
    lo, hi = -(2 ** 40), 2 ** 40 + 3
    x = mx.nd.random.randint(lo, hi, shape=(2000,), dtype="int64").asnumpy()
    assert x.min() >= lo and x.max() < hi
    assert abs(x.mean()) < 5 * (hi - lo) / math.sqrt(12 * 2000)
    with pytest.raises(mx.MXNetError, match="int32's range"):
        mx.nd.random.randint(lo, hi, shape=(2,))


# (op, mx.nd.random function, parameter arrays, mean(params), var(params))
RANDOM_SAMPLE_CASES = [
    ("_sample_uniform", "uniform", [[[0.0, 1.0, -2.0]], [[1.0, 5.0, -1.0]]],
     lambda a, b: (a + b) / 2, lambda a, b: (b - a) ** 2 / 12),
    ("_sample_normal", "normal", [[[0.0, 10.0, -3.0]], [[1.0, 0.5, 3.0]]],
     lambda m, s: m, lambda m, s: s * s),
    ("_sample_gamma", "gamma", [[[0.5, 2.0, 9.0]], [[1.0, 3.0, 0.25]]],
     lambda a, b: a * b, lambda a, b: a * b * b),
    ("_sample_exponential", "exponential", [[[0.5, 1.0, 4.0]]],
     lambda s: s, lambda s: s * s),
    ("_sample_poisson", "poisson", [[[0.5, 4.0, 25.0]]],
     lambda lam: lam, lambda lam: lam),
]


@pytest.mark.parametrize("case", RANDOM_SAMPLE_CASES, ids=lambda c: c[0])
def test_sample_ops_draw_per_parameter_element(case):
    """Output shape = the parameters' shape + `shape`; each element's samples follow its own
    parameters (within 5 standard errors of the mean)."""
    op, fn, params, mean, var = case
    arrays = [mx.nd.array(p, dtype="float64") for p in params]
    mx.random.seed(9)
    out = getattr(mx.nd.random, fn)(*arrays, shape=(2000,))
    assert out.shape == (1, 3, 2000) and out.dtype == np.float32  # dtype None: float32 (MXNet)
    x = out.asnumpy().astype(np.float64)
    p = [np.asarray(a, dtype=np.float64)[..., None] for a in params]
    if fn == "exponential":
        # mx.nd.random.exponential takes the scale and passes its inverse, the rate, to the op
        arrays = [1.0 / arrays[0]]
    m, v = mean(*p), var(*p)
    assert np.all(np.abs(x.mean(axis=-1, keepdims=True) - m) < 5 * np.sqrt(v / 2000)), (x.mean(-1), m)
    # the op itself, imperatively and as a symbol, with a float64 output and no `shape`
    direct = getattr(mx.nd, op)(*arrays, dtype="float64")
    assert direct.shape == (1, 3) and direct.dtype == np.float64
    args = [mx.sym.var("p%d" % i) for i in range(len(arrays))]
    sym = getattr(mx.sym, op)(*args, shape=(4, 2))
    _, out_shapes, _ = sym.infer_shape(**{"p%d" % i: (1, 3) for i in range(len(arrays))})
    assert out_shapes == [(1, 3, 4, 2)]


@pytest.mark.parametrize("case", RANDOM_SAMPLE_CASES, ids=lambda c: c[0])
def test_sample_ops_give_zero_gradients(case):
    """MXNet's rule: the parameters get zero gradients (write and add requests)."""
    op, _, params = case[:3]
    names = ["p%d" % i for i in range(len(params))]
    sym = getattr(mx.sym, op)(*[mx.sym.var(n) for n in names], shape=(2,))
    for req in ["write", "add"]:
        exe = sym.simple_bind(mx.cpu(), grad_req=req, **{n: (1, 3) for n in names})
        for n, p in zip(names, params):
            exe.arg_dict[n][:] = np.asarray(p)
            exe.grad_dict[n][:] = 7.0
        exe.forward(is_train=True)
        exe.backward([mx.nd.ones((1, 3, 2))])
        for n in names:
            np.testing.assert_array_equal(exe.grad_dict[n].asnumpy(), 0.0 if req == "write" else 7.0)


def test_seed_repeats_and_changes_results():
    def draw():
        return [mx.nd.random.uniform(shape=(5,)).asnumpy(), mx.nd.random.normal(shape=(5,)).asnumpy(),
                mx.random.gamma(2.0, shape=(5,)).asnumpy(), mx.random.poisson(20.0, shape=(5,)).asnumpy(),
                mx.nd.random.randint(0, 1000, shape=(5,)).asnumpy(),
                mx.nd.random.shuffle(mx.nd.arange(20)).asnumpy()]
    mx.random.seed(42)
    a = draw()
    mx.random.seed(42)
    b = draw()
    mx.random.seed(43)
    c = draw()
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)
    # successive calls draw new numbers
    assert not np.array_equal(a[0], mx.nd.random.uniform(shape=(5,)).asnumpy())


def test_symbol_without_inputs_binds_and_redraws_every_forward():
    sym = mx.sym.random.uniform(low=-1, high=1, shape=(2, 3))
    assert sym.list_arguments() == [] and sym.infer_shape()[1] == [(2, 3)]
    assert sym.infer_type()[1] == [np.float32]
    assert mx.sym.random.normal(shape=(2,), dtype="float64").infer_type()[1] == [np.float64]
    assert mx.sym.random.randint(0, 3, shape=(2,)).infer_type()[1] == [np.int32]
    exe = sym.simple_bind(mx.cpu())
    mx.random.seed(1)
    first = exe.forward()[0].asnumpy()
    second = exe.forward()[0].asnumpy()
    assert first.shape == (2, 3) and not np.array_equal(first, second)
    assert np.all(first >= -1) and np.all(first < 1)
    mx.random.seed(1)
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), first)
    # a 0 dim is taken from the graph (MXNet's convention); dtype None is float32, so a float64
    # graph needs dtype='float64' (MXNet 1.9.1 fails alike)
    x = mx.sym.var("x")
    y = mx.sym.elemwise_add(x, mx.sym.random.normal(shape=(0, 3)))
    _, out_shapes, _ = y.infer_shape(x=(4, 3))
    assert out_shapes == [(4, 3)]
    with pytest.raises(mx.MXNetError, match="float64.*float32|float32.*float64"):
        y.infer_type(x="float64")
    y = mx.sym.elemwise_add(x, mx.sym.random.normal(shape=(0, 3), dtype="float64"))
    assert y.infer_type(x="float64")[1] == [np.float64]


def test_sym_random_dispatches_on_parameter_type_and_writes_mxnet_json():
    assert mx.sym.random.uniform(0, 1, shape=(2,)).tojson().count('"_random_uniform"') == 1
    mu, sigma = mx.sym.var("mu"), mx.sym.var("sigma")
    s = mx.sym.random.normal(mu, sigma, shape=(3,))
    assert s.list_arguments() == ["mu", "sigma"] and '"_sample_normal"' in s.tojson()
    # MXNet's input names: unnamed inputs become variables named after them
    assert mx.sym._sample_uniform(name="u", shape=(2,)).list_arguments() == ["u_low", "u_high"]
    assert mx.sym._sample_poisson(name="p").list_arguments() == ["p_lam"]
    e = mx.sym.random.exponential(mx.sym.var("scale"), shape=(2,))
    assert '"_rdiv_scalar"' in e.tojson() and '"_sample_exponential"' in e.tojson()
    with pytest.raises(TypeError, match="same type"):
        mx.sym.random.normal(mu, 1.0)
    with pytest.raises(TypeError, match="same type"):
        mx.nd.random.normal(mx.nd.ones((2,)), 1.0)
    # the aliases of MXNet 1.9.1
    for alias, op in [("uniform", "_random_uniform"), ("random_normal", "_random_normal"),
                      ("random_randint", "_random_randint"), ("sample_gamma", "_sample_gamma"),
                      ("shuffle", "_shuffle")]:
        assert alias in mx._core.op_info(op)["aliases"]


def test_mx_random_functions_and_defaults():
    """mx.random.* are mx.nd.random.*; a scalar parameter and no shape give one sample."""
    assert mx.random.uniform is mx.nd.random.uniform
    assert mx.nd.random.uniform().shape == (1,)
    assert mx.nd.random.randn(2, 3).shape == (2, 3)
    out = mx.nd.zeros((2, 2), dtype="float64")
    assert mx.nd.random.normal(out=out) is out and out.dtype == np.float64


def test_shuffle_permutes_rows():
    mx.random.seed(4)
    v = mx.nd.random.shuffle(mx.nd.arange(50)).asnumpy()
    assert sorted(v.tolist()) == list(range(50)) and not np.array_equal(v, np.arange(50))
    m = np.arange(60, dtype=np.int32).reshape(20, 3)
    s = mx.nd.random.shuffle(mx.nd.array(m, dtype="int32"))
    assert s.dtype == np.int32
    s = s.asnumpy()
    assert sorted(s[:, 0].tolist()) == list(range(0, 60, 3))
    np.testing.assert_array_equal(s[:, 1:] - s[:, :1], np.tile([1, 2], (20, 1)))  # rows moved whole
    # every permutation of 3 rows appears, about equally often
    seen = {}
    for _ in range(600):
        key = tuple(mx.nd.shuffle(mx.nd.arange(3)).asnumpy().astype(int))
        seen[key] = seen.get(key, 0) + 1
    assert len(seen) == 6 and min(seen.values()) > 60, seen


def test_shuffle_has_no_gradient_and_no_in_place_output():
    x = mx.sym.var("x")
    exe_ok = mx.sym.shuffle(x).simple_bind(mx.cpu(), x=(3, 2), grad_req="null")
    assert exe_ok.forward()[0].shape == (3, 2)
    with pytest.raises(mx.MXNetError, match="no gradient"):
        mx.sym.shuffle(x).simple_bind(mx.cpu(), x=(3, 2))
    a = mx.nd.ones((3,))
    with pytest.raises(mx.MXNetError, match="must not be the input"):
        mx.nd.random.shuffle(a, out=a)


RANDOM_BAD_PARAMS = [
    ("_random_uniform", dict(low=2, high=1), "low .2. must not exceed high .1."),
    ("_random_normal", dict(scale=-1), "scale .-1. must be positive"),
    ("_random_normal", dict(scale=0), "scale .0. must be positive"),
    ("_random_gamma", dict(alpha=0), "alpha .0. must be positive"),
    ("_random_gamma", dict(beta=-2), "beta .-2. must be positive"),
    ("_random_exponential", dict(lam=0), "lam .0. must be positive"),
    ("_random_poisson", dict(lam=-1), "lam .-1. must be non-negative"),
    ("_random_randint", dict(low=5, high=5), "low .5. must be less than high .5."),
    ("_random_uniform", dict(dtype="int32"), "int32"),
    ("_random_randint", dict(low=0, high=2, dtype="float32"), "float32"),
]


@pytest.mark.parametrize("op,params,match", RANDOM_BAD_PARAMS)
def test_random_bad_parameters_name_the_node(op, params, match):
    with pytest.raises(mx.MXNetError, match=match):
        getattr(mx.sym, op)(shape=(2,), name="r1", **params)
    with pytest.raises(mx.MXNetError, match=match):
        getattr(mx.nd, op)(shape=(2,), **params)


def test_sample_shape_and_dtype_errors():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.random.normal(a, b, shape=(2,), name="s1")
    with pytest.raises(mx.MXNetError, match=r"s1.*sigma.*\(3,\).*\(2,\)|s1.*sigma.*\(2,\).*\(3,\)"):
        s.infer_shape(a=(2,), b=(3,))
    with pytest.raises(mx.MXNetError, match="s1.*sigma.*float16"):
        s.infer_type(a="float32", b="float16")
    with pytest.raises(mx.MXNetError, match="s1.*int32"):
        s.infer_type(a="int32", b="int32")
    # the dtype attribute decides the output's dtype; the graph must agree with it
    r = mx.sym.elemwise_add(mx.sym.var("x"), mx.sym.random.uniform(shape=(2,), dtype="float16", name="u1"))
    with pytest.raises(mx.MXNetError, match="float32 but the operator expects float16"):
        r.infer_type(x="float32")


def test_random_zero_size_outputs():
    assert mx.nd.random.uniform(shape=(0, 3)).shape == (0, 3)
    assert mx.nd.random.poisson(2.0, shape=(4, 0)).shape == (4, 0)
    assert mx.nd.random.normal(mx.nd.zeros((0, 2)), mx.nd.ones((0, 2)), shape=(3,)).shape == (0, 2, 3)
    assert mx.nd.random.gamma(mx.nd.ones((2,)), mx.nd.ones((2,)), shape=(0,)).shape == (2, 0)
    assert mx.nd.random.shuffle(mx.nd.zeros((0, 4))).shape == (0, 4)


# MXNet 1.9.1's JSON nodes (op, name, attributes) for the graph built in the test below
MXNET_RANDOM_NODES = [
    ["null", "mu", {}], ["null", "sigma", {}], ["_sample_normal", "n", {"shape": "(2,)"}],
    ["_random_uniform", "u", {"high": "1", "low": "-1", "shape": "(3, 2)"}],
    ["_random_gamma", "g", {"alpha": "2", "beta": "3", "dtype": "float64", "shape": "(3, 2)"}],
    ["_random_randint", "r", {"high": "9", "low": "0", "shape": "(4,)"}], ["null", "x", {}],
    ["_shuffle", "s", {}], ["null", "lam", {}], ["_sample_poisson", "p", {}],
    ["_random_exponential", "ex", {"lam": "0.5", "shape": "(2,)"}]]


def test_random_graph_json_matches_mxnet_and_loads():
    import json
    a = mx.sym.random.normal(mx.sym.var("mu"), mx.sym.var("sigma"), shape=(2,), name="n")
    b = mx.sym.random.uniform(-1, 1, shape=(3, 2), name="u")
    c = mx.sym.random.gamma(2, 3, shape=(3, 2), dtype="float64", name="g")
    d = mx.sym.random.randint(0, 9, shape=(4,), name="r")
    e = mx.sym.shuffle(mx.sym.var("x"), name="s")
    f = mx.sym.random.poisson(mx.sym.var("lam"), name="p")
    g = mx.sym.random.exponential(scale=2.0, shape=(2,), name="ex")
    ours = json.loads(mx.sym.Group([a, b, c, d, e, f, g]).tojson())
    assert [[n["op"], n["name"], n.get("attrs", {})] for n in ours["nodes"]] == MXNET_RANDOM_NODES
    graph = {"nodes": [{"op": op, "name": name, "attrs": attrs,
                        "inputs": [[k, 0, 0] for k in {2: [0, 1], 7: [6], 9: [8]}.get(i, [])]}
                       for i, (op, name, attrs) in enumerate(MXNET_RANDOM_NODES)],
             "arg_nodes": [0, 1, 6, 8], "heads": [[i, 0, 0] for i in (2, 3, 4, 5, 7, 9, 10)],
             "attrs": {"mxnet_version": ["int", 10901]}}
    sym = mx.sym.load_json(json.dumps(graph))
    exe = sym.simple_bind(mx.cpu(), grad_req="null", mu=(3,), sigma=(3,), x=(4, 2), lam=(2,))
    assert [(o.shape, o.dtype) for o in exe.forward()] == [
        ((3, 2), np.float32), ((3, 2), np.float32), ((3, 2), np.float64), ((4,), np.int32),
        ((4, 2), np.float32), ((2,), np.float32), ((2,), np.float32)]
