"""The stepping cells of mx.rnn: RNNCell (Elman), LSTMCell and GRUCell, each one step as
FullyConnected nodes on the input and on the state, named <prefix>t<step>_... as MXNet names them
(so list_outputs and get_internals read the same)."""
from .. import symbol
from ._base import BaseRNNCell
from ._lstm_bias import LSTMBias


def _hidden_state(num_hidden):
    return {'shape': (0, num_hidden), '__layout__': 'NC'}


class RNNCell(BaseRNNCell):
    """Elman cell: out = activation(W_i x + b_i + W_h h + b_h).

    Parameters
    ----------
    num_hidden : int
        The output (and state) size.
    activation : str or callable
        'tanh', 'relu', ... (an Activation node), or a function of a symbol.
    prefix : str
        Prefix of the node names (and of the weights when params is None).
    params : RNNParams or None
        Shared variables; the cell makes its own when None.
    """

    def __init__(self, num_hidden, activation='tanh', prefix='rnn_', params=None):
        super(RNNCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias')
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [_hidden_state(self._num_hidden)]

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden, name='%si2h' % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden, name='%sh2h' % name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class LSTMCell(BaseRNNCell):
    """LSTM cell with the gates in MXNet's order i, f, c, o in the packed weights; states [h, c].

    Parameters
    ----------
    num_hidden : int
        The output (and state) size.
    prefix : str
        Prefix of the node names (and of the weights when params is None).
    params : RNNParams or None
        Shared variables; the cell makes its own when None.
    forget_bias : float
        Initial value of the forget gate's i2h biases (through the LSTMBias initializer).
    """

    def __init__(self, num_hidden, prefix='lstm_', params=None, forget_bias=1.0):
        super(LSTMCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._hW = self.params.get('h2h_weight')
        self._iB = self.params.get('i2h_bias', init=LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [_hidden_state(self._num_hidden), _hidden_state(self._num_hidden)]

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden * 4, name='%si2h' % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden * 4, name='%sh2h' % name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name='%sslice' % name)
        in_gate = symbol.Activation(gates[0], act_type='sigmoid', name='%si' % name)
        forget_gate = symbol.Activation(gates[1], act_type='sigmoid', name='%sf' % name)
        candidate = symbol.Activation(gates[2], act_type='tanh', name='%sc' % name)
        out_gate = symbol.Activation(gates[3], act_type='sigmoid', name='%so' % name)
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * candidate,
                                        name='%sstate' % name)
        next_h = symbol._internal._mul(out_gate, symbol.Activation(next_c, act_type='tanh'),
                                       name='%sout' % name)
        return next_h, [next_h, next_c]


class GRUCell(BaseRNNCell):
    """GRU cell in cuDNN's form (the reset gate scales W_h h + b_h, not h), gates r, z, o.

    Parameters
    ----------
    num_hidden : int
        The output (and state) size.
    prefix : str
        Prefix of the node names (and of the weights when params is None).
    params : RNNParams or None
        Shared variables; the cell makes its own when None.
    """

    def __init__(self, num_hidden, prefix='gru_', params=None):
        super(GRUCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias')
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [_hidden_state(self._num_hidden)]

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        # MXNet's GRU nodes carry an extra underscore (rnn_t0__i2h): kept for identical names
        name = '%st%d_' % (self._prefix, self._counter)
        prev_h = states[0]
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden * 3, name='%s_i2h' % name)
        h2h = symbol.FullyConnected(data=prev_h, weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden * 3, name='%s_h2h' % name)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name='%s_i2h_slice' % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name='%s_h2h_slice' % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type='sigmoid', name='%s_r_act' % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type='sigmoid', name='%s_z_act' % name)
        candidate = symbol.Activation(i2h + reset_gate * h2h, act_type='tanh', name='%s_h_act' % name)
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * prev_h,
                                        name='%sout' % name)
        return next_h, [next_h]
