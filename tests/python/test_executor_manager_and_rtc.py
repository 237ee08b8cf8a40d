"""mx.executor_manager (MXNet's legacy DataParallelExecutorManager) trains over two contexts as
MXNet 1.9.1's does (the metric, gradient sums and averaged BatchNorm statistics below are MXNet
1.9.1's for the same script), with bucketing groups sharing parameters; mx.rtc.CudaModule raises
MXNetError naming the replacement, as MXNet built without CUDA RTC raises."""
import numpy as np
import pytest

import symnet as mx
from symnet.executor_manager import DataParallelExecutorManager, _split_input_slice


def _net():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    net = mx.sym.BatchNorm(net, name="bn")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def test_split_input_slice():
    assert _split_input_slice(10, [1, 2, 2]) == [slice(0, 2), slice(2, 6), slice(6, 10)]
    with pytest.raises(ValueError):
        _split_input_slice(2, [1, 1, 1])


def test_two_context_training_as_mxnet():
    rng = np.random.RandomState(0)
    x = rng.randn(12, 4).astype("float32")
    y = (x[:, 0] > 0).astype("float32")
    net = _net()
    it = mx.io.NDArrayIter(x, y, batch_size=6)
    args = net.list_arguments()
    params = [a for a in args if a not in ("data", "softmax_label")]
    m = DataParallelExecutorManager(net, [mx.cpu(0), mx.cpu(1)], it, args, params,
                                    net.list_auxiliary_states())
    r = np.random.RandomState(1)
    shapes = dict(zip(args, net.infer_shape(data=(6, 4))[0]))
    arg_params = {k: mx.nd.array(r.uniform(-1, 1, shapes[k])) for k in params}
    aux_params = {"bn_moving_mean": mx.nd.zeros(3), "bn_moving_var": mx.nd.ones(3)}
    m.set_params(arg_params, aux_params)
    metric = mx.metric.Accuracy()
    for batch in it:
        m.load_data_batch(batch)
        m.forward(is_train=True)
        m.backward()
        m.update_metric(metric, batch.label)
    assert metric.get()[1] == pytest.approx(1 / 6)
    assert [len(b) for b in m.param_arrays] == [2, 2, 2, 2]
    assert m.slices == [slice(0, 3), slice(3, 6)]
    np.testing.assert_allclose([m.grad_arrays[0][0].asnumpy().sum(),
                                m.grad_arrays[0][1].asnumpy().sum()], [9.1487, 13.1109], atol=1e-3)
    m.copy_to(arg_params, aux_params)
    np.testing.assert_allclose(aux_params["bn_moving_mean"].asnumpy(), [-0.1731, 0.0866, -0.1712],
                               atol=1e-4)


def test_bucketing_groups_share_parameters():
    def sym_gen(key):
        return _net()

    x = np.ones((4, 4), dtype="float32")
    it = mx.io.NDArrayIter(x, np.zeros(4), batch_size=4)
    it.default_bucket_key = 4
    net = _net()
    args = net.list_arguments()
    params = [a for a in args if a not in ("data", "softmax_label")]
    m = DataParallelExecutorManager(net, [mx.cpu()], it, args, params,
                                    net.list_auxiliary_states(), sym_gen=sym_gen)
    batch = mx.io.DataBatch([mx.nd.ones((4, 4))], [mx.nd.zeros(4)], bucket_key=7,
                            provide_data=it.provide_data, provide_label=it.provide_label)
    m.load_data_batch(batch)
    assert sorted(m.execgrp_bucket) == [4, 7]
    m.execgrp.param_arrays[0][0][:] = 5.0  # one memory: the bucket sees the default's weight
    assert (m.curr_execgrp.param_arrays[0][0].asnumpy() == 5.0).all()
    with pytest.raises(NotImplementedError):
        m.install_monitor(None)


def test_rtc_raises_with_the_replacement():
    with pytest.raises(mx.base.MXNetError, match="CustomOp"):
        mx.rtc.CudaModule('extern "C" __global__ void k(float *x) {}', exports=["k"])
