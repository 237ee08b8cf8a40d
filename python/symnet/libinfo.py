"""MXNet 1.9.1's mx.libinfo: where the native library and the C++ headers are, and the version.
On symnet the library is libsymnet.so (beside this file in an installed package and in the
development tree), and the headers are include/symnet/. MXNET_LIBRARY_PATH and
MXNET_INCLUDE_PATH override the search, as in MXNet."""
import logging
import os
import sys

from ._version import MXNET_API_VERSION

__all__ = ["find_lib_path", "find_include_path", "find_conf_path"]

#: the MXNet API level symnet implements, as MXNet's libinfo.__version__
__version__ = MXNET_API_VERSION

_HERE = os.path.dirname(os.path.abspath(__file__))


def _from_env(var, check):
    """The absolute path `var` names when `check` accepts it; a warning (as MXNet's) otherwise."""
    path = os.environ.get(var)
    if not path:
        return None
    if not check(path):
        logging.warning("%s '%s' doesn't exist", var, path)
        return None
    if not os.path.isabs(path):
        logging.warning("%s should be an absolute path, instead of: %s", var, path)
        return None
    return path


def find_lib_path(prefix="libmxnet"):
    """[path of the native library]: libsymnet.so for MXNet's default prefix 'libmxnet' (symnet's
    library plays its part), else <prefix>.so. Searched beside this package, in the build tree
    and in LD_LIBRARY_PATH; RuntimeError naming the candidates when none exists."""
    lib = _from_env("MXNET_LIBRARY_PATH", os.path.isfile)
    if lib:
        return [lib]
    name = ("libsymnet" if prefix == "libmxnet" else prefix) + ".so"
    dirs = [p.strip() for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p.strip()]
    dirs += [_HERE, os.path.join(_HERE, "..", "..", "build"), os.path.join(sys.prefix, "lib")]
    candidates = [os.path.join(d, name) for d in dirs]
    found = [p for p in candidates if os.path.isfile(p)]
    if not found:
        raise RuntimeError("Cannot find the symnet library (%s).\nList of candidates:\n%s"
                           % (name, "\n".join(candidates)))
    return found


def find_include_path():
    """The folder that holds symnet's C++ headers (its symnet/ folder: #include <symnet/...>):
    include/ beside this package, the source tree's include/, or the environment's include/."""
    incl = _from_env("MXNET_INCLUDE_PATH", os.path.isdir)
    if incl:
        return incl
    candidates = [os.path.join(_HERE, "include"), os.path.join(_HERE, "..", "..", "include"),
                  os.path.join(sys.prefix, "include")]
    for path in candidates:
        if os.path.isdir(os.path.join(path, "symnet")):
            return os.path.normpath(path) + os.sep
    raise RuntimeError("Cannot find the symnet include path in any of " + ", ".join(candidates))


def find_conf_path(prefix="tvmop"):
    """MXNet's TVM operator config file. symnet has no TVM operators: MXNET_CONF_PATH when it
    names a file, else RuntimeError."""
    conf = _from_env("MXNET_CONF_PATH", os.path.isfile)
    if conf:
        return conf
    raise RuntimeError("Cannot find the %s config: symnet has no TVM operators (set MXNET_CONF_PATH to a "
                       "file to name one)" % prefix)
