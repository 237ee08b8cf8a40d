"""DataParallelExecutorGroup: one executor per context, each bound for its slice of the batch.

This is what a Module binds (MXNet 1.9.1's class of this name and constructor): it splits every
batch along each input's batch axis (from the DataDesc layout, 'N'), loads the slices, runs the
executors, merges their outputs along the outputs' batch axes (a symbol's `__layout__`) and
slices head gradients the same way.

Memory sharing, as far as symnet's executors allow: a group bound with `shared_group` binds its
executors to the shared group's parameter, gradient and auxiliary arrays (same name, shape and
dtype), and keeps its other arguments (data, labels, states, parameters the shared group does not
treat as parameters) in `shared_data_arrays`, one dict per context that both groups hold. An
array of another shape is never reused there (symnet has no views of a larger buffer): it is
allocated for this group, and the first one of that name stays in the dict. A symnet executor
runs on one device: `group2ctxs` is checked and kept, but the ops of a ctx_group run on the
executor's own context. On the CPU, where every context is the one device, the gradient of a
variable whose ctx_group (mx.AttrScope(ctx_group=...)) group2ctxs maps to another CPU context
is placed on that context, as MXNet places it (get_input_grads reports that context; the
executor takes its arguments on its own context only).
"""
import copy
import logging

import numpy as np

from .. import ndarray as nd
from ..context import Context
from ..io import DataDesc


def batch_axis(layout):
    """The batch axis of a layout string ('N' in it; 0 without a layout, -1 without an 'N':
    such an input is not sliced but copied whole to every device)."""
    if not layout:
        return 0
    return layout.find("N")


def split_slices(batch_size, workload):
    """Contiguous slices of a batch, sized in proportion to the contexts' workloads (the
    rounding remainder goes to the last context, as MXNet's _split_input_slice)."""
    total = float(sum(workload))
    counts = [int(round(w * batch_size / total)) for w in workload]
    counts[-1] += batch_size - sum(counts)
    if any(c <= 0 for c in counts):
        raise ValueError("a batch of %d cannot be split over %d devices (workloads %s)"
                         % (batch_size, len(workload), list(workload)))
    bounds = np.cumsum([0] + counts)
    return [slice(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def prepare_group2ctxs(group2ctxs, num_contexts):
    """One {ctx_group: Context} dict (or None) per context, from MXNet's accepted forms: None,
    a list of dicts (one per context), or a dict whose values are a context or a list of one
    context or one per context."""
    if group2ctxs is None:
        return [None] * num_contexts
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != num_contexts:
            raise ValueError("group2ctxs: %d dicts for %d contexts" % (len(group2ctxs), num_contexts))
        return group2ctxs
    if isinstance(group2ctxs, dict):
        out = [{} for _ in range(num_contexts)]
        for group, value in group2ctxs.items():
            if isinstance(value, Context):
                value = [value] * num_contexts
            elif len(value) == 1:
                value = list(value) * num_contexts
            elif len(value) != num_contexts:
                raise ValueError("group2ctxs[%r]: %d contexts, expected 1 or %d" % (group, len(value), num_contexts))
            for i in range(num_contexts):
                out[i][group] = value[i]
        return out
    raise TypeError("group2ctxs must be a dict of ctx_group to context(s) or a list of such dicts, "
                    "one per context; got %r" % (group2ctxs,))


def _both_cpu(a, b):
    return a.device_type in ("cpu", "cpu_pinned") and b.device_type in ("cpu", "cpu_pinned")


def _as_numpy(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


def _cut(array, axis, part):
    """array[part] along `axis` (numpy)."""
    return array[(slice(None),) * axis + (part,)]


def _descs(shapes):
    return None if shapes is None else [s if isinstance(s, DataDesc) else DataDesc(*s) for s in shapes]


class DataParallelExecutorGroup:
    """Executors of one symbol over `contexts` (see the module docstring). `workload`: relative
    batch share of each context. `param_names`: the arguments that are parameters (shared with
    `shared_group`, given gradients when training unless in `fixed_param_names`). grad_req: a
    string for every parameter (and the data when `inputs_need_grad`), a list in
    list_arguments() order, or a dict by name over those defaults. bind_options (symnet's) is
    passed to every executor's bind."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, logger=logging, fixed_param_names=None, grad_req="write",
                 state_names=None, group2ctxs=None, bind_options=None):
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload is not None else [1] * len(self.contexts)
        if len(self.workload) != len(self.contexts):
            raise ValueError("workload: %d entries for %d contexts" % (len(self.workload), len(self.contexts)))
        self.param_names = list(param_names)
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.group2ctxs = prepare_group2ctxs(group2ctxs, len(self.contexts))
        elsewhere = sorted({str(c) for ctx, groups in zip(self.contexts, self.group2ctxs)
                            for c in (groups or {}).values() if c != ctx and not _both_cpu(c, ctx)})
        if elsewhere:
            logger.warning("group2ctxs: symnet runs every op of an executor on its own context; the ctx_groups "
                           "meant for %s run on %s", ", ".join(elsewhere), ", ".join(map(str, self.contexts)))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.bind_options = bind_options
        data_shapes, label_shapes = _descs(data_shapes), _descs(label_shapes)
        self.grad_req = self._grad_reqs(grad_req if for_training else "null", [d.name for d in data_shapes])
        self.shared_data_arrays = (shared_group.shared_data_arrays if shared_group is not None
                                   else [{} for _ in self.contexts])
        self.output_names = symbol.list_outputs()
        self.num_outputs = len(self.output_names)
        self.output_layouts = [batch_axis(symbol[i].attr("__layout__")) for i in range(self.num_outputs)]
        self.execs = []
        self.batch_size = self.slices = None
        self.data_shapes = self.label_shapes = self.data_names = self.label_names = None
        self.data_layouts = self.label_layouts = None
        self._total_exec_bytes = 0
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req, data_names):
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise ValueError("grad_req: %d entries for %d arguments" % (len(grad_req), len(self.arg_names)))
            return dict(zip(self.arg_names, grad_req))
        if not isinstance(grad_req, (str, dict)):
            raise ValueError("grad_req must be a str, a list/tuple or a dict; got %r" % (grad_req,))
        default = grad_req if isinstance(grad_req, str) else "write"
        reqs = {}
        for name in self.arg_names:
            if name in self.param_names:
                reqs[name] = "null" if name in self.fixed_param_names else default
            elif name in data_names and self.inputs_need_grad:
                reqs[name] = default
            else:
                reqs[name] = "null"
        if isinstance(grad_req, dict):
            reqs.update(grad_req)
        return reqs

    # ---- binding ----------------------------------------------------------------------------
    def decide_slices(self, data_shapes):
        """Each input's batch axis; sets batch_size and slices from the first sliced input."""
        axes = [batch_axis(d.layout) for d in data_shapes]
        for desc, axis in zip(data_shapes, axes):
            if axis < 0:
                continue
            size = desc.shape[axis]
            if self.batch_size is None:
                self.batch_size = size
                self.slices = split_slices(size, self.workload)
            elif size != self.batch_size:
                raise ValueError("all inputs must have one batch size: %d, but %s has shape %s"
                                 % (self.batch_size, desc.name, desc.shape))
        return axes

    def _sliced(self, descs, axes, i):
        out = []
        for desc, axis in zip(descs, axes):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            out.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return out

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Binds one executor per context for these (whole-batch) shapes. With reshape=True the
        new executors take this group's current parameter, gradient and auxiliary arrays."""
        assert reshape or not self.execs, "already bound: use reshape"
        data_shapes, label_shapes = _descs(data_shapes), _descs(label_shapes)
        for desc in (data_shapes or []) + (label_shapes or []):
            if not all(isinstance(s, (int, np.integer)) for s in desc.shape):
                raise TypeError("input '%s': the shape must be a tuple of ints, got %r" % (desc.name, desc.shape))
        self.batch_size = None
        data_layouts = self.decide_slices(data_shapes)
        label_layouts = self.decide_slices(label_shapes) if label_shapes is not None else None
        source = shared_group.execs if shared_group is not None else (list(self.execs) if reshape else None)
        execs = []
        for i in range(len(self.contexts)):
            descs = self._sliced(data_shapes, data_layouts, i)
            if label_shapes is not None:
                descs += self._sliced(label_shapes, label_layouts, i)
            execs.append(self._bind_ith_exec(i, descs, source[i] if source else None))
        self.execs = execs
        self.data_shapes, self.label_shapes = data_shapes, label_shapes
        self.data_layouts, self.label_layouts = data_layouts, label_layouts
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in label_shapes] if label_shapes is not None else None
        self._total_exec_bytes = sum(int(e.memory_report()["arena_bytes"]) for e in execs)
        self._collect_arrays()

    def reshape(self, data_shapes, label_shapes):
        """Binds again for other input shapes, keeping the parameter arrays."""
        data_shapes, label_shapes = _descs(data_shapes), _descs(label_shapes)
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def reshaped(self, data_shapes, label_shapes):
        """A new group for other input shapes on this group's parameter arrays; this group is
        left as it was (so a reshape that fails, or that the caller rejects, changes nothing)."""
        other = copy.copy(self)
        other.execs = list(self.execs)
        other.bind_exec(data_shapes, label_shapes, reshape=True)
        return other

    def _bind_ith_exec(self, i, descs, shared_exec):
        """The executor of context i. It is bound as symnet's simple_bind does; then arrays that
        can be shared (see the module docstring) replace its own, and it is bound again on them."""
        ctx = self.contexts[i]
        shapes = {d.name: tuple(d.shape) for d in descs}
        types = {d.name: d.dtype for d in descs}
        own = self.symbol.simple_bind(ctx, grad_req=self.grad_req, type_dict=types, options=self.bind_options,
                                      **shapes)
        buffer = self.shared_data_arrays[i]
        args, grads, aux, shared_any = [], {}, [], False
        placed = self._group_contexts(i)

        def fits(a, b):
            return b is not None and tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype

        for name in self.arg_names:
            arr, grad = own.arg_dict[name], own.grad_dict.get(name)
            if name in placed and grad is not None:  # on its ctx_group's CPU context, as MXNet's
                grad, shared_any = grad.copyto(placed[name]), True
            if name in self.param_names:
                if shared_exec is not None and fits(arr, shared_exec.arg_dict.get(name)):
                    arr, shared_any = shared_exec.arg_dict[name], True
                    if grad is not None and fits(grad, shared_exec.grad_dict.get(name)):
                        grad = shared_exec.grad_dict[name]
            elif fits(arr, buffer.get(name)):
                arr, shared_any = buffer[name], True
            elif name not in buffer:
                buffer[name] = arr
            args.append(arr)
            grads[name] = grad
        for name in self.aux_names:
            arr = own.aux_dict[name]
            if shared_exec is not None and fits(arr, shared_exec.aux_dict.get(name)):
                arr, shared_any = shared_exec.aux_dict[name], True
            aux.append(arr)
        if not shared_any:
            return own
        return self.symbol.bind(ctx, args, args_grad=grads, grad_req=self.grad_req, aux_states=aux,
                                options=self.bind_options)

    def _group_contexts(self, i):
        """{argument name: context} for the variables of context i whose ctx_group group2ctxs
        maps to another CPU context (while context i is a CPU too)."""
        groups, ctx = self.group2ctxs[i], self.contexts[i]
        if not groups:
            return {}
        attrs = self.symbol.attr_dict()
        placed = {}
        for name in self.arg_names:
            target = groups.get(attrs.get(name, {}).get("__ctx_group__"))
            if isinstance(target, (list, tuple)):
                target = target[0] if target else None
            if target is not None and target != ctx and _both_cpu(target, ctx):
                placed[name] = target
        return placed

    def _collect_arrays(self):
        execs, slices = self.execs, self.slices
        if slices is None:  # no input has a batch axis: every context gets the whole input
            slices = [slice(0, None)] * len(execs)
        self.data_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)] for name in self.data_names]
        self.label_arrays = (None if self.label_names is None else
                             [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                              for name in self.label_names])
        self.state_arrays = [[e.arg_dict[name] for e in execs] for name in self.state_names]
        self.arg_arrays = [[e.arg_dict[name] for e in execs] for name in self.arg_names]
        self.param_arrays = [[e.arg_dict[name] for e in execs] for name in self.arg_names if name in self.param_names]
        self.grad_arrays = (None if not self.for_training else
                            [[e.grad_dict.get(name) for e in execs] for name in self.arg_names
                             if name in self.param_names])
        self.input_grad_arrays = (None if not self.inputs_need_grad else
                                  [[e.grad_dict.get(name) for e in execs] for name in self.data_names
                                   if name in self.arg_names])
        self.aux_arrays = [[e.aux_dict[name] for e in execs] for name in self.aux_names]

    # ---- parameters -------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        for e in self.execs:
            e.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Copies the parameters into the given dicts' arrays: the first context's (every
        context holds the same after an update), auxiliary states averaged over the contexts
        (each context's BatchNorm statistics are of its own slices)."""
        for name, per_ctx in zip(self.param_names, self.param_arrays):
            arg_params[name][:] = per_ctx[0].asnumpy().astype(arg_params[name].dtype)
        for name, per_ctx in zip(self.aux_names, self.aux_arrays):
            mean = np.mean([a.asnumpy() for a in per_ctx], axis=0) if len(per_ctx) > 1 else per_ctx[0].asnumpy()
            aux_params[name][:] = mean.astype(aux_params[name].dtype)

    # ---- computation ------------------------------------------------------------------------
    def _load(self, sources, targets, axes):
        """Each source array's slices into the per-context targets [(slice, array), ...]; a
        list source holds one array per context already."""
        for src, dsts, axis in zip(sources, targets, axes):
            if isinstance(src, (list, tuple)):
                for part, (_, dst) in zip(src, dsts):
                    dst[:] = part
            elif len(dsts) == 1 or axis < 0:
                for _, dst in dsts:
                    dst[:] = src
            else:
                whole = _as_numpy(src)
                for part, dst in dsts:
                    dst[:] = _cut(whole, axis, part)

    def forward(self, data_batch, is_train=None):
        """Loads a batch (a DataBatch, anything with .data and maybe .label, or a list of
        batches one per context) and runs forward on every context. Labels are loaded whenever
        the group was bound with label shapes and the batch has them."""
        is_train = self.for_training if is_train is None else is_train
        if isinstance(data_batch, list):
            data = [[b.data[k] for b in data_batch] for k in range(len(self.data_arrays))]
            label = (None if not getattr(data_batch[0], "label", None) else
                     [[b.label[k] for b in data_batch] for k in range(len(self.label_arrays or []))])
        else:
            data, label = data_batch.data, getattr(data_batch, "label", None)
        self._load(data, self.data_arrays, self.data_layouts)
        if self.label_arrays is not None and label:
            self._load(label, self.label_arrays, self.label_layouts)
        for e in self.execs:
            e.forward(is_train=is_train)

    def _merge(self, per_ctx, axes):
        out = []
        for arrays, axis in zip(per_ctx, axes):
            if len(arrays) == 1 or axis < 0:
                out.append(arrays[0])
                continue
            first = arrays[0]
            out.append(nd.array(np.concatenate([a.asnumpy() for a in arrays], axis=axis), ctx=first.context,
                                dtype=first.dtype))
        return out

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs [begin, end): per output the list of per-context arrays, or with
        merge_multi_context one array joined along the output's batch axis."""
        end = self.num_outputs if end is None else end
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        return self._merge(outputs, self.output_layouts[begin:end]) if merge_multi_context else outputs

    def get_output_shapes(self):
        """[(output name, shape of the merged output)]."""
        shapes = []
        for i, (name, axis) in enumerate(zip(self.output_names, self.output_layouts)):
            shape = list(self.execs[0].outputs[i].shape)
            if axis >= 0 and len(self.execs) > 1:
                shape[axis] = sum(e.outputs[i].shape[axis] for e in self.execs)
            shapes.append((name, tuple(shape)))
        return shapes

    def get_input_grads(self, merge_multi_context=True):
        assert self.inputs_need_grad, "bind with inputs_need_grad=True for input gradients"
        if merge_multi_context:
            return self._merge(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def get_states(self, merge_multi_context=True):
        assert not merge_multi_context, "merge_multi_context=True is not supported for get_states"
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """States from per-state lists of per-context arrays, or every state set to `value`."""
        if states is not None:
            assert value is None, "give states or value, not both"
            for per_ctx, dsts in zip(states, self.state_arrays):
                for src, dst in zip(per_ctx, dsts):
                    dst[:] = src
        else:
            assert value is not None, "give states or value"
            for dsts in self.state_arrays:
                for dst in dsts:
                    dst[:] = value

    def backward(self, out_grads=None):
        """Backward on every context; head gradients are cut along the outputs' batch axes."""
        assert self.for_training, "bind with for_training=True to run backward"
        if out_grads is None or len(self.execs) == 1:
            for e in self.execs:
                e.backward(out_grads)
            return
        if isinstance(out_grads, nd.NDArray):
            out_grads = [out_grads]
        whole = [_as_numpy(g) for g in out_grads]
        for i, e in enumerate(self.execs):
            heads = [nd.array(_cut(g, axis, self.slices[i]) if axis >= 0 else g, ctx=self.contexts[i],
                              dtype=g.dtype) for g, axis in zip(whole, self.output_layouts)]
            e.backward(heads)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """The metric over each context's outputs and its slice of the labels."""
        for i, e in enumerate(self.execs):
            if pre_sliced:
                part = labels[i]
            else:
                part = [nd.array(_cut(_as_numpy(l), axis, self.slices[i])) if axis >= 0 and len(self.execs) > 1
                        else l for l, axis in zip(labels, self.label_layouts or [0] * len(labels))]
            eval_metric.update_dict(dict(zip(self.label_names or [], part)), dict(zip(self.output_names, e.outputs)))

    def install_monitor(self, mon):
        for e in self.execs:
            mon.install(e)
