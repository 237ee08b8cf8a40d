"""BatchProcessor: how the Estimator trains and evaluates one batch (MXNet 1.9.1's
gluon.contrib.estimator.batch_processor). Subclass it to change fit_batch/evaluate_batch."""
from .... import autograd
from ...utils import split_and_load

__all__ = ["BatchProcessor"]


class BatchProcessor(object):
    """fit_batch and evaluate_batch on a (data, label) batch split across the estimator's
    contexts; both return (data, label, pred, loss), lists with one entry per context."""

    def __init__(self):
        pass

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Runs estimator.val_net and estimator.val_loss on a validation batch (no recording)."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward under autograd.record and backward of each shard's loss; the gradient step is
        GradientUpdateHandler's (at batch end)."""
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for each in loss:
            each.backward()
        return data, label, pred, loss
