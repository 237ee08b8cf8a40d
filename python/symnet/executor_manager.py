"""mx.executor_manager, MXNet's legacy multi-device executor manager (what the old FeedForward
trained with; Module's executor_group replaced it): DataParallelExecutorGroup binds one executor
per context on its slice of the batch, parameters with gradients ('write'), data without;
DataParallelExecutorManager splits the batch by work load, keeps one group per bucket key (with
sym_gen; the buckets share parameters and data memory) and averages parameters back (copy_to)."""
import logging

import numpy as np

from . import ndarray as nd
from ._feedforward import _check_arguments
from .context import cpu
from .io import DataDesc


def _split_input_slice(batch_size, work_load_list):
    """Slices of the batch, one per device, sized by work load (the remainder to the last);
    an empty one is an error."""
    total = sum(work_load_list)
    sizes = [round(w * batch_size / total) for w in work_load_list]
    if sum(sizes) < batch_size:
        sizes[-1] += batch_size - sum(sizes)
    slices, end = [], 0
    for size in sizes:
        begin = int(min(end, batch_size))
        end = int(min(begin + size, batch_size))
        if begin >= end:
            raise ValueError("Too many slices. Some splits are empty.")
        slices.append(slice(begin, end))
    return slices


def _load_general(data, targets):
    """Copies each source array into its target: a whole array, or [(slice, array)] parts."""
    for src, dst in zip(data, targets):
        if isinstance(dst, nd.NDArray):
            src.copyto(dst)
            continue
        assert dst[-1][0].stop == src.shape[0], \
            "Batch size miss match. Expected %d, got %d" % (dst[-1][0].stop, src.shape[0])
        for part, arr in dst:
            src[part].copyto(arr)


def _load_data(batch, targets):
    _load_general(batch.data, targets)


def _load_label(batch, targets):
    _load_general(batch.label, targets)


def _bind_exec(sym, ctx, input_shapes, param_names, need_grad=False, base_exec=None,
               shared_data_arrays=None, input_types=None, logger=logging):
    """An executor of sym on ctx for these input shapes. need_grad: False, True (every
    non-input argument) or a set of names to give gradients. base_exec's parameters (and
    gradients, auxiliary states) are shared; shared_data_arrays reuses (or records) the input
    arrays of the other buckets when large enough."""
    arg_shapes, _, aux_shapes = sym.infer_shape(**input_shapes)
    assert arg_shapes is not None
    if input_types is None:
        input_types = {k: np.float32 for k in input_shapes}
    arg_types, _, aux_types = sym.infer_type(**input_types)
    assert arg_types is not None
    arg_names = sym.list_arguments()
    if need_grad is False:
        need_grad = set()
    elif need_grad is True:
        need_grad = set(arg_names) - set(input_shapes)
    elif not isinstance(need_grad, set):
        raise AssertionError("need_grad must be boolean or set.")
    grad_arrays = {} if need_grad else None
    args = []
    for name, shape, dtype in zip(arg_names, arg_shapes, arg_types):
        if name not in param_names:
            args.append(_data_array(name, shape, dtype, ctx, shared_data_arrays, logger))
        elif base_exec is None:
            args.append(nd.zeros(shape, ctx, dtype=dtype))
            if name in need_grad:
                grad_arrays[name] = nd.zeros(shape, ctx, dtype=dtype)
        else:
            arr = base_exec.arg_dict[name]
            assert arr.shape == tuple(shape)
            args.append(arr)
            if name in need_grad:
                grad_arrays[name] = base_exec.grad_dict[name]
    if base_exec is None:
        aux = [nd.zeros(s, ctx, dtype=t) for s, t in zip(aux_shapes, aux_types)]
    else:
        aux = list(base_exec.aux_arrays)
    grad_req = {name: "write" if name in need_grad else "null" for name in arg_names}
    return sym.bind(ctx=ctx, args=args, args_grad=grad_arrays, aux_states=aux, grad_req=grad_req,
                    shared_exec=base_exec)


def _data_array(name, shape, dtype, ctx, shared, logger):
    """An input array: another bucket's (reshaped) when it is large enough, else a new one."""
    if shared is not None and name in shared:
        arr = shared[name]
        if np.prod(arr.shape) >= np.prod(shape):
            return arr.reshape(shape)
        logger.warning('bucketing: data "%s" has a shape %s, which is larger than already '
                       "allocated shape %s. Need to re-allocate. Consider putting "
                       "default_bucket_key to be the bucket taking the largest input for better "
                       "memory sharing." % (name, shape, arr.shape))
    arr = nd.zeros(shape, ctx, dtype=dtype)
    if shared is not None:
        shared[name] = arr
    return arr


class DataParallelExecutorGroup(object):
    """One training executor per context, each on its slice of train_data's batches."""

    def __init__(self, sym, arg_names, param_names, ctx, slices, train_data, shared_group=None):
        _check_arguments(sym)
        self.shared_data_arrays = ([{} for _ in ctx] if shared_group is None
                                   else shared_group.shared_data_arrays)
        descs = list(train_data.provide_data) + list(train_data.provide_label)
        self.data_names = [x[0] for x in train_data.provide_data]
        self.label_names = [x[0] for x in train_data.provide_label]
        self.aux_names = sym.list_auxiliary_states()
        self.param_idx = [i for i, name in enumerate(arg_names) if name in param_names]
        self.param_names = [arg_names[i] for i in self.param_idx]
        self.train_execs = []
        for i, ctxi in enumerate(ctx):
            rows = slices[i].stop - slices[i].start
            shapes = {x[0]: tuple([rows] + list(x[1][1:])) for x in descs}
            types = {x[0]: x.dtype if isinstance(x, DataDesc) else np.float32 for x in descs}
            shared_exec = None if shared_group is None else shared_group.train_execs[i]
            self.train_execs.append(_bind_exec(sym, ctxi, shapes, self.param_names,
                                               need_grad=True, base_exec=shared_exec,
                                               shared_data_arrays=self.shared_data_arrays[i],
                                               input_types=types))
        execs = self.train_execs
        self.data_arrays = [[(slices[i], e.arg_dict[n]) for i, e in enumerate(execs)]
                            for n in self.data_names]
        self.label_arrays = [[(slices[i], e.arg_dict[n]) for i, e in enumerate(execs)]
                             for n in self.label_names]
        self.param_arrays = [[e.arg_arrays[i] for e in execs] for i in self.param_idx]
        self.grad_arrays = [[e.grad_arrays[i] for e in execs] for i in self.param_idx]
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]
        self.slices = slices

    def load_data_batch(self, data_batch):
        _load_data(data_batch, self.data_arrays)
        _load_label(data_batch, self.label_arrays)

    def forward(self, is_train=False):
        for e in self.train_execs:
            e.forward(is_train=is_train)

    def backward(self):
        for e in self.train_execs:
            e.backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        for i, (e, part) in enumerate(zip(self.train_execs, self.slices)):
            metric.update(labels[i] if pre_sliced else [label[part] for label in labels],
                          e.outputs)


class DataParallelExecutorManager(object):
    """Data-parallel training of symbol (or of sym_gen(bucket_key) per bucket) over ctx."""

    def __init__(self, symbol, ctx, train_data, arg_names, param_names, aux_names,
                 work_load_list=None, logger=None, sym_gen=None):
        logger = logger or logging
        logger.info("Start training with %s", str(ctx))
        if work_load_list is None:
            work_load_list = [1] * len(ctx)
        assert isinstance(work_load_list, list) and len(work_load_list) == len(ctx), \
            "Invalid settings for work load. "
        self.slices = _split_input_slice(train_data.batch_size, work_load_list)
        self.arg_names = arg_names
        self.param_names = param_names
        self.aux_names = aux_names
        self.ctx = ctx
        self.execgrp = DataParallelExecutorGroup(symbol, arg_names, param_names, ctx, self.slices,
                                                 train_data)
        self.symbol = symbol
        self.sym_gen = sym_gen
        self.curr_execgrp = None  # the group of the last loaded batch
        if sym_gen is not None:
            self.execgrp_bucket = {train_data.default_bucket_key: self.execgrp}

    def install_monitor(self, monitor):
        if self.sym_gen is not None:
            raise NotImplementedError("Monitoring is not implemented for bucketing")
        for e in self.execgrp.train_execs:
            monitor.install(e)

    def set_params(self, arg_params, aux_params):
        for e in self.execgrp.train_execs:
            e.copy_params_from(arg_params, aux_params)

    def copy_to(self, arg_params, aux_params):
        """Each parameter and auxiliary state averaged over the devices, into the dicts."""
        for names, blocks, dst in ((self.param_names, self.param_arrays, arg_params),
                                   (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                mean = sum(w.copyto(cpu()) for w in block) / len(block)
                mean.astype(dst[name].dtype).copyto(dst[name])

    @property
    def param_arrays(self):
        return self.execgrp.param_arrays

    @property
    def grad_arrays(self):
        return self.execgrp.grad_arrays

    @property
    def aux_arrays(self):
        return self.execgrp.aux_arrays

    def load_data_batch(self, data_batch):
        """Loads the batch into its bucket's group (bound on first sight of the key)."""
        if self.sym_gen is None:
            self.curr_execgrp = self.execgrp
        else:
            key = data_batch.bucket_key
            if key not in self.execgrp_bucket:
                self.execgrp_bucket[key] = DataParallelExecutorGroup(
                    self.sym_gen(key), self.arg_names, self.param_names, self.ctx, self.slices,
                    data_batch, shared_group=self.execgrp)
            self.curr_execgrp = self.execgrp_bucket[key]
        self.curr_execgrp.load_data_batch(data_batch)

    def forward(self, is_train=False):
        self.curr_execgrp.forward(is_train=is_train)

    def backward(self):
        self.curr_execgrp.backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        self.curr_execgrp.update_metric(metric, labels, pre_sliced)
