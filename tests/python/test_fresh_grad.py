"""NDArray._fresh_grad (MXNet's gradient state): set when a backward writes a variable's
gradient, settable by hand (Gluon's Trainer clears it), not set for a variable a detach() cut off
the graph, 0 and not settable for arrays autograd does not track."""
import pytest

import symnet as mx


def test_fresh_grad_follows_backward_and_detach():
    x, y = mx.nd.ones((2, 2)), mx.nd.ones((2, 2))
    dx, dy = mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2))
    mx.autograd.mark_variables([x, y], [dx, dy])
    assert x._fresh_grad == 0 and y._fresh_grad == 0
    with mx.autograd.record():
        (x + 2 + y).backward()
    assert x._fresh_grad == 1 and y._fresh_grad == 1
    x._fresh_grad, y._fresh_grad = False, False
    assert x._fresh_grad == 0 and y._fresh_grad == 0
    with mx.autograd.record():
        ((x + 2).detach() + y).backward()
    assert y._fresh_grad == 1 and x._fresh_grad == 0
    assert type(x._fresh_grad) is int  # MXNet returns the C int


def test_untracked_arrays_have_no_gradient_state():
    a = mx.nd.ones((2,))
    assert a._fresh_grad == 0
    with pytest.raises(mx.MXNetError, match="not been marked as a variable"):
        a._fresh_grad = True
