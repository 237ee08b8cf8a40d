"""tools/check_format.sh (run first by tools/run_tests.sh) must fail on badly formatted C++ and
on Python that ruff rejects, and pass on clean files."""
import os
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "tools", "check_format.sh")


def run(*files):
    return subprocess.run(["bash", SCRIPT] + [str(f) for f in files], capture_output=True, text=True)


@pytest.fixture(scope="module")
def tools_present():
    """The pinned tools (installed on first use) and a clean tree."""
    probe = run()
    assert probe.returncode == 0, probe.stdout + probe.stderr


def test_clean_files_pass_and_misformatted_ones_fail(tmp_path, tools_present):
    good_cc = tmp_path / "good.cc"
    good_cc.write_text("int Answer() { return 42; }\n")
    bad_cc = tmp_path / "bad.cc"
    bad_cc.write_text("int  Answer( ){return 42;}\n")
    good_py = tmp_path / "good.py"
    good_py.write_text("import os\n\nprint(os.sep)\n")
    bad_py = tmp_path / "bad.py"
    bad_py.write_text("import os\n\nprint(1)\n")  # unused import
    assert run(good_cc, good_py).returncode == 0
    r = run(bad_cc)
    assert r.returncode != 0 and "bad.cc" in r.stdout + r.stderr
    r = run(bad_py)
    assert r.returncode != 0 and "F401" in r.stdout + r.stderr
