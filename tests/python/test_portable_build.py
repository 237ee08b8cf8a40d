"""One build for every CPU: the default build's objects hold no instruction beyond x86-64-v3
(tools/check_portable.py), and the checker itself catches an AVX-512 object."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tools", "check_portable.py")
BUILD = os.path.join(ROOT, "build", "pip")

needs_tools = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("objdump")),
                                 reason="needs gcc and objdump")


def check(*paths):
    return subprocess.run([sys.executable, CHECK] + list(paths), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)


def compile_c(tmp_path, name, source, *flags):
    src = tmp_path / (name + ".c")
    src.write_text(source)
    obj = tmp_path / (name + ".o")
    subprocess.run(["gcc", "-O3", "-c", str(src), "-o", str(obj)] + list(flags), check=True)
    return str(obj)


@needs_tools
def test_the_checker_catches_avx512_and_passes_the_baseline(tmp_path):
    loop = "float s(const float* a, int n) { float t = 0; for (int i = 0; i < n; ++i) t += a[i] * a[i]; return t; }\n"
    bad = compile_c(tmp_path, "avx512", loop, "-march=x86-64-v4", "-mprefer-vector-width=512")
    good = compile_c(tmp_path, "v3", loop, "-march=x86-64-v3")
    r = check(bad)
    assert r.returncode == 1 and "zmm" in r.stdout, r.stdout
    r = check(good)
    assert r.returncode == 0, r.stdout


@needs_tools
def test_the_default_build_is_portable():
    cache = os.path.join(BUILD, "CMakeCache.txt")
    if not os.path.exists(cache):
        pytest.skip("no build at %s" % BUILD)
    text = open(cache).read()
    if re.search(r"^SYMNET_NATIVE_ARCH:BOOL=ON$", text, re.M):
        pytest.skip("this build was made with SYMNET_NATIVE_ARCH=ON (not portable by choice)")
    r = check(os.path.join(BUILD, "CMakeFiles", "symnet.dir"))
    assert r.returncode == 0, r.stdout
