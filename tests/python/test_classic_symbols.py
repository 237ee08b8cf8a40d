"""MXNet's classic image-classification symbol builders (tests/mxnet_parity/classic_symbols.py,
written in MXNet 1.x style) build, bind with simple_bind and train one step under symnet: shapes
infer from the data shape alone, the forward pass gives a probability per class and the backward
pass a finite, non-zero gradient for every parameter that feeds the output. (test_mxnet_parity.py
checks that the same code writes MXNet's JSON.)"""
import os
import sys

import numpy as np
import pytest

import symnet as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mxnet_parity"))
import classic_symbols  # noqa: E402


def _init(exe, rng):
    """He-normal weights, zero biases and betas, unit gammas; BatchNorm's moving statistics 0/1."""
    for name, arr in exe.arg_dict.items():
        if name in ("data", "softmax_label"):
            continue
        if name.endswith("_weight"):
            fan_in = int(np.prod(arr.shape[1:]))
            arr[:] = rng.normal(0, np.sqrt(2.0 / fan_in), arr.shape).astype(np.float32)
        elif name.endswith("_gamma"):
            arr[:] = 1.0
        else:
            arr[:] = 0.0
    for name, arr in exe.aux_dict.items():
        arr[:] = 1.0 if name.endswith("_moving_var") else 0.0


@pytest.mark.parametrize("name", sorted(classic_symbols.BUILDERS))
def test_classic_symbol_binds_and_trains_one_step(name):
    shape = classic_symbols.INPUT_SHAPES[name]
    with mx.name.NameManager():
        sym = classic_symbols.BUILDERS[name](mx)
    exe = sym.simple_bind(mx.cpu(), data=shape)
    assert exe.arg_dict["softmax_label"].shape == (shape[0],)
    rng = np.random.RandomState(0)
    _init(exe, rng)
    exe.arg_dict["data"][:] = rng.uniform(-1, 1, shape).astype(np.float32)
    exe.arg_dict["softmax_label"][:] = np.arange(shape[0]) % 10
    exe.forward(is_train=True)
    prob = exe.outputs[0].asnumpy()
    assert prob.shape == (shape[0], 10)
    assert np.all(np.isfinite(prob)) and np.all(prob >= 0)
    np.testing.assert_allclose(prob.sum(axis=1), 1.0, rtol=1e-5)
    exe.backward()
    for arg, grad in exe.grad_dict.items():
        if arg == "softmax_label" or grad is None:
            continue
        g = grad.asnumpy()
        assert g.shape == exe.arg_dict[arg].shape, arg
        assert np.all(np.isfinite(g)), arg
    # the gradient reaches the input and the first and last layers' weights (a weight in between
    # may get none: at these narrow widths a few ReLU branches are dead for this draw, in MXNet too)
    weights = [a for a in sym.list_arguments() if a.endswith("_weight")]
    for arg in ["data", weights[0], weights[-1]]:
        assert np.abs(exe.grad_dict[arg].asnumpy()).max() > 0, arg
    # training mode moved BatchNorm's moving statistics toward the batch's
    moving = [v.asnumpy() for k, v in exe.aux_dict.items() if k.endswith("_moving_mean")]
    assert all(np.all(np.isfinite(m)) for m in moving)
    if moving:
        assert any(np.abs(m).max() > 0 for m in moving)
