"""ResNet v1 (He et al. 2015) and v2 (pre-activation, He et al. 2016) in MXNet's Gluon layout:
the attribute names (features, output, body, downsample, bn1, conv1...) and the order layers
are created in are what MXNet's parameter names come from, so both must stay as they are."""
from ... import nn
from ...block import HybridBlock
from ._common import load_pretrained

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "get_resnet"]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _projection(channels, stride, in_channels, with_bn):
    """The shortcut that changes channels or resolution: 1x1 convolution (+ BatchNorm in v1)."""
    if not with_bn:
        return nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                      in_channels=in_channels))
    out.add(nn.BatchNorm())
    return out


class BasicBlockV1(HybridBlock):
    """Two 3x3 convolutions with BatchNorm; relu after the residual sum (ResNet-18/34 v1)."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) if downsample else None

    def hybrid_forward(self, F, x):
        shortcut = self.downsample(x) if self.downsample else x
        return F.Activation(shortcut + self.body(x), act_type="relu")


class BottleneckV1(HybridBlock):
    """1x1 (strided, with bias as in MXNet) -> 3x3 -> 1x1 convolutions (ResNet-50/101/152 v1)."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        mid = channels // 4
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(mid, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(mid, 1, mid), nn.BatchNorm(),
                      nn.Activation("relu"), nn.Conv2D(channels, kernel_size=1, strides=1),
                      nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) if downsample else None

    def hybrid_forward(self, F, x):
        shortcut = self.downsample(x) if self.downsample else x
        return F.Activation(self.body(x) + shortcut, act_type="relu")


class _PreActivationBlock(HybridBlock):
    """v2's residual: BN-relu on the input (the projection shortcut reads it), then each
    (convolution, BatchNorm) named in self._inner followed by relu, then the convolution named
    self._last (names, not blocks: a block attribute would register a second child)."""

    def hybrid_forward(self, F, x):
        shortcut = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample:
            shortcut = self.downsample(x)
        for conv, bn in self._inner:
            x = F.Activation(getattr(self, bn)(getattr(self, conv)(x)), act_type="relu")
        return getattr(self, self._last)(x) + shortcut


class BasicBlockV2(_PreActivationBlock):
    """Pre-activation basic block: BN-relu-conv twice."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = _projection(channels, stride, in_channels, False) if downsample else None
        self._inner, self._last = (("conv1", "bn2"),), "conv2"


class BottleneckV2(_PreActivationBlock):
    """Pre-activation bottleneck; the stride sits on the 3x3 convolution in v2."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        mid = channels // 4
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(mid, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(mid, stride, mid)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = _projection(channels, stride, in_channels, False) if downsample else None
        self._inner, self._last = (("conv1", "bn2"), ("conv2", "bn3")), "conv3"


def _stage(block, num_blocks, channels, stride, index, in_channels):
    """One resolution stage (prefix stage<i>_): the first block may project, the rest keep shape."""
    stage = nn.HybridSequential(prefix="stage%d_" % index)
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(num_blocks - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


def _stem(features, channels, thumbnail):
    """7x7/2 convolution + max pool, or one 3x3 convolution for small (CIFAR-size) inputs."""
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(),
                     nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))


class _ResNet(HybridBlock):
    """features (stem, four stages, pooling) then the `output` Dense layer; v2 adds a scale-free
    BatchNorm on the input and a final BN-relu before the pooling."""

    def __init__(self, version, block, layers, channels, classes, thumbnail, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError("%s: channels needs one entry more than layers (%d vs %d)"
                             % (type(self).__name__, len(channels), len(layers)))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if version == 2:
                self.features.add(nn.BatchNorm(scale=False, center=False))
            _stem(self.features, channels[0], thumbnail)
            for i, n in enumerate(layers):
                self.features.add(_stage(block, n, channels[i + 1], 1 if i == 0 else 2, i + 1,
                                         channels[i]))
            if version == 2:
                self.features.add(nn.BatchNorm(), nn.Activation("relu"))
            self.features.add(nn.GlobalAvgPool2D())
            if version == 2:
                self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV1(_ResNet):
    """ResNet v1 (the class name gives MXNet's parameter prefix, resnetv10_)."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(1, block, layers, channels, classes, thumbnail, **kwargs)


class ResNetV2(_ResNet):
    """Pre-activation ResNet (prefix resnetv20_)."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(2, block, layers, channels, classes, thumbnail, **kwargs)


# depth -> (block kind, blocks per stage, channels of the stem and of each stage)
_SPEC = {18: ("basic", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
         34: ("basic", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
         50: ("bottleneck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
         101: ("bottleneck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
         152: ("bottleneck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_BLOCKS = {1: {"basic": BasicBlockV1, "bottleneck": BottleneckV1},
           2: {"basic": BasicBlockV2, "bottleneck": BottleneckV2}}


def get_resnet(version, num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """ResNet v`version` (1 or 2) with `num_layers` in 18, 34, 50, 101, 152."""
    if num_layers not in _SPEC:
        raise ValueError("resnet: %r layers is not a model-zoo depth; choose one of %s"
                         % (num_layers, sorted(_SPEC)))
    if version not in _BLOCKS:
        raise ValueError("resnet: version %r does not exist; choose 1 or 2" % version)
    kind, layers, channels = _SPEC[num_layers]
    net_class = ResNetV1 if version == 1 else ResNetV2
    return load_pretrained(net_class(_BLOCKS[version][kind], layers, channels, **kwargs), pretrained,
                           "resnet%d_v%d" % (num_layers, version), ctx, root)


def _constructor(version, depth):
    def make(**kwargs):
        return get_resnet(version, depth, **kwargs)
    make.__name__ = "resnet%d_v%d" % (depth, version)
    make.__doc__ = "ResNet-%d v%d (model_zoo.vision)." % (depth, version)
    return make


for _v in (1, 2):
    for _d in _SPEC:
        _f = _constructor(_v, _d)
        globals()[_f.__name__] = _f
        __all__.append(_f.__name__)
