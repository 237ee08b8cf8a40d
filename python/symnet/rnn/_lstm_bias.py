"""MXNet's LSTMBias initializer, which mx.rnn.LSTMCell puts on its i2h bias. It lives in
symnet.initializer (mx.init.LSTMBias, registered as 'lstmbias' so that a variable's
'["lstmbias", {...}]' __init__ attribute finds it); this module keeps the old import path."""
from ..initializer import LSTMBias  # noqa: F401
