"""mx.gluon.contrib.nn: container layers that run children side by side (Inception, DenseNet
and SqueezeNet branches), the identity layer, and SyncBatchNorm (statistics over every rank of a
distributed job)."""
from .basic_layers import Concurrent, HybridConcurrent, Identity
from .sync_batch_norm import SyncBatchNorm

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm"]
