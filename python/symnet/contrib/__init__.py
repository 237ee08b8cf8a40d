"""mx.contrib as MXNet 1.9.1 lays it out: contrib.amp (automatic mixed precision) and
contrib.text (vocabularies and token embeddings)."""
from . import amp
from . import text
