"""mx.rnn: MXNet 1.9.1's legacy symbolic RNN API (cells built into Symbol graphs, unrolled over
time; bucketing sentence iterator; checkpoints with unpacked cell weights), on symnet's symbols.
mx.gluon.rnn is the separate, Gluon form of the same cells."""
from . import rnn_cell
from .rnn_cell import *  # noqa: F401,F403
from . import rnn
from .rnn import *  # noqa: F401,F403
from . import io
from .io import *  # noqa: F401,F403
