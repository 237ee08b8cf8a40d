"""mx.gluon.contrib.rnn: MXNet 1.9.1's contributed recurrent cells (variational dropout and the
projected LSTM cell)."""
from .rnn_cell import LSTMPCell, VariationalDropoutCell

__all__ = ["LSTMPCell", "VariationalDropoutCell"]
