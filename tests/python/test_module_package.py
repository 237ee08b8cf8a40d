"""mx.mod's classes besides Module: BucketingModule (buckets over one set of parameters),
SequentialModule (chained modules), PythonLossModule, and the DataParallelExecutorGroup that
Module binds (slicing a batch over devices, memory shared with another group)."""
import numpy as np
import pytest

import symnet as mx
from symnet.module.executor_group import DataParallelExecutorGroup
from symnet.test_utils import same_array

FEAT, HIDDEN, CLASSES, BATCH = 4, 6, 3, 8


def seq_net(seq_len):
    """A classifier over (batch, seq_len, FEAT) whose parameters do not depend on seq_len: a
    per-step dense layer, summed over the steps, then a dense layer to the classes."""
    data = mx.sym.var("data")
    steps = mx.sym.FullyConnected(data, num_hidden=HIDDEN, flatten=False, name="step")
    pooled = mx.sym.sum(mx.sym.Activation(steps, act_type="tanh"), axis=1)
    out = mx.sym.FullyConnected(pooled, num_hidden=CLASSES, name="out")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def sym_gen(seq_len):
    return seq_net(seq_len), ("data",), ("softmax_label",)


def batches(lengths, seed=0):
    rng = np.random.RandomState(seed)
    out = []
    for n in lengths:
        x = rng.randn(BATCH, n, FEAT).astype(np.float32)
        y = rng.randint(0, CLASSES, size=BATCH).astype(np.float32)
        out.append(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)], bucket_key=n,
                                   provide_data=[mx.io.DataDesc("data", x.shape)],
                                   provide_label=[mx.io.DataDesc("softmax_label", y.shape)]))
    return out


def initial_params(seed=1):
    rng = np.random.RandomState(seed)
    shapes = {"step_weight": (HIDDEN, FEAT), "step_bias": (HIDDEN,), "out_weight": (CLASSES, HIDDEN),
              "out_bias": (CLASSES,)}
    return {k: mx.nd.array(rng.uniform(-0.5, 0.5, s).astype(np.float32)) for k, s in shapes.items()}


def numpy_params(mod):
    return {k: v.asnumpy() for k, v in mod.get_params()[0].items()}


def test_bucketing_trains_one_set_of_parameters_like_plain_modules():
    lengths = [5, 3, 5, 3, 3, 5]
    sgd = {"learning_rate": 0.5}  # no momentum: the reference modules below keep no state
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    mod.bind([("data", (BATCH, 5, FEAT))], [("softmax_label", (BATCH,))])
    mod.init_params(arg_params=initial_params(), aux_params={})
    mod.init_optimizer(optimizer="sgd", optimizer_params=sgd)
    for b in batches(lengths):
        mod.forward_backward(b)
        mod.update()
    assert sorted(mod._buckets) == [3, 5]
    # reference: a plain Module per bucket shape, the parameters carried from one to the next
    params = initial_params()
    plain = {}
    for n in (3, 5):
        plain[n] = mx.mod.Module(seq_net(n))
        plain[n].bind([("data", (BATCH, n, FEAT))], [("softmax_label", (BATCH,))])
        plain[n].init_params(arg_params=params, aux_params={})
        plain[n].init_optimizer(optimizer="sgd", optimizer_params=sgd)
    for b in batches(lengths):
        ref = plain[b.bucket_key]
        ref.set_params(params, {})
        ref.forward_backward(b)
        ref.update()
        params = ref.get_params()[0]
    got = numpy_params(mod)
    start = {k: v.asnumpy() for k, v in initial_params().items()}
    for k, v in params.items():
        assert not np.allclose(got[k], start[k]), k  # it trained
        np.testing.assert_allclose(got[k], v.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=k)


def test_buckets_share_parameter_gradient_and_optimizer_memory():
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    mod.bind([("data", (BATCH, 5, FEAT))], [("softmax_label", (BATCH,))], grad_req="add")
    mod.init_params(arg_params=initial_params(), aux_params={})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    five, three = batches([5, 3])
    mod.forward_backward(five)
    grad_five = mod._curr_module._exec_group.execs[0].grad_dict["out_weight"].asnumpy().copy()
    mod.forward_backward(three)
    big, small = mod._buckets[5], mod._buckets[3]
    assert small._grad_req == "add"
    for name in ("step_weight", "out_weight", "out_bias"):
        assert same_array(big._exec.arg_dict[name], small._exec.arg_dict[name]), name
        assert same_array(big._exec.grad_dict[name], small._exec.grad_dict[name]), name
    # grad_req 'add': the second bucket's gradient was added to the first one's
    alone = mx.mod.Module(seq_net(3))
    alone.bind([("data", (BATCH, 3, FEAT))], [("softmax_label", (BATCH,))])
    alone.init_params(arg_params=initial_params(), aux_params={})
    alone.forward_backward(three)
    np.testing.assert_allclose(small._exec.grad_dict["out_weight"].asnumpy(),
                               grad_five + alone._exec.grad_dict["out_weight"].asnumpy(), rtol=1e-5, atol=1e-6)
    mod.update()
    assert small._states is big._states and small._optimizer is big._optimizer
    assert len(big._states) == 4


def test_bucketing_checkpoint_round_trip(tmp_path):
    prefix = str(tmp_path / "bk")
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    mod.bind([("data", (BATCH, 5, FEAT))], [("softmax_label", (BATCH,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer_params={"learning_rate": 0.3})
    for b in batches([5, 3, 5]):
        mod.forward_backward(b)
        mod.update()
    mod.save_checkpoint(prefix, 2)
    back = mx.mod.BucketingModule.load(prefix, 2, sym_gen=sym_gen, default_bucket_key=5)
    assert sorted(back._buckets) == [3, 5]
    back.bind([("data", (BATCH, 5, FEAT))], [("softmax_label", (BATCH,))], for_training=False)
    saved, got = numpy_params(mod), numpy_params(back)
    assert sorted(saved) == sorted(got)
    for k in saved:
        np.testing.assert_array_equal(got[k], saved[k], err_msg=k)
    for b in batches([3, 5], seed=7):
        mod.forward(b, is_train=False)
        back.forward(b, is_train=False)
        np.testing.assert_allclose(back.get_outputs()[0].asnumpy(), mod.get_outputs()[0].asnumpy(), rtol=1e-6)


class BucketIter(mx.io.DataIter):
    """Batches of two sequence lengths, labelled by which of the first CLASSES features has the
    largest sum over the steps (learnable by seq_net)."""

    def __init__(self, lengths, seed):
        super().__init__(BATCH)
        rng = np.random.RandomState(seed)
        self.batches = []
        for n in lengths:
            x = rng.randn(BATCH, n, FEAT).astype(np.float32)
            y = x[:, :, :CLASSES].sum(axis=1).argmax(axis=1).astype(np.float32)
            self.batches.append(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)], bucket_key=n,
                                                provide_data=[mx.io.DataDesc("data", x.shape)],
                                                provide_label=[mx.io.DataDesc("softmax_label", y.shape)]))
        self.provide_data = [mx.io.DataDesc("data", (BATCH, max(lengths), FEAT))]
        self.provide_label = [mx.io.DataDesc("softmax_label", (BATCH,))]
        self.cursor = 0

    def reset(self):
        self.cursor = 0

    def __next__(self):
        if self.cursor == len(self.batches):
            raise StopIteration
        self.cursor += 1
        return self.batches[self.cursor - 1]


def test_bucketing_fit_and_score_over_mixed_buckets():
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=6)
    mod.bind([("data", (BATCH, 6, FEAT))], [("softmax_label", (BATCH,))])
    mod.init_params(mx.init.Xavier())
    test = BucketIter([2, 6] * 6, seed=1)
    before = dict(mod.score(test, "acc"))["accuracy"]
    mod.fit(BucketIter([6, 2] * 12, seed=0), num_epoch=10, optimizer_params={"learning_rate": 0.02, "momentum": 0.9})
    after = dict(mod.score(test, "acc"))["accuracy"]
    assert sorted(mod._buckets) == [2, 6]
    assert after > 0.7 and after > before + 0.3, (before, after)  # chance: 1/3


def test_sequential_module_trains_like_the_composed_module():
    x = mx.sym.var("data")
    first = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=HIDDEN, name="fc1"), act_type="relu")
    second = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("hidden"), num_hidden=CLASSES, name="fc2"),
                                  name="softmax")
    composed = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(first, num_hidden=CLASSES, name="fc2"), name="softmax")
    rng = np.random.RandomState(3)
    params = {"fc1_weight": rng.randn(HIDDEN, FEAT), "fc1_bias": rng.randn(HIDDEN),
              "fc2_weight": rng.randn(CLASSES, HIDDEN), "fc2_bias": rng.randn(CLASSES)}
    params = {k: mx.nd.array(v.astype(np.float32) * 0.5) for k, v in params.items()}
    x_all = rng.randn(4 * BATCH, FEAT).astype(np.float32)
    y_all = rng.randint(0, CLASSES, size=4 * BATCH).astype(np.float32)
    opt = {"learning_rate": 0.2, "momentum": 0.9}

    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(first, label_names=None))
    seq.add(mx.mod.Module(second, data_names=("hidden",)), take_labels=True, auto_wiring=True)
    one = mx.mod.Module(composed)
    for mod in (seq, one):
        mod.bind([("data", (BATCH, FEAT))], [("softmax_label", (BATCH,))])
        mod.init_params(arg_params=params, aux_params={}, allow_extra=True)
        mod.init_optimizer(optimizer="sgd", optimizer_params=opt)
        for b in mx.io.NDArrayIter(x_all, y_all, batch_size=BATCH):
            mod.forward_backward(b)
            mod.update()
    assert seq._modules[1].inputs_need_grad and not seq._modules[0].inputs_need_grad
    got, want = numpy_params(seq), numpy_params(one)
    assert sorted(got) == sorted(want)
    for k in want:
        assert not np.allclose(want[k], params[k].asnumpy()), k
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    it = mx.io.NDArrayIter(x_all, y_all, batch_size=BATCH)
    np.testing.assert_allclose(seq.predict(it).asnumpy(), one.predict(it).asnumpy(), rtol=1e-5, atol=1e-6)
    assert dict(seq.score(it, "acc"))["accuracy"] == pytest.approx(dict(one.score(it, "acc"))["accuracy"])


def test_python_loss_module_gives_its_gradient_to_the_module_before():
    x = mx.sym.var("data")
    net = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(net, label_names=None))
    # squared error: d/dscores 0.5*|scores - labels|^2 = scores - labels
    seq.add(mx.mod.PythonLossModule(grad_func=lambda s, l: s - l), take_labels=True, auto_wiring=True)
    seq.bind([("data", (BATCH, FEAT))], [("softmax_label", (BATCH, 2))])
    seq.init_params(mx.init.Xavier())
    rng = np.random.RandomState(0)
    x_np, y_np = rng.randn(BATCH, FEAT).astype(np.float32), rng.randn(BATCH, 2).astype(np.float32)
    seq.forward_backward(mx.io.DataBatch([mx.nd.array(x_np)], [mx.nd.array(y_np)]))
    w = seq._modules[0]._exec.arg_dict["fc_weight"].asnumpy()
    b = seq._modules[0]._exec.arg_dict["fc_bias"].asnumpy()
    residual = x_np @ w.T + b - y_np
    np.testing.assert_allclose(seq._modules[0]._exec.grad_dict["fc_weight"].asnumpy(), residual.T @ x_np,
                               rtol=1e-4, atol=1e-5)


def test_executor_group_slices_a_batch_over_two_contexts():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    contexts = [mx.cpu(0), mx.cpu(1)]
    group = DataParallelExecutorGroup(net, contexts, [1, 1], [("data", (5, 4))], None, ["fc_weight", "fc_bias"],
                                      for_training=True, inputs_need_grad=True)
    # MXNet's split: round(5 * 1/2) = 2 rows to the first context, the rest to the last
    assert group.batch_size == 5 and group.slices == [slice(0, 2), slice(2, 5)]
    assert [e.arg_dict["data"].shape for e in group.execs] == [(2, 4), (3, 4)]
    assert [len(a) for a in (group.param_arrays, group.grad_arrays, group.data_arrays)] == [2, 2, 1]
    assert group.label_arrays is None and group.aux_arrays == []
    rng = np.random.RandomState(0)
    w, b = rng.randn(3, 4).astype(np.float32), rng.randn(3).astype(np.float32)
    group.set_params({"fc_weight": mx.nd.array(w), "fc_bias": mx.nd.array(b)}, {})
    x = rng.randn(5, 4).astype(np.float32)
    head = rng.randn(5, 3).astype(np.float32)
    group.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=True)
    np.testing.assert_array_equal(group.execs[0].arg_dict["data"].asnumpy(), x[:2])
    np.testing.assert_array_equal(group.execs[1].arg_dict["data"].asnumpy(), x[2:])
    np.testing.assert_allclose(group.get_outputs()[0].asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)
    group.backward([mx.nd.array(head)])
    np.testing.assert_allclose(group.get_input_grads()[0].asnumpy(), head @ w, rtol=1e-5, atol=1e-6)
    per_ctx = [g.asnumpy() for g in group.grad_arrays[0]]  # fc_weight's gradient on each context
    np.testing.assert_allclose(per_ctx[0], head[:2].T @ x[:2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(per_ctx[1], head[2:].T @ x[2:], rtol=1e-5, atol=1e-6)


def test_executor_group_cuts_along_the_layouts_batch_axis():
    x = mx.sym.Activation(mx.sym.var("data"), act_type="relu", __layout__="TNC")
    desc = mx.io.DataDesc("data", (3, 4, 2), layout="TNC")
    group = DataParallelExecutorGroup(x, [mx.cpu(0), mx.cpu(1)], [1, 1], [desc], None, [], for_training=False,
                                      inputs_need_grad=False)
    assert [e.arg_dict["data"].shape for e in group.execs] == [(3, 2, 2), (3, 2, 2)]
    values = np.arange(24, dtype=np.float32).reshape(3, 4, 2) - 10
    group.forward(mx.io.DataBatch([mx.nd.array(values)]))
    np.testing.assert_array_equal(group.execs[1].arg_dict["data"].asnumpy(), values[:, 2:])
    np.testing.assert_array_equal(group.get_outputs()[0].asnumpy(), np.maximum(values, 0))


def test_executor_group_shares_memory_with_its_shared_group():
    def net(layers):
        y = mx.sym.var("data")
        for i in range(layers):
            y = mx.sym.FullyConnected(y, num_hidden=4, name="fc%d" % i)
        return mx.sym.LinearRegressionOutput(y, name="lro")

    contexts = [mx.cpu(0), mx.cpu(1)]
    shapes = ([("data", (6, 4))], [("lro_label", (6, 4))])
    first = DataParallelExecutorGroup(net(2), contexts, None, *shapes, ["fc0_weight", "fc0_bias", "fc1_weight",
                                                                        "fc1_bias"], True, False)
    assert [sorted(d) for d in first.shared_data_arrays] == [["data", "lro_label"]] * 2
    second = DataParallelExecutorGroup(net(3), contexts, None, *shapes, first.param_names, True, False,
                                       shared_group=first)
    assert second.shared_data_arrays is first.shared_data_arrays
    for i in range(2):
        # fc2 is not a parameter of the shared group: it is kept with the data arrays
        assert sorted(first.shared_data_arrays[i]) == ["data", "fc2_bias", "fc2_weight", "lro_label"]
        for name in first.param_names:
            assert same_array(first.execs[i].arg_dict[name], second.execs[i].arg_dict[name]), name
            assert same_array(first.execs[i].grad_dict[name], second.execs[i].grad_dict[name]), name
        assert same_array(first.execs[i].arg_dict["data"], second.execs[i].arg_dict["data"])
    # another batch size cannot reuse the arrays: those of the new shape are the group's own
    third = DataParallelExecutorGroup(net(2), contexts, None, [("data", (8, 4))], [("lro_label", (8, 4))],
                                      first.param_names, True, False, shared_group=first)
    assert third.execs[0].arg_dict["data"].shape == (4, 4)
    assert same_array(first.execs[0].arg_dict["fc0_weight"], third.execs[0].arg_dict["fc0_weight"])
    assert first.shared_data_arrays[0]["data"].shape == (3, 4)
    assert same_array(first.shared_data_arrays[0]["data"], first.execs[0].arg_dict["data"])
