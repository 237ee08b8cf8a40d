"""Binds without gradients fold Convolution -> BatchNorm (-> ReLU) into one _FusedConvBN node
(src/pass/fuse_conv_bn.cc): the folded convolution must give what the three nodes give, in
inference and, through the unfused route, in a forward with is_train=True (batch statistics and
moving averages), in every dtype; chains whose inner results are read elsewhere stay apart."""
import numpy as np
import pytest

import symnet as mx

NATIVE_BF16 = mx.amp.auto_dtype(mx.cpu())[0] == "bfloat16"


def chain(no_bias=True, relu=True, fix_gamma=False, num_group=1, stride=1, channels=8):
    x = mx.sym.var("data")
    c = mx.sym.Convolution(x, num_filter=channels, kernel=(3, 3), pad=(1, 1), stride=(stride, stride),
                           num_group=num_group, no_bias=no_bias, name="conv")
    y = mx.sym.BatchNorm(c, fix_gamma=fix_gamma, eps=1e-3, name="bn")
    if relu:
        y = mx.sym.Activation(y, act_type="relu", name="relu")
    return y


def fill(exe, seed=0):
    rng = np.random.RandomState(seed)
    for k, v in sorted(exe.arg_dict.items()):
        if k == "data":
            continue
        lo, hi = (0.5, 1.5) if k.endswith("gamma") else (-0.3, 0.3)
        v[:] = rng.uniform(lo, hi, v.shape)
    for k, v in sorted(exe.aux_dict.items()):
        v[:] = rng.uniform(0.5, 2.0, v.shape) if k.endswith("var") else rng.uniform(-0.5, 0.5, v.shape)


def bind(sym, shape, fuse, dtype="float32"):
    exe = sym.simple_bind(mx.cpu(), data=shape, grad_req="null", type_dict={"data": dtype},
                          options={"fuse": fuse})
    fill(exe)
    return exe


def run(exe, x, is_train=False):
    exe.forward(is_train=is_train, data=x)
    return exe.outputs[0].asnumpy().astype(np.float64)


def fused_nodes(exe):
    return exe.debug_str().count("(_FusedConvBN)")


CASES = [
    dict(),
    dict(no_bias=False),
    dict(relu=False),
    dict(fix_gamma=True),
    dict(num_group=8, stride=2),  # depthwise, as in MobileNet
    dict(num_group=2, channels=16),
]


@pytest.mark.parametrize("kw", CASES, ids=[str(sorted(c.items())) for c in CASES])
def test_folded_inference_matches_the_three_nodes_in_float32(kw):
    sym = chain(**kw)
    shape = (3, 8, 10, 10)
    x = np.random.RandomState(1).uniform(-1, 1, shape).astype(np.float32)
    fused, plain = bind(sym, shape, True), bind(sym, shape, False)
    assert fused_nodes(fused) == 1 and fused_nodes(plain) == 0
    ref = run(plain, x)
    np.testing.assert_allclose(run(fused, x), ref, rtol=1e-5, atol=1e-5)
    if kw.get("relu", True):
        assert (ref == 0).any(), "the ReLU post-op is not exercised"


def test_folded_inference_matches_a_numpy_reference():
    sym = chain(no_bias=False)
    shape = (2, 8, 6, 6)
    x = np.random.RandomState(2).uniform(-1, 1, shape)
    exe = bind(sym, shape, True)
    a = {k: v.asnumpy().astype(np.float64) for k, v in exe.arg_dict.items()}
    aux = {k: v.asnumpy().astype(np.float64) for k, v in exe.aux_dict.items()}
    w, b = a["conv_weight"], a["conv_bias"]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((2, 8, 6, 6))
    for i in range(6):
        for j in range(6):
            conv[:, :, i, j] = np.einsum("ncij,ocij->no", xp[:, :, i:i + 3, j:j + 3], w)
    conv += b[None, :, None, None]
    c = lambda v: v[None, :, None, None]  # noqa: E731
    bn = (conv - c(aux["bn_moving_mean"])) / np.sqrt(c(aux["bn_moving_var"]) + 1e-3) * c(a["bn_gamma"])
    ref = np.maximum(bn + c(a["bn_beta"]), 0)
    np.testing.assert_allclose(run(exe, x.astype(np.float32)), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype,tol", [("bfloat16", 3e-2), ("float16", 3e-3), ("float64", 1e-12)])
def test_folded_inference_in_other_dtypes(dtype, tol):
    sym = chain(no_bias=False)
    shape = (2, 8, 8, 8)
    x = np.random.RandomState(3).uniform(-1, 1, shape)
    fused, plain = bind(sym, shape, True, dtype), bind(sym, shape, False, dtype)
    assert fused_nodes(fused) == 1
    ref = run(plain, x)
    np.testing.assert_allclose(run(fused, x), ref, rtol=tol, atol=tol * np.abs(ref).max())


@pytest.mark.skipif(not NATIVE_BF16, reason="CPU lacks AVX512_CORE_BF16 (no native bfloat16 fold)")
def test_amp_bfloat16_resnet_block_folds_every_batchnorm():
    net = mx.models.resnet(18, "1.5", 10, (3, 32, 32))
    net = mx.amp.convert_symbol(net, "bfloat16")
    shape = (2, 3, 32, 32)
    fused, plain = bind(net, shape, True), bind(net, shape, False)
    assert fused_nodes(fused) == sum(1 for n in plain.debug_str().splitlines() if "(BatchNorm)" in n)
    x = np.random.RandomState(4).uniform(-1, 1, shape).astype(np.float32)
    np.testing.assert_allclose(run(fused, x), run(plain, x), rtol=5e-2, atol=2e-2)


def test_training_forward_on_a_fused_bind_means_what_the_unfused_graph_means():
    """is_train=True: batch statistics, and the moving averages move as BatchNorm moves them."""
    sym = chain(no_bias=False)
    shape = (4, 8, 6, 6)
    x = np.random.RandomState(5).uniform(-1, 1, shape).astype(np.float32)
    fused, plain = bind(sym, shape, True), bind(sym, shape, False)
    for _ in range(2):
        np.testing.assert_allclose(run(fused, x, True), run(plain, x, True), rtol=1e-5, atol=1e-5)
    for k in ("bn_moving_mean", "bn_moving_var"):
        moved = plain.aux_dict[k].asnumpy()
        np.testing.assert_allclose(fused.aux_dict[k].asnumpy(), moved, rtol=1e-6, atol=1e-6)
    # and inference afterwards folds the updated statistics
    np.testing.assert_allclose(run(fused, x), run(plain, x), rtol=1e-5, atol=1e-5)


def test_new_parameter_values_are_folded_on_the_next_call():
    sym = chain()
    shape = (2, 8, 6, 6)
    x = np.random.RandomState(6).uniform(-1, 1, shape).astype(np.float32)
    fused, plain = bind(sym, shape, True), bind(sym, shape, False)
    run(fused, x)
    for exe in (fused, plain):
        exe.arg_dict["bn_gamma"][:] = np.linspace(0.1, 2.0, 8)
        exe.aux_dict["bn_moving_var"][:] = np.linspace(0.5, 3.0, 8)
        exe.arg_dict["conv_weight"][:] = exe.arg_dict["conv_weight"].asnumpy() * -1.5
    np.testing.assert_allclose(run(fused, x), run(plain, x), rtol=1e-5, atol=1e-5)


def test_chains_whose_inner_results_are_read_elsewhere_stay_apart():
    x = mx.sym.var("data")
    c = mx.sym.Convolution(x, num_filter=8, kernel=(1, 1), no_bias=True, name="conv")
    bn = mx.sym.BatchNorm(c, name="bn")
    both = mx.sym.Group([mx.sym.Activation(bn, act_type="relu"), c])  # the conv output is read
    exe = both.simple_bind(mx.cpu(), data=(2, 8, 4, 4), grad_req="null")
    assert fused_nodes(exe) == 0
    # BatchNorm's output read by ReLU and by the caller: conv+BN fold, the ReLU stays
    two = mx.sym.Group([mx.sym.Activation(bn, act_type="relu", name="r"), bn])
    exe = two.simple_bind(mx.cpu(), data=(2, 8, 4, 4), grad_req="null")
    assert fused_nodes(exe) == 1 and "(Activation)" in exe.debug_str()
    plain = two.simple_bind(mx.cpu(), data=(2, 8, 4, 4), grad_req="null", options={"fuse": False})
    for e in (exe, plain):
        fill(e)
    xv = np.random.RandomState(7).uniform(-1, 1, (2, 8, 4, 4)).astype(np.float32)
    for e in (exe, plain):
        e.forward(is_train=False, data=xv)
    for a, b in zip(exe.outputs, plain.outputs):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-5)


def test_binds_with_gradients_are_not_fused():
    exe = chain().simple_bind(mx.cpu(), data=(2, 8, 4, 4))
    assert fused_nodes(exe) == 0
    assert mx.default_bind_options()["fuse"] is True
    with pytest.raises(Exception, match="fuse"):
        chain().simple_bind(mx.cpu(), data=(2, 8, 4, 4), options={"fuze": True})


def test_module_predict_uses_the_fold():
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.flatten(chain()), num_hidden=3), name="softmax")
    mod = mx.mod.Module(sym)
    mod.bind(data_shapes=[("data", (2, 8, 6, 6))], for_training=False)
    mod.init_params()
    assert fused_nodes(mod._exec) == 1


def residual_block(projection, relu=True, channels=16):
    """A ResNet bottleneck's tail: conv -> BN -> + shortcut (-> ReLU); with a projection the
    shortcut is a conv -> BN of its own, and either chain may take the add."""
    x = mx.sym.var("data")
    a = mx.sym.Activation(mx.sym.Convolution(x, num_filter=channels, kernel=(1, 1), no_bias=True,
                                             name="c0"), act_type="relu", name="r0")
    b = mx.sym.Activation(mx.sym.BatchNorm(mx.sym.Convolution(a, num_filter=8, kernel=(1, 1), no_bias=True,
                                                              name="c1"), fix_gamma=False, name="bn1"),
                          act_type="relu", name="r1")
    b = mx.sym.BatchNorm(mx.sym.Convolution(b, num_filter=channels, kernel=(3, 3), pad=(1, 1), no_bias=True,
                                            name="c2"), fix_gamma=False, name="bn2")
    sc = a
    if projection:
        sc = mx.sym.BatchNorm(mx.sym.Convolution(a, num_filter=channels, kernel=(1, 1), no_bias=True,
                                                 name="sc"), fix_gamma=False, name="sc_bn")
    y = b + sc
    if relu:
        y = mx.sym.Activation(y, act_type="relu", name="out_relu")
    return mx.sym.Convolution(y, num_filter=4, kernel=(1, 1), no_bias=True, name="head")


RESIDUAL = [(False, True), (True, True), (False, False), (True, False)]


@pytest.mark.parametrize("projection,relu", RESIDUAL)
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("bfloat16", 3e-2), ("float64", 1e-12)])
def test_residual_sum_and_relu_fold_into_the_convolution(projection, relu, dtype, tol):
    sym = residual_block(projection, relu)
    shape = (2, 8, 8, 8)
    x = np.random.RandomState(8).uniform(-1, 1, shape)
    fused, plain = bind(sym, shape, True, dtype), bind(sym, shape, False, dtype)
    text = fused.debug_str()
    assert "(elemwise_add)" not in text and text.count("(Activation)") == 1, text  # c0's ReLU stays
    assert fused_nodes(fused) == (3 if projection else 2)
    ref = run(plain, x)
    np.testing.assert_allclose(run(fused, x), ref, rtol=tol, atol=tol * np.abs(ref).max())
    # training forward through the unfused route, residual included
    np.testing.assert_allclose(run(fused, x, True), run(plain, x, True), rtol=tol,
                               atol=tol * np.abs(ref).max())


def test_a_residual_that_the_convolution_also_reads_is_not_summed_in_place():
    x = mx.sym.var("data")
    a = mx.sym.Activation(mx.sym.Convolution(x, num_filter=16, kernel=(1, 1), no_bias=True, name="c0"),
                          act_type="relu", name="r0")
    y = mx.sym.BatchNorm(mx.sym.Convolution(a, num_filter=16, kernel=(3, 3), pad=(1, 1), no_bias=True,
                                            name="c1"), fix_gamma=False, name="bn")
    y = mx.sym.Activation(y + a, act_type="relu")
    shape = (2, 8, 8, 8)
    x = np.random.RandomState(9).uniform(-1, 1, shape).astype(np.float32)
    fused, plain = bind(y, shape, True), bind(y, shape, False)
    assert "(elemwise_add)" in fused.debug_str()
    np.testing.assert_allclose(run(fused, x), run(plain, x), rtol=1e-5, atol=1e-5)
