"""SyncBatchNorm: BatchNorm whose training statistics are those of the whole batch of a
distributed job (every rank's part), as MXNet's gluon.contrib.nn.SyncBatchNorm. Outside a
distributed job it computes what BatchNorm does."""
from ... import nn


class SyncBatchNorm(nn.BatchNorm):
    """Batch normalization over axis 1 with the mean and variance of the global batch: each
    channel's sums are all-reduced over the ranks (`mpirun`, a 'dist_sync' kvstore) in forward
    and backward. `num_devices` is accepted for MXNet compatibility; the group is the job's
    ranks. Every rank must run the same SyncBatchNorm layers in the same order."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True,
                 scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        del self._kwargs["axis"]
        self._kwargs["ndev"] = 1 if num_devices is None else int(num_devices)
        self._kwargs["key"] = self.prefix

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var, **self._kwargs)
