"""The Estimator's event handlers (MXNet 1.9.1's gluon.contrib.estimator.event_handler): the six
event mixins, and the handlers that stop training, update metrics, validate, log, checkpoint, stop
early and apply gradients. A handler runs at an event when it derives from that event's mixin;
handlers run in ascending `priority` (default 0). batch_end/epoch_end return True to stop."""
import os
import time
import warnings

import numpy as np

from ....metric import CompositeEvalMetric, EvalMetric
from ....metric import Loss as metric_loss
from .utils import _check_metrics

__all__ = ["TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd",
           "StoppingHandler", "MetricHandler", "ValidationHandler", "LoggingHandler",
           "CheckpointHandler", "EarlyStoppingHandler", "GradientUpdateHandler"]


class EventHandler(object):
    pass


def _check_event_handlers(handlers):
    """A handler or a list of handlers -> a (new) list."""
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(h, EventHandler) for h in handlers):
        raise ValueError("handlers must be an EventHandler or a list of EventHandler, "
                         "got: {}".format(handlers))
    return handlers


class TrainBegin(EventHandler):
    def train_begin(self, estimator, *args, **kwargs):
        pass


class TrainEnd(EventHandler):
    def train_end(self, estimator, *args, **kwargs):
        pass


class EpochBegin(EventHandler):
    def epoch_begin(self, estimator, *args, **kwargs):
        pass


class EpochEnd(EventHandler):
    def epoch_end(self, estimator, *args, **kwargs):
        return False


class BatchBegin(EventHandler):
    def batch_begin(self, estimator, *args, **kwargs):
        pass


class BatchEnd(EventHandler):
    def batch_end(self, estimator, *args, **kwargs):
        return False


def _monitor_op(handler_kind, monitor, mode):
    """np.less or np.greater for mode 'min'/'max'. 'auto' is always np.greater with a warning:
    MXNet's test `'acc' or 'f1' in name` is always true, and symnet keeps that behaviour."""
    if mode not in ("auto", "min", "max"):
        warnings.warn("%s mode %s is unknown, fallback to auto mode. CheckpointHandler will use"
                      "max mode for f1 and accuracy metric comparison and use min mode other "
                      "wise" % (handler_kind, mode), RuntimeWarning)
        mode = "auto"
    if mode == "min":
        return np.less
    if mode == "max":
        return np.greater
    warnings.warn("`greater` operator will be used to determine if {} has improved. Please "
                  "specify `mode='min'` to use the `less` operator. Specify `mode='max' to "
                  "disable this warning.`".format(monitor.get()[0]))
    return np.greater


def _worst(monitor_op):
    return np.inf if monitor_op is np.less else -np.inf


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stops training after estimator.max_epoch epochs or estimator.max_batch batches."""

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets its metrics at epoch begin and updates them at batch end: a metric.Loss with the
    batch's losses, any other metric with (label, pred). Priority -1000: before the handlers
    that read the metrics."""

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            if isinstance(metric, metric_loss):
                metric.update(0, kwargs["loss"])
            else:
                metric.update(kwargs["label"], kwargs["pred"])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Calls eval_fn(val_data=, batch_axis=, event_handlers=) every epoch_period epochs and every
    batch_period batches (None: never)."""

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = 0
        self.current_epoch = 0

    def _evaluate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._evaluate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._evaluate(estimator)


def _metrics_text(metrics, get="get"):
    return "".join("%s: %.4f, " % getattr(m, get)() for m in metrics)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Logs to estimator.logger: the optimizer and learning rate at train begin, each epoch's
    begin and end (with its metrics; 'Validation Begin' when no metric is a training one), every
    log_interval-th batch when log_interval is an int, and the totals at train end. Priority inf:
    after every other handler has updated its state."""

    def __init__(self, log_interval="epoch", metrics=None, priority=np.inf):
        super().__init__()
        if not isinstance(log_interval, int) and log_interval != "epoch":
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics = _check_metrics(metrics)
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s with current learning rate "
                              "%.4f ", trainer.optimizer.__class__.__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        train_time = time.time() - self.train_start
        msg = "Train finished using total %ds with %d epochs. " % (train_time, self.current_epoch)
        estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(", "))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs["batch"][0].shape[0]
            msg = "[Epoch %d][Batch %d][Samples %s] " % (self.current_epoch, self.batch_index,
                                                          self.processed_samples)
            if self.batch_index % self.log_interval == 0:
                msg += "time/interval: %.3fs " % self.log_interval_time
                self.log_interval_time = 0
                estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(", "))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        # the estimator names its training metrics 'training ...' (its validation ones
        # 'validation ...'): that tells a training epoch from a validation pass
        self.epoch_start = time.time()
        if any("training" in m.name for m in self.metrics):
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator, *args, **kwargs):
        msg = "[Epoch %d] Finished in %.3fs, " % (self.current_epoch,
                                                   time.time() - self.epoch_start)
        estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(", "))
        self.current_epoch += 1
        self.batch_index = 0


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves {model_prefix}-epoch{E}batch{B}.params/.states every epoch_period epochs and every
    batch_period batches, keeping the max_checkpoints newest; {model_prefix}-symbol.json after
    the first batch of a hybridized net; {model_prefix}-best.params/.states whenever `monitor`
    improves (save_best). resume_from_checkpoint loads the newest checkpoint in model_dir and
    trains only the remaining epochs or batches."""

    def __init__(self, model_dir, model_prefix="model", monitor=None, verbose=0, save_best=False,
                 mode="auto", epoch_period=1, batch_period=None, max_checkpoints=5,
                 resume_from_checkpoint=False):
        self.monitor = monitor
        self.verbose = verbose
        if not os.path.exists(model_dir):
            os.makedirs(model_dir)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        if self.save_best and not isinstance(self.monitor, EvalMetric):
            raise ValueError("To save best model only, please provide one of the metric objects "
                             "from estimator.train_metrics and estimator.val_metrics as monitor.")
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        if self.save_best:
            self.monitor_op = _monitor_op("ModelCheckpoint", monitor, mode)
            self.best = _worst(self.monitor_op)

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = _worst(self.monitor_op)
        if self.resume_from_checkpoint:
            error_msg = ("To use resume from checkpoint, you must only specify the same type of "
                         "period you used for training.For example, if you are training based on "
                         "number of epochs,you must save only based on epochs, and set "
                         "batch_period to None.")
            if estimator.max_batch:
                assert self.batch_period, error_msg
                assert not self.epoch_period, error_msg
            if estimator.max_epoch:
                assert self.epoch_period, error_msg
                assert not self.batch_period, error_msg
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator):
        if self.resume_from_checkpoint:
            # numbered after the checkpoint training resumed from; at an epoch end the batch
            # counter has already moved past the last batch
            epoch = self.current_epoch + self.trained_epoch + 1
            batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        else:
            epoch, batch = self.current_epoch, self.current_batch
        prefix = "%s-epoch%dbatch%d" % (self.model_prefix, epoch, batch)
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: trained total %d batches, "
                                  "saving model at %s with prefix: %s", self.current_epoch,
                                  self.current_batch + 1, self.model_dir, prefix)
        if self.save_best:
            self._save_best(estimator)

    def _save_best(self, estimator):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                "Skipping save best because %s is not updated, make sure you pass one of the "
                "metric objects estimator.train_metrics and estimator.val_metrics as monitor",
                name))
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + "-best"
            self._save_params_and_trainer(estimator, prefix)
            self.best = value
            if self.verbose > 0:
                # MXNet logs the new best as both values ('improved from v to v')
                estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved from %0.5f to "
                                      "%0.5f, updating best model at %s with prefix: %s",
                                      self.current_epoch, name, self.best, value,
                                      self.model_dir, prefix)
        elif self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, "
                                  "skipping updating best model", self.current_batch, name,
                                  self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + "-symbol.json")
        cached = getattr(estimator.net, "_cached", None)  # (graph, output format) once hybridized
        if cached:
            cached[0].symbol.save(symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock to "
                "construct your model, and call net.hybridize() before passing to Estimator in "
                "order to save model architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix):
        estimator.net.save_parameters(os.path.join(self.model_dir, file_prefix + ".params"))
        estimator.trainer.save_states(os.path.join(self.model_dir, file_prefix + ".states"))
        if "best" in file_prefix:  # the best checkpoint is never rotated out
            return
        self.saved_checkpoints.append(file_prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            for fname in os.listdir(self.model_dir):
                if fname.startswith(oldest):
                    os.remove(os.path.join(self.model_dir, fname))

    def _resume_from_checkpoint(self, estimator):
        prefix = self.model_prefix + "-epoch"
        self.trained_epoch = self._find_max_iteration(self.model_dir, prefix, "epoch", "batch",
                                                      self.saved_checkpoints)
        prefix += str(self.trained_epoch)
        self.trained_batch = self._find_max_iteration(self.model_dir, prefix, "batch", ".params")
        if self.trained_epoch == -1:
            msg = "CheckpointHandler: No checkpoint found, training from scratch for "
            if estimator.max_batch:
                msg += "%d batches" % estimator.max_batch
            else:
                msg += "%d epochs" % estimator.max_epoch
            estimator.logger.info(msg)
            return
        msg = ("CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to train "
               "for " % (self.trained_epoch, self.trained_batch))
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError("Found checkpoint with maximum number of epoch %d reached, "
                                 "please specify resume_from_checkpoint=False (default value) if "
                                 "you wan to train from scratch." % estimator.max_epoch)
            estimator.max_epoch = estimator.max_epoch - self.trained_epoch - 1
            msg += "%d epochs " % estimator.max_epoch
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError("Found checkpoint with maximum number of batch %d reached, "
                                 "please specifyresume_from_checkpoint=False (default value) if "
                                 "you wan to train from scratch." % self.trained_batch)
            estimator.max_batch = estimator.max_batch - self.trained_batch - 1
            msg += "%d batches " % estimator.max_batch
        name = "%s-epoch%dbatch%d" % (self.model_prefix, self.trained_epoch, self.trained_batch)
        param_file = os.path.join(self.model_dir, name + ".params")
        trainer_file = os.path.join(self.model_dir, name + ".states")
        assert os.path.exists(param_file), "Failed to load checkpoint, %s does not exist" % param_file
        assert os.path.exists(trainer_file), \
            "Failed to load checkpoint, %s does not exist" % trainer_file
        estimator.net.load_parameters(param_file, ctx=estimator.context)
        estimator.trainer.load_states(trainer_file)
        estimator.logger.warning(msg)

    def _find_max_iteration(self, dir, prefix, start, end, saved_checkpoints=None):
        """The largest number between `start` and `end` in the names of dir's .params files that
        begin with prefix (-1: none); lists their prefixes in saved_checkpoints when given (a
        non-empty list, as MXNet)."""
        error_msg = ("Error parsing checkpoint file, please check your checkpoints have the "
                     "format: {model_name}-epoch{epoch_number}batch{batch_number}.params, there "
                     "should also be a .states file for each .params file ")
        max_iter = -1
        for fname in os.listdir(dir):
            if not (fname.startswith(prefix) and ".params" in fname):
                continue
            if saved_checkpoints:
                saved_checkpoints.append(fname[:fname.find(".params")])
            try:
                number = int(fname[fname.find(start) + len(start):fname.find(end)])
            except ValueError:
                raise ValueError(error_msg) from None
            max_iter = max(max_iter, number)
        return max_iter


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops training once `monitor` has not improved by min_delta for `patience` epochs (or has
    not beaten `baseline`)."""

    def __init__(self, monitor, min_delta=0, patience=0, mode="auto", baseline=None):
        super().__init__()
        if not isinstance(monitor, EvalMetric):
            raise ValueError("Please provide one of the metric objects from "
                             "estimator.train_metrics and estimator.val_metrics as monitor.")
        if isinstance(monitor, CompositeEvalMetric):
            raise ValueError("CompositeEvalMetric is not supported for EarlyStoppingHandler, "
                             "please specify a simple metric instead.")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.monitor_op = _monitor_op("EarlyStopping", monitor, mode)
        # an improvement must beat best by min_delta in the monitored direction
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.best = self.baseline if self.baseline is not None else _worst(self.monitor_op)

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                "%s is not updated, make sure you pass one of the metric objects "
                "fromestimator.train_metrics and estimator.val_metrics as monitor.", name))
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info("[Epoch %d] EarlyStoppingHanlder: early stopping due to %s not "
                                  "improving", self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """trainer.step(the batch's size: the sum of the loss shards' first dimensions) at batch
    end; priority -2000, before the metrics are read."""

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        loss = kwargs["loss"]
        loss = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(each.shape[0] for each in loss))
