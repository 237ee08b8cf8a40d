"""Convolutions keep their weights reordered into oneDNN's format between calls while the weights'
write version stays the same (include/symnet/storage.h ContentVersion, DnnlOperand::CachedInput).

Counts: a repeated inference call reorders nothing; a training step reorders each weight once for
the forward primitive and once for the backward-data primitive (which wants another format, see
dnnl_convolution.cc). Staleness: every way of writing a weight between two inference calls of
one executor must show in the second call's output, which is compared with a freshly bound
executor's (no cache) on the same parameters."""
import numpy as np
import pytest

import symnet as mx
from symnet import _core

NATIVE_BF16 = mx.amp.auto_dtype(mx.cpu())[0] == "bfloat16"
SHAPE = (2, 16, 8, 8)  # 16 channels: the primitives pick blocked weight formats (a reorder)


def stats():
    s = _core.weight_reorder_stats()
    return s["reordered"], s["reused"]


def delta(before):
    now = stats()
    return now[0] - before[0], now[1] - before[1]


def convs(bn=False):
    """Three convolutions (the last one through BatchNorm + ReLU when bn, which an inference
    bind folds into _FusedConvBN)."""
    x = mx.sym.var("data")
    y = mx.sym.Convolution(x, num_filter=16, kernel=(3, 3), pad=(1, 1), no_bias=True, name="c1")
    y = mx.sym.Activation(y, act_type="relu")
    y = mx.sym.Convolution(y, num_filter=16, kernel=(1, 1), no_bias=False, name="c2")
    y = mx.sym.Convolution(y, num_filter=16, kernel=(3, 3), pad=(1, 1), no_bias=True, name="c3")
    if bn:
        y = mx.sym.Activation(mx.sym.BatchNorm(y, fix_gamma=False, name="bn"), act_type="relu")
    return y


def params(sym, seed):
    rng = np.random.RandomState(seed)
    arg_shapes, _, aux_shapes = sym.infer_shape(data=SHAPE)
    args = {n: mx.nd.array(rng.uniform(0.5, 1.5, s) if n.endswith(("gamma", "var")) else
                           rng.uniform(-0.3, 0.3, s))
            for n, s in zip(sym.list_arguments(), arg_shapes) if n != "data"}
    auxs = {n: mx.nd.array(rng.uniform(0.5, 1.5, s) if n.endswith("var") else rng.uniform(-0.3, 0.3, s))
            for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    return args, auxs


def infer_exe(sym, args, auxs):
    exe = sym.simple_bind(mx.cpu(), grad_req="null", data=SHAPE)
    for n, a in args.items():
        exe.arg_dict[n][:] = a
    for n, a in auxs.items():
        exe.aux_dict[n][:] = a
    return exe


X = np.random.RandomState(9).uniform(-1, 1, SHAPE).astype(np.float32)


def run(exe):
    exe.forward(is_train=False, data=mx.nd.array(X))
    return exe.outputs[0].asnumpy().copy()


def fresh(sym, args, auxs):
    """The output of a new executor (nothing cached) on copies of the parameters."""
    return run(infer_exe(sym, {k: v.copy() for k, v in args.items()},
                         {k: v.copy() for k, v in auxs.items()}))


@pytest.mark.parametrize("bn", [False, True], ids=["conv", "fused_conv_bn"])
def test_repeated_inference_reorders_no_weight(bn):
    sym = convs(bn)
    args, auxs = params(sym, 0)
    exe = infer_exe(sym, args, auxs)
    if bn:
        assert "_FusedConvBN" in exe.debug_str()
    first = run(exe)
    before = stats()
    again = run(exe)
    reordered, reused = delta(before)
    assert reordered == 0 and reused == 3
    np.testing.assert_array_equal(first, again)


def test_training_step_reorders_each_weight_once_per_primitive():
    sym = mx.sym.MakeLoss(mx.sym.sum(convs()))
    args, _ = params(sym, 1)
    exe = sym.simple_bind(mx.cpu(), data=SHAPE, grad_req={n: "null" if n == "data" else "write"
                                                          for n in sym.list_arguments()})
    for n, a in args.items():
        exe.arg_dict[n][:] = a
    exe.arg_dict["data"][:] = X
    exe.forward(is_train=True)
    exe.backward()
    for step in range(2):
        for n in args:  # the optimizer writes every weight in place
            mx.nd.sgd_update(exe.arg_dict[n], exe.grad_dict[n], lr=0.01, out=exe.arg_dict[n])
        before = stats()
        exe.forward(is_train=True)
        exe.backward()
        # 3 forward convolutions, 2 backward-data ones (the data needs no gradient)
        assert delta(before) == (3 + 2, 0)
    before = stats()
    exe.forward(is_train=True)  # weights unchanged since the last step
    assert delta(before) == (0, 3)


def _module(sym, args, auxs, for_training):
    mod = mx.mod.Module(sym, data_names=("data",), label_names=None)
    mod.bind(data_shapes=[("data", SHAPE)], for_training=for_training)
    mod.set_params(args, auxs)
    return mod


def _mod_out(mod):
    mod.forward(mx.io.DataBatch([mx.nd.array(X)]), is_train=False)
    return mod.get_outputs()[0].asnumpy().copy()


def _changed(sym, args, auxs, before, after):
    want = fresh(sym, args, auxs)
    assert not np.allclose(before, want), "the write did not change the output: a weak test"
    np.testing.assert_allclose(after, want, rtol=1e-5, atol=1e-5)


def test_optimizer_step_through_module():
    sym = mx.sym.MakeLoss(mx.sym.sum(convs()))
    args, auxs = params(sym, 2)
    mod = _module(sym, args, auxs, True)
    mod.init_optimizer(optimizer="sgd", optimizer_params=(("learning_rate", 0.5),))
    batch = mx.io.DataBatch([mx.nd.array(X)])
    # training forwards on both sides: a forward in the other mode makes new primitives
    mod.forward(batch, is_train=True)
    before = mod.get_outputs()[0].asnumpy().copy()
    mod.backward()
    assert mod.update() is not False
    mod.forward(batch, is_train=True)
    after = mod.get_outputs()[0].asnumpy().copy()
    new_args, new_auxs = mod.get_params()
    _changed(sym, new_args, new_auxs, before, after)


@pytest.mark.parametrize("how", ["setitem", "setitem_numpy", "copyto", "out", "fill", "set_params",
                                 "set_params_bn_stats", "load"])
def test_every_write_path_reaches_the_next_call(how, tmp_path):
    sym = convs(bn=True)
    args, auxs = params(sym, 3)
    mod = _module(sym, args, auxs, False)  # an inference bind: _FusedConvBN
    before = _mod_out(mod)
    exe = mod._exec
    w = exe.arg_dict["c2_weight"]
    new_w = mx.nd.array(np.random.RandomState(4).uniform(-0.3, 0.3, w.shape))
    args, auxs = {k: v.copy() for k, v in args.items()}, {k: v.copy() for k, v in auxs.items()}
    if how == "setitem":
        w[:] = new_w
    elif how == "setitem_numpy":
        w[:] = new_w.asnumpy()
    elif how == "copyto":
        new_w.copyto(w)
    elif how == "out":
        mx.nd.negative(w, out=w)
        new_w = -args["c2_weight"]
    elif how == "fill":
        w[:] = 0.05
        new_w = mx.nd.full(w.shape, 0.05)
    elif how == "set_params":
        args["c3_weight"] = args["c3_weight"] * 2
        mod.set_params(args, auxs)
    elif how == "set_params_bn_stats":  # folded into the weights of the fused convolution
        auxs["bn_moving_var"] = auxs["bn_moving_var"] * 4
        mod.set_params(args, auxs)
    elif how == "load":
        args["c1_weight"] = args["c1_weight"] * -1
        f = str(tmp_path / "p.params")
        mx.nd.save(f, {"arg:" + k: v for k, v in args.items()})
        loaded = mx.nd.load(f)
        mod.set_params({k[4:]: v for k, v in loaded.items()}, auxs)
    if how in ("setitem", "setitem_numpy", "copyto", "out", "fill"):
        args["c2_weight"] = new_w
    _changed(sym, args, auxs, before, _mod_out(mod))


def _gluon_net():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(16, 3, padding=1, in_channels=16),
            mx.gluon.nn.Conv2D(16, 3, padding=1, in_channels=16))
    net.hybridize()
    return net


def test_gluon_hybridized_set_data_trainer_and_load(tmp_path):
    net = _gluon_net()
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(X)

    def expected():  # a new network on the same parameters
        f = str(tmp_path / "now.params")
        net.save_parameters(f)
        other = _gluon_net()
        other.load_parameters(f)
        return other(x).asnumpy()

    first = net(x).asnumpy()
    net(x)
    f = str(tmp_path / "first.params")
    net.save_parameters(f)
    w = net[1].weight
    w.set_data(w.data() * -2)  # in place
    out = net(x).asnumpy()
    assert not np.allclose(out, first)
    np.testing.assert_allclose(out, expected(), rtol=1e-5, atol=1e-5)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    trainer.step(1)
    stepped = net(x).asnumpy()
    assert not np.allclose(out, stepped)
    np.testing.assert_allclose(stepped, expected(), rtol=1e-5, atol=1e-5)
    net.load_parameters(f)
    np.testing.assert_allclose(net(x).asnumpy(), first, rtol=1e-5, atol=1e-5)


def test_amp_bfloat16_casts_follow_the_weights():
    sym = mx.amp.convert_symbol(convs(), "bfloat16")
    args, auxs = params(convs(), 5)
    exe = infer_exe(sym, args, auxs)
    run(exe)
    before = stats()
    first = run(exe)
    if NATIVE_BF16:  # the bfloat16 copies made by amp_cast are reordered once, then kept
        assert delta(before) == (0, 3)
    exe.arg_dict["c3_weight"][:] = exe.arg_dict["c3_weight"] * 3
    after = run(exe)
    args["c3_weight"] = args["c3_weight"] * 3
    want = run(infer_exe(sym, args, auxs))
    assert not np.allclose(first, want, rtol=1e-2, atol=1e-2)
    np.testing.assert_array_equal(after, want)


def test_data_ptr_stops_caching():
    sym = convs()
    args, auxs = params(sym, 6)
    exe = infer_exe(sym, args, auxs)
    run(exe)
    exe.arg_dict["c1_weight"].handle.data_ptr  # the address escapes: writes can't be seen
    before = stats()
    run(exe)
    assert delta(before) == (1, 2)
