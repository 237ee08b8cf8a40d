"""MXNet's LSTMBias initializer (mx.init.LSTMBias), which mx.rnn.LSTMCell puts on its i2h bias:
registered under its name so that a variable's '["lstmbias", {...}]' __init__ attribute, as MXNet
writes it, finds it."""
from .. import initializer


@initializer.register
class LSTMBias(initializer.Initializer):
    """Zeros, except the forget gate's quarter (the second of the gates i, f, c, o), which gets
    `forget_bias`: the gate starts open, so the cell remembers from the start of training.

    Parameters
    ----------
    forget_bias : float
        The value of the forget gate's biases.
    """

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        h = arr.shape[0] // 4
        arr[:] = 0.0
        arr[h:2 * h] = self.forget_bias
