"""`import mxnet` for code written for MXNet 1.x: every mxnet.<module> is the symnet.<module>
object itself (mxnet.gluon is symnet.gluon, mxnet.ndarray.ndarray.NDArray is symnet's NDArray),
and mxnet.__version__ is the MXNet API level symnet implements. symnet's own version stays in
symnet.__version__. Installed by `pip install python/mxnet_alias` (docs/mxnet_compat.md)."""
import importlib
import importlib.abc
import importlib.util
import sys

try:
    import symnet as _symnet
except ImportError as _error:
    raise ImportError("this `mxnet` is symnet's alias package (symnet-mxnet), and symnet itself cannot be "
                      "imported: %s. Install symnet first (tools/setup.sh or pip install .)" % _error) from None

__version__ = _symnet.MXNET_API_VERSION


class _SymnetAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds mxnet.<name> as symnet.<name> and hands out symnet's module object, so that both
    names share one module (its classes, registries and state)."""

    def __init__(self):
        self._real_specs = {}

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(__name__ + "."):
            return None
        real = _symnet.__name__ + fullname[len(__name__):]
        try:
            real_spec = sys.modules[real].__spec__ if real in sys.modules else importlib.util.find_spec(real)
        except ModuleNotFoundError:
            return None
        if real_spec is None:
            return None
        return importlib.util.spec_from_loader(fullname, self,
                                               is_package=real_spec.submodule_search_locations is not None)

    def create_module(self, spec):
        module = importlib.import_module(_symnet.__name__ + spec.name[len(__name__):])
        self._real_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # the import system has just set module.__spec__ to the alias's; symnet's module keeps its own
        for alias, real_spec in list(self._real_specs.items()):
            if real_spec.name == module.__name__:
                module.__spec__ = real_spec
                del self._real_specs[alias]


if not any(isinstance(finder, _SymnetAlias) for finder in sys.meta_path):
    sys.meta_path.insert(0, _SymnetAlias())


def __getattr__(name):
    # mx.nd, mx.gluon, mx.cpu, ...: symnet's names, looked up when asked for
    try:
        return getattr(_symnet, name)
    except AttributeError:
        raise AttributeError("module 'mxnet' (symnet %s) has no attribute '%s'"
                             % (_symnet.__version__, name)) from None


def __dir__():
    return sorted(set(globals()) | set(dir(_symnet)))
