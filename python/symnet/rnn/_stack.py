"""Cells made of cells: SequentialRNNCell (a stack, each cell fed by the one below),
BidirectionalCell (one cell forward in time, one backward, outputs concatenated) and DropoutCell
(dropout between the layers of a stack)."""
from .. import symbol
from ..base import numeric_types
from ._base import (BaseRNNCell, _begin_state_like, _cells_begin_state, _cells_pack_weights, _cells_state_info,
                    _cells_unpack_weights, _normalize_sequence)

_MODIFIED = "this cell is wrapped by a modifier cell (ZoneoutCell, ResidualCell, ...): " \
            "use the modifier cell instead of this one"


def _take_params(container, cells, what):
    """Merges the variables of `cells` into the container's RNNParams; when the container was
    given params of its own, the cells must not have been given any, and get the container's."""
    if container._override_cell_params:
        assert all(cell._own_params for cell in cells), \
            "give params to the %s or to the cells in it, not to both" % what
        for cell in cells:
            cell.params._params.update(container.params._params)
    for cell in cells:
        container.params._params.update(cell.params._params)


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells: each step's output of one cell is the next cell's input.

    Parameters
    ----------
    params : RNNParams or None
        Variables for all the cells added (which then must not have their own).
    """

    def __init__(self, params=None):
        super(SequentialRNNCell, self).__init__(prefix='', params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Puts `cell` on top of the stack."""
        self._cells.append(cell)
        _take_params(self, [cell], 'SequentialRNNCell')

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        assert not self._modified, _MODIFIED
        return _cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        p = 0
        for cell in self._cells:
            assert not isinstance(cell, BidirectionalCell), \
                "a stack holding a BidirectionalCell cannot be stepped; use unroll"
            n = len(cell.state_info)
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        if begin_state is None:
            begin_state = _begin_state_like(self, inputs, layout)
        p = 0
        next_states = []
        last = len(self._cells) - 1
        for i, cell in enumerate(self._cells):
            n = len(cell.state_info)
            # the layers below hand over whatever form is cheaper; the top one gives what is asked
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[p:p + n],
                                         layout=layout, merge_outputs=merge_outputs if i == last else None)
            p += n
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on its input (no state), for stacking between layers.

    Parameters
    ----------
    dropout : float
        The fraction of the elements dropped in training.
    prefix : str
        Prefix of the names.
    params : RNNParams or None
        Unused (the cell has no weights); kept for MXNet's signature.
    """

    def __init__(self, dropout, prefix='dropout_', params=None):
        super(DropoutCell, self).__init__(prefix, params)
        assert isinstance(dropout, numeric_types), "dropout probability must be a number"
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])  # one Dropout node over all the steps at once
        return super(DropoutCell, self).unroll(length, inputs, begin_state=begin_state, layout=layout,
                                               merge_outputs=merge_outputs)


class BidirectionalCell(BaseRNNCell):
    """l_cell unrolled forward in time and r_cell backward; each step's output is the two
    outputs concatenated (l first). Cannot be stepped, only unrolled.

    Parameters
    ----------
    l_cell, r_cell : BaseRNNCell
        The forward and the backward cell.
    params : RNNParams or None
        Variables for both cells (which then must not have their own).
    output_prefix : str
        Prefix of the output nodes' names (<output_prefix>t<step> or <output_prefix>out).
    """

    def __init__(self, l_cell, r_cell, params=None, output_prefix='bi_'):
        super(BidirectionalCell, self).__init__('', params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        _take_params(self, [l_cell, r_cell], 'BidirectionalCell')
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        assert not self._modified, _MODIFIED
        return _cells_begin_state(self._cells, **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = _begin_state_like(self, inputs, layout)
        l_cell, r_cell = self._cells
        n_l = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:n_l],
                                            layout=layout, merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)),
                                            begin_state=begin_state[n_l:], layout=layout,
                                            merge_outputs=merge_outputs)
        if merge_outputs is None:
            # merge only when both cells gave one symbol anyway; else split whichever did
            merge_outputs = isinstance(l_outputs, symbol.Symbol) and isinstance(r_outputs, symbol.Symbol)
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(symbol.SliceChannel(l_outputs, axis=axis, num_outputs=length,
                                                         squeeze_axis=1))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(symbol.SliceChannel(r_outputs, axis=axis, num_outputs=length,
                                                         squeeze_axis=1))
        if merge_outputs:
            outputs = symbol.Concat(l_outputs, symbol.reverse(r_outputs, axis=axis), dim=2,
                                    name='%sout' % self._output_prefix)
        else:
            outputs = [symbol.Concat(l_o, r_o, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed(r_outputs)))]
        # MXNet returns the two cells' states as two lists, not one flat list
        return outputs, [l_states, r_states]
