"""VGG 11/13/16/19 with and without BatchNorm (Simonyan & Zisserman 2014), MXNet's layout: the
classifier's two 4096-wide Dense layers sit inside `features`, only the last one is `output`."""
from .... import initializer
from ... import nn
from ...block import HybridBlock
from ._common import load_pretrained

__all__ = ["VGG", "get_vgg"]

# depth -> (3x3 convolutions per stage, filters per stage)
_SPEC = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
         13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
         16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
         19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


class VGG(HybridBlock):
    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise ValueError("VGG: layers and filters must have one entry per stage (%d vs %d)"
                             % (len(layers), len(filters)))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for n, f in zip(layers, filters):
                for _ in range(n):
                    self.features.add(nn.Conv2D(
                        f, kernel_size=3, padding=1, bias_initializer="zeros",
                        weight_initializer=initializer.Xavier(rnd_type="gaussian",
                                                              factor_type="out", magnitude=2)))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"),
                                  nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_vgg(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    if num_layers not in _SPEC:
        raise ValueError("vgg: %r layers is not a model-zoo depth; choose one of %s"
                         % (num_layers, sorted(_SPEC)))
    name = "vgg%d%s" % (num_layers, "_bn" if kwargs.get("batch_norm") else "")
    layers, filters = _SPEC[num_layers]
    return load_pretrained(VGG(layers, filters, **kwargs), pretrained, name, ctx, root)


def _constructor(depth, batch_norm):
    def make(**kwargs):
        if batch_norm:
            kwargs["batch_norm"] = True
        return get_vgg(depth, **kwargs)
    make.__name__ = "vgg%d%s" % (depth, "_bn" if batch_norm else "")
    return make


for _bn in (False, True):
    for _d in _SPEC:
        _f = _constructor(_d, _bn)
        globals()[_f.__name__] = _f
        __all__.append(_f.__name__)
