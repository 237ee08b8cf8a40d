"""Every test a doc names exists: docs/errors.md backs each bad input with a test reference, and a
renamed or deleted test must not leave a row that claims a check nobody runs."""
import glob
import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
PLACEHOLDERS = {("tests/python/FILE.py", "test_name"), ("tests/cpp/DIR/FILE.cc", "Suite.Name")}


def _references():
    for doc in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md")]:
        text = open(doc, encoding="utf-8").read()
        for path, name in re.findall(r"(tests/python/[\w/]+\.py)::(\w+)", text):
            yield doc, path, name, r"def %s\b" % name
        for path, suite, name in re.findall(r"(tests/cpp/[\w/]+\.cc):(\w+)\.(\w+)", text):
            yield doc, path, "%s.%s" % (suite, name), r"TEST(_F|_P)?\(\s*%s,\s*%s\)" % (suite, name)


def test_every_test_named_in_the_docs_exists():
    missing = []
    count = 0
    for doc, path, name, pattern in _references():
        if (path, name) in PLACEHOLDERS:
            continue
        count += 1
        full = os.path.join(ROOT, path)
        if not os.path.exists(full) or not re.search(pattern, open(full, encoding="utf-8").read()):
            missing.append("%s names %s::%s" % (os.path.relpath(doc, ROOT), path, name))
    assert count > 100  # the docs do name tests; a broken pattern would find none
    assert not missing, "tests named in the docs that do not exist:\n" + "\n".join(missing)
