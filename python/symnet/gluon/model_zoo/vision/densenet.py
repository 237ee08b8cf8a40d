"""DenseNet 121/161/169/201 (Huang et al. 2016) in MXNet's Gluon layout: each dense layer is
HybridConcurrent(Identity, new features), so its output is the input with growth_rate channels
appended."""
from ...contrib.nn import HybridConcurrent, Identity
from ... import nn
from ...block import HybridBlock
from ._common import load_pretrained

__all__ = ["DenseNet", "get_densenet"]

# depth -> (stem channels, growth rate, dense layers per block)
_SPEC = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
         169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32])}


def _dense_layer(growth_rate, bn_size, dropout):
    new = nn.HybridSequential(prefix="")
    new.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
            nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix="")
    out.add(Identity(), new)
    return out


def _dense_block(num_layers, bn_size, growth_rate, dropout, index):
    block = nn.HybridSequential(prefix="stage%d_" % index)
    with block.name_scope():
        for _ in range(num_layers):
            block.add(_dense_layer(growth_rate, bn_size, dropout))
    return block


def _transition(channels):
    """BN-relu, 1x1 convolution halving the channels, 2x2 average pool."""
    out = nn.HybridSequential(prefix="")
    out.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(channels, kernel_size=1, use_bias=False),
            nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3,
                                        use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            channels = num_init_features
            for i, n in enumerate(block_config):
                self.features.add(_dense_block(n, bn_size, growth_rate, dropout, i + 1))
                channels += n * growth_rate
                if i != len(block_config) - 1:
                    channels //= 2
                    self.features.add(_transition(channels))
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7),
                              nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_densenet(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    if num_layers not in _SPEC:
        raise ValueError("densenet: %r layers is not a model-zoo depth; choose one of %s"
                         % (num_layers, sorted(_SPEC)))
    stem, growth, config = _SPEC[num_layers]
    return load_pretrained(DenseNet(stem, growth, config, **kwargs), pretrained, "densenet%d" % num_layers, ctx, root)


def _constructor(depth):
    def make(**kwargs):
        return get_densenet(depth, **kwargs)
    make.__name__ = "densenet%d" % depth
    return make


for _d in _SPEC:
    _f = _constructor(_d)
    globals()[_f.__name__] = _f
    __all__.append(_f.__name__)
