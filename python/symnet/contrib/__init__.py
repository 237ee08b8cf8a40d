"""mx.contrib as MXNet 1.9.1 lays it out: contrib.autograd (the pre-1.0 autograd API),
contrib.amp (automatic mixed precision) and contrib.text (vocabularies and token embeddings)."""
from . import autograd
from . import amp
from . import text
