"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016): fire modules (1x1 squeeze, then 1x1 and 3x3
expands side by side), a 1x1 convolution classifier and a 13x13 average pool."""
from ...contrib.nn import HybridConcurrent
from ... import nn
from ...block import HybridBlock
from ._common import load_pretrained

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


def _conv_relu(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _fire(squeeze, expand1x1, expand3x3):
    out = nn.HybridSequential(prefix="")
    out.add(_conv_relu(squeeze, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_conv_relu(expand1x1, 1), _conv_relu(expand3x3, 3, 1))
    out.add(paths)
    return out


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


class SqueezeNet(HybridBlock):
    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in ("1.0", "1.1"):
            raise ValueError("SqueezeNet: version %r does not exist; choose '1.0' or '1.1'"
                             % (version,))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            if version == "1.0":
                f.add(nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation("relu"), _pool())
                f.add(_fire(16, 64, 64), _fire(16, 64, 64), _fire(32, 128, 128), _pool())
                f.add(_fire(32, 128, 128), _fire(48, 192, 192), _fire(48, 192, 192),
                      _fire(64, 256, 256), _pool(), _fire(64, 256, 256))
            else:
                f.add(nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation("relu"), _pool())
                f.add(_fire(16, 64, 64), _fire(16, 64, 64), _pool())
                f.add(_fire(32, 128, 128), _fire(32, 128, 128), _pool())
                f.add(_fire(48, 192, 192), _fire(48, 192, 192), _fire(64, 256, 256),
                      _fire(64, 256, 256))
            f.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"),
                            nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=None, root=None, **kwargs):
    return load_pretrained(SqueezeNet(version, **kwargs), pretrained, "squeezenet%s" % version, ctx, root)


def squeezenet1_0(**kwargs):
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    return get_squeezenet("1.1", **kwargs)
