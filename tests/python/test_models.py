"""Model builders: ResNet v1/v1.5 structure and size, the C++ builder agrees with Python."""
import json

import numpy as np
import pytest

import symnet as mx


def num_params(net, data_shape):
    arg, _, _ = net.infer_shape(data=data_shape)
    return sum(int(np.prod(s)) for n, s in zip(net.list_arguments(), arg)
               if n not in ("data", "softmax_label"))


def test_resnet50_v15_size_and_shapes():
    net = mx.models.resnet(50, "1.5", 1000, (3, 224, 224))
    assert num_params(net, (2, 3, 224, 224)) == 25557032
    _, out, aux = net.infer_shape(data=(2, 3, 224, 224))
    assert out == [(2, 1000)]
    assert len(aux) == 2 * 53  # moving mean and variance of 53 BatchNorms
    internals = net.get_internals()
    shapes = dict(zip(internals.list_outputs(), internals.infer_shape(data=(2, 3, 224, 224))[1]))
    assert shapes["pool0_output"] == (2, 64, 56, 56)
    assert shapes["stage2_unit1_relu_output"] == (2, 512, 28, 28)
    assert shapes["stage4_unit3_relu_output"] == (2, 2048, 7, 7)


def test_v1_and_v15_place_the_stride_differently():
    def strides(version):
        d = json.loads(mx.models.resnet(50, version).tojson())
        return {n["name"]: n["attrs"].get("stride") for n in d["nodes"] if n["op"] == "Convolution"}
    v1, v15 = strides("1"), strides("1.5")
    assert v1["stage2_unit1_conv1"] == "(2, 2)" and v1["stage2_unit1_conv2"] == "(1, 1)"
    assert v15["stage2_unit1_conv1"] == "(1, 1)" and v15["stage2_unit1_conv2"] == "(2, 2)"


@pytest.mark.parametrize("layers,params", [(18, 11689512), (34, 21797672), (101, 44549160),
                                           (152, 60192808)])
def test_resnet_depths(layers, params):
    # the same counts as torchvision's resnet18/34/101/152
    assert num_params(mx.models.resnet(layers, "1.5"), (1, 3, 224, 224)) == params


def test_small_images_use_a_3x3_stem():
    net = mx.models.resnet(50, "1.5", 10, (3, 32, 32))
    _, out, _ = net.infer_shape(data=(2, 3, 32, 32))
    assert out == [(2, 10)]
    assert "pool0" not in [n["name"] for n in json.loads(net.tojson())["nodes"]]


def test_cifar_resnet():
    net = mx.models.cifar_resnet(20, num_classes=10)
    _, out, _ = net.infer_shape(data=(4, 3, 32, 32))
    assert out == [(4, 10)]
    convs = [n for n in json.loads(net.tojson())["nodes"] if n["op"] == "Convolution"]
    assert len(convs) == 1 + 18 + 2  # stem, 9 blocks x 2, two projections
    with pytest.raises(ValueError):
        mx.models.cifar_resnet(21)


def test_zero_init_last_gamma_marks_the_variable():
    net = mx.models.resnet(18, "1.5", zero_init_last_gamma=True)
    attrs = net.attr_dict()
    assert attrs["stage1_unit1_bn2_gamma"]["__init__"] == '["zero", {}]'
    assert "__init__" not in attrs.get("stage1_unit1_bn1_gamma", {})


@pytest.mark.parametrize("layers,version", [(50, "1.5"), (18, "1"), (34, "1.5")])
def test_cpp_builder_matches_python(layers, version):
    # mx.models.resnet forwards to the C++ builder: every option must reach it
    py = mx.models.resnet(layers, version, 1000, (3, 224, 224), zero_init_last_gamma=True)
    cpp = mx.sym.Symbol(mx._core.resnet_cpp(layers, version, 1000, (3, 224, 224), 0.9, True))
    assert json.loads(cpp.tojson()) == json.loads(py.tojson())
    smooth = mx.sym.Symbol(mx._core.resnet_cpp(layers, version, 10, (3, 32, 32), 0.9, False, 0.1))
    assert json.loads(smooth.tojson()) == json.loads(
        mx.models.resnet(layers, version, 10, (3, 32, 32), label_smoothing=0.1).tojson())
    nhwc = mx.sym.Symbol(mx._core.resnet_cpp(layers, version, 10, (3, 224, 224), 0.9, False, 0.0, True))
    assert json.loads(nhwc.tojson()) == json.loads(mx.models.resnet(layers, version, 10, layout="NHWC").tojson())
    c20 = mx.sym.Symbol(mx._core.cifar_resnet_cpp(20, 10, 0.9))
    assert json.loads(c20.tojson()) == json.loads(mx.models.cifar_resnet(20).tojson())


def test_nhwc_resnet_computes_the_nchw_resnet():
    """layout='NHWC' builds MXNet's channels-last network: the same function of the transposed
    data and weights (training outputs, gradients and moving statistics)."""
    rng = np.random.RandomState(5)
    shape = (3, 64, 64)
    nets = {l: mx.models.resnet(18, "1.5", 10, shape, layout=l) for l in ("NCHW", "NHWC")}
    assert nets["NCHW"].list_arguments() == nets["NHWC"].list_arguments()
    x = rng.normal(size=(2,) + shape)
    params = {}
    results = {}
    for layout, net in nets.items():
        last = layout == "NHWC"
        to = (lambda a: np.moveaxis(a, 1, -1)) if last else (lambda a: a)
        back = (lambda a: np.moveaxis(a, -1, 1)) if last else (lambda a: a)
        exe = net.simple_bind(mx.cpu(), data=to(x).shape)
        for k, v in exe.arg_dict.items():
            if k == "data":
                v[:] = to(x)
            elif k == "softmax_label":
                v[:] = [1, 7]
            else:
                if k not in params:
                    params[k] = rng.normal(0, 0.2, v.shape if not last else back(np.zeros(v.shape)).shape)
                v[:] = to(params[k]) if params[k].ndim == 4 else params[k]
        out = exe.forward(is_train=True)[0].asnumpy()
        exe.backward()
        grads = {k: (back(g.asnumpy()) if g.ndim == 4 else g.asnumpy()) for k, g in exe.grad_dict.items()}
        results[layout] = (out, grads, {k: a.asnumpy() for k, a in exe.aux_dict.items()})
    (o1, g1, a1), (o2, g2, a2) = results["NCHW"], results["NHWC"]
    np.testing.assert_allclose(o2, o1, rtol=1e-4, atol=1e-5)
    for k in g1:
        if k != "softmax_label":
            np.testing.assert_allclose(g2[k], g1[k], rtol=2e-3, atol=2e-3 * max(np.abs(g1[k]).max(), 1e-3), err_msg=k)
    for k in a1:
        np.testing.assert_allclose(a2[k], a1[k], rtol=1e-4, atol=1e-5, err_msg=k)
