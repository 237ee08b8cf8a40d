"""mx.contrib.autograd (MXNet's pre-1.0 autograd API) as MXNet 1.9.1's: set_is_training switches
recording and training together and returns the previous recording state; train_section /
test_section nest and restore; grad / grad_and_loss with argnum; mark_variables with per-variable
grad_reqs ('add' accumulates, 'null' leaves the buffer alone); MXNet's errors. The expected
values are MXNet 1.9.1's, printed by running the same calls on it."""
import numpy as np
import pytest

import symnet as mx
from symnet import autograd as ag
from symnet.contrib import autograd as ca


@pytest.fixture(autouse=True)
def _restore_state():
    rec, train = ag.is_recording(), ag.is_training()
    yield
    ag.set_recording(rec)
    ag.set_training(train)


def test_set_is_training_returns_previous_recording_state():
    ag.set_recording(False)
    ag.set_training(True)
    # MXNet reports the previous *recording* state (its second C call), not training's
    assert ca.set_is_training(True) is False
    assert ag.is_recording() and ag.is_training()
    ag.set_recording(False)
    assert ca.set_is_training(False) is False
    assert not ag.is_recording() and not ag.is_training()


def test_sections_nest_and_restore():
    ca.set_is_training(False)
    states = []
    with ca.train_section():
        states.append((ag.is_recording(), ag.is_training()))
        with ca.test_section():
            states.append((ag.is_recording(), ag.is_training()))
            y = mx.nd.Dropout(mx.nd.ones((4, 4)), p=0.5)
            assert np.array_equal(y.asnumpy(), np.ones((4, 4)))
        states.append((ag.is_recording(), ag.is_training()))
    states.append((ag.is_recording(), ag.is_training()))
    assert states == [(True, True), (False, False), (True, True), (False, False)]


def test_grad_and_loss_with_argnum():
    x = mx.nd.array([1.0, 2.0])
    y = mx.nd.array([3.0, 4.0])
    g = ca.grad(lambda a, b, s: (a * b * s).sum(), argnum=1)(x, y, 2.0)
    assert len(g) == 1 and g[0].asnumpy().tolist() == [2.0, 4.0]
    grads, loss = ca.grad_and_loss(lambda a, b: [a * b, a + b])(x, y)
    assert [v.asnumpy().tolist() for v in grads] == [[4.0, 5.0], [2.0, 3.0]]
    assert [v.asnumpy().tolist() for v in loss] == [[3.0, 8.0], [4.0, 6.0]]
    # without argnum every argument is differentiated, so all must be NDArrays
    with pytest.raises(AssertionError, match="should NDArray"):
        ca.grad(lambda a, b, s: a * b * s)(x, y, 2.0)


def test_mark_variables_reqs_and_errors():
    x = mx.nd.array([1.0, 2.0])
    y = mx.nd.array([3.0, 4.0])
    dx, dy = mx.nd.zeros(2), mx.nd.zeros(2)
    ca.mark_variables([x, y], [dx, dy], grad_reqs=["add", "null"])
    for _ in range(2):
        with ca.train_section():
            z = x * y
        ca.compute_gradient([z])
    assert dx.asnumpy().tolist() == [6.0, 8.0] and dy.asnumpy().tolist() == [0.0, 0.0]
    with pytest.raises(KeyError, match="bogus"):
        ca.mark_variables([x], [mx.nd.zeros(2)], grad_reqs="bogus")
    with pytest.raises(AssertionError, match="list or tuple"):
        ca.backward(x)


def test_backward_with_out_grads():
    x = mx.nd.ones((2, 3))
    dx = mx.nd.zeros_like(x)
    ca.mark_variables([x], [dx])
    with ca.train_section():
        a, b = mx.nd.split(x, axis=0, num_outputs=2, squeeze_axis=True)
    ca.backward([a, b], [None, mx.nd.array([1.0, 2.0, 3.0])])
    assert dx.asnumpy().tolist() == [[1, 1, 1], [1, 2, 3]]
    with pytest.raises(AssertionError, match="same length"):
        ca.backward([a, b], [None])
