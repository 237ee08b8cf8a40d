"""check_consistency (the helper the GPU suite compares devices and dtypes with) on the CPU:
it passes for consistent bindings and fails, naming the binding, when they differ."""
import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_consistency


def specs(*dtypes):
    return [dict(ctx=mx.cpu(), data=(2, 3, 6, 6), type_dict={"data": t}) for t in dtypes]


def test_consistent_bindings_pass_and_return_every_output():
    sym = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=4, pad=(1, 1))
    outs = check_consistency(sym, specs("float64", "float32", "bfloat16"))
    assert len(outs) == 3 and outs[0][0].shape == (2, 4, 6, 6)


def test_a_difference_beyond_the_tolerance_fails_naming_the_binding():
    sym = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=4, pad=(1, 1))
    with pytest.raises(AssertionError, match="binding 1 .*bfloat16"):
        check_consistency(sym, specs("float64", "bfloat16"), tol={"bfloat16": 1e-6})


def test_the_reference_is_the_most_precise_binding():
    x = mx.sym.var("data")
    outs = check_consistency(x * 3, specs("float16", "float64"))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-3)


def test_numeric_grad_perturbs_non_contiguous_arrays():
    """A transposed view must be perturbed in place (reshape(-1) would silently copy it and
    report a zero gradient, passing any gradient check whose symbolic side is zero too)."""
    base = np.arange(12.0).reshape(3, 4)
    view = base.T  # not contiguous
    grad = mx.test_utils.numeric_grad(lambda: float((base ** 2).sum()), view, 1e-4)
    np.testing.assert_allclose(grad, 2 * view, rtol=1e-6)
