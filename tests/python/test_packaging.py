"""The installed package: its version written once, and an import error that names a missing
system library."""
import os
import re

import symnet as mx
from symnet import _native

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_version_is_written_once():
    with open(os.path.join(REPO, "python", "symnet", "_version.py")) as f:
        written = re.search(r'__version__ = "([0-9.]+)"', f.read()).group(1)
    assert mx.__version__ == written
    with open(os.path.join(REPO, "pyproject.toml")) as f:
        project = f.read()
    assert 'dynamic = ["version"]' in project and "\nversion =" not in project
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        assert "project(symnet VERSION ${SYMNET_VERSION}" in f.read()


def test_a_missing_system_library_is_named_with_its_package():
    err = ImportError("libdnnl.so.2: cannot open shared object file: No such file or directory")
    msg = str(_native.explain(err))
    assert "libdnnl.so.2 is missing" in msg and "apt-get install libdnnl2" in msg and "symnet needs" in msg
    cuda = str(_native.explain(ImportError("libcudart.so.13: cannot open shared object file: No such file")))
    assert "/usr/local/cuda" in cuda
    other = ImportError("something else")
    assert _native.explain(other) is other


# the standard library headers the public headers may include (and the compiler's intrinsics)
_STD_HEADERS = {
    "algorithm", "any", "array", "atomic", "cmath", "cstddef", "cstdint", "cstring", "functional",
    "initializer_list", "iosfwd", "map", "memory", "optional", "random", "sstream", "stdexcept",
    "string", "typeinfo", "unordered_map", "utility", "vector", "immintrin.h"}


def test_public_headers_include_only_the_standard_library_and_each_other():
    """An installed symnet's headers must compile with nothing but the C++17 standard library:
    dmlc, oneDNN and Boost stay inside libsymnet (tools/cpp_package_check.sh builds a program
    against the installed tree)."""
    root = os.path.join(REPO, "include")
    headers = [os.path.relpath(os.path.join(d, f), root)
               for d, _, files in os.walk(os.path.join(root, "symnet")) for f in files if f.endswith(".h")]
    assert len(headers) > 20
    bad = []
    for h in headers:
        with open(os.path.join(root, h)) as f:
            for n, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
                if not m:
                    continue
                ok = (m.group(2) in _STD_HEADERS if m.group(1) == "<"
                      else os.path.exists(os.path.join(root, m.group(2))) and m.group(2).startswith("symnet/"))
                if not ok:
                    bad.append("include/%s:%d: %s" % (h, n, line.strip()))
    assert not bad, "public headers reach outside the standard library and include/symnet:\n" + "\n".join(bad)
