"""The ResNet example's script (example/resnet50/train.py) end to end at a small size: the
built-in data set, AMP training with log, checkpoint and curve PNG, resume, --benchmark and
--compare. (The default full run is the README's first command.)"""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")
SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "example", "resnet50", "train.py")
SMALL = ["--num-layers", "18", "--batch-size", "16", "--disp-batches", "2"]


def run(*args):
    out = subprocess.run([sys.executable, SCRIPT] + SMALL + list(args), capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + out.stderr


def test_train_resume_and_outputs(tmp_path):
    work = str(tmp_path)
    text = run("--work-dir", work, "--amp", "bfloat16", "--num-epochs", "1", "--num-iters", "3",
               "--summary-json", str(tmp_path / "s.json"))
    assert "built the digits data set" in text and "loss_scale=" in text and "SUMMARY" in text
    s = json.load(open(tmp_path / "s.json"))
    assert s["run"] == "amp-bfloat16" and s["loss_scale"] > 0 and 0 <= s["val_accuracy"] <= 1
    assert os.path.exists(s["checkpoint"]) and os.path.exists(s["checkpoint"][:-12] + "-0001.states")
    with open(s["plot"], "rb") as f:
        assert f.read(4) == b"\x89PNG"
    recs = [json.loads(l) for l in open(s["log"])]
    assert sum("img_per_s" in r for r in recs) == 3 and any("val_accuracy" in r for r in recs)

    text = run("--work-dir", work, "--amp", "bfloat16", "--num-epochs", "2", "--num-iters", "4", "--resume")
    assert "resuming from" in text and "Epoch[1]" in text and "Epoch[0]" not in text
    recs = [json.loads(l) for l in open(s["log"])]
    assert [r["epoch"] for r in recs if "img_per_s" in r] == [0] * 3 + [1] * 4  # appended


def test_resume_without_checkpoint_is_a_clear_error(tmp_path):
    out = subprocess.run([sys.executable, SCRIPT] + SMALL + ["--work-dir", str(tmp_path), "--resume"],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "no checkpoint" in out.stderr


def test_benchmark_and_compare(tmp_path):
    text = run("--benchmark", "--image-shape", "3,32,32", "--num-iters", "2")
    assert "img/s" in text and "warm-up" in text
    import symnet as mx
    assert "--amp auto: " + mx.amp.auto_dtype("cpu")[0] in text  # the default says what it chose
    text = run("--work-dir", str(tmp_path), "--compare", "--num-epochs", "1", "--num-iters", "2")
    assert "AMP / float32" in text and "float32" in text and "amp-bfloat16" in text
    assert os.path.exists(tmp_path / "compare.png")
