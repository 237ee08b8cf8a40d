"""The fuzz targets' corpus (tests/fuzz): every target has real seed files to start from, and every
regression input of a fixed finding is listed in docs/fuzzing.md with what it found."""
import glob
import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FUZZ = os.path.join(ROOT, "tests", "fuzz")


def _corpus_of_python_target(name):
    text = open(os.path.join(ROOT, "tools", "run_fuzzers.sh")).read()
    m = re.search(r"\[%s\]=(\w+)" % name, text)
    assert m, "tools/run_fuzzers.sh does not map py_%s to a corpus folder" % name
    return m.group(1)


def test_every_fuzz_target_has_seed_files():
    cpp = [os.path.basename(p)[len("fuzz_"):-len(".cc")] for p in glob.glob(os.path.join(FUZZ, "fuzz_*.cc"))]
    py = [_corpus_of_python_target(os.path.basename(p)[len("fuzz_"):-len(".py")])
          for p in glob.glob(os.path.join(FUZZ, "python", "fuzz_*.py"))]
    assert len(cpp) >= 6 and len(py) >= 3
    for name in cpp + py:
        seeds = glob.glob(os.path.join(FUZZ, "corpus", name, "seed-*"))
        assert len(seeds) >= 2, "tests/fuzz/corpus/%s has %d seed files" % (name, len(seeds))
        assert all(os.path.getsize(s) < 64 * 1024 for s in seeds)


def test_every_regression_input_is_documented():
    doc = open(os.path.join(ROOT, "docs", "fuzzing.md")).read()
    for path in glob.glob(os.path.join(FUZZ, "corpus", "*", "regress-*")):
        rel = "/".join(path.split(os.sep)[-2:])
        assert rel in doc, "%s is not described in docs/fuzzing.md" % rel
