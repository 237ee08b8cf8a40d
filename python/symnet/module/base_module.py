"""BaseModule: the interface every module implements (bind, init_params, init_optimizer,
forward, backward, update, get_outputs, ...) and the loops written once on top of it: fit,
score, predict, iter_predict, forward_backward, save_params/load_params.

A module with more to say about a training step overrides the hooks fit calls: update()
returning False marks a skipped update (Module: NaN/Inf gradients), _after_update reports
them, _global_metric_values gathers a metric over the ranks of a distributed job, _rank0 says
whether this process logs, and _epoch_end_params gives the parameters the epoch-end callbacks
see.
"""
import logging
import time
import warnings

import numpy as np

from .. import metric as metric_mod
from .. import ndarray as nd
from ..base import MXNetError, _as_list
from ..callback import BatchEndParam
from ..context import cpu
from ..initializer import Uniform
from ..io import DataBatch, DataDesc


def _check_input_names(symbol, names, typename, throw):
    """Every name must be an argument of the symbol; else an error (or a warning) listing the
    arguments that look like inputs rather than parameters."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        msg = ("You created Module with Module(..., %s_names=%s) but input with name '%s' is not found in "
               "symbol.list_arguments(). Did you mean one of:\n\t%s" % (typename, list(names), name,
                                                                        "\n\t".join(candidates)))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _check_names_match(names, descs, kind, throw):
    given = [d[0] for d in descs]
    if sorted(names) != sorted(given):
        msg = ("Data provided by %s_shapes don't match names specified by %s_names (%s vs. %s)"
               % (kind, kind, given, list(names)))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _desc(entry):
    """A DataDesc from a DataDesc or a (name, shape) pair; a shape that is not a sequence of
    ints is a TypeError (MXNet's bind fails the same way)."""
    desc = entry if isinstance(entry, DataDesc) else None
    if desc is None:
        name, shape = entry[0], entry[1]
        if not isinstance(shape, (tuple, list)) or not all(isinstance(s, (int, np.integer)) for s in shape):
            raise TypeError("input '%s': the shape must be a tuple of ints, got %r" % (name, shape))
        desc = DataDesc(*entry)
    return desc


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """(data DataDescs, label DataDescs or None), names checked against the module's."""
    data_shapes = [_desc(d) for d in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [_desc(d) for d in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


def _trim_padding(array, n, keep):
    """The rows of a batch-major array without the batch's padding; other arrays (a language
    model's (batch*time, vocab) output) whole, as MXNet counts every output."""
    return array[:keep] if keep < n and array.shape and array.shape[0] == n else array


class BaseModule:
    """The module interface and the loops over it (see the module docstring)."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # ---- loops ------------------------------------------------------------------------------
    def forward_backward(self, data_batch):
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None, score_end_callback=None,
              reset=True, epoch=0, sparse_row_id_fn=None):
        """Runs inference over eval_data and returns the metric's (name, value) pairs. The rows
        a batch pads with are left out of the metric (symnet; MXNet counts them)."""
        assert self.binded and self.params_initialized
        if reset:
            eval_data.reset()
        eval_metric = metric_mod.create(eval_metric)
        eval_metric.reset()
        nonfinite = 0
        scored = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            if isinstance(batch, list):
                self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
            else:
                n = batch.data[0].shape[0]
                keep = n - (getattr(batch, "pad", 0) or 0)
                outs = [_trim_padding(o.asnumpy(), n, keep) for o in self.get_outputs()]
                nonfinite += not all(np.isfinite(o).all() for o in outs)
                eval_metric.update([_trim_padding(lab, n, keep) for lab in (batch.label or [])], outs)
            scored += 1
            for cb in _as_list(batch_end_callback or []):
                cb(BatchEndParam(epoch, nbatch, eval_metric, locals()))
        if nonfinite:
            self.logger.warning("score: %d batch(es) gave NaN/Inf outputs (NaN/Inf in the data or the weights?); "
                                "the metric counts them as they came out", nonfinite)
        for cb in _as_list(score_end_callback or []):
            cb(BatchEndParam(epoch, scored, eval_metric, locals()))
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yields (outputs without the batch's padding, batch index, batch) per batch."""
        assert self.binded and self.params_initialized
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            pad = getattr(batch, "pad", 0) or 0
            yield [o[0:o.shape[0] - pad] for o in self.get_outputs()], nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True, always_output_list=False,
                sparse_row_id_fn=None):
        """Outputs over a data iterator (padding left out), merged over the batches; an NDArray
        or numpy array is one batch, and its first output is returned."""
        assert self.binded and self.params_initialized
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            self.forward(DataBatch([nd.array(eval_data) if isinstance(eval_data, np.ndarray) else eval_data]),
                         is_train=False)
            return self.get_outputs()[0]
        if reset:
            eval_data.reset()
        outputs = []
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            keep = batch.data[0].shape[0] - (getattr(batch, "pad", 0) or 0)
            outputs.append([o.asnumpy()[:keep] for o in self.get_outputs()])
        if not merge_batches:
            return outputs
        if not outputs:
            return []
        if any(len(o) != len(outputs[0]) for o in outputs):
            raise MXNetError("predict: the batches gave different numbers of outputs (bucketing?); "
                             "use merge_batches=False")
        merged = [nd.array(np.concatenate([b[i] for b in outputs]), dtype=outputs[0][i].dtype)
                  for i in range(len(outputs[0]))]
        return merged if (always_output_list or len(merged) != 1) else merged[0]

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None, batch_end_callback=None,
            kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
            force_rebind=False, force_init=False, begin_epoch=0, num_epoch=None, validation_metric=None,
            monitor=None, sparse_row_id_fn=None, max_nonfinite_batches=5):
        """MXNet's fit: bind, init_params, init_optimizer, then per epoch a forward_backward and
        update per batch, the metric, the callbacks, and scoring of eval_data. Batch-end
        callbacks see nbatch counted from 1 and the epoch's batch count (num_batches) when the
        iterator knows it. symnet adds max_nonfinite_batches (default 5), for modules whose
        update() returns False on a skipped step: Module without AMP skips the update of a batch
        whose gradients hold inf/nan (a NaN/Inf loss) with a warning, and that many such batches
        in a row stop training with an error (None: never stop); with AMP they are the loss
        scaler's overflow skips. With a distributed store the metrics are those over every rank,
        logged on rank 0."""
        assert num_epoch is not None, "please specify number of epochs"
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label, for_training=True,
                  force_rebind=force_rebind)
        self.init_params(initializer=initializer or Uniform(0.01), arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        if monitor is not None:
            self.install_monitor(monitor)
        validation_metric = validation_metric or eval_metric
        eval_metric = metric_mod.create(eval_metric)
        num_batches = getattr(train_data, "num_data", None)
        if num_batches is not None:
            num_batches = -(-num_batches // train_data.batch_size)
        self._fit_started()
        if hasattr(train_data, "set_epoch"):
            train_data.set_epoch(begin_epoch)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            # the batch's labels are read before the iterator moves on: a C++ iterator may free
            # a batch when it makes the next one
            for batch in train_data:
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(batch)
                applied = self.update()
                if isinstance(batch, list):
                    self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
                else:
                    self.update_metric(eval_metric, batch.label)
                if monitor is not None:
                    monitor.toc_print()
                nbatch += 1
                self._after_update(applied, epoch, nbatch, max_nonfinite_batches)
                for cb in _as_list(batch_end_callback or []):
                    cb(BatchEndParam(epoch, nbatch, eval_metric, locals(), num_batches))
            if nbatch == 0:
                raise MXNetError("epoch %d: the training data gave no batches (an empty data set, or a batch size "
                                 "of %s larger than the data set with last_batch_handle 'discard' or 'roll_over')"
                                 % (epoch, getattr(train_data, "batch_size", "?")))
            train_values = self._global_metric_values(eval_metric)
            if self._rank0:
                for name, val in train_values:
                    self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
                self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            arg_params, aux_params = self._epoch_end_params()
            for cb in _as_list(epoch_end_callback or []):
                if getattr(cb, "wants_module", False):
                    cb(epoch, self.symbol, arg_params, aux_params, module=self)
                else:
                    cb(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                val_metric = metric_mod.create(validation_metric)
                res = self.score(eval_data, val_metric, batch_end_callback=eval_batch_end_callback, epoch=epoch)
                res = self._global_metric_values(val_metric, res)
                if self._rank0:
                    for name, val in res:
                        self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
                for cb in _as_list(eval_end_callback or []):
                    cb(BatchEndParam(epoch, nbatch, val_metric, locals()))
            train_data.reset()

    # ---- hooks of fit -----------------------------------------------------------------------
    @property
    def _rank0(self):
        """Whether this process logs (rank 0 of a distributed job)."""
        return True

    def _fit_started(self):
        """Called once before fit's first epoch."""

    def _after_update(self, applied, epoch, nbatch, max_nonfinite_batches):
        """Called after each update() with its return value (False: the update was skipped)."""

    def _global_metric_values(self, eval_metric, local=None):
        """The metric's (name, value) pairs over the whole job; `local`: this process's values
        when already computed."""
        return local if local is not None else eval_metric.get_global_name_value()

    def _epoch_end_params(self):
        """(arg_params, aux_params) for the epoch-end callbacks; as MXNet, set back so that every
        device holds the same values."""
        arg_params, aux_params = self.get_params()
        self.set_params(arg_params, aux_params)
        return arg_params, aux_params

    # ---- the interface ----------------------------------------------------------------------
    @property
    def data_names(self):
        raise NotImplementedError()

    @property
    def output_names(self):
        raise NotImplementedError()

    @property
    def data_shapes(self):
        raise NotImplementedError()

    @property
    def label_shapes(self):
        raise NotImplementedError()

    @property
    def output_shapes(self):
        raise NotImplementedError()

    @property
    def symbol(self):
        return self._symbol

    def get_params(self):
        raise NotImplementedError()

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        raise NotImplementedError()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init, allow_extra=allow_extra)

    def save_params(self, fname):
        """The parameters in one file, 'arg:<name>' and 'aux:<name>' (MXNet's .params layout)."""
        arg_params, aux_params = self.get_params()
        arrays = {"arg:%s" % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
        arrays.update({"aux:%s" % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
        nd.save(fname, arrays)

    def load_params(self, fname):
        arg_params, aux_params = {}, {}
        for key, value in nd.load(fname).items():
            kind, _, name = key.partition(":")
            if kind == "arg":
                arg_params[name] = value
            elif kind == "aux":
                aux_params[name] = value
            else:
                raise ValueError("%s: key '%s' is neither arg:<name> nor aux:<name> (not a parameter file?)"
                                 % (fname, key))
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        """Recurrent states; a module without state names has none."""
        assert self.binded and self.params_initialized
        assert not merge_multi_context
        return []

    def set_states(self, states=None, value=None):
        assert self.binded and self.params_initialized
        assert not states and not value

    def install_monitor(self, mon):
        raise NotImplementedError()

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Prepares for a batch before its forward (MXNet pulls sparse rows here; symnet has no
        sparse parameters, so there is nothing to do)."""
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning("sparse_row_id_fn is not invoked for BaseModule."))

    def forward(self, data_batch, is_train=None):
        raise NotImplementedError()

    def backward(self, out_grads=None):
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context=True):
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context=True):
        raise NotImplementedError()

    def update(self):
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        raise NotImplementedError()

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        raise NotImplementedError()
