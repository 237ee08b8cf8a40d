"""Inception v3 (Szegedy et al. 2015) in MXNet's Gluon layout: mixed blocks are HybridConcurrent
branches named A1_ .. E2_, each branch an optional pool followed by conv-BN(eps 1e-3)-relu
units. Needs inputs of 299x299 for the final 8x8 average pool (75x75 is the smallest input the
convolutions accept)."""
from ...contrib.nn import HybridConcurrent
from ... import nn
from ...block import HybridBlock
from ._common import load_pretrained

__all__ = ["Inception3", "inception_v3"]


def _conv_unit(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001),
            nn.Activation("relu"))
    return out


def _branch(pool, *convs):
    """pool: None, 'avg' (3x3/1, pad 1) or 'max' (3x3/2); convs: (channels, kernel, stride,
    padding) with None for the layer's default."""
    out = nn.HybridSequential(prefix="")
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in convs:
        kwargs = {k: v for k, v in zip(("channels", "kernel_size", "strides", "padding"), setting)
                  if v is not None}
        out.add(_conv_unit(**kwargs))
    return out


def _mixed(prefix, *branches):
    """A HybridConcurrent named `prefix` whose branches are built inside its name scope (each
    entry a function returning a block, so creation order stays MXNet's)."""
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for make in branches:
            out.add(make())
    return out


def _a(pool_features, prefix):
    return _mixed(prefix,
                  lambda: _branch(None, (64, 1, None, None)),
                  lambda: _branch(None, (48, 1, None, None), (64, 5, None, 2)),
                  lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
                  lambda: _branch("avg", (pool_features, 1, None, None)))


def _b(prefix):
    return _mixed(prefix,
                  lambda: _branch(None, (384, 3, 2, None)),
                  lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
                  lambda: _branch("max"))


def _c(c7, prefix):
    return _mixed(prefix,
                  lambda: _branch(None, (192, 1, None, None)),
                  lambda: _branch(None, (c7, 1, None, None), (c7, (1, 7), None, (0, 3)),
                                  (192, (7, 1), None, (3, 0))),
                  lambda: _branch(None, (c7, 1, None, None), (c7, (7, 1), None, (3, 0)),
                                  (c7, (1, 7), None, (0, 3)), (c7, (7, 1), None, (3, 0)),
                                  (192, (1, 7), None, (0, 3))),
                  lambda: _branch("avg", (192, 1, None, None)))


def _d(prefix):
    return _mixed(prefix,
                  lambda: _branch(None, (192, 1, None, None), (320, 3, 2, None)),
                  lambda: _branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                                  (192, (7, 1), None, (3, 0)), (192, 3, 2, None)),
                  lambda: _branch("max"))


def _e(prefix):
    def pair(*head_convs):
        seq = nn.HybridSequential(prefix="")
        seq.add(_branch(None, *head_convs))
        split = HybridConcurrent(axis=1, prefix="")
        seq.add(split)
        split.add(_branch(None, (384, (1, 3), None, (0, 1))),
                  _branch(None, (384, (3, 1), None, (1, 0))))
        return seq
    return _mixed(prefix,
                  lambda: _branch(None, (320, 1, None, None)),
                  lambda: pair((384, 1, None, None)),
                  lambda: pair((448, 1, None, None), (384, 3, None, 1)),
                  lambda: _branch("avg", (192, 1, None, None)))


class Inception3(HybridBlock):
    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            f.add(_conv_unit(channels=32, kernel_size=3, strides=2),
                  _conv_unit(channels=32, kernel_size=3),
                  _conv_unit(channels=64, kernel_size=3, padding=1),
                  nn.MaxPool2D(pool_size=3, strides=2),
                  _conv_unit(channels=80, kernel_size=1),
                  _conv_unit(channels=192, kernel_size=3),
                  nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_a(32, "A1_"), _a(64, "A2_"), _a(64, "A3_"), _b("B_"))
            f.add(_c(128, "C1_"), _c(160, "C2_"), _c(160, "C3_"), _c(192, "C4_"), _d("D_"))
            f.add(_e("E1_"), _e("E2_"), nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=None, root=None, **kwargs):
    return load_pretrained(Inception3(**kwargs), pretrained, "inceptionv3", ctx, root)
