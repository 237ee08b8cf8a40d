"""mx.gluon.rnn: recurrent layers (RNN, LSTM, GRU on the fused RNN operator) and cells, as in
MXNet 1.9.1."""
from .rnn_cell import (BidirectionalCell, DropoutCell, GRUCell, HybridRecurrentCell,
                       HybridSequentialRNNCell, LSTMCell, ModifierCell, RecurrentCell, RNNCell,
                       ResidualCell, SequentialRNNCell, ZoneoutCell)
from .rnn_layer import GRU, LSTM, RNN

__all__ = ["GRU", "LSTM", "RNN", "BidirectionalCell", "DropoutCell", "GRUCell",
           "HybridRecurrentCell", "HybridSequentialRNNCell", "LSTMCell", "ModifierCell",
           "RNNCell", "RecurrentCell", "ResidualCell", "SequentialRNNCell", "ZoneoutCell"]
