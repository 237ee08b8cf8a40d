"""symnet's version: the one place it is written (pyproject.toml and CMakeLists.txt read it)."""
__version__ = "0.1.0"

#: the MXNet release whose Python API symnet implements: what `import mxnet` reports as
#: mxnet.__version__ once the alias (python/mxnet_alias) is installed
MXNET_API_VERSION = "1.9.1"
