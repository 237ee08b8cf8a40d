"""mx.contrib as MXNet scripts import it: contrib.amp is symnet.amp."""
from .. import amp  # noqa: F401
