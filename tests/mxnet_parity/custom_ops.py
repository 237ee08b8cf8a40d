"""Custom operators and Gluon blocks written as MXNet scripts write them, for both frameworks:
define(mx) registers the ops with the given `mx` (MXNet 1.9.1 or symnet) and returns the blocks;
make_references.py runs CASES under MXNet, tests/python/test_custom_op_gluon.py under symnet.
Only MXNet 1.x API is used here, so that the file runs unchanged on both."""
import numpy as np


def define(mx):
    """Registers the pm_* custom ops with `mx` and returns a dict of the Gluon blocks, plus the
    lists the ops record into (seen_dtypes, seen_kwargs)."""
    ns = {"seen_dtypes": [], "seen_kwargs": []}
    nn = mx.gluon.nn

    class ScaleAdd(mx.operator.CustomOp):
        """Two inputs, two outputs: sum = scale * a + b, prod = a * b."""

        def __init__(self, scale):
            super(ScaleAdd, self).__init__()
            self.scale = scale

        def forward(self, is_train, req, in_data, out_data, aux):
            a, b = in_data
            self.assign(out_data[0], req[0], a * self.scale + b)
            self.assign(out_data[1], req[1], a * b)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            a, b = in_data
            self.assign(in_grad[0], req[0], out_grad[0] * self.scale + out_grad[1] * b)
            self.assign(in_grad[1], req[1], out_grad[0] + out_grad[1] * a)

    @mx.operator.register("pm_scale_add")
    class ScaleAddProp(mx.operator.CustomOpProp):
        def __init__(self, scale="1"):
            super(ScaleAddProp, self).__init__(need_top_grad=True)
            ns["seen_kwargs"].append({"scale": scale})
            self.scale = float(scale)

        def list_arguments(self):
            return ["a", "b"]

        def list_outputs(self):
            return ["sum", "prod"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0], in_shape[0]], []

        def declare_backward_dependency(self, out_grad, in_data, out_data):
            return list(out_grad) + list(in_data)

        def create_operator(self, ctx, shapes, dtypes):
            return ScaleAdd(self.scale)

    class SoftmaxLoss(mx.operator.CustomOp):
        """MXNet's example/numpy-ops/custom_softmax.py: the gradient is softmax - onehot(label),
        whatever the head gradient."""

        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
            y /= y.sum(axis=1).reshape((x.shape[0], 1))
            self.assign(out_data[0], req[0], mx.nd.array(y))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            label = in_data[1].asnumpy().ravel().astype(np.int64)
            y = out_data[0].asnumpy()
            y[np.arange(label.shape[0]), label] -= 1.0
            self.assign(in_grad[0], req[0], mx.nd.array(y))
            self.assign(in_grad[1], req[1], mx.nd.zeros(in_grad[1].shape))

    @mx.operator.register("pm_softmax_loss")
    class SoftmaxLossProp(mx.operator.CustomOpProp):
        def __init__(self):
            super(SoftmaxLossProp, self).__init__(need_top_grad=False)

        def list_arguments(self):
            return ["data", "label"]

        def list_outputs(self):
            return ["output"]

        def infer_shape(self, in_shape):
            return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

        def declare_backward_dependency(self, out_grad, in_data, out_data):
            return [in_data[1], out_data[0]]

        def create_operator(self, ctx, shapes, dtypes):
            return SoftmaxLoss()

    class RunningMean(mx.operator.CustomOp):
        """Identity that keeps a running mean of its input in an auxiliary state (training)."""

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0])
            if is_train:
                aux[0][:] = aux[0] * 0.5 + in_data[0].mean(axis=0) * 0.5

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * 2.0)

    @mx.operator.register("pm_running_mean")
    class RunningMeanProp(mx.operator.CustomOpProp):
        def __init__(self):
            super(RunningMeanProp, self).__init__(need_top_grad=True)

        def list_auxiliary_states(self):
            return ["moving_mean"]

        def infer_shape(self, in_shape):
            return [in_shape[0]], [in_shape[0]], [in_shape[0][1:]]

        def create_operator(self, ctx, shapes, dtypes):
            return RunningMean()

    class Argmax(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            self.assign(out_data[0], req[0], mx.nd.array(x.max(axis=1)))
            self.assign(out_data[1], req[1], mx.nd.array(x.argmax(axis=1), dtype="int32"))

    @mx.operator.register("pm_argmax")
    class ArgmaxProp(mx.operator.CustomOpProp):
        """Two outputs of different dtypes: infer_type says so."""

        def list_outputs(self):
            return ["max", "index"]

        def infer_shape(self, in_shape):
            return in_shape, [(in_shape[0][0],), (in_shape[0][0],)], []

        def infer_type(self, in_type):
            return in_type, [in_type[0], np.int32], []

        def create_operator(self, ctx, shapes, dtypes):
            return Argmax()

    class Record(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            ns["seen_dtypes"].append(np.dtype(in_data[0].dtype).name)
            self.assign(out_data[0], req[0], in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            ns["seen_dtypes"].append(np.dtype(out_grad[0].dtype).name)
            self.assign(in_grad[0], req[0], out_grad[0])

    @mx.operator.register("pm_record")
    class RecordProp(mx.operator.CustomOpProp):
        def __init__(self):
            super(RecordProp, self).__init__(need_top_grad=True)

        def create_operator(self, ctx, shapes, dtypes):
            return Record()

    @mx.operator.register("pm_bad_counts")
    class BadCountsProp(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0], in_shape[0]], []  # one output declared

    class DenseScaleAdd(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super(DenseScaleAdd, self).__init__(**kw)
            with self.name_scope():
                self.fa = nn.Dense(4, in_units=5)
                self.fb = nn.Dense(4, in_units=5)

        def hybrid_forward(self, F, x0, x1):
            s, p = F.Custom(self.fa(x0), self.fb(x1), op_type="pm_scale_add", scale=1.5)
            return F.tanh(s), p

    class SoftmaxLossNet(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super(SoftmaxLossNet, self).__init__(**kw)
            with self.name_scope():
                self.fc = nn.Dense(3, in_units=2)

        def hybrid_forward(self, F, x, label):
            return F.Custom(self.fc(x), label, op_type="pm_softmax_loss")

    class RunningMeanNet(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super(RunningMeanNet, self).__init__(**kw)
            with self.name_scope():
                self.moving_mean = self.params.get("moving_mean", shape=(3,), init="zeros",
                                                   grad_req="null")

        def hybrid_forward(self, F, x, moving_mean):
            return F.Custom(x, moving_mean, op_type="pm_running_mean")

    class DenseRecordNet(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super(DenseRecordNet, self).__init__(**kw)
            with self.name_scope():
                self.fc = nn.Dense(3, in_units=4)

        def hybrid_forward(self, F, x):
            return F.Custom(self.fc(x), op_type="pm_record")

    class ScaleAddNet(mx.gluon.HybridBlock):
        def __init__(self, scale, **kw):
            super(ScaleAddNet, self).__init__(**kw)
            self.scale = scale

        def hybrid_forward(self, F, a, b):
            return F.Custom(a, b, op_type="pm_scale_add", scale=self.scale)

    ns.update(DenseScaleAdd=DenseScaleAdd, SoftmaxLossNet=SoftmaxLossNet,
              RunningMeanNet=RunningMeanNet, DenseRecordNet=DenseRecordNet, ScaleAddNet=ScaleAddNet)
    return ns


def _dense_scale_add(rng):
    return (lambda mx, ns: ns["DenseScaleAdd"](),
            [rng.uniform(-1, 1, (3, 5)).astype(np.float32) for _ in range(2)])


def _softmax_loss(rng):
    return (lambda mx, ns: ns["SoftmaxLossNet"](),
            [rng.uniform(-1, 1, (6, 2)).astype(np.float32), rng.randint(0, 3, 6).astype(np.float32)])


def _running_mean(rng):
    return lambda mx, ns: ns["RunningMeanNet"](), [rng.uniform(-1, 1, (4, 3)).astype(np.float32)]


# case name -> f(rng) -> (make(mx, ns) -> block, inputs)
CASES = {"dense_scale_add": _dense_scale_add, "softmax_loss": _softmax_loss,
         "running_mean": _running_mean}


def set_params(mx, net, rng):
    """Initializes net and sets every parameter from rng, in a framework-independent order."""
    net.initialize(mx.init.Zero())
    named = net._collect_params_with_prefix()
    for key in sorted(named):
        if named[key].grad_req != "null":
            named[key].set_data(mx.nd.array(rng.uniform(-0.5, 0.5, named[key].shape).astype(np.float32)))


def run(mx, net, inputs, hybridize, head_seed=0):
    """Outputs and gradients (inputs: input<i>; parameters: their structural names) after one
    recorded forward and a backward with fixed random head gradients."""
    if hybridize:
        net.hybridize()
    xs = [mx.nd.array(a) for a in inputs]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        outs = net(*xs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    rng = np.random.RandomState(head_seed)
    heads = [mx.nd.array(rng.uniform(-1, 1, o.shape).astype(np.float32)) for o in outs]
    mx.autograd.backward(outs, heads)
    grads = {"input%d" % i: x.grad.asnumpy() for i, x in enumerate(xs)}
    for key, p in net._collect_params_with_prefix().items():
        if p.grad_req != "null":
            grads[key] = p.grad().asnumpy()
    return [o.asnumpy() for o in outs], grads
