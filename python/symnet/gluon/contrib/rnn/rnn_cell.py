"""Contributed recurrent cells, as MXNet 1.9.1's gluon.contrib.rnn: VariationalDropoutCell (one
dropout mask for every step of a sequence) and LSTMPCell (an LSTM whose recurrent state is a
projection of its hidden state)."""
from ...rnn.rnn_cell import (BidirectionalCell, HybridRecurrentCell, ModifierCell,
                             SequentialRNNCell, _TENSORS, _format_sequence, _get_begin_state,
                             _mask_sequence_variable_length)

__all__ = ["VariationalDropoutCell", "LSTMPCell"]


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal and Ghahramani, 2016) around base_cell: the inputs, the first
    state and the outputs each get a dropout mask drawn at the first step and kept for every
    later step until reset() (unroll resets); the three masks are independent.

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell whose inputs, state and outputs are dropped.
    drop_inputs, drop_states, drop_outputs : float
        The dropout rates (0: no dropout there). State dropout needs a cell that can be
        stepped, so not a BidirectionalCell nor a stack holding one.
    """

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        if drop_states and _has_bidirectional(base_cell):
            raise ValueError("VariationalDropoutCell: state dropout cannot wrap a bidirectional "
                             "cell; wrap the cells inside it instead")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def __repr__(self):
        return "%s(p_out = %s, p_state = %s)" % (self.__class__.__name__, self.drop_outputs,
                                                 self.drop_states)

    def hybrid_forward(self, F, inputs, states):
        # masks are dropout applied to ones: the kept entries are scaled by 1 / (1 - p), and
        # outside training Dropout passes the ones through unchanged
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = F.Dropout(F.ones_like(states[0]), p=self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = F.Dropout(F.ones_like(inputs), p=self.drop_inputs)
        if self.drop_states:
            states = list(states)
            states[0] = states[0] * self.drop_states_mask
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs and self.drop_outputs_mask is None:
            self.drop_outputs_mask = F.Dropout(F.ones_like(output), p=self.drop_outputs)
        if self.drop_outputs:
            output = output * self.drop_outputs_mask
        return output, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """As RecurrentCell.unroll. Without state dropout the whole sequence goes through
        base_cell.unroll at once, the input and output masks shared along the time axis."""
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs,
                                  valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs, states, layout,
                                                    merge_outputs=True, valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, states


def _has_bidirectional(cell):
    if isinstance(cell, BidirectionalCell):
        return True
    if isinstance(cell, SequentialRNNCell):
        return any(_has_bidirectional(c) for c in cell._children.values())
    return False


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a projected recurrent state (Sak et al., 2014): the gates (i, f, g, o, MXNet's
    order) read the input and the previous projection r; c' = f*c + i*g, h = o*tanh(c'), and
    the output and next recurrent state is r' = h2r_weight h (no bias).

    Parameters
    ----------
    hidden_size : int
        The size of the cell state c and of h.
    projection_size : int
        The size of the output r.
    i2h_weight_initializer, h2h_weight_initializer, h2r_weight_initializer,
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer
        The parameters' initializers.
    input_size : int
        The input's size; 0 takes it from the first input.
    prefix, params : as for any Block.

    States: [r, c], of shapes (batch, projection_size) and (batch, hidden_size).
    """

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        rows = 4 * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, projection_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstmp"

    def __repr__(self):
        shape, proj = self.i2h_weight.shape, self.h2r_weight.shape
        return "%s(%s -> %d -> %d)" % (self.__class__.__name__, shape[1] if shape[1] else None,
                                       shape[0], proj[0])

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias,
                       h2h_bias):
        prefix = "t%d_" % self._counter
        rows = 4 * self._hidden_size
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=rows,
                               name=prefix + "h2h")
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + "slice")
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        candidate = F.Activation(gates[2], act_type="tanh", name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * candidate, name=prefix + "state")
        hidden = F.elemwise_mul(out_gate, F.Activation(next_c, act_type="tanh"),
                                name=prefix + "hidden")
        next_r = F.FullyConnected(hidden, h2r_weight, num_hidden=self._projection_size,
                                  no_bias=True, name=prefix + "out")
        return next_r, [next_r, next_c]
