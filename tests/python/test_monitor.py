"""mx.monitor.Monitor and Executor.set_monitor_callback: names as MXNet 1.9.1's executor monitor
gives them, values equal to what the graph computed (also inside oneDNN's blocked layouts),
inputs seen before an in-place op overwrites them, and Module.fit(monitor=...)."""
import logging

import numpy as np
import pytest

import symnet as mx


def conv_net():
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, num_filter=16, kernel=(3, 3), pad=(1, 1), name="conv0")
    net = mx.sym.Activation(net, act_type="relu", name="relu0")
    net = mx.sym.Convolution(net, num_filter=16, kernel=(3, 3), pad=(1, 1), name="conv1")
    net = mx.sym.FullyConnected(mx.sym.flatten(net, name="flatten0"), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def bound(sym, rng, batch=2):
    exe = sym.simple_bind(mx.cpu(), data=(batch, 3, 8, 8), softmax_label=(batch,))
    for name, arr in exe.arg_dict.items():
        arr[:] = rng.uniform(-0.5, 0.5, arr.shape) if name != "softmax_label" else rng.randint(0, 3, arr.shape)
    return exe


def collect(exe, monitor_all=False):
    seen = {}
    exe.set_monitor_callback(lambda name, arr: seen.setdefault(name, arr.asnumpy().copy()), monitor_all)
    return seen


def test_callback_values_are_the_graphs_own():
    rng = np.random.RandomState(1)
    exe = bound(conv_net(), rng)
    seen = collect(exe)
    exe.forward(is_train=True)
    exe.backward()
    # conv0 and conv1 inside the network are computed in oneDNN's blocked layout; the callback
    # must see the logical (NCHW) values: compare with executors whose output they are
    internals = conv_net().get_internals()
    args = {n: a for n, a in exe.arg_dict.items()}
    for out in ("conv0_output", "relu0_output", "conv1_output", "fc_output"):
        sub = internals[out]
        e2 = sub.bind(mx.cpu(), {n: args[n] for n in sub.list_arguments()})
        np.testing.assert_allclose(seen[out], e2.forward()[0].asnumpy(), rtol=1e-5, atol=1e-6, err_msg=out)
    np.testing.assert_allclose(seen["softmax_output"], exe.outputs[0].asnumpy())
    # the gradient nodes' outputs are the gradients the executor hands back
    np.testing.assert_allclose(seen["fc_backward_output1"], exe.grad_dict["fc_weight"].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(seen["conv0_backward_output1"], exe.grad_dict["conv0_weight"].asnumpy(),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(seen["conv0_backward_output0"], exe.grad_dict["data"].asnumpy(),
                               rtol=1e-5, atol=1e-7)
    exe.set_monitor_callback(None)
    seen.clear()
    exe.forward()
    assert seen == {}


def test_monitor_all_sees_inputs_before_an_inplace_op_runs():
    rng = np.random.RandomState(2)
    exe = bound(conv_net(), rng)
    seen = collect(exe, monitor_all=True)
    exe.forward(is_train=True)
    # MXNet's names: the op's input names, else input0, input1, ...
    assert {"conv0_data", "conv0_weight", "conv0_bias", "relu0_input0", "fc_data", "softmax_label"} <= set(seen)
    np.testing.assert_array_equal(seen["conv0_data"], exe.arg_dict["data"].asnumpy())
    # relu's input is conv0's output as it was, negatives included, even if relu runs in place
    np.testing.assert_allclose(seen["relu0_input0"], seen["conv0_output"], rtol=1e-6)
    assert (seen["relu0_input0"] < 0).any()


def test_monitor_interval_pattern_and_names_in_module_fit(caplog):
    rng = np.random.RandomState(3)
    it = mx.io.NDArrayIter(rng.rand(16, 3, 8, 8), rng.randint(0, 3, 16), batch_size=4)
    mod = mx.mod.Module(conv_net())
    mon = mx.monitor.Monitor(2, pattern=".*", sort=True)
    with caplog.at_level(logging.INFO):
        mod.fit(it, num_epoch=1, monitor=mon, optimizer_params={"learning_rate": 0.05})
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Batch:")]
    batches = sorted({int(l.split()[1]) for l in lines})
    assert batches == [1, 3]  # one batch in two, counted from 1 as MXNet's
    names = [l.split()[2] for l in lines if int(l.split()[1]) == 1]
    assert names == sorted(names)
    # what MXNet 1.9.1's Monitor lists for this network (outputs, gradient nodes, then the
    # arguments and auxiliary states), the gradients nothing reads (of the data, of the label)
    # included: symnet does not compute them and shows zeros (MXNet, whatever their buffer holds)
    expected = {"conv0_output", "relu0_output", "conv1_output", "flatten0_output", "fc_output",
                "softmax_output", "softmax_backward_output0", "softmax_backward_output1",
                "fc_backward_output0", "fc_backward_output1", "fc_backward_output2",
                "flatten0_backward_output", "conv1_backward_output0", "conv1_backward_output1",
                "conv1_backward_output2", "relu0_backward_output", "conv0_backward_output0",
                "conv0_backward_output1", "conv0_backward_output2", "data", "conv0_weight",
                "conv0_bias", "conv1_weight", "conv1_bias", "fc_weight", "fc_bias", "softmax_label"}
    assert set(names) == expected, set(names) ^ expected
    uncomputed = [l for l in lines if int(l.split()[1]) == 1
                  and l.split()[2] in ("conv0_backward_output0", "softmax_backward_output1")]
    assert len(uncomputed) == 2 and all(float(l.split()[3]) == 0 for l in uncomputed), uncomputed
    # the default statistic: the root mean square (|x| / sqrt(size)), here of the labels
    label = [l for l in lines if int(l.split()[1]) == 1 and l.split()[2] == "softmax_label"]
    assert len(label) == 1 and float(label[0].split()[3]) > 0


def test_monitor_stat_func_and_weight_pattern():
    rng = np.random.RandomState(4)
    exe = bound(conv_net(), rng)
    mon = mx.monitor.Monitor(1, stat_func=lambda x: mx.nd.max(mx.nd.abs(x)), pattern=".*weight")
    mon.install(exe)
    mon.tic()
    exe.forward(is_train=True)
    exe.backward()
    res = mon.toc()
    assert [name for _, name, _ in res] == ["conv0_weight", "conv1_weight", "fc_weight"]
    for step, name, text in res:
        assert step == 1
        assert float(text) == pytest.approx(np.abs(exe.arg_dict[name].asnumpy()).max(), rel=1e-6)
    mon.tic()  # step 1 % interval 1 == 0: active again, toc gives only this batch's values
    assert len(mon.toc()) == 3
    with pytest.raises(ValueError, match="interval=0"):
        mx.monitor.Monitor(0)


def test_install_monitor_survives_reshape():
    rng = np.random.RandomState(5)
    mod = mx.mod.Module(conv_net())
    mod.bind([("data", (4, 3, 8, 8))], [("softmax_label", (4,))])
    mod.init_params()
    mon = mx.monitor.Monitor(1, pattern="fc_output")
    mod.install_monitor(mon)
    mod.reshape([("data", (2, 3, 8, 8))])
    assert len(mon.exes) == 1  # the old executor is no longer watched
    mon.tic()
    mod.forward(mx.io.DataBatch([mx.nd.array(rng.rand(2, 3, 8, 8))], [mx.nd.array([0, 1])]), is_train=False)
    res = mon.toc()
    assert [name for _, name, _ in res] == ["fc_output"]
