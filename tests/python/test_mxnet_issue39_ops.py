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
