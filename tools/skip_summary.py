#!/usr/bin/env python3
"""Counts the skipped tests of a run by reason: Python tests from pytest's JUnit XML, C++ tests
from CTest's LastTest.log (GoogleTest prints each GTEST_SKIP message before "[  SKIPPED ]").
Prints one summary line plus a line per reason. With --strict (CI), exits 1 when a reason is
not one a machine without the hardware may give: no GPU, needs N GPUs, CPU lacks <ISA>. Any
other skip (a missing dependency, missing references, a missing build) hides an untested part.

    python3 tools/skip_summary.py --junit build/pytest-results.xml \
        --ctest-log build/pip/Testing/Temporary/LastTest.log [--strict]
"""
import argparse
import collections
import re
import sys
import xml.etree.ElementTree as ET

ALLOWED = [re.compile(p) for p in (r"\bno (usable )?GPU\b", r"\bneeds \d+ GPUs\b", r"\bCPU lacks [A-Z0-9_]+")]
GTEST_SKIP = re.compile(r"^[^\n]*: Skipped\n(?P<msg>.*?)\n\[  SKIPPED \] (?P<name>\S+) \(", re.S | re.M)


def pytest_skips(path):
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        sk = case.find("skipped")
        if sk is not None:
            name = "%s::%s" % (case.get("classname", ""), case.get("name", ""))
            out.append((name, (sk.get("message") or sk.text or "no reason given").strip()))
    return out


def ctest_skips(path):
    with open(path, errors="replace") as f:
        text = f.read()
    # a test that ran in several CTest entries (the ISA levels) counts once per reason
    found = {(m.group("name"), m.group("msg").strip() or "no reason given") for m in GTEST_SKIP.finditer(text)}
    return sorted(found)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--junit", action="append", default=[], help="pytest --junitxml file(s)")
    ap.add_argument("--ctest-log", action="append", default=[], help="CTest's LastTest.log file(s)")
    ap.add_argument("--strict", action="store_true", help="fail on a skip reason other than missing hardware")
    args = ap.parse_args(argv)
    skips = []
    for p in args.junit:
        skips += [("python", n, r) for n, r in pytest_skips(p)]
    for p in args.ctest_log:
        skips += [("c++", n, r) for n, r in ctest_skips(p)]
    by_reason = collections.Counter((kind, reason) for kind, _, reason in skips)
    print("== skipped tests: %d (%s)" % (len(skips), ", ".join(
        "%d %s" % (n, k) for k, n in sorted(collections.Counter(k for k, _, _ in skips).items())) or "none"))
    bad = []
    for (kind, reason), n in sorted(by_reason.items(), key=lambda kv: -kv[1]):
        ok = any(p.search(reason) for p in ALLOWED)
        print("  %5d  %-6s %s%s" % (n, kind, "" if ok else "NOT ALLOWED IN CI: ", reason[:300]))
        if not ok:
            bad.append((kind, reason))
    if bad and args.strict:
        for kind, reason in bad:
            names = [n for k, n, r in skips if (k, r) == (kind, reason)]
            print("skipped for a reason CI does not accept (%s): %s\n  e.g. %s" % (kind, reason, ", ".join(names[:5])))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
