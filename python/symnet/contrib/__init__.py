"""mx.contrib as MXNet 1.9.1 lays it out: contrib.ndarray / contrib.symbol (the contrib
operators, also as contrib.nd / contrib.sym), contrib.autograd (the pre-1.0 autograd API),
contrib.io (DataLoaderIter), contrib.tensorboard (LogMetricsCallback), contrib.amp (automatic
mixed precision) and contrib.text (vocabularies and token embeddings)."""
from . import symbol
from . import ndarray
from . import symbol as sym
from . import ndarray as nd
from . import autograd
from . import amp
from . import tensorboard
from . import text
from . import io
