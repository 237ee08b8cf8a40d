"""Modifier cells: wrap a cell and change what its steps give, keeping its weights and states.
ZoneoutCell keeps each output/state element from the previous step with some probability;
ResidualCell adds each step's input to its output."""
from .. import symbol
from ._base import BaseRNNCell, _normalize_sequence


class ModifierCell(BaseRNNCell):
    """Base of the modifier cells. The wrapped cell is marked modified: from then on only the
    modifier may be used (its begin_state asserts otherwise).

    Parameters
    ----------
    base_cell : BaseRNNCell
        The cell to modify.
    """

    def __init__(self, base_cell):
        super(ModifierCell, self).__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):  # pylint: disable=arguments-differ
        assert not self._modified, \
            "this cell is wrapped by another modifier cell: use the outer one"
        # containers pass the function as func=; MXNet's own name for it here is init_sym
        func = kwargs.pop('func', init_sym)
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training each element of the output and of the states
    keeps its previous step's value with probability zoneout_outputs / zoneout_states (a Dropout
    mask picks them, so in inference every element takes the new value).

    Parameters
    ----------
    base_cell : BaseRNNCell
        A cell that can be stepped (not fused, not bidirectional).
    zoneout_outputs : float
        Probability that an output element keeps the previous step's value.
    zoneout_states : float
        Probability that a state element keeps the previous step's value.
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        from ._fused import FusedRNNCell
        from ._stack import BidirectionalCell, SequentialRNNCell
        assert not isinstance(base_cell, FusedRNNCell), \
            "FusedRNNCell doesn't support zoneout. Please unfuse first."
        assert not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support zoneout since it doesn't support step. " \
            "Please add ZoneoutCell to the cells underneath instead."
        assert not (isinstance(base_cell, SequentialRNNCell)
                    and any(isinstance(c, BidirectionalCell) for c in base_cell._cells)), \
            "Bidirectional SequentialRNNCell doesn't support zoneout. " \
            "Please add ZoneoutCell to the cells underneath instead."
        super(ZoneoutCell, self).__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super(ZoneoutCell, self).reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):
            # Dropout of ones: 0 where the old value stays (training only), nonzero elsewhere
            return symbol.Dropout(symbol.ones_like(like), p=p)

        # before the first step the previous output is zeros of the output's shape (0: inferred)
        prev_output = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        output = next_output
        if self.zoneout_outputs != 0.:
            output = symbol.where(keep_new(self.zoneout_outputs, next_output), next_output, prev_output)
        if self.zoneout_states != 0.:
            next_states = [symbol.where(keep_new(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self.prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Residual connection (Wu et al. 2016): each step's output is the base cell's output plus
    that step's input, so input and output sizes must match.

    Parameters
    ----------
    base_cell : BaseRNNCell
        The cell whose outputs get the inputs added.
    """

    def __init__(self, base_cell):
        super(ResidualCell, self).__init__(base_cell)

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name='%s_plus_residual' % output.name)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        # the base cell unrolls itself (a bidirectional or fused one can only unroll)
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state,
                                                    layout=layout, merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            return symbol.elemwise_add(outputs, inputs, name='%s_plus_residual' % outputs.name), states
        outputs = [symbol.elemwise_add(out, step, name='%s_plus_residual' % out.name)
                   for out, step in zip(outputs, inputs)]
        return outputs, states
