"""mx.gluon.contrib.nn: container layers that run children side by side (Inception, DenseNet
and SqueezeNet branches) and the identity layer."""
from .basic_layers import Concurrent, HybridConcurrent, Identity

__all__ = ["Concurrent", "HybridConcurrent", "Identity"]
