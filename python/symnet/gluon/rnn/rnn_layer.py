"""Recurrent layers (MXNet 1.9.1's gluon.rnn.RNN, LSTM and GRU): a whole sequence through
stacked, optionally bidirectional, layers in one call of the fused RNN operator.

The parameters are MXNet's: l<k>_i2h_weight, l<k>_h2h_weight, l<k>_i2h_bias, l<k>_h2h_bias
for layer k (r<k>_... for the reverse direction), with MXNet's shapes, and save_parameters
writes them under MXNet's names (`_unfused.<k>.i2h_weight`, `_unfused.<k>.l_cell.i2h_weight`
when bidirectional), so files load both ways. Each call packs them into the fused op's
parameter vector in MXNet's order: every weight (layer by layer, direction by direction, i2h
then h2h), then every bias in the same order."""
import re

from ... import ndarray as nd
from ... import symbol as _sym
from ..block import HybridBlock
from . import rnn_cell
from .rnn_cell import _reverse_valid, _split, _symbolic_call

__all__ = ["GRU", "LSTM", "RNN"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
_LAYOUTS = {"TNC": "(sequence length, batch size, features)",
            "NTC": "(batch size, sequence length, features)"}


class _RNNLayer(HybridBlock):
    """What RNN, LSTM and GRU share."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan, dtype,
                 use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in _LAYOUTS:
            raise ValueError("invalid layout %r; must be 'TNC' %s or 'NTC' %s"
                             % (layout, _LAYOUTS["TNC"], _LAYOUTS["NTC"]))
        if (lstm_state_clip_min is None) != (lstm_state_clip_max is None):
            raise ValueError("state_clip_min and state_clip_max go together: give both or "
                             "neither")
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]
        # the fused op runs the plain cells; projection, state clipping and per-sequence
        # lengths are run step by step here (MXNet 1.9.1 runs them on GPUs only)
        self._unrolled = bool(self._projection_size or lstm_state_clip_min is not None
                              or use_sequence_length)
        self._graphs_by_length = {}
        self._unroll_length = None

        ng, ni, nh = self._gates, input_size, hidden_size
        nr = self._projection_size or nh
        for i in range(num_layers):
            for d in "lr"[:self._dir]:
                self._register_param("%s%d_i2h_weight" % (d, i), (ng * nh, ni),
                                     i2h_weight_initializer, dtype)
                self._register_param("%s%d_h2h_weight" % (d, i), (ng * nh, nr),
                                     h2h_weight_initializer, dtype)
                self._register_param("%s%d_i2h_bias" % (d, i), (ng * nh,),
                                     i2h_bias_initializer, dtype)
                self._register_param("%s%d_h2h_bias" % (d, i), (ng * nh,),
                                     h2h_bias_initializer, dtype)
                if self._projection_size:
                    self._register_param("%s%d_h2r_weight" % (d, i), (nr, nh),
                                         h2r_weight_initializer, dtype)
            ni = nr * self._dir

    def _register_param(self, name, shape, init, dtype):
        p = self.params.get(name, shape=shape, init=init, allow_deferred_init=True, dtype=dtype)
        setattr(self, name, p)
        return p

    def __repr__(self):
        s = "%s(%s -> %d, %s" % (self.__class__.__name__,
                                 self.l0_i2h_weight.shape[1] or None, self._hidden_size,
                                 self._layout)
        if self._num_layers != 1:
            s += ", num_layers=%d" % self._num_layers
        if self._dropout != 0:
            s += ", dropout=%s" % self._dropout
        if self._dir == 2:
            s += ", bidirectional"
        return s + ")"

    def _collect_params_with_prefix(self, prefix=""):
        # MXNet's save_parameters names: those of the stack of cells the layer stands for
        if prefix:
            prefix += "."
        pattern = re.compile(r"(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z")
        ret = {}
        for key, val in self._reg_params.items():
            d, layer, g, t = pattern.match(key).groups()
            if self._dir == 2:
                name = "_unfused.%s.%s_cell.%s_%s" % (layer, d, g, t)
            else:
                name = "_unfused.%s.%s_%s" % (layer, g, t)
            ret[prefix + name] = val
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def state_info(self, batch_size=0):
        raise NotImplementedError

    def _unfuse(self):
        """The same network as a HybridSequentialRNNCell of cells sharing this layer's
        parameters (BidirectionalCell per layer when bidirectional, DropoutCell between layers
        when dropout > 0)."""
        if self._unrolled and not self._use_sequence_length:
            raise NotImplementedError("_unfuse: no cell computes projection or state clipping")
        hidden = self._hidden_size
        make = {"rnn_relu": lambda **kw: rnn_cell.RNNCell(hidden, activation="relu", **kw),
                "rnn_tanh": lambda **kw: rnn_cell.RNNCell(hidden, activation="tanh", **kw),
                "lstm": lambda **kw: rnn_cell.LSTMCell(hidden, **kw),
                "gru": lambda **kw: rnn_cell.GRUCell(hidden, **kw)}[self._mode]
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                kw = {"input_size": ni,
                      "i2h_weight_initializer": self._i2h_weight_initializer,
                      "h2h_weight_initializer": self._h2h_weight_initializer,
                      "i2h_bias_initializer": self._i2h_bias_initializer,
                      "h2h_bias_initializer": self._h2h_bias_initializer}
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(make(prefix="l%d_" % i, **kw),
                                                         make(prefix="r%d_" % i, **kw)))
                else:
                    stack.add(make(prefix="l%d_" % i, **kw))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = hidden * self._dir
        return stack

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=nd.zeros, **kwargs):
        """The initial states: func(name=..., shape=(layers*directions, batch_size, size),
        dtype=..., **kwargs) for each (mx.nd.zeros by default; mx.sym.zeros or mx.sym.var
        for a symbolic graph, where a batch_size of 0 is filled in from the graph)."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info or {})
            info.update(kwargs)
            states.append(func(name="%sh0_%d" % (self.prefix, i), **info))
        return states

    def _check_input(self, inputs):
        if inputs.ndim != 3:
            raise ValueError("%s expects a 3-D input in layout %s %s, got shape %s"
                             % (self.name, self._layout, _LAYOUTS[self._layout],
                                tuple(inputs.shape)))

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        """inputs: (T, N, C) for layout 'TNC', (N, T, C) for 'NTC'. states: the initial states
        (a list, or one array for RNN and GRU; zeros when None). sequence_length: (N,) valid
        lengths, with use_sequence_length=True. Returns the output, and the final states too
        when states were given."""
        if kwargs:
            raise TypeError("%s got unexpected arguments %s" % (self.name, sorted(kwargs)))
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, nd.NDArray):
                self._check_input(inputs)
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=_sym.zeros)
        if isinstance(states, (nd.NDArray, _sym.Symbol)):
            states = [states]
        states = list(states)
        if self._use_sequence_length:
            if sequence_length is None:
                raise ValueError("%s was made with use_sequence_length=True: pass "
                                 "sequence_length, the (batch,) valid lengths" % self.name)
            out = super().__call__(inputs, states, sequence_length)
        else:
            if sequence_length is not None:
                raise ValueError("%s: sequence_length needs use_sequence_length=True" % self.name)
            out = super().__call__(inputs, states)
        # the graph always returns the states, so that a hybridized layer serves both kinds of
        # call from one trace
        return out[0] if self.skip_states else (out[0], list(out[1]))

    def forward(self, inputs, states, *rest):
        if isinstance(inputs, _sym.Symbol):
            if self._unrolled:
                raise ValueError(
                    "%s with projection_size, state clipping or use_sequence_length runs step "
                    "by step and needs the sequence length, which a symbolic graph does not "
                    "give: call it on NDArrays (hybridizing the layer itself is fine)"
                    % self.name)
            return _symbolic_call(self, inputs, states, *rest)
        if not isinstance(inputs, nd.NDArray):
            raise TypeError("%s: inputs must be an NDArray or a Symbol, not %s"
                            % (self.name, type(inputs).__name__))
        self._check_input(inputs)
        batch_size = inputs.shape[self._layout.find("N")]
        info = self.state_info(batch_size)
        if len(states) != len(info):
            raise ValueError("%s takes %d state arrays, got %d"
                             % (self.name, len(info), len(states)))
        for state, want in zip(states, info):
            if tuple(state.shape) != want["shape"]:
                raise ValueError("Invalid recurrent state shape. Expecting %s, got %s."
                                 % (want["shape"], tuple(state.shape)))
        # complete a deferred input size from the inputs before any trace
        self._finish_deferred(inputs, states, *rest)
        return super().forward(inputs, states, *rest)

    def infer_shape(self, inputs, *args):
        """Completes the first layer's input size from inputs."""
        if inputs.ndim != 3:
            self._check_input(inputs)
        for d in "lr"[:self._dir]:
            p = self._reg_params["%s0_i2h_weight" % d]
            p.shape = (p.shape[0], inputs.shape[2])

    def _clear_cached(self):
        super()._clear_cached()
        graphs = self.__dict__.get("_graphs_by_length")
        if graphs:
            graphs.clear()

    def _call_cached(self, *args):
        if not self._unrolled:
            return super()._call_cached(*args)
        # a step-by-step graph depends on the sequence length: one graph per length
        length = args[0].shape[self._layout.find("T")]
        self._cached = self._graphs_by_length.get(length)
        self._unroll_length = length
        try:
            return super()._call_cached(*args)
        finally:
            self._graphs_by_length[length] = self._cached
            self._unroll_length = None

    def _params_in_order(self, kwargs):
        names = ["%s%d_%s_%s" % (d, layer, g, t)
                 for t in ("weight", "bias")
                 for layer in range(self._num_layers)
                 for d in "lr"[:self._dir]
                 for g in ("i2h", "h2h")]
        return [kwargs[n] for n in names]

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        if self._unrolled:
            outputs, states = self._forward_unrolled(F, inputs, states, sequence_length, kwargs)
        else:
            outputs, states = self._forward_fused(F, inputs, states, kwargs)
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states

    def _forward_fused(self, F, inputs, states, kwargs):
        packed = F.concat(*[p.reshape(-1) for p in self._params_in_order(kwargs)], dim=0)
        if F is _sym and self.l0_i2h_weight.shape[1] == 0:
            # Traced inside a parent before the input size is known: the packed vector cannot
            # tell the first layer's weight shapes, a FullyConnected on one step can. It adds
            # exactly zero (its gradient is blocked), and is traced only in this case.
            first = F.slice_axis(inputs, axis=0, begin=0, end=1)
            for d in "lr"[:self._dir]:
                probe = F.FullyConnected(first, kwargs["%s0_i2h_weight" % d], no_bias=True,
                                         num_hidden=self._gates * self._hidden_size,
                                         flatten=False)
                packed = F.broadcast_add(packed, F.zeros_like(F.sum(F.BlockGrad(probe))))
        out = F.RNN(inputs, packed, *states, state_size=self._hidden_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2, p=self._dropout,
                    state_outputs=True, mode=self._mode)
        if self._mode == "lstm":
            return out[0], [out[1], out[2]]
        return out[0], [out[1]]

    def _step(self, F, x, h, c, w):
        """One step of one direction of one layer: (output, h, c)."""
        nh, mode = self._hidden_size, self._mode
        rows = self._gates * nh
        i2h = F.FullyConnected(x, w["i2h_weight"], w["i2h_bias"], num_hidden=rows)
        h2h = F.FullyConnected(h, w["h2h_weight"], w["h2h_bias"], num_hidden=rows)
        if mode in ("rnn_relu", "rnn_tanh"):
            h = F.relu(i2h + h2h) if mode == "rnn_relu" else F.tanh(i2h + h2h)
            return h, h, None
        if mode == "gru":
            x_r, x_z, x_n = F.SliceChannel(i2h, num_outputs=3, axis=1)
            h_r, h_z, h_n = F.SliceChannel(h2h, num_outputs=3, axis=1)
            reset, update = F.sigmoid(x_r + h_r), F.sigmoid(x_z + h_z)
            new = F.tanh(x_n + reset * h_n)
            h = (1 - update) * new + update * h
            return h, h, None
        i, f, g, o = F.SliceChannel(i2h + h2h, num_outputs=4, axis=1)
        c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
        if self._lstm_state_clip_min is not None:
            lo, hi = self._lstm_state_clip_min, self._lstm_state_clip_max
            if self._lstm_state_clip_nan:
                c = F.where(c == c, c, F.zeros_like(c) + lo)
            c = F.clip(c, lo, hi)
        h = F.sigmoid(o) * F.tanh(c)
        if self._projection_size:
            h = F.FullyConnected(h, w["h2r_weight"], no_bias=True,
                                 num_hidden=self._projection_size)
        return h, h, c

    def _forward_unrolled(self, F, inputs, states, sequence_length, kwargs):
        """The layers step by step (projection, state clipping, per-sequence lengths): cuDNN's
        semantics, as MXNet 1.9.1 has them on GPUs."""
        length = inputs.shape[0] if F is nd else self._unroll_length
        if length is None:
            raise ValueError("%s: the sequence length is unknown" % self.name)
        lstm = self._mode == "lstm"
        lengths = None
        if sequence_length is not None:
            lengths = F.cast(sequence_length, dtype=self._dtype)
        n_states = self._num_layers * self._dir
        h0 = _split(F, states[0], 0, n_states)
        c0 = _split(F, states[1], 0, n_states) if lstm else [None] * n_states
        layer_in = _split(F, inputs, 0, length)
        final_h, final_c = [], []
        for layer in range(self._num_layers):
            per_dir = []
            for k, d in enumerate("lr"[:self._dir]):
                w = {key: kwargs["%s%d_%s" % (d, layer, key)]
                     for key in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias",
                                 "h2r_weight") if "%s%d_%s" % (d, layer, key) in kwargs}
                steps = layer_in
                if k == 1:
                    steps = (list(reversed(steps)) if lengths is None else
                             _split(F, _reverse_valid(F, F.stack(*steps, axis=0), lengths,
                                                      length), 0, length))
                h, c = h0[layer * self._dir + k], c0[layer * self._dir + k]
                outs = []
                for t in range(length):
                    out, h_new, c_new = self._step(F, steps[t], h, c, w)
                    if lengths is None:
                        h, c = h_new, c_new
                    else:
                        # past a sequence's end its states stay those of its last step
                        valid = F.reshape(lengths > t, shape=(-1, 1))
                        h = F.where(F.broadcast_like(valid, h_new), h_new, h)
                        if lstm:
                            c = F.where(F.broadcast_like(valid, c_new), c_new, c)
                    outs.append(out)
                if k == 1:
                    outs = (list(reversed(outs)) if lengths is None else
                            _split(F, _reverse_valid(F, F.stack(*outs, axis=0), lengths,
                                                     length), 0, length))
                per_dir.append(outs)
                final_h.append(h)
                final_c.append(c)
            layer_in = (per_dir[0] if self._dir == 1 else
                        [F.concat(a, b, dim=1) for a, b in zip(*per_dir)])
            if self._dropout and layer != self._num_layers - 1:
                layer_in = [F.Dropout(x, p=self._dropout) for x in layer_in]
        outputs = F.stack(*layer_in, axis=0)
        if lengths is not None:
            outputs = F.SequenceMask(outputs, sequence_length=lengths, use_sequence_length=True,
                                     axis=0)
        new_states = [F.stack(*final_h, axis=0)]
        if lstm:
            new_states.append(F.stack(*final_c, axis=0))
        return outputs, new_states


_COMMON_DOC = """
    num_layers: stacked layers (default 1). layout: 'TNC' (default; (sequence length, batch,
    features)) or 'NTC' (batch first). dropout: applied to each layer's output except the
    last's, in training mode. bidirectional: a forward and a backward direction per layer,
    outputs concatenated. input_size: the input features, 0 to take them from the first input.
    i2h/h2h_weight_initializer, i2h/h2h_bias_initializer: the parameters' initializers (the
    weights' default is the one given to initialize()). dtype: of the parameters and of the
    default states. use_sequence_length: the call takes sequence_length, (batch,) valid
    lengths: outputs past a sequence's end are zero and its final states are those at its
    end; the backward direction starts at its last valid step.

    Call: layer(inputs, states=None, sequence_length=None). Without states the initial states
    are zeros and only the output is returned; with states, (output, final states). The output
    is (T, N, directions*hidden) in layout TNC, states are (layers*directions, N, hidden)."""


class RNN(_RNNLayer):
    """Elman RNN layers: h_t = activation(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh).

    hidden_size: features of the hidden state. activation: 'relu' (default) or 'tanh'.
    States: [h]."""

    __doc__ += _COMMON_DOC

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0,
                 bidirectional=False, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32", use_sequence_length=False, **kwargs):
        if activation not in ("relu", "tanh"):
            raise ValueError("RNN: activation must be 'relu' or 'tanh', not %r" % (activation,))
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "rnn_" + activation, None, None, None, None,
                         False, dtype, use_sequence_length=use_sequence_length, **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]


class LSTM(_RNNLayer):
    """LSTM layers, gates in MXNet's order (input, forget, cell, output):
    c_t = f*c_(t-1) + i*g, h_t = o*tanh(c_t).

    hidden_size: features of the cell state. projection_size: when set, LSTMP: h_t is
    projected to this size by l<k>_h2r_weight (no bias) and the recurrent weights read the
    projection. state_clip_min / state_clip_max: clip the cell state after each step;
    state_clip_nan: then a NaN cell state becomes state_clip_min. States: [h, c]."""

    __doc__ += _COMMON_DOC

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 projection_size=None, h2r_weight_initializer=None, state_clip_min=None,
                 state_clip_max=None, state_clip_nan=False, dtype="float32",
                 use_sequence_length=False, **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "lstm", projection_size, h2r_weight_initializer,
                         state_clip_min, state_clip_max, state_clip_nan, dtype,
                         use_sequence_length=use_sequence_length, **kwargs)

    def state_info(self, batch_size=0):
        h_size = self._projection_size or self._hidden_size
        return [{"shape": (self._num_layers * self._dir, batch_size, h_size),
                 "__layout__": "LNC", "dtype": self._dtype},
                {"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]


class GRU(_RNNLayer):
    """GRU layers (cuDNN's and MXNet's variant: the reset gate multiplies the recurrent
    projection after its bias): r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z),
    n = tanh(x_n + r*h_n), h_t = (1 - z)*n + z*h_(t-1).

    hidden_size: features of the hidden state. States: [h]."""

    __doc__ += _COMMON_DOC

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", dtype="float32",
                 use_sequence_length=False, **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "gru", None, None, None, None, False, dtype,
                         use_sequence_length=use_sequence_length, **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]
