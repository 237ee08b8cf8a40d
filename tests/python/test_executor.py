"""Executor: binding variants, grad_req, forward inputs, and the memory plan."""
import os

import numpy as np
import pytest

import symnet as mx


def mlp(hidden=(128, 64), classes=10):
    net = mx.sym.var("data")
    for i, h in enumerate(hidden):
        net = mx.sym.FullyConnected(net, num_hidden=h, name="fc%d" % (i + 1))
        net = mx.sym.Activation(net, act_type="relu", name="relu%d" % (i + 1))
    net = mx.sym.FullyConnected(net, num_hidden=classes, name="fc%d" % (len(hidden) + 1))
    return mx.sym.SoftmaxOutput(net, name="softmax")


def test_simple_bind_dicts():
    exe = mlp().simple_bind(mx.cpu(), data=(8, 64))
    assert set(exe.arg_dict) == set(mlp().list_arguments())
    assert set(exe.grad_dict) == set(exe.arg_dict)  # grad_req='write' for every argument
    assert exe.output_dict["softmax_output"].shape == (8, 10)
    exe = mlp().simple_bind(mx.cpu(), grad_req={"fc1_weight": "write"}, data=(8, 64))
    assert list(exe.grad_dict) == ["fc1_weight"]
    exe = mlp().simple_bind(mx.cpu(), grad_req="null", data=(8, 64))
    assert exe.grad_dict == {}


def test_bind_with_arrays_matches_simple_bind():
    net = mlp(hidden=(16,), classes=4)
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(5, 6))[0]))
    rng = np.random.RandomState(0)
    args = {k: mx.nd.array(rng.randn(*s)) for k, s in shapes.items()}
    args["softmax_label"] = mx.nd.array([0, 1, 2, 3, 0])
    grads = {k: mx.nd.zeros(s) for k, s in shapes.items() if k != "softmax_label"}
    exe = net.bind(mx.cpu(), args=args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward()
    exe2 = net.simple_bind(mx.cpu(), data=(5, 6))
    exe2.copy_params_from({k: v for k, v in args.items()})
    exe2.forward(is_train=True)
    exe2.backward()
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), exe2.outputs[0].asnumpy(), rtol=1e-6)
    for k in grads:
        np.testing.assert_allclose(grads[k].asnumpy(), exe2.grad_dict[k].asnumpy(), rtol=1e-5, atol=1e-7)
    # bind writes into the arrays it was given
    assert exe.grad_dict["fc1_weight"] is not None
    np.testing.assert_array_equal(exe.grad_dict["fc1_weight"].asnumpy(), grads["fc1_weight"].asnumpy())


def test_grad_req_add_accumulates():
    net = mlp(hidden=(8,), classes=3)
    exe = net.simple_bind(mx.cpu(), grad_req="add", data=(4, 5))
    rng = np.random.RandomState(1)
    for k, v in exe.arg_dict.items():
        v[:] = rng.randn(*v.shape)
    exe.arg_dict["softmax_label"][:] = [0, 1, 2, 0]
    exe.forward(is_train=True)
    exe.backward()
    once = exe.grad_dict["fc1_weight"].asnumpy().copy()
    exe.forward(is_train=True)
    exe.backward()
    np.testing.assert_allclose(exe.grad_dict["fc1_weight"].asnumpy(), 2 * once, rtol=1e-5, atol=1e-7)


def test_forward_kwargs_and_bad_names():
    exe = mlp(hidden=(8,), classes=3).simple_bind(mx.cpu(), data=(2, 5))
    exe.forward(data=np.ones((2, 5)))
    assert (exe.arg_dict["data"].asnumpy() == 1).all()
    with pytest.raises(ValueError, match="not an argument"):
        exe.forward(dta=np.ones((2, 5)))


def test_non_loss_head_gradient():
    x = mx.sym.var("x")
    y = mx.sym.Activation(x, act_type="tanh") * 3.0
    exe = y.simple_bind(mx.cpu(), x=(2, 3))
    xv = np.random.randn(2, 3)
    exe.arg_dict["x"][:] = xv
    exe.forward(is_train=True)
    og = np.random.randn(2, 3)
    exe.backward([mx.nd.array(og)])
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), og * 3 * (1 - np.tanh(xv) ** 2),
                               rtol=1e-5, atol=1e-6)
    exe.backward()  # default head gradient: ones
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), 3 * (1 - np.tanh(xv) ** 2), rtol=1e-5)


def test_group_with_variable_output():
    x = mx.sym.var("x")
    g = mx.sym.Group([x, x * 2.0])
    exe = g.simple_bind(mx.cpu(), x=(2,))
    exe.arg_dict["x"][:] = [1, 2]
    out = exe.forward()
    assert out[0].asnumpy().tolist() == [1, 2] and out[1].asnumpy().tolist() == [2, 4]


def test_memory_report_mlp_training_batch_256():
    exe = mlp().simple_bind(mx.cpu(), data=(256, 64))
    r = exe.memory_report()
    assert r["arena_bytes"] < r["no_sharing_bytes"]
    assert r["arena_bytes"] <= 1.1 * r["lower_bound_bytes"]
    assert r["lower_bound_bytes"] <= r["arena_bytes"]
    assert r["num_inplace"] >= 2  # the relus write into their inputs
    # float16 halves the activation memory: the planner sizes entries by dtype
    r16 = mlp().simple_bind(mx.cpu(), type_dict={"data": "float16"}, data=(256, 64)).memory_report()
    assert r16["arena_bytes"] <= 0.55 * r["arena_bytes"]


def test_outputs_survive_backward():
    """Forward outputs stay readable after backward (the planner keeps them alive)."""
    exe = mlp().simple_bind(mx.cpu(), data=(16, 64))
    rng = np.random.RandomState(3)
    for k, v in exe.arg_dict.items():
        v[:] = rng.randn(*v.shape) * 0.1
    exe.arg_dict["softmax_label"][:] = rng.randint(0, 10, 16)
    out = exe.forward(is_train=True)[0].asnumpy().copy()
    exe.backward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), out)


def test_bind_options_are_validated_and_reported():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    exe = net.simple_bind(mx.cpu(), options={"layout": "off", "workspace_mb": 64}, data=(2, 4))
    assert exe.options["layout"] == "off" and exe.options["workspace_mb"] == 64
    assert exe.options["cuda_graphs"] == mx.default_bind_options()["cuda_graphs"]
    with pytest.raises(mx.MXNetError, match="layout='sideways'"):
        net.simple_bind(mx.cpu(), options={"layout": "sideways"}, data=(2, 4))
    with pytest.raises(mx.MXNetError, match="unknown bind option 'planner'"):
        net.simple_bind(mx.cpu(), options={"planner": 1}, data=(2, 4))
    with pytest.raises(mx.MXNetError, match="workspace_mb=-1"):
        net.simple_bind(mx.cpu(), options={"workspace_mb": -1}, data=(2, 4))
    args = {"data": mx.nd.ones((2, 4)), "fc_weight": mx.nd.ones((3, 4)), "fc_bias": mx.nd.zeros(3)}
    assert net.bind(mx.cpu(), args, options={"layout": "NHWC"}).options["layout"] == "NHWC"


def test_bind_option_defaults_come_from_the_environment():
    """The environment variables are only defaults, read in one place."""
    import subprocess
    import sys
    code = "import symnet as mx; d = mx.default_bind_options(); print(d['layout'], d['cuda_graphs'], d['workspace_mb'])"
    def defaults(**env):
        e = {k: v for k, v in os.environ.items() if not k.startswith("SYMNET_")}
        e.update(env)
        return subprocess.run([sys.executable, "-c", code], env=e, stdout=subprocess.PIPE,
                              universal_newlines=True, check=True).stdout.split()
    assert defaults() == ["auto", "False", "1024"]
    assert defaults(SYMNET_CHANNELS_LAST="0")[0] == "off"
    assert defaults(SYMNET_LAYOUT="NHWC", SYMNET_CUDA_GRAPHS="1", SYMNET_CUDNN_WORKSPACE_MB="256") == \
        ["NHWC", "True", "256"]


def test_module_passes_bind_options():
    data = mx.sym.var("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))],
             bind_options={"layout": "off"})
    assert mod._exec.options["layout"] == "off"


def test_reshape_and_shared_exec_reuse_the_internal_memory():
    # MXNet's Executor.reshape binds with shared_exec: a smaller executor's outputs live in the
    # larger one's memory (MXNet's test_executor.test_reshape relies on it)
    x = mx.sym.Variable("x")
    y = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_dict["x"][:] = 1
    exe.arg_dict["fc_weight"][:] = 1
    exe.arg_dict["fc_bias"][:] = 0
    small = exe.reshape(x=(3, 4))
    small.forward(is_train=False)
    assert (small.outputs[0].asnumpy() == 4).all()
    assert (exe.outputs[0].asnumpy()[:3] == 4).all()  # the same memory (offsets are the plan's)
    # an executor larger than the memory cannot live in it: it gets its own
    rows = exe.memory_report()["arena_bytes"] // 16 + 64
    big = exe.reshape(allow_up_sizing=True, x=(rows, 4))
    big.outputs[0][:] = -1
    exe.forward(is_train=False)
    assert (exe.outputs[0].asnumpy() == 4).all()
    assert (big.outputs[0].asnumpy() == -1).all()


def _shared(d, f):
    return f(d)


def _internals(exe):
    return len(exe.get_optimized_symbol().get_internals().list_outputs())


@pytest.mark.parametrize("make, saved", [
    (lambda a, b: (a + 1) + (a + 2), 0),
    (lambda a, b: (a + b) + (a + b), 1),
    (lambda a, b: _shared(a + 1, lambda d: mx.sym.Group([a * d, a * d])), 0),  # then a copy
    (lambda a, b: _shared(a + 1, lambda d: mx.sym.Group([a * d + b, a * d + b])), 1),
    (lambda a, b: mx.sym.Group([a * (a + 1), a * (a + 1)]), 1),  # the two a + 1 merge too
    (lambda a, b: mx.sym.Dropout(a, p=0.5) + mx.sym.Dropout(a, p=0.5), 0),  # random: kept
])
def test_bind_merges_common_subexpressions_as_mxnet(make, saved, monkeypatch):
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    sym = make(a, b)
    shapes = {n: (3, 4) for n in sym.list_arguments()}
    monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "0")
    plain = sym.simple_bind(mx.cpu(), **shapes)
    monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "1")
    merged = sym.simple_bind(mx.cpu(), **shapes)
    assert _internals(plain) == _internals(merged) + saved
    data = {n: mx.nd.array(np.random.RandomState(0).rand(3, 4)) for n in shapes}
    outs = [e.forward(is_train=False, **data) for e in (plain, merged)]
    for e in (plain, merged):
        e.backward([mx.nd.ones((3, 4))] * len(sym.list_outputs()))
    for x, y in zip(*outs):
        np.testing.assert_allclose(x.asnumpy(), y.asnumpy(), rtol=1e-6)
    for x, y in zip(plain.grad_arrays, merged.grad_arrays):
        np.testing.assert_allclose(x.asnumpy(), y.asnumpy(), rtol=1e-6)
