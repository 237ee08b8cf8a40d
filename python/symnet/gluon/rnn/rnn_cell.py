"""Recurrent cells (MXNet 1.9.1's gluon.rnn cells): one time step per call, `unroll` over a
sequence, stacks, modifiers (dropout, zoneout, residual) and a bidirectional pair.

Gate order and math are MXNet's: an LSTM's i2h/h2h rows are the input, forget, cell and
output gates; a GRU's are the reset, update and new gates, the reset gate multiplying the
recurrent projection *after* its bias (cuDNN's GRU, as MXNet's fused op)."""
import weakref

from ... import ndarray as nd
from ... import symbol as _sym
from ..block import Block, HybridBlock
from ..nn import LeakyReLU

__all__ = ["BidirectionalCell", "DropoutCell", "GRUCell", "HybridRecurrentCell",
           "HybridSequentialRNNCell", "LSTMCell", "ModifierCell", "RNNCell", "RecurrentCell",
           "ResidualCell", "SequentialRNNCell", "ZoneoutCell"]

_TENSORS = (nd.NDArray, _sym.Symbol)

# One symbol variable per parameter, so that a cell stepped T times inside a traced graph reads
# one graph input (and sums its T gradients) instead of T inputs of the same name.
_PARAM_VARS = weakref.WeakKeyDictionary()


def _param_var(param):
    key = (param.shape, param.dtype)
    hit = _PARAM_VARS.get(param)
    if hit is None or hit[0] != key:
        hit = (key, param.var())
        _PARAM_VARS[param] = hit
    return hit[1]


def _symbolic_call(block, x, *args):
    """Runs block.hybrid_forward on symbols with the block's shared parameter variables."""
    params = {k: _param_var(v) for k, v in block._reg_params.items()}
    with block.name_scope():
        return block.hybrid_forward(_sym, x, *args, **params)


def _split(F, x, axis, num):
    """x split into `num` pieces along axis, that axis dropped: always a list."""
    out = F.split(x, axis=axis, num_outputs=num, squeeze_axis=True)
    if num == 1:
        return [out if F is nd else out[0]]
    return list(out) if F is nd else [out[i] for i in range(num)]


def _indent(text, spaces):
    return text.replace("\n", "\n" + " " * spaces)


def _cells_state_info(cells, batch_size):
    return sum([c.state_info(batch_size) for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def _zeros_batched_like(like, like_axis):
    """A begin_state func for symbols: zeros whose batch dim is like's dim like_axis (the input
    gives the batch size, as MXNet's shape inference of a 0 batch dim would)."""

    def func(name=None, shape=None, **kwargs):
        layout = kwargs.pop("__layout__", "NC") or "NC"
        axis = layout.find("N")
        if shape is None or axis < 0 or axis >= len(shape) or shape[axis] != 0:
            return _sym.zeros(name=name, shape=shape, **kwargs)
        one = tuple(1 if i == axis else d for i, d in enumerate(shape))
        return _sym.broadcast_like(_sym.zeros(shape=one, **kwargs), like, lhs_axes=(axis,),
                                   rhs_axes=(like_axis,), name=name)

    return func


def _get_begin_state(cell, F, begin_state, inputs, batch_size, batch_axis=0):
    """begin_state, or zeros from cell.begin_state: NDArrays on the inputs' context and of their
    dtype, or symbols taking their batch size from the inputs (a list of steps, or one tensor
    whose batch axis is batch_axis)."""
    if begin_state is not None:
        return begin_state
    tensor = isinstance(inputs, _TENSORS)
    first = inputs if tensor else inputs[0]
    if F is nd:
        with first.context:
            return cell.begin_state(func=nd.zeros, batch_size=batch_size, dtype=first.dtype)
    func = _zeros_batched_like(first, batch_axis if tensor else 0)
    return cell.begin_state(func=func, batch_size=batch_size)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """inputs (one tensor in `in_layout`, or a list of per-step (N, ...) tensors) as a list of
    steps (merge False), one tensor in `layout` (merge True) or as they are (merge None).
    Returns (inputs, time axis, F, batch size or 0 when unknown)."""
    if inputs is None:
        raise ValueError("unroll needs inputs (a tensor or a list of per-step tensors); "
                         "inputs=None is not supported")
    axis = layout.find("T")
    batch_axis = layout.find("N")
    if axis < 0 or batch_axis < 0:
        raise ValueError("layout %r must name a time axis 'T' and a batch axis 'N' (e.g. 'NTC' "
                         "or 'TNC')" % (layout,))
    batch_size = 0
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, _sym.Symbol):
        F = _sym
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise ValueError("unroll takes one symbol (or a list of them), not a grouped "
                                 "symbol; pass list(inputs) instead")
            if length is None:
                raise ValueError("unroll of a symbol needs the sequence length")
            inputs = _split(F, inputs, in_axis, length)
    elif isinstance(inputs, nd.NDArray):
        F = nd
        if inputs.ndim < 2:
            raise ValueError("unroll: inputs of shape %s have no time and batch axes (layout %s "
                             "expects at least 2 dims)" % (inputs.shape, layout))
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            steps = inputs.shape[in_axis]
            if length is not None and length != steps:
                raise ValueError("unroll(length=%d): the inputs hold %d steps along axis %d "
                                 "(layout %s)" % (length, steps, in_axis, layout))
            inputs = _split(F, inputs, in_axis, steps)
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise ValueError("unroll(length=%d) got a list of %d steps" % (length, len(inputs)))
        if isinstance(inputs[0], _sym.Symbol):
            F = _sym
        else:
            F = nd
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, _TENSORS) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """Zeroes the steps at and after each sequence's valid length."""
    if not isinstance(data, _TENSORS):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                             axis=time_axis)
    if not merge:
        outputs = _split(F, outputs, time_axis, length)
    return outputs


def _reverse_valid(F, stacked, valid_length, length):
    """stacked (T, N, ...) with each sequence's first valid_length[n] steps reversed and its
    padding left in place (MXNet's SequenceReverse with use_sequence_length)."""
    flat = F.reshape(stacked, shape=(0, 0, -1))
    steps = _split(F, flat, 0, length)
    lengths = F.reshape(valid_length, shape=(-1, 1))
    out = []
    for t in range(length):
        source = lengths - (t + 1)
        source = F.where(source >= 0, source, F.zeros_like(source) + t)
        out.append(F.pick(flat, F.broadcast_like(source, steps[t]), axis=0))
    return F.reshape_like(F.stack(*out, axis=0), stacked)


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    """A list of steps reversed in time (within each valid length when one is given)."""
    if valid_length is None:
        return list(reversed(sequences))
    F = _sym if isinstance(sequences[0], _sym.Symbol) else nd
    stacked = F.stack(*sequences, axis=0)
    return _split(F, _reverse_valid(F, stacked, valid_length, unroll_step), 0, unroll_step)


class RecurrentCell(Block):
    """Base class of the recurrent cells: `cell(inputs, states)` runs one step and returns
    (output, new states); `unroll` runs a sequence.

    prefix / params: as for any Block (params shares another cell's parameters)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Resets the step counters before the cell is used for another sequence."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        """A dict per state: its `shape` and `__layout__`."""
        raise NotImplementedError()

    def _check_unmodified(self):
        if self._modified:
            raise RuntimeError("cell %s is wrapped by a modifier cell (e.g. ZoneoutCell): call "
                               "the modifier cell instead" % self.name)

    def begin_state(self, batch_size=0, func=nd.zeros, **kwargs):
        """The initial states: func(name=..., shape=..., **kwargs) per state (mx.nd.zeros by
        default; mx.sym.zeros or mx.sym.var for a symbolic graph, where a batch_size of 0
        is filled in from the graph)."""
        self._check_unmodified()
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {})
            info.update(kwargs)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter),
                               **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Runs the cell over `length` steps.

        inputs: one tensor in `layout` ('NTC' or 'TNC') or a list of `length` (N, C) tensors.
        begin_state: the initial states (zeros when None). merge_outputs: True for one tensor
        in `layout`, False for a list of steps, None for whichever the inputs were.
        valid_length: (N,) lengths; the outputs past each are zero and the states returned are
        those at the last valid step. Returns (outputs, states)."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*per_step, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for per_step in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """activation: a name ('tanh', 'relu', 'sigmoid', 'softsign' or any Activation
        act_type), a LeakyReLU block or a callable."""
        func = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid,
                "softsign": F.softsign}.get(activation) if isinstance(activation, str) else None
        if func is not None:
            return func(inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """One step: (output, new states)."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell written as hybrid_forward(F, inputs, states, **params): it can be
    hybridized, and stepped inside a hybridized parent's graph."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def forward(self, inputs, states):
        self._counter += 1
        if isinstance(inputs, _sym.Symbol):
            return _symbolic_call(self, inputs, states)
        return HybridBlock.forward(self, inputs, states)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    """i2h_weight (gates*hidden, input), h2h_weight (gates*hidden, hidden) and their biases."""

    _gates = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _step_prefix(self):
        """The names of a step's nodes, as MXNet's: 't<step>_' (under the cell's prefix), so that
        an unrolled graph's outputs read rnn_t0_out_output, rnn_t1_out_output, ..."""
        return "t%d_" % self._counter

    def _projections(self, F, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        rows = self._gates * self._hidden_size
        prefix = self._step_prefix()
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(h, h2h_weight, h2h_bias, num_hidden=rows, name=prefix + "h2h")
        return i2h, h2h

    def __repr__(self):
        shape = self.i2h_weight.shape
        mapping = "%s -> %d" % (shape[1] if shape[1] else None, shape[0])
        extra = ", %s" % self._activation if isinstance(self, RNNCell) else ""
        return "%s(%s%s)" % (self.__class__.__name__, mapping, extra)


class RNNCell(_GatedCell):
    """Elman cell: h' = activation(i2h_weight x + i2h_bias + h2h_weight h + h2h_bias).

    activation: 'tanh' (default), 'relu', another Activation act_type, a LeakyReLU block or a
    callable. input_size 0: taken from the first input. States: [h], (batch, hidden)."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        self._activation = activation
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = self._step_prefix()
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                     h2h_bias)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"),
                                      self._activation, name=prefix + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """LSTM cell, gates in MXNet's order i, f, c, o:
    i, f, o = recurrent_activation(...), g = activation(...), c' = f*c + i*g,
    h' = o*activation(c'). States: [h, c], each (batch, hidden)."""

    _gates = 4

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = self._step_prefix()
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                     h2h_bias)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + "plus0"), num_outputs=4,
                               axis=1, name=prefix + "slice")
        rec = self._recurrent_activation
        in_gate = self._get_activation(F, gates[0], rec, name=prefix + "i")
        forget_gate = self._get_activation(F, gates[1], rec, name=prefix + "f")
        candidate = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, gates[3], rec, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, candidate, name=prefix + "mul1"),
                                name=prefix + "state")
        # MXNet calls Activation(act_type=activation) here, which takes names only; this also
        # takes a LeakyReLU block or a callable, as the gates do
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation,
                                                                name=prefix + "activation0"),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU cell (cuDNN's and MXNet's variant), gates r, z, n:
    r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z), n = tanh(x_n + r*h_n),
    h' = (1 - z)*n + z*h, where x_* = i2h rows plus i2h_bias and h_* = h2h rows plus h2h_bias.
    States: [h], (batch, hidden)."""

    _gates = 3

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = self._step_prefix()
        prev_h = states[0]
        i2h, h2h = self._projections(F, inputs, prev_h, i2h_weight, h2h_weight, i2h_bias,
                                     h2h_bias)
        x_r, x_z, x_n = F.SliceChannel(i2h, num_outputs=3, axis=1, name=prefix + "i2h_slice")
        h_r, h_z, h_n = F.SliceChannel(h2h, num_outputs=3, axis=1, name=prefix + "h2h_slice")
        reset = F.Activation(F.elemwise_add(x_r, h_r, name=prefix + "plus0"), act_type="sigmoid",
                             name=prefix + "r_act")
        update = F.Activation(F.elemwise_add(x_z, h_z, name=prefix + "plus1"), act_type="sigmoid",
                              name=prefix + "z_act")
        new = F.Activation(F.elemwise_add(x_n, F.elemwise_mul(reset, h_n, name=prefix + "mul0"),
                                          name=prefix + "plus2"),
                           act_type="tanh", name=prefix + "h_act")
        ones = F.ones_like(update, name=prefix + "ones_like0")
        next_h = F.elemwise_add(
            F.elemwise_mul(F.elemwise_sub(ones, update, name=prefix + "minus0"), new,
                           name=prefix + "mul1"),
            F.elemwise_mul(update, prev_h, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


class _SequentialMixin:
    """What SequentialRNNCell and HybridSequentialRNNCell share."""

    def __repr__(self):
        body = "\n".join("(%s): %s" % (i, _indent(repr(m), 2))
                         for i, m in self._children.items())
        return "%s(\n%s\n)" % (self.__class__.__name__, body)

    def add(self, cell):
        """Appends a cell to the stack."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        self._check_unmodified()
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        pos = 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise NotImplementedError("a stack holding a BidirectionalCell cannot be "
                                          "stepped; use unroll")
            n = len(cell.state_info())
            inputs, state = cell(inputs, states[pos:pos + n])
            pos += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size,
                                       layout.find("N"))
        cells = list(self._children.values())
        pos = 0
        next_states = []
        for i, cell in enumerate(cells):
            n = len(cell.state_info())
            inputs, states = cell.unroll(length, inputs=inputs,
                                         begin_state=begin_state[pos:pos + n], layout=layout,
                                         merge_outputs=None if i < len(cells) - 1
                                         else merge_outputs,
                                         valid_length=valid_length)
            pos += n
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_SequentialMixin, RecurrentCell):
    """A stack of cells run one after the other; the states are the cells' states in order."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)


class HybridSequentialRNNCell(_SequentialMixin, HybridRecurrentCell):
    """A stack of hybrid cells run one after the other (each child hybridizes by itself)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs (in training mode), states passed through.

    rate: the fraction dropped. axes: the axes the mask is shared along."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, (int, float)):
            raise TypeError("DropoutCell: rate must be a number, not %s" % type(rate).__name__)
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return "%s(rate=%s, axes=%s)" % (self.__class__.__name__, self._rate, self._axes)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            kw = {"axes": self._axes} if self._axes else {}
            inputs = F.Dropout(inputs, p=self._rate, name="t%d_fwd" % self._counter, **kw)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, _TENSORS):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Base class of the cells that wrap another (base_cell) and change what it computes. The
    wrapped cell is then used through the modifier only; its parameters are the modifier's."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise RuntimeError("cell %s is already modified; a cell can be modified only once"
                               % base_cell.name)
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=nd.zeros, **kwargs):
        self._check_unmodified()
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return "%s(%s)" % (self.__class__.__name__, self.base_cell)


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al., 2016): in training mode each output / state element keeps its
    previous value with probability zoneout_outputs / zoneout_states."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise ValueError("ZoneoutCell cannot wrap a BidirectionalCell (it cannot be "
                             "stepped); wrap the cells inside it instead")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return "%s(p_out=%s, p_state=%s, %s)" % (self.__class__.__name__, self.zoneout_outputs,
                                                 self.zoneout_states, self.base_cell)

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        p_out, p_state = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):  # nonzero where the new value is taken (all of it when predicting)
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output
        if prev_output is None:
            prev_output = F.zeros_like(next_output)
        output = (F.where(keep_new(p_out, next_output), next_output, prev_output)
                  if p_out != 0.0 else next_output)
        if p_state != 0.0:
            next_states = [F.where(keep_new(p_state, new), new, old)
                           for new, old in zip(next_states, states)]
        self._prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (Wu et al., 2016): output = cell(x) + x."""

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name="t%d_fwd" % self._counter), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs,
                                                    valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            return outputs + inputs, states
        return [o + i for o, i in zip(outputs, inputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Runs l_cell forward and r_cell backward in time over a sequence and concatenates their
    outputs (feature axis); states: l_cell's then r_cell's. Only `unroll` works (a single step
    has no backward direction)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("a BidirectionalCell cannot be stepped; use unroll")

    def __repr__(self):
        return "%s(forward=%s, backward=%s)" % (self.__class__.__name__,
                                                self._children["l_cell"],
                                                self._children["r_cell"])

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        self._check_unmodified()
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        n_left = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:n_left],
                                            layout=layout, merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=states[n_left:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, _TENSORS)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            r_outputs, _, _, _ = _format_sequence(None, r_outputs, layout, merge_outputs)
        if merge_outputs:
            if not isinstance(r_outputs, _TENSORS):
                r_outputs = F.stack(*r_outputs, axis=axis)
            outputs = F.concat(l_outputs, r_outputs, dim=2, name="%sout" % self._output_prefix)
        else:
            outputs = [F.concat(lo, ro, dim=1, name="%st%d" % (self._output_prefix, i))
                       for i, (lo, ro) in enumerate(zip(l_outputs, r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
