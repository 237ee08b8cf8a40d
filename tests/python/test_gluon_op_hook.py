"""HybridBlock.register_op_hook (MXNet 1.9.1): the callback sees every op output (and with
monitor_all every op input) of the hybridized graph, with MXNet's names and operator names."""
import numpy as np

import symnet as mx
from symnet.base import py_str
from symnet.gluon import nn


def _net():
    net = nn.HybridSequential(prefix="hk_")
    with net.name_scope():
        net.add(nn.Dense(3), nn.Activation("relu"))
    net.initialize()
    net.hybridize()
    return net


def test_op_hook_reports_outputs_with_operator_names():
    net = _net()
    seen = []
    net.register_op_hook(lambda name, op, arr: seen.append((py_str(name), py_str(op),
                                                            arr.asnumpy().copy())))
    x = mx.nd.array(np.random.RandomState(0).randn(2, 4))
    out = net(x).asnumpy()
    assert [(n, o) for n, o, _ in seen] == [("hk_dense0_fwd_output", "FullyConnected"),
                                            ("hk_relu0_fwd_output", "Activation")]
    fc = seen[0][2]
    np.testing.assert_allclose(seen[1][2], out, rtol=1e-6)
    np.testing.assert_allclose(seen[1][2], np.maximum(fc, 0), rtol=1e-6)


def test_op_hook_monitor_all_names_inputs():
    net = nn.HybridSequential(prefix="pk_")
    with net.name_scope():
        net.add(nn.AvgPool1D())
    net.hybridize()
    seen = []
    net.register_op_hook(lambda name, op, arr: seen.append((py_str(name), py_str(op))),
                         monitor_all=True)
    net(mx.nd.ones((2, 3, 4)))
    assert seen == [("pk_pool0_fwd_data", "Pooling"), ("pk_pool0_fwd_output", "Pooling")]
