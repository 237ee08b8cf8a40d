#!/usr/bin/env python3
"""Runs MXNet 1.9.1's own Python unit tests (../shared/mxnet-1.9.1/tests/python, unmodified) against
whatever `import mxnet` gives a Python: symnet through its alias (python/mxnet_alias), or with
--baseline, MXNet 1.9.1 itself in the parity venv, so that the measure is "of the tests MXNet passes
on this machine, how many symnet passes".

Strict: the files run as they are, with no stub modules and nothing deferred; a file that fails at
import fails all its tests. One pytest process per file, a per-test timeout (pytest-timeout) and a
memory cap on the process's resident memory (a test that passes the cap is killed, counted as
failed, and the file goes on without it).

    tools/mxnet_conformance.py --python build/conformance-venv/bin/python \\
        --baseline build/mxnet-venv/bin/python --out build/conformance
    tools/mxnet_conformance.py --python PY --check tests/mxnet_conformance/expected_pass.txt

--check runs only the tests of the expected-pass list and fails when one of them does not pass (a
ratchet: the list only grows); --exclude leaves out listed tests too heavy for the machine at
hand. --write-baseline keeps the baseline's passing tests in a file, so later runs can measure
against it without running MXNet (--baseline-list)."""
import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGIN_DIR = os.path.join(REPO, "tools", "conformance")

# the files of issue 38's measure: the core unit tests and the CPU mixed-precision ones
CORE_FILES = ["unittest/test_%s.py" % n for n in (
    "autograd", "executor", "gluon", "gluon_data", "gluon_rnn", "gluon_trainer", "infer_shape",
    "infer_type", "init", "io", "kvstore", "loss", "metric", "module", "ndarray", "optimizer", "random",
    "recordio", "symbol")] + ["mkl/test_bf16_operator.py", "mkl/test_contrib_amp.py"]


def default_tests_dir():
    return os.environ.get("SYMNET_MXNET_TESTS",
                          os.path.join(os.path.dirname(REPO), "shared", "mxnet-1.9.1", "tests", "python"))


def _rss_bytes(pids):
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/statm" % pid) as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            pass
    return total


def _group_pids(pgid):
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid:  # fields after the name: state, ppid, pgrp
                    pids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return pids


def _run_pytest(python, test_file, node_ids, deselect, log, timeout, mem_bytes, file_timeout, cwd):
    """Runs one pytest process; returns (peak resident bytes, why it was killed or None)."""
    args = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "outcome_log", "-o", "addopts=",
            "--rootdir", os.path.dirname(os.path.dirname(test_file)), "--timeout", str(timeout),
            "-W", "ignore::DeprecationWarning"]
    args += ["--deselect=%s" % d for d in deselect]
    args += node_ids or [test_file]
    env = dict(os.environ, CONFORMANCE_LOG=log, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join(p for p in (PLUGIN_DIR, os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    peak, killed, start = 0, None, time.time()
    while proc.poll() is None:
        rss = _rss_bytes(_group_pids(proc.pid))
        peak = max(peak, rss)
        if rss > mem_bytes:
            killed = "resident memory above the cap (%.1f GB)" % (mem_bytes / 2**30)
        elif time.time() - start > file_timeout:
            killed = "the file ran past %d s" % file_timeout
        if killed:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            break
        time.sleep(0.2)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # what the tests left running (data loader workers)
    except ProcessLookupError:
        pass
    return peak, killed


def _read_log(log):
    """{nodeid: outcome} from the plugin's log, and the test started but never finished, if any."""
    outcomes, running = {}, None
    if not os.path.exists(log):
        return outcomes, running
    with open(log) as f:
        for line in f:
            event, _, nodeid = line.rstrip("\n").partition(" ")
            if event == "start":
                running = nodeid
            elif event == "finish":
                running = None
            elif outcomes.get(nodeid) not in ("failed", "error"):
                outcomes[nodeid] = event
    return outcomes, running


def run_file(python, tests_dir, rel, node_ids, opts):
    """{nodeid: outcome} for one test file (nodeids relative to tests_dir), and its peak memory."""
    path = os.path.join(tests_dir, rel)
    results, peak, deselect = {}, 0, []
    with tempfile.TemporaryDirectory(prefix="conformance-") as cwd:
        for attempt in range(50):  # each pass after a kill goes on without the killed test
            log = os.path.join(cwd, "outcomes-%d.log" % attempt)
            run_peak, killed = _run_pytest(python, path, [path + "::" + n.split("::", 1)[1] for n in node_ids]
                                           if node_ids else None, deselect, log, opts.timeout,
                                           opts.mem_gb * 2**30, opts.file_timeout, cwd)
            peak = max(peak, run_peak)
            outcomes, running = _read_log(log)
            for nodeid, outcome in outcomes.items():
                results[_relative(nodeid, tests_dir)] = outcome
            if running is None:
                if killed:  # killed between tests, or before the first one (import)
                    results.setdefault(rel + "::<file>", "failed")
                break
            results[_relative(running, tests_dir)] = "killed: %s" % (killed or "the process died")
            deselect += [tests_dir + "/" + _relative(n, tests_dir) for n in outcomes] + [running]
            if node_ids:
                node_ids = [n for n in node_ids if n not in results]
                if not node_ids:
                    break
    if not results:  # collection failed: the file does not import
        results[rel + "::<import>"] = "failed"
    return results, peak


def _relative(nodeid, tests_dir):
    """A nodeid relative to the tests' root folder (unittest/test_x.py::test_y)."""
    path, sep, rest = nodeid.partition("::")
    if os.path.isabs(path):
        path = os.path.relpath(path, tests_dir)
    elif not path.startswith(("unittest/", "mkl/", "gpu/", "train/")):
        path = os.path.relpath(os.path.realpath(path), tests_dir) if os.path.exists(path) else path
    return path + sep + rest


def run_all(python, tests_dir, files, opts, only=None):
    results, peaks = {}, {}
    for rel in files:
        node_ids = sorted(n for n in only if n.startswith(rel + "::")) if only is not None else None
        if only is not None and not node_ids:
            continue
        t0 = time.time()
        file_results, peaks[rel] = run_file(python, tests_dir, rel, node_ids, opts)
        results.update(file_results)
        counts = collections.Counter(o.split(":")[0] for o in file_results.values())
        print("  %-32s %4d passed %4d failed %4d skipped  %5.0f s  peak %.1f GB" % (
            rel, counts["passed"], counts["failed"] + counts["error"] + counts["killed"], counts["skipped"],
            time.time() - t0, peaks[rel] / 2**30), flush=True)
    return results, peaks


def _read_list(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def _write_list(path, names, header):
    with open(path, "w") as f:
        f.write("".join("# %s\n" % line for line in header.splitlines()))
        f.writelines(n + "\n" for n in sorted(names))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable,
                        help="the Python whose `import mxnet` is tested (default: this one)")
    parser.add_argument("--baseline", metavar="PY", help="also run the files on this Python (MXNet 1.9.1)")
    parser.add_argument("--baseline-list", metavar="FILE",
                        help="the tests MXNet 1.9.1 passes here, as --write-baseline wrote them")
    parser.add_argument("--write-baseline", metavar="FILE", help="write the baseline's passing tests here")
    parser.add_argument("--check", metavar="FILE",
                        help="run only the tests listed in FILE; fail unless every one passes")
    parser.add_argument("--exclude", metavar="FILE",
                        help="with --check: tests of the list not to run here (each with its reason)")
    parser.add_argument("--files", nargs="+", default=CORE_FILES, help="test files, relative to --tests-dir")
    parser.add_argument("--tests-dir", default=default_tests_dir())
    parser.add_argument("--timeout", type=int, default=120, help="seconds per test")
    parser.add_argument("--file-timeout", type=int, default=1800, help="seconds per pytest process")
    parser.add_argument("--mem-gb", type=float, default=8.0, help="resident memory cap per pytest process")
    parser.add_argument("--out", help="folder for results.json (every test's outcome, both runs)")
    opts = parser.parse_args()
    if not os.path.isdir(opts.tests_dir):
        sys.exit("MXNet 1.9.1's tests are not at %s (--tests-dir or SYMNET_MXNET_TESTS)" % opts.tests_dir)
    only = set(_read_list(opts.check)) if opts.check else None
    if only is not None and opts.exclude:
        excluded = set(_read_list(opts.exclude))
        print("not run here (%s): %s" % (opts.exclude, ", ".join(sorted(excluded & only)) or "none"))
        only -= excluded
    # the tests run in a temporary folder: a relative interpreter path is made absolute first
    opts.python, opts.baseline = [os.path.abspath(p) if p and os.sep in p else p for p in (opts.python, opts.baseline)]

    print("== MXNet 1.9.1 tests on %s" % opts.python, flush=True)
    results, peaks = run_all(opts.python, opts.tests_dir, opts.files, opts, only)
    passed = {n for n, o in results.items() if o == "passed"}

    mxnet_passed = None
    if opts.baseline:
        print("== the same tests on %s (baseline)" % opts.baseline, flush=True)
        base_results, base_peaks = run_all(opts.baseline, opts.tests_dir, opts.files, opts, only)
        mxnet_passed = {n for n, o in base_results.items() if o == "passed"}
        if opts.write_baseline:
            _write_list(opts.write_baseline, mxnet_passed,
                        "MXNet 1.9.1's tests that MXNet 1.9.1 itself passes on this machine (numpy 1.23.5, no\n"
                        "network), written by tools/mxnet_conformance.py --write-baseline")
    elif opts.baseline_list:
        mxnet_passed = set(_read_list(opts.baseline_list))

    print("== totals", flush=True)
    for rel in opts.files:
        mine = {n for n in passed if n.startswith(rel + "::")}
        if mxnet_passed is None:
            print("  %-32s %4d passed" % (rel, len(mine)))
        else:
            theirs = {n for n in mxnet_passed if n.startswith(rel + "::")}
            print("  %-32s %4d of the %4d MXNet passes  (%d more that MXNet fails)" % (
                rel, len(mine & theirs), len(theirs), len(mine - theirs)))
    if mxnet_passed is not None:
        both = len(passed & mxnet_passed)
        print("symnet passes %d of the %d tests MXNet 1.9.1 passes here (%.1f%%)" % (
            both, len(mxnet_passed), 100.0 * both / max(1, len(mxnet_passed))))
    print("symnet: %d passed, %d failed" % (len(passed), len(results) - len(passed)))
    if opts.out:
        os.makedirs(opts.out, exist_ok=True)
        with open(os.path.join(opts.out, "results.json"), "w") as f:
            json.dump({"symnet": results, "mxnet_passed": sorted(mxnet_passed or []),
                       "peak_bytes": peaks}, f, indent=1, sort_keys=True)
    if only is not None:
        missing = sorted(only - passed)
        for n in missing:
            print("EXPECTED TO PASS, did not: %s (%s)" % (n, results.get(n, "not run: not collected")))
        if missing:
            sys.exit("%d of the %d tests of %s did not pass" % (len(missing), len(only), opts.check))
        print("all %d tests of %s pass" % (len(only), opts.check))


if __name__ == "__main__":
    main()
