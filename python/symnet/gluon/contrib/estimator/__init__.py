"""mx.gluon.contrib.estimator: MXNet 1.9.1's Estimator (fit/evaluate of a Gluon network) with
its event handlers and batch processor."""
from . import batch_processor, estimator, event_handler
from .batch_processor import *  # noqa: F401,F403
from .estimator import *  # noqa: F401,F403
from .event_handler import *  # noqa: F401,F403
