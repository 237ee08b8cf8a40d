"""Imperative calls reuse an op's state (its oneDNN primitives) between calls of the same op,
attributes and input shapes (src/imperative/invoke.cc, ImperativeStates): a reused state must
never carry one call's data into the next. Each stateful op runs on data A, then B, then A again
(and under autograd, its backward too): the third call equals the first bit for bit, and B's
result equals what a freshly bound executor computes from B."""
import numpy as np
import pytest

import symnet as mx

RNG = np.random.RandomState(5)


def _u(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


# (op, attributes, input shapes); the first input is the data that changes between calls
CASES = [
    ("Convolution", {"kernel": (3, 3), "num_filter": 16, "pad": (1, 1)}, [(2, 16, 6, 6), (16, 16, 3, 3), (16,)]),
    ("Deconvolution", {"kernel": (2, 2), "num_filter": 4, "stride": (2, 2), "no_bias": False},
     [(2, 8, 5, 5), (8, 4, 2, 2), (4,)]),
    ("FullyConnected", {"num_hidden": 7}, [(3, 5), (7, 5), (7,)]),
    ("BatchNorm", {"fix_gamma": False}, [(2, 4, 3, 3), (4,), (4,), (4,), (4,)]),
    ("LayerNorm", {}, [(3, 6), (6,), (6,)]),
    ("LRN", {"nsize": 3}, [(2, 5, 4, 4)]),
    ("dot", {}, [(4, 3), (3, 5)]),
    ("batch_dot", {}, [(2, 4, 3), (2, 3, 5)]),
]


def _call(op, attrs, arrays, train):
    with mx.autograd.record(train_mode=train):
        out = getattr(mx.nd, op)(*arrays, **attrs)
    out = out[0] if isinstance(out, (list, tuple)) else out
    out.backward(mx.nd.ones(out.shape))
    return out.asnumpy(), arrays[0].grad.asnumpy()


def _fresh(op, attrs, values, train):
    """The same computation in a newly bound executor (no state shared with anything)."""
    names = ["x%d" % i for i in range(len(values))]
    sym = getattr(mx.sym, op)(*[mx.sym.var(n) for n in names], **attrs)
    sym = sym[0] if len(sym.list_outputs()) > 1 else sym
    given = {n: mx.nd.array(v) for n, v in zip(names, values)}
    args = sym.list_arguments()
    exe = sym.bind(mx.cpu(), {n: given[n] for n in args},
                   args_grad={names[0]: mx.nd.zeros(values[0].shape)},
                   grad_req={n: "write" if n == names[0] else "null" for n in args},
                   aux_states={n: given[n] for n in sym.list_auxiliary_states()})
    out = exe.forward(is_train=train)[0].asnumpy()
    exe.backward(mx.nd.ones(out.shape))
    return out, exe.grad_dict[names[0]].asnumpy()


@pytest.mark.parametrize("op,attrs,shapes", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("train", [False, True])
def test_a_reused_state_carries_no_data_between_calls(op, attrs, shapes, train):
    a = [_u(*s) for s in shapes]
    b = [_u(*shapes[0])] + a[1:]
    if op == "BatchNorm":  # a positive moving variance
        a[4] = np.abs(a[4]) + 0.5
        b[4] = a[4]
    # new arrays for every call (the earlier ones kept alive, so the buffers differ): a state
    # that kept the first call's pointers would read A's values in the second call
    calls = []
    for values in (a, b, a):
        arrays = [mx.nd.array(v) for v in values]
        arrays[0].attach_grad()
        calls.append((arrays, _call(op, attrs, arrays, train)))
    first, second, third = [c[1] for c in calls]
    for x, y in zip(first, third):
        np.testing.assert_array_equal(x, y)
    want = _fresh(op, attrs, b, train)
    for got, expect in zip(second, want):
        np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)
