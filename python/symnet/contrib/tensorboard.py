"""mx.contrib.tensorboard: LogMetricsCallback, which writes the metric values of each callback
call to TensorBoard event files through the `mxboard` package (`pip install mxboard`)."""
import logging


class LogMetricsCallback(object):
    """A batch-end or eval-end callback (Module.fit's batch_end_callback / eval_end_callback)
    that writes every metric of param.eval_metric as a TensorBoard scalar at step param.epoch,
    under its name, or '<prefix>-<name>' with a prefix (to put train and eval curves of the same
    metric on one plot), to event files in logging_dir.

    Without mxboard installed, construction logs how to install it and goes on, as MXNet's does;
    the first call then raises ImportError naming mxboard (MXNet fails there with an
    AttributeError on the missing writer)."""

    def __init__(self, logging_dir, prefix=None):
        self.prefix = prefix
        try:
            from mxboard import SummaryWriter

            self.summary_writer = SummaryWriter(logging_dir)
        except ImportError:
            logging.error("You can install mxboard via `pip install mxboard`.")

    def __call__(self, param):
        """Logs the metrics of `param` (a BatchEndParam)."""
        if param.eval_metric is None:
            return
        writer = getattr(self, "summary_writer", None)
        if writer is None:
            raise ImportError("LogMetricsCallback needs the mxboard package to write TensorBoard "
                              "event files: pip install mxboard")
        for name, value in param.eval_metric.get_name_value():
            if self.prefix is not None:
                name = "%s-%s" % (self.prefix, name)
            writer.add_scalar(name, value, global_step=param.epoch)
