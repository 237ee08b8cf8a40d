"""Every optional module the suite skips without (pytest.importorskip) is declared in pyproject.toml's
`test` extra, so that `pip install .[test]` runs those tests instead of skipping them."""
import ast
import glob
import os
import re

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# import name -> PyPI distribution, where they differ
DISTRIBUTION = {"sklearn": "scikit-learn", "PIL": "Pillow"}


def importorskip_modules():
    """Top-level module names passed to pytest.importorskip anywhere under tests/python."""
    found = set()
    for path in glob.glob(os.path.join(REPO, "tests", "python", "**", "*.py"), recursive=True):
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "importorskip" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.add(node.args[0].value.split(".")[0])
    return found


def declared_test_extra():
    """The `test` list of [project.optional-dependencies], as lower-case distribution names."""
    with open(os.path.join(REPO, "pyproject.toml")) as f:
        text = f.read()
    m = re.search(r"^\[project\.optional-dependencies\]\n(?:.*\n)*?test\s*=\s*\[([^\]]*)\]", text, re.M)
    assert m, "pyproject.toml has no test extra"
    names = re.findall(r"[\"']([^\"']+)[\"']", m.group(1))
    return {re.split(r"[\s<>=!~;\[]", n, 1)[0].lower() for n in names}


def test_every_importorskip_module_is_in_the_test_extra():
    modules = importorskip_modules()
    assert {"sklearn", "PIL", "matplotlib"} <= modules  # the scan finds what the suite uses
    declared = declared_test_extra()
    missing = sorted(m for m in modules if DISTRIBUTION.get(m, m).lower() not in declared)
    assert not missing, "pyproject.toml's test extra %s lacks %s" % (sorted(declared), missing)
