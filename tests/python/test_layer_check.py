"""Every #include points down the layer table of docs/architecture.md (tools/check_layers.py), and the checker
catches an upward include planted in a copy of the tree."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tools", "check_layers.py")
TREES = ("include", "src", "operators", "amp", "python/src")


def check(root):
    return subprocess.run([sys.executable, CHECK, "--root", str(root)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)


def copy_tree(tmp_path):
    for t in TREES:
        shutil.copytree(os.path.join(ROOT, t), str(tmp_path / t),
                        ignore=shutil.ignore_patterns("*.py", "*.pyc", "__pycache__"))
    return tmp_path


def plant(path, include):
    text = path.read_text()
    path.write_text('#include "%s"\n%s' % (include, text))


def test_the_tree_includes_only_downward():
    r = check(ROOT)
    assert r.returncode == 0, r.stdout
    assert "every include points down" in r.stdout


def test_an_upward_include_fails(tmp_path):
    root = copy_tree(tmp_path)
    assert check(root).returncode == 0
    # storage reaching up to NDArray (the cycle this check was written for)
    plant(root / "src" / "storage" / "storage.cc", "symnet/ndarray.h")
    r = check(root)
    assert r.returncode == 1, r.stdout
    assert "src/storage/storage.cc:1: layer storage includes layer tensor (include/symnet/ndarray.h)" in r.stdout


def test_an_operator_including_the_executor_fails(tmp_path):
    root = copy_tree(tmp_path)
    plant(root / "operators" / "nn" / "pooling.cc", "../../src/executor/graph_executor.cc")
    r = check(root)
    assert r.returncode == 1
    assert "layer operators includes layer executor" in r.stdout


def test_a_file_outside_every_layer_fails(tmp_path):
    root = copy_tree(tmp_path)
    (root / "src" / "newplace").mkdir()
    (root / "src" / "newplace" / "thing.cc").write_text("int x;\n")
    r = check(root)
    assert r.returncode == 1
    assert "src/newplace/thing.cc: belongs to no layer" in r.stdout


def test_the_architecture_doc_shows_the_checked_table():
    with open(os.path.join(ROOT, "docs", "architecture.md")) as f:
        doc = f.read()
    shown = doc.split("<!-- layers:begin")[1].split("-->", 1)[1].split("<!-- layers:end -->")[0]
    r = subprocess.run([sys.executable, CHECK, "--markdown"], stdout=subprocess.PIPE, universal_newlines=True)
    assert shown.strip() == r.stdout.strip(), "docs/architecture.md: run python3 tools/check_layers.py --markdown"
