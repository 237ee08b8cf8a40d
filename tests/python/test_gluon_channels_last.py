"""Gluon's Conv and Pool layers with MXNet's channels-last layouts (NWC, NHWC, NDHWC): the same
numbers as the channels-first layer on transposed data, weights in MXNet's (out, kernel..., in)
order, and a clear error for a layout that does not fit the layer."""
import numpy as np
import pytest

import symnet as mx
from symnet.gluon import nn

_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _to_last(a):
    return np.moveaxis(a, 1, -1)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_channels_last_matches_channels_first(n):
    rng = np.random.RandomState(0)
    cls = {1: nn.Conv1D, 2: nn.Conv2D, 3: nn.Conv3D}[n]
    kernel = (3, 2, 2)[:n]
    first = cls(6, kernel, strides=1, padding=1, groups=2, layout=_FIRST[n], in_channels=4,
                prefix="cf%d_" % n)
    last = cls(6, kernel, strides=1, padding=1, groups=2, layout=_LAST[n], prefix="cl%d_" % n)
    first.initialize()
    last.initialize()
    x = rng.randn(2, 4, *(5, 6, 4)[:n]).astype(np.float32)
    w = rng.randn(6, 2, *kernel).astype(np.float32)
    b = rng.randn(6).astype(np.float32)
    first.weight.set_data(mx.nd.array(w))
    first.bias.set_data(mx.nd.array(b))
    y_last = last(mx.nd.array(_to_last(x)))  # deferred init infers in_channels from the data
    assert last.weight.shape == (6,) + kernel + (2,)
    last.weight.set_data(mx.nd.array(_to_last(w)))
    last.bias.set_data(mx.nd.array(b))
    y_last = last(mx.nd.array(_to_last(x))).asnumpy()
    y_first = first(mx.nd.array(x)).asnumpy()
    np.testing.assert_allclose(y_last, _to_last(y_first), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kind", ["max", "avg", "global_avg", "global_max"])
def test_pool_channels_last_matches_channels_first(n, kind):
    rng = np.random.RandomState(1)
    name = {"max": "MaxPool", "avg": "AvgPool", "global_avg": "GlobalAvgPool",
            "global_max": "GlobalMaxPool"}[kind] + "%dD" % n
    kwargs = {} if kind.startswith("global") else {"strides": 2, "padding": 1}
    x = rng.randn(2, 3, *(6, 5, 4)[:n]).astype(np.float32)
    y_first = getattr(nn, name)(layout=_FIRST[n], **kwargs)(mx.nd.array(x)).asnumpy()
    y_last = getattr(nn, name)(layout=_LAST[n], **kwargs)(mx.nd.array(_to_last(x))).asnumpy()
    np.testing.assert_allclose(y_last, _to_last(y_first), rtol=1e-6, atol=1e-6)


def test_layout_that_does_not_fit_the_layer_is_refused():
    with pytest.raises(ValueError, match="Conv2D: layout NWC .* NCHW or NHWC"):
        nn.Conv2D(4, (3, 3), layout="NWC")
    with pytest.raises(ValueError, match="MaxPool1D: layout NHWC .* NCW or NWC"):
        nn.MaxPool1D(layout="NHWC")
