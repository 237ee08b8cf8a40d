"""tools/skip_summary.py: counts skips by reason from pytest's JUnit XML and CTest's log, and in
strict mode (CI) fails on any reason but missing hardware."""
import os
import subprocess
import sys

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "skip_summary.py")

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="t" name="a"/>
<testcase classname="t" name="b"><skipped type="pytest.skip" message="no usable GPU (x)"/></testcase>
<testcase classname="t" name="c"><skipped type="pytest.skip" message="needs 2 GPUs (0)"/></testcase>
{extra}
</testsuite></testsuites>"""
CTEST = """1/2 Testing: DnnlNoReference.AtIsa_AVX512_CORE
[ RUN      ] DnnlNoReference.ResNet50Float32Training
/x/dnnl_no_reference_test.cc:91: Skipped
CPU lacks AVX512_CORE (oneDNN runs avx2 here)
[  SKIPPED ] DnnlNoReference.ResNet50Float32Training (0 ms)
[ RUN      ] GPU.KernelSelfTest
/x/cuda_runtime_test.cc:14: Skipped
{gpu_reason}
[  SKIPPED ] GPU.KernelSelfTest (0 ms)
"""


def run(tmp_path, extra="", gpu_reason="no GPU on this machine", strict=True):
    (tmp_path / "j.xml").write_text(JUNIT.format(extra=extra))
    (tmp_path / "LastTest.log").write_text(CTEST.format(gpu_reason=gpu_reason))
    cmd = [sys.executable, TOOL, "--junit", str(tmp_path / "j.xml"), "--ctest-log", str(tmp_path / "LastTest.log")]
    return subprocess.run(cmd + (["--strict"] if strict else []), capture_output=True, text=True)


def test_hardware_skips_pass_strict_mode(tmp_path):
    out = run(tmp_path)
    assert out.returncode == 0, out.stdout
    assert "== skipped tests: 4 (2 c++, 2 python)" in out.stdout
    assert "CPU lacks AVX512_CORE" in out.stdout and "NOT ALLOWED" not in out.stdout


def test_a_missing_dependency_fails_strict_mode_only(tmp_path):
    extra = '<testcase classname="t" name="d"><skipped message="could not import \'PIL\'"/></testcase>'
    out = run(tmp_path, extra=extra)
    assert out.returncode == 1 and "NOT ALLOWED IN CI: could not import 'PIL'" in out.stdout, out.stdout
    assert "t::d" in out.stdout
    assert run(tmp_path, extra=extra, strict=False).returncode == 0


def test_a_cpp_skip_for_another_reason_fails_strict_mode(tmp_path):
    out = run(tmp_path, gpu_reason="built without CUDA")
    assert out.returncode == 1 and "GPU.KernelSelfTest" in out.stdout, out.stdout
