"""MXNet 1.9.1 operators symnet lacked (issue 39): contrib.rand_zipfian, _sample_unique_zipfian,
reset_arrays, _slice_assign/_crop_assign, _identity_with_attr_like_rhs, linalg.gelqf and the
random_pdf_* densities. Each against a NumPy reference (the densities against closed forms),
with float64 finite-difference gradients where the op has a gradient."""
import math

import numpy as np

import symnet as mx


def _zipf_expected(classes, range_max, num_sampled):
    c = np.asarray(classes, np.float64)
    return np.log((c + 2) / (c + 1)) / math.log(range_max + 1) * num_sampled


def test_rand_zipfian_nd_and_sym_give_classes_in_range_and_their_expected_counts():
    mx.random.seed(3)
    true = mx.nd.array([0, 3, 19], dtype="int32")
    sampled, cnt_true, cnt_sampled = mx.nd.contrib.rand_zipfian(true, 500, 20)
    s = sampled.asnumpy()
    assert sampled.dtype == np.int64 and s.shape == (500,) and s.min() >= 0 and s.max() < 20
    np.testing.assert_allclose(cnt_true.asnumpy(), _zipf_expected([0, 3, 19], 20, 500), rtol=1e-12)
    np.testing.assert_allclose(cnt_sampled.asnumpy(), _zipf_expected(s, 20, 500), rtol=1e-12)
    # small classes are the likely ones: class 0 has probability log(2)/log(21) = 0.23
    assert abs((s == 0).mean() - math.log(2) / math.log(21)) < 0.08
    outs = mx.sym.Group(mx.sym.contrib.rand_zipfian(mx.sym.var("t"), 50, 20))
    ex = outs.bind(mx.cpu(), {"t": true})
    ex.forward()
    s2 = ex.outputs[0].asnumpy()
    assert s2.shape == (50,) and s2.max() < 20
    np.testing.assert_allclose(ex.outputs[2].asnumpy(), _zipf_expected(s2, 20, 50), rtol=1e-12)


def test_sample_unique_zipfian_rows_hold_distinct_classes_and_count_their_draws():
    mx.random.seed(7)
    classes, tries = mx.nd._internal._sample_unique_zipfian(1000, shape=(3, 200))
    c, t = classes.asnumpy(), tries.asnumpy()
    assert classes.dtype == np.int64 and tries.dtype == np.int64
    assert c.shape == (3, 200) and t.shape == (3,)
    for row, n in zip(c, t):
        assert len(np.unique(row)) == 200 and row.min() >= 0 and row.max() < 1000
        assert n >= 200
    # the log-uniform favours small classes: 0 (probability 0.1) is nearly always drawn
    assert (c == 0).any(axis=1).all()
    mx.random.seed(7)
    again, _ = mx.nd._internal._sample_unique_zipfian(1000, shape=(3, 200))
    np.testing.assert_array_equal(again.asnumpy(), c)
    # every class of the range: the whole range comes out, in some order
    full, _ = mx.nd._internal._sample_unique_zipfian(5, shape=(1, 5))
    assert sorted(full.asnumpy()[0].tolist()) == [0, 1, 2, 3, 4]


def test_reset_arrays_zeroes_arrays_of_several_dtypes_in_place():
    arrays = [mx.nd.array(np.arange(1, 7).reshape(2, 3), dtype=d) for d in ("float16", "float32", "float64")]
    arrays.append(mx.nd.array([5, 6], dtype="int32"))
    mx.nd.reset_arrays(*arrays, num_arrays=len(arrays))
    for a, d in zip(arrays, ("float16", "float32", "float64", "int32")):
        assert a.dtype == np.dtype(d)
        np.testing.assert_array_equal(a.asnumpy(), np.zeros(a.shape))


def test_crop_assign_and_slice_assign_replace_a_strided_box():
    x = mx.nd.ones((2, 3, 4))
    mx.nd._internal._crop_assign(x, mx.nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 3), out=x)
    want = np.ones((2, 3, 4))
    want[0:2, 0:1, 0:3] = 0
    np.testing.assert_array_equal(x.asnumpy(), want)
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    rhs = -np.arange(6, dtype=np.float64).reshape(2, 3)
    out = mx.nd._internal._slice_assign(mx.nd.array(a, dtype="float64"), mx.nd.array(rhs, dtype="float64"),
                                        begin=(3, None), end=(None, 0), step=(-2, -2))
    want = a.copy()
    want[3::-2, :0:-2] = rhs
    np.testing.assert_array_equal(out.asnumpy(), want)
    y = mx.nd.ones((2, 3, 4))
    mx.nd._internal._crop_assign_scalar(y, scalar=5, begin=(0, 1), end=(2, 3), out=y)
    want = np.ones((2, 3, 4))
    want[0:2, 1:3] = 5
    np.testing.assert_array_equal(y.asnumpy(), want)
    # the box's shape is rhs's: inference says so, and a wrong one is an error
    s = mx.sym._internal._slice_assign(mx.sym.var("a"), mx.sym.var("b"), begin=(1,), end=(3,))
    args, outs, _ = s.infer_shape(a=(5, 2))
    assert args == [(5, 2), (2, 2)] and outs == [(5, 2)]


def test_identity_with_attr_like_rhs_carries_the_shape_back_and_passes_lhs():
    w = mx.sym.var("weight")
    wt = mx.sym.broadcast_add(w, mx.sym.var("wshift", shape=(1,)))
    wt = mx.sym._internal._identity_with_attr_like_rhs(wt, w)
    net = mx.sym.FullyConnected(data=mx.sym.var("data"), weight=wt, num_hidden=11, no_bias=True)
    args, _, _ = net.infer_shape(data=(7, 100))
    assert dict(zip(net.list_arguments(), args))["weight"] == (11, 100)
    s = mx.sym._internal._identity_with_attr_like_rhs(mx.sym.var("l"), mx.sym.var("r"))
    lhs, rhs = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    ex = s.bind(mx.cpu(), {"l": mx.nd.array(lhs), "r": mx.nd.array(rhs)},
                args_grad={"l": mx.nd.ones((2, 3)) * 7, "r": mx.nd.ones((2, 3)) * 7})
    ex.forward(is_train=True)
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), lhs)
    ex.backward(mx.nd.array(lhs + 1))
    np.testing.assert_array_equal(ex.grad_dict["l"].asnumpy(), lhs + 1)
    np.testing.assert_array_equal(ex.grad_dict["r"].asnumpy(), np.zeros((2, 3)))


def test_gelqf_factorises_with_lapack_signs():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    q, l = mx.nd.linalg.gelqf(mx.nd.array(a, dtype="float64"))
    # MXNet's documented example (LAPACK's signs: L's diagonal is -sign(a) * the row norm)
    np.testing.assert_allclose(q.asnumpy(), [[-0.26726124, -0.53452248, -0.80178373],
                                             [0.87287156, 0.21821789, -0.43643578]], rtol=1e-7)
    np.testing.assert_allclose(l.asnumpy(), [[-3.74165739, 0.0], [-8.55235974, 1.96396101]], rtol=1e-7)
    rng = np.random.RandomState(1)
    b = rng.normal(size=(2, 3, 3, 5))
    for dtype, tol in (("float64", 1e-12), ("float32", 1e-5)):
        q, l = [o.asnumpy().astype(np.float64) for o in mx.nd.linalg.gelqf(mx.nd.array(b, dtype=dtype))]
        assert q.shape == (2, 3, 3, 5) and l.shape == (2, 3, 3, 3)
        np.testing.assert_allclose(l @ q, b, atol=tol * 10)
        np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(3), (2, 3, 3, 3)), atol=tol)
        np.testing.assert_array_equal(np.triu(l, 1), 0)
        # numpy's QR of A^T is LAPACK's geqrf, the same reflections: L = R^T, Q = Q'^T
        qt, r = np.linalg.qr(np.swapaxes(b, -1, -2))
        np.testing.assert_allclose(l, np.swapaxes(r, -1, -2), atol=tol * 10)
        np.testing.assert_allclose(q, np.swapaxes(qt, -1, -2), atol=tol * 10)


def test_gelqf_gradient_matches_finite_differences():
    rng = np.random.RandomState(2)
    a = rng.normal(size=(2, 3, 4))
    sym = mx.sym.linalg.gelqf(mx.sym.var("A"))
    mx.test_utils.check_numeric_gradient(sym, [a], numeric_eps=1e-6, rtol=1e-5, atol=1e-7)
    # each output alone (the other's head gradient is zero)
    for k in range(2):
        mx.test_utils.check_numeric_gradient(sym[k], [a], numeric_eps=1e-6, rtol=1e-5, atol=1e-7)


def _pdf_cases():
    """(dist, samples (2, 3, 4), parameter arrays (2, 3), scipy's density) per distribution."""
    import scipy.stats as ss

    rng = np.random.RandomState(3)
    pos = lambda lo, hi: rng.uniform(lo, hi, size=(2, 3))  # noqa: E731
    counts = rng.randint(0, 6, size=(2, 3, 4)).astype(np.float64)
    low = pos(-2, 0)
    high = low + pos(1, 3)
    inside = low[..., None] + (high - low)[..., None] * rng.uniform(0.05, 0.95, size=(2, 3, 4))
    return [
        ("uniform", inside, [low, high], lambda x, a, b: ss.uniform.pdf(x, a, b - a)),
        ("normal", rng.normal(size=(2, 3, 4)), [pos(-1, 1), pos(0.5, 2)], ss.norm.pdf),
        ("gamma", rng.uniform(0.2, 3, size=(2, 3, 4)), [pos(0.5, 3), pos(0.5, 2)],
         lambda x, a, b: ss.gamma.pdf(x, a, 0, 1 / b)),
        ("exponential", rng.uniform(0.1, 3, size=(2, 3, 4)), [pos(0.5, 2)],
         lambda x, lam: ss.expon.pdf(x, 0, 1 / lam)),
        ("poisson", counts, [pos(0.5, 4)], ss.poisson.pmf),
        ("negative_binomial", counts, [pos(1, 4), pos(0.2, 0.8)], ss.nbinom.pmf),
        ("generalized_negative_binomial", counts, [pos(1, 4), pos(0.2, 2)],
         lambda x, mu, alpha: ss.nbinom.pmf(x, 1 / alpha, 1 / (mu * alpha + 1))),
    ]


def test_random_pdf_matches_scipy_in_every_form():
    for dist, x, params, ref in _pdf_cases():
        want = ref(x, *[p[..., None] for p in params])
        for is_log in (False, True):
            expect = np.log(want) if is_log else want
            for dtype, rtol in (("float64", 1e-10), ("float32", 1e-5)):
                args = [mx.nd.array(v, dtype=dtype) for v in [x] + params]
                got = getattr(mx.nd, "random_pdf_" + dist)(*args, is_log=is_log)
                np.testing.assert_allclose(got.asnumpy(), expect, rtol=rtol, atol=1e-6, err_msg=dist)
                sym = getattr(mx.sym, "random_pdf_" + dist)(*[mx.sym.var("v%d" % i) for i in range(len(args))],
                                                            is_log=is_log)
                assert sym.list_arguments() == ["v%d" % i for i in range(len(args))]


def test_random_pdf_gradients_match_finite_differences():
    for dist, x, params, _ in _pdf_cases():
        for is_log in (False, True):
            names = ["v%d" % i for i in range(1 + len(params))]
            sym = getattr(mx.sym, "_random_pdf_" + dist)(*[mx.sym.var(n) for n in names], is_log=is_log)
            # the discrete ones in their parameters only (the sample is a count)
            nodes = names[1:] if dist in ("poisson", "negative_binomial", "generalized_negative_binomial") else names
            mx.test_utils.check_numeric_gradient(sym, [x] + params, grad_nodes=nodes, numeric_eps=1e-6,
                                                 rtol=1e-4, atol=1e-7)


def test_random_pdf_dirichlet_matches_scipy_and_finite_differences():
    import scipy.stats as ss

    rng = np.random.RandomState(4)
    alpha = rng.uniform(0.5, 2, size=(2, 3))
    samples = np.stack([ss.dirichlet.rvs(a, size=5, random_state=rng) for a in alpha])  # (2, 5, 3)
    want = np.stack([ss.dirichlet.logpdf(s.T, a) for s, a in zip(samples, alpha)])
    for is_log in (False, True):
        got = mx.nd.random_pdf_dirichlet(mx.nd.array(samples, dtype="float64"), mx.nd.array(alpha, dtype="float64"),
                                         is_log=is_log)
        assert got.shape == (2, 5)
        np.testing.assert_allclose(got.asnumpy(), want if is_log else np.exp(want), rtol=1e-10)
        sym = mx.sym.random_pdf_dirichlet(mx.sym.var("x"), mx.sym.var("a"), is_log=is_log)
        mx.test_utils.check_numeric_gradient(sym, [samples, alpha], numeric_eps=1e-7, rtol=1e-4, atol=1e-6)


def test_keyword_inputs_of_an_op_without_inputs_are_dropped_as_in_mxnet():
    """nnvm matches keyword inputs only while inputs are missing: sym.random.randn(data=x) (as
    MXNet's test_random writes it) is a plain _random_normal whose shape comes from its use."""
    y = mx.sym.random.randn(loc=10.0, scale=0.5, dtype="float32", data=mx.sym.ones((3, 4)))
    assert y.list_arguments() == []
    z = y + mx.sym.var("x")
    ex = z.bind(mx.cpu(), {"x": mx.nd.zeros((30, 40))})
    ex.forward()
    assert ex.outputs[0].shape == (30, 40) and abs(ex.outputs[0].asnumpy().mean() - 10) < 0.1


def test_contrib_batchnorm_with_relu_is_batchnorm_then_relu_with_its_outputs():
    rng = np.random.RandomState(5)
    x = rng.normal(size=(2, 3, 4, 4))
    g, b = rng.uniform(0.5, 1.5, 3), rng.normal(size=3) * 0.3
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    c = lambda v: v[None, :, None, None]  # noqa: E731
    want = np.maximum((x - c(mean)) / np.sqrt(c(var) + 1e-3) * c(g) + c(b), 0)
    for ov in (False, True):
        s = mx.sym.contrib.BatchNormWithReLU(mx.sym.var("data"), name="bn", fix_gamma=False, output_mean_var=ov)
        assert s.list_outputs() == (["bn_output", "bn_mean", "bn_var"] if ov else ["bn_output"])
        assert s.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
        ex = s.bind(mx.cpu(), {"data": mx.nd.array(x, dtype="float64"), "bn_gamma": mx.nd.array(g, dtype="float64"),
                               "bn_beta": mx.nd.array(b, dtype="float64")},
                    aux_states={"bn_moving_mean": mx.nd.zeros(3, dtype="float64"),
                                "bn_moving_var": mx.nd.ones(3, dtype="float64")})
        outs = ex.forward(is_train=True)
        np.testing.assert_allclose(outs[0].asnumpy(), want, rtol=1e-10, atol=1e-12)
        if ov:  # BatchNorm's mean and 1 / sqrt(var + eps)
            np.testing.assert_allclose(outs[1].asnumpy(), mean, rtol=1e-10)
            np.testing.assert_allclose(outs[2].asnumpy(), 1 / np.sqrt(var + 1e-3), rtol=1e-10)
    s = mx.sym.contrib.BatchNormWithReLU(mx.sym.var("data"), name="bn", fix_gamma=False)
    mx.test_utils.check_numeric_gradient(s, [x, g, b], aux_states=[np.zeros(3), np.ones(3)], numeric_eps=1e-6,
                                         rtol=1e-4, atol=1e-6)
