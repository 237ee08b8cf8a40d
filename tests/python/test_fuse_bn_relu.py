"""CPU training binds fuse BatchNorm -> ReLU (_FusedBatchNormReLU, src/pass/fuse_bn_relu.cc), a
residual add -> ReLU (_FusedAddReLU) and a gradient sum -> ReLU backward
(_backward_FusedAddNReLU, src/pass/fuse_add_relu.cc). A fused bind must give what the unfused
graph gives: outputs, every gradient and the moving statistics, bit for bit where the math is
the same; pairs whose BatchNorm output is read elsewhere stay apart."""
import numpy as np
import pytest

import symnet as mx

NATIVE_BF16 = mx.amp.auto_dtype(mx.cpu())[0] == "bfloat16"


def bn(x, name, **kw):
    kw.setdefault("fix_gamma", False)
    y = mx.sym.BatchNorm(x, eps=1e-3, momentum=0.8, name=name, **kw)
    return y[0] if kw.get("output_mean_var") else y


def block(channels=16, relu_op=False, **bn_kw):
    """A conv-BN-ReLU stem and two ResNet basic blocks (conv-BN-ReLU, conv-BN, + shortcut, ReLU).
    The first block's output feeds the second block and its shortcut, so its gradient is a sum
    that goes into a ReLU's backward."""
    def relu(x, name):
        return mx.sym.relu(x, name=name) if relu_op else mx.sym.Activation(x, act_type="relu", name=name)

    def conv_bn(x, name):
        c = mx.sym.Convolution(x, num_filter=channels, kernel=(3, 3), pad=(1, 1), no_bias=True,
                               name=name + "_conv")
        return bn(c, name + "_bn", **bn_kw)

    y = relu(conv_bn(mx.sym.var("data"), "stem"), "stem_relu")
    for b in ("a", "b"):
        r = relu(conv_bn(y, b + "1"), b + "1_relu")
        y = relu(conv_bn(r, b + "2") + y, b + "_out")
    return y


def bind(sym, shape, fuse, dtype="float32"):
    exe = sym.simple_bind(mx.cpu(), data=shape, type_dict={"data": dtype}, options={"fuse": fuse})
    rng = np.random.RandomState(0)
    for k, v in sorted(exe.arg_dict.items()):
        lo, hi = (0.5, 1.5) if k.endswith("gamma") else (-0.3, 0.3)
        v[:] = rng.uniform(lo, hi, v.shape)
    for k, v in sorted(exe.aux_dict.items()):
        v[:] = rng.uniform(0.5, 2.0, v.shape) if k.endswith("var") else rng.uniform(-0.5, 0.5, v.shape)
    return exe


def step(exe, x, dy, is_train=True):
    exe.forward(is_train=is_train, data=x)
    exe.backward(out_grads=[mx.nd.array(dy, dtype=exe.outputs[0].dtype)])
    res = {"out": exe.outputs[0].asnumpy().astype(np.float64)}
    res.update({"grad:" + k: v.asnumpy().astype(np.float64) for k, v in exe.grad_dict.items()})
    res.update({"aux:" + k: v.asnumpy().astype(np.float64) for k, v in exe.aux_dict.items()})
    return res


def count(exe, op):
    return exe.debug_str().count("(%s)" % op)


def compare(sym, shape, dtype="float32", rtol=0.0, atol=0.0, steps=2):
    fused, plain = bind(sym, shape, True, dtype), bind(sym, shape, False, dtype)
    assert count(fused, "_FusedBatchNormReLU") == 3 and count(fused, "_backward_FusedBatchNormReLU") == 3
    assert count(fused, "_FusedAddReLU") == 2 and count(fused, "_backward_FusedAddNReLU") == 1
    assert "_Fused" not in plain.debug_str()
    rng = np.random.RandomState(1)
    x, dy = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape[:1] + (16,) + shape[2:])
    for _ in range(steps):  # the second step starts from moved statistics
        a, b = step(fused, x, dy), step(plain, x, dy)
        assert a.keys() == b.keys()
        for k in a:
            np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)
    assert (b["out"] == 0).any() and (b["out"] > 0).any(), "the ReLU is not exercised"
    return fused


def test_float32_block_equals_the_unfused_graph_bit_for_bit():
    fused = compare(block(), (2, 8, 6, 6))
    # a fused group's output keeps the ReLU's name (monitor callbacks see it)
    names = []
    fused.set_monitor_callback(lambda name, arr: names.append(name))
    fused.forward(is_train=True)
    assert {"stem_relu_output", "a1_relu_output", "a_out_output", "b_out_output"} <= set(names), names
    assert not any(n.startswith("a1_bn") or n.startswith("stem_bn") for n in names), names
    assert not any(n.endswith("_workspace") for n in names), names
    # and the default monitor (norms of float arrays) runs over a fused bind
    mon = mx.monitor.Monitor(1)
    mon.install(fused)
    mon.tic()
    fused.forward(is_train=True)
    assert any(name == "a_out_output" for _, name, _ in mon.toc())


@pytest.mark.parametrize("kw", [dict(fix_gamma=True), dict(use_global_stats=True), dict(relu_op=True),
                                dict(output_mean_var=True)], ids=str)
def test_batchnorm_options_keep_their_meaning(kw):
    compare(block(**kw), (2, 8, 5, 5), steps=1)


@pytest.mark.skipif(not NATIVE_BF16, reason="CPU lacks AVX512_CORE_BF16 (no native bfloat16)")
def test_amp_bfloat16_block_equals_the_unfused_graph():
    compare(mx.amp.convert_symbol(block(), "bfloat16"), (2, 8, 6, 6))


def test_float16_and_other_axes_run_the_unfused_kernels():
    # bfloat16 without native kernels, float16 and channel axis -1 take the fallback route
    compare(block(), (2, 8, 6, 6), dtype="float16", steps=1)
    x = mx.sym.var("data")
    y = mx.sym.Activation(bn(x, "bn", axis=-1), act_type="relu", name="r")
    fused, plain = bind(y, (2, 3, 4, 16), True), bind(y, (2, 3, 4, 16), False)
    assert count(fused, "_FusedBatchNormReLU") == 1
    rng = np.random.RandomState(2)
    xv, dy = rng.uniform(-1, 1, (2, 3, 4, 16)), rng.uniform(-1, 1, (2, 3, 4, 16))
    a, b = step(fused, xv, dy), step(plain, xv, dy)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_pairs_whose_batchnorm_output_is_read_elsewhere_stay_apart():
    x = mx.sym.var("data")
    b = bn(x, "bn")
    y = mx.sym.Activation(b, act_type="relu", name="r") + b  # BatchNorm's output read twice
    exe = bind(y, (2, 16, 4, 4), True)
    assert count(exe, "_FusedBatchNormReLU") == 0 and count(exe, "BatchNorm") == 1
    # a sigmoid is not fused; inference binds keep their own (convolution) fusion
    s = mx.sym.Activation(bn(x, "bn"), act_type="sigmoid", name="s")
    assert count(bind(s, (2, 16, 4, 4), True), "_FusedBatchNormReLU") == 0
    inf = block().simple_bind(mx.cpu(), data=(2, 8, 6, 6), grad_req="null")
    assert count(inf, "_FusedBatchNormReLU") == 0 and count(inf, "_FusedConvBN") == 5


def test_float64_gradient_of_the_fused_pair_by_finite_differences():
    x = mx.sym.var("data")
    y = mx.sym.Activation(bn(x, "bn"), act_type="relu", name="r")
    y = mx.sym.Activation(y + mx.sym.var("skip"), act_type="relu", name="r2")
    shape = (3, 4, 3, 3)
    assert count(bind(y, shape, True, "float64"), "_FusedBatchNormReLU") == 1
    rng = np.random.RandomState(4)
    loc = {"data": rng.uniform(-1, 1, shape), "skip": rng.uniform(-0.5, 0.5, shape),
           "bn_gamma": rng.uniform(0.5, 1.5, 4), "bn_beta": rng.uniform(-0.3, 0.3, 4)}
    aux = {"bn_moving_mean": np.zeros(4), "bn_moving_var": np.ones(4)}
    mx.test_utils.check_numeric_gradient(y, loc, aux_states=aux, numeric_eps=1e-6, rtol=1e-6, atol=1e-8)
