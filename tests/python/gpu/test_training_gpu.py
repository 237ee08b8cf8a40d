"""Whole networks on a GPU: a ResNet-50 training step matches the CPU, and AMP float16 training
with dynamic loss scaling learns on the GPU."""
import numpy as np
import pytest

import symnet as mx
from gpu_device import DEVICE as GPU
from symnet.test_utils import assert_almost_equal


def _step(ctx, net, params, x, y):
    exe = net.simple_bind(ctx, data=x.shape, softmax_label=y.shape)
    for k, v in params.items():
        if k in exe.arg_dict:
            exe.arg_dict[k][:] = v
        elif k in exe.aux_dict:
            exe.aux_dict[k][:] = v
    exe.arg_dict["data"][:] = x
    exe.arg_dict["softmax_label"][:] = y
    exe.forward(is_train=True)
    exe.backward()
    return exe


def test_resnet50_training_step_gpu_matches_cpu():
    net = mx.models.resnet(50, "1.5", num_classes=10, image_shape=(3, 64, 64))
    rng = np.random.RandomState(0)
    x = rng.rand(4, 3, 64, 64).astype(np.float32)
    y = rng.randint(0, 10, size=(4,)).astype(np.float32)
    cpu = net.simple_bind(mx.cpu(), data=x.shape, softmax_label=y.shape)
    params = {}
    init = mx.init.Xavier(magnitude=2)
    for k, v in cpu.arg_dict.items():
        if k not in ("data", "softmax_label"):
            init(mx.init.InitDesc(k), v)
            params[k] = v.asnumpy()
    for k, v in cpu.aux_dict.items():
        params[k] = np.ones(v.shape) if k.endswith("var") else np.zeros(v.shape)
    a = _step(mx.cpu(), net, params, x, y)
    b = _step(GPU, net, params, x, y)
    assert_almost_equal(b.outputs[0].asnumpy(), a.outputs[0].asnumpy(), rtol=1e-3, atol=1e-4)
    for k in ("conv0_weight", "fc1_weight", "fc1_bias"):
        if k in a.grad_dict:
            ga, gb = a.grad_dict[k].asnumpy(), b.grad_dict[k].asnumpy()
            assert_almost_equal(gb, ga, rtol=1e-2, atol=1e-2 * np.abs(ga).max())
    for k, v in a.aux_dict.items():
        assert_almost_equal(b.aux_dict[k].asnumpy(), v.asnumpy(), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_amp_training_learns_on_gpu(target):
    rng = np.random.RandomState(0)
    x = rng.randn(256, 20).astype(np.float32)
    y = (x[:, :5].sum(axis=1) > 0).astype(np.float32)
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=32, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=2, name="fc2"), name="softmax")
    mx.amp.init(target)
    try:
        mod = mx.mod.Module(net, context=GPU)
        mod.bind(data_shapes=[("data", (32, 20))], label_shapes=[("softmax_label", (32,))])
    finally:
        mx.amp.shutdown()
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9,
                                                           "multi_precision": True})
    mx.amp.init_trainer(mod)
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=32, shuffle=True), num_epoch=5)
    acc = dict(mod.score(mx.io.NDArrayIter(x, y, batch_size=32), "acc"))["accuracy"]
    assert acc > 0.9


GRAPH_SCRIPT = r"""
import sys, numpy as np, symnet as mx
ctx = mx.gpu(0) if mx.num_gpus() else mx.cpu()
net = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), pad=(1, 1), num_filter=8, name="c1")
net = mx.sym.Activation(mx.sym.BatchNorm(net, name="bn1"), act_type="relu")
net = mx.sym.Pooling(net, global_pool=True, kernel=(1, 1), pool_type="avg")
net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=4, name="fc"), name="softmax")
rng = np.random.RandomState(0)
x = rng.randn(32, 3, 8, 8).astype(np.float32)
y = rng.randint(0, 4, 32).astype(np.float32)
mod = mx.mod.Module(net, context=ctx)
mod.bind([("data", (8, 3, 8, 8))], [("softmax_label", (8,))])
mod.init_params(mx.init.Xavier(), seed=0)
mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
for _ in range(3):
    for b in mx.io.NDArrayIter(x, y, batch_size=8):
        mod.forward_backward(b)
        mod.update()
np.savez(sys.argv[1], **{k: v.asnumpy() for k, v in mod.get_params()[0].items()})
"""


def test_cuda_graphs_replay_the_same_training(tmp_path):
    """SYMNET_CUDA_GRAPHS=1 (captured steps replayed) trains exactly as op-by-op execution."""
    import os
    import subprocess
    import sys
    script = tmp_path / "train.py"
    script.write_text(GRAPH_SCRIPT)
    results = []
    for graphs in ("0", "1"):
        out = tmp_path / ("params%s.npz" % graphs)
        env = dict(os.environ, SYMNET_CUDA_GRAPHS=graphs)
        subprocess.run([sys.executable, str(script), str(out)], check=True, env=env)
        results.append(np.load(out))
    for k in results[0].files:
        np.testing.assert_allclose(results[1][k], results[0][k], rtol=1e-5, atol=1e-6, err_msg=k)
