"""Custom operators written in Python (mx.operator): symbols, simple_bind, Module training,
imperative calls, auxiliary states, AMP loss scaling, JSON round trips and errors."""
import json

import numpy as np
import pytest

import symnet as mx


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class _Softmax(mx.operator.CustomOp):
    """A softmax loss head: backward is softmax - onehot(label), ignoring the head gradient."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        self.assign(out_data[0], req[0], mx.nd.array(_softmax(x), dtype=x.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().astype(int)
        y = out_data[0].asnumpy().copy()
        y[np.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))
        self.assign(in_grad[1], req[1], mx.nd.zeros(in_grad[1].shape))


@mx.operator.register("test_softmax")
class _SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        data_shape = in_shape[0]
        label_shape = (in_shape[0][0],)
        return [data_shape, label_shape], [data_shape], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Softmax()


class _ScaleAdd(mx.operator.CustomOp):
    """out0 = scale * a + b, out1 = a * b; keeps a counter in self for the backward to check."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.forwards = 0

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.forwards += 1
        self.assign(out_data[0], req[0], a * self.scale + b)
        self.assign(out_data[1], req[1], a * b)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        assert self.forwards >= 1, "backward must see the operator forward ran on"
        a, b = in_data
        g0, g1 = out_grad
        self.assign(in_grad[0], req[0], g0 * self.scale + g1 * b)
        self.assign(in_grad[1], req[1], g0 + g1 * a)


@mx.operator.register("test_scale_add")
class _ScaleAddProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1.0"):
        super().__init__(need_top_grad=True)
        self.scale = float(scale)  # parameters arrive as strings, as in MXNet

    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["sum", "prod"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _ScaleAdd(self.scale)


class _RunningMean(mx.operator.CustomOp):
    """Identity on data that also updates an auxiliary running mean in training."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])
        if is_train:
            mean = in_data[0].asnumpy().mean(axis=0)
            aux[0][:] = aux[0].asnumpy() * 0.5 + mean * 0.5

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("test_running_mean")
class _RunningMeanProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["moving_mean"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [in_shape[0][1:]]

    def create_operator(self, ctx, shapes, dtypes):
        return _RunningMean()


def _scale_add_sym(scale=2.0):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    return mx.sym.Custom(a=a, b=b, op_type="test_scale_add", scale=scale, name="sa")


def test_interface_comes_from_the_prop():
    s = _scale_add_sym()
    assert s.list_arguments() == ["a", "b"]
    assert s.list_outputs() == ["sa_sum", "sa_prod"]
    node = json.loads(s.tojson())["nodes"][-1]
    assert node["op"] == "Custom"
    assert node["attrs"] == {"op_type": "test_scale_add", "scale": "2.0"}
    _, out, _ = s.infer_shape(a=(2, 3), b=(2, 3))
    assert out == [(2, 3), (2, 3)]
    # a missing input becomes a variable named after the node, as for built-in ops
    sm = mx.sym.Custom(data=mx.sym.var("data"), op_type="test_softmax", name="sm")
    assert sm.list_arguments() == ["data", "sm_label"]
    args, _, _ = sm.infer_shape(data=(4, 5))
    assert args == [(4, 5), (4,)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_backward_against_numpy(dtype):
    rng = np.random.RandomState(3)
    a, b = rng.randn(2, 3).astype(dtype), rng.randn(2, 3).astype(dtype)
    g0, g1 = rng.randn(2, 3).astype(dtype), rng.randn(2, 3).astype(dtype)
    exe = _scale_add_sym(1.5).simple_bind(mx.current_context(), a=(2, 3), b=(2, 3), type_dict={"a": dtype, "b": dtype})
    exe.arg_dict["a"][:] = a
    exe.arg_dict["b"][:] = b
    out = exe.forward(is_train=True)
    np.testing.assert_allclose(out[0].asnumpy(), 1.5 * a + b, rtol=1e-6)
    np.testing.assert_allclose(out[1].asnumpy(), a * b, rtol=1e-6)
    assert out[0].dtype == np.dtype(dtype)
    exe.backward([mx.nd.array(g0, dtype=dtype), mx.nd.array(g1, dtype=dtype)])
    np.testing.assert_allclose(exe.grad_dict["a"].asnumpy(), 1.5 * g0 + g1 * b, rtol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["b"].asnumpy(), g0 + g1 * a, rtol=1e-6)


def test_numeric_gradient_float64():
    rng = np.random.RandomState(4)
    loc = {"a": rng.randn(3, 2), "b": rng.randn(3, 2)}
    mx.test_utils.check_numeric_gradient(_scale_add_sym(0.7), loc, dtype=np.float64, rtol=1e-5, atol=1e-7)


def test_grad_req_add_accumulates():
    rng = np.random.RandomState(5)
    a, b, g0 = rng.randn(2, 2), rng.randn(2, 2), rng.randn(2, 2)
    exe = _scale_add_sym(2.0)[0].simple_bind(mx.current_context(), a=(2, 2), b=(2, 2), grad_req="add")
    exe.arg_dict["a"][:] = a
    exe.arg_dict["b"][:] = b
    for ga in exe.grad_arrays:
        ga[:] = 1.0
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(g0)])
    np.testing.assert_allclose(exe.grad_dict["a"].asnumpy(), 1.0 + 2.0 * g0, rtol=1e-5)
    np.testing.assert_allclose(exe.grad_dict["b"].asnumpy(), 1.0 + g0, rtol=1e-5)


def test_imperative_call():
    a = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    b = mx.nd.array([[0.5, 0.5], [1.0, -1.0]])
    s, p = mx.nd.Custom(a, b, op_type="test_scale_add", scale=3)
    np.testing.assert_allclose(s.asnumpy(), 3 * a.asnumpy() + b.asnumpy())
    np.testing.assert_allclose(p.asnumpy(), a.asnumpy() * b.asnumpy())
    s2, _ = mx.nd.Custom(b=b, a=a, op_type="test_scale_add")
    np.testing.assert_allclose(s2.asnumpy(), a.asnumpy() + b.asnumpy())
    with pytest.raises(TypeError, match="input 'b' is missing"):
        mx.nd.Custom(a, op_type="test_scale_add")


def test_auxiliary_state_is_updated_in_training_only():
    data = mx.sym.var("data")
    s = mx.sym.Custom(data=data, op_type="test_running_mean", name="rm")
    assert s.list_arguments() == ["data"]
    assert s.list_auxiliary_states() == ["rm_moving_mean"]
    exe = s.simple_bind(mx.current_context(), data=(4, 3))
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    exe.arg_dict["data"][:] = x
    exe.aux_dict["rm_moving_mean"][:] = 0
    exe.forward(is_train=False)
    np.testing.assert_array_equal(exe.aux_dict["rm_moving_mean"].asnumpy(), 0)
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.aux_dict["rm_moving_mean"].asnumpy(), x.mean(axis=0) * 0.5)
    exe.backward([mx.nd.ones((4, 3))])
    np.testing.assert_array_equal(exe.grad_dict["data"].asnumpy(), 1)


def _softmax_net():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data=data, num_hidden=3, name="fc")
    return mx.sym.Custom(data=fc, label=mx.sym.var("softmax_label"), op_type="test_softmax", name="softmax")


def _blobs(n=120):
    rng = np.random.RandomState(0)
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.5]], dtype=np.float32)
    y = rng.randint(0, 3, n)
    x = centers[y] + rng.randn(n, 2).astype(np.float32) * 0.5
    return x, y.astype(np.float32)


def test_custom_softmax_head_trains_through_module():
    x, y = _blobs()
    it = mx.io.NDArrayIter(x, y, batch_size=20, shuffle=False)
    mod = mx.mod.Module(_softmax_net(), data_names=["data"], label_names=["softmax_label"])
    mx.random.seed(1)
    mod.fit(it, num_epoch=8, optimizer="sgd", optimizer_params={"learning_rate": 0.1},
            initializer=mx.init.Xavier())
    acc = dict(mod.score(it, "acc"))["accuracy"]
    assert acc > 0.9, acc


def test_custom_softmax_gradient_matches_builtin_softmax_output():
    x, y = _blobs(8)
    grads = []
    for net in (_softmax_net(),
                mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                                     name="softmax")):
        exe = net.simple_bind(mx.current_context(), data=(8, 2), softmax_label=(8,))
        exe.arg_dict["data"][:] = x
        exe.arg_dict["softmax_label"][:] = y
        exe.arg_dict["fc_weight"][:] = np.linspace(-1, 1, 6).reshape(3, 2)
        exe.arg_dict["fc_bias"][:] = 0.1
        exe.forward(is_train=True)
        exe.backward()
        grads.append(exe.grad_dict["fc_weight"].asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_loss_head_gradients_carry_the_amp_loss_scale():
    """A Custom loss ignores its head gradient, so the executor's loss scale must still reach
    the gradients (as it does for SoftmaxOutput), or dynamic loss scaling would unscale wrongly."""
    x, y = _blobs(8)
    exe = _softmax_net().simple_bind(mx.current_context(), data=(8, 2), softmax_label=(8,))
    exe.arg_dict["data"][:] = x
    exe.arg_dict["softmax_label"][:] = y
    exe.arg_dict["fc_weight"][:] = 0.3
    exe.forward(is_train=True)
    exe.backward()
    plain = exe.grad_dict["fc_weight"].asnumpy().copy()
    exe.handle.set_loss_scale(128.0)
    exe.forward(is_train=True)
    exe.backward()
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy(), plain * 128.0, rtol=1e-5)


def test_json_round_trip_keeps_the_op():
    s = _scale_add_sym(0.25)
    loaded = mx.sym.load_json(s.tojson())
    assert loaded.tojson() == s.tojson()
    exe = loaded.simple_bind(mx.current_context(), a=(1, 2), b=(1, 2))
    exe.arg_dict["a"][:] = 4.0
    exe.arg_dict["b"][:] = 1.0
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), 2.0)


def test_unregistered_op_type_is_a_clear_error():
    with pytest.raises(mx.MXNetError, match="op_type 'no_such_op' is not registered"):
        mx.sym.Custom(data=mx.sym.var("x"), op_type="no_such_op")
    with pytest.raises(mx.MXNetError, match="op_type is required"):
        mx.sym.Custom(data=mx.sym.var("x"))


class _Failing(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise RuntimeError("boom in forward")


@mx.operator.register("test_failing")
class _FailingProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Failing()


def test_python_exception_becomes_an_error_with_its_traceback():
    exe = mx.sym.Custom(data=mx.sym.var("x"), op_type="test_failing").simple_bind(mx.current_context(), x=(2,))
    with pytest.raises(mx.MXNetError, match="(?s)op_type 'test_failing'.*forward.*boom in forward"):
        exe.forward()
    with pytest.raises(mx.MXNetError, match="boom in forward"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="test_failing")


@mx.operator.register("test_bad_shape")
class _BadShapeProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        return in_shape, [], []  # one output declared, none returned


def test_bad_infer_shape_result_names_the_op():
    s = mx.sym.Custom(data=mx.sym.var("x"), op_type="test_bad_shape", name="bad")
    with pytest.raises(mx.MXNetError, match="test_bad_shape.infer_shape returned 0 output entries; expected 1"):
        s.infer_shape(x=(2, 3))


def test_register_needs_a_prop_class():
    with pytest.raises(TypeError, match="CustomOpProp subclass"):
        mx.operator.register("x")(object)


# The same MXNet-style definitions run under both frameworks: the ops of a script written for
# MXNet work unchanged with `import symnet as mx`, and their symbol files load either way.
SHARED_DEFS = r'''
class Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[0] * self.k)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * in_data[0] * (2.0 * self.k))


@mx.operator.register("shared_sqr")
class SqrProp(mx.operator.CustomOpProp):
    def __init__(self, k="1"):
        super(SqrProp, self).__init__(need_top_grad=True)
        self.k = float(k)

    def create_operator(self, ctx, shapes, dtypes):
        op = Sqr()
        op.k = self.k
        return op


def build():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data=data, num_hidden=4, name="fc")
    sq = mx.sym.Custom(data=fc, op_type="shared_sqr", k=0.5, name="sq")
    return mx.sym.sum(sq, name="total")
'''

MXNET_CUSTOM = r"""
import json, sys
import numpy as np
import mxnet as mx
exec(sys.argv[1])
d = sys.argv[2]
mine = build()
mine.save(d + "/mxnet-symbol.json")
sym = mx.sym.load(d + "/symnet-symbol.json")
args = {k: mx.nd.array(v) for k, v in np.load(d + "/args.npz").items()}
exe = sym.bind(mx.cpu(), args=args, args_grad={k: mx.nd.zeros(v.shape) for k, v in args.items()})
out = exe.forward(is_train=True)[0].asnumpy()
exe.backward([mx.nd.ones(out.shape)])
print(json.dumps({"out": out.tolist(), "grads": {k: v.asnumpy().tolist() for k, v in exe.grad_dict.items()}}))
"""


def test_mxnet_loads_symnet_custom_symbols_and_back(tmp_path):
    from test_doc_claims import _run_mxnet
    env = {"mx": mx}
    exec(SHARED_DEFS, env)
    net = env["build"]()
    net.save(str(tmp_path / "symnet-symbol.json"))
    rng = np.random.RandomState(8)
    args = {"data": rng.randn(3, 5), "fc_weight": rng.randn(4, 5), "fc_bias": rng.randn(4)}
    np.savez(tmp_path / "args.npz", **args)
    theirs = _run_mxnet(MXNET_CUSTOM, SHARED_DEFS, tmp_path)
    for sym in (net, mx.sym.load(str(tmp_path / "mxnet-symbol.json"))):
        assert sym.tojson() == net.tojson()
        exe = sym.simple_bind(mx.current_context(), data=(3, 5))
        for k, v in args.items():
            exe.arg_dict[k][:] = v
        out = exe.forward(is_train=True)[0]
        exe.backward([mx.nd.ones(out.shape)])
        np.testing.assert_allclose(out.asnumpy(), theirs["out"], rtol=1e-5)
        for k in args:
            np.testing.assert_allclose(exe.grad_dict[k].asnumpy(), theirs["grads"][k], rtol=1e-4, atol=1e-5, err_msg=k)
