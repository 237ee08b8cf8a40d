"""docs/operators.md is generated from the registry (tools/gen_operators_doc.py) and must be
current: an op added, renamed, given a GPU kernel or moved between AMP lists changes the table."""
import os
import subprocess
import sys

import pytest

import symnet as mx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_operators_doc_is_current():
    if mx._core.features().get("CUDA") != "1":
        pytest.skip("the table's GPU column describes a CUDA build; this build has no CUDA")
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_operators_doc.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_operators_doc_lists_every_user_op_once():
    text = open(os.path.join(REPO, "docs", "operators.md")).read()
    rows = [line.split("|")[1].strip() for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| operator")]
    user_ops = sorted(op for op in mx._core.list_ops()
                      if not mx._core.op_info(op)["is_backward"] and not op.startswith("_backward"))
    assert sorted(rows) == user_ops
