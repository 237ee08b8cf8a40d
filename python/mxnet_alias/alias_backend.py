"""A PEP 517 build backend for symnet's `mxnet` alias (one pure-Python package, mxnet/).

It writes the wheel itself, so that building needs nothing from an index, and it refuses to build
for an environment where a real MXNet is installed: the alias's mxnet/ would overwrite MXNet's
files, and pip would then leave a broken MXNet behind on uninstall. The version is symnet's."""
import base64
import hashlib
import io
import os
import re
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "symnet_mxnet"
TAG = "py3-none-any"


def _version():
    """symnet's version, from the repository beside this folder (or from PKG-INFO in an sdist)."""
    source = os.path.join(HERE, "..", "symnet", "_version.py")
    if os.path.exists(source):
        with open(source) as f:
            return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)
    with open(os.path.join(HERE, "PKG-INFO")) as f:
        return re.search(r"^Version: (\S+)", f.read(), re.M).group(1)


def _site_dirs():
    paths = sysconfig.get_paths()
    return sorted({paths["purelib"], paths["platlib"]})


def _real_mxnet(site):
    """What shows that `site` holds a real MXNet (its library or its distribution), or None."""
    lib = os.path.join(site, "mxnet", "libmxnet.so")
    if os.path.exists(lib):
        return lib
    if not os.path.isdir(site):
        return None
    for entry in os.listdir(site):
        # mxnet, mxnet-cu112, mxnet-mkl, mxnet-native, ... and never this alias's own dist-info
        if re.match(r"mxnet([-_][a-z0-9]+)?-[0-9][^/]*\.(dist|egg)-info$", entry, re.I):
            return os.path.join(site, entry)
    return None


def _refuse_real_mxnet():
    for site in _site_dirs():
        found = _real_mxnet(site)
        if found:
            raise RuntimeError(
                "symnet-mxnet refuses to install: this environment has a real MXNet (%s). Installing "
                "symnet's `mxnet` alias over it would overwrite MXNet's package. Use a separate "
                "environment, or `pip uninstall mxnet` first." % found)


def _files():
    """(archive path, bytes) of every file of the alias package."""
    root = os.path.join(HERE, "mxnet")
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    yield os.path.relpath(path, HERE).replace(os.sep, "/"), f.read()


def _metadata(version):
    return ("Metadata-Version: 2.1\nName: symnet-mxnet\nVersion: %s\n"
            "Summary: `import mxnet` gives symnet (MXNet 1.9.1's Python API on symnet)\n"
            "License: Apache-2.0\nRequires-Python: >=3.8\n" % version)


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def _dist_info(version):
    info = "%s-%s.dist-info" % (NAME, version)
    files = {
        info + "/METADATA": _metadata(version).encode(),
        info + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: symnet alias_backend\nRoot-Is-Purelib: true\n"
                          "Tag: %s\n" % TAG).encode(),
        info + "/top_level.txt": b"mxnet\n",
    }
    return info, files


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _refuse_real_mxnet()
    info, files = _dist_info(_version())
    for path, data in files.items():
        target = os.path.join(metadata_directory, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _refuse_real_mxnet()
    version = _version()
    info, meta = _dist_info(version)
    entries = list(_files()) + sorted(meta.items())
    record = [_record_line(path, data) for path, data in entries] + [info + "/RECORD,,"]
    wheel_name = "%s-%s-%s.whl" % (NAME, version, TAG)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in entries:
            wheel.writestr(path, data)
        wheel.writestr(info + "/RECORD", "\n".join(record) + "\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = "%s-%s" % (NAME, version)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        for path, data in list(_files()) + [("pyproject.toml", None), ("alias_backend.py", None),
                                            ("PKG-INFO", _metadata(version).encode())]:
            if data is None:
                with open(os.path.join(HERE, path), "rb") as f:
                    data = f.read()
            member = tarfile.TarInfo("%s/%s" % (base, path))
            member.size = len(data)
            sdist.addfile(member, io.BytesIO(data))
    return name
