"""FusedRNNCell: all layers and steps of an RNN as one RNN node over one packed parameter
vector, in MXNet's (cuDNN's) layout: first every weight matrix, layer by layer, direction by
direction (l, then r), each direction's input weights gate by gate, then its recurrent weights;
then every bias in the same order (input biases, then recurrent biases)."""
import warnings

from .. import init, ndarray, symbol
from ._base import BaseRNNCell, _normalize_sequence


class FusedRNNCell(BaseRNNCell):
    """A multi-layer, optionally bidirectional RNN run by the fused RNN op. It can only be
    unrolled; unfuse() gives the equivalent stack of stepping cells, and unpack_weights /
    pack_weights translate between the packed vector and those cells' per-gate weights.

    Parameters
    ----------
    num_hidden : int
        The state size.
    num_layers : int
        The number of stacked layers.
    mode : str
        'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'.
    bidirectional : bool
        Whether each layer also runs backward in time (the output size doubles).
    dropout : float
        Dropout between layers, in training.
    get_next_state : bool
        Whether unroll returns the final states (else an empty list).
    forget_bias : float
        Initial value of an LSTM's forget gate biases (through mx.init.FusedRNN).
    prefix : str or None
        Prefix of the names; '<mode>_' when None.
    params : RNNParams or None
        Shared variables; the cell makes its own when None.
    """

    def __init__(self, num_hidden, num_layers=1, mode='lstm', bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        if prefix is None:
            prefix = '%s_' % mode
        super(FusedRNNCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ['l', 'r'] if bidirectional else ['l']
        initializer = init.FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get('parameters', init=initializer)

    @property
    def state_info(self):
        shape = ((self._bidirectional + 1) * self._num_layers, 0, self._num_hidden)
        return [{'shape': shape, '__layout__': 'LNC'} for _ in range(1 + (self._mode == 'lstm'))]

    @property
    def _gate_names(self):
        return {'rnn_relu': [''], 'rnn_tanh': [''], 'lstm': ['_i', '_f', '_c', '_o'],
                'gru': ['_r', '_z', '_o']}[self._mode]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _layout(self, num_input):
        """[(name, shape)] of the unpacked arrays in the order they lie in the packed vector."""
        h, b = self._num_hidden, len(self._directions)
        entries = []
        for layer in range(self._num_layers):
            cols = num_input if layer == 0 else b * h
            for d in self._directions:
                for group, width in (('i2h', cols), ('h2h', h)):
                    entries += [('%s%s%d_%s%s_weight' % (self._prefix, d, layer, group, gate), (h, width))
                                for gate in self._gate_names]
        for layer in range(self._num_layers):
            for d in self._directions:
                for group in ('i2h', 'h2h'):
                    entries += [('%s%s%d_%s%s_bias' % (self._prefix, d, layer, group, gate), (h,))
                                for gate in self._gate_names]
        return entries

    def _packed_size(self, num_input):
        h, b, m = self._num_hidden, len(self._directions), self._num_gates
        return b * m * h * (num_input + h + 2) + (self._num_layers - 1) * b * m * h * (b * h + h + 2)

    def unpack_weights(self, args):
        args = args.copy()
        arr = args.pop(self._parameter.name)
        h, b, m = self._num_hidden, len(self._directions), self._num_gates
        # layer 0 holds b*m*h*(num_input + h + 2) elements, every other layer b*m*h*(b*h + h + 2)
        num_input = arr.size // b // h // m - (self._num_layers - 1) * (h + b * h + 2) - h - 2
        assert num_input > 0 and self._packed_size(num_input) == arr.size, \
            "%s has %d elements, which fits no input size for this FusedRNNCell" \
            % (self._parameter.name, arr.size)
        flat = arr.reshape((arr.size,))
        p = 0
        for name, shape in self._layout(num_input):
            size = 1
            for dim in shape:
                size *= dim
            args[name] = flat[p:p + size].reshape(shape).copy()
            p += size
        return args

    def pack_weights(self, args):
        args = args.copy()
        first = args['%sl0_i2h%s_weight' % (self._prefix, self._gate_names[0])]
        parts = []
        for name, shape in self._layout(first.shape[1]):
            part = args.pop(name)
            assert tuple(part.shape) == shape, \
                "pack_weights: %s has shape %s, the packed layout needs %s" % (name, part.shape, shape)
            parts.append(part.reshape((-1,)).astype(first.dtype).as_in_context(first.context))
        args[self._parameter.name] = ndarray.concat(*parts, dim=0)
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for faster speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)  # the RNN op takes (T, N, C)
        else:
            assert axis == 0, "Unsupported layout %s" % layout
        if begin_state is None:
            begin_state = self.begin_state()
        states = {'state': begin_state[0]}
        if self._mode == 'lstm':
            states['state_cell'] = begin_state[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional,
                         p=self._dropout, state_outputs=self._get_next_state, mode=self._mode,
                         name=self._prefix + 'rnn', **states)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            n_states = 2 if self._mode == 'lstm' else 1
            states = [rnn[1 + i] for i in range(n_states)]
            for state in states:
                state._set_attr(__layout__='LNC')
            outputs = rnn[0]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The same network as a SequentialRNNCell of stepping cells (RNNCell, LSTMCell or GRUCell
        per layer and direction, named <prefix>l<layer>_ / <prefix>r<layer>_, with DropoutCells
        between layers when dropout > 0), for stepping or running without the fused op."""
        from ._cells import GRUCell, LSTMCell, RNNCell
        from ._stack import BidirectionalCell, DropoutCell, SequentialRNNCell
        makers = {'rnn_relu': lambda p: RNNCell(self._num_hidden, activation='relu', prefix=p),
                  'rnn_tanh': lambda p: RNNCell(self._num_hidden, activation='tanh', prefix=p),
                  'lstm': lambda p: LSTMCell(self._num_hidden, prefix=p),
                  'gru': lambda p: GRUCell(self._num_hidden, prefix=p)}
        make = makers[self._mode]
        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make('%sl%d_' % (self._prefix, i)),
                                            make('%sr%d_' % (self._prefix, i)),
                                            output_prefix='%sbi_l%d_' % (self._prefix, i)))
            else:
                stack.add(make('%sl%d_' % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix='%s_dropout%d_' % (self._prefix, i)))
        return stack
