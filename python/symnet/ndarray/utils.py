"""mx.nd.utils: the creation and file functions as MXNet's module holds them."""
from .ndarray import array, empty, load, load_frombuffer, save, zeros  # noqa: F401
