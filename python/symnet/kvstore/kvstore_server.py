"""MXNet 1.9.1's mx.kvstore.kvstore_server: KVStoreServer, the loop a parameter-server process
runs. symnet's distributed stores all-reduce over MPI (kvstore.py) and have no server or
scheduler processes, so importing this module starts nothing (MXNet's import turns a process
whose DMLC_ROLE is 'server' into a server), and run() says why it cannot serve."""
import logging
import os
import pickle

from ..base import MXNetError

__all__ = ["KVStoreServer"]


class KVStoreServer:
    """The server side of a 'dist' store (MXNet's): applies the optimizer a worker sends."""

    def __init__(self, kvstore):
        self.kvstore = kvstore
        self.handle = getattr(kvstore, "handle", None)
        self.init_logginig = False  # MXNet's attribute name, misspelling included

    def _controller(self):
        """The command handler MXNet's server runs: command 0 carries a pickled optimizer."""

        def server_controller(cmd_id, cmd_body, _):
            if not self.init_logginig:
                head = "%(asctime)-15s Server[" + str(self.kvstore.rank) + "] %(message)s"
                logging.basicConfig(level=logging.DEBUG, format=head)
                self.init_logginig = True
            if cmd_id == 0:
                self.kvstore.set_optimizer(pickle.loads(cmd_body))
            else:
                print("server %d, unknown command (%d, %s)" % (self.kvstore.rank, cmd_id, cmd_body))
        return server_controller

    def run(self):
        raise MXNetError("KVStoreServer.run: symnet has no parameter server; its 'dist_sync' stores "
                         "all-reduce over MPI among the workers (start every process as a worker with "
                         "mpirun; docs/distributed.md)")


def _init_kvstore_server_module():
    """MXNet starts a server here when DMLC_ROLE is 'server' or 'scheduler'; symnet refuses
    such a process at once rather than letting it run a worker's script."""
    role = os.environ.get("DMLC_ROLE", "worker")
    if role in ("server", "scheduler"):
        raise MXNetError("DMLC_ROLE=%s: symnet has no parameter server or scheduler processes; run only "
                         "workers, under mpirun (docs/distributed.md)" % role)
