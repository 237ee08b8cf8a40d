"""Concurrent / HybridConcurrent: every child sees the same input and their outputs are
concatenated along `axis`; Identity passes its input through (a DenseNet layer is
HybridConcurrent(Identity(), new_features))."""
from ... import nn
from ...block import HybridBlock


class Concurrent(nn.Sequential):
    """Runs each child on the input and concatenates the results along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from .... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(nn.HybridSequential):
    """Concurrent for HybridBlocks: traced into one graph when hybridized."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    """Returns its input unchanged (a branch that keeps the input in a concatenation)."""

    def hybrid_forward(self, F, x):
        return x
