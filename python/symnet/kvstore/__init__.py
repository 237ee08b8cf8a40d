"""Key-value stores for data-parallel training (MXNet 1.9.1's mx.kvstore package): the
interface, TestStore and create in base.py, the local and distributed stores in kvstore.py,
KVStoreServer in kvstore_server.py."""
from . import base, kvstore, kvstore_server
from .base import *  # noqa: F401,F403
from .base import _keyed, _listed  # noqa: F401
from .kvstore import *  # noqa: F401,F403
from .kvstore import _DISTRIBUTED, _SINGLE_PROCESS  # noqa: F401
from .kvstore_server import *  # noqa: F401,F403
