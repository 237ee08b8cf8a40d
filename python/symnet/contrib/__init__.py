"""mx.contrib as MXNet 1.9.1 lays it out: contrib.amp (automatic mixed precision)."""
from . import amp
