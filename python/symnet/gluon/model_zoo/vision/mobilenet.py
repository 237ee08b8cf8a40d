"""MobileNet v1 (depthwise-separable convolutions, Howard et al. 2017) and v2 (inverted residual
bottlenecks with relu6, Sandler et al. 2018) in MXNet's Gluon layout (names come from it)."""
from ... import nn
from ...block import HybridBlock
from ._common import load_pretrained

__all__ = ["MobileNet", "MobileNetV2", "RELU6", "LinearBottleneck", "get_mobilenet",
           "get_mobilenet_v2"]


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def _conv_bn(seq, channels, kernel=1, stride=1, pad=0, groups=1, active=True, relu6=False):
    """Adds convolution (no bias) + BatchNorm (+ relu or relu6) to `seq`."""
    seq.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False))
    seq.add(nn.BatchNorm(scale=True))
    if active:
        seq.add(RELU6() if relu6 else nn.Activation("relu"))


class LinearBottleneck(HybridBlock):
    """1x1 expansion by t, 3x3 depthwise, 1x1 linear projection; identity shortcut when the
    shape is kept."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        wide = in_channels * t
        with self.name_scope():
            self.out = nn.HybridSequential()
            _conv_bn(self.out, wide, relu6=True)
            _conv_bn(self.out, wide, kernel=3, stride=stride, pad=1, groups=wide, relu6=True)
            _conv_bn(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet v1 with width `multiplier`."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)

        def width(channels):
            return [int(c * multiplier) for c in channels]
        depthwise = width([32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024])
        pointwise = width([64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2)
        strides = [1, 2] * 3 + [1] * 5 + [2, 1]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _conv_bn(self.features, int(32 * multiplier), kernel=3, pad=1, stride=2)
                for dw, pw, s in zip(depthwise, pointwise, strides):
                    _conv_bn(self.features, dw, kernel=3, stride=s, pad=1, groups=dw)
                    _conv_bn(self.features, pw)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet v2 with width `multiplier`; the classifier is a 1x1 convolution (pred_)."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)

        def width(channels):
            return [int(c * multiplier) for c in channels]
        ins = width([32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3)
        outs = width([16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320])
        expansions = [1] + [6] * 16
        strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _conv_bn(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                         relu6=True)
                for c_in, c_out, t, s in zip(ins, outs, expansions, strides):
                    self.features.add(LinearBottleneck(in_channels=c_in, channels=c_out, t=t,
                                                       stride=s))
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _conv_bn(self.features, last, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _suffix(multiplier):
    return {1.0: "1.0", 0.75: "0.75", 0.5: "0.5", 0.25: "0.25"}.get(multiplier, str(multiplier))


def get_mobilenet(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    return load_pretrained(MobileNet(multiplier, **kwargs), pretrained, "mobilenet" + _suffix(multiplier), ctx, root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    return load_pretrained(MobileNetV2(multiplier, **kwargs), pretrained, "mobilenetv2_" + _suffix(multiplier), ctx,
                           root)


def _constructor(getter, multiplier, name):
    def make(**kwargs):
        return getter(multiplier, **kwargs)
    make.__name__ = name
    return make


for _m, _tag in ((1.0, "1_0"), (0.75, "0_75"), (0.5, "0_5"), (0.25, "0_25")):
    for _f in (_constructor(get_mobilenet, _m, "mobilenet" + _tag),
               _constructor(get_mobilenet_v2, _m, "mobilenet_v2_" + _tag)):
        globals()[_f.__name__] = _f
        __all__.append(_f.__name__)
