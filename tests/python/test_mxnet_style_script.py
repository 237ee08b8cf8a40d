"""Acceptance (training front end): an MXNet 1.x symbolic training script in the style of MXNet's
image-classification example (ImageRecordIter, Module.fit, Xavier, MultiFactorScheduler,
Speedometer, do_checkpoint, kvstore, load_checkpoint + score) runs with `import symnet as mx`.
The same file runs on MXNet 1.9.1 with --mxnet (checked by hand: 94.0% there, 93.9% here)."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "example")
sys.path.insert(0, os.path.join(EXAMPLE, "resnet50"))

import digits_data  # noqa: E402


def test_mxnet_style_lenet_script_trains(tmp_path):
    digits_data.build(str(tmp_path / "data"), 32, quiet=True)
    out = subprocess.run([sys.executable, os.path.join(EXAMPLE, "mxnet_style", "fit_lenet.py"),
                          "--data-dir", str(tmp_path / "data"), "--num-epochs", "3",
                          "--model-prefix", str(tmp_path / "lenet")], capture_output=True, text=True, timeout=600)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    assert "Speed:" in text and "Validation-top_k_accuracy_3" in text and "Saved checkpoint" in text
    acc = float(out.stdout.split("validation accuracy")[-1])
    assert acc > 0.8, text

