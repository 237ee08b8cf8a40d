"""ResNet symbols in MXNet's style: ImageNet ResNet v1/v1.5 (18-152 layers) and CIFAR ResNets.

Convolutions have no bias, BatchNorm uses fix_gamma=False and eps=2e-5, and names follow MXNet's
image-classification symbols (conv0, bn0, stage1_unit1_conv1, ..., fc1, softmax). The graph is
built by the C++ builder (symnet::models::ResNet, src/models/resnet.cc), the one the C++
examples use; this module checks the arguments and forwards them.
"""
from .. import _core
from ..symbol import Symbol

_UNITS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
          152: [3, 8, 36, 3]}


def resnet(num_layers=50, version="1.5", num_classes=1000, image_shape=(3, 224, 224),
           bn_mom=0.9, zero_init_last_gamma=False, label_smoothing=0.0, layout="NCHW"):
    """ResNet v1 ('1': stride in the first 1x1 convolution of a bottleneck) or v1.5 ('1.5':
    stride in the 3x3 convolution, as torchvision). Images of height <= 32 get a 3x3 stem
    without max pooling. label_smoothing sets SoftmaxOutput's smooth_alpha. layout "NHWC" builds
    the channels-last network of MXNet's GPU scripts: data (N, H, W, C), convolution weights
    (O, kh, kw, C), BatchNorm on axis 3; image_shape stays (C, H, W)."""
    if layout not in ("NCHW", "NHWC"):
        raise ValueError("ResNet layout %r is not 'NCHW' or 'NHWC'" % (layout,))
    if num_layers not in _UNITS:
        raise ValueError("ResNet depth %r is not one of %s" % (num_layers, sorted(_UNITS)))
    version = str(version)
    if version not in ("1", "1.5"):
        raise ValueError("ResNet version %r is not '1' or '1.5'" % version)
    image_shape = tuple(int(v) for v in (image_shape.split(",") if isinstance(image_shape, str) else image_shape))
    if len(image_shape) != 3:
        raise ValueError("image_shape %r is not (channels, height, width)" % (image_shape,))
    return Symbol(_core.resnet_cpp(int(num_layers), version, int(num_classes), image_shape, float(bn_mom),
                                   bool(zero_init_last_gamma), float(label_smoothing), layout == "NHWC"))


def cifar_resnet(depth=20, num_classes=10, bn_mom=0.9):
    """CIFAR-style ResNet of depth 6n+2 (20, 32, 44, 56, 110) for 32x32 images."""
    if depth < 8 or (depth - 2) % 6:
        raise ValueError("CIFAR ResNet depth must be 6n+2 (20, 32, 44, 56, 110), got %r" % depth)
    return Symbol(_core.cifar_resnet_cpp(int(depth), int(num_classes), float(bn_mom)))
