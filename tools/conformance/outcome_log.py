"""A pytest plugin for tools/mxnet_conformance.py: appends one line per test event to the file
named by $CONFORMANCE_LOG as it happens ("start <nodeid>", "<outcome> <nodeid>"), so that the
harness knows which test was running when a process is killed (memory cap, crash) and which tests
already finished."""
import os

_LOG = os.environ.get("CONFORMANCE_LOG")


def _write(line):
    if _LOG:
        with open(_LOG, "a") as f:
            f.write(line + "\n")


def pytest_runtest_logstart(nodeid, location):
    _write("start " + nodeid)


def pytest_runtest_logreport(report):
    # a test passed when its call passed and neither setup nor teardown failed
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome
        if report.when != "call" and outcome == "failed":
            outcome = "error"
        _write("%s %s" % (outcome, report.nodeid))


def pytest_runtest_logfinish(nodeid, location):
    _write("finish " + nodeid)
