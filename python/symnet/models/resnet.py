"""ResNet symbols in MXNet's style: ImageNet ResNet v1/v1.5 (18-152 layers) and CIFAR ResNets.

Convolutions have no bias, BatchNorm uses fix_gamma=False and eps=2e-5, and names follow MXNet's
image-classification symbols (conv0, bn0, stage1_unit1_conv1, ..., fc1, softmax). The same
builder exists in C++ (symnet::models::ResNet) and produces the same graph.
"""
from .. import symbol as sym

_UNITS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
          152: [3, 8, 36, 3]}


# the data layout of the network being built: "NCHW" (default) or "NHWC" (MXNet's channels-last
# convolutions and poolings, BatchNorm on axis 3), set by resnet()
_LAYOUT = ["NCHW"]


def _layout():
    """Attributes for the channels-last network; none for the default one (whose JSON then is
    that of MXNet's scripts and of the C++ builder)."""
    return {"layout": "NHWC"} if _LAYOUT[0] == "NHWC" else {}


def _conv(x, filters, k, stride, pad, name):
    return sym.Convolution(x, kernel=(k, k), stride=(stride, stride), pad=(pad, pad),
                           num_filter=filters, no_bias=True, name=name, **_layout())


def _bn(x, momentum, name, zero_gamma=False):
    gamma = sym.var(name + "_gamma", init='["zero", {}]' if zero_gamma else None)
    axis = {"axis": 3} if _LAYOUT[0] == "NHWC" else {}
    return sym.BatchNorm(x, gamma=gamma, fix_gamma=False, eps=2e-5, momentum=momentum, name=name, **axis)


def _relu(x, name):
    return sym.Activation(x, act_type="relu", name=name)


def _unit(x, filters, stride, project, bottleneck, v15, mom, zero_gamma, name):
    if bottleneck:
        mid = filters // 4
        body = _relu(_bn(_conv(x, mid, 1, 1 if v15 else stride, 0, name + "_conv1"), mom, name + "_bn1"), name + "_relu1")
        body = _relu(_bn(_conv(body, mid, 3, stride if v15 else 1, 1, name + "_conv2"), mom, name + "_bn2"), name + "_relu2")
        body = _bn(_conv(body, filters, 1, 1, 0, name + "_conv3"), mom, name + "_bn3", zero_gamma)
    else:
        body = _relu(_bn(_conv(x, filters, 3, stride, 1, name + "_conv1"), mom, name + "_bn1"), name + "_relu1")
        body = _bn(_conv(body, filters, 3, 1, 1, name + "_conv2"), mom, name + "_bn2", zero_gamma)
    shortcut = x
    if project:
        shortcut = _bn(_conv(x, filters, 1, stride, 0, name + "_sc"), mom, name + "_sc_bn")
    return _relu(sym.elemwise_add(body, shortcut, name=name + "_plus"), name + "_relu")


def _head(body, num_classes, label_smoothing=0.0):
    pool = sym.Pooling(body, global_pool=True, pool_type="avg", kernel=(1, 1), name="pool1", **_layout())
    fc = sym.FullyConnected(sym.Flatten(pool, name="flatten1"), num_hidden=num_classes, name="fc1")
    if label_smoothing:
        return sym.SoftmaxOutput(fc, smooth_alpha=label_smoothing, name="softmax")
    return sym.SoftmaxOutput(fc, name="softmax")


def resnet(num_layers=50, version="1.5", num_classes=1000, image_shape=(3, 224, 224),
           bn_mom=0.9, zero_init_last_gamma=False, label_smoothing=0.0, layout="NCHW"):
    """ResNet v1 ('1': stride in the first 1x1 convolution of a bottleneck) or v1.5 ('1.5':
    stride in the 3x3 convolution, as torchvision). Images of height <= 32 get a 3x3 stem
    without max pooling. label_smoothing sets SoftmaxOutput's smooth_alpha. layout "NHWC" builds
    the channels-last network of MXNet's GPU scripts: data (N, H, W, C), convolution weights
    (O, kh, kw, C), BatchNorm on axis 3; image_shape stays (C, H, W)."""
    if layout not in ("NCHW", "NHWC"):
        raise ValueError("ResNet layout %r is not 'NCHW' or 'NHWC'" % (layout,))
    _LAYOUT[0] = layout
    try:
        return _resnet(num_layers, version, num_classes, image_shape, bn_mom, zero_init_last_gamma,
                       label_smoothing)
    finally:
        _LAYOUT[0] = "NCHW"  # the other builders (cifar_resnet) build channels-first


def _resnet(num_layers, version, num_classes, image_shape, bn_mom, zero_init_last_gamma, label_smoothing):
    if num_layers not in _UNITS:
        raise ValueError("ResNet depth %r is not one of %s" % (num_layers, sorted(_UNITS)))
    version = str(version)
    if version not in ("1", "1.5"):
        raise ValueError("ResNet version %r is not '1' or '1.5'" % version)
    image_shape = tuple(int(v) for v in (image_shape.split(",") if isinstance(image_shape, str) else image_shape))
    bottleneck = num_layers >= 50
    v15 = version == "1.5"
    x = sym.var("data")
    if image_shape[1] <= 32:
        x = _relu(_bn(_conv(x, 64, 3, 1, 1, "conv0"), bn_mom, "bn0"), "relu0")
    else:
        x = _relu(_bn(_conv(x, 64, 7, 2, 3, "conv0"), bn_mom, "bn0"), "relu0")
        x = sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max", name="pool0", **_layout())
    in_filters = 64
    for s, n in enumerate(_UNITS[num_layers]):
        filters = (256 if bottleneck else 64) << s
        for u in range(n):
            stride = 2 if (u == 0 and s > 0) else 1
            project = u == 0 and (stride != 1 or in_filters != filters)
            x = _unit(x, filters, stride, project, bottleneck, v15, bn_mom, zero_init_last_gamma,
                      "stage%d_unit%d" % (s + 1, u + 1))
            in_filters = filters
    return _head(x, num_classes, label_smoothing)


def cifar_resnet(depth=20, num_classes=10, bn_mom=0.9):
    """CIFAR-style ResNet of depth 6n+2 (20, 32, 44, 56, 110) for 32x32 images."""
    if depth < 8 or (depth - 2) % 6:
        raise ValueError("CIFAR ResNet depth must be 6n+2 (20, 32, 44, 56, 110), got %r" % depth)
    n = (depth - 2) // 6
    x = _relu(_bn(_conv(sym.var("data"), 16, 3, 1, 1, "conv0"), bn_mom, "bn0"), "relu0")
    in_filters = 16
    for s in range(3):
        filters = 16 << s
        for u in range(n):
            stride = 2 if (u == 0 and s > 0) else 1
            x = _unit(x, filters, stride, u == 0 and (stride != 1 or in_filters != filters), False,
                      False, bn_mom, False, "stage%d_unit%d" % (s + 1, u + 1))
            in_filters = filters
    return _head(x, num_classes)
