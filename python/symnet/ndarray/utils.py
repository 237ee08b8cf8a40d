"""mx.nd.utils: the creation and file functions as MXNet's module holds them."""
from .ndarray import array, empty, load, save, zeros  # noqa: F401
