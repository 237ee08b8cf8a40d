"""Every command the README and docs/ tell a reader to run still parses: the program exists, and
each --option it is given is one the program accepts (a Python script's or a C++ program's
--help lists it; a shell script handles it). Commands are the lines of ```sh blocks and the
inline code spans that start a repository program (`python3 example/x.py --flag`,
`tools/x.sh`, `build/pip/example/x`). Scripts are only asked for --help, never run."""
import functools
import glob
import os
import re
import shlex
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCS = ["README.md"] + sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "*.md")))
# a repository program as a command starts it (with ./ or not)
PROGRAM = re.compile(r"^(?:\./)?((?:tools|example|build/pip/example)/[\w./-]+)$")


def _logical_lines(block):
    """Lines of a shell block with backslash continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", block)
    for line in text.splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith("#"):
            yield line


def _segments(line):
    """The simple commands of a line: split at &&, ||, ;, | and leading VAR=value words."""
    for part in re.split(r"&&|\|\||;|\|", line):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        while words and re.match(r"^\w+=", words[0]):
            words = words[1:]
        if words:
            yield words


def _program(words):
    """(program path relative to the repository, its arguments) or None when the command does
    not start a repository program (cmake, pip, cd, pytest...)."""
    if words[0] in ("mpirun", "mpiexec"):
        # mpirun's own options come first; the program is the first repository path or python
        for i, w in enumerate(words[1:], 1):
            if w.startswith(("python", "./", "tools/", "example/", "build/")):
                return _program(words[i:])
        return None
    if re.match(r"^python3?$", words[0]) and len(words) > 1 and words[1].endswith(".py"):
        return words[1], words[2:]
    m = PROGRAM.match(words[0])
    if m:
        return m.group(1), words[1:]
    return None


def _commands():
    """(doc, command text, program, args, is_command) for every documented program: a line of a
    sh block or a code span with arguments or python in front is a command; a bare path in
    prose (`tools/check_layers.py`) only names the file."""
    found = []
    for doc in DOCS:
        text = open(os.path.join(REPO, doc), encoding="utf-8").read()
        lines = []
        for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
            lines += [(line, True) for line in _logical_lines(block)]
        prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        lines += [(span, " " in span.strip()) for span in re.findall(r"`([^`\n]+)`", prose)
                  if re.match(r"^(\w+=\S+ )*(python3? |\./|tools/|example/|build/pip/example/|mpirun )", span)]
        for line, is_command in lines:
            for words in _segments(line):
                prog = _program(words)
                if prog:
                    found.append((doc, line, prog[0], prog[1], is_command))
    return found


@functools.lru_cache(maxsize=None)
def _accepted_text(program):
    """What the program says it accepts: its --help output, or a shell script's own text."""
    path = os.path.join(REPO, program)
    if program.endswith(".sh"):
        return open(path, encoding="utf-8").read()
    cmd = [sys.executable, path, "--help"] if program.endswith(".py") else [path, "--help"]
    # scripts in MXNet's own style `import mxnet`: the alias from the source tree gives them symnet
    alias = os.path.join(REPO, "python", "mxnet_alias")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (alias, os.environ.get("PYTHONPATH")) if p))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=120, cwd=REPO, env=env)
    assert r.returncode == 0, "%s --help failed (exit %d):\n%s" % (program, r.returncode, r.stdout[-2000:])
    return r.stdout


def test_the_docs_name_commands():
    progs = {p for _, _, p, _, is_command in _commands() if is_command}
    # the quick start and the examples are there: a broken extractor would find nothing
    assert {"tools/setup.sh", "tools/run_tests.sh", "example/resnet50/train.py"} <= progs, sorted(progs)
    assert len(progs) >= 10, sorted(progs)


@pytest.mark.parametrize("doc", DOCS)
def test_every_documented_command_parses(doc):
    bad = []
    for d, line, program, args, is_command in _commands():
        if d != doc:
            continue
        path = os.path.join(REPO, program)
        if program.startswith("build/") and not os.path.exists(path):
            continue  # a build output this checkout has not built (the test suite's builds it)
        if not os.path.exists(path):
            bad.append("%s: `%s`: %s does not exist" % (doc, line, program))
            continue
        runnable = program.endswith((".py", ".sh")) or program.startswith("build/")
        if not (is_command and runnable):
            continue  # a file or folder named in prose: it exists, that is all it claims
        accepted = _accepted_text(program)
        for arg in args:
            opt = re.match(r"^(--[\w-]+)", arg)
            if opt and not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt.group(1)), accepted):
                bad.append("%s: `%s`: %s does not accept %s" % (doc, line, program, opt.group(1)))
    assert not bad, "\n".join(bad)
