"""gluon.nn.Conv1DTranspose and Conv3DTranspose (the Deconvolution op over 1 and 3 spatial dims)
and BatchNormReLU give MXNet 1.9.1's shapes, outputs and gradients (the sums below are MXNet
1.9.1's for the same draws); gluon.nn.activations is MXNet's module path of the activations."""
import numpy as np
import pytest

import symnet as mx
from symnet.gluon import nn

CASES = [
    (nn.Conv1DTranspose, (2, 3, 5), dict(strides=2, padding=1, output_padding=1),
     (2, 4, 10), (3, 4, 3), (-101.665, -119.909, 196.096)),
    (nn.Conv3DTranspose, (1, 2, 3, 4, 3),
     dict(in_channels=2, strides=(1, 2, 2), padding=(0, 1, 0), output_padding=(0, 1, 1), groups=2),
     (1, 4, 5, 8, 8), (2, 2, 3, 3, 3), (1231.288, -414.545, 848.735)),
    (nn.Conv1DTranspose, (2, 4, 6), dict(dilation=2, groups=2, in_channels=4),
     (2, 4, 10), (4, 2, 3), (-5.117, -61.557, 74.393)),
]


def test_conv_transpose_1d_3d_as_mxnet():
    r = np.random.RandomState(0)  # the draws follow one another as in MXNet's script
    for cls, xshape, kw, yshape, wshape, sums in CASES:
        net = cls(4, 3, prefix="t_", **kw)
        net.initialize()
        x = mx.nd.array(r.randn(*xshape))
        net(x)
        for _, p in sorted(net.collect_params().items()):
            p.set_data(mx.nd.array(r.randn(*p.shape)))
        x.attach_grad()
        with mx.autograd.record():
            y = net(x)
        y.backward(mx.nd.array(np.arange(y.size).reshape(y.shape) % 3))
        assert y.shape == yshape and net.weight.shape == wshape
        got = (float(y.sum().asscalar()), float(x.grad.sum().asscalar()),
               float(net.weight.grad().abs().sum().asscalar()))
        np.testing.assert_allclose(got, sums, atol=2e-3)
        net.hybridize()
        np.testing.assert_allclose(net(x).asnumpy(), y.asnumpy(), atol=1e-4)


def test_conv_transpose_layout_checked():
    with pytest.raises(ValueError):
        nn.Conv1DTranspose(4, 3, layout="NCHW")
    with pytest.raises(ValueError):
        nn.Conv3DTranspose(4, 3, layout="NCW")


def test_batchnorm_relu_as_mxnet():
    r = np.random.RandomState(0)
    net = nn.BatchNormReLU(in_channels=3, prefix="bnr_")
    assert sorted(net.collect_params().keys()) == [
        "bnr_beta", "bnr_gamma", "bnr_running_mean", "bnr_running_var"]
    net.initialize()
    x = mx.nd.array(r.randn(2, 3, 4, 2))
    with mx.autograd.record():
        y = net(x)
    np.testing.assert_allclose(y.asnumpy().ravel()[:6], [0.981, 0, 0.2535, 1.4227, 1.0768, 0],
                               atol=1e-4)
    np.testing.assert_allclose(net.running_mean.data().asnumpy(), [0.0705, 0.0141, -0.0292],
                               atol=1e-4)
    assert nn.activations.Swish is nn.Swish
