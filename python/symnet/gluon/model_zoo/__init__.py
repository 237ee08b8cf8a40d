"""mx.gluon.model_zoo: MXNet's model zoo networks, built with MXNet's block structure so that
parameter files MXNet wrote (save_parameters or export) load unchanged."""
from . import model_store, vision

__all__ = ["vision"]
