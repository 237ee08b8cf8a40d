"""Training callbacks: Speedometer (MXNet's log line plus a live progress bar on a terminal),
do_checkpoint, module_checkpoint, log_train_metric, ProgressBar, LogValidationMetricsCallback
(MXNet 1.9.1's) and LogWriter (one CSV or JSON-lines record per batch)."""
import copy
import csv
import json
import math
import os
import logging
import sys
import time

from . import _core
from . import model as _model
from .fileio import append_line, repair_log_tail, write_atomically


class BatchEndParam:
    def __init__(self, epoch, nbatch, eval_metric, locals=None, num_batches=None):
        self.epoch, self.nbatch, self.eval_metric, self.locals = epoch, nbatch, eval_metric, locals
        self.num_batches = num_batches


def _secondary_rank():
    """True on ranks other than 0 of a distributed job: they neither log nor write checkpoints."""
    return _core.dist.initialized() and _core.dist.rank() != 0


def _module_stats(param):
    mod = (param.locals or {}).get("self")
    out = {}
    if mod is not None:
        out["loss_scale"] = getattr(mod, "loss_scale", None)
        opt = getattr(mod, "_optimizer", None)
        if opt is not None:
            out["lr"] = opt.lr_scheduler(opt.num_update) if opt.lr_scheduler else opt.lr
    return out


class Speedometer:
    """Every `frequent` batches logs samples/sec and the metrics (MXNet's format); on a terminal
    it also redraws a progress bar: epoch, batch i/N, img/s, metrics, loss scale, ETA."""

    def __init__(self, batch_size, frequent=50, auto_reset=True, progress_bar=None, stream=None):
        self.batch_size, self.frequent, self.auto_reset = batch_size, frequent, auto_reset
        self.stream = stream or sys.stderr
        self.progress_bar = self.stream.isatty() if progress_bar is None else progress_bar
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.epoch_tic = time.time()
        self.speed = 0.0

    def __call__(self, param):
        if _secondary_rank():  # a distributed job logs on rank 0 (its own batches' metrics)
            return
        count = param.nbatch
        if self.last_count > count or not self.init:
            self.init, self.tic, self.epoch_tic = True, time.time(), time.time()
            self.last_count = count
            return
        self.last_count = count
        if self.progress_bar:
            self._bar(param)
        if count % self.frequent == 0:
            elapsed = time.time() - self.tic
            self.speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else 0.0
            msg = "Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec" % (param.epoch, count, self.speed)
            if param.eval_metric is not None:
                for name, value in param.eval_metric.get_name_value():
                    msg += "\t%s=%f" % (name, value)
                if self.auto_reset:
                    param.eval_metric.reset_local()
            scale = _module_stats(param).get("loss_scale")
            if scale:
                msg += "\tloss_scale=%g" % scale
            logging.info(msg)
            self.tic = time.time()

    def _bar(self, param):
        total = param.num_batches
        done = param.nbatch
        elapsed = time.time() - self.epoch_tic
        rate = done * self.batch_size / elapsed if elapsed > 0 else 0.0
        width = 24
        frac = min(1.0, done / total) if total else 0.0
        bar = "#" * int(width * frac) + "-" * (width - int(width * frac))
        eta = (total - done) * (elapsed / done) if total and done else 0.0
        parts = ["epoch %d" % param.epoch, "[%s]" % bar, "%d/%s" % (done, total or "?"), "%.1f img/s" % rate]
        if param.eval_metric is not None:
            parts += ["%s %.4f" % nv for nv in param.eval_metric.get_name_value()]
        scale = _module_stats(param).get("loss_scale")
        if scale:
            parts.append("scale %g" % scale)
        if total:
            parts.append("ETA %ds" % eta)
        self.stream.write("\r" + "  ".join(parts) + "\033[K")
        if total and done >= total:
            self.stream.write("\n")
        self.stream.flush()


def do_checkpoint(prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback saving prefix-symbol.json and prefix-%04d.params every `period`."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None, module=None):
        if (iter_no + 1) % period != 0 or _secondary_rank():
            return
        if module is not None:
            module.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
        else:
            _model.save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
        logging.info('Saved checkpoint to "%s-%04d.params"', prefix, iter_no + 1)

    _callback.wants_module = True
    return _callback


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback: mod.save_checkpoint(prefix, epoch + 1, ...) every `period` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)

    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback logging 'Iter[epoch] Batch[n] Train-name=value' every `period`
    batches (resetting the metric's local window after each log when auto_reset)."""

    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name,
                             value)
            if auto_reset:
                param.eval_metric.reset_local()

    return _callback


class ProgressBar:
    """Batch-end callback logging '[====----] pct%' for the share of `total` batches done."""

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        filled = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percents, "%")


class LogValidationMetricsCallback:
    """Eval-end callback logging 'Epoch[e] Validation-name=value' for each metric."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)


class LogWriter:
    """Batch-end callback writing one record per batch: epoch, batch, the metrics of that batch,
    lr, loss scale and img/s, as CSV (path ending in .csv) or JSON lines (anything else).
    log_eval is the matching eval-end callback (validation metrics as val_<name>)."""

    def __init__(self, path, batch_size, run_name=None, append=False):
        self.path, self.batch_size, self.run = str(path), batch_size, run_name or path
        self._csv = self.path.endswith(".csv")
        self._header = None
        self._dropped = set()
        if append and os.path.exists(self.path):  # a resumed run continues the file
            repair_log_tail(self.path)
            if self._csv:
                with open(self.path) as f:
                    first = f.readline().strip()
                self._header = next(csv.reader([first])) if first else None
        else:
            write_atomically(self.path, b"")  # a new run starts an empty log
        self._tic = time.time()

    def __call__(self, param):
        now = time.time()
        rec = {"run": self.run, "epoch": param.epoch, "batch": param.nbatch,
               "img_per_s": self.batch_size / max(now - self._tic, 1e-9)}
        self._tic = now
        if param.eval_metric is not None:
            rec.update({k: float(v) for k, v in self._batch_metric(param).get_name_value()})
        rec.update({k: v for k, v in _module_stats(param).items() if v is not None})
        self._write(rec)

    @staticmethod
    def _batch_metric(param):
        """The metric on this batch alone (the running metric depends on when a Speedometer
        last reset it), from the module's outputs; the running metric when those are unknown."""
        loc = param.locals or {}
        mod, batch = loc.get("self"), loc.get("batch")
        if mod is None or batch is None or batch.label is None or not hasattr(mod, "get_outputs"):
            return param.eval_metric
        m = copy.deepcopy(param.eval_metric)
        m.reset()
        keep = batch.data[0].shape[0] - (batch.pad or 0)
        m.update([l[:keep] for l in batch.label], [o[:keep] for o in mod.get_outputs()])
        return m

    def log_eval(self, param):
        """Eval-end callback: one record with the validation metrics as val_<name>."""
        rec = {"run": self.run, "epoch": param.epoch, "batch": param.nbatch}
        rec.update({"val_" + k: float(v) for k, v in param.eval_metric.get_name_value()})
        self._write(rec)

    def _write(self, rec):
        # one line per record, appended with a single write (no rewrite of earlier lines ever):
        # a run killed at any moment leaves whole lines, plus at most one torn last line
        if not self._csv:
            append_line(self.path, json.dumps(rec))
            return
        if self._header is None:
            # the columns are fixed by the first record, plus val_<metric> for the validation
            # records that come later, so that the header never has to change
            metrics = [k for k in rec if k not in ("run", "epoch", "batch", "img_per_s", "lr", "loss_scale")]
            self._header = list(rec) + ["val_" + k for k in metrics if not k.startswith("val_")]
            append_line(self.path, ",".join(self._header))
        extra = [k for k in rec if k not in self._header and k not in self._dropped]
        if extra:
            self._dropped.update(extra)
            logging.warning("%s: columns %s are not in the CSV header %s and are left out "
                            "(a .jsonl log keeps every field)", self.path, extra, self._header)
        append_line(self.path, ",".join(str(rec.get(k, "")) for k in self._header))

    def close(self):
        pass  # every line is written when it is logged
