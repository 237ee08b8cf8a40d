"""mx.rnn.rnn_cell: MXNet 1.9.1's legacy symbolic RNN cells on symnet's symbols. Each cell builds
graph nodes one step at a time (or, FusedRNNCell, one RNN node for all steps); unroll repeats the
step over a sequence. The classes live in small modules by kind; this module gathers them under
MXNet's module name."""
from ._base import BaseRNNCell, RNNParams
from ._cells import GRUCell, LSTMCell, RNNCell
from ._conv import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell
from ._fused import FusedRNNCell
from ._modifier import ModifierCell, ResidualCell, ZoneoutCell
from ._stack import BidirectionalCell, DropoutCell, SequentialRNNCell

__all__ = ['RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'FusedRNNCell',
           'SequentialRNNCell', 'DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell',
           'BidirectionalCell', 'BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell', 'ConvGRUCell']
