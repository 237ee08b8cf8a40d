"""mx.model.FeedForward, MXNet's legacy (deprecated in 1.9.1) model API, on symnet's Module and
executor: fit trains a Module epoch by epoch as MXNet's _train_multi_device does (callbacks,
epoch_size, 'Resetting Data Iterator'/'Time cost' log lines, evaluation with eval_end_callback),
predict/score run a grad-free executor bound to the data's shapes, save/load write MXNet's
checkpoint files. NumPy or NDArray inputs become NDArrayIters of numpy_batch_size."""
import logging
import time
import warnings

import numpy as np

from . import io
from . import metric
from . import ndarray as nd
from . import optimizer as opt
from .callback import BatchEndParam, LogValidationMetricsCallback
from .context import Context, cpu
from .initializer import Uniform
from .model import load_checkpoint, save_checkpoint
from .symbol import Symbol


def _check_arguments(symbol):
    """MXNet's check: the symbol's argument (and auxiliary state) names are unique."""
    for names, kind in ((symbol.list_arguments(), "argument"),
                        (symbol.list_auxiliary_states(), "auxiliary state")):
        seen = set()
        for name in names:
            if name in seen:
                raise ValueError("Find duplicated %s name \"%s\", please make the weight name "
                                 "non-duplicated(using name arguments), arguments are %s"
                                 % (kind, name, names))
            seen.add(name)


def _callbacks(callbacks, *args):
    for cb in callbacks if isinstance(callbacks, list) else [callbacks]:
        cb(*args)


def _desc_name(desc):
    return desc.name if hasattr(desc, "name") else desc[0]


class FeedForward:
    """A symbol (or a sym_gen(bucket_key) callable) with its parameters, trained by fit for
    num_epoch epochs with `optimizer` (a name, created with rescale_grad=1/batch_size and the
    extra keyword arguments, or an Optimizer) from parameters `initializer` draws."""

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd",
                 initializer=Uniform(0.01), numpy_batch_size=128, arg_params=None,
                 aux_params=None, allow_extra_params=False, begin_epoch=0, **kwargs):
        warnings.warn("\033[91mmxnet.model.FeedForward has been deprecated. Please use "
                      "mxnet.mod.Module instead.\033[0m", DeprecationWarning, stacklevel=2)
        if isinstance(symbol, Symbol):
            self.symbol, self.sym_gen = symbol, None
        else:
            assert callable(symbol)
            self.symbol, self.sym_gen = None, symbol
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        self.ctx = [cpu()] if ctx is None else [ctx] if isinstance(ctx, Context) else ctx
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self):
        """Unique argument names; with allow_extra_params, drops the given parameters the
        symbol does not use."""
        if self.argument_checked:
            return
        assert self.symbol is not None
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    @staticmethod
    def _is_data_arg(name):
        return name.endswith("data") or name.endswith("label")

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_pred_exec"] = None  # an executor does not pickle; predict binds again
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ---- inputs ----------------------------------------------------------------------------
    def _init_iter(self, X, y, is_train):
        """A DataIter as is; an array X (with labels y; zeros when predicting) as an
        NDArrayIter: shuffled with 'roll_over' for training."""
        if isinstance(X, (np.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError("y must be specified when X is numpy.ndarray")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, nd.NDArray)):
                raise TypeError("y must be ndarray when X is numpy.ndarray")
            if X.shape[0] != y.shape[0]:
                raise ValueError("The numbers of data points and labels not equal")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ValueError("Label must be 1D or 2D (with 2nd dimension being 1)")
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch_size, shuffle=True,
                                      last_batch_handle="roll_over")
            return io.NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError("X must be DataIter, NDArray or numpy.ndarray")
        return X

    def _init_eval_iter(self, eval_data):
        """None, a DataIter, or an (X, y) pair (lists become arrays; (iter, None) the iter)."""
        if eval_data is None:
            return None
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            if eval_data[0] is None:
                raise ValueError("Eval data is NONE")
            if eval_data[1] is None and isinstance(eval_data[0], io.DataIter):
                return eval_data[0]
            x, y = (np.array(v) if isinstance(v, list) else v for v in eval_data)
            return self._init_iter(x, y, is_train=True)
        if not isinstance(eval_data, io.DataIter):
            raise TypeError("Eval data must be DataIter, or NDArray/numpy.ndarray/list pair "
                            "(i.e. tuple/list of length 2)")
        return eval_data

    # ---- parameters ------------------------------------------------------------------------
    def _init_params(self, inputs, overwrite=False):
        """Parameters for these inputs' shapes: the given ones kept (unless overwrite), the
        others drawn by the initializer. Returns (argument, parameter, auxiliary) names."""
        inputs = [x if isinstance(x, io.DataDesc) else io.DataDesc(*x) for x in inputs]
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**{x.name: x.shape for x in inputs})
        assert arg_shapes is not None
        arg_types, _, aux_types = self.symbol.infer_type(**{x.name: x.dtype for x in inputs})
        assert arg_types is not None
        arg_names = self.symbol.list_arguments()
        input_names = {x.name for x in inputs}
        param_names = [n for n in arg_names if n not in input_names]
        aux_names = self.symbol.list_auxiliary_states()
        arg_params = {n: nd.zeros(shape=s, dtype=t)
                      for n, s, t in zip(arg_names, arg_shapes, arg_types) if n in param_names}
        aux_params = {n: nd.zeros(shape=s, dtype=t)
                      for n, s, t in zip(aux_names, aux_shapes, aux_types)}
        for given, new in ((self.arg_params, arg_params), (self.aux_params, aux_params)):
            for k, v in new.items():
                if given and k in given and not overwrite:
                    v[:] = given[k]
                else:
                    self.initializer(k, v)
        self.arg_params, self.aux_params = arg_params, aux_params
        return arg_names, list(param_names), aux_names

    def _init_predictor(self, input_shapes, type_dict=None):
        """A grad-free executor on ctx[0] for these input shapes (kept while they stay)."""
        shapes = {name: self.arg_params[name].shape for name in self.arg_params}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            assert arg_shapes is not None, "Incomplete input shapes"
            if list(arg_shapes) == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        pred_exec = self.symbol.simple_bind(self.ctx[0], grad_req="null", type_dict=type_dict,
                                            **shapes)
        pred_exec.copy_params_from(self.arg_params, self.aux_params)
        _check_arguments(self.symbol)
        self._pred_exec = pred_exec

    def _bind_predictor(self, X):
        data_names = [_desc_name(x) for x in X.provide_data]
        type_dict = {k: v.dtype for k, v in self.arg_params.items()}
        for x in X.provide_data:
            type_dict[_desc_name(x)] = getattr(x, "dtype", np.float32)
        self._init_predictor([(_desc_name(x), tuple(x[1] if isinstance(x, tuple) else x.shape))
                              for x in X.provide_data], type_dict)
        return [self._pred_exec.arg_dict[name] for name in data_names]

    @staticmethod
    def _load(batch, arrays):
        for src, dst in zip(batch.data, arrays):
            src.copyto(dst)

    # ---- prediction ------------------------------------------------------------------------
    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """The outputs over X (NumPy, the pad of the last batch dropped; one array for a
        single output), with the data and labels when return_data."""
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        data_arrays = self._bind_predictor(X)
        outputs = [[] for _ in self._pred_exec.outputs]
        data_list = [[] for _ in X.provide_data]
        label_list = [[] for _ in X.provide_label]
        for i, batch in enumerate(X):
            self._load(batch, data_arrays)
            self._pred_exec.forward(is_train=False)
            real = X.batch_size - (batch.pad or 0)
            for acc, out in zip(outputs, self._pred_exec.outputs):
                acc.append(out[0:real].asnumpy())
            if return_data:
                for acc, x in zip(data_list, batch.data):
                    acc.append(x[0:real].asnumpy())
                for acc, x in zip(label_list, batch.label):
                    acc.append(x[0:real].asnumpy())
            if num_batch is not None and i + 1 == num_batch:
                break

        def _joined(lists):
            arrays = [np.concatenate(x) for x in lists]
            return arrays[0] if len(arrays) == 1 else arrays

        if return_data:
            return _joined(outputs), _joined(data_list), _joined(label_list)
        return _joined(outputs)

    def score(self, X, eval_metric="acc", num_batch=None, batch_end_callback=None, reset=True):
        """eval_metric's value over X (a DataIter with labels)."""
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        data_arrays = self._bind_predictor(X)
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            self._load(batch, data_arrays)
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            if batch_end_callback is not None:
                _callbacks(batch_end_callback, BatchEndParam(0, i, eval_metric, locals()))
        return eval_metric.get()[1]

    # ---- training --------------------------------------------------------------------------
    def _create_optimizer(self, data):
        if isinstance(self.optimizer, str):
            kwargs = {k: v for k, v in self.kwargs.items() if k not in ("sym", "param_idx2name")}
            return opt.create(self.optimizer, rescale_grad=1.0 / data.batch_size, **kwargs)
        return self.optimizer

    def fit(self, X, y=None, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", logger=None, work_load_list=None,
            monitor=None, eval_end_callback=LogValidationMetricsCallback(),
            eval_batch_end_callback=None):
        """Trains from begin_epoch to num_epoch; afterwards arg_params/aux_params hold the
        trained values (predict, score and save use them)."""
        from .module import Module

        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.sym_gen:
            self.symbol = self.sym_gen(data.default_bucket_key)
            self._check_arguments()
        self._init_params(list(data.provide_data) + list(data.provide_label))
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        logger = logger or logging
        mod = Module(self.symbol, data_names=[_desc_name(x) for x in data.provide_data],
                     label_names=[_desc_name(x) for x in data.provide_label], context=self.ctx,
                     work_load_list=work_load_list, logger=logger)
        mod.bind(data.provide_data, data.provide_label, for_training=True)
        mod.set_params(self.arg_params, self.aux_params)
        mod.init_optimizer(kvstore=kvstore, optimizer=self._create_optimizer(data))
        if monitor is not None:
            mod.install_monitor(monitor)
        self._pred_exec = None  # the parameters change: predict binds again
        logger.info("Start training with %s", str(self.ctx))
        data.reset()
        for epoch in range(self.begin_epoch, self.num_epoch):
            self._train_epoch(mod, data, epoch, eval_metric, batch_end_callback, monitor, logger)
            self.arg_params, self.aux_params = mod.get_params()
            if epoch_end_callback is not None:
                _callbacks(epoch_end_callback, epoch, self.symbol, self.arg_params,
                           self.aux_params)
            if eval_data:
                self._evaluate(mod, eval_data, epoch, eval_metric, eval_batch_end_callback,
                               eval_end_callback)

    def _train_epoch(self, mod, data, epoch, eval_metric, batch_end_callback, monitor, logger):
        """One epoch: the whole data (reset at its end), or epoch_size batches read on across
        resets and epochs (as MXNet)."""
        tic = time.time()
        eval_metric.reset()
        nbatch = 0
        while True:
            do_reset = True
            for batch in data:
                if monitor is not None:
                    monitor.tic()
                mod.forward_backward(batch)
                mod.update()
                mod.update_metric(eval_metric, batch.label)
                if monitor is not None:
                    monitor.toc_print()
                nbatch += 1
                if batch_end_callback is not None:
                    _callbacks(batch_end_callback,
                               BatchEndParam(epoch, nbatch, eval_metric, locals()))
                if self.epoch_size is not None and nbatch >= self.epoch_size:
                    do_reset = False
                    break
            if do_reset:
                logger.info("Epoch[%d] Resetting Data Iterator", epoch)
                data.reset()
            if self.epoch_size is None or nbatch >= self.epoch_size:
                break
        logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)

    @staticmethod
    def _evaluate(mod, eval_data, epoch, eval_metric, eval_batch_end_callback,
                  eval_end_callback):
        eval_metric.reset()
        eval_data.reset()
        total = 0
        for i, batch in enumerate(eval_data):
            mod.forward(batch, is_train=False)
            mod.update_metric(eval_metric, batch.label)
            if eval_batch_end_callback is not None:
                _callbacks(eval_batch_end_callback, BatchEndParam(epoch, i, eval_metric, locals()))
            total += 1
        if eval_end_callback is not None:
            _callbacks(eval_end_callback, BatchEndParam(epoch, total, eval_metric, locals()))
        eval_data.reset()

    # ---- files -----------------------------------------------------------------------------
    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """prefix-symbol.json and prefix-%04d.params (epoch: num_epoch by default)."""
        if epoch is None:
            epoch = self.num_epoch
        assert epoch is not None
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)
        logging.info('Saved checkpoint to "%s-%04d.params"', prefix, epoch)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward of a saved checkpoint, to continue training from `epoch`."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd",
               initializer=Uniform(0.01), eval_data=None, eval_metric="acc",
               epoch_end_callback=None, batch_end_callback=None, kvstore="local", logger=None,
               work_load_list=None, eval_end_callback=LogValidationMetricsCallback(),
               eval_batch_end_callback=None, **kwargs):
        """A FeedForward built and fit in one call."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric,
                  epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
                  kvstore=kvstore, logger=logger, work_load_list=work_load_list,
                  eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model
