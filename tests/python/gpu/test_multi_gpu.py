"""Data-parallel training over several GPUs (NCCL all-reduce): the same result as one GPU."""
import numpy as np
import pytest

import symnet as mx

pytestmark = pytest.mark.skipif(mx.num_gpus() < 2, reason="needs 2 GPUs (symnet.num_gpus() == %d)" % mx.num_gpus())


def test_two_gpus_train_like_one():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 10).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=16, name="fc1")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Activation(net, act_type="relu"), num_hidden=2,
                                                     name="fc2"), name="softmax")
    params = []
    for ctxs in ([mx.gpu(0)], [mx.gpu(0), mx.gpu(1)]):
        mod = mx.mod.Module(net, context=ctxs)
        mod.bind([("data", (16, 10))], [("softmax_label", (16,))])
        mod.init_params(mx.init.Xavier(), seed=0)
        mod.init_optimizer(kvstore="nccl", optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
        for b in mx.io.NDArrayIter(x, y, batch_size=16):
            mod.forward_backward(b)
            mod.update()
        params.append(mod.get_params()[0])
    for k in params[0]:
        np.testing.assert_allclose(params[1][k].asnumpy(), params[0][k].asnumpy(), rtol=1e-4, atol=1e-5)
